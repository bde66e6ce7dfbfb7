#!/usr/bin/env bash
# bench/kb_problems.sh DIR: KernelBench problem files as tasks, end to end
# on a GPU, over N problems of the KernelBench checkout DIR (its
# KernelBench/level1..3; the lead carries one at .kb/kb).  For each problem
# it writes, at run time in a temporary folder, an honest plain-torch
# candidate: a copy of the problem file with its class Model renamed
# ModelNew (never committed: KernelBench's files are the user's), and judges
# it with `kjudge eval PROBLEM CAND --json` (backend kernelbench, implied).
# Prints per problem: status, flags, ms, baseline ms, speedup, wall time,
# and the reason of a failure; then "kb problems: P pass of N".  Such a
# candidate computes what the problem computes with the same operators, so
# every one should pass (flagged fallback: it calls torch); a failure is a
# problem kjudge cannot judge yet, or a bug.
#   N (default 12): problems (bench/kb_cands.py's plain candidates), taken
#   from LEVELS (default "1 2 3") in turn, the lowest-numbered first; TOTAL (default 480): seconds for all of them;
#   EVAL_S (default 240): seconds for one; PERF_BUDGET (default 0.3).
set -u
dir=${1:?usage: bench/kb_problems.sh KERNELBENCH_DIR}
cd "$(dirname "$0")/.."
KJ=${KJ:-${KJ_BUILD:-$PWD/build}/kjudge}
[ -d "$dir/KernelBench" ] && dir=$dir/KernelBench
levels=${LEVELS:-1 2 3}
n=${N:-12}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbprob.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# the honest candidates: each problem itself, its Model renamed
python3 bench/kb_cands.py "$dir" "$tmp/c" --plain "$n" --levels "$(echo $levels | tr ' ' ',')" >/dev/null || exit 2
start=$(date +%s)
total=0
pass=0
while IFS=$'\t' read -r p cand kind; do
	if [ $(( $(date +%s) - start )) -ge "${TOTAL:-480}" ]; then
		echo "kb_problems: time is up after $total problems"
		break
	fi
	name=$(basename "$(dirname "$p")")/$(basename "$p" .py)
	t0=$(date +%s%N)
	timeout "${EVAL_S:-240}" "$KJ" eval --json --quiet --perf-budget "${PERF_BUDGET:-0.3}" "$p" "$cand" \
		>"$tmp/v.json" 2>"$tmp/e" </dev/null
	rc=$?
	wall=$(( ($(date +%s%N) - t0) / 1000000 ))
	total=$((total + 1))
	perl -MJSON::PP -e '
		my ($f, $name, $rc, $wall, $ef) = @ARGV;
		local $/; open my $fh, "<", $f; my $t = <$fh> // "";
		my $v = eval { JSON::PP->new->decode($t) } // {};
		open my $eh, "<", $ef; my $e = <$eh> // ""; $e =~ s/\s+/ /g;
		my $p = ($v->{perf} // [])->[0] // {};
		my $why = $v->{reason} // ($v->{error} // {})->{message} // $e;
		printf "%-45s %-13s rc %-3d flags %-28s ms %-9s baseline_ms %-9s speedup %-7s wall %d ms%s\n",
			$name, $v->{status} // "error", $rc, join(",", @{$v->{flags} // []}) || "-",
			defined $p->{ms} ? sprintf("%.4g", $p->{ms}) : "-",
			defined $p->{baseline_ms} ? sprintf("%.4g", $p->{baseline_ms}) : "-",
			defined $p->{speedup} ? sprintf("%.3g", $p->{speedup}) : "-", $wall,
			($v->{status} // "") eq "pass" ? "" : ": " . substr($why, 0, 300);
	' "$tmp/v.json" "$name" "$rc" "$wall" "$tmp/e"
	[ "$rc" -eq 0 ] && pass=$((pass + 1))
done <"$tmp/c/pairs.tsv"
echo "kb problems: $pass pass of $total"
