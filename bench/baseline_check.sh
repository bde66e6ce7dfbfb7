#!/usr/bin/env bash
# Is the eager baseline itself within each task's tolerance?  `kjudge baseline
# TASK --check` on every task (or those matching ONLY), on every GPU bench
# shape, against the fp64 GPU reference on the judge's first three seeds
# (declared inputs, outliers, uniform).  A baseline a correct candidate could
# not match (an FFT convolution off by more than the f32 tolerance on
# outliers) makes every speedup on that task unattainable; this finds them.
# GPU machine:
#   bash tests/gpu/device.sh bash bench/baseline_check.sh
# Environment: KJ (kjudge), GPUS (devices to spread the tasks over, default
# "0"), ONLY (comma-separated substrings of task ids), SKIP (the same, to
# leave out), TOTAL (seconds after which no task starts, default 600),
# BUDGET (timing budget per shape, default 0.05 s: the check is the point),
# OUT (the report: $OUT/baseline_check.txt).
# Prints one line per shape: "FAIL" where a candidate doing the eager
# arithmetic would fail even with the error budget (docs/verdict.md: only
# NaN/Inf disagreements and errors in exact outputs), "BUDGET" where the
# declared tolerance is exceeded and the budget governs (with the
# baseline's distance over the declared limit), then a summary: shapes
# checked, failures, budgets, tasks not reached.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KJ=${KJ:-$ROOT/build/kjudge}
GPUS=${GPUS:-0}
TOTAL=${TOTAL:-600}
BUDGET=${BUDGET:-0.05}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
START=$(date +%s)

match() { # $1 task id, $2 comma list; empty list matches everything
	local IFS=,
	[ -z "$2" ] && return 0
	for p in $2; do [[ "$1" == *"$p"* ]] && return 0; done
	return 1
}

(cd "$ROOT/tasks" && find level* serving trace -name '*.kt' 2>/dev/null | sed 's/\.kt$//' | sort) >"$WORK/all"
: >"$WORK/list"
while read -r t; do
	match "$t" "${ONLY:-}" || continue
	[ -n "${SKIP:-}" ] && match "$t" "$SKIP" && continue
	echo "$t" >>"$WORK/list"
done <"$WORK/all"
ntask=$(wc -l <"$WORK/list")
IFS=, read -r -a devs <<<"$GPUS"
ndev=${#devs[@]}

# task i goes to device i mod ndev; each device works through its share
for k in "${!devs[@]}"; do
	(
		i=0
		while read -r t; do
			if [ $((i % ndev)) -eq "$k" ]; then
				if [ $(($(date +%s) - START)) -ge "$TOTAL" ]; then
					echo "$t" >>"$WORK/late.$k"
				else
					CUDA_VISIBLE_DEVICES=${devs[$k]} timeout 120 "$KJ" baseline "$t" --check --json \
						--budget "$BUDGET" >"$WORK/$k.json" 2>"$WORK/$k.err"
					rc=$?
					python3 - "$t" "$rc" "$WORK/$k.json" "$WORK/$k.err" >>"$WORK/rows.$k" <<'PY'
import json, sys
tid, rc, jpath, epath = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
try:
    d = json.load(open(jpath))
except Exception:
    err = open(epath).read().strip().splitlines()
    print("%-44s ERROR rc=%d %s" % (tid, rc, (err[-1] if err else "")[:160]))
    sys.exit()
if not d.get("shapes"):
    print("%-44s (no GPU bench shapes)" % tid)
for s in d["shapes"]:
    dims = " ".join("%s=%s" % kv for kv in s["dims"].items())
    for e in s.get("check", []):
        st = "FAIL" if not e["pass"] else "ok" if e.get("declared_pass", True) else "BUDGET"
        extra = ""
        if not e["pass"]:
            extra = " failed=" + ",".join(e.get("failed_seeds", []))
        elif st == "BUDGET":
            extra = " over=%s %s=%sx" % (",".join(e.get("over_tolerance_seeds", [])),
                                         e.get("budget_metric", "?"), e.get("tol_ratio"))
        print("%-44s %-34s %-8s %-6s seeds=%d outside=%d/%d max_abs=%.3g max_rel=%.3g%s" % (
            tid, dims[:34], e["output"][:8], st, e["seeds"],
            e["outside_tolerance"], e["elements"], e["max_abs_err"], e["max_rel_err"], extra))
PY
				fi
			fi
			i=$((i + 1))
		done <"$WORK/list"
	) &
done
wait

cat "$WORK"/rows.* 2>/dev/null | sort >"$WORK/rows"
cat "$WORK"/late.* 2>/dev/null | sort >"$WORK/late"
{
	cat "$WORK/rows"
	echo
	echo "tasks: $ntask on ${ndev} GPU(s) (${GPUS}); $(($(date +%s) - START)) s"
	echo "shapes x outputs checked: $(grep -cE ' (ok|FAIL|BUDGET) +seeds' "$WORK/rows")"
	echo "failing even with the error budget: $(grep -cE ' FAIL +seeds' "$WORK/rows")"
	grep -E ' FAIL +seeds' "$WORK/rows" | sed 's/^/  /'
	echo "declared tolerance exceeded, the error budget governs: $(grep -cE ' BUDGET +seeds' "$WORK/rows")"
	grep -E ' BUDGET +seeds' "$WORK/rows" | sed 's/^/  /'
	echo "errors: $(grep -c ' ERROR ' "$WORK/rows")"
	grep ' ERROR ' "$WORK/rows" | sed 's/^/  /'
	echo "not reached within TOTAL=${TOTAL} s: $(grep -c . "$WORK/late")"
	sed 's/^/  /' "$WORK/late" | head -50
} >"$WORK/report"
[ -n "${OUT:-}" ] && mkdir -p "$OUT" && cp "$WORK/report" "$OUT/baseline_check.txt"
cat "$WORK/report"
