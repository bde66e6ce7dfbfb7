#!/usr/bin/env bash
# Everything GPU in one go, for one call on the GPU machine (binaries built
# elsewhere and carried in build/): calibration, the GPU unit tests, every
# CUDA case file, the demo.  Logs go to $OUT (or ./gpu-logs); a short
# summary is printed last.
#   bash tests/gpu/device.sh bash tests/gpu/run_all.sh
set -u
OUTDIR=${OUT:-gpu-logs}
mkdir -p "$OUTDIR"
KJ=build/kjudge
export KJUDGE_CACHE=${KJUDGE_CACHE:-/tmp/kjcache} KJ_TEST_CACHE=${KJUDGE_CACHE:-/tmp/kjcache}
start=$(date +%s)
"$KJ" calibrate >"$OUTDIR/calibrate.txt" 2>&1; echo "calibrate rc=$?" >>"$OUTDIR/calibrate.txt"
prove -f -v --exec '' build/tests/gpu/test_* tests/gpu/t*.sh >"$OUTDIR/test-gpu.txt" 2>&1
gpu_rc=$?
"$KJ" demo --quick >"$OUTDIR/demo.txt" 2>&1
demo_rc=$?
echo "=== calibrate"; cat "$OUTDIR/calibrate.txt"
echo "=== failing GPU tests (if any)"; grep -B2 -A12 "^not ok" "$OUTDIR/test-gpu.txt" | head -150
echo "=== CUDA case verdicts"; grep -E "^(ok|not ok) .*\.cu:" "$OUTDIR/test-gpu.txt" | sed 's/^/  /' | head -80
echo "=== test-gpu summary"; grep -E "^(build|tests)/.*(ok|Failed|skipped)|^Files=|^Result" "$OUTDIR/test-gpu.txt"
echo "=== demo (cuda)"; cat "$OUTDIR/demo.txt"
echo "test-gpu rc=$gpu_rc demo rc=$demo_rc seconds=$(( $(date +%s) - start ))"
