#!/usr/bin/env bash
# The closing measurements of the sandbox work in one device call (~7 min on
# one H200), after bench/gpu_check.sh has judged every case:
#
#   run(command="bash tests/gpu/device.sh bash bench/gpu_final.sh",
#       carry=["build/device", "build/device-before", ".gpu"], kind="nvidia-h200")
#
#  1. the CUDA cases whose verdict rests on the timing rule (timing_gap
#     expected, or a pass that must stay unflagged), through t10;
#  2. a few Python cases through t50 (the Python worker in its jail);
#  3. bench/sandbox_cost.sh: cold and warm `kjudge eval` on both tracks before
#     and after, run_throughput before and after, honest speedups before and
#     after; the after build logs every timed call's worker event time and
#     the judge's bound (KJ_TIMING_LOG), summarised last.
set -u
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/gpu-final}
mkdir -p "$O"
export KJ_BUILD=${KJ_BUILD:-$PWD/build/device}
export KJ=$KJ_BUILD/kjudge KJUDGE_CACHE=${KJUDGE_CACHE:-/tmp/kjcache} PYTHONUNBUFFERED=1
export KJ_TEST_CACHE=$KJUDGE_CACHE
s=$(date +%s)
el() { echo "$(( $(date +%s) - s )) s"; }
"$KJ" calibrate >"$O/calibrate.txt" 2>&1
KJ_CASES_ONLY=${KJ_CASES_ONLY:-06_,22_got,24_got,25_,default_stream,20_fsetown,23_got} KJ_CASES_BUDGET=0.3 \
	KJ_CASES_LOG=$O/cases.txt timeout 120 prove -v --exec '' tests/gpu/t10_cuda_cases.sh >"$O/t10.txt" 2>&1
echo "t10 rc=$? ($(el))"
KJ_PY_ONLY=${KJ_PY_ONLY:-'solutions/triton/relu\.py|solutions/kernelbench/(relu|softmax)\.py|broken/triton/wrong_max'} \
	KJ_PY_LOG=$O/py.txt timeout 120 prove -v --exec '' tests/gpu/t50_python.sh >"$O/t50.txt" 2>&1
echo "t50 rc=$? ($(el))"
rm -f "$O/timing.tsv"
KJ_TIMING_LOG=$O/timing.tsv timeout 330 bash bench/sandbox_cost.sh --before build/device-before --after "$KJ_BUILD" \
	--tracks cuda,cpu --n ${SC_N:-6} --warm 2 --tp-n ${TP_N:-24} --tp-timeout 70 --total 300 >"$O/cost.txt" 2>&1
echo "sandbox_cost rc=$? ($(el))"
echo "== t10"
grep -E "^(not )?ok" "$O/t10.txt" | cut -c1-160
grep -E "^not ok" -A3 "$O/t10.txt" | grep "#" | cut -c1-300 | head -20
echo "== t50"
cut -c1-250 "$O/py.txt" 2>/dev/null
echo "== timing: worker event time against the judge's bound (ms), timed calls of the after build"
if [ -s "$O/timing.tsv" ]; then
	awk -F'\t' '{ print $4 - $3, ($4 > 0 ? ($4 - $3) / $4 : 0), $7, $3, $1 }' "$O/timing.tsv" | sort -g >"$O/gap.txt"
	n=$(wc -l <"$O/gap.txt")
	awk -v n="$n" '{ d[NR] = $1 } END {
		printf "calls %d; bound - events (ms): p10 %.4f p50 %.4f p90 %.4f p99 %.4f max %.4f\n",
			n, d[int(n*0.1)+1], d[int(n*0.5)+1], d[int(n*0.9)+1], d[int(n*0.99)+1], d[n] }' "$O/gap.txt"
	sort -k2 -g "$O/gap.txt" | awk -v n="$n" '{ r[NR] = $2 } END {
		printf "relative (bound - events)/bound: p10 %.4f p50 %.4f p90 %.4f p99 %.4f\n",
			r[int(n*0.1)+1], r[int(n*0.5)+1], r[int(n*0.9)+1], r[int(n*0.99)+1] }'
	echo "calls at the floor (bound - slack above the events): $(awk -F'\t' '$7 == 1' "$O/timing.tsv" | wc -l) of $n; by task:"
	awk -F'\t' '{ c[$1]++; if ($7 == 1) g[$1]++ } END { for (t in c) printf "  %s %d/%d\n", t, g[t], c[t] }' "$O/timing.tsv"
fi
echo "== sandbox cost"
sed -n '/^== speedups/,$p' "$O/cost.txt"
echo "gpu_final done in $(el)"
