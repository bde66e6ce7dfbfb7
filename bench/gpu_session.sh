#!/usr/bin/env bash
# Everything GPU in a few device calls, built on the development machine with
# `make device-bundle` and carried as build/device:
#
#   run(command="bash tests/gpu/device.sh bash bench/gpu_session.sh tests",
#       carry=["build/device", ".gpu"], kind="nvidia-h200")      # or nvidia-h200-x2
#
# The GPU count comes from `nvidia-smi -L`.  With two or more GPUs the tests
# and the benches of a phase run at the same time on GPUs 1 and 0; with one,
# they run one after the other on GPU 0, the tests first, then
# baseline_vs_torch (and trace) with what is left of the phase's time budget
# (KJ_PHASE_BUDGET seconds from the script's start, default 560; a bench that
# would get under a minute is skipped, and says so).
#
# Phases (each a separate call fits the 10-minute limit; `all` runs them in turn):
#   tests   every GPU test (test_gpu_*, the CUDA and Python case files) and
#           bench/baseline_vs_torch.py over every task (2 GPUs: tests on GPU 1
#           while the comparison runs on GPU 0; 1 GPU: in turn on GPU 0)
#   multi   bench/multi_gpu.sh: one GPU against two, kjudge compare across GPUs
#           (needs two GPUs: skipped, with a line saying so, on one)
#   trace   the trace suite's honest CUDA solutions judged, report --weights (S_agg)
#           (kjudge run --gpus 0,1, or --gpus 0 on one GPU; GPUS= overrides)
#   serve   bench/serve_throughput.sh on every GPU (--gpus 0,1, or 0)
#   recheck what changed since a full run (KJ_GPU_ONLY, KJ_CASES_ONLY, KJ_BVT_ONLY
#           select it): GPU tests and t50, then or beside them baseline_vs_torch
#           then trace (2 GPUs: tests on GPU 1, benches on GPU 0; 1 GPU: in turn);
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
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
ngpu=${ngpu:-0}
# one GPU: seconds left of the phase's budget less a margin ($1, default 0),
# at least 1 (a timeout of 0 would be none)
budget=${KJ_PHASE_BUDGET:-560}
left() { local l=$(( budget - ($(date +%s) - s) - ${1:-0} )); echo $(( l > 1 ? l : 1 )); }
# a timeout ($1): as given on two GPUs, on one at most what is left less $2
cap() { local l; [ "$ngpu" -ge 2 ] && { echo "$1"; return; }; l=$(left "${2:-0}"); echo $(( $1 < l ? $1 : l )); }
if [ "$ngpu" -ge 2 ]; then
	TGPU=1 BGPU=0 ALLGPUS=0,1  # tests on GPU 1, benches on GPU 0, at the same time
else
	TGPU=0 BGPU=0 ALLGPUS=0    # one GPU: one after the other
fi
echo "gpu_session: $ngpu GPU(s) (nvidia-smi -L): tests on GPU $TGPU, benches on GPU $BGPU$([ "$ngpu" -ge 2 ] && echo ' at the same time' || echo ' in turn')"
if [ "$phase" != trace ] || [ ! -s "$O/calibrate.txt" ]; then
	"$KJ" calibrate --device 0 >"$O/calibrate.txt" 2>&1
	[ "$ngpu" -ge 2 ] && { "$KJ" calibrate --device 1 >/dev/null 2>&1 || true; }
fi

if want tests; then
	tests_all() { # $1: the timeout
		CUDA_VISIBLE_DEVICES=$TGPU timeout "$1" prove -f -v --exec '' "$KJ_BUILD"/tests/gpu/test_gpu_* \
			tests/gpu/t*.sh >"$O/test-gpu.txt" 2>&1; echo "prove rc=$?" >>"$O/test-gpu.txt"
	}
	bvt_all() { # $1: the timeout; --total 60 s under it
		if [ "$1" -lt 120 ]; then
			echo "baseline_vs_torch not run: ${1} s left of the phase's ${budget} s after the tests" >"$O/bvt.log"
			return
		fi
		CUDA_VISIBLE_DEVICES=$BGPU timeout "$1" python3 bench/baseline_vs_torch.py --kjudge "$KJ" --total $(( $1 - 60 )) \
			--sizing-out "$O/sizing_h200.tsv" >"$O/bvt.log" 2>&1
	}
	if [ "$ngpu" -ge 2 ]; then
		tests_all 560 &
		bvt_all 560 &
		wait
	else # the tests first, leaving the comparison at least two minutes
		tests_all "$(left 120)"
		bvt_all "$(left)"
	fi
	echo "== tests ($(el))"
	grep -E "^not ok" -A6 "$O/test-gpu.txt" | head -80
	grep -E "^(tests|/).*(ok|Failed|skipped)|^Files=|^Result|rc=" "$O/test-gpu.txt"
	echo "== baseline vs torch"
	grep -m1 "not run" "$O/bvt.log"
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
	recheck_tests() {
		export CUDA_VISIBLE_DEVICES=$TGPU KJ_CASES_LOG=$O/cases.txt
		timeout "$(cap "${KJ_RECHECK_TIMEOUT:-250}" "$1")" prove -f -v --exec '' "$KJ_BUILD"/tests/gpu/test_gpu_ops tests/gpu/t10_cuda_cases.sh \
			>"$O/test-gpu.txt" 2>&1; echo "prove rc=$?" >>"$O/test-gpu.txt"
		if [ "${KJ_RECHECK_PY:-1}" = 1 ]; then
			# one line per case in py-cases.txt survives a timeout (prove's own output is buffered)
			KJ_PY_LOG=$O/py-cases.txt timeout "$(cap "${KJ_PY_TIMEOUT:-240}" "$1")" prove -f -v --exec '' tests/gpu/t50_python.sh >"$O/test-py.txt" 2>&1
			echo "prove rc=$?" >>"$O/test-py.txt"
		else
			echo "t50_python not run (KJ_RECHECK_PY=0)" >"$O/test-py.txt"
		fi
	}
	recheck_bench() {
		local t
		if [ -n "${KJ_NODES:-}" ]; then # per-op times of these tasks' baselines first
			for t in ${KJ_NODES//,/ }; do
				CUDA_VISIBLE_DEVICES=$BGPU timeout "$(cap 60)" "$KJ" baseline "$t" --nodes --budget 0.3 2>&1
			done >"$O/nodes.txt"
		fi
		t=$(cap "${KJ_RECHECK_TIMEOUT:-250}" 80)
		if [ "$ngpu" -ge 2 ] || [ "$t" -ge 60 ]; then
			CUDA_VISIBLE_DEVICES=$BGPU timeout $(( t + 80 )) python3 bench/baseline_vs_torch.py --kjudge "$KJ" --total "$t" \
				--only "${KJ_BVT_ONLY:-level}" >"$O/bvt.log" 2>&1
		else
			echo "baseline_vs_torch not run: $(left) s left of the phase's ${budget} s" >"$O/bvt.log"
		fi
		if [ "${KJ_RECHECK_TRACE:-1}" != 1 ]; then
			echo "trace not run (KJ_RECHECK_TRACE=0)" >"$O/trace.txt"
		elif [ "$ngpu" -ge 2 ] || [ "$(left)" -ge 60 ]; then
			CUDA_VISIBLE_DEVICES=$BGPU GPUS=0 KJ_TRACE_TIMEOUT=$(cap 300 20) bash "$0" trace >"$O/trace.txt" 2>&1
		else
			echo "trace not run: $(left) s left of the phase's ${budget} s" >"$O/trace.txt"
		fi
	}
	if [ "$ngpu" -ge 2 ]; then
		(recheck_tests 0) &
		(recheck_bench) &
		wait
	else # one GPU: the tests first (leaving the benches two minutes), then the benches
		(recheck_tests 120)
		(recheck_bench)
	fi
	echo "== recheck ($(el))"
	grep -E "^not ok" -A4 "$O/test-gpu.txt" "$O/test-py.txt" | head -60
	grep -E "^(tests|/).*(ok|Failed|skipped)|^Files=|^Result|rc=" "$O/test-gpu.txt" "$O/test-py.txt"
	sort -k4 -g -r "$O/cases.txt" 2>/dev/null | grep " pass " | cut -c1-160
	[ -s "$O/py-cases.txt" ] && { echo "== python cases"; cut -c1-200 "$O/py-cases.txt"; }
	echo "== baseline vs torch"
	grep -m1 "not run" "$O/bvt.log"
	sed -n '/^shapes compared/,$p' "$O/bvt.log" | cut -c1-1500
	echo "== trace"; grep -v -E "^== calibrate|^gpu_session: [0-9]" "$O/trace.txt" | head -20
	if [ -s "$O/nodes.txt" ]; then # the slowest ops of each profiled shape
		echo "== baseline nodes"
		awk '/^task/{t=$2} /^device/{next} /^ +line/{if ($(NF) + 0 >= 8) print t": "$0; next} /^[A-Z]/{print t": "$0}' "$O/nodes.txt" | cut -c1-150 | head -120
	fi
fi
if want multi && [ "$ngpu" -lt 2 ]; then
	echo "== multi: not run, it needs two GPUs (nvidia-smi lists $ngpu); kind nvidia-h200-x2"
elif want multi; then
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
	timeout "${KJ_TRACE_TIMEOUT:-300}" "$KJ" run "$spec" --db /tmp/trace.sqlite --name trace --gpus "${GPUS:-$ALLGPUS}" --json >"$O/trace_run.json" 2>&1
	"$KJ" report trace --db /tmp/trace.sqlite --weights tasks/trace/llama >"$O/trace_report.md" 2>&1
	echo "== trace ($(el))"
	cat "$O/trace_run.json" | head -c 600; echo
	grep -i -E "s_agg|coverage|weighted" "$O/trace_report.md" | head -12
fi
if want serve; then
	timeout "${KJ_SERVE_TIMEOUT:-300}" bash bench/serve_throughput.sh --backend cuda --gpus "$ALLGPUS" --n 32 --clients 8 \
		-- --perf-budget 0.2 >"$O/serve.txt" 2>&1
	echo "== serve ($(el))"
	tail -n 3 "$O/serve.txt"
fi
echo "== calibrate"; head -n 12 "$O/calibrate.txt"
echo "gpu_session $phase done in $(el)"
