#!/usr/bin/env bash
# The baseline's timed samples in the order they were taken (GPU machine):
# for each named solution (examples/solutions/cuda/NAME.cu), one `kjudge
# eval` with a cache of its own (the GPU's calibration copied in, nothing
# else), then every baseline cache entry it wrote: its median, IQR and the
# samples in order, so that a trend (clocks ramping up) or a second mode
# shows.  KJ_TIMING_LOG's lines (trains) follow.
#   bash bench/timing_trace.sh [NAME ...]     (default: layer_norm softmax)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KJ=${KJ:-$ROOT/build/kjudge}
old=${KJUDGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kjudge}
[ $# -gt 0 ] || set -- layer_norm softmax
for name in "$@"; do
	f=$ROOT/examples/solutions/cuda/$name.cu
	task=$(head -n1 "$f" | sed -n 's/.*task=\([^ ]*\).*/\1/p')
	c=$(mktemp -d)
	mkdir -p "$c/calib"
	cp "$old"/calib/*.json "$c/calib/" 2>/dev/null
	KJUDGE_CACHE=$c KJ_TIMING_LOG=$c/timing.log "$KJ" eval "$task" "$f" --json --seeds 1 >"$c/v.json" 2>/dev/null
	echo "== $name ($task): $(python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); print(v["status"], " ".join("%s=%.4f/%.4f [%s,%s]" % (",".join("%s=%s" % kv for kv in p["shape"].items()), p["ms"] or 0, p["baseline_ms"] or 0, p.get("speedup_lo"), p.get("speedup_hi")) for p in v["perf"]))' "$c/v.json")"
	for b in $(find "$c" -path '*baseline*' -type f); do
		python3 - "$b" <<'PY'
import sys
l = open(sys.argv[1]).read().split("\n")
a = l[0].split(); xs = [float(x) for x in l[1].split()[2:]]
print("  baseline median %s iqr %s n %s train %s x%s; samples in order:" % (a[0], a[1], a[2], a[3], a[4]))
print("   " + " ".join("%.4f" % x for x in xs))
PY
	done
	[ -f "$c/timing.log" ] && sed 's/^/  timing: /' "$c/timing.log" | head -80
	rm -rf "$c"
done
