#!/usr/bin/env bash
# The train (short calls timed back to back on the judge's clock, gpu_train
# in src/judge/judge_gpu.c) on the GPU machine, in one device call (~2 min):
#
#   run(command="bash tests/gpu/device.sh bash bench/gpu_train.sh",
#       carry=["build/device", ".gpu"], kind="nvidia-h200")
#
# Judges a subset of the CUDA cases through tests/gpu/t10_cuda_cases.sh
# (KJ_CASES_ONLY; default: honest solutions of short and long calls, and the
# forged-time red-team cases) with every timed call and every train logged
# (KJ_TIMING_LOG), then prints bench/train_summary.sh: per shape, the
# train's bound on one call against the median event time of its timed
# calls.  Logs go to $OUT as one tar file and a summary.
set -u
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/gpu-train}
mkdir -p "$O/logs"
export KJ_BUILD=${KJ_BUILD:-$PWD/build/device}
export KJ=$KJ_BUILD/kjudge KJUDGE_CACHE=${KJUDGE_CACHE:-/tmp/kjcache} PYTHONUNBUFFERED=1
export KJ_TEST_CACHE=$KJUDGE_CACHE
s=$(date +%s)
"$KJ" calibrate >"$O/logs/calibrate.txt" 2>&1
rm -f "$O/logs/timing.tsv"
KJ_CASES_ONLY=${KJ_CASES_ONLY:-solutions/cuda/adamw_step,solutions/cuda/kl_div_loss,solutions/cuda/layernorm_,solutions/cuda/triplet_margin,solutions/cuda/fused_add_rmsnorm,solutions/cuda/relu,solutions/cuda/transpose,solutions/cuda/cross_entropy,solutions/cuda/matmul_square,solutions/cuda/cumsum,24_got,06_per_thread,default_stream} \
	KJ_TIMING_LOG=$O/logs/timing.tsv KJ_CASES_BUDGET=${KJ_CASES_BUDGET:-0.3} KJ_CASES_LOG=$O/logs/cases.txt \
	timeout ${T10_TIMEOUT:-400} prove -v --exec '' tests/gpu/t10_cuda_cases.sh >"$O/logs/t10.txt" 2>&1
echo "t10 rc=$? ($(( $(date +%s) - s )) s)"
bash bench/train_summary.sh "$O/logs/timing.tsv" >"$O/logs/train.txt" 2>&1
tar -C "$O" -czf "$O/logs.tgz" logs
echo "== t10"
grep -E "^not ok" -A2 "$O/logs/t10.txt" | cut -c1-250 | head -40
grep -E "^(Files|Result)" "$O/logs/t10.txt"
echo "== cases"
cut -c1-200 "$O/logs/cases.txt"
echo "== trains"
cut -c1-260 "$O/logs/train.txt" | tail -n 60
rm -rf "$O/logs"
echo "gpu_train done in $(( $(date +%s) - s )) s"
