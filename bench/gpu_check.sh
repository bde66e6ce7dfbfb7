#!/usr/bin/env bash
# The sandbox and the trusted timing on the GPU machine, in one device call
# (about 8 minutes on one H200):
#
#   run(command="bash tests/gpu/device.sh bash bench/gpu_check.sh",
#       carry=["build/device", ".gpu"], kind="nvidia-h200")
#
#  1. tests/gpu/test_gpu_worker (the CUDA worker in its jail: SETUP, PROBE,
#     IPC arena, calls);
#  2. `kjudge run --no-perf --jobs 16` over every CUDA case file (solutions,
#     broken, red team): compiles them all in parallel into the shared cache,
#     and shows that a run survives every case;
#  3. tests/gpu/t10_cuda_cases.sh with the compile cache warm, timing on
#     (KJ_CASES_BUDGET, default 0.3 s a shape), every call's worker event time
#     and the judge's own bound logged (KJ_TIMING_LOG) to size the slack;
#  4. a few Python cases through tests/gpu/t50_python.sh (KJ_PY_ONLY), the
#     Python worker in its jail;
#  5. the trains (short calls timed back to back, gpu_train) against the
#     timed calls' event times, per shape (bench/train_summary.sh).
# Logs go to $OUT; a summary is printed last.
set -u
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/gpu-check}
mkdir -p "$O"
export KJ_BUILD=${KJ_BUILD:-$PWD/build/device}
export KJ=$KJ_BUILD/kjudge KJUDGE_CACHE=${KJUDGE_CACHE:-/tmp/kjcache} PYTHONUNBUFFERED=1
export KJ_TEST_CACHE=$KJUDGE_CACHE
s=$(date +%s)
el() { echo "$(( $(date +%s) - s )) s"; }

"$KJ" calibrate >"$O/calibrate.txt" 2>&1
echo "calibrated ($(el)); sandbox: $("$KJ" eval --help >/dev/null 2>&1; command -v bwrap)"

timeout 150 prove -v --exec '' "$KJ_BUILD"/tests/gpu/test_gpu_worker >"$O/worker.txt" 2>&1
echo "worker test done ($(el))"

spec=/tmp/cases.jsonl
: >"$spec"
i=0
for f in examples/solutions/cuda/*.cu examples/broken/cuda/*.cu examples/redteam/*.cu; do
	t=$(head -n 1 "$f" | sed -n 's/.*task=\([^ ]*\).*/\1/p')
	i=$((i + 1))
	printf '{"task": "%s", "model": "case", "sample": %d, "path": "%s"}\n' "$t" "$i" "$PWD/$f" >>"$spec"
done
timeout 240 "$KJ" run "$spec" --db /tmp/cases.sqlite --name cases --backend cuda --gpus 0 --jobs 16 --no-perf --timeout 10 --json \
	>"$O/run.json" 2>"$O/run.err"
echo "run rc=$? over $i case files ($(el))"
sqlite3 /tmp/cases.sqlite "SELECT c.path, v.status FROM candidates c JOIN verdicts v ON v.candidate_id = c.id" \
	>"$O/run_verdicts.txt" 2>/dev/null || true

rm -f "$O/timing.tsv"
KJ_TIMING_LOG=$O/timing.tsv KJ_CASES_BUDGET=${KJ_CASES_BUDGET:-0.3} KJ_CASES_LOG=$O/cases.txt \
	timeout 330 prove -v --exec '' tests/gpu/t10_cuda_cases.sh >"$O/t10.txt" 2>&1
echo "t10 rc=$? ($(el))"

KJ_PY_ONLY=${KJ_PY_ONLY:-'solutions/triton/relu\.py|solutions/kernelbench/(relu|softmax)\.py|broken/triton/wrong_max|redteam/21_py_forge_reply|redteam/24_py_noop'} \
	KJ_PY_LOG=$O/py.txt timeout 200 prove -v --exec '' tests/gpu/t50_python.sh >"$O/t50.txt" 2>&1
echo "t50 rc=$? ($(el))"

echo "== worker test"
grep -E "^not ok" -A4 "$O/worker.txt" | head -30
grep -E "^(Files|Result)|^1\.\." "$O/worker.txt"
echo "== run"
head -c 700 "$O/run.json"; echo
tail -n 3 "$O/run.err"
echo "== t10 failures"
grep -E "^not ok" -A3 "$O/t10.txt" | cut -c1-300 | head -60
grep -E "^(Files|Result)|^1\.\." "$O/t10.txt"
echo "== t50"
grep -E "^(not )?ok" "$O/t50.txt" | cut -c1-200 | head -20
grep -E "^not ok" -A4 "$O/t50.txt" | cut -c1-300 | head -30
echo "== timing: worker event time against the judge's bound (ms), timed calls"
if [ -s "$O/timing.tsv" ]; then
	awk -F'\t' '$3 != "train" { d = $4 - $3; r = $4 > 0 ? d / $4 : 0; print d, r, $7, $3 }' "$O/timing.tsv" | sort -g >"$O/gap.txt"
	n=$(wc -l <"$O/gap.txt")
	awk -v n="$n" '{ d[NR] = $1 } END {
		printf "calls %d; bound - events (ms): p10 %.4f p50 %.4f p90 %.4f p99 %.4f max %.4f\n",
			n, d[int(n*0.1)+1], d[int(n*0.5)+1], d[int(n*0.9)+1], d[int(n*0.99)+1], d[n] }' "$O/gap.txt"
	sort -k2 -g "$O/gap.txt" | awk -v n="$n" '{ r[NR] = $2 } END {
		printf "relative (bound - events)/bound: p50 %.4f p90 %.4f p99 %.4f max %.4f\n",
			r[int(n*0.5)+1], r[int(n*0.9)+1], r[int(n*0.99)+1], r[n] }'
	echo "calls flagged as a gap: $(awk -F'\t' '$3 != "train" && $7 == 1' "$O/timing.tsv" | wc -l), by task:"
	awk -F'\t' '$3 != "train" && $7 == 1 { c[$1]++ } END { for (t in c) print "  " t, c[t] }' "$O/timing.tsv" | head -20
	echo "== trains: the train's bound on one call against the median event time of that shape's timed calls"
	bash bench/train_summary.sh "$O/timing.tsv" >"$O/train.txt"; cut -c1-230 "$O/train.txt" | tail -n 45
fi
echo "== case verdicts with speedups (solutions)"
grep "solutions" "$O/cases.txt" 2>/dev/null | awk '{print $1, $2, $4, $6}' | head -70
echo "== honest solutions flagged timing_gap: $(grep solutions "$O/cases.txt" 2>/dev/null | grep -c timing_gap)"
echo "== short-call forgers beside the honest solution of their task (speedups)"
grep -E "24_got_event_(short|train_aware)|solutions/cuda/fused_add_rmsnorm_bf16" "$O/cases.txt" 2>/dev/null |
	awk '{print $1, $2, $4, $6}'
tar -C "$O" -czf "$O/logs.tgz" worker.txt t10.txt t50.txt timing.tsv train.txt cases.txt run.json run.err py.txt 2>/dev/null; rm -f "$O"/*.txt "$O"/timing.tsv "$O"/run.json "$O"/run.err
echo "gpu_check done in $(el)"
