#!/usr/bin/env python3
"""kjudge's CUDA eager baseline against PyTorch eager, task by task (GPU machine).

For every task (tasks/level*/*.kt, tasks/serving/*.kt) and each of its GPU bench shapes:
  ours   `kjudge baseline TASK --json`: the judge's baseline timed as the judge
         times it (L2 flushed, CUDA events, adaptive repetition);
  torch  the same computation as a PyTorch eager function (bench/kt2torch.py:
         declared dtypes and distributions, TF32 off), timed the same way: a
         2 x L2 buffer zeroed before each call, CUDA events around the call
         only, one warm-up call, samples until the median's ~95% confidence
         half-width is within 0.5% (at least 10) or the shape's budget is spent.
Prints a table (ours ms, torch ms, ours/torch, our GB/s and % of the copy
bandwidth from `kjudge calibrate --json`), then the geometric-mean ratio, the
worst ratio, the tasks above 1.25 (weighted geometric mean over their shapes)
and, for memory-bound shapes (flops/bytes < 10), the share at >= 90% of the
copy bandwidth, and the level 1-3 shapes whose measured baseline lies outside
lint's [1, 15] ms.  The table also goes to $OUT/baseline_vs_torch.txt when OUT
is set, line by line, so a run cut short still leaves what it measured.

Per-shape budgets shrink so that the whole run ends within --total seconds
(default 420); tasks left when time runs out are listed as skipped.

    bash tests/gpu/device.sh python3 bench/baseline_vs_torch.py [--total S] [--budget S] [--only SUBSTR]
"""
import argparse
import glob
import json
import math
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import kt2torch  # noqa: E402

MIN_SAMPLES = 10
MAX_SAMPLES = 2000
TASK_OVERHEAD_S = 2.0  # process start, CUDA context, input generation: both sides, per task


def summarize(xs):
    """(median, iqr, stable) with kjudge's rule (judge.c: kjj_summarize)."""
    xs = sorted(xs)
    n = len(xs)
    med = xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])
    iqr = xs[min((3 * n) // 4, n - 1)] - xs[n // 4]
    h = 0.98 * math.sqrt(n)
    lo, hi = max(0, int(math.floor(n / 2 - h))), min(n - 1, int(math.ceil(n / 2 + h)))
    stable = n >= MIN_SAMPLES and med > 0 and (xs[hi] - xs[lo]) / 2 <= 0.005 * med
    return med, iqr, stable


class Out:
    """Prints and copies every line to $OUT/baseline_vs_torch.txt."""

    def __init__(self):
        d = os.environ.get("OUT")
        self.f = open(os.path.join(d, "baseline_vs_torch.txt"), "w") if d else None

    def __call__(self, line=""):
        print(line, flush=True)
        if self.f:
            self.f.write(line + "\n")
            self.f.flush()


def run_json(cmd, timeout):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        msg = (r.stderr.strip() or r.stdout.strip() or "no output").splitlines()
        raise RuntimeError("%s exited %d: %s" % (os.path.basename(cmd[0]), r.returncode, msg[-1][:200]))
    return json.loads(r.stdout)


def time_torch(torch, fn, inputs, flush, budget):
    """Median, IQR, n, stable of fn(**inputs) in ms."""
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    out = fn(**inputs)  # warm-up: library handles, allocator pool, kernel selection
    torch.cuda.synchronize()
    del out
    samples = []
    t0 = time.monotonic()
    while len(samples) < MAX_SAMPLES:
        flush.zero_()
        start.record()
        fn(**inputs)  # the outputs are dropped at once: the allocator reuses them on the next call
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end))
        if len(samples) >= MIN_SAMPLES:
            med, iqr, stable = summarize(samples)
            if stable or time.monotonic() - t0 > budget:
                break
    med, iqr, stable = summarize(samples)
    return med, iqr, len(samples), stable


def fmt(v, spec, none="-"):
    return none if v is None else format(v, spec)


def single_op(task):
    """Whether the task is one op (one call or one infix operator on names):
    its eager baseline is one kernel, so it can reach the copy bandwidth."""
    if len(task.stmts) != 1:
        return False
    e = re.sub(r"(?<![\w.])\d+(\.\d*)?([eE][-+]?\d+)?", "0", task.stmts[0][1])
    e = re.sub(r"[A-Za-z_]\w*\s*=\s*-?[\w.]+", "", e)
    e = re.sub(r"\[[^\]]*\]", "", e)
    return e.count("(") + len(re.findall(r"[-+*/]", e)) == 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kjudge", default=os.path.join(ROOT, "build", "kjudge"))
    ap.add_argument("--budget", type=float, default=2.0, help="most seconds of timing per shape and side")
    ap.add_argument("--total", type=float, default=420.0, help="seconds for the whole run")
    ap.add_argument("--only", default=None,
                    help="only tasks whose id contains one of these comma-separated parts")
    ap.add_argument("--sizing-out", default=None, metavar="FILE",
                    help="also write our measured time of every shape as tab-separated "
                         "task, shape, ms (the format of tasks/sizing_h200.tsv, which "
                         "`kjudge lint-tasks --sizing` prefers to its estimates)")
    a = ap.parse_args()
    t_start = time.monotonic()
    deadline = t_start + a.total
    out = Out()

    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    if not torch.cuda.is_available():
        out("baseline_vs_torch: torch sees no CUDA device")
        return 3

    paths = sorted(glob.glob(os.path.join(ROOT, "tasks", "level*", "*.kt")) +
                   glob.glob(os.path.join(ROOT, "tasks", "serving", "*.kt")))
    ids = [os.path.relpath(p, os.path.join(ROOT, "tasks"))[:-3] for p in paths]
    if a.only:
        parts = [x for x in a.only.split(",") if x]
        keep = [i for i, t in enumerate(ids) if any(x in t for x in parts)]
        paths, ids = [paths[i] for i in keep], [ids[i] for i in keep]

    copy_gbs = None
    try:
        cal = run_json([a.kjudge, "calibrate", "--json"], 180)
        copy_gbs = cal.get("copy_gbs")
        out("device %s: copy bandwidth %.1f GB/s (kjudge calibrate, %.1f s)"
            % (cal.get("name"), copy_gbs, cal.get("seconds", 0)))
    except Exception as e:  # the table is still useful without the % column
        out("kjudge calibrate failed (%s): no %% of copy bandwidth" % e)
    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 0) or 64 << 20
    flush = torch.empty(2 * l2 // 4, dtype=torch.float32, device="cuda")
    out("torch %s on %s, L2 %d MiB (flush buffer %d MiB), TF32 off"
        % (torch.__version__, props.name, l2 >> 20, (2 * l2) >> 20))

    tasks = []
    for p, tid in zip(paths, ids):
        try:
            t = kt2torch.parse(p)
            tasks.append((tid, p, t, t.bindings("bench")))
        except Exception as e:
            tasks.append((tid, p, None, []))
            out("%s: cannot parse: %s" % (tid, e))

    head = "%-34s %-26s %10s %10s %8s %9s %7s %6s" % (
        "task", "shape", "ours_ms", "torch_ms", "ratio", "our_GB/s", "%copy", "fl/B")
    out(head)
    out("-" * len(head))
    rows, failures, skipped = [], [], []
    left_shapes = sum(max(1, len(b)) for _, _, _, b in tasks)
    for ti, (tid, path, t, binds) in enumerate(tasks):
        nshape = max(1, len(binds))
        now = time.monotonic()
        if t is None:
            failures.append((tid, "parse"))
            left_shapes -= nshape
            continue
        if not binds:
            out("%-34s (no GPU bench shapes)" % tid)
            left_shapes -= nshape
            continue
        left_tasks = len(tasks) - ti
        avail = deadline - now - TASK_OVERHEAD_S * left_tasks
        if deadline - now < TASK_OVERHEAD_S + 0.5:
            skipped.append(tid)
            left_shapes -= nshape
            continue
        budget = min(a.budget, max(0.1, avail / (2.0 * left_shapes)))
        left_shapes -= nshape

        ours = {}
        try:
            js = run_json([a.kjudge, "baseline", tid, "--json", "--budget", "%.3f" % budget],
                          60 + 4 * budget * nshape)
            for s in js.get("shapes", []):
                ours[tuple(sorted(s["dims"].items()))] = s
        except Exception as e:
            failures.append((tid, "ours: %s" % e))
            out("%-34s ours failed: %s" % (tid, e))

        for b in binds:
            key = tuple(sorted(b.dims.items()))
            o = ours.get(key)
            row = {"task": tid, "shape": b.label(), "weight": b.weight,
                   "ours": o["ms"] if o else None,
                   "bytes": o["bytes"] if o else None, "flops": o["flops"] if o else None,
                   "torch": None}
            inputs = fn = None
            try:
                inputs = kt2torch.make_inputs(t, b.dims, "cuda")
                fn = kt2torch.build_fn(t, b.dims, "cuda")
                row["torch"], _, row["torch_n"], _ = time_torch(torch, fn, inputs, flush, budget)
            except Exception as e:
                failures.append((tid, "torch %s: %s" % (b.label(), str(e).splitlines()[0][:200])))
                out("%-34s %-26s torch failed: %s" % (tid, b.label(), str(e).splitlines()[0][:200]))
            del inputs, fn
            torch.cuda.empty_cache()
            gbs = row["bytes"] / (row["ours"] * 1e-3) / 1e9 if row["ours"] else None
            row["gbs"] = gbs
            row["pct"] = 100.0 * gbs / copy_gbs if gbs and copy_gbs else None
            row["ratio"] = row["ours"] / row["torch"] if row["ours"] and row["torch"] else None
            row["intensity"] = row["flops"] / row["bytes"] if row["bytes"] else None
            row["single"] = single_op(t)
            rows.append(row)
            out("%-34s %-26s %10s %10s %8s %9s %7s %6s" % (
                tid, b.label()[:26], fmt(row["ours"], ".4f"), fmt(row["torch"], ".4f"),
                fmt(row["ratio"], ".3f"), fmt(gbs, ".1f"), fmt(row["pct"], ".1f"),
                fmt(row["intensity"], ".1f")))

    out()
    ratios = [r for r in rows if r["ratio"]]
    if ratios:
        gm = math.exp(sum(math.log(r["ratio"]) for r in ratios) / len(ratios))
        worst = max(ratios, key=lambda r: r["ratio"])
        out("shapes compared: %d; geometric-mean ratio ours/torch %.3f" % (len(ratios), gm))
        out("max ratio %.3f: %s %s" % (worst["ratio"], worst["task"], worst["shape"]))
        per_task = {}
        for r in ratios:
            per_task.setdefault(r["task"], []).append(r)
        slow = []
        for tid, rs in per_task.items():
            w = sum(r["weight"] for r in rs) or 1.0
            g = math.exp(sum(r["weight"] * math.log(r["ratio"]) for r in rs) / w)
            if g > 1.25:
                slow.append((g, tid))
        out("tasks above 1.25 (weighted geometric mean over their shapes): %d of %d%s" % (
            len(slow), len(per_task),
            (": " + ", ".join("%s %.2f" % (tid, g) for g, tid in sorted(slow, reverse=True))) if slow else ""))
    else:
        out("no shape measured on both sides")
    mem = [r for r in rows if r["intensity"] is not None and r["intensity"] < 10 and r["pct"] is not None]
    single = [r for r in mem if r.get("single")]
    if single:
        good = [r for r in single if r["pct"] >= 90.0]
        out("single-op memory-bound shapes (one op, so one kernel in eager): %d, at >= 90%% of copy "
            "bandwidth: %d (%.0f%%)" % (len(single), len(good), 100.0 * len(good) / len(single)))
        low = sorted((r for r in single if r["pct"] < 90.0), key=lambda r: r["pct"])
        if low:
            out("  below 90%%: " + ", ".join("%s %s %.0f%%" % (r["task"], r["shape"], r["pct"]) for r in low))
    if mem:
        good = [r for r in mem if r["pct"] >= 90.0]
        out("memory-bound shapes (flops/bytes < 10): %d, at >= 90%% of copy bandwidth: %d (%.0f%%)" % (
            len(mem), len(good), 100.0 * len(good) / len(mem)))
        low = sorted((r for r in mem if r["pct"] < 90.0), key=lambda r: r["pct"])
        if low:
            out("  below 90%% (%d, lowest first): " % len(low) +
                ", ".join("%s %s %.0f%%" % (r["task"], r["shape"], r["pct"]) for r in low[:20]) +
                (", ..." if len(low) > 20 else ""))
    # the sizing rule of `kjudge lint-tasks --sizing` (levels 1-3: an eager
    # baseline of 1-15 ms), checked against the measured times
    lv = [r for r in rows if r["ours"] is not None and r["task"].startswith("level")]
    if lv:
        off = sorted((r for r in lv if not 1.0 <= r["ours"] <= 15.0), key=lambda r: r["ours"])
        out("level 1-3 shapes with our baseline outside [1, 15] ms: %d of %d%s" % (
            len(off), len(lv),
            (": " + ", ".join("%s %s %.2f ms" % (r["task"], r["shape"], r["ours"]) for r in off)) if off else ""))
    if skipped:
        out("skipped for time (--total %.0f s): %s" % (a.total, ", ".join(skipped)))
    if failures:
        out("failures: %d" % len(failures))
        for tid, msg in failures:
            out("  %s: %s" % (tid, msg))
    if a.sizing_out:
        with open(a.sizing_out, "w") as f:
            f.write("# kjudge's eager baseline, median ms per bench shape, measured by\n"
                    "# bench/baseline_vs_torch.py on %s, %s (torch %s)\n"
                    "# task\tshape\tms\n" % (torch.cuda.get_device_name(0),
                                              time.strftime("%Y-%m-%d"), torch.__version__))
            for r in rows:
                if r["ours"] is not None:
                    f.write("%s\t%s\t%.4f\n" % (r["task"], r["shape"], r["ours"]))
    out("took %.1f s" % (time.monotonic() - t_start))
    return 0


if __name__ == "__main__":
    sys.exit(main())
