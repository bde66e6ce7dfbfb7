#!/usr/bin/env bash
# What a Python candidate costs beyond its own build and GPU work, without
# pre-warmed workers (KJUDGE_PY_SPARES=0: each worker starts when its
# candidate needs it) and with them (1, the default), cold (an empty cache:
# the probe, Triton's and nvcc's builds) and warm (the same sources again,
# builds cached), with the profile's split (docs/kernelbench.md, "Pre-warmed
# workers"):
#   1. kjudge eval of relu on the triton and the kernelbench tracks;
#   2. kjudge run of N triton solutions (distinct sources, each its own
#      build), per candidate.
#   3. with PYW_INLINE=M: kjudge run of M distinct copies of the load_inline
#      solution (kernelbench): their nvcc builds run on the compile-ahead pool
#      (kj_py_prebuild), the warm-ups on the GPU's thread.
# The device calibration is copied in, not measured.  Not a test: numbers.
#   KJ_BUILD=build bash bench/py_prewarm.sh [N]
set -u
R=$(cd "$(dirname "$0")/.." && pwd)
KJ=${KJ:-${KJ_BUILD:-$R/build}/kjudge}
N=${1:-6}
W=$(mktemp -d "${TMPDIR:-/tmp}/kjpw.XXXXXX")
trap 'rm -rf "$W"' EXIT
old=${KJUDGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kjudge}
fresh_cache() {
	rm -rf "$W/cache" && mkdir -p "$W/cache/calib"
	cp "$old"/calib/*.json "$W/cache/calib/" 2>/dev/null || true
}
# one line from a verdict (eval) or a run's summary (run): the profile's parts per candidate
parts='py_wait py_start spawn context compile static floor load baseline call timed_call other'
show() {
	perl -MJSON::PP -e '
		my ($file, $label, $wall, $parts) = @ARGV;
		local $/; open my $f, "<", $file or die; my $v = JSON::PP->new->decode(<$f>);
		my ($p, $n, $st) = $v->{profile_seconds} ? ($v->{profile_seconds}, 1, $v->{status})
			: ($v->{profile_s} || {}, $v->{judged} || 1, "judged " . ($v->{judged} // 0));
		printf "%-30s %-14s wall/cand %6.2f s  %s\n", $label, $st, $wall / $n,
			join(" ", map { sprintf "%s %.2f", $_, ($p->{$_} // 0) / $n } split / /, $parts);
	' "$1" "$2" "$3" "$parts"
}

echo "== kjudge eval, level1/relu, --perf-budget 0.3"
for be in triton kernelbench; do
	f=$R/examples/solutions/$be/relu.py
	for n in 0 1; do
		fresh_cache
		for run in cold warm; do
			t0=$(date +%s%N)
			KJUDGE_PY_SPARES=$n KJUDGE_CACHE=$W/cache "$KJ" eval --json --quiet --backend $be \
				--perf-budget 0.3 level1/relu "$f" >"$W/v.json" 2>"$W/e.txt"
			t1=$(date +%s%N)
			show "$W/v.json" "eval $be spares=$n $run" "$(( (t1 - t0) / 1000000 ))e-3" || cat "$W/e.txt"
		done
	done
done

echo "== kjudge run, $N triton solutions (distinct sources), --perf-budget 0.3"
: >"$W/spec.jsonl"
k=0
for f in "$R"/examples/solutions/triton/*.py; do
	[ $k -lt "$N" ] || break
	k=$((k + 1))
	printf '{"task": "%s", "model": "m", "sample": %d, "path": "%s"}\n' \
		"$(head -n 1 "$f" | sed -n 's/.*task=\([^ ]*\).*/\1/p')" "$k" "$f" >>"$W/spec.jsonl"
done
for n in 0 1; do
	fresh_cache
	for run in cold warm; do
		rm -f "$W/r.sqlite"
		t0=$(date +%s%N)
		KJUDGE_PY_SPARES=$n KJUDGE_CACHE=$W/cache "$KJ" run "$W/spec.jsonl" --db "$W/r.sqlite" --backend triton \
			--perf-budget 0.3 --json >"$W/s.json" 2>"$W/e.txt"
		t1=$(date +%s%N)
		show "$W/s.json" "run triton spares=$n $run" "$(( (t1 - t0) / 1000000 ))e-3" || tail -n 3 "$W/e.txt"
	done
done

if [ "${PYW_INLINE:-0}" -gt 0 ]; then
	echo "== kjudge run, $PYW_INLINE distinct load_inline solutions (kernelbench), --perf-budget 0.3"
	mkdir -p "$W/inl"
	: >"$W/spec_inl.jsonl"
	for k in $(seq 1 "$PYW_INLINE"); do
		cp "$R/examples/solutions/kernelbench/relu_cuda_inline.py" "$W/inl/$k.py"
		printf '\n# variant %d\n' "$k" >>"$W/inl/$k.py"
		printf '{"task": "level1/relu", "model": "m", "sample": %d, "path": "%s"}\n' "$k" "$W/inl/$k.py" \
			>>"$W/spec_inl.jsonl"
	done
	fresh_cache
	t0=$(date +%s%N)
	KJUDGE_CACHE=$W/cache "$KJ" run "$W/spec_inl.jsonl" --db "$W/inl.sqlite" --backend kernelbench \
		--perf-budget 0.3 --json >"$W/s.json" 2>"$W/e.txt"
	t1=$(date +%s%N)
	show "$W/s.json" "run kernelbench inline cold" "$(( (t1 - t0) / 1000000 ))e-3" || tail -n 3 "$W/e.txt"
fi
