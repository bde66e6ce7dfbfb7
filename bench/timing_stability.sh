#!/usr/bin/env bash
# How repeatable kjudge's timings are (GPU machine).
# 1. For softmax, layer_norm and relu (examples/solutions/cuda/, those present):
#    R runs (default 5) of `kjudge eval --json` (correctness with one seed: the
#    timing is the point); per bench shape the R candidate medians (perf[].ms)
#    and their spread (max - min) / median.  The eager baseline is cached per
#    (task, shape, GPU), so its stability is measured apart: B runs (default 3)
#    of `kjudge baseline TASK --json`, spread of the medians.
# 2. Nsight Compute as an outside clock: `ncu` over `KJUDGE_PROFILE=1 kjudge eval --no-perf
#    --seeds 1` for the relu candidate (clocks not locked, caches flushed
#    before each kernel as kjudge flushes the L2); the kernel durations of the
#    worker's bench-shape launches against kjudge's perf ms for those shapes.
#    Bench shapes are matched to the worker's longest launches (largest shape
#    to longest kernel), which holds for a candidate that launches one kernel
#    per call on the bench shapes, as relu.cu does there.  Skipped without ncu.
#   bash tests/gpu/device.sh bash bench/timing_stability.sh
# Environment: KJ, R, B, SEEDS (default 1), TOTAL (seconds after which no new
# run of part 1 starts, default 90), NCU_TIMEOUT (default 60), NCU_KERNELS
# (ncu's -k filter, default regex:relu: the candidate's kernels only), OUT
# (the report and raw files).
# ncu needs the worker started with KJUDGE_PROFILE=1 (the judge's environment
# and its file-size and descriptor limits, no seccomp): with the sandbox's
# 1 MiB and 64 descriptors ncu's counter library stopped with "LaunchFailed"
# on the worker's first kernel (H200, 2026-11-30, fixed the same day).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KJ=${KJ:-$ROOT/build/kjudge}
R=${R:-5}
B=${B:-3}
SEEDS=${SEEDS:-1}
TOTAL=${TOTAL:-90}
NCU_TIMEOUT=${NCU_TIMEOUT:-60}
now() { date +%s.%N; }
START=$(now)
late() { awk "BEGIN{exit !($(now) - $START > $TOTAL)}"; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/raw"

: >"$WORK/runs.tsv"
for cand in softmax layer_norm relu; do
	f="$ROOT/examples/solutions/cuda/$cand.cu"
	[ -f "$f" ] || { echo "($cand.cu not present: skipped)"; continue; }
	task=$(head -n1 "$f" | sed -n 's/.*task=\([^ ]*\).*/\1/p')
	for i in $(seq "$R"); do
		late && break
		"$KJ" eval "$task" "$f" --json --seeds "$SEEDS" >"$WORK/raw/${cand}_eval_$i.json" \
			2>"$WORK/raw/${cand}_eval_$i.err"
		printf '%s\teval\t%s\t%s\n' "$cand" "$?" "$WORK/raw/${cand}_eval_$i.json" >>"$WORK/runs.tsv"
	done
	for i in $(seq "$B"); do
		late && break
		"$KJ" baseline "$task" --json >"$WORK/raw/${cand}_base_$i.json" 2>"$WORK/raw/${cand}_base_$i.err"
		printf '%s\tbaseline\t%s\t%s\n' "$cand" "$?" "$WORK/raw/${cand}_base_$i.json" >>"$WORK/runs.tsv"
	done
done

NCU_CSV=""
NCU_NOTE=""
relu="$ROOT/examples/solutions/cuda/relu.cu"
if ! command -v ncu >/dev/null 2>&1; then
	NCU_NOTE="ncu not found: skipped"
elif [ ! -f "$relu" ]; then
	NCU_NOTE="relu.cu not present: skipped"
else
	NCU_CSV="$WORK/raw/ncu_relu.csv"
	KJUDGE_PROFILE=1 timeout "$NCU_TIMEOUT" ncu --target-processes all --clock-control none --metrics gpu__time_duration.sum \
		-k "${NCU_KERNELS:-regex:relu}" --csv --print-units base \
		"$KJ" eval level1/relu "$relu" --no-perf --seeds 1 --quiet >"$NCU_CSV" 2>"$WORK/raw/ncu_relu.err"
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then
		# ncu's own messages may be on either stream
		NCU_NOTE="ncu exited $rc: $(cat "$WORK/raw/ncu_relu.err" "$NCU_CSV" | grep -v '^==PROF== Profiling' | grep -v '^"' | grep . | tail -n 4 | cut -c1-200 | tr '\n' '|')"
	fi
fi

python3 - "$WORK/runs.tsv" "$NCU_CSV" "$NCU_NOTE" "${OUT:-}" "$WORK/raw" <<'PY'
import csv, io, json, os, shutil, statistics, sys

tsv, ncu_csv, ncu_note, out_dir, raw = sys.argv[1:6]
ncu_err = os.path.join(raw, "ncu_relu.err")
lines = []


def say(s=""):
    print(s, flush=True)
    lines.append(s)


def load(path):
    try:
        return json.load(open(path))
    except Exception:
        return None


def key(d):
    return " ".join("%s=%s" % kv for kv in d.items())


runs = {}
for row in open(tsv):
    cand, kind, rc, path = row.rstrip("\n").split("\t")
    runs.setdefault(cand, {"eval": [], "baseline": []})[kind].append((int(rc), path, load(path)))

relu_ms = {}
say("%-11s %-9s %-26s %s" % ("candidate", "side", "shape", "medians ms ... | spread"))
for cand, r in runs.items():
    for side in ("eval", "baseline"):
        per_shape, bad = {}, []
        for rc, path, v in r[side]:
            shapes = (v or {}).get("perf" if side == "eval" else "shapes")
            if not shapes:
                err = open(path[:-5] + ".err").read().strip().splitlines()
                bad.append("exit %d%s: %s" % (rc, " " + v.get("status", "") if v else "",
                                              (v or {}).get("reason") or (err[-1][:120] if err else "")))
                continue
            for s in shapes:
                k = key(s.get("shape") or s.get("dims"))
                if s.get("ms") is not None:
                    per_shape.setdefault(k, []).append(s["ms"])
        for k, ms in per_shape.items():
            med = statistics.median(ms)
            spread = (max(ms) - min(ms)) / med if med > 0 else float("nan")
            say("%-11s %-9s %-26s %s | %.2f%%" % (
                cand, "candidate" if side == "eval" else "baseline", k[:26],
                " ".join("%.4f" % x for x in ms), 100 * spread))
            if cand == "relu" and side == "eval":
                relu_ms[k] = med
        for b in bad:
            say("%-11s %-9s run failed: %s" % (cand, side, b))

say()
if ncu_note:
    say("ncu: " + ncu_note)
elif ncu_csv:
    text = open(ncu_csv).read()
    start = text.find('"ID"')
    rows = list(csv.DictReader(io.StringIO(text[start:]))) if start >= 0 else []
    scale = {"nsecond": 1e-6, "ns": 1e-6, "usecond": 1e-3, "us": 1e-3, "msecond": 1.0, "ms": 1.0, "second": 1e3}
    worker = []
    for x in rows:
        if x.get("Metric Name") != "gpu__time_duration.sum":
            continue
        try:
            ms = float(x["Metric Value"].replace(",", "")) * scale.get(x.get("Metric Unit", "nsecond"), 1e-6)
        except ValueError:
            continue
        if "worker" in x.get("Process Name", ""):
            worker.append((ms, x.get("Kernel Name", "")[:40], x.get("Grid Size", "")))
    say("ncu: %d kernels profiled, %d in the worker (the candidate's)" % (
        sum(1 for x in rows if x.get("Metric Name") == "gpu__time_duration.sum"), len(worker)))
    if not worker or not relu_ms:
        say("ncu: nothing to compare (no worker kernels or no relu perf numbers)")
        msgs = [l for l in open(ncu_err).read().splitlines() if l.startswith(("==ERROR==", "==WARNING=="))] \
            if os.path.exists(ncu_err) else []
        for m in msgs[-3:]:
            say("ncu: " + m[:200])
    else:
        # bench shapes by size, largest first, against the longest worker launches
        def numel(k):
            n = 1
            for kv in k.split():
                n *= int(kv.split("=")[1])
            return n
        shapes = sorted(relu_ms, key=numel, reverse=True)
        longest = sorted(worker, reverse=True)[:len(shapes)]
        for k, (ms, name, grid) in zip(shapes, longest):
            say("ncu: relu %-24s kernel %s grid %s: ncu %.4f ms, kjudge %.4f ms, kjudge/ncu %.3f"
                % (k, name, grid, ms, relu_ms[k], relu_ms[k] / ms))
if out_dir:
    with open(os.path.join(out_dir, "timing_stability.txt"), "w") as fo:
        fo.write("\n".join(lines) + "\n")
    dst = os.path.join(out_dir, "timing_stability")
    os.makedirs(dst, exist_ok=True)
    for name in os.listdir(raw):
        keep = name.startswith("ncu_") or name.endswith("_1.json")
        if keep or (name.endswith(".err") and os.path.getsize(os.path.join(raw, name)) > 0):
            shutil.copy(os.path.join(raw, name), dst)
PY
