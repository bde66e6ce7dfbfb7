#!/usr/bin/env bash
# Where the judge's time goes on the GPU machine, in one device call (about
# 4 minutes on one H200):
#
#   run(command="bash tests/gpu/device.sh bash bench/gpu_profile.sh",
#       carry=["build/device", ".gpu"], kind="nvidia-h200")
#
#  1. bench/run_throughput.sh at default settings (N candidates, default 48):
#     candidates per GPU-hour and the per-part profile summed over the run;
#  2. bench/eval_latency.sh (TOTAL seconds, default 60): cold and warm
#     `kjudge eval` with the median profile of each;
#  3. the honest Triton relu judged three times with every timed call logged
#     (KJ_TIMING_LOG), for the Python track's timing_gap.
# BEFORE=DIR (a build of an earlier commit, e.g. from bench/make_before.sh)
# runs step 1 with it first, for before/after in one call.
# Logs go to $OUT; the figures are printed last.
set -u
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/gpu-profile}
mkdir -p "$O"
export KJ_BUILD=${KJ_BUILD:-$PWD/build/device}
export KJ=$KJ_BUILD/kjudge KJUDGE_CACHE=${KJUDGE_CACHE:-/tmp/kjcache} PYTHONUNBUFFERED=1
N=${N:-48}
s=$(date +%s)
el() { echo "$(( $(date +%s) - s )) s"; }
"$KJ" calibrate >"$O/calibrate.txt" 2>&1
echo "calibrated ($(el))"
if [ -n "${BEFORE:-}" ]; then
	KJ=$BEFORE/kjudge bash bench/run_throughput.sh --n "$N" >"$O/throughput_before.txt" 2>&1
	echo "throughput before ($(el))"
fi
bash bench/run_throughput.sh --n "$N" >"$O/throughput.txt" 2>&1
echo "throughput ($(el))"
TOTAL=${TOTAL:-60} N=3 OUT=$O bash bench/eval_latency.sh >"$O/latency_full.txt" 2>&1
echo "latency ($(el))"
if [ "${PY:-1}" = 1 ]; then
	for i in 1 2 3; do
		KJ_TIMING_LOG=$O/py_timing.tsv "$KJ" eval level1/relu examples/solutions/triton/relu.py --backend triton \
			--json >"$O/py_relu_$i.json" 2>"$O/py_relu_$i.err"
	done
	echo "python ($(el))"
fi
echo "==== figures"
for f in throughput_before throughput; do
	[ -f "$O/$f.txt" ] && { echo "-- $f"; grep -E "^(status|throughput|profile|evaluation)" "$O/$f.txt"; }
done
echo "-- latency"
grep -E "^(MEDIAN|profile)" "$O/latency_full.txt"
for i in 1 2 3; do
	[ -f "$O/py_relu_$i.json" ] && python3 - "$O/py_relu_$i.json" <<'PY'
import json, sys
try:
    v = json.load(open(sys.argv[1]))
except Exception as e:
    print("py relu: no verdict", e); sys.exit()
pf = v.get("perf") or [{}]
print("py relu", v["status"], v.get("flags"), "speedup %.3f" % (v.get("speedup") or 0),
      " ".join("[ms %.4f call %s train %s reps %s base %.4f]" % (p.get("ms") or 0, p.get("call_ms"), p.get("train_ms"),
               p.get("train_reps"), p.get("baseline_ms") or 0) for p in pf),
      "total %.2f" % v["total_seconds"],
      " ".join("%s %.2f" % (k, x) for k, x in sorted(v["profile_seconds"].items(), key=lambda kv: -kv[1]) if x > 0.05))
PY
done
