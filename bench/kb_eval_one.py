#!/usr/bin/env python3
"""KernelBench's own evaluator on one candidate, in this (fresh) process, the
way its batch script (scripts/eval_from_generations.py) runs each sample: its
eval_kernel_against_ref with 5 correctness trials, 100 timed trials, CUDA
events, the reference timed too.  For bench/kb_throughput.sh, which starts
one process per candidate as that script does.

  python3 bench/kb_eval_one.py KB_REPO PROBLEM.py CANDIDATE.py BUILD_DIR

KB_REPO is a KernelBench checkout with its src/ (kernelbench package).  The
package imports modules its evaluation never calls (an LLM client, dotenv,
pydantic); where this Python lacks one, a stand-in written here to a
temporary folder takes its place (pydantic's BaseModel as a plain record).
Prints one JSON line: compiled, correctness, runtime_ms, ref_runtime_ms,
seconds (this process's wall time from start), error.
"""
import importlib.util
import json
import os
import sys
import tempfile
import time

T0 = time.time()

STANDINS = {
    "dotenv": "def load_dotenv(*a, **k):\n    return False\n",
    "openai": "class OpenAI:\n    def __init__(self, *a, **k):\n        raise RuntimeError('no LLM client here')\n",
    "litellm": "def completion(*a, **k):\n    raise RuntimeError('no LLM client here')\n",
    "pydantic": (
        "import copy\n"
        "class BaseModel:\n"
        "    def __init__(self, **kw):\n"
        "        for c in reversed(type(self).__mro__):\n"
        "            for k, v in vars(c).items():\n"
        "                if not k.startswith('_') and not callable(v) and not isinstance(v, (property, classmethod, staticmethod)):\n"
        "                    setattr(self, k, copy.deepcopy(v))\n"
        "        for k, v in kw.items():\n"
        "            setattr(self, k, v)\n"
        "    def model_dump(self):\n"
        "        return dict(vars(self))\n"
        "    dict = model_dump\n"
    ),
}


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    repo, problem, cand, build = sys.argv[1:]
    shim = tempfile.mkdtemp(prefix="kb_standin_")
    for mod, text in STANDINS.items():
        if importlib.util.find_spec(mod) is None:
            with open(os.path.join(shim, mod + ".py"), "w") as f:
                f.write(text)
    sys.path[:0] = [os.path.join(repo, "src"), shim]
    out = {"compiled": False, "correctness": False, "runtime_ms": None, "ref_runtime_ms": None, "error": None}
    try:
        from kernelbench.eval import eval_kernel_against_ref
        r = eval_kernel_against_ref(open(problem).read(), open(cand).read(), num_correct_trials=5,
                                    num_perf_trials=100, measure_performance=True, timing_method="cuda_event",
                                    build_dir=build, device=0)
        if r is not None:
            out.update(compiled=bool(r.compiled), correctness=bool(r.correctness),
                       runtime_ms=getattr(r, "runtime", None), ref_runtime_ms=getattr(r, "ref_runtime", None))
            md = getattr(r, "metadata", {}) or {}
            for k in ("compilation_error", "runtime_error", "correctness_issue"):
                if k in md:
                    out["error"] = "%s: %s" % (k, str(md[k])[:200])
                    break
    except Exception as e:  # the evaluator's own failure, reported as such
        out["error"] = "%s: %s" % (type(e).__name__, str(e)[:300])
    out["seconds"] = round(time.time() - T0, 3)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
