"""Python API of kjudge, the judge of GPU (and CPU) kernels (docs/python.md).

- kjudge.eval(task, source, ...) judges one candidate with the kjudge
  command-line tool (`kjudge eval --json`) and returns the verdict, a dict
  (docs/verdict.md).
- kjudge.prompt(task, ...) returns the prompt a model is given
  (`kjudge prompt`).
- kjudge.Client(url, token) talks to `kjudge serve` over HTTP (docs/api.md).
- kjudge.KernelEnv(task, ...) is a Gymnasium-style environment: reset() gives
  the prompt, step(source) judges the source and gives a reward.

Standard library only; the judge itself is the `kjudge` executable, found
from an argument, $KJUDGE_BIN or PATH (kjudge.find_kjudge).
"""
__version__ = "0.1.0"

from .errors import BinaryNotFound, JudgeError, KjudgeError, ServeError, UsageError
from .cli import eval, find_kjudge, prompt
from .client import Client
from .env import KernelEnv, default_reward

__all__ = [
    "BinaryNotFound", "Client", "JudgeError", "KernelEnv", "KjudgeError", "ServeError",
    "UsageError", "default_reward", "eval", "find_kjudge", "prompt",
]
