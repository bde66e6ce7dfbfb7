#!/usr/bin/env bash
# Wall time of `kjudge eval` per CUDA candidate (GPU machine).  For each
# examples/solutions/cuda/*.cu (its task from the `// kjudge-case:` line):
#   cold  once with --no-cache --no-perf: nvcc runs, correctness only;
#   warm  N times (default 5) with --no-perf: the compile cache hits;
#   perf  once with timing (the candidate's and, unless cached, the baseline's).
# Prints per candidate the cold total and its compile stage, the median warm total and its
# stage_seconds split (static, compile, call, correctness, performance), and
# the perf run's total and performance stage; then the medians over the
# candidates: cold total, warm total, and total - performance of the perf run
# (the judge's own cost beyond timing).  Targets: cold < 3 s, warm < 1.5 s.
# "wall" is measured around the process (CUDA start-up included), "total" is
# the verdict's total_seconds.
#   bash tests/gpu/device.sh bash bench/eval_latency.sh
# Environment: KJ (kjudge binary), N (warm runs), TOTAL (seconds after which
# no new candidate starts, default 180), PERF_BUDGET (--perf-budget of the perf
# run, default 0.5), OUT (the table and the cold/perf verdicts go there).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KJ=${KJ:-$ROOT/build/kjudge}
N=${N:-5}
TOTAL=${TOTAL:-180}
PERF_BUDGET=${PERF_BUDGET:-0.5}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
CACHE="$WORK/cache"
RAW="$WORK/raw"
mkdir -p "$CACHE" "$RAW"
now() { date +%s.%N; }
START=$(now)

# Calibrate into the private cache first: otherwise the first eval would
# measure the GPU's peaks inside its own time.
if ! "$KJ" calibrate --cache "$CACHE" >/dev/null 2>"$WORK/calib.err"; then
	echo "kjudge calibrate failed: $(tail -n1 "$WORK/calib.err")"
fi

: >"$WORK/runs.tsv"
run() { # candidate kind task file [eval options...]
	local cand=$1 kind=$2 task=$3 file=$4 t0 t1 rc i
	shift 4
	i=$(wc -l <"$WORK/runs.tsv")
	t0=$(now)
	"$KJ" eval "$task" "$file" --json --cache "$CACHE" "$@" >"$RAW/$i.json" 2>"$RAW/$i.err"
	rc=$?
	t1=$(now)
	printf '%s\t%s\t%s\t%s\t%s\n' "$cand" "$kind" "$(awk "BEGIN{print $t1 - $t0}")" "$rc" "$RAW/$i.json" \
		>>"$WORK/runs.tsv"
}

shopt -s nullglob
files=("$ROOT"/examples/solutions/cuda/*.cu)
if [ ${#files[@]} -eq 0 ]; then
	echo "no examples/solutions/cuda/*.cu"
	exit 1
fi
skipped=""
for f in "${files[@]}"; do
	cand=$(basename "$f" .cu)
	if awk "BEGIN{exit !($(now) - $START > $TOTAL)}"; then
		skipped="$skipped $cand"
		continue
	fi
	task=$(head -n1 "$f" | sed -n 's/.*task=\([^ ]*\).*/\1/p')
	if [ -z "$task" ]; then
		skipped="$skipped $cand(no-task-line)"
		continue
	fi
	run "$cand" cold "$task" "$f" --no-cache --no-perf
	for _ in $(seq "$N"); do
		run "$cand" warm "$task" "$f" --no-perf
	done
	run "$cand" perf "$task" "$f" --perf-budget "$PERF_BUDGET"
done

python3 - "$WORK/runs.tsv" "$skipped" "${OUT:-}" <<'PY'
import json, os, shutil, statistics, sys

tsv, skipped, out_dir = sys.argv[1], sys.argv[2].split(), sys.argv[3]
STAGES = ("static", "compile", "call", "correctness", "performance")
lines = []


def say(s=""):
    print(s, flush=True)
    lines.append(s)


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def f(x, spec=".3f"):
    return "-" if x is None else format(x, spec)


runs = {}
order = []
for row in open(tsv):
    cand, kind, wall, rc, path = row.rstrip("\n").split("\t")
    try:
        v = json.load(open(path))
    except Exception:
        v = None
    if cand not in runs:
        runs[cand] = {"cold": [], "warm": [], "perf": []}
        order.append(cand)
    runs[cand][kind].append({"wall": float(wall), "rc": int(rc), "v": v, "path": path})

say("%-24s %-6s %7s %7s %7s %7s | %6s %7s %6s %7s %7s | %7s %7s %7s" % (
    "candidate", "status", "cold_w", "cold_t", "cold_c", "warm_w", "static", "compile", "call", "correct",
    "warm_t", "perf_t", "perf_st", "t-perf"))
cold_all, warm_all, beyond_all = [], [], []
for cand in order:
    r = runs[cand]

    def total(x):
        return x["v"].get("total_seconds") if x["v"] else None

    def stage(x, s):
        return (x["v"].get("stage_seconds") or {}).get(s) if x["v"] else None

    status = next((x["v"].get("status") for x in r["cold"] + r["warm"] if x["v"]), "error")
    cold = r["cold"][0] if r["cold"] else None
    warm_tot = med([total(x) for x in r["warm"]])
    warm_wall = med([x["wall"] for x in r["warm"]])
    split = {s: med([stage(x, s) for x in r["warm"]]) for s in STAGES}
    perf = r["perf"][0] if r["perf"] else None
    ptot, pst = (total(perf), stage(perf, "performance")) if perf else (None, None)
    beyond = ptot - pst if ptot is not None and pst is not None else None
    cached = [bool((x["v"].get("compile") or {}).get("cached")) for x in r["warm"] if x["v"]]
    say("%-24s %-6s %7s %7s %7s %7s | %6s %7s %6s %7s %7s | %7s %7s %7s%s" % (
        cand, status[:6], f(cold["wall"] if cold else None), f(total(cold) if cold else None),
        f(stage(cold, "compile") if cold else None), f(warm_wall), f(split["static"]), f(split["compile"]), f(split["call"]),
        f(split["correctness"]), f(warm_tot), f(ptot), f(pst), f(beyond),
        "" if all(cached) else "  (warm compile not cached)"))
    if cold and total(cold) is not None:
        cold_all.append(total(cold))
    if warm_tot is not None:
        warm_all.append(warm_tot)
    if beyond is not None:
        beyond_all.append(beyond)
    for x in r["cold"] + r["warm"] + r["perf"]:
        if x["v"] is None or x["rc"] > 1:
            err = open(x["path"][:-5] + ".err").read().strip().splitlines()
            say("    run exited %d: %s" % (x["rc"], err[-1][:160] if err else "no message"))
            break

say()
say("MEDIAN over %d candidates: cold total %s s (target < 3), warm total %s s (target < 1.5), "
    "perf run total - performance %s s (target < 1.5)" % (
        len(order), f(med(cold_all)), f(med(warm_all)), f(med(beyond_all))))
for kind in ("cold", "warm", "perf"):
    # the median of each profile part (verdict profile_seconds) over the candidates' runs of this kind
    parts = {}
    for cand in order:
        for x in runs[cand][kind]:
            for k, val in ((x["v"] or {}).get("profile_seconds") or {}).items():
                parts.setdefault(k, []).append(val)
    if parts:
        top = sorted(((med(vs), k) for k, vs in parts.items()), reverse=True)
        say("profile %-4s (median s): " % kind + " ".join("%s %.3f" % (k, m) for m, k in top if m >= 0.005))
if skipped:
    say("skipped (TOTAL or no task line): " + " ".join(skipped))
if out_dir:
    os.makedirs(os.path.join(out_dir, "eval_latency"), exist_ok=True)
    with open(os.path.join(out_dir, "eval_latency.txt"), "w") as fo:
        fo.write("\n".join(lines) + "\n")
    for cand in order:
        for kind in ("cold", "perf"):
            for x in runs[cand][kind][:1]:
                if os.path.exists(x["path"]):
                    shutil.copy(x["path"], os.path.join(out_dir, "eval_latency", "%s_%s.json" % (cand, kind)))
PY
