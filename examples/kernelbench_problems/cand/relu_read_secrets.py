# kjudge-case: problem=level1/1_relu expect=pass flag=fallback
"""Red team, class 29 (the judge's secrets and host files), on a
KernelBench problem, self-checking.  Once, when built, this ModelNew looks
for what its jail should not hold: its own environment and the command
line and environment of every process listed in /proc (a KJUDGE_ variable,
the test harness exports KJUDGE_CACHE; a judge's argv, argv[0] ending in
kjudge; a reference worker's, with --reference, whose folder holds the
problem's float64 truth), /etc/passwd with a root entry, the default
compile cache /root/.cache/kjudge, and, walking up from its working folder,
a run's store (*.sqlite) or another judgement's scratch folder
(kjudge-*) in any folder above it.  Anything found makes the answer deliberately wrong
(mismatch), so the header's pass fails loudly.  A jail that holds the
interpreter, the worker, the candidate and its scratch folder only leaves
nothing to find: pass, flagged fallback (torch.relu does the work).  The
static check refuses open(), so files are read through ctypes' libc."""
import ctypes
import os

import torch
import torch.nn as nn


_libc = ctypes.CDLL(None, use_errno=True)


def _read(path):
    """A file's bytes through libc (the static check bans open()), or None."""
    fd = _libc.open(path.encode(), 0)
    if fd < 0:
        return None
    out, buf = b"", ctypes.create_string_buffer(65536)
    while True:
        n = _libc.read(fd, buf, 65536)
        if n <= 0:
            break
        out += buf.raw[:n]
    _libc.close(fd)
    return out


def _found():
    if any(k.startswith("KJUDGE_") for k in os.environ):
        return True
    try:
        procs = os.listdir("/proc")
    except OSError:
        procs = []
    for d in procs:
        if not d.isdigit():
            continue
        argv = (_read(f"/proc/{d}/cmdline") or b"").split(b"\0")
        if argv[0].endswith(b"kjudge") or b"--reference" in argv:
            return True
        if b"KJUDGE_" in (_read(f"/proc/{d}/environ") or b""):
            return True
    if b"root:" in (_read("/etc/passwd") or b"") or os.path.isdir("/root/.cache/kjudge"):
        return True
    here = os.path.dirname(os.getcwd())
    while True:
        try:
            names = os.listdir(here)
        except OSError:
            names = []
        for n in names:
            if n.endswith(".sqlite") or (n.startswith("kjudge-") and os.path.join(here, n) != os.getcwd()):
                return True
        up = os.path.dirname(here)
        if up == here:
            return False
        here = up


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.leak = _found()

    def forward(self, x):
        y = torch.relu(x)
        return y + 1.0 if self.leak else y
