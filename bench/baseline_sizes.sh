#!/usr/bin/env bash
# The baseline at every size (issue 22 item 2), in one command on the GPU
# machine (within its 10 minutes):
#   1. the GPU cases of the reduction and norm kernels whose strategy depends
#      on the shape and of the TF32 policy (tests/gpu/test_gpu_ops.c: every
#      op case, the new ones among them, and a few norm and reduction task
#      files, against the CPU reference), at most KJ_SIZES_TEST_S seconds
#      (default 150; 0 skips them);
#   2. bench/baseline_vs_torch.py at kjudge's bench sizes and at KernelBench's
#      current problem sizes, against PyTorch with TF32 off and with its
#      defaults, in the time left of KJ_SIZES_TOTAL_S (default 570).
# KJ_BUILD is the build to use (default build; build/device on the GPU
# machine).  KB_DIR is a KernelBench checkout (default $KERNELBENCH_DIR, else .kb/kb):
# the repository's root or any folder holding KernelBench/level1 or level1.
#   bash bench/baseline_sizes.sh [KB_DIR] [more baseline_vs_torch options]
set -u
cd "$(dirname "$0")/.."
KB=${1:-${KERNELBENCH_DIR:-.kb/kb}}
[ $# -gt 0 ] && shift
total=${KJ_SIZES_TOTAL_S:-570}
tests=${KJ_SIZES_TEST_S:-150}
start=$(date +%s)
if [ ! -d "$KB" ]; then
	echo "baseline_sizes: no KernelBench checkout at '$KB' (give KB_DIR or set KERNELBENCH_DIR)"
	exit 2
fi
if [ "$tests" -gt 0 ]; then
	echo "== GPU cases: norm and reduction kernels (at most $tests s)"
	KJ_GPU_ONLY=l2_normalize,l1_normalize,l2_norm,min_dim,argmin_dim,sum_dim KJ_GPU_OPCASES=1 \
		timeout "$tests" bash tests/gpu/device.sh "${KJ_BUILD:-build}"/tests/gpu/test_gpu_ops >/tmp/kj_sizes_ops.tap 2>&1
	rc=$?
	echo "test_gpu_ops exit $rc (124: cut at $tests s): $(grep -c '^ok' /tmp/kj_sizes_ops.tap) ok, $(grep -c '^not ok' /tmp/kj_sizes_ops.tap) not ok"
	grep -E '^not ok|^# *(got|want|max)' /tmp/kj_sizes_ops.tap | head -40
	grep -E '(min_mid_unaligned|argmin_mid_unaligned|sum_mid_unaligned|max_last_odd|normalize_rows|norm_rows_p3|softmax_long|_tf32)' \
		/tmp/kj_sizes_ops.tap | head -40
	[ -n "${OUT:-}" ] && cp /tmp/kj_sizes_ops.tap "$OUT/test_gpu_ops.tap"
fi
left=$(( total - ($(date +%s) - start) ))
echo "== baseline_vs_torch, kjudge's and KernelBench's sizes ($KB), --total $(( left - 20 )) s"
exec timeout "$left" bash tests/gpu/device.sh python3 bench/baseline_vs_torch.py \
	--kjudge "${KJ_BUILD:-build}/kjudge" --kernelbench-dir "$KB" --sizes both --total $(( left - 20 )) "$@"
