#!/usr/bin/env bash
# Everything GPU in a few device calls (nvidia-h200-x2: two GPUs), built on the
# development machine with `make device-bundle` and carried as build/device:
#
#   run(command="bash tests/gpu/device.sh bash bench/gpu_session.sh tests",
#       carry=["build/device", ".gpu"], kind="nvidia-h200-x2")
#
# Phases (each a separate call fits the 10-minute limit; `all` runs them in turn):
#   tests   GPU 1: every GPU test (test_gpu_*, the CUDA and Python case files);
#           GPU 0 at the same time: bench/baseline_vs_torch.py over every task
#   multi   bench/multi_gpu.sh: one GPU against two, kjudge compare across GPUs
#   trace   the trace suite's honest CUDA solutions judged, report --weights (S_agg)
#   serve   bench/serve_throughput.sh on both GPUs
#   recheck what changed since a full run (KJ_GPU_ONLY, KJ_CASES_ONLY, KJ_BVT_ONLY
#           select it): GPU tests and t50 on GPU 1, baseline_vs_torch then trace on GPU 0;
#           KJ_NODES (task ids) first times those baselines op by op (kjudge baseline --nodes)
# Logs go to $OUT (at most 8 files come back); a summary is printed last.
set -u
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/gpu-session}
mkdir -p "$O"
export KJ_BUILD=${KJ_BUILD:-$PWD/build/device}
export KJ=$KJ_BUILD/kjudge KJUDGE_CACHE=${KJUDGE_CACHE:-/tmp/kjcache} PYTHONUNBUFFERED=1
export KJ_TEST_CACHE=$KJUDGE_CACHE KJ_PY_PERF_BUDGET=${KJ_PY_PERF_BUDGET:-0.1}
phase=${1:-all}
# a comma-separated list runs several phases in turn (recheck,serve,multi)
want() { [ "$phase" = all ] || [[ ",$phase," == *",$1,"* ]]; }
s=$(date +%s)
el() { echo "$(( $(date +%s) - s )) s"; }
if [ "$phase" != trace ] || [ ! -s "$O/calibrate.txt" ]; then
	"$KJ" calibrate --device 0 >"$O/calibrate.txt" 2>&1
	"$KJ" calibrate --device 1 >/dev/null 2>&1 || true
fi

if want tests; then
	(CUDA_VISIBLE_DEVICES=1 timeout 560 prove -f -v --exec '' "$KJ_BUILD"/tests/gpu/test_gpu_* \
		tests/gpu/t*.sh >"$O/test-gpu.txt" 2>&1; echo "prove rc=$?" >>"$O/test-gpu.txt") &
	(CUDA_VISIBLE_DEVICES=0 timeout 560 python3 bench/baseline_vs_torch.py --kjudge "$KJ" --total 500 --sizing-out "$O/sizing_h200.tsv" \
		>"$O/bvt.log" 2>&1) &
	wait
	echo "== tests ($(el))"
	grep -E "^not ok" -A6 "$O/test-gpu.txt" | head -80
	grep -E "^(tests|/).*(ok|Failed|skipped)|^Files=|^Result|rc=" "$O/test-gpu.txt"
	echo "== baseline vs torch"
	sed -n '/^shapes compared/,$p' "$O/bvt.log" | cut -c1-600
fi
if [[ ",$phase," == *",recheck,"* ]]; then
	# a file of shell assignments may set them too: gpu_session.sh recheck FILE
	if [ -n "${2:-}" ]; then
		. "$2"
		export KJ_NODES KJ_GPU_ONLY KJ_CASES_ONLY KJ_BVT_ONLY KJ_RECHECK_TIMEOUT KJ_MULTI_TIMEOUT KJ_MULTI_N KJ_MULTI_BUDGET KJ_RECHECK_PY KJ_RECHECK_TRACE KJ_SERVE_TIMEOUT KJ_GPU_OPCASES KJ_PY_ONLY KJ_SDPA_DEBUG KJ_PY_TIMEOUT
	fi
	# what changed since a full run: KJ_GPU_ONLY (task files for test_gpu_ops),
	# KJ_CASES_ONLY (case files for t10), KJ_BVT_ONLY (tasks for baseline_vs_torch);
	# KJ_RECHECK_PY=0 / KJ_RECHECK_TRACE=0 leave out t50 / the trace suite,
	# KJ_RECHECK_TIMEOUT bounds the tests and the comparison (seconds)
	(export CUDA_VISIBLE_DEVICES=1 KJ_CASES_LOG=$O/cases.txt
	 timeout "${KJ_RECHECK_TIMEOUT:-250}" prove -f -v --exec '' "$KJ_BUILD"/tests/gpu/test_gpu_ops tests/gpu/t10_cuda_cases.sh \
		>"$O/test-gpu.txt" 2>&1; echo "prove rc=$?" >>"$O/test-gpu.txt"
	 if [ "${KJ_RECHECK_PY:-1}" = 1 ]; then
		# one line per case in py-cases.txt survives a timeout (prove's own output is buffered)
		KJ_PY_LOG=$O/py-cases.txt timeout "${KJ_PY_TIMEOUT:-240}" prove -f -v --exec '' tests/gpu/t50_python.sh >"$O/test-py.txt" 2>&1
		echo "prove rc=$?" >>"$O/test-py.txt"
	 else
		echo "t50_python not run (KJ_RECHECK_PY=0)" >"$O/test-py.txt"
	 fi) &
	(if [ -n "${KJ_NODES:-}" ]; then # per-op times of these tasks' baselines first
		for t in ${KJ_NODES//,/ }; do
			CUDA_VISIBLE_DEVICES=0 timeout 60 "$KJ" baseline "$t" --nodes --budget 0.3 2>&1
		done >"$O/nodes.txt"
	 fi
	 CUDA_VISIBLE_DEVICES=0 timeout $(( ${KJ_RECHECK_TIMEOUT:-250} + 80 )) python3 bench/baseline_vs_torch.py --kjudge "$KJ" --total "${KJ_RECHECK_TIMEOUT:-250}" \
		--only "${KJ_BVT_ONLY:-level}" >"$O/bvt.log" 2>&1
	 if [ "${KJ_RECHECK_TRACE:-1}" = 1 ]; then
		CUDA_VISIBLE_DEVICES=0 GPUS=0 bash "$0" trace >"$O/trace.txt" 2>&1
	 else
		echo "trace not run (KJ_RECHECK_TRACE=0)" >"$O/trace.txt"
	 fi) &
	wait
	echo "== recheck ($(el))"
	grep -E "^not ok" -A4 "$O/test-gpu.txt" "$O/test-py.txt" | head -60
	grep -E "^(tests|/).*(ok|Failed|skipped)|^Files=|^Result|rc=" "$O/test-gpu.txt" "$O/test-py.txt"
	sort -k4 -g -r "$O/cases.txt" 2>/dev/null | grep " pass " | cut -c1-160
	[ -s "$O/py-cases.txt" ] && { echo "== python cases"; cut -c1-200 "$O/py-cases.txt"; }
	echo "== baseline vs torch"
	sed -n '/^shapes compared/,$p' "$O/bvt.log" | cut -c1-1500
	echo "== trace"; grep -v "^== calibrate" "$O/trace.txt" | head -20
	if [ -s "$O/nodes.txt" ]; then # the slowest ops of each profiled shape
		echo "== baseline nodes"
		awk '/^task/{t=$2} /^device/{next} /^ +line/{if ($(NF) + 0 >= 8) print t": "$0; next} /^[A-Z]/{print t": "$0}' "$O/nodes.txt" | cut -c1-150 | head -120
	fi
fi
if want multi; then
	ncase=$(ls examples/solutions/cuda/*.cu examples/broken/cuda/*.cu | wc -l)
	timeout "${KJ_MULTI_TIMEOUT:-560}" bash bench/multi_gpu.sh --n "${KJ_MULTI_N:-$ncase}" ${KJ_MULTI_SPEC_TOO:+--spec-order-too} \
		-- --perf-budget "${KJ_MULTI_BUDGET:-0.2}" >"$O/multi.txt" 2>&1
	echo "== multi ($(el))"
	tail -n 30 "$O/multi.txt"
fi
if want trace; then
	spec=$O/trace_spec.jsonl
	: >"$spec"
	for f in examples/solutions/cuda/trace_llama_*.cu; do
		t=$(head -n 1 "$f" | sed -n 's/.*task=\([^ ]*\).*/\1/p')
		printf '{"task": "%s", "model": "honest", "path": "%s"}\n' "$t" "$PWD/$f" >>"$spec"
	done
	timeout 300 "$KJ" run "$spec" --db /tmp/trace.sqlite --name trace --gpus "${GPUS:-0,1}" --json >"$O/trace_run.json" 2>&1
	"$KJ" report trace --db /tmp/trace.sqlite --weights tasks/trace/llama >"$O/trace_report.md" 2>&1
	echo "== trace ($(el))"
	cat "$O/trace_run.json" | head -c 600; echo
	grep -i -E "s_agg|coverage|weighted" "$O/trace_report.md" | head -12
fi
if want serve; then
	timeout "${KJ_SERVE_TIMEOUT:-300}" bash bench/serve_throughput.sh --backend cuda --gpus 0,1 --n 32 --clients 8 \
		-- --perf-budget 0.2 >"$O/serve.txt" 2>&1
	echo "== serve ($(el))"
	tail -n 3 "$O/serve.txt"
fi
echo "== calibrate"; head -n 12 "$O/calibrate.txt"
echo "gpu_session $phase done in $(el)"
