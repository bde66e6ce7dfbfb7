#!/usr/bin/env bash
# One GPU against two on the same batch (GPU machine with >= 2 GPUs).
#
# The batch: every CUDA case of examples/solutions/cuda and examples/broken/cuda,
# copied under fake models until there are N candidates, each copy made distinct
# by a `// variant K` line, so every compile misses the cache.  Three runs of
# the same batch, each with a fresh compile cache (cold nvcc compiles) and its
# own store:
#   A  --gpus 0        B  --gpus 1        AB --gpus 0,1
# (and with --spec-order-too, ABs: --gpus 0,1 --order spec, the SPEC's order
# instead of the default longest-first)
# The eager baselines are warmed first on both GPUs (`kjudge baseline --device
# N` for every task of the batch) and the calibration is copied in, so the runs
# measure judging, not the one-off per-GPU setup; that setup is timed and
# printed apart.  Prints wall time and candidates per second of each run, the
# scaling AB against A, and `kjudge compare` of A against B: the same
# candidates' speedups on each GPU (the cross-GPU spread).
#
# Then the longest judgements of A and the last three of each GPU in AB (the
# tail that keeps one GPU busy while the other is idle).
#
#   bash tests/gpu/device.sh bash bench/multi_gpu.sh [--n N] [--jobs J] [--spec-order-too] [-- extra run options]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kj=${KJ:-${KJ_BUILD:-$root/build}/kjudge}
n=64
jobs=""
spec_order=0
extra=()
while [ $# -gt 0 ]; do
	case $1 in
	--n) n=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--spec-order-too) spec_order=1; shift ;;
	--) shift; extra=("$@"); break ;;
	-h|--help) sed -n '2,22p' "$0"; exit 0 ;;
	*) echo "multi_gpu: unknown option $1" >&2; exit 2 ;;
	esac
done
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[ "$ngpu" -ge 2 ] || { echo "multi_gpu: needs 2 GPUs, nvidia-smi lists $ngpu" >&2; exit 2; }
[ -x "$kj" ] || { echo "multi_gpu: no kjudge at $kj" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/kjmulti.XXXXXX")
trap 'rm -rf "$work"' EXIT
old_cache=${KJUDGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kjudge}
shared=$work/shared
mkdir -p "$shared/calib" "$work/src"
cp "$old_cache"/calib/*.json "$shared/calib/" 2>/dev/null || true

cases=$(ls "$root"/examples/solutions/cuda/*.cu "$root"/examples/broken/cuda/*.cu)
spec=$work/batch.jsonl
k=0
while [ $k -lt "$n" ]; do
	for f in $cases; do
		[ $k -lt "$n" ] || break
		task=$(head -n 1 "$f" | sed -n 's/.*task=\([^ ]*\).*/\1/p')
		[ -n "$task" ] || continue
		out=$work/src/$k.cu
		cp "$f" "$out"
		printf '\n// variant %d\n' "$k" >>"$out"
		printf '{"task": "%s", "model": "model%d", "sample": %d, "round": 0, "path": "%s"}\n' \
			"$task" $((k % 4)) $((k / 4)) "$out"
		k=$((k + 1))
	done
done >"$spec"
tasks=$(sed -n 's/.*"task": "\([^"]*\)".*/\1/p' "$spec" | sort -u)
echo "multi_gpu: $k candidates over $(echo "$tasks" | wc -l) tasks, $ngpu GPUs"

# calibration (if missing) and baselines on both GPUs, in parallel
t0=$(date +%s.%N)
for d in 0 1; do
	(
		export KJUDGE_CACHE=$shared
		"$kj" calibrate --device $d >/dev/null 2>&1 || true
		for t in $tasks; do "$kj" baseline "$t" --device $d --budget 0.3 >/dev/null 2>&1 || echo "baseline $t on $d failed"; done
	) &
done
wait
t1=$(date +%s.%N)
printf 'setup (calibration + baselines of %d tasks on each GPU, in parallel): %.1f s\n' \
	"$(echo "$tasks" | wc -l)" "$(awk "BEGIN{print $t1 - $t0}")"

run_one() { # name gpus [run options]
	local c=$work/cache_$1
	mkdir -p "$c"
	cp -r "$shared"/. "$c"/
	local args=(run "$spec" --db "$work/$1.sqlite" --name "$1" --backend cuda --gpus "$2" --json "${@:3}")
	[ -n "$jobs" ] && args+=(--jobs "$jobs")
	local s e
	s=$(date +%s.%N)
	KJUDGE_CACHE=$c "$kj" "${args[@]}" "${extra[@]}" >"$work/$1.json" 2>"$work/$1.err" || true
	e=$(date +%s.%N)
	echo "$1 $2 $(awk "BEGIN{print $e - $s}") $(perl -MJSON::PP -e 'local $/; my $s = JSON::PP->new->decode(<STDIN>); my $b = $s->{by_status}; print join(",", map {"$_=$b->{$_}"} sort grep {$b->{$_}} keys %$b)' <"$work/$1.json")"
}
: >"$work/runs.txt"
run_one A 0 >>"$work/runs.txt"
run_one B 1 >>"$work/runs.txt"
run_one AB 0,1 >>"$work/runs.txt"
# the same two GPUs in the SPEC's order instead of longest-first
[ $spec_order = 1 ] && run_one ABs 0,1 --order spec >>"$work/runs.txt"
echo
printf '%-4s %-6s %9s %12s  %s\n' run gpus seconds "cand/s" statuses
while read -r name g secs st; do
	printf '%-4s %-6s %9.1f %12.3f  %s\n' "$name" "$g" "$secs" "$(awk "BEGIN{print $k / $secs}")" "$st"
done <"$work/runs.txt"
for name in A B AB ABs; do # where each evaluation thread's time went (kjudge run --json)
	perl -MJSON::PP -e 'local $/; my $s = JSON::PP->new->decode(<STDIN>);
		printf "%-4s GPU %d: %d jobs, first start %.1f s, last end %.1f s, busy %.1f s, waiting for a compile %.1f s\n",
			$ARGV[0], $_->{ordinal}, $_->{jobs}, $_->{first_start_s}, $_->{last_end_s}, $_->{busy_s}, $_->{wait_s}
			for @{$s->{devices} || []}' "$name" <"$work/$name.json" 2>/dev/null || true
done
# the longest judgements of A and the last ones of each GPU in AB (the tail)
python3 - "$work" <<'PY' 2>/dev/null || true
import sqlite3, sys, datetime
def ts(s): return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()
for name in ("A", "AB"):
    db = sqlite3.connect("%s/%s.sqlite" % (sys.argv[1], name))
    rows = db.execute("SELECT c.task, j.device_id, j.started, j.finished, v.status FROM judgements j "
                      "JOIN candidates c ON c.id = j.candidate_id LEFT JOIN verdicts v ON v.candidate_id = c.id "
                      "WHERE j.finished IS NOT NULL").fetchall()
    t0 = min(ts(r[2]) for r in rows)
    rows = [(r[0], r[1], ts(r[2]) - t0, ts(r[3]) - ts(r[2]), r[4]) for r in rows]
    longest = sorted(rows, key=lambda r: -r[3])[:6]
    print("%-3s longest: " % name + ", ".join("%s %s %.1f s" % (r[0].split("/")[-1], r[4], r[3]) for r in longest))
    if name == "AB":
        for d in sorted(set(r[1] for r in rows)):
            last = sorted((r for r in rows if r[1] == d), key=lambda r: r[2])[-3:]
            print("AB  device %s last jobs: " % d + ", ".join("%s %s at %.1f s for %.1f s" % (r[0].split("/")[-1], r[4], r[2], r[3]) for r in last))
PY
a=$(awk '$1=="A"{print $3}' "$work/runs.txt")
ab=$(awk '$1=="AB"{print $3}' "$work/runs.txt")
printf 'scaling: two GPUs against GPU 0 alone = %.2fx (target >= 1.9x)\n' "$(awk "BEGIN{print $a / $ab}")"
abs=$(awk '$1=="ABs"{print $3}' "$work/runs.txt")
[ -n "$abs" ] && printf 'scaling in the SPEC order (--order spec): %.2fx\n' "$(awk "BEGIN{print $a / $abs}")"
echo
echo "== kjudge compare A (GPU 0) B (GPU 1): same candidates, speedup ratio per task"
"$kj" compare A B --db "$work/A.sqlite" --db-b "$work/B.sqlite" >"$work/compare.md" 2>&1 || true
tail -n 70 "$work/compare.md"
if [ -n "${OUT:-}" ]; then
	cp "$work"/*.json "$work/runs.txt" "$work/compare.md" "$OUT"/ 2>/dev/null || true
fi
