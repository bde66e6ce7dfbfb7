#!/usr/bin/env bash
# A stop's GPU validation in parts, each a bench or test of its own, so that
# one device call (10 minutes at most) runs the parts that fit:
#
#   run(command="PARTS='thr check lat' bash tests/gpu/device.sh bash bench/gpu_validate.sh",
#       carry=["build/device", ".gpu", ".kb/kb"], kind="nvidia-h200")
#
# Parts (in the order given):
#   thr    bench/run_throughput.sh --n ${N:-48} at default settings, with the profile
#   thrb   the same with the build in $BEFORE (bench/make_before.sh; default
#          build/device-before), for before and after in one call
#   rt     bench/run_throughput.sh --redteam over every CUDA case once (solutions,
#          broken, red team) at default settings: each verdict as its case says
#   bc     bench/baseline_check.sh over every task (4 at a time, BC_S seconds,
#          default 300)
#   check  bench/gpu_check.sh (worker test, every CUDA case, t10 with timing, a
#          few Python cases, the trains)
#   lat    bench/eval_latency.sh (TOTAL ${LAT_TOTAL:-45} s, 3 warm runs)
#   t10    tests/gpu/t10_cuda_cases.sh over CASES_ONLY (default: the softmax and
#          row-reduction cases)
#   ops    test_gpu_ops: every op case against the CPU reference
#   kbt    bench/kb_throughput.sh: kjudge run against KernelBench's own
#          evaluator on the same KernelBench-format candidates (.kb/repo: a
#          KernelBench checkout with src/; KBT_PLAIN plain candidates)
#   slice  tests/gpu/t14_cudnn_slice.sh (cuDNN convs and pools in image slices)
#   tt     bench/timing_trace.sh TT (the baseline's samples in order)
#   ivl    bench/interval_check.sh (five evals of three honest CUDA solutions)
#   py     tests/gpu/t50_python.sh over PY_ONLY (default: the new KernelBench
#          solutions and every Python red-team case)
#   pyw    pre-warmed Python workers: tests/gpu/t52_py_prewarm.sh (the same verdicts
#          with KJUDGE_PY_SPARES=0 and 1 in eval and run; no candidate sees the last
#          one's files; PYW_T_S seconds, default 500; KJ_PY_INLINE=1 adds the
#          load_inline solution)
#   pyb    bench/py_prewarm.sh: per-candidate cost cold and warm with the profile's
#          split, with and without spares, over PYW_N triton solutions (default 6);
#          PYW_INLINE=M adds a run of M distinct load_inline candidates, built
#          ahead on the compile pool; PYW_S seconds, default 500
#   sizes  bench/baseline_sizes.sh .kb/kb (KernelBench checkout), no GPU cases,
#          in SIZES_S seconds (default 200); SIZES_ARGS more of its options
#          (e.g. "--only avg_pool2d --sizes both"; --sizes kjudge|kernelbench|both)
#   kbp    KernelBench problem files as tasks: tests/gpu/t60_kbprob.sh (kjudge's
#          own problems and candidates, every verdict asserted; KBP_T_S seconds,
#          default 300), then bench/kb_problems.sh .kb/kb over KBP_N (default 12)
#          problems of the checkout in KBP_S seconds (default 180)
#   kbpt   the first half of kbp alone, in KBP_T_S seconds (default 540);
#          KJ_KB_ONLY (a regular expression) picks the candidates
#   kbpb   the second half of kbp alone, in KBP_S seconds (default 480)
# Each part's log goes to $OUT/PART.log; its figures are printed at the end.
set -u
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/gpu-validate}
mkdir -p "$O"
export KJ_BUILD=${KJ_BUILD:-$PWD/build/device}
export KJ=$KJ_BUILD/kjudge KJUDGE_CACHE=${KJUDGE_CACHE:-/tmp/kjcache} PYTHONUNBUFFERED=1 KJ_TEST_CACHE=${KJUDGE_CACHE:-/tmp/kjcache}
s=$(date +%s)
el() { echo "$(( $(date +%s) - s )) s"; }
"$KJ" calibrate >"$O/calibrate.txt" 2>&1
for p in ${PARTS:-thr check lat}; do
	case $p in
	thr) bash bench/run_throughput.sh --n "${N:-48}" >"$O/thr.log" 2>&1 ;;
	thrb) b=$(mktemp -d) && cp -r "${BEFORE:-build/device-before}"/. "$b"/ && { [ ! -f "$b/libkjudge.so.gz" ] || gunzip "$b/libkjudge.so.gz"; } &&
		cat "$b/REVISION" >"$O/thrb.log" 2>/dev/null;
		LD_LIBRARY_PATH=$b${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} KJ=$b/kjudge bash bench/run_throughput.sh --n "${N:-48}" >>"$O/thrb.log" 2>&1 ;;
	rt) KJ_KEEP_STORE=$O/rt.sqlite bash bench/run_throughput.sh --n "$(ls examples/solutions/cuda/*.cu examples/broken/cuda/*.cu examples/redteam/*.cu | wc -l)" --redteam >"$O/rt.log" 2>&1 ;;
	bc) KJ=$KJ GPUS=0,0,0,0 TOTAL=${BC_S:-300} OUT=$O bash bench/baseline_check.sh >"$O/bc.log" 2>&1 ;;
	check) OUT=$O/check bash bench/gpu_check.sh >"$O/check.log" 2>&1 ;;
	lat) TOTAL=${LAT_TOTAL:-45} N=3 OUT=$O/lat bash bench/eval_latency.sh >"$O/lat.log" 2>&1 ;;
	t10) KJ_CASES_ONLY=${CASES_ONLY:-softmax,log_softmax,l2_normalize,min_dim} KJ_CASES_BUDGET=0.3 \
		timeout "${T10_S:-120}" prove -v --exec '' tests/gpu/t10_cuda_cases.sh >"$O/t10.log" 2>&1 ;;
	ops) KJ_GPU_ONLY=${OPS_ONLY:-l2_normalize,l1_normalize,l2_norm,min_dim,argmin_dim,sum_dim,softmax,depthwise,pool2d,maxpool,avgpool,mobilenet,lenet5,vgg_block,densenet} KJ_GPU_OPCASES=1 timeout "${OPS_S:-150}" "$KJ_BUILD"/tests/gpu/test_gpu_ops >"$O/ops.log" 2>&1 ;;
	kbt) bash bench/kb_throughput.sh --kb-repo .kb/repo --plain "${KBT_PLAIN:-12}" >"$O/kbt.log" 2>&1 ;;
	slice) prove -v tests/gpu/t14_cudnn_slice.sh >"$O/slice.log" 2>&1 ;;
	tt) bash bench/timing_trace.sh ${TT:-layer_norm softmax} >"$O/tt.log" 2>&1 ;;
	ivl) bash bench/interval_check.sh >"$O/ivl.log" 2>&1 ;;
	py) KJ_PY_ONLY=${PY_ONLY:-'kernelbench/(relu_os_event|linear_nn_init)\.py|redteam/2[0-9]_py_'} KJ_PY_LOG=$O/py_cases.txt \
		timeout "${PY_S:-220}" prove -v --exec '' tests/gpu/t50_python.sh >"$O/py.log" 2>&1 ;;
	pyw) timeout "${PYW_T_S:-500}" bash tests/gpu/t52_py_prewarm.sh >"$O/pyw.log" 2>&1 ;;
	pyb) timeout "${PYW_S:-500}" bash bench/py_prewarm.sh "${PYW_N:-6}" >"$O/pyb.log" 2>&1 ;;
	sizes) KJ_SIZES_TEST_S=0 KJ_SIZES_TOTAL_S=${SIZES_S:-200} bash bench/baseline_sizes.sh .kb/kb ${SIZES_ARGS:-} >"$O/sizes.log" 2>&1 ;;
	kbp) KJ_KB_LOG=$O/kbp_cases.txt timeout "${KBP_T_S:-300}" prove -v --exec '' tests/gpu/t60_kbprob.sh >"$O/kbp.log" 2>&1
		N=${KBP_N:-12} TOTAL=${KBP_S:-180} bash bench/kb_problems.sh .kb/kb >"$O/kbp_bench.log" 2>&1 ;;
	# the script itself, not prove: its TAP lines reach the log as they
	# come, so a part cut short by its limit still shows them
	kbpt) KJ_KB_LOG=$O/kbp_cases.txt timeout "${KBP_T_S:-540}" bash tests/gpu/t60_kbprob.sh >"$O/kbp.log" 2>&1 ;;
	kbpb) N=${KBP_N:-12} TOTAL=${KBP_S:-480} bash bench/kb_problems.sh .kb/kb >"$O/kbp_bench.log" 2>&1 ;;
	*) echo "gpu_validate: unknown part $p" ;;
	esac
	echo "part $p rc=$? ($(el))"
done
echo "==== figures"
for p in ${PARTS:-thr check lat}; do
	echo "---- $p"
	case $p in
	thr|thrb|rt) head -c 300 "$O/$p.log" | head -n 1 | grep -v "^{"; grep -E "^(status|throughput|profile|evaluation|verdicts as)|^  .*the case says" "$O/$p.log" | head -40 ;;
	bc) sed -n '/^tasks:/,$p' "$O/bc.log" | head -60 ;;
	check) sed -n '/^== worker test/,$p' "$O/check.log" | grep -vE "^[a-z_0-9/.]+ (pass|mismatch|rejected|runtime_error|crash|timeout|call_error|compile_error) " | head -80 ;;
	lat) grep -E "^(MEDIAN|profile)" "$O/lat.log" ;;
	t10) grep -E "^(not )?ok|^#" "$O/t10.log" | cut -c1-250 | head -30; grep -E "^(Files|Result)" "$O/t10.log" ;;
	ops) grep -cE "^ok" "$O/ops.log" | sed 's/^/ok: /'; grep -E "^not ok" "$O/ops.log" | head -20; tail -n 2 "$O/ops.log" ;;
	kbt) grep -E "^(kernelbench evaluator|kjudge run|kb_throughput)" "$O/kbt.log"; grep -cE "^level" "$O/kbt.log" | sed 's/^/rows: /' ;;
	slice) grep -E "^(not )?ok|ok lines|^Result" "$O/slice.log" | head -12 ;;
	tt) cut -c1-400 "$O/tt.log" | head -60 ;;
	ivl) grep -E "OVERLAP|WIDTH|CONTAINS|interval_check:|overall" "$O/ivl.log" | head -40 ;;
	py) grep -E "^(not )?ok" "$O/py.log" | cut -c1-220 | head -40; grep -E "^(Files|Result)" "$O/py.log" ;;
	pyw) grep -E "^(not )?ok|^#" "$O/pyw.log" | cut -c1-220 | head -70; grep -E "^(Files|Result)" "$O/pyw.log" ;;
	pyb) cut -c1-300 "$O/pyb.log" ;;
	sizes) grep -vE "^\s*$" "$O/sizes.log" | tail -n 45 | cut -c1-200 ;;
	kbp|kbpt|kbpb) [ "$p" = kbpb ] || { grep -E "^(not )?ok|^#   status" "$O/kbp.log" | cut -c1-220 | head -40
			grep -E "^(Files|Result)" "$O/kbp.log"; cut -c1-250 "$O/kbp_cases.txt" 2>/dev/null; }
		[ "$p" = kbpt ] || cut -c1-250 "$O/kbp_bench.log" | tail -n 40 ;;
	esac
done
