#!/usr/bin/env python3
"""kjudge's CUDA eager baseline against PyTorch eager, task by task (GPU machine).

For every task (tasks/level*/*.kt, tasks/serving/*.kt) and each of its GPU bench shapes:
  ours   `kjudge baseline TASK... --json`: the judge's baseline timed as the
         judge times it (L2 flushed, CUDA events, adaptive repetition), a
         batch of tasks per process (one CUDA context);
  torch  the same computation as a PyTorch eager function (bench/kt2torch.py:
         declared dtypes and distributions), timed the same way: a 2 x L2
         buffer zeroed before each call, CUDA events around the call only, one
         warm-up call, samples until the median's ~95% confidence half-width
         is within 0.5% (at least 10) or the shape's budget is spent; once with
         TF32 off (the baseline's strict f32: the comparison the bar is on)
         and, for tasks where PyTorch's defaults differ (an f32 convolution
         while cuDNN's TF32 is on by default; an f32 matmul if the matmul
         default were TF32), again with PyTorch's defaults, as KernelBench
         times it ("=" in the table: the defaults change nothing there).
With --kernelbench-dir DIR (or $KERNELBENCH_DIR: a KernelBench checkout, the
user's) every task that mirrors a KernelBench problem ("KernelBench L1 #39_..."
in its about line) is also timed at that problem's current sizes
(bench/kb_shapes.py: its get_inputs() read on the meta device and unified with
the task's declarations; problems whose shapes the task cannot express are
listed with the reason), as a temporary copy of the task with that one bench
shape.

Prints a table (set: kj = the task's bench shapes, kb = KernelBench's sizes;
ours ms, torch ms TF32 off, ours/torch, torch ms with PyTorch's defaults,
ours/that, our GB/s and % of the copy bandwidth from `kjudge calibrate
--json`), then per set the geometric-mean ratio against TF32-off and against
default PyTorch, the tasks above 1.25 (weighted geometric mean over their
shapes), the worst five and whether the bar is met (issue 22: against
TF32-off PyTorch, geometric mean <= 1.0 and no task above 1.25); then for
memory-bound shapes (flops/bytes < 10) the share at >= 90% of the copy
bandwidth, and the level 1-3 shapes whose measured baseline lies outside
lint's [1, 15] ms.  The table also goes to $OUT/baseline_vs_torch.txt when
OUT is set, line by line, so a run cut short still leaves what it measured.

Per-shape budgets shrink so that the whole run ends within --total seconds
(default 420); tasks left when time runs out are listed as skipped.

    bash tests/gpu/device.sh python3 bench/baseline_vs_torch.py [--total S] [--budget S] [--only SUBSTR]
        [--kernelbench-dir DIR] [--sizes kjudge|kernelbench|both]
"""
import argparse
import glob
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import kt2torch  # noqa: E402
import kb_shapes  # noqa: E402

MIN_SAMPLES = 10
MAX_SAMPLES = 2000
PROC_OVERHEAD_S = 3.0  # a `kjudge baseline` process: start, CUDA context, libraries
TASK_OVERHEAD_S = 0.4  # per task and set: plan, input generation, both sides
BATCH = 16  # tasks per `kjudge baseline` process


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


_MM_OPS = re.compile(r"\b(matmul|mm|bmm|baddbmm|addmm|linear|einsum|sdpa|scaled_dot_product_attention)\s*\(")
_CONV_OPS = re.compile(r"\bconv\w*\s*\(")


def tf32_differs(task, mm_default, cudnn_default):
    """Whether PyTorch's default TF32 switches change this task's arithmetic:
    an f32 value and a convolution (cuDNN) or a matmul whose default is TF32."""
    if task.tf32 or not any(d.dtype == "f32" for d in task.decls):
        return False  # a TF32 task's torch column has TF32 on already
    text = " ".join(e for _, e, _ in task.stmts)
    return bool((cudnn_default and _CONV_OPS.search(text)) or (mm_default and _MM_OPS.search(text)))


def kb_task_text(path, dims):
    """The task file with its GPU bench lines replaced by one shape: dims."""
    out, skip = [], False
    with open(path) as f:
        for line in f:
            s = line.strip()
            if skip:
                skip = s.endswith("\\")
                continue
            if s.startswith("bench") and not s.split(None, 2)[1:2] == ["cpu"]:
                skip = s.endswith("\\")
                continue
            out.append(line if line.endswith("\n") else line + "\n")
    out.append("bench %s weight=1\n" % " ".join("%s=%d" % kv for kv in dims.items()))
    return "".join(out)


def json_stream(text):
    """The JSON objects printed one after another."""
    dec, i, objs = json.JSONDecoder(), 0, []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return objs
        try:
            o, i = dec.raw_decode(text, i)
        except ValueError:
            return objs
        objs.append(o)


def summarize_set(out, rows, name):
    """Geometric means, tasks above 1.25 and the worst five of one set of sizes."""
    both = [r for r in rows if r["ratio"]]
    if not both:
        out("%s: no shape measured on both sides" % name)
        return
    gm = math.exp(sum(math.log(r["ratio"]) for r in both) / len(both))
    dflt = [r for r in both if r["ratio_def"]]
    gmd = math.exp(sum(math.log(r["ratio_def"]) for r in dflt) / len(dflt)) if dflt else None
    per_task = {}
    for r in both:
        per_task.setdefault(r["task"], []).append(r)
    slow, slow_d = [], []
    for tid, rs in per_task.items():
        w = sum(r["weight"] for r in rs) or 1.0
        g = math.exp(sum(r["weight"] * math.log(r["ratio"]) for r in rs) / w)
        if g > 1.25:
            slow.append((g, tid))
        if all(r["ratio_def"] for r in rs):
            gd = math.exp(sum(r["weight"] * math.log(r["ratio_def"]) for r in rs) / w)
            if gd > 1.25:
                slow_d.append((gd, tid))
    out("%s: shapes compared %d (%d tasks); geometric-mean ratio ours/torch: TF32 off %.3f, "
        "PyTorch defaults %s" % (name, len(both), len(per_task), gm, fmt(gmd, ".3f")))
    out("%s: tasks above 1.25 against TF32-off torch (weighted geometric mean over their shapes): "
        "%d of %d%s" % (name, len(slow), len(per_task),
                        (": " + ", ".join("%s %.2f" % (t, g) for g, t in sorted(slow, reverse=True)))
                        if slow else ""))
    out("%s: tasks above 1.25 against default torch (TF32 policy: the baseline stays strict f32): %d%s"
        % (name, len(slow_d),
           (": " + ", ".join("%s %.2f" % (t, g) for g, t in sorted(slow_d, reverse=True))) if slow_d else ""))
    out("%s: worst five against TF32-off torch: %s" % (name, ", ".join(
        "%s %s %.3f" % (r["task"], r["shape"], r["ratio"])
        for r in sorted(both, key=lambda r: -r["ratio"])[:5])))
    if dflt:
        out("%s: worst five against default torch: %s" % (name, ", ".join(
            "%s %s %.3f" % (r["task"], r["shape"], r["ratio_def"])
            for r in sorted(dflt, key=lambda r: -r["ratio_def"])[:5])))
    out("%s: bar (geomean <= 1.0, no task above 1.25, TF32 off): %s" % (
        name, "met" if gm <= 1.0 and not slow else "NOT met"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kjudge", default=os.path.join(ROOT, "build", "kjudge"))
    ap.add_argument("--budget", type=float, default=2.0, help="most seconds of timing per shape and side")
    ap.add_argument("--total", type=float, default=420.0, help="seconds for the whole run")
    ap.add_argument("--only", default=None,
                    help="only tasks whose id contains one of these comma-separated parts")
    ap.add_argument("--kernelbench-dir", default=os.environ.get("KERNELBENCH_DIR") or None, metavar="DIR",
                    help="a KernelBench checkout (default $KERNELBENCH_DIR): also time the mirrored "
                         "tasks at its problems' sizes")
    ap.add_argument("--sizes", choices=("kjudge", "kernelbench", "both"), default=None,
                    help="which sizes to time (default: both with a KernelBench checkout, else kjudge)")
    ap.add_argument("--sizing-out", default=None, metavar="FILE",
                    help="also write our measured time of every shape as tab-separated "
                         "task, shape, ms (the format of tasks/sizing_h200.tsv, which "
                         "`kjudge lint-tasks --sizing` prefers to its estimates)")
    a = ap.parse_args()
    sizes = a.sizes or ("both" if a.kernelbench_dir else "kjudge")
    want_kj, want_kb = sizes in ("kjudge", "both"), sizes in ("kernelbench", "both")
    t_start = time.monotonic()
    deadline = t_start + a.total
    out = Out()
    if want_kb and not (a.kernelbench_dir and os.path.isdir(a.kernelbench_dir)):
        out("baseline_vs_torch: --sizes %s needs --kernelbench-dir DIR (or KERNELBENCH_DIR), "
            "a KernelBench checkout; got %r" % (sizes, a.kernelbench_dir))
        return 2

    import torch
    # PyTorch's own defaults, read before kt2torch turns TF32 off
    mm_def = bool(torch.backends.cuda.matmul.allow_tf32)
    cudnn_def = bool(torch.backends.cudnn.allow_tf32)
    kt2torch.set_tf32(False, False)
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
    out("torch %s on %s, L2 %d MiB (flush buffer %d MiB); PyTorch's defaults here: matmul TF32 %s, "
        "cuDNN TF32 %s" % (torch.__version__, props.name, l2 >> 20, (2 * l2) >> 20,
                           "on" if mm_def else "off", "on" if cudnn_def else "off"))

    # units: one (task, set) = one TASK argument of `kjudge baseline`
    tmpdir = tempfile.mkdtemp(prefix="kj_kbsizes_")
    units, failures, skipped, kb_skips, kb_kept = [], [], [], [], []
    n_mirrored = 0
    for p, tid in zip(paths, ids):
        try:
            t = kt2torch.parse(p)
        except Exception as e:
            failures.append((tid, "parse: %s" % e))
            out("%s: cannot parse: %s" % (tid, e))
            continue
        differs = tf32_differs(t, mm_def, cudnn_def)
        if want_kj:
            binds = [(b.dims, b.weight) for b in t.bindings("bench")]
            if binds:
                units.append({"task": tid, "set": "kj", "arg": tid, "t": t, "binds": binds, "tf32": differs})
        if want_kb:
            try:
                r = kb_shapes.kernelbench_dims(p, a.kernelbench_dir, t)
            except Exception as e:  # KbSkip, KtError, or a problem file this reader does not expect
                n_mirrored += 1
                kb_skips.append((tid, str(e) if isinstance(e, (kb_shapes.KbSkip, kt2torch.KtError))
                                 else "%s: %s" % (type(e).__name__, str(e)[:160])))
                continue
            if r is None:
                continue
            n_mirrored += 1
            dims = r[1]
            kp = os.path.join(tmpdir, tid.replace("/", "__") + ".kt")
            with open(kp, "w") as f:
                f.write(kb_task_text(p, dims))
            units.append({"task": tid, "set": "kb", "arg": kp, "t": t, "binds": [(dims, 1.0)],
                          "tf32": differs, "kbfile": os.path.basename(r[0])})
            if r[2]:
                kb_kept.append((tid, " ".join("%s=%d" % kv for kv in r[2].items())))
    if want_kb:
        out("KernelBench sizes from %s: %d mirrored tasks, %d at its sizes, %d whose sizes the task "
            "cannot take (listed at the end)" % (a.kernelbench_dir, n_mirrored,
                                                 sum(1 for u in units if u["set"] == "kb"), len(kb_skips)))

    head = "%-34s %-3s %-30s %10s %10s %7s %10s %7s %9s %6s %6s" % (
        "task", "set", "shape", "ours_ms", "torch_ms", "ratio", "tdef_ms", "r_def", "our_GB/s", "%copy", "fl/B")
    out(head)
    out("-" * len(head))
    rows = []
    sides = lambda u: len(u["binds"]) * (3 if u["tf32"] else 2)  # noqa: E731
    left_units = sum(sides(u) for u in units)
    for c0 in range(0, len(units), BATCH):
        chunk = units[c0:c0 + BATCH]
        now = time.monotonic()
        left_tasks = len(units) - c0
        avail = deadline - now - PROC_OVERHEAD_S * ((left_tasks + BATCH - 1) // BATCH) - \
            TASK_OVERHEAD_S * left_tasks
        if deadline - now < PROC_OVERHEAD_S + TASK_OVERHEAD_S * len(chunk):
            skipped.extend("%s (%s)" % (u["task"], u["set"]) for u in units[c0:])
            break
        budget = min(a.budget, max(0.05, avail / max(1, left_units)))
        left_units -= sum(sides(u) for u in chunk)
        cmd = [a.kjudge, "baseline", "--json", "--budget", "%.3f" % budget] + [u["arg"] for u in chunk]
        nshape = sum(len(u["binds"]) for u in chunk)
        objs, why = [], None
        try:
            r = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=60 + 6 * budget * nshape + 5 * len(chunk))
            objs = json_stream(r.stdout)
            if len(objs) < len(chunk):
                why = (r.stderr.strip() or "no output").splitlines()[-1][:200]
        except subprocess.TimeoutExpired as e:
            objs = json_stream(e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or ""))
            why = "timed out"
        for k, u in enumerate(chunk):
            ours = {}
            o = objs[k] if k < len(objs) else None
            if o is None or "error" in o:
                msg = o["error"] if o else (why or "no result")
                failures.append((u["task"], "ours (%s): %s" % (u["set"], msg)))
                out("%-34s %-3s ours failed: %s" % (u["task"], u["set"], msg))
            else:
                for sh in o.get("shapes", []):
                    ours[tuple(sorted(sh["dims"].items()))] = sh
            for dims, weight in u["binds"]:
                rows.append(time_row(torch, u, dims, weight, ours, flush, budget, copy_gbs, failures, out,
                                     mm_def, cudnn_def))
    shutil.rmtree(tmpdir, ignore_errors=True)

    out()
    for st, name in (("kj", "kjudge's sizes"), ("kb", "KernelBench's sizes")):
        if (st == "kj" and want_kj) or (st == "kb" and want_kb):
            summarize_set(out, [r for r in rows if r["set"] == st], name)
    mem = [r for r in rows if r["intensity"] is not None and r["intensity"] < 10 and r["pct"] is not None]
    single = [r for r in mem if r.get("single")]
    if single:
        good = [r for r in single if r["pct"] >= 90.0]
        out("single-op memory-bound shapes (one op, so one kernel in eager): %d, at >= 90%% of copy "
            "bandwidth: %d (%.0f%%)" % (len(single), len(good), 100.0 * len(good) / len(single)))
        low = sorted((r for r in single if r["pct"] < 90.0), key=lambda r: r["pct"])
        if low:
            out("  below 90%%: " + ", ".join("%s %s %s %.0f%%" % (r["task"], r["set"], r["shape"], r["pct"])
                                             for r in low))
    if mem:
        good = [r for r in mem if r["pct"] >= 90.0]
        out("memory-bound shapes (flops/bytes < 10): %d, at >= 90%% of copy bandwidth: %d (%.0f%%)" % (
            len(mem), len(good), 100.0 * len(good) / len(mem)))
        low = sorted((r for r in mem if r["pct"] < 90.0), key=lambda r: r["pct"])
        if low:
            out("  below 90%% (%d, lowest first): " % len(low) +
                ", ".join("%s %s %s %.0f%%" % (r["task"], r["set"], r["shape"], r["pct"]) for r in low[:20]) +
                (", ..." if len(low) > 20 else ""))
    # the sizing rule of `kjudge lint-tasks --sizing` (levels 1-3: an eager
    # baseline of 1-15 ms), checked against the measured times of the task's own shapes
    lv = [r for r in rows if r["ours"] is not None and r["set"] == "kj" and r["task"].startswith("level")]
    if lv:
        off = sorted((r for r in lv if not 1.0 <= r["ours"] <= 15.0), key=lambda r: r["ours"])
        out("level 1-3 shapes with our baseline outside [1, 15] ms: %d of %d%s" % (
            len(off), len(lv),
            (": " + ", ".join("%s %s %.2f ms" % (r["task"], r["shape"], r["ours"]) for r in off)) if off else ""))
    if kb_kept:
        out("KernelBench sizes with dims no tensor of the problem fixes (heads, groups), kept at the "
            "task's own first bench value: " + ", ".join("%s %s" % x for x in kb_kept))
    if kb_skips:
        out("mirrored tasks not timed at KernelBench's sizes: %d" % len(kb_skips))
        for tid, msg in kb_skips:
            out("  %s: %s" % (tid, msg))
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
                if r["ours"] is not None and r["set"] == "kj":
                    f.write("%s\t%s\t%.4f\n" % (r["task"], r["shape"], r["ours"]))
    out("took %.1f s" % (time.monotonic() - t_start))
    return 0


class _NoOurs(Exception):
    pass


def time_row(torch, u, dims, weight, ours, flush, budget, copy_gbs, failures, out, mm_def, cudnn_def):
    """One shape of one unit: torch timed TF32 off (and with the defaults
    where they differ), the row printed and returned."""
    t, tid = u["t"], u["task"]
    label = " ".join("%s=%d" % kv for kv in dims.items())
    o = ours.get(tuple(sorted(dims.items())))
    row = {"task": tid, "set": u["set"], "shape": label, "weight": weight,
           "ours": o["ms"] if o else None,
           "bytes": o["bytes"] if o else None, "flops": o["flops"] if o else None,
           "torch": None, "torch_def": None}
    inputs = fn = None
    try:
        if o is None:  # no ratio to make: spare the time (the failure is listed already)
            raise _NoOurs()
        inputs = kt2torch.make_inputs(t, dims, "cuda")
        fn = kt2torch.build_fn(t, dims, "cuda")
        if t.tf32:  # a task that allows TF32: our baseline uses it, so torch does too
            kt2torch.set_tf32(True, True)
        try:
            row["torch"], _, row["torch_n"], _ = time_torch(torch, fn, inputs, flush, budget)
        finally:
            kt2torch.set_tf32(False, False)
        if u["tf32"]:
            kt2torch.set_tf32(mm_def, cudnn_def)
            try:
                row["torch_def"], _, _, _ = time_torch(torch, fn, inputs, flush, budget)
            finally:
                kt2torch.set_tf32(False, False)
        else:
            row["torch_def"] = row["torch"]
    except _NoOurs:
        pass
    except Exception as e:
        msg = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
        failures.append((tid, "torch %s %s: %s" % (u["set"], label, msg)))
        out("%-34s %-3s %-30s torch failed: %s" % (tid, u["set"], label[:30], msg))
    del inputs, fn
    torch.cuda.empty_cache()
    gbs = row["bytes"] / (row["ours"] * 1e-3) / 1e9 if row["ours"] else None
    row["gbs"] = gbs
    row["pct"] = 100.0 * gbs / copy_gbs if gbs and copy_gbs else None
    row["ratio"] = row["ours"] / row["torch"] if row["ours"] and row["torch"] else None
    row["ratio_def"] = row["ours"] / row["torch_def"] if row["ours"] and row["torch_def"] else None
    row["intensity"] = row["flops"] / row["bytes"] if row["bytes"] else None
    row["single"] = single_op(t)
    out("%-34s %-3s %-30s %10s %10s %7s %10s %7s %9s %6s %6s" % (
        tid, u["set"], label[:30], fmt(row["ours"], ".4f"), fmt(row["torch"], ".4f"),
        fmt(row["ratio"], ".3f"), fmt(row["torch_def"], ".4f") if u["tf32"] else "=",
        fmt(row["ratio_def"], ".3f") if u["tf32"] else "=", fmt(gbs, ".1f"), fmt(row["pct"], ".1f"),
        fmt(row["intensity"], ".1f")))
    return row


if __name__ == "__main__":
    sys.exit(main())
