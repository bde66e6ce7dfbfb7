#!/usr/bin/env python3
"""kjudge's Python worker: the untrusted side for Python candidates.

It speaks the worker protocol of kjudge-worker (src/sandbox/wire.h,
docs/worker-protocol.md) on fd 3, for the CUDA track only: the judge exports
its device arena by CUDA IPC, this worker wraps the candidate's input and
output buffers as torch tensors without copies, calls the candidate and
reports CUDA event times taken on its own stream.  Backends:

  triton       a Python file whose entry function has the task's prototype:
               tensors (inputs, params, outputs) then ints (dims); it writes
               the outputs in place.
  kernelbench  a KernelBench-format file: class ModelNew(nn.Module); its
               forward takes the task's inputs and returns the outputs, the
               task's params are bound onto ModelNew's parameters in
               registration order (docs/kernelbench.md).

Other modes, run by the judge in a fresh process (no candidate code runs):
  --probe BACKEND          prints one JSON line: can torch/triton/cupy and a
                           CUDA device be used here?
  --check FILE --backend B prints one JSON line: the static verdict on the
                           source (syntax, policy reject, fallback).

The judge trusts nothing this process says about results (it reads outputs
from its own memory) and bounds its times by its own clock.  The worker
defends its timing against the candidate anyway: every function it uses is
bound to a local name before the candidate is imported, and replacing one of
them (monkeypatching) is caught after the import and after every call.
"""

import ast
import json
import os
import re
import struct
import sys

# ---- the wire layout: the one place that mirrors src/sandbox/wire.h ----
# tests/cli/t60_python.sh compares these with wire.h's #defines and the C
# struct sizes; HELLO carries WIRE_VERSION so a mismatch fails at once.
WIRE_VERSION = 5
WIRE_FD = 3
WIRE_MAX_PTR = 64
WIRE_MAX_DIM = 32
WIRE_PATH_MAX = 4096
WIRE_SYM_MAX = 256
WIRE_TEXT_MAX = 480
WIRE_IPC_HANDLE = 64

HELLO, LOAD, ARENA, CALL, NOP, ARENA_CUDA, SETUP, PROBE = 1, 2, 3, 4, 5, 6, 7, 8
OK, ERROR = 0x100, 0x101

FORMATS = {
    HELLO: "<IIII",                                  # hdr, version, pid
    LOAD: "<IIIIIi%ds%ds" % (WIRE_PATH_MAX, WIRE_SYM_MAX),     # hdr, nptr, ndim, cuda, device, path, symbol
    ARENA: "<IIQ",                                   # hdr, size
    CALL: "<IIIIIIQ%dQ%dq" % (WIRE_MAX_PTR, WIRE_MAX_DIM),     # hdr, nptr, ndim, flags, reps, stride, off[], dims[]
    NOP: "<II",                                      # hdr
    ARENA_CUDA: "<IIQiI%ds" % WIRE_IPC_HANDLE,            # hdr, size, device, pad, handle
    SETUP: "<IIIi",                                   # hdr, cuda, device
    PROBE: "<IIIIIIQ%dQ%dq" % (WIRE_MAX_PTR, WIRE_MAX_DIM),    # a CALL with nothing called
    OK: "<IIqqq",                                    # hdr, worker_ns, gpu_ns, devsync_ns
    ERROR: "<IIi%ds" % WIRE_TEXT_MAX,                     # hdr, cuda_error, text
}
STRUCTS = {t: struct.Struct(f) for t, f in FORMATS.items()}

EXIT_DONE, EXIT_NOT_JUDGED, EXIT_BAD_REQUEST, EXIT_NO_REPLY, EXIT_CUDA = 0, 2, 3, 4, 5

DTYPES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "i8": "int8",
          "i32": "int32", "i64": "int64", "bool": "bool", "f8e4m3": "float8_e4m3fn"}
DTYPE_SIZE = {"f32": 4, "f16": 2, "bf16": 2, "i8": 1, "i32": 4, "i64": 8, "bool": 1, "f8e4m3": 1}

# ---- static policy (docs/kernelbench.md, "Rules and how they are enforced") ----
# What stays static is what the sandbox cannot see: patching torch's timing,
# the worker's objects or the dispatch counter (monkeypatching, private names,
# reflection, frames, ctypes' Python API), threads and streams that move work
# out of the timed interval, signals and file descriptors (os.kill, os.write
# to the protocol socket).  Processes, programs and the network are the
# sandbox's since issue 21: the build runs in a step of its own, and the timed
# process runs under a seccomp filter that refuses exec, fork and sockets
# other than AF_UNIX (src/judge/pyfilter.c), so subprocess, os.system, os.fork,
# os.exec*, socket and ctypes pass the static check and fail when they run.
# Writes outside the scratch folders, the network and other processes are the
# jail's (read-only binds, own network and PID namespaces, another uid).

_PURE = {"math", "functools", "typing", "itertools", "operator", "numbers", "collections",
         "enum", "abc", "contextlib", "warnings", "struct", "time", "os", "os.path"}
# what the seccomp filter refuses when it runs (exec, fork, network sockets):
# no longer the static check's business
_SANDBOXED = {"subprocess", "socket", "ctypes", "ctypes.util"}
_TORCH_SETTINGS = {"torch.backends", "torch.backends.cudnn", "torch.backends.cuda"}
ALLOWED_MODULES = {
    "triton": {"torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.cuda", "triton",
               "triton.language"} | _TORCH_SETTINGS | _PURE | _SANDBOXED,
    "kernelbench": {"torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.cuda", "triton",
                    "triton.language", "torch.utils.cpp_extension"} | _TORCH_SETTINGS | _PURE | _SANDBOXED,
}
ALLOWED_MODULE_PREFIXES = ("triton.language.",)
BANNED_BUILTINS = {
    "eval", "exec", "compile", "__import__", "getattr", "setattr", "delattr", "globals",
    "locals", "vars", "open", "input", "breakpoint", "exit", "quit", "help", "memoryview",
    "__builtins__", "__loader__", "__spec__",
}
ALLOWED_DUNDER_NAMES = {"__name__", "__init__", "__file__"}
# os: paths, the environment and the folders the jail lets it write, and
# processes and programs (the seccomp filter refuses them when they run); not
# signals or descriptors (os.kill, os.write to the protocol socket)
OS_ALLOWED = {"environ", "getenv", "path", "sep", "pathsep", "linesep", "name", "curdir", "pardir",
              "devnull", "cpu_count", "getcwd", "getpid", "fspath", "makedirs", "mkdir", "listdir",
              "scandir", "walk", "stat", "remove", "unlink", "rmdir", "rename", "replace",
              "system", "popen", "fork", "forkpty", "wait", "waitpid", "execv", "execve", "execvp",
              "execvpe", "execl", "execle", "execlp", "execlpe", "spawnv", "spawnve", "spawnvp",
              "spawnvpe", "spawnl", "spawnle", "spawnlp", "spawnlpe", "posix_spawn", "posix_spawnp",
              "P_WAIT", "P_NOWAIT"}
# ctypes calls C (as load_inline's C++ does; the filter judges its system
# calls), but not CPython's own API: that is patching the worker's objects
CTYPES_PYTHON_API = {"pythonapi", "py_object", "PyDLL", "pydll"}
OS_PATH_ALLOWED = {"join", "dirname", "basename", "exists", "isdir", "isfile", "isabs", "abspath",
                   "realpath", "normpath", "relpath", "split", "splitext", "expanduser", "getsize",
                   "getmtime", "sep"}
# a module reached as an attribute of another (torch.os.system, torch.sys.modules)
MODULE_ATTRS = {"os", "sys", "subprocess", "socket", "ctypes", "builtins", "importlib", "gc",
                "inspect", "threading", "multiprocessing", "posix", "pty", "io", "mmap", "pickle",
                "marshal", "runpy", "asyncio", "concurrent", "shutil"}
# getattr by another name: a string becomes an attribute (operator's getters
# take dotted paths, "os.system"), or code (typing evaluates string annotations)
REFLECTION_NAMES = {"attrgetter", "methodcaller", "get_type_hints", "ForwardRef"}
# private helpers of torch.nn.init that KernelBench's own modules call
PRIVATE_ALLOWED = {"_calculate_fan_in_and_fan_out", "_calculate_correct_fan"}
# attribute names that create streams or graphs, switch devices or time things
# (CUDA events are allowed: they synchronise; the worker times with its own)
STREAM_ATTRS = {"Stream": "creates its own CUDA stream", "stream": "switches CUDA streams",
                "set_stream": "switches CUDA streams", "ExternalStream": "uses a foreign CUDA stream",
                "graph": "captures CUDA graphs", "CUDAGraph": "captures CUDA graphs",
                "graphs": "captures CUDA graphs", "do_bench": "times itself",
                "testing": "uses triton.testing (timing is the judge's)",
                "set_device": "switches CUDA devices", "device_count": None}
# torch functions that allocate, describe or configure, never compute
TORCH_ALLOWED_CALLS = {
    "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like",
    "full", "full_like", "device", "Size", "dtype", "is_tensor", "no_grad", "inference_mode",
    "cdiv", "finfo", "iinfo", "cuda.current_stream", "cuda.current_device",
    "cuda.get_device_properties", "cuda.is_available", "cuda.get_device_capability",
    "nn.Module", "nn.Parameter", "nn.Linear", "nn.Conv2d", "nn.ParameterList", "nn.ModuleList",
    "utils.cpp_extension.load_inline", "get_default_dtype", "manual_seed",
    "set_float32_matmul_precision", "get_float32_matmul_precision", "set_grad_enabled",
    "is_grad_enabled", "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
    "is_floating_point", "numel",
}
# torch settings a candidate may assign to: they change how torch's own
# operators run in the candidate's process (the reference runs elsewhere)
TORCH_SETTINGS_PREFIX = "torch.backends."
# in CUDA source strings (load_inline): names that mean a vendor library
LIB_WORDS = {"cublas": "cuBLAS", "cudnn": "cuDNN", "cutlass": "CUTLASS", "thrust": "Thrust",
             "cufft": "cuFFT", "at::matmul": "PyTorch", "torch::matmul": "PyTorch",
             "at::mm": "PyTorch", "torch::mm": "PyTorch", "at::native": "PyTorch"}
# in CUDA source strings: calls the C track's symbol policy rejects, but
# those the seccomp filter refuses at run time (fork, exec*, system, popen,
# posix_spawn, socket, ptrace)
NATIVE_BANNED = ("pthread_create", "dlopen", "dlsym", "mmap", "mprotect", "syscall",
                 "kill", "fopen", "clock_gettime", "gettimeofday",
                 "cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority",
                 "cudaEventElapsedTime", "cudaIpcOpenMemHandle", "cudaLaunchHostFunc",
                 "cudaDeviceReset", "cudaGetDriverEntryPoint", "cuGetProcAddress")


class Policy(Exception):
    pass


def _dotted(node):
    """'torch.nn.functional.softmax' for an Attribute/Name chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _root(node):
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.value if not isinstance(node, ast.Call) else node.func
    return node.id if isinstance(node, ast.Name) else None


_MATCH_BINDERS = tuple(getattr(ast, n) for n in ("MatchAs", "MatchStar", "MatchMapping") if hasattr(ast, n))


def _is_main_test(test):
    """__name__ == "__main__" (either way round)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    a, b = test.left, test.comparators[0]
    for x, y in ((a, b), (b, a)):
        if isinstance(x, ast.Name) and x.id == "__name__" and isinstance(y, ast.Constant) and \
                y.value == "__main__":
            return True
    return False


def _is_jit(fn):
    for d in fn.decorator_list:
        name = _dotted(d.func if isinstance(d, ast.Call) else d) or ""
        if name.split(".")[-1] in ("jit", "autotune", "heuristics"):
            return True
    return False


def static_check(source, backend, entry):
    """The static verdict on a candidate source: a dict with verdict one of
    ok, syntax (with line), reject (reason, line), fallback (reason, libs)."""
    try:
        tree = ast.parse(source, filename="candidate.py")
    except SyntaxError as e:
        return {"verdict": "syntax", "line": e.lineno or 0,
                "reason": "candidate.py:%d: SyntaxError: %s" % (e.lineno or 0, e.msg)}
    except (ValueError, RecursionError) as e:
        return {"verdict": "syntax", "line": 0, "reason": "candidate.py: %s" % e}
    allowed = ALLOWED_MODULES[backend]
    fallback = []
    libs = set()

    def reject(node, why):
        raise Policy("candidate.py:%d: %s" % (getattr(node, "lineno", 0), why))

    # what each imported local name stands for: "torch", "torch.nn", "os",
    # "os.path", "os.environ"... (module-level or not: a name is a name)
    alias = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    alias[a.asname] = a.name
                else:
                    alias[a.name.split(".")[0]] = a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                alias[a.asname or a.name] = node.module + "." + a.name

    def resolved(n):
        """The dotted name of an Attribute/Name chain with its head's import
        resolved ('F.softmax' -> 'torch.nn.functional.softmax'), else None."""
        d = _dotted(n)
        if not d:
            return None
        head, dot, rest = d.partition(".")
        return alias.get(head, head) + dot + rest

    parent = {}
    for node in ast.walk(tree):
        for ch in ast.iter_child_nodes(node):
            parent[id(ch)] = node

    def attr_chain(name_node):
        """The attribute names read off a Name, in order: os.path.join -> [path, join]."""
        out, cur = [], name_node
        while True:
            up = parent.get(id(cur))
            if not isinstance(up, ast.Attribute) or up.value is not cur:
                return out
            out.append(up.attr)
            cur = up

    def check_os(node, full, imported=False):
        """os, os.path and what was imported from them: paths, the environment,
        folders; not processes, signals or descriptors."""
        chain = full.split(".")[1:] + attr_chain(node)
        if chain and chain[0] == "path":
            ok = (imported and len(chain) == 1) or (len(chain) > 1 and chain[1] in OS_PATH_ALLOWED)
        else:
            ok = bool(chain) and chain[0] in OS_ALLOWED
        if not ok:
            what = "os." + ".".join(chain) if chain else "os"
            reject(node, "uses %s: a candidate may use os for paths, the environment and folders "
                   "(os.environ, os.getenv, os.path.join, os.makedirs...), not for processes, signals "
                   "or file descriptors" % what)

    def settings_assignment(node):
        """torch.backends.cudnn.benchmark = True and the like."""
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or not isinstance(node.value, ast.Constant):
            return False
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return all(isinstance(t, ast.Attribute) and (resolved(t) or "").startswith(TORCH_SETTINGS_PREFIX)
                   for t in targets)

    # docstrings are prose, not CUDA source: no word match on them
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and \
                node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant):
            docs.add(id(node.body[0].value))
    jit_nodes = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _is_jit(node):
            for sub in ast.walk(node):
                jit_nodes.add(id(sub))
    # KernelBench files carry the input generators and sometimes the
    # reference Model: the judge never calls them, so torch there is no
    # fallback (the policy's rejections still apply)
    unused = set()
    if backend == "kernelbench":
        for node in tree.body:
            if (isinstance(node, ast.FunctionDef) and node.name in ("get_inputs", "get_init_inputs")) or \
                    (isinstance(node, ast.ClassDef) and node.name == "Model"):
                for sub in ast.walk(node):
                    unused.add(id(sub))

    # code that runs at import or at construction, never in the timed call:
    # torch there makes parameters and constants, it is no fallback (the
    # worker counts the operators each call runs).  A lambda's body runs later.
    def setup(n):
        todo = [n]
        while todo:
            cur = todo.pop()
            if isinstance(cur, ast.Lambda):
                continue
            unused.add(id(cur))
            todo.extend(ast.iter_child_nodes(cur))

    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) or item.name == "__init__":
                    setup(item)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            setup(node)
    # `if __name__ == "__main__":` blocks never run: the worker imports the file
    # as kj_candidate, and __name__ cannot be assigned (below).  Generated
    # files keep their own tests and benchmarks there (argparse, timers, sys).
    main_only = set()
    for node in tree.body:
        if isinstance(node, ast.If) and _is_main_test(node.test):
            for st in node.body:
                for sub in ast.walk(st):
                    main_only.add(id(sub))
    try:
        for node in ast.walk(tree):
            if id(node) in main_only:
                continue
            # names bound without a Name node: import ... as, except ... as, match captures
            bound = [getattr(node, "asname", None)] if isinstance(node, ast.alias) else \
                [getattr(node, "name", None), getattr(node, "rest", None)] \
                if isinstance(node, (ast.ExceptHandler,) + _MATCH_BINDERS) else []
            for b in bound:
                if isinstance(b, str) and b.startswith("__"):
                    reject(node, "binds %s: interpreter internals are not allowed" % b)
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name not in allowed and not a.name.startswith(ALLOWED_MODULE_PREFIXES):
                        reject(node, "imports %s: only %s may be imported" %
                               (a.name, ", ".join(sorted(allowed))))
            elif isinstance(node, ast.ImportFrom):
                mod = node.module or ""
                if node.level or (mod not in allowed and not mod.startswith(ALLOWED_MODULE_PREFIXES)):
                    reject(node, "imports from %s: only %s may be imported" %
                           (mod or ".", ", ".join(sorted(allowed))))
                for a in node.names:
                    if a.name == "*":
                        reject(node, "uses 'from %s import *'" % mod)
                    if a.name.startswith("_"):
                        reject(node, "imports the private name %s.%s" % (mod, a.name))
                    if a.name in REFLECTION_NAMES:
                        reject(node, "imports %s.%s: dynamic code and reflection are not allowed" % (mod, a.name))
                    if a.name in MODULE_ATTRS and mod != a.name:
                        reject(node, "imports %s.%s: reaching the module %s through another is not allowed" %
                               (mod, a.name, a.name))
                    if mod == "ctypes" and a.name in CTYPES_PYTHON_API:
                        reject(node, "imports ctypes.%s: CPython's own API (the worker's objects) is not "
                               "allowed" % a.name)
                    full = mod + "." + a.name
                    if mod in ("os", "os.path"):
                        check_os(node, full, imported=True)
                    if a.name in STREAM_ATTRS and STREAM_ATTRS[a.name]:
                        reject(node, "imports %s: %s" % (full, STREAM_ATTRS[a.name]))
            elif isinstance(node, ast.Name):
                if node.id in BANNED_BUILTINS:
                    reject(node, "uses %s: dynamic code and reflection are not allowed" % node.id)
                if node.id.startswith("__") and node.id not in ALLOWED_DUNDER_NAMES:
                    reject(node, "uses %s: interpreter internals are not allowed" % node.id)
                if node.id.startswith("__") and not isinstance(node.ctx, ast.Load):
                    reject(node, "assigns to %s: interpreter internals are not allowed" % node.id)
                full = alias.get(node.id, "")
                if isinstance(node.ctx, ast.Load) and (full == "os" or full.startswith("os.")):
                    check_os(node, full)
            elif isinstance(node, ast.Attribute):
                if node.attr.startswith("_") and node.attr not in ALLOWED_DUNDER_NAMES:
                    if node.attr in PRIVATE_ALLOWED and resolved(node.value) == "torch.nn.init":
                        pass
                    elif not (isinstance(node.value, ast.Name) and node.value.id in ("self", "ctx")
                              and not node.attr.startswith("__")):
                        reject(node, "uses the private attribute .%s: internals of the harness, "
                               "torch or the interpreter are not allowed" % node.attr)
                why = STREAM_ATTRS.get(node.attr)
                if why and id(node) not in jit_nodes:
                    reject(node, "uses .%s: %s" % (node.attr, why))
                if node.attr in ("f_locals", "f_globals", "f_back", "gi_frame", "cr_frame",
                                 "tb_frame", "co_code"):
                    reject(node, "uses .%s: frames are not allowed" % node.attr)
                if node.attr in REFLECTION_NAMES:
                    reject(node, "uses .%s: dynamic code and reflection are not allowed" % node.attr)
                if node.attr in MODULE_ATTRS and id(node) not in jit_nodes and \
                        resolved(node.value) != node.attr:
                    reject(node, "uses %s: reaching the module %s through another is not allowed" %
                           (_dotted(node) or "." + node.attr, node.attr))
                if node.attr in CTYPES_PYTHON_API and (resolved(node.value) or "").startswith("ctypes"):
                    reject(node, "uses %s: CPython's own API through ctypes (the worker's objects) is not "
                           "allowed" % (_dotted(node) or node.attr))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if node.name.startswith("__") and node.name != "__init__":
                    reject(node, "defines %s: overriding interpreter or torch hooks is not "
                           "allowed" % node.name)
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
                targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
                if settings_assignment(node):
                    targets = []
                for tg in targets:
                    if isinstance(tg, ast.Subscript) and resolved(tg.value) == "os.environ":
                        continue  # os.environ["X"] = "1": the worker's environment, in the jail
                    for sub in ast.walk(tg):
                        if isinstance(sub, ast.Attribute) and id(sub) not in jit_nodes:
                            root = _root(sub)
                            if root not in ("self", "ctx"):
                                reject(node, "assigns to %s: changing modules or classes "
                                       "(monkeypatching) is not allowed" % (_dotted(sub) or "an attribute"))
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and backend == "kernelbench" \
                    and id(node) not in docs:
                text = node.value
                low = text.lower()
                for w, lib in LIB_WORDS.items():
                    if w in low:
                        libs.add(lib)
                        fallback.append("CUDA source mentions %s" % w)
                for w in NATIVE_BANNED:
                    if re.search(r"\b%s\s*\(" % re.escape(w), text):
                        reject(node, "CUDA source calls %s: not allowed in a candidate (as on the "
                               "CUDA track)" % w)
            if isinstance(node, ast.Call) and id(node) not in jit_nodes:
                name = _dotted(node.func)
                if name and name.split(".")[-1] == "Stream":
                    reject(node, "calls %s: %s" % (name, STREAM_ATTRS["Stream"]))
                full = resolved(node.func)
                if full and full.startswith("torch.") and id(node) not in unused:
                    # F.softmax where F = torch.nn.functional, nn.Linear...
                    norm = full[len("torch."):]
                    if norm not in TORCH_ALLOWED_CALLS and not norm.startswith(("cuda.", "nn.", "backends.")) \
                            or norm.startswith("nn.functional."):
                        fallback.append("calls torch %s" % norm)
                        libs.add("PyTorch")
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult) and id(node) not in jit_nodes \
                    and id(node) not in unused:
                fallback.append("uses the @ operator on tensors")
                libs.add("PyTorch")
    except Policy as p:
        return {"verdict": "reject", "reason": str(p)}
    # the entry point must exist at top level
    names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    names |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets
              if isinstance(t, ast.Name)}
    want = entry if backend == "triton" else "ModelNew"
    if want and want not in names:
        return {"verdict": "missing", "reason": "candidate.py defines no top-level %s "
                "(the %s backend calls it)" % (want, backend)}
    if fallback:
        return {"verdict": "fallback", "reason": "torch or library code does the computation: " +
                "; ".join(sorted(set(fallback))[:6]), "libs": ",".join(sorted(libs))}
    return {"verdict": "ok"}


# ---- probe ----

def probe(backend):
    out = {"ok": False, "python": sys.version.split()[0]}
    try:
        import torch
        out["torch"] = torch.__version__
    except Exception as e:  # noqa: BLE001 - any import failure is the answer
        out["error"] = "torch is not importable by %s: %s: %s" % (sys.executable, type(e).__name__, e)
        return out
    if backend == "triton":
        try:
            import triton
            out["triton"] = triton.__version__
        except Exception as e:  # noqa: BLE001
            out["error"] = "triton is not importable by %s: %s: %s" % (sys.executable, type(e).__name__, e)
            return out
    try:
        import cupy
        out["cupy"] = cupy.__version__
    except Exception as e:  # noqa: BLE001
        out["error"] = "cupy (CUDA IPC) is not importable by %s: %s: %s" % (sys.executable, type(e).__name__, e)
        return out
    try:
        if not torch.cuda.is_available():
            out["error"] = "torch sees no CUDA device (torch %s)" % torch.__version__
            return out
        out["device"] = torch.cuda.get_device_name(0)
    except Exception as e:  # noqa: BLE001
        out["error"] = "torch cannot use CUDA: %s" % e
        return out
    out["ok"] = True
    return out


# ---- the worker ----

def _eval_dim(expr, dims):
    """Evaluates a shape expression (judge-written: ints, names, + - * // **)."""
    def ev(n):
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return n.value
        if isinstance(n, ast.Name):
            return dims[n.id]
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return -ev(n.operand)
        if isinstance(n, ast.BinOp):
            a, b = ev(n.left), ev(n.right)
            if isinstance(n.op, ast.Add):
                return a + b
            if isinstance(n.op, ast.Sub):
                return a - b
            if isinstance(n.op, ast.Mult):
                return a * b
            if isinstance(n.op, ast.FloorDiv):
                return a // b if b else 0
            if isinstance(n.op, ast.Pow):
                return a ** b
        raise ValueError("bad shape expression %r" % expr)
    return ev(ast.parse(expr, mode="eval"))


def _assignment_lines(source, name):
    """Where the source assigns to an attribute (or a name) called name: the
    likely site of a replacement the worker found after the fact.  A message,
    not evidence: "candidate.py:23" entries, at most three."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return []
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for tg in targets:
                for sub in ast.walk(tg):
                    if (isinstance(sub, ast.Attribute) and sub.attr == name) or \
                            (isinstance(sub, ast.Name) and sub.id == name):
                        lines.add(node.lineno)
    return ["candidate.py:%d" % n for n in sorted(lines)[:3]]


def _candidate_line(tb, path):
    import traceback
    line = 0
    for fr in traceback.extract_tb(tb):
        if fr.filename == path:
            line = fr.lineno
    return line


def _describe(ex, tb, path):
    """An exception of the candidate's as one line: its type, the candidate's
    line, its message; a compiler's (Triton, load_inline) as "compile error:
    ..." (the judge maps that prefix to compile_error)."""
    line = _candidate_line(tb, path)
    where = " (candidate.py:%d)" % line if line else ""
    name = type(ex).__name__
    text = str(ex).strip().splitlines()
    text = text[-1] if text else ""
    mod = type(ex).__module__ or ""
    if "CompilationError" in name or mod.startswith("triton.compiler") or \
            "Error building extension" in str(ex) or "Error compiling objects" in str(ex):
        lines = [ln.strip() for ln in str(ex).strip().splitlines() if ln.strip()]
        # Triton's message: "at L:C:", the source, a caret, the error last
        head = lines[-1] if lines else ""
        rest = " | ".join(lines[:-1])
        return "compile error: %s%s: %s%s" % (name, where, head[:300], (" | " + rest)[:150] if rest else "")
    return "%s%s: %s" % (name, where, text[:400])


# ---- the sandbox of the timed process (docs/kernelbench.md, "The build step
# and the sandbox") ----
# The judge builds the seccomp filter (src/judge/pyfilter.c: a denylist of
# exec, fork, sockets but AF_UNIX, ptrace, namespaces, mounts, bpf, perf
# events, keyrings, io_uring...) and stages it as raw BPF; the worker
# installs it on every thread at the end of its trusted SETUP, and the judge
# reads /proc/PID/task/*/status itself before it sends LOAD.  The filter is
# the enforcement; the audit hook only names what it refused.

_SECCOMP_NR = {"x86_64": 317, "aarch64": 277}  # seccomp(2)
_PR_SET_NO_NEW_PRIVS = 38
_SECCOMP_SET_MODE_FILTER, _SECCOMP_FILTER_FLAG_TSYNC = 1, 1
# libc functions whose lookup through ctypes names an attempt the filter refuses
_CTYPES_BLOCKED = {"execve", "execv", "execvp", "execvpe", "execl", "execlp", "execle", "fexecve",
                   "execveat", "fork", "vfork", "_Fork", "clone", "clone3", "system", "popen",
                   "posix_spawn", "posix_spawnp", "syscall", "ptrace", "socket", "unshare", "setns",
                   "mount", "process_vm_readv", "process_vm_writev"}


def install_filter(path):
    """Installs the seccomp filter in the file at path (raw BPF: struct
    sock_filter[]) on every thread of this process (TSYNC), after no new
    privileges.  Returns None, or a text saying why it could not."""
    import ctypes
    try:
        with open(path, "rb") as f:
            prog = f.read()
    except OSError as e:
        return "cannot read the seccomp filter %s: %s" % (path, e.strerror)
    if not prog or len(prog) % 8 or len(prog) // 8 > 4096:
        return "%s is not a BPF program (%d bytes)" % (path, len(prog))
    machine = os.uname().machine
    nr = _SECCOMP_NR.get(machine)
    if nr is None:
        return "no seccomp(2) system call number is known for %s" % machine
    libc = ctypes.CDLL(None, use_errno=True)

    class Fprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
    buf = ctypes.create_string_buffer(prog, len(prog))
    fp = Fprog(len(prog) // 8, ctypes.cast(buf, ctypes.c_void_p))
    zero = ctypes.c_ulong(0)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, ctypes.c_ulong(1), zero, zero, zero) != 0:
        return "prctl(PR_SET_NO_NEW_PRIVS) failed: %s" % os.strerror(ctypes.get_errno())
    r = libc.syscall(ctypes.c_long(nr), ctypes.c_long(_SECCOMP_SET_MODE_FILTER),
                     ctypes.c_long(_SECCOMP_FILTER_FLAG_TSYNC), ctypes.byref(fp))
    if r < 0:
        return "seccomp(SECCOMP_SET_MODE_FILTER) failed: %s" % os.strerror(ctypes.get_errno())
    if r > 0:
        return "seccomp(TSYNC): thread %d could not take the filter" % r
    return None


def watch_blocked(path_of_candidate, record):
    """An audit hook (PEP 578, not removable) that appends to record what
    the filter refuses when the candidate's Python asks for it: os.system,
    os.fork, os.exec*, os.posix_spawn, subprocess, a socket other than
    AF_UNIX, a ctypes lookup of execve and its kind.  It raises nothing: the
    filter refuses; the worker then fails the call with what was recorded
    and where (the candidate's line, else the library's file)."""
    import socket as _socket
    af_unix = _socket.AF_UNIX
    getframe = sys._getframe

    def where():
        """The candidate's line, and the library the candidate called there
        when the attempt was made inside it (triton/runtime/jit.py, say)."""
        f = getframe(2)
        other = first = None
        while f is not None:
            name = f.f_code.co_filename
            if name == path_of_candidate():
                return "candidate.py:%d%s" % (f.f_lineno, " (in %s)" % other if other else "")
            if not name.endswith("kjudge_pyworker.py"):
                # the frame nearest the candidate's: the library it called
                other = "%s:%d" % ("/".join(name.split("/")[-2:]), f.f_lineno)
                first = first or other
            f = f.f_back
        return first or "?"

    def hook(event, args):
        try:
            note(event, args)
        except Exception:  # noqa: BLE001 - a hook that raises would fail the audited call
            pass

    def txt(x):
        return x.decode("utf-8", "replace") if isinstance(x, bytes) else x

    def note(event, args):
        what = None
        if event == "os.system":
            what = "os.system(%r)" % (txt(args[0]),)
        elif event in ("os.fork", "os.forkpty"):
            what = event + "()"
        elif event in ("os.exec", "os.posix_spawn"):
            what = "%s(%r)" % (event, txt(args[0]))
        elif event == "subprocess.Popen":
            what = "subprocess.Popen(%r)" % (args[1] if args[1] is not None else txt(args[0]),)
        elif event == "socket.__new__":
            if len(args) > 1 and isinstance(args[1], int) and args[1] != af_unix and args[1] != -1:
                what = "socket.socket(family=%d)" % args[1]
        elif event == "ctypes.dlsym":
            if len(args) > 1 and isinstance(args[1], str) and args[1] in _CTYPES_BLOCKED:
                what = "ctypes lookup of %s" % args[1]
        if what is not None and len(record) < 8:
            record.append("%s at %s" % (what[:160], where()))

    sys.addaudithook(hook)


def blocked_text(record):
    """The reason a call fails after the filter refused something, or None."""
    if not record:
        return None
    text = "blocked by the sandbox: %s (the timed process may not run programs, start processes or open " \
        "network sockets: the seccomp filter refuses them; builds run in the build step before it)" % \
        "; ".join(record[:3])
    del record[:]
    return text


def _set_caches(cache):
    """Triton's and torch's build caches in this candidate's build folder
    (keyed by its source's hash: a second judgement of the source reuses
    them).  The same for the build step and the timed process."""
    if cache:
        os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(cache, "triton"))
        os.environ.setdefault("TORCH_EXTENSIONS_DIR", os.path.join(cache, "torch_extensions"))
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    sys.dont_write_bytecode = True


def _warm_triton():
    """Compiles and launches a one-line kernel of the worker's own, so that
    what Triton runs programs for once per process (ptxas --version for its
    cache key, ldconfig for libcuda, the C compiler for its driver module)
    happens here, while exec is allowed.  The candidate's kernels come from
    the cache the build step filled."""
    import torch
    import triton
    import triton.language
    globals()["tl"] = triton.language  # the kernel's body names tl

    def kj_warm(p):
        i = tl.arange(0, 16)  # noqa: F821 - the module's global, set above
        tl.store(p + i, i)  # noqa: F821

    k = triton.jit(kj_warm)
    t = torch.empty(16, dtype=torch.int32, device="cuda")
    k[(1,)](t)
    torch.cuda.synchronize()


def _load_inline_prebuilt():
    """In the timed process, load_inline loads the extension the build step
    built and never runs ninja (in a fresh process torch would run it, and
    the C++ compiler's --version, even for a current build: exec is refused
    there).  An extension the build step did not build is a build error."""
    import torch.utils.cpp_extension as cpp
    if not hasattr(cpp, "_write_ninja_file_and_build_library"):
        return "this torch has no _write_ninja_file_and_build_library: load_inline would build in the " \
            "timed process, where exec is refused"

    def prebuilt(*args, **kw):
        name = kw.get("name", args[0] if args else "")
        bdir = kw.get("build_directory", args[6] if len(args) > 6 else "")
        if bdir and os.path.isfile(os.path.join(bdir, "%s.so" % name)):
            return None
        raise RuntimeError("Error building extension '%s': the build step left no %s.so in %s, and the timed "
                           "process cannot run ninja or nvcc" % (name, name, bdir))
    cpp._write_ninja_file_and_build_library = prebuilt
    return None


def prepare(backend, building, uses=()):
    """Trusted, before any code of the candidate's: what torch and Triton
    would otherwise run programs for in the candidate's first call.  uses:
    what the judge found named in the source ("triton", "inline": load_inline),
    so that a candidate that needs neither pays for neither.  In the build
    step (building) load_inline builds; in the timed process it only loads.
    Returns a note (a warning for the log) or None."""
    notes = []
    have_triton = False
    if backend == "triton" or "triton" in uses:
        try:
            import triton  # noqa: F401
            have_triton = True
        except Exception:  # noqa: BLE001 - the candidate's import will say it
            pass
    if have_triton:
        try:
            _warm_triton()
        except Exception as e:  # noqa: BLE001 - the candidate's own first call will say more
            notes.append("Triton's warm-up failed: %s: %s" % (type(e).__name__, str(e)[:200]))
    if backend == "kernelbench" and "inline" in uses:
        try:
            import torch.utils.cpp_extension  # noqa: F401 - its module-level probes run here
        except Exception as e:  # noqa: BLE001 - the candidate's import will say it
            notes.append("torch.utils.cpp_extension: %s: %s" % (type(e).__name__, e))
            return "; ".join(notes)
        if not building:
            why = _load_inline_prebuilt()
            if why:
                notes.append(why)
    return "; ".join(notes) or None


def _warm_tensors(torch, abi, dims):
    """The task's tensors at one shape: floats drawn from a normal
    distribution, integers and booleans zero (an index that is always in
    range), outputs zero."""
    out = []
    for a in abi.get("args", []):
        shape = [_eval_dim(x, dims) for x in a["shape"]]
        dt = getattr(torch, DTYPES[a["dtype"]])
        if dt.is_floating_point and a["kind"] != "output":
            out.append(torch.randn(shape, device="cuda").to(dt))
        else:
            out.append(torch.zeros(shape, dtype=dt, device="cuda"))
    return out


def build(path, backend, abi, cache, entry, result_fd, uses=(), call_limit_s=60):
    """The build step (docs/kernelbench.md, "The build step and the sandbox"):
    run by the judge in the candidate's jail before the timed process, with
    exec allowed, no network, and writes only to the candidate's build folder
    (and the jail's /tmp).  It imports the candidate (load_inline builds
    there), builds ModelNew (kernelbench), then calls the candidate once on
    each shape the judge will call (abi["warm"]: dim values in abi["syms"]
    order) so that Triton compiles every specialisation into the cache; a
    call that fails is the timed process's to report.  Writes JSON lines on
    result_fd, the last one {"verdict": "ok" | "compile_error" | "import_error"
    | "skipped" | "env", "reason": ...}.  The candidate can write on that
    descriptor too: a forged line only decides whether its own compile error
    is reported now or by the timed process."""
    import signal

    def result(**d):
        try:
            os.write(result_fd, (json.dumps(d) + "\n").encode("utf-8", "replace"))
        except OSError:
            pass

    _set_caches(cache)
    try:
        import torch
        if backend == "triton":
            import triton  # noqa: F401
    except Exception as e:  # noqa: BLE001
        result(verdict="env", reason="kjudge-env: cannot import torch%s: %s: %s" % (
            "/triton" if backend == "triton" else "", type(e).__name__, e))
        return 0
    note = prepare(backend, building=True, uses=uses)
    result(phase="import", note=note or "")
    try:
        with open(path, "r", encoding="utf-8") as f:
            src = f.read()
    except OSError as e:
        result(verdict="env", reason="cannot read %s: %s" % (path, e.strerror))
        return 0
    sc = static_check(src, backend, entry)
    if sc["verdict"] in ("reject", "syntax", "missing"):
        result(verdict="skipped", reason=sc.get("reason", ""))
        return 0
    path = os.path.abspath(path)
    import importlib.util
    fn, model, params = None, None, []
    try:
        spec = importlib.util.spec_from_file_location("kj_candidate", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules["kj_candidate"] = mod
        with torch.no_grad():
            spec.loader.exec_module(mod)
            if backend == "triton":
                fn = vars(mod).get(entry)
            else:
                cls = vars(mod).get("ModelNew")
                init = vars(mod).get("get_init_inputs")
                kb = abi.get("kb")
                if cls is not None and kb is not None:
                    torch.manual_seed(kb.get("seed", KB_SEED))
                    model = cls(*kb.get("init", [])).cuda()
                elif cls is not None:
                    model = cls(*(list(init()) if callable(init) else [])).cuda().eval()
                    params = list(model.parameters())
    except BaseException as ex:  # noqa: BLE001 - SystemExit too
        text = _describe(ex, sys.exc_info()[2], path)
        if text.startswith("compile error: "):
            print(str(ex), file=sys.stderr, flush=True)  # the compiler's whole message, for the log
        result(verdict="compile_error" if text.startswith("compile error: ") else "import_error", reason=text)
        return 0
    result(phase="warm")
    call = fn if backend == "triton" else model
    syms = abi.get("syms", [])
    kinds = [a["kind"] for a in abi.get("args", [])]
    done = 0
    for vals in abi.get("warm", []) if callable(call) else []:
        dims = dict(zip(syms, vals))
        try:
            ts = _warm_tensors(torch, abi, dims)
            signal.alarm(call_limit_s)  # a hung kernel ends the step (SIGALRM): the timed call reports it
            with torch.no_grad():
                if backend == "triton":
                    call(*ts, *[dims[x] for x in syms])
                else:
                    for p, t in zip(params, [t for t, k in zip(ts, kinds) if k == "param"]):
                        p.data = t
                    ins = [t for t, k in zip(ts, kinds) if k == "input"]
                    call(*(kb_forward_args(abi["kb"], ins) if abi.get("kb") is not None else ins))
            torch.cuda.synchronize()
            signal.alarm(0)
        except BaseException as ex:  # noqa: BLE001
            signal.alarm(0)
            text = _describe(ex, sys.exc_info()[2], path)
            if text.startswith("compile error: "):
                print(str(ex), file=sys.stderr, flush=True)
                result(verdict="compile_error", reason=text)
            else:
                result(verdict="ok", warmed=done, note="the warm-up stopped at %s: %s" % (vals, text))
            return 0
        del ts
        done += 1
    result(verdict="ok", warmed=done, complete=True)
    return 0


def request_frame(m, anc, hdr, sizes):
    """A request the judge sent (its bytes m, its ancillary data anc), as the
    candidate's worker and the reference worker read it: closes any
    descriptor it carried, then (type, seq, None), or (None, None, exit
    code) when the judge hung up (EXIT_DONE) or the frame is malformed:
    shorter than its header, of a size its type does not have, or a type
    only a worker sends."""
    import socket
    for lvl, typ, data in anc:
        if lvl == socket.SOL_SOCKET and typ == socket.SCM_RIGHTS:
            for k in range(len(data) // 4):
                os.close(struct.unpack_from("<i", data, 4 * k)[0])
    if not m:
        return None, None, EXIT_DONE
    if len(m) < 8:
        return None, None, EXIT_BAD_REQUEST
    typ, seq = hdr.unpack_from(m)
    if sizes.get(typ) != len(m) or typ in (HELLO, OK, ERROR):
        return None, None, EXIT_BAD_REQUEST
    return typ, seq, None


def serve(backend, abi, cache, trace=False, seccomp=None, uses=(), abi_file=None):
    import socket
    import time
    try:
        sock = socket.socket(fileno=WIRE_FD)
    except OSError:
        print("kjudge_pyworker: fd 3 is not the judge's socket; the judge starts this worker",
              file=sys.stderr)
        return EXIT_NOT_JUDGED
    # bound before any candidate code exists: nothing it replaces reaches these
    recvmsg, sendall = sock.recvmsg, sock.send
    s_hello, s_ok, s_err, s_call = STRUCTS[HELLO], STRUCTS[OK], STRUCTS[ERROR], STRUCTS[CALL]
    s_load, s_arena, s_arena_cuda = STRUCTS[LOAD], STRUCTS[ARENA], STRUCTS[ARENA_CUDA]
    sizes = {t: s.size for t, s in STRUCTS.items()}
    hdr = struct.Struct("<II")
    clock = time.perf_counter_ns
    os_exit = os._exit
    _set_caches(cache)
    blocked = []  # what the filter refused, named by the audit hook

    def send(b):
        try:
            sendall(b)
        except OSError:
            os_exit(EXIT_NO_REPLY)

    def reply_ok(seq, w=-1, g=-1, d=-1):
        send(s_ok.pack(OK, seq, w, g, d))

    def reply_err(seq, text, cuda_error=0):
        b = text.encode("utf-8", "replace")[:WIRE_TEXT_MAX - 1]
        send(s_err.pack(ERROR, seq, cuda_error, b))
        if cuda_error:
            os_exit(EXIT_CUDA)

    send(s_hello.pack(HELLO, 0, WIRE_VERSION, os.getpid()))

    args_spec = abi.get("args", [])
    syms = abi.get("syms", [])
    kb = abi.get("kb")
    # a pre-warmed worker (abi_file) starts before its task is known: the
    # judge writes the task's ABI into that file once it gives the worker a
    # candidate, and the worker reads it at the next request, before LOAD
    # (the candidate may rewrite the file later: it is never read again)
    late = {"abi_file": abi_file}

    def abi_ready():
        """Returns None once the ABI is known, else why not."""
        nonlocal args_spec, syms, kb
        path = late["abi_file"]
        if not path:
            return None
        if st["loaded"]:
            return "the task's ABI came after LOAD"
        try:
            with open(path, "r", encoding="utf-8") as f:
                got = json.loads(f.read())
        except (OSError, ValueError) as e:
            return "cannot read the task's ABI %s: %s" % (path, e)
        if not isinstance(got, dict):
            return "the task's ABI in %s is not an object" % path
        args_spec, syms, kb = got.get("args", []), got.get("syms", []), got.get("kb")
        late["abi_file"] = None
        return None
    st = {"env": None, "fn": None, "loaded": False, "arena": None, "arena_ptr": 0, "arena_size": 0,
          "device": None, "counts": {}, "nptr": 0, "ndim": 0, "path": None, "src": None, "load_seen": None}

    def env_setup(device):
        """Imports and snapshots; once.  Returns an error text or None."""
        if st["env"] is not None:
            if device != st["device"]:
                return "the worker already uses device %d, not %d" % (st["device"], device)
            return None
        try:
            import torch
            import cupy
            from cupy.cuda import runtime as rt
            from torch.utils._python_dispatch import TorchDispatchMode
            if backend == "triton":
                import triton  # noqa: F401  (imported before the candidate can patch it)
        except Exception as e:  # noqa: BLE001
            return "kjudge-env: cannot import torch/cupy%s: %s: %s" % (
                "/triton" if backend == "triton" else "", type(e).__name__, e)
        try:
            torch.cuda.set_device(device)
            cupy.cuda.Device(device).use()
            stream = rt.streamCreateWithFlags(1)  # cudaStreamNonBlocking
            ext = torch.cuda.ExternalStream(stream, device=device)
            torch.cuda.set_stream(ext)
            ev0 = rt.eventCreate()
            ev1 = rt.eventCreate()
        except Exception as e:  # noqa: BLE001
            return "CUDA setup failed: %s: %s" % (type(e).__name__, e)
        counts = st["counts"]
        view_ops = {"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided",
                    "view", "_unsafe_view", "reshape", "as_strided", "t", "transpose", "permute",
                    "expand", "squeeze", "unsqueeze", "select", "slice", "split",
                    "split_with_sizes", "unbind", "detach", "alias", "lift_fresh", "zero_", "fill_",
                    "zeros", "zeros_like", "ones", "ones_like", "full", "full_like", "new_zeros",
                    "new_ones", "new_full", "sym_size", "sym_stride", "sym_numel",
                    "sym_storage_offset", "size", "stride", "numel", "dim", "is_same_size",
                    "_local_scalar_dense", "resolve_conj", "resolve_neg", "contiguous",
                    "is_contiguous", "view_as", "expand_as", "flatten", "unflatten", "narrow",
                    "squeeze_", "unsqueeze_", "record_stream", "_reshape_alias"}

        class Count(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                name = func._overloadpacket.__name__
                if name not in view_ops:
                    counts[str(func)] = counts.get(str(func), 0) + 1
                return func(*args, **(kwargs or {}))

        # the first operator under a dispatch mode imports parts of torch
        # (seconds): pay it here, in the LOAD, not in the first call
        try:
            with Count():
                torch.empty(8, device="cuda").zero_().view(2, 4)
        except Exception as e:  # noqa: BLE001
            return "CUDA setup failed (dispatch mode): %s: %s" % (type(e).__name__, e)
        counts.clear()
        tensor = torch.Tensor
        watched = []
        for owner, names in ((torch.cuda, ("Event", "synchronize", "current_stream", "set_stream",
                                           "Stream", "stream", "ExternalStream")),
                             (torch.cuda.Event, ("record", "elapsed_time", "synchronize")),
                             (torch, ("empty", "as_tensor", "Tensor")),
                             (tensor, ("copy_", "data_ptr", "view", "__setitem__", "__getitem__")),
                             (rt, ("eventRecord", "eventSynchronize", "eventElapsedTime",
                                   "deviceSynchronize", "memsetAsync", "streamSynchronize",
                                   "ipcOpenMemHandle", "ipcCloseMemHandle")),
                             (time, ("perf_counter_ns", "perf_counter", "monotonic", "monotonic_ns",
                                     "time", "time_ns")),
                             (os, ("_exit", "write", "getpid")),
                             (socket.socket, ("send", "sendmsg", "recvmsg"))):
            for n in names:
                if hasattr(owner, n):
                    watched.append((owner, n, getattr(owner, n)))
        if backend == "triton":
            import triton
            import triton.language  # noqa: F401
            for n in ("jit", "autotune", "Config", "cdiv"):
                if hasattr(triton, n):
                    watched.append((triton, n, getattr(triton, n)))
        import builtins
        for n in ("len", "isinstance", "type", "int", "range", "print", "tuple", "list", "sum",
                  "min", "max", "abs", "float", "str", "hasattr", "__import__"):
            watched.append((builtins, n, getattr(builtins, n)))
        # what torch and Triton would run programs for at the candidate's
        # first call happens now, while exec is allowed
        note = prepare(backend, building=False, uses=uses)
        if note:
            print("kjudge-pyworker: " + note, file=sys.stderr, flush=True)
        main_mod = sys.modules[__name__]
        snapshot = dict(vars(main_mod))
        st["env"] = {
            "torch": torch, "rt": rt, "cupy": cupy, "stream": stream, "ext": ext, "ev0": ev0,
            "ev1": ev1,
            "mode": Count, "tensor": tensor, "watched": watched, "snapshot": snapshot,
            "main": main_mod, "cur_raw": torch._C._cuda_getCurrentRawStream,
            # float8 since torch 2.1: with an older torch a task naming it
            # fails at its first call (the dtype missing below), others run
            "dtypes": {k: getattr(torch, v) for k, v in DTYPES.items() if hasattr(torch, v)},
            "record": rt.eventRecord, "esync": rt.eventSynchronize, "elapsed": rt.eventElapsedTime,
            "dsync": rt.deviceSynchronize, "memset": rt.memsetAsync, "ssync": rt.streamSynchronize,
            "cuda_err": rt.CUDARuntimeError, "dispatch_len": torch._C._len_torch_dispatch_stack,
            "getitem": dict.get, "isinst": isinstance, "typ": type, "ident": id,
        }
        st["device"] = device
        if seccomp:
            # the end of the trusted part: every thread under the filter
            # (the judge checks /proc itself before LOAD), then the hook
            # that names what it refuses
            why = install_filter(seccomp)
            if why:
                st["env"] = None
                return "sandbox: " + why
            watch_blocked(lambda: st["path"], blocked)
        return None

    def tampered():
        """What the candidate replaced, with where its source assigns that
        name (the line, when a plain assignment did it), or None."""
        e = st["env"]
        why = None
        for owner, n, orig in e["watched"]:
            cur = getattr(owner, n, None)
            if cur is not orig and cur != orig:
                why = ("%s.%s was replaced" % (getattr(owner, "__name__", "?"), n), n)
                break
        if why is None:
            snap = e["snapshot"]
            cur = vars(e["main"])
            for k, v in snap.items():
                if cur.get(k) is not v:
                    why = ("the worker's %s was replaced" % k, k)
                    break
        if why is None:
            return None
        try:
            where = _assignment_lines(st["src"] or "", why[1])
        except Exception:  # noqa: BLE001 - a message only
            where = []
        return why[0] + (" (assigned at %s)" % ", ".join(where) if where else "")

    def cuda_error_of(ex):
        e = st["env"]
        if e and isinstance(ex, e["cuda_err"]):
            return int(getattr(ex, "status", 999)) or 999
        msg = str(ex)
        if "CUDA error" in msg or "cudaError" in msg or "illegal memory access" in msg:
            return 999
        return 0

    def describe(ex, tb):
        return _describe(ex, tb, st["path"])

    def do_load(seq, m):
        _, _, nptr, ndim, cuda, device, path, symbol = s_load.unpack(m)
        path = path.split(b"\0", 1)[0].decode("utf-8", "replace")
        symbol = symbol.split(b"\0", 1)[0].decode("utf-8", "replace")
        if not cuda:
            return reply_err(seq, "the Python worker runs only on the CUDA track")
        if st["load_seen"]:
            # one candidate per process: nothing of one may meet the next
            return reply_err(seq, "this worker had a LOAD already (%s): one candidate per process" %
                             st["load_seen"])
        why = abi_ready()
        if why:
            return reply_err(seq, why)
        if nptr != len(args_spec) or ndim != len(syms):
            return reply_err(seq, "LOAD has %d tensors and %d dims, the worker's ABI %d and %d" %
                             (nptr, ndim, len(args_spec), len(syms)))
        why = env_setup(device)
        if why:
            return reply_err(seq, why)
        try:
            with open(path, "r", encoding="utf-8") as f:
                src = f.read()
        except OSError as e:
            return reply_err(seq, "cannot read %s: %s" % (path, e.strerror))
        st["src"] = src
        st["load_seen"] = path
        sc = static_check(src, backend, symbol)
        if sc["verdict"] == "reject":
            return reply_err(seq, "rejected: " + sc["reason"])
        if sc["verdict"] in ("syntax",):
            return reply_err(seq, "compile error: " + sc["reason"])
        if sc["verdict"] == "missing":
            return reply_err(seq, sc["reason"])
        st["path"] = os.path.abspath(path)
        import importlib.util
        torch = st["env"]["torch"]
        try:
            spec = importlib.util.spec_from_file_location("kj_candidate", st["path"])
            mod = importlib.util.module_from_spec(spec)
            sys.modules["kj_candidate"] = mod
            with torch.no_grad():
                spec.loader.exec_module(mod)
                if backend == "triton":
                    fn = vars(mod).get(symbol)
                    if not callable(fn):
                        return reply_err(seq, "candidate.py: %s is not a function" % symbol)
                    st["fn"] = fn
                else:
                    cls = vars(mod).get("ModelNew")
                    if cls is None:
                        return reply_err(seq, "candidate.py defines no class ModelNew")
                    init = vars(mod).get("get_init_inputs")
                    if kb is not None:
                        # a KernelBench problem file's task: the problem's
                        # init arguments under its seed (KernelBench's
                        # convention, so that the weights agree with the
                        # reference's), the module's own mode, nothing bound
                        torch.manual_seed(kb.get("seed", KB_SEED))
                        model = cls(*kb.get("init", [])).cuda()
                        params = []
                    else:
                        init_args = list(init()) if callable(init) else []
                        model = cls(*init_args).cuda().eval()
                        params = list(model.parameters())
                    want = [a for a in args_spec if a["kind"] == "param"]
                    if len(params) != len(want):
                        return reply_err(seq, "ModelNew has %d parameters (%s), the task has %d params "
                                         "(%s): they are bound in order (docs/kernelbench.md)" % (
                                             len(params), ", ".join(n for n, _ in model.named_parameters()),
                                             len(want), ", ".join(a["name"] for a in want)))
                    st["model"] = model
                    st["params"] = params
                    st["fn"] = model
        except BaseException as ex:  # noqa: BLE001 - SystemExit too
            tb = sys.exc_info()[2]
            ce = cuda_error_of(ex)
            why = blocked_text(blocked)
            if why and not ce:
                return reply_err(seq, why)
            return reply_err(seq, "cannot import the candidate: " + describe(ex, tb), ce)
        why = blocked_text(blocked)
        if why:
            return reply_err(seq, why)
        why = tampered()
        if why:
            return reply_err(seq, "rejected: the candidate's import changed the harness: %s" % why)
        st["loaded"] = True
        st["nptr"], st["ndim"] = nptr, ndim
        return reply_ok(seq)

    def do_arena_cuda(seq, m):
        _, _, size, device, _, handle = s_arena_cuda.unpack(m)
        why = env_setup(device)
        if why:
            return reply_err(seq, why, 0 if why.startswith("kjudge-env") else 999)
        e = st["env"]
        rt, torch, cupy = e["rt"], e["torch"], e["cupy"]
        try:
            if st["arena_ptr"]:
                st["arena"] = None
                rt.ipcCloseMemHandle(st["arena_ptr"])
                st["arena_ptr"], st["arena_size"] = 0, 0
            if size:
                ptr = rt.ipcOpenMemHandle(bytes(handle))
                mem = cupy.cuda.UnownedMemory(ptr, size, None, device)
                arr = cupy.ndarray((size,), dtype=cupy.uint8, memptr=cupy.cuda.MemoryPointer(mem, 0))
                st["arena_cp"] = arr
                try:
                    st["arena"] = torch.as_tensor(arr, device="cuda")
                except Exception:  # noqa: BLE001 - older torch: DLPack
                    st["arena"] = torch.utils.dlpack.from_dlpack(arr)
                st["arena_ptr"], st["arena_size"] = ptr, size
        except Exception as ex:  # noqa: BLE001
            return reply_err(seq, "CUDA error %s (in cudaIpcOpenMemHandle)" % ex, cuda_error_of(ex) or 999)
        return reply_ok(seq)

    def do_call(seq, m, probe=False):
        """A CALL; with probe (the judge's PROBE, before LOAD only) the same
        path with nothing of a candidate's called, for the judge's floor.  A
        train (reps > 1) is reps calls back to back between one pair of
        events, call r on the arena at the offsets plus r * stride."""
        t_in = clock()
        vals = s_call.unpack(m)
        nptr, ndim, reps, stride = vals[2], vals[3], max(vals[5], 1), vals[6]
        offs = vals[7:7 + WIRE_MAX_PTR]
        dvals = vals[7 + WIRE_MAX_PTR:7 + WIRE_MAX_PTR + WIRE_MAX_DIM]
        if probe:
            if st["loaded"] or st["env"] is None:
                return reply_err(seq, "PROBE is for after SETUP and before LOAD")
            why = abi_ready() if late["abi_file"] else None
            if why:
                return reply_err(seq, why)
            if nptr == 0 and ndim == 0:
                # the round trip alone, through the timing path
                e = st["env"]
                try:
                    t0 = clock()
                    e["record"](e["ev0"], e["stream"])
                    e["record"](e["ev1"], e["stream"])
                    e["esync"](e["ev1"])
                    e["dsync"]()
                    t1 = clock()
                    gpu_ms = e["elapsed"](e["ev0"], e["ev1"])
                except Exception as ex:  # noqa: BLE001
                    return reply_err(seq, "CUDA error %s" % ex, cuda_error_of(ex) or 999)
                return reply_ok(seq, 0, int(gpu_ms * 1e6), t1 - t0)
            if nptr != len(args_spec) or ndim != len(syms):
                return reply_err(seq, "PROBE has %d tensors and %d dims, the ABI %d and %d" %
                                 (nptr, ndim, len(args_spec), len(syms)))
        elif not st["loaded"]:
            return reply_err(seq, "no candidate is loaded")
        elif nptr != st["nptr"] or ndim != st["ndim"]:
            return reply_err(seq, "CALL has %d tensors and %d dims, LOAD had %d and %d" %
                             (nptr, ndim, st["nptr"], st["ndim"]))
        if st["arena"] is None:
            return reply_err(seq, "no device arena is open")
        e = st["env"]
        torch = e["torch"]
        dims = {syms[i]: int(dvals[i]) for i in range(ndim)}
        shapes = []
        for i, a in enumerate(args_spec):
            try:
                shape = [_eval_dim(x, dims) for x in a["shape"]]
            except (KeyError, ValueError) as ex:
                return reply_err(seq, "argument %d: %s" % (i, ex))
            n = 1
            for d in shape:
                n *= d
            nbytes = n * DTYPE_SIZE[a["dtype"]]
            last = offs[i] + (reps - 1) * stride
            if last >= st["arena_size"] or last + nbytes > st["arena_size"]:
                return reply_err(seq, "argument %d: offset %d is outside the device arena (%d bytes)" %
                                 (i, last, st["arena_size"]))
            dt = e["getitem"](e["dtypes"], a["dtype"])
            if dt is None:
                return reply_err(seq, "argument %d: dtype %s needs torch.%s, which this torch lacks" %
                                 (i, a["dtype"], DTYPES.get(a["dtype"], "?")))
            shapes.append((nbytes, dt, shape))

        def views(r):
            return [st["arena"][offs[i] + r * stride:offs[i] + r * stride + nb].view(dt).view(shape)
                    for i, (nb, dt, shape) in enumerate(shapes)]

        def parts(tensors):
            return ([t for t, a in zip(tensors, args_spec) if a["kind"] == "input"],
                    [t for t, a in zip(tensors, args_spec) if a["kind"] == "param"],
                    [t for t, a in zip(tensors, args_spec) if a["kind"] == "output"])
        # every call's tensors are made before the clocks start
        dimv = [dims[x] for x in syms]
        calls = []
        for r in range(reps):
            ts = views(r)
            ins, pars, outs = parts(ts)
            calls.append((ins, pars, outs, (kb_forward_args(kb, ins) if kb is not None else ins)
                          if backend == "kernelbench" else ts + dimv))
        if probe:
            # nothing called: the candidate's part of the path is empty, the
            # harness's (the result copied into the outputs) is not
            if backend == "kernelbench":
                # fresh tensors, so that copying "the result" into the outputs
                # costs what a real result's copy costs (a tensor copied onto
                # itself is not copied)
                def noop(*a):
                    return tuple(torch.empty_like(o) for o in calls[0][2])
            else:
                def noop(*a):
                    return None
        elif backend == "kernelbench":
            # the task's tensor replaces the parameter's storage; its shape
            # follows the call's shape (a task has several), its rank must agree
            for k, (p, t) in enumerate(zip(st["params"], calls[0][1])):
                if p.dim() != t.dim():
                    return reply_err(seq, "ModelNew's parameter %d has %d dims, the task's param %s has %d "
                                     "(params are bound in order: docs/kernelbench.md)" %
                                     (k, p.dim(), [a for a in args_spec if a["kind"] == "param"][k]["name"],
                                      t.dim()))
        fn = noop if probe else st["fn"]
        bind = backend == "kernelbench" and not probe
        params = st["params"] if bind else ()
        record, esync, elapsed, dsync = e["record"], e["esync"], e["elapsed"], e["dsync"]
        stream, ev0, ev1 = e["stream"], e["ev0"], e["ev1"]
        counts = st["counts"]
        mode = e["mode"]()
        results = []
        failure = None
        try:
            # the L2 flush is the judge's, from its own context, before the
            # CALL is sent; the GPU is idle when ev0 is recorded
            torch.set_grad_enabled(False)
            if bind:
                for p, t in zip(params, calls[0][1]):
                    p.data = t
            mode.__enter__()
            try:
                t0 = clock()
                record(ev0, stream)
                for r, (ins, pars, outs, args) in enumerate(calls):
                    if bind and r:
                        # outside the counting mode, as the first call's
                        mode.__exit__(None, None, None)
                        for p, t in zip(params, pars):
                            p.data = t
                        mode.__enter__()
                    results.append(fn(*args))
                t_ret = clock()
                record(ev1, stream)
            finally:
                mode.__exit__(None, None, None)
        except BaseException as ex:  # noqa: BLE001
            failure = (ex, sys.exc_info()[2])
        if failure is not None:
            ex, tb = failure
            ce = cuda_error_of(ex)
            why = blocked_text(blocked)
            if why and not ce:
                return reply_err(seq, why)
            if not ce:
                try:
                    dsync()
                except Exception as ex2:  # noqa: BLE001
                    ce = cuda_error_of(ex2) or 999
            return reply_err(seq, describe(ex, tb), ce)
        try:
            esync(ev1)
            dsync()
            t1 = clock()
            gpu_ms = elapsed(ev0, ev1)
        except Exception as ex:  # noqa: BLE001
            return reply_err(seq, "CUDA error %s" % ex, cuda_error_of(ex) or 999)
        why = blocked_text(blocked)
        if why:
            return reply_err(seq, why)
        why = tampered()
        if why:
            return reply_err(seq, "rejected: the candidate changed the harness during the call: %s" % why)
        if e["cur_raw"](st["device"]) != stream:
            return reply_err(seq, "rejected: the candidate changed the current CUDA stream")
        if e["dispatch_len"]() != 0:
            return reply_err(seq, "rejected: the candidate left a torch dispatch mode active")
        if backend == "kernelbench":
            # the results are checked and copied into the judge's buffers after
            # both clocks stopped: the copy is the harness's, not the candidate's
            for result, (_, _, outs, _) in zip(results, calls):
                res = result if e["isinst"](result, (tuple, list)) else (result,)
                if len(res) != len(outs):
                    return reply_err(seq, "forward returned %d tensors, the task has %d outputs" %
                                     (len(res), len(outs)))
                for i, (r, o) in enumerate(zip(res, outs)):
                    if e["typ"](r) is not e["tensor"]:
                        return reply_err(seq, "forward returned %s for output %d, not a plain torch.Tensor" %
                                         (e["typ"](r).__name__, i))
                    if tuple(r.shape) != tuple(o.shape) or r.dtype != o.dtype or r.device != o.device:
                        return reply_err(seq, "forward returned %s %s on %s for output %d; the task wants "
                                         "%s %s on %s" % (list(r.shape), r.dtype, r.device, i,
                                                          list(o.shape), o.dtype, o.device))
                try:
                    for r, o in zip(res, outs):
                        o.copy_(r)
                except Exception as ex:  # noqa: BLE001
                    return reply_err(seq, "copying the result: " + describe(ex, sys.exc_info()[2]),
                                     cuda_error_of(ex))
            try:
                dsync()
            except Exception as ex:  # noqa: BLE001
                return reply_err(seq, "copying the result: " + describe(ex, sys.exc_info()[2]),
                                 cuda_error_of(ex))
        if trace:
            print("kjudge-pyworker: %s %s x%d: wrap %.3f ms, candidate %.3f ms (host), events %.3f ms, "
                  "to sync %.3f ms, ops %d" % ("probe" if probe else "call", list(dims.values()), reps,
                                              (t0 - t_in) / 1e6, (t_ret - t0) / 1e6, gpu_ms, (t1 - t0) / 1e6,
                                              sum(st["counts"].values())), file=sys.stderr, flush=True)
        del counts  # counted in place by the mode
        return reply_ok(seq, t_ret - t0, int(gpu_ms * 1e6), t1 - t0)

    def do_nop(seq):
        if late["abi_file"] and st["env"] is not None and os.path.exists(late["abi_file"]):
            why = abi_ready()
            if why:
                return reply_err(seq, why)
        counts = st["counts"]
        if counts:
            items = sorted(counts.items(), key=lambda kv: -kv[1])
            text = ", ".join("%s x%d" % kv for kv in items[:8])
            counts.clear()
            return reply_err(seq, "fallback: torch operators ran inside the candidate's call: " + text)
        return reply_ok(seq)

    spin_ns = 200_000_000
    while True:
        try:
            m = None
            if st["env"] is not None:
                # awake for a while after each reply, as the C worker: the
                # judge's bound on a call counts this process's wake-up too
                end = clock() + spin_ns
                while clock() < end:
                    try:
                        m, anc, _, _ = recvmsg(1 << 16, socket.CMSG_SPACE(4 * 8), socket.MSG_DONTWAIT)
                        break
                    except BlockingIOError:
                        continue
            if m is None:
                m, anc, _, _ = recvmsg(1 << 16, socket.CMSG_SPACE(4 * 8))
        except OSError:
            return EXIT_NO_REPLY
        typ, seq, end = request_frame(m, anc, hdr, sizes)
        if end is not None:
            return end
        if typ == NOP:
            do_nop(seq)
        elif typ == LOAD:
            do_load(seq, m)
        elif typ == ARENA:
            size = s_arena.unpack(m)[2]
            if size:
                reply_err(seq, "the Python worker runs only on the CUDA track (no host arena)")
            else:
                reply_ok(seq)
        elif typ == ARENA_CUDA:
            do_arena_cuda(seq, m)
        elif typ == CALL:
            do_call(seq, m)
        elif typ == SETUP:
            _, _, cuda, device = STRUCTS[SETUP].unpack(m)
            why = env_setup(device) if cuda else "the Python worker runs only on the CUDA track"
            if why:
                reply_err(seq, why)
            else:
                reply_ok(seq)
        elif typ == PROBE:
            do_call(seq, m, probe=True)


# ---- KernelBench problem files as tasks (docs/kernelbench.md, "KernelBench
# problem files as tasks").  Both modes run the problem's code only, never a
# candidate's: the judge trusts them for their results. ----

KB_SEED = 42  # KernelBench's seed: torch.manual_seed(42) before Model(*init) (and ModelNew's)


def _kb_import(path, name):
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _kb_jsonable(x):
    if x is None or isinstance(x, (bool, int, float, str)):
        return True
    if isinstance(x, (list, tuple)):
        return all(_kb_jsonable(v) for v in x)
    return False


def _kb_error(ex, tb, path):
    import traceback
    line = 0
    for fr in traceback.extract_tb(tb):
        if fr.filename == path:
            line = fr.lineno
    text = str(ex).strip().splitlines()
    return "%s%s: %s" % (type(ex).__name__, " (%s:%d)" % (os.path.basename(path), line) if line else "",
                         (text[-1] if text else "")[:300])


def kb_describe(path, seed=KB_SEED):
    """The trusted describe step: imports the problem file, builds Model under
    KernelBench's seed, draws get_inputs() and runs forward once on the GPU
    for the outputs' shapes.  Returns the description (a dict; "ok" false
    with "error" saying why)."""
    path = os.path.abspath(path)
    out = {"ok": False}
    try:
        import torch
    except Exception as e:  # noqa: BLE001
        out["error"] = "torch is not importable by %s: %s: %s" % (sys.executable, type(e).__name__, e)
        return out
    if not os.path.isfile(path):
        out["error"] = "no problem file %s" % path
        return out
    try:
        mod = _kb_import(path, "kj_problem")
    except BaseException as ex:  # noqa: BLE001
        out["error"] = "cannot import the problem: " + _kb_error(ex, sys.exc_info()[2], path)
        return out
    missing = [n for n in ("Model", "get_inputs", "get_init_inputs") if not callable(vars(mod).get(n))]
    if missing:
        out["error"] = "the problem file defines no %s (a KernelBench problem has Model, get_inputs and " \
                       "get_init_inputs)" % ", ".join(missing)
        out["kind"] = "problem"
        return out
    if not torch.cuda.is_available():
        out["error"] = "torch sees no CUDA device (torch %s)" % torch.__version__
        return out
    try:
        torch.manual_seed(seed)
        init = list(mod.get_init_inputs())
        if not _kb_jsonable(init):
            out["error"] = "get_init_inputs() returns %s: kjudge passes only numbers, strings and lists of them" \
                % ", ".join(type(v).__name__ for v in init if not _kb_jsonable(v))
            out["kind"] = "problem"
            return out
        torch.manual_seed(seed)
        model = mod.Model(*init)
        torch.manual_seed(seed)
        inputs = list(mod.get_inputs())
        desc = []
        for i, x in enumerate(inputs):
            if isinstance(x, torch.Tensor):
                d = {"tensor": True, "shape": list(x.shape), "dtype": str(x.dtype).replace("torch.", "")}
                if x.numel() and x.dtype != torch.bool:
                    d["min"], d["max"] = float(x.min()), float(x.max())
                desc.append(d)
            elif _kb_jsonable(x):
                desc.append({"tensor": False, "value": x})
            else:
                out["error"] = "get_inputs() item %d is a %s: kjudge passes tensors, numbers, strings and lists" \
                    % (i, type(x).__name__)
                out["kind"] = "problem"
                return out
        model = model.cuda()
        with torch.no_grad():
            y = model(*[x.cuda() if isinstance(x, torch.Tensor) else x for x in inputs])
        torch.cuda.synchronize()
        ys = y if isinstance(y, (tuple, list)) else (y,)
        outs = []
        for i, r in enumerate(ys):
            if not isinstance(r, torch.Tensor):
                out["error"] = "forward returns a %s as output %d, not a tensor" % (type(r).__name__, i)
                return out
            outs.append({"shape": list(r.shape), "dtype": str(r.dtype).replace("torch.", "")})
    except BaseException as ex:  # noqa: BLE001
        out["error"] = _kb_error(ex, sys.exc_info()[2], path)
        return out
    return {"ok": True, "problem": path, "seed": seed, "init": init, "inputs": desc, "outputs": outs,
            "training": bool(model.training), "torch": torch.__version__}


def kb_forward_args(kb, tensors):
    """forward's arguments: the tensor inputs in order, the scalars the
    problem's get_inputs gave in their places."""
    it = iter(tensors)
    return [next(it) if d.get("tensor") else d.get("value") for d in kb["inputs"]]


def serve_reference(abi, problem):
    """The trusted reference worker (--reference PROBLEM): the wire protocol
    of the worker, for the judge's CUDA track.  LOAD builds the problem's
    Model under KernelBench's seed twice: once in the problem's dtype (the
    eager baseline) and a float64 copy (the ground truth), in the module's
    own mode.  A CALL's arguments are the inputs (the problem's dtypes), the
    outputs (its dtypes) and the outputs as float64; its one dim picks the
    work: 0 the float64 reference (inputs cast to float64, written into the
    float64 outputs), 1 the baseline (written into the outputs; timed with
    CUDA events, as a train when reps > 1), 2 the problem's own get_inputs()
    values under its seed, written into the inputs."""
    import copy
    import socket
    import time
    kb = abi.get("kb") or {}
    sock = socket.socket(fileno=WIRE_FD)
    s = STRUCTS
    clock = time.perf_counter_ns
    tens = [a for a in abi.get("args", []) if a["kind"] != "output"]
    outs = [a for a in abi.get("args", []) if a["kind"] == "output"]
    st = {"torch": None, "arena": None, "ptr": 0, "size": 0}

    def send(b):
        try:
            sock.send(b)
        except OSError:
            os._exit(EXIT_NO_REPLY)

    # an untimed reply's times are zero: the judge holds every CALL's
    # reported times to its round trip (worker_client.c), and -1 is outside it
    def ok(seq, w=0, g=0, d=0):
        send(s[OK].pack(OK, seq, w, g, d))

    def err(seq, text, ce=0):
        send(s[ERROR].pack(ERROR, seq, ce, text.encode("utf-8", "replace")[:WIRE_TEXT_MAX - 1]))
        if ce:
            os._exit(EXIT_CUDA)

    def setup(device):
        if st["torch"] is not None:
            return None
        try:
            import torch
            import cupy
            from cupy.cuda import runtime as rt
        except Exception as e:  # noqa: BLE001
            return "kjudge-env: cannot import torch/cupy: %s: %s" % (type(e).__name__, e)
        try:
            torch.cuda.set_device(device)
            cupy.cuda.Device(device).use()
            stream = rt.streamCreateWithFlags(1)
            torch.cuda.set_stream(torch.cuda.ExternalStream(stream, device=device))
            st.update(torch=torch, cupy=cupy, rt=rt, stream=stream, ev0=rt.eventCreate(), ev1=rt.eventCreate(),
                      device=device)
        except Exception as e:  # noqa: BLE001
            return "CUDA setup failed: %s: %s" % (type(e).__name__, e)
        return None

    def load(seq, m):
        _, _, nptr, ndim, cuda, device, path, _sym = s[LOAD].unpack(m)
        path = path.split(b"\0", 1)[0].decode("utf-8", "replace")
        why = setup(device) if cuda else "the reference worker runs only on the CUDA track"
        if why:
            return err(seq, why)
        if nptr != len(tens) + 2 * len(outs) or ndim != 1:
            return err(seq, "LOAD has %d tensors and %d dims; the reference takes %d and 1" %
                       (nptr, ndim, len(tens) + 2 * len(outs)))
        torch = st["torch"]
        try:
            mod = _kb_import(path, "kj_problem")
            init = kb.get("init", [])
            with torch.no_grad():
                torch.manual_seed(kb.get("seed", KB_SEED))
                model = mod.Model(*init).cuda()
                st["base"] = model
                st["ref"] = copy.deepcopy(model).double()
                st["mod"] = mod
        except BaseException as ex:  # noqa: BLE001
            return err(seq, "cannot build the problem's Model: " + _kb_error(ex, sys.exc_info()[2], path))
        st["nptr"] = nptr
        return ok(seq)

    def arena(seq, m):
        _, _, size, device, _, handle = s[ARENA_CUDA].unpack(m)
        why = setup(device)
        if why:
            return err(seq, why)
        torch, cupy, rt = st["torch"], st["cupy"], st["rt"]
        try:
            if st["ptr"]:
                st["arena"] = None
                rt.ipcCloseMemHandle(st["ptr"])
                st["ptr"], st["size"] = 0, 0
            if size:
                ptr = rt.ipcOpenMemHandle(bytes(handle))
                mem = cupy.cuda.UnownedMemory(ptr, size, None, device)
                arr = cupy.ndarray((size,), dtype=cupy.uint8, memptr=cupy.cuda.MemoryPointer(mem, 0))
                st["arena_cp"] = arr
                st["arena"] = torch.as_tensor(arr, device="cuda")
                st["ptr"], st["size"] = ptr, size
        except Exception as ex:  # noqa: BLE001
            return err(seq, "CUDA error %s (in cudaIpcOpenMemHandle)" % ex, 999)
        return ok(seq)

    def call(seq, m):
        vals = s[CALL].unpack(m)
        nptr, ndim, reps, stride = vals[2], vals[3], max(vals[5], 1), vals[6]
        offs = vals[7:7 + WIRE_MAX_PTR]
        mode = vals[7 + WIRE_MAX_PTR]
        torch = st["torch"]
        if st["arena"] is None or "base" not in st or nptr != st["nptr"] or ndim != 1:
            return err(seq, "the reference worker was not loaded, or the CALL does not fit its LOAD")
        specs = tens + outs + [dict(a, dtype="f64") for a in outs]
        size = dict(DTYPE_SIZE, f64=8)

        def views(r):
            vs = []
            for i, a in enumerate(specs):
                shape = [_eval_dim(x, {}) for x in a["shape"]]
                n = 1
                for d in shape:
                    n *= d
                o = offs[i] + r * stride
                if o + n * size[a["dtype"]] > st["size"]:
                    raise ValueError("argument %d is outside the arena" % i)
                dt = torch.float64 if a["dtype"] == "f64" else getattr(torch, DTYPES[a["dtype"]])
                vs.append(st["arena"][o:o + n * size[a["dtype"]]].view(dt).view(shape))
            return vs
        try:
            calls = [views(r) for r in range(reps if mode == 1 else 1)]
        except Exception as ex:  # noqa: BLE001
            return err(seq, str(ex))
        nt, no = len(tens), len(outs)
        rt, stream = st["rt"], st["stream"]
        try:
            torch.set_grad_enabled(False)
            if mode == 2:
                # the problem's own get_inputs() values, as the describe
                # step drew them, into the inputs
                torch.manual_seed(kb.get("seed", KB_SEED))
                xs = [x for x in st["mod"].get_inputs() if isinstance(x, torch.Tensor)]
                if len(xs) != nt:
                    return err(seq, "get_inputs() gave %d tensors, the description %d" % (len(xs), nt))
                for v, x in zip(calls[0][:nt], xs):
                    v.copy_(x.reshape(v.shape))
                rt.deviceSynchronize()
                return ok(seq)
            if mode == 0:
                vs = calls[0]
                args = kb_forward_args(kb, [v.double() if v.is_floating_point() else v for v in vs[:nt]])
                y = st["ref"](*args)
                ys = y if isinstance(y, (tuple, list)) else (y,)
                if len(ys) != no:
                    return err(seq, "the problem's forward returned %d tensors, not %d" % (len(ys), no))
                for r, o in zip(ys, vs[nt + no:]):
                    o.copy_(r.reshape(o.shape))
                rt.deviceSynchronize()
                return ok(seq)
            results = []
            t0 = clock()
            rt.eventRecord(st["ev0"], stream)
            for vs in calls:
                results.append(st["base"](*kb_forward_args(kb, vs[:nt])))
            rt.eventRecord(st["ev1"], stream)
            rt.eventSynchronize(st["ev1"])
            t1 = clock()
            gpu_ms = rt.eventElapsedTime(st["ev0"], st["ev1"])
            for y, vs in zip(results, calls):
                ys = y if isinstance(y, (tuple, list)) else (y,)
                for r, o in zip(ys, vs[nt:nt + no]):
                    o.copy_(r.reshape(o.shape))
            rt.deviceSynchronize()
            return ok(seq, t1 - t0, int(gpu_ms * 1e6), t1 - t0)
        except BaseException as ex:  # noqa: BLE001
            msg = str(ex)
            ce = 999 if ("CUDA error" in msg or "illegal memory" in msg) else 0
            return err(seq, "the problem's forward failed: " + _kb_error(ex, sys.exc_info()[2], problem), ce)

    send(s[HELLO].pack(HELLO, 0, WIRE_VERSION, os.getpid()))
    hdr = struct.Struct("<II")
    sizes = {t: x.size for t, x in s.items()}
    while True:
        try:
            m, anc, _, _ = sock.recvmsg(1 << 16, socket.CMSG_SPACE(4 * 8))
        except OSError:
            return EXIT_NO_REPLY
        typ, seq, end = request_frame(m, anc, hdr, sizes)
        if end is not None:
            return end
        if typ == NOP:
            ok(seq)
        elif typ == SETUP:
            _, _, cuda, device = s[SETUP].unpack(m)
            why = setup(device) if cuda else "the reference worker runs only on the CUDA track"
            if why:
                err(seq, why)
            else:
                ok(seq)
        elif typ == LOAD:
            load(seq, m)
        elif typ == ARENA:
            ok(seq) if not s[ARENA].unpack(m)[2] else err(seq, "the reference worker has no host arena")
        elif typ == ARENA_CUDA:
            arena(seq, m)
        elif typ == CALL:
            call(seq, m)
        elif typ == PROBE:
            ok(seq, 0, 0, 0)


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(prog="kjudge_pyworker.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", choices=("triton", "kernelbench"), default="triton")
    ap.add_argument("--probe", action="store_true", help="print whether this Python can run candidates")
    ap.add_argument("--check", metavar="FILE", help="print the static verdict on FILE")
    ap.add_argument("--entry", default="", help="the entry function (triton backend)")
    ap.add_argument("--abi", default="{}", help="the task's ABI as JSON (written by the judge)")
    ap.add_argument("--abi-file", default="",
                    help="a pre-warmed worker: the task's ABI is read from this file (written by the judge) "
                    "at the first request after SETUP")
    ap.add_argument("--cache", default="", help="folder for Triton's and torch's build caches")
    ap.add_argument("--build", metavar="FILE", help="the build step: import FILE and warm it up (the judge runs it)")
    ap.add_argument("--result-fd", type=int, default=1, help="where --build writes its JSON lines")
    ap.add_argument("--seccomp", default="", help="the judge's seccomp filter (raw BPF), installed at the end of SETUP")
    ap.add_argument("--uses", default="", help="what the source names: triton,inline (load_inline): warmed up")
    ap.add_argument("--describe", metavar="PROBLEM",
                    help="print one JSON line describing a KernelBench problem file (trusted; runs its code)")
    ap.add_argument("--reference", metavar="PROBLEM",
                    help="serve as the trusted reference worker of a KernelBench problem file (the judge runs it)")
    ap.add_argument("--trace", action="store_true",
                    help="print each call's phases (ms) on stderr, the candidate's log ($KJ_PYWORKER_TRACE)")
    a = ap.parse_args(argv)
    if a.describe:
        print(json.dumps(kb_describe(a.describe)))
        return 0
    if a.probe:
        print(json.dumps(probe(a.backend)))
        return 0
    if a.check:
        try:
            with open(a.check, "r", encoding="utf-8", errors="replace") as f:
                src = f.read()
        except OSError as e:
            print(json.dumps({"verdict": "error", "reason": "cannot read %s: %s" % (a.check, e.strerror)}))
            return 1
        print(json.dumps(static_check(src, a.backend, a.entry)))
        return 0
    try:
        abi = json.loads(a.abi)
    except ValueError:
        print("kjudge_pyworker: --abi is not JSON", file=sys.stderr)
        return EXIT_BAD_REQUEST
    uses = tuple(u for u in a.uses.split(",") if u)
    if a.reference:
        _set_caches(a.cache)
        return serve_reference(abi, a.reference)
    if a.build:
        return build(a.build, a.backend, abi, a.cache, a.entry or abi.get("entry", ""), a.result_fd, uses)
    return serve(a.backend, abi, a.cache, a.trace, a.seccomp or None, uses, a.abi_file or None)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
