#!/usr/bin/env bash
# Do the speedup intervals hold up (GPU machine; issue 22 item 3)?
# R runs (default 5) of `kjudge eval --json` for each of three honest CUDA
# solutions (examples/solutions/cuda/: softmax, layer_norm, relu by default),
# each run with a cache of its own (the compile cache and the GPU's
# calibration copied from a warm one, the baseline's timing cache not), so
# the baseline is timed afresh every run as the candidate is.  Prints, per
# candidate and per bench shape and overall, each run's speedup with its 95%
# interval and the noise floor, then:
#   OVERLAP   every two runs' intervals overlap (the done-means: repeated
#             speedups of an honest kernel agree within their intervals);
#   WIDTH     (hi - lo) / speedup under 2% for every shape whose candidate
#             takes more than 1 ms;
#   CONTAINS  how many of the runs' speedups lie inside every other run's
#             interval (a stricter reading, printed for information).
# The last line is "interval_check: PASS" or "interval_check: FAIL (...)".
#   bash bench/interval_check.sh
# Environment: KJ, R, CANDS (names under examples/solutions/cuda, without .cu),
# SEEDS (correctness seeds, default 1: the timing is the point), EXTRA (more
# eval options, e.g. "--max-noise 0.003"), SHARED_BASELINE=1 (all runs share
# one baseline cache: only the candidate's timing varies), OUT (keep the raw
# verdicts there), BACKEND=cpu (the CPU track's solutions, examples/solutions/cpu/*.c,
# judged with --backend cpu: a dry run of this script anywhere).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KJ=${KJ:-$ROOT/build/kjudge}
R=${R:-5}
CANDS=${CANDS:-"softmax layer_norm relu"}
SEEDS=${SEEDS:-1}
EXTRA=${EXTRA:-}
BACKEND=${BACKEND:-cuda}
EXT=cu
[ "$BACKEND" = cpu ] && EXT=c
WORK=${OUT:-$(mktemp -d)}
[ -n "${OUT:-}" ] || trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/raw"
WARM=$WORK/cache_warm

: >"$WORK/runs.tsv"
for cand in $CANDS; do
	f="$ROOT/examples/solutions/$BACKEND/$cand.$EXT"
	[ -f "$f" ] || { echo "($cand.$EXT not present: skipped)"; continue; }
	task=$(head -n1 "$f" | sed -n 's/.*task=\([^ ]*\).*/\1/p')
	# the warm cache: the compile and the GPU's calibration, once
	KJUDGE_CACHE=$WARM "$KJ" eval "$task" "$f" --backend "$BACKEND" --json --seeds 1 --no-perf >/dev/null 2>"$WORK/raw/${cand}_warm.err"
	for i in $(seq "$R"); do
		cache=$WARM
		if [ -z "${SHARED_BASELINE:-}" ]; then
			cache=$WORK/cache_${cand}_$i
			rm -rf "$cache"
			cp -r "$WARM" "$cache"
			rm -rf "$cache/baseline"
		fi
		# shellcheck disable=SC2086
		KJUDGE_CACHE=$cache "$KJ" eval "$task" "$f" --backend "$BACKEND" --json --seeds "$SEEDS" $EXTRA \
			>"$WORK/raw/${cand}_$i.json" 2>"$WORK/raw/${cand}_$i.err"
		printf '%s\t%s\t%s\n' "$cand" "$?" "$WORK/raw/${cand}_$i.json" >>"$WORK/runs.tsv"
		[ -z "${SHARED_BASELINE:-}" ] && rm -rf "$cache"
	done
done

python3 - "$WORK/runs.tsv" <<'EOF'
import json, sys
from collections import defaultdict

runs = defaultdict(list)
for line in open(sys.argv[1]):
    cand, rc, path = line.rstrip("\n").split("\t")
    try:
        v = json.load(open(path))
    except Exception as e:
        print(f"{cand}: run {path} gave no verdict (exit {rc}): {e}")
        runs[cand].append(None)
        continue
    runs[cand].append(v)

fails = []
def fmt(s, lo, hi):
    if s is None:
        return "-"
    if lo is None or hi is None:
        return f"{s:.4f} [no interval]"
    return f"{s:.4f} [{lo:.4f}, {hi:.4f}] w={100 * (hi - lo) / s:.2f}%"

def check(label, rows, ms):
    """rows: (speedup, lo, hi) per run"""
    have = [r for r in rows if r[0] is not None and r[1] is not None and r[2] is not None]
    if len(have) < len(rows):
        fails.append(f"{label}: {len(rows) - len(have)} run(s) without an interval")
    bad = []
    for a in range(len(have)):
        for b in range(a + 1, len(have)):
            if have[a][2] < have[b][1] or have[b][2] < have[a][1]:
                bad.append((a + 1, b + 1))
    print(f"    OVERLAP {'ok' if not bad else 'FAIL ' + str(bad)}")
    if bad:
        fails.append(f"{label}: intervals of runs {bad} do not overlap")
    inside = sum(all(o[1] <= r[0] <= o[2] for o in have) for r in have)
    print(f"    CONTAINS {inside} of {len(have)} speedups inside every run's interval")
    if ms is not None and ms > 1.0:
        wide = [f"{100 * (r[2] - r[1]) / r[0]:.2f}%" for r in have if (r[2] - r[1]) / r[0] >= 0.02]
        print(f"    WIDTH {'ok' if not wide else 'FAIL ' + ', '.join(wide)} (candidate {ms:.3f} ms > 1 ms: under 2%)")
        if wide:
            fails.append(f"{label}: intervals {', '.join(wide)} wide (> 2%) on a {ms:.3f} ms kernel")

for cand, vs in runs.items():
    ok = [v for v in vs if v and v.get("status") == "pass" and v.get("speedup")]
    print(f"== {cand} ({ok[0]['task'] if ok else '?'}): {len(ok)} of {len(vs)} runs passed and timed")
    if len(ok) < len(vs):
        fails.append(f"{cand}: {len(vs) - len(ok)} run(s) did not pass with a speedup")
    if not ok:
        continue
    nshapes = len(ok[0]["perf"])
    for k in range(nshapes):
        p0 = ok[0]["perf"][k]
        shape = ",".join(f"{a}={b}" for a, b in p0["shape"].items())
        print(f"  shape {shape} (weight {p0['weight']}, train_reps {p0.get('train_reps')})")
        rows = []
        for i, v in enumerate(ok):
            p = v["perf"][k]
            rows.append((p.get("speedup"), p.get("speedup_lo"), p.get("speedup_hi")))
            print(f"    run {i + 1}: ms {p['ms']:.4f} base {p['baseline_ms']:.4f} speedup "
                  f"{fmt(*rows[-1])} noise_floor {p.get('noise_floor')}")
        med_ms = sorted(v["perf"][k]["ms"] for v in ok)[len(ok) // 2]
        check(f"{cand} {shape}", rows, med_ms)
    print("  overall")
    rows = []
    for i, v in enumerate(ok):
        rows.append((v.get("speedup"), v.get("speedup_lo"), v.get("speedup_hi")))
        print(f"    run {i + 1}: speedup {fmt(*rows[-1])} noise_floor {v.get('noise_floor')} "
              f"flags {','.join(v.get('flags', []))}")
    check(f"{cand} overall", rows, None)

if fails:
    print("interval_check: FAIL (" + "; ".join(fails) + ")")
    sys.exit(1)
print("interval_check: PASS")
EOF
