#!/usr/bin/env python3
"""kb_shapes: a kjudge task's dims at KernelBench's own problem sizes.

A task that mirrors a KernelBench problem says so in its `about` line:
"(KernelBench L1 #39_L2Norm_)".  kernelbench_dims(task_path, kb_dir) finds
that problem file in a KernelBench checkout (the user's, read at run time:
kjudge ships none of its files), runs its module with PyTorch's default
device set to "meta" (tensors have shapes and no storage, so even an 8 GiB
input costs nothing), calls get_inputs() and get_init_inputs(), builds
Model(*init_inputs) on "meta" too, and unifies the task's declarations
with what it got:
  - the task's inputs, in order, with the problem's tensor inputs, in order
    (non-tensor inputs skipped);
  - then each task param with the first unused Model parameter of the same
    rank whose shape agrees with the dims bound so far.
A declared dim that is a symbol takes the problem's extent; a literal or an
expression must equal it.  The result is {symbol: value} for every dim
symbol of the task, or KbSkip with the reason: the problem's shapes are not
ones the task can express (another rank, a literal that differs), or the
problem file is missing or fails to run.  A symbol that is the one unknown
of an extent (NH*D with NH known) is solved for; a symbol no tensor fixes
(heads, groups: the problem's constructor arguments) keeps the task's own
first bench value, and the result says which.

    python3 bench/kb_shapes.py KB_DIR [TASK.kt...]   # prints each task's dims or why not
"""
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import kt2torch  # noqa: E402

_ABOUT = re.compile(r"KernelBench L(\d+) #(\d+)_([A-Za-z0-9_]*)")


class KbSkip(Exception):
    pass


def kb_ref(task_path):
    """(level, number, name) of the KernelBench problem the task mirrors, or None."""
    with open(task_path) as f:
        for line in f:
            if line.lstrip().startswith("about"):
                m = _ABOUT.search(line)
                return (int(m.group(1)), int(m.group(2)), m.group(3)) if m else None
    return None


def problem_file(kb_dir, level, number, name):
    """The problem's file in a checkout (its root, or its KernelBench/ folder)."""
    for root in (os.path.join(kb_dir, "KernelBench"), kb_dir):
        d = os.path.join(root, "level%d" % level)
        if not os.path.isdir(d):
            continue
        exact = os.path.join(d, "%d_%s.py" % (number, name))
        if os.path.isfile(exact):
            return exact
        found = sorted(glob.glob(os.path.join(d, "%d_*.py" % number)))
        if len(found) == 1:
            return found[0]
        raise KbSkip("no level%d/%d_%s.py in %s" % (level, number, name, root))
    raise KbSkip("%s has no level%d folder (nor KernelBench/level%d)" % (kb_dir, level, level))


def problem_shapes(path):
    """([input shapes], [param shapes]) of a problem file, read on the meta device."""
    import torch
    src = open(path).read()
    env = {"__name__": "kb_problem", "__file__": path}
    with torch.device("meta"):
        try:
            exec(compile(src, path, "exec"), env)
            inputs = env["get_inputs"]()
            init = env["get_init_inputs"]() if "get_init_inputs" in env else []
        except Exception as e:
            raise KbSkip("running %s: %s" % (os.path.basename(path), str(e).splitlines()[0][:160]))
        params = []
        try:
            model = env["Model"](*init)
            params = [list(p.shape) for p in model.parameters()]
        except Exception:
            params = None  # the inputs alone may bind every dim
    shapes = [list(x.shape) for x in inputs if isinstance(x, torch.Tensor)]
    return shapes, params


def _unify_one(decl, shape, dims):
    """Binds decl's bare-symbol dims to shape; False when they cannot agree."""
    if len(decl.dims) != len(shape):
        return False
    new = dict(dims)
    for e, v in zip(decl.dims, shape):
        e = e.strip()
        if re.fullmatch(r"[A-Za-z_]\w*", e):
            if e in new and new[e] != v:
                return False
            new[e] = v
    for e, v in zip(decl.dims, shape):  # literals and expressions, once their symbols are bound
        e = e.strip()
        if re.fullmatch(r"[A-Za-z_]\w*", e):
            continue
        try:
            if kt2torch.eval_dim(e, new) != v:
                return False
        except NameError:
            pass
    dims.clear()
    dims.update(new)
    return True


def unify(task, in_shapes, param_shapes):
    """({symbol: value} for every dim symbol of task, {symbol: value} of
    those kept at the task's own first bench shape), or KbSkip."""
    inputs = [d for d in task.decls if d.kind == "input"]
    params = [d for d in task.decls if d.kind == "param"]
    dims = {}
    if len(inputs) != len(in_shapes):
        raise KbSkip("the task has %d inputs, the problem %d tensor inputs" % (len(inputs), len(in_shapes)))
    for d, sh in zip(inputs, in_shapes):
        if not _unify_one(d, sh, dims):
            raise KbSkip("input %s: %s[%s] cannot be the problem's %s"
                         % (d.name, d.dtype, ", ".join(d.dims), sh))
    used = set()
    for d in params:
        if param_shapes is None:
            break
        for i, sh in enumerate(param_shapes):
            if i not in used and _unify_one(d, sh, dims):
                used.add(i)
                break
    pairs = list(zip(inputs, in_shapes))
    if param_shapes is not None:
        pairs += [(d, param_shapes[i]) for d, i in zip(params, sorted(used))]
    kept = {}
    own = task.bindings("bench")
    while True:
        _solve_linear(pairs, dims)
        missing = [s for s in task.syms if s not in dims]
        if not missing:
            break
        # a dim the problem's tensors do not fix (heads, groups: constructor
        # arguments) keeps the task's own first bench value; those with a
        # declared extent to solve from come first
        if not own:
            raise KbSkip("dim %s is not in the problem's inputs" % ", ".join(missing))
        s = next((m for m in missing if any(m in _syms(e) for d, _ in pairs for e in d.dims
                                            if not re.fullmatch(r"\s*[A-Za-z_]\w*\s*", e))), None)
        if s is None:
            raise KbSkip("dim %s is not in the problem's inputs%s" % (
                ", ".join(missing), "" if params and param_shapes is not None else " (nor its parameters)"))
        kept[s] = dims[s] = own[0].dims[s]
    for d, sh in pairs:  # every declared extent must be the problem's
        try:
            got = task.shape_of(d, dims)
        except Exception as e:
            raise KbSkip("%s: %s" % (d.name, e))
        if list(got) != list(sh):
            raise KbSkip("%s: %s[%s] is %s with %s, the problem's is %s" % (
                d.name, d.dtype, ", ".join(d.dims), got, _fmt(dims), list(sh)))
    for d in task.decls:
        try:
            task.shape_of(d, dims)
        except Exception as e:
            raise KbSkip("%s: %s" % (d.name, e))
    return {s: int(dims[s]) for s in task.syms}, kept


def _syms(expr):
    return set(re.findall(r"[A-Za-z_]\w*", expr))


def _fmt(dims):
    return " ".join("%s=%d" % kv for kv in dims.items())


def _solve_linear(pairs, dims):
    """Binds a symbol that is the only unbound one of a declared extent, when
    the extent is linear in it (NH*D with NH bound, C/G*G...): tried at 1 and 2."""
    changed = True
    while changed:
        changed = False
        for d, sh in pairs:
            for e, v in zip(d.dims, sh):
                free = [x for x in _syms(e) if x not in dims]
                if len(free) != 1:
                    continue
                x = free[0]
                try:
                    f1 = kt2torch.eval_dim(e, dict(dims, **{x: 1}))
                    f2 = kt2torch.eval_dim(e, dict(dims, **{x: 2}))
                except Exception:
                    continue
                k = f2 - f1
                if k <= 0 or (v - (f1 - k)) % k:
                    continue
                val = (v - (f1 - k)) // k
                if val >= 1 and kt2torch.eval_dim(e, dict(dims, **{x: val})) == v:
                    dims[x] = val
                    changed = True


def kernelbench_dims(task_path, kb_dir, task=None):
    """(problem file, {symbol: value}, {kept symbol: value}) for a mirrored
    task; None when the task mirrors no KernelBench problem; KbSkip when its
    sizes cannot be used."""
    ref = kb_ref(task_path)
    if ref is None:
        return None
    path = problem_file(kb_dir, *ref)
    t = task or kt2torch.parse(task_path)
    ins, params = problem_shapes(path)
    dims, kept = unify(t, ins, params)
    return path, dims, kept


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    kb = sys.argv[1]
    root = os.path.dirname(HERE)
    paths = sys.argv[2:] or sorted(glob.glob(os.path.join(root, "tasks", "level*", "*.kt")))
    n_ok = n_skip = 0
    for p in paths:
        try:
            r = kernelbench_dims(p, kb)
        except (KbSkip, kt2torch.KtError) as e:
            print("%-60s skip: %s" % (os.path.relpath(p, root), e))
            n_skip += 1
            continue
        if r is None:
            continue
        n_ok += 1
        print("%-60s %s  (%s%s)" % (os.path.relpath(p, root), _fmt(r[1]), os.path.basename(r[0]),
                                    "; kept from the task: " + _fmt(r[2]) if r[2] else ""))
    print("mirrored tasks with KernelBench sizes: %d, skipped: %d" % (n_ok, n_skip))
    return 0


if __name__ == "__main__":
    sys.exit(main())
