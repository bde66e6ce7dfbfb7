"""kjudge.eval and kjudge.prompt: the kjudge command-line tool, run as a
child process.

The executable is the `kjudge` of a build (build/kjudge) or an install; it
finds the task suite and its worker on its own (README.md: KJUDGE_HOME,
KJ_WORKER).  Each call is one process: nothing is shared between calls but
the judge's compile cache ($KJUDGE_CACHE).
"""
import json
import os
import shutil
import subprocess
import tempfile

from .errors import BinaryNotFound, JudgeError, KjudgeError, UsageError

# the file name suffix of a candidate of each track; the CLI picks the track
# from it when --backend is not given (.cu cuda, .py triton)
SUFFIX = {"cpu": ".c", "cuda": ".cu", "triton": ".py", "kernelbench": ".py"}


def find_kjudge(kjudge=None):
    """The kjudge executable to run: kjudge (a path) when given, else
    $KJUDGE_BIN, else `kjudge` on PATH.  Returns its path; raises
    BinaryNotFound when none is there or it is not executable."""
    for where, path in (("kjudge=", kjudge), ("$KJUDGE_BIN", os.environ.get("KJUDGE_BIN"))):
        if path:
            path = os.fspath(path)
            if os.path.isfile(path) and os.access(path, os.X_OK):
                return path
            raise BinaryNotFound("%s names '%s', which is not an executable file" % (where, path))
    path = shutil.which("kjudge")
    if not path:
        raise BinaryNotFound("no kjudge executable: pass kjudge='build/kjudge', set "
                             "$KJUDGE_BIN, or put kjudge on PATH")
    return path


def source_path(source):
    """(path, None) when source names a file, else (None, the code as bytes).

    A path is an os.PathLike, or a str without a newline (the name of an
    existing file: one that does not exist is an error, not code).  A str
    with a newline, or bytes, is the code itself."""
    if isinstance(source, bytes):
        return None, source
    if isinstance(source, os.PathLike):
        source = os.fspath(source)
        if isinstance(source, bytes):
            source = os.fsdecode(source)
    elif not isinstance(source, str):
        raise TypeError("source is code (str with a newline, bytes) or a path, not %s"
                        % type(source).__name__)
    elif "\n" in source:
        return None, source.encode("utf-8")
    if not os.path.isfile(source):
        raise FileNotFoundError("candidate '%s' is not a file (source code as a string must "
                                "hold a newline)" % source)
    return source, None


def backend_of(backend, path):
    """The track: backend when given, else from the file's suffix as the CLI
    does (.cu cuda, .py triton), else cpu."""
    if backend:
        return backend
    if path and path.endswith(".cu"):
        return "cuda"
    if path and path.endswith(".py"):
        return "triton"
    return "cpu"


def _flag_args(flags):
    """--name VALUE for each (name, value) whose value is not None; --name
    alone for True, nothing for False."""
    args = []
    for name, value in flags:
        if value is None or value is False:
            continue
        if value is True:
            args.append(name)
        else:
            args += [name, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    return args


def _error_from(cmd, proc):
    """The exception for a CLI run that exited 2, 3 or otherwise failed.
    The JSON error object comes from stdout when the CLI printed one
    ({"error": {...}, "exit": N}), the message from it or from stderr."""
    error = None
    try:
        out = json.loads(proc.stdout) if proc.stdout.strip() else None
        if isinstance(out, dict) and "error" in out:
            error = out["error"]
    except ValueError:
        pass
    stderr = proc.stderr.strip()
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        msg = error["message"]
    elif isinstance(error, str):
        msg = error
    else:
        # the CLI's own last message ("kjudge eval: ..."), not a hint
        # like "(see `kjudge eval --help`)" below it
        prefix = "kjudge %s: " % cmd
        lines = [l for l in stderr.splitlines() if l.strip()]
        ours = [l[len(prefix):] for l in lines if l.startswith(prefix)]
        msg = ours[-1] if ours else lines[-1] if lines else "no message"
    msg = "kjudge %s exited %d: %s" % (cmd, proc.returncode, msg)
    cls = {2: UsageError, 3: JudgeError}.get(proc.returncode, KjudgeError)
    return cls(msg, error=error, exit_code=proc.returncode, stderr=proc.stderr)


def _run(kjudge, cmd, args, env, process_timeout):
    exe = find_kjudge(kjudge)
    return subprocess.run([exe, cmd] + args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, errors="replace",
                          env=env, timeout=process_timeout)


def _child_env(env, seed_secret=None):
    out = dict(os.environ)
    if env:
        out.update(env)
    if seed_secret is not None:
        if not seed_secret:
            raise ValueError("seed_secret is empty")
        out["KJUDGE_SEED_SECRET"] = seed_secret
    return out


def eval(task, source, backend=None, *, seeds=None, no_perf=False, timeout=None, perf_budget=None,
         policy=None, cache=None, no_cache=False, seed_secret=None, seed_secret_file=None,
         unsafe_no_sandbox=False, kjudge=None, env=None, process_timeout=None):
    """Judges one candidate with `kjudge eval TASK FILE --json` and returns
    its verdict, a dict (the kjudge.verdict/1 object of docs/verdict.md):
    verdict["status"] is "pass" or why not, verdict["speedup"] the weighted
    geometric mean speedup over the eager baseline (None when untimed).

    task: a task id ("level1/relu") or a .kt file.  source: the candidate's
    code (str with a newline, or bytes; written to a temporary file with the
    track's suffix) or a path (os.PathLike, or a str naming a file).
    backend: "cpu", "cuda", "triton" or "kernelbench"; by default from a
    path's suffix as the CLI does (.cu cuda, .py triton), else cpu.

    Options, each the CLI flag of that name (kjudge eval --help): seeds
    (--seeds), no_perf, timeout (seconds per call), perf_budget (seconds),
    policy ("flag" or "strict"), cache (a folder), no_cache,
    seed_secret_file, unsafe_no_sandbox.  seed_secret (hidden seeds) goes to
    the child in $KJUDGE_SEED_SECRET, never on its command line, where other
    users' ps could read it.  kjudge: the executable (find_kjudge); env:
    variables added to the child's environment; process_timeout: seconds
    before the child is killed (subprocess.TimeoutExpired).

    A candidate that fails is a verdict, not an exception.  Raises
    UsageError (exit 2: bad option, unknown or invalid task), JudgeError
    (exit 3: the judge failed; or output that is not a verdict),
    BinaryNotFound, FileNotFoundError (a path that is not a file)."""
    path, code = source_path(source)
    backend = backend_of(backend, path)
    args = ["--json", "--quiet", "--backend", backend] + _flag_args([
        ("--seeds", seeds), ("--no-perf", no_perf), ("--timeout", timeout),
        ("--perf-budget", perf_budget), ("--policy", policy), ("--cache", cache),
        ("--no-cache", no_cache), ("--seed-secret-file", seed_secret_file),
        ("--unsafe-no-sandbox", unsafe_no_sandbox)])
    child_env = _child_env(env, seed_secret)
    with tempfile.TemporaryDirectory(prefix="kjudge-py.") as tmp:
        if code is not None:
            path = os.path.join(tmp, "candidate" + SUFFIX.get(backend, ".c"))
            with open(path, "wb") as f:
                f.write(code)
        proc = _run(kjudge, "eval", args + ["--", os.fspath(task), path], child_env, process_timeout)
    if proc.returncode not in (0, 1):
        raise _error_from("eval", proc)
    try:
        verdict = json.loads(proc.stdout)
    except ValueError as e:
        raise JudgeError("kjudge eval exited %d without a JSON verdict on stdout (%s)"
                         % (proc.returncode, e), exit_code=proc.returncode, stderr=proc.stderr)
    if not isinstance(verdict, dict) or "status" not in verdict:
        raise JudgeError("kjudge eval printed JSON that is not a verdict",
                         error=verdict if isinstance(verdict, dict) else None,
                         exit_code=proc.returncode, stderr=proc.stderr)
    return verdict


def prompt(task, backend=None, *, mode=None, shots=None, source=None, feedback=None, round=None,
           no_calib=False, kjudge=None, env=None, process_timeout=None):
    """The prompt a model is given for task (`kjudge prompt TASK`), a str.

    backend: the track the candidate is for (the CLI's default is cuda).
    mode: "oneshot" (default), "fewshot" (with shots worked examples) or
    "refine": the previous attempt source (code or path, as in eval) and
    feedback, its verdict (a dict, as eval returns, or a path to its JSON),
    for round (default 1).  no_calib: no hardware facts (cuda).
    Raises UsageError (unknown task, bad option), JudgeError, BinaryNotFound."""
    with tempfile.TemporaryDirectory(prefix="kjudge-py.") as tmp:
        src_path = None
        if source is not None:
            src_path, code = source_path(source)
            if code is not None:
                src_path = os.path.join(tmp, "previous" + SUFFIX.get(backend or "cuda", ".c"))
                with open(src_path, "wb") as f:
                    f.write(code)
        fb_path = feedback
        if isinstance(feedback, dict):
            fb_path = os.path.join(tmp, "feedback.json")
            with open(fb_path, "w", encoding="utf-8") as f:
                json.dump(feedback, f)
        args = _flag_args([("--backend", backend), ("--mode", mode), ("--shots", shots),
                           ("--source", src_path), ("--feedback", fb_path), ("--round", round),
                           ("--no-calib", no_calib)])
        proc = _run(kjudge, "prompt", args + ["--", os.fspath(task)], _child_env(env),
                    process_timeout)
    if proc.returncode != 0:
        raise _error_from("prompt", proc)
    return proc.stdout
