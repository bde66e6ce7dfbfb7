#!/usr/bin/env bash
# cuDNN in slices of whole images: a batch past KJ_CUDNN_SLICE elements
# (cuDNN's 32-bit limit by default: KernelBench's conv2d_pointwise and
# avg_pool2d pass it) goes to cuDNN an image slice at a time.  With the limit
# at 4096 elements every batched conv, transposed conv and pool
# level-1 task file of test_gpu_ops is sliced (a check shape of N=3 C=5
# 17x30 has 7650 elements), and each must still agree with the CPU
# reference.
. "$(dirname "$0")/../cli/lib.sh"
if ! nvidia-smi -L >/dev/null 2>&1; then
	echo "1..0 # SKIP no CUDA device"
	exit 0
fi
T=$KJ_BUILD/tests/gpu/test_gpu_ops
expect_success "level-1 conv, conv_transpose and pool tasks agree with the reference when sliced at 4096 elements" '
	KJ_CUDNN_SLICE=4096 KJ_GPU_ONLY=level1/conv,level1/avg_pool,level1/max_pool "$T" >"$TMP/o.txt" 2>&1; rc=$?;
	grep -E "^not ok" "$TMP/o.txt" | head -20;
	n=$(grep -cE "^ok" "$TMP/o.txt"); echo "ok lines: $n";
	test $rc -eq 0 && test "$n" -ge 20 && ! grep -qE "^not ok" "$TMP/o.txt"'
done_testing
