#!/usr/bin/env bash
# Python candidates (--backend triton|kernelbench) without a GPU: the Python
# worker's wire layout agrees with src/sandbox/wire.h, the judge names what
# is missing (python3, torch, a CUDA device), the static check gives every
# Python case file its verdict, static verdicts come through `kjudge eval`
# (with a stand-in torch that claims a device), and `kjudge prompt` gives the
# exact signature.  The verdicts that need a GPU: tests/gpu/t50_python.sh.
. "$(dirname "$0")/lib.sh"

PY=$(command -v python3 || true)
W=$KJ_ROOT/python/kjudge_pyworker.py
if [ -z "$PY" ]; then
	echo "1..0 # SKIP no python3"
	exit 0
fi

expect_success "the worker's wire constants are wire.h's" '
	for name in VERSION FD MAX_PTR MAX_DIM PATH_MAX SYM_MAX TEXT_MAX IPC_HANDLE; do
		c=$(sed -n "s/^#define KJ_WIRE_$name \([0-9]*\)u\{0,1\}.*/\1/p" "$KJ_ROOT/src/sandbox/wire.h")
		p=$("$PY" -c "import sys; sys.path.insert(0, \"$KJ_ROOT/python\"); import kjudge_pyworker as w; print(w.WIRE_$name)")
		echo "$name: wire.h $c, python $p"
		test -n "$c" && test "$c" = "$p" || exit 1
	done'

expect_success "the worker's message sizes are the C structs' sizes" '
	cat >"$TMP/sizes.c" <<-EOF
	#include <stdio.h>
	#include "sandbox/wire.h"
	int main(void) {
		unsigned t[] = {KJ_WIRE_HELLO, KJ_WIRE_LOAD, KJ_WIRE_ARENA, KJ_WIRE_CALL, KJ_WIRE_NOP,
				KJ_WIRE_ARENA_CUDA, KJ_WIRE_SETUP, KJ_WIRE_PROBE, KJ_WIRE_OK, KJ_WIRE_ERROR};
		for (int i = 0; i < 10; i++) printf("%u %zu\n", t[i], kj_wire_size(t[i]));
		return 0;
	}
	EOF
	cc -std=c11 -I"$KJ_ROOT/src" -o "$TMP/sizes" "$TMP/sizes.c" && "$TMP/sizes" >"$TMP/c.txt" &&
	"$PY" -c "import sys; sys.path.insert(0, \"$KJ_ROOT/python\"); import kjudge_pyworker as w
for t in (w.HELLO, w.LOAD, w.ARENA, w.CALL, w.NOP, w.ARENA_CUDA, w.SETUP, w.PROBE, w.OK, w.ERROR): print(t, w.STRUCTS[t].size)" \
		>"$TMP/p.txt" && cat "$TMP/c.txt" && diff "$TMP/c.txt" "$TMP/p.txt"'

expect_success "shape expressions evaluate as the judge does (floor division)" '
	"$PY" -c "import sys; sys.path.insert(0, \"$KJ_ROOT/python\"); import kjudge_pyworker as w
d = {\"G\": 3, \"CG\": 5, \"N\": 7}
assert w._eval_dim(\"(G * CG)\", d) == 15
assert w._eval_dim(\"(N // 2)\", d) == 3
assert w._eval_dim(\"((-N) // 2)\", d) == -4
assert w._eval_dim(\"4\", d) == 4
print(\"ok\")"'

expect_success "KJ_PYTHON that does not exist: exit 3, 'python3 not found'" '
	KJ_PYTHON=/nonexistent/python3 "$KJ" eval --backend triton level1/relu \
		"$KJ_ROOT/examples/solutions/triton/relu.py" 2>"$TMP/e"; rc=$?
	cat "$TMP/e"; test $rc -eq 3 && grep -q "python3 not found" "$TMP/e"'

# (bwrap named by KJ_BWRAP: the sandbox is checked before the interpreter)
BWRAP=$(command -v bwrap || echo /usr/bin/bwrap)
expect_success "no python3 on PATH: exit 3, 'python3 not found'" '
	KJ_BWRAP="$BWRAP" PATH=/nonexistent "$KJ" eval --backend kernelbench level1/relu \
		"$KJ_ROOT/examples/solutions/kernelbench/relu.py" 2>"$TMP/e"; rc=$?
	cat "$TMP/e"; test $rc -eq 3 && grep -q "python3 not found" "$TMP/e"'

# a stand-in Python: the real interpreter with fake torch/triton/cupy
# modules first on its path (the judge passes -I, which the wrapper drops)
FAKE=$TMP/fake
mkdir -p "$FAKE/mods/torch" "$FAKE/mods/triton/language" "$FAKE/mods/cupy"
cat >"$FAKE/mods/torch/__init__.py" <<'EOF'
import contextlib
import os
__version__ = "0.0-fake"
no_grad = contextlib.nullcontext
class cuda:
    @staticmethod
    def is_available():
        return os.environ.get("KJ_FAKE_CUDA") == "1"
    @staticmethod
    def get_device_name(i):
        return "Fake GPU"
EOF
echo '__version__ = "0.0-fake"' >"$FAKE/mods/triton/__init__.py"
: >"$FAKE/mods/triton/language/__init__.py"
echo '__version__ = "0.0-fake"' >"$FAKE/mods/cupy/__init__.py"
cat >"$FAKE/python3" <<EOF
#!/bin/sh
[ "\$1" = -I ] && shift
PYTHONPATH="$FAKE/mods" exec "$PY" "\$@"
EOF
chmod +x "$FAKE/python3"

expect_success "a Python without torch: exit 3, 'torch is not importable'" '
	mkdir -p "$TMP/notorch" && printf "#!/bin/sh\n[ \"\$1\" = -I ] && shift\nexec %s -I -S \"\$@\"\n" "$PY" \
		>"$TMP/notorch/python3" && chmod +x "$TMP/notorch/python3" &&
	KJ_PYTHON=$TMP/notorch/python3 "$KJ" eval --backend triton level1/relu \
		"$KJ_ROOT/examples/solutions/triton/relu.py" 2>"$TMP/e"; rc=$?
	cat "$TMP/e"; test $rc -eq 3 && grep -q "torch is not importable" "$TMP/e"'

expect_success "torch without a CUDA device: exit 3, 'no CUDA device'" '
	KJ_PYTHON=$FAKE/python3 KJ_FAKE_CUDA=0 "$KJ" eval --backend triton level1/relu \
		"$KJ_ROOT/examples/solutions/triton/relu.py" 2>"$TMP/e"; rc=$?
	cat "$TMP/e"; test $rc -eq 3 && grep -q "torch sees no CUDA device" "$TMP/e"'

expect_success "kernelbench needs no triton, triton does" '
	rm -rf "$FAKE/mods/triton.off" && mv "$FAKE/mods/triton" "$FAKE/mods/triton.off" &&
	KJ_PYTHON=$FAKE/python3 KJ_FAKE_CUDA=1 KJUDGE_CACHE=$TMP/c2 "$KJ" eval --backend triton level1/relu \
		"$KJ_ROOT/examples/solutions/triton/relu.py" 2>"$TMP/e"; rc=$?
	mv "$FAKE/mods/triton.off" "$FAKE/mods/triton"; cat "$TMP/e"
	test $rc -eq 3 && grep -q "triton is not importable" "$TMP/e"'

# every Python case file: the static verdict agrees with its header
for f in "$KJ_ROOT"/examples/solutions/triton/*.py "$KJ_ROOT"/examples/solutions/kernelbench/*.py \
	"$KJ_ROOT"/examples/broken/triton/*.py "$KJ_ROOT"/examples/redteam/*.py; do
	[ -f "$f" ] || continue
	hdr=$(head -n 1 "$f")
	task=$(printf '%s\n' "$hdr" | sed -n 's/.*task=\([^ ]*\).*/\1/p')
	expect=$(printf '%s\n' "$hdr" | sed -n 's/.*expect=\([^ ]*\).*/\1/p')
	flag=$(printf '%s\n' "$hdr" | sed -n 's/.*flag=\([^ ]*\).*/\1/p')
	be=triton
	grep -q "^class ModelNew" "$f" && be=kernelbench
	rel=${f#"$KJ_ROOT"/}
	case $expect in
	rejected) want=reject ;;
	compile_error) want="syntax ok" ;; # Triton's own errors come at the first call
	*) want=ok ;;
	esac
	[ "$flag" = fallback ] && want="fallback ok"
	# cases built to pass the static check are caught by the worker at run time
	grep -q "past the static check" "$f" && want=ok
	expect_success "static check of $rel ($be): ${want% *}" '
		"$PY" "$W" --check "'"$f"'" --backend '"$be"' --entry "'"${task##*/}"'" >"$TMP/s.json"; cat "$TMP/s.json"
		v=$(json_get "$TMP/s.json" verdict)
		for w in '"$want"'; do test "$v" = "$w" && exit 0; done; exit 1'
done

# Issue 21: the static policy keeps to what the sandbox cannot see (patching,
# private names, reflection, ctypes' Python API, streams, threads, signals and
# descriptors), passes honest idioms of published KernelBench generations and
# what the seccomp filter refuses at run time (subprocess, os.system, fork,
# exec, sockets, ctypes); each rejection names its line.
cat >"$TMP/idioms.py" <<'EOF_PY'
import sys
sys.path.insert(0, sys.argv[1])
import kjudge_pyworker as w
H = "import torch\nimport torch.nn as nn\n"
ok = {
    "import os": "import os\nx = 1\n",
    "os.environ item": "import os\nos.environ['TORCH_CUDA_ARCH_LIST'] = '9.0'\n",
    "os.path via alias": "import os.path as osp\np = osp.join(osp.dirname(__file__), 'k.cu')\n",
    "from os import environ, path": "from os import environ, path\nv = environ.get('X', path.sep)\n",
    "cudnn flags": H + "torch.backends.cudnn.benchmark = True\ntorch.backends.cudnn.deterministic = False\n"
                   "torch.backends.cuda.matmul.allow_tf32 = True\n",
    "matmul precision": H + "torch.set_float32_matmul_precision('high')\n",
    "event for sync": H + "def f():\n    e = torch.cuda.Event(enable_timing=True)\n    e.record()\n    e.synchronize()\n",
    "event import": "from torch.cuda import Event\ne = Event()\n",
    "nn.init helpers": H + "w = nn.Parameter(torch.empty(3, 4))\nnn.init.kaiming_uniform_(w, a=5 ** 0.5)\n"
                       "fi, _ = nn.init._calculate_fan_in_and_fan_out(w)\n",
    "init from torch.nn": "from torch.nn import init\nimport torch\nw = torch.empty(3)\ninit.zeros_(w)\n"
                          "a = init._calculate_correct_fan(w, 'fan_in')\n",
    "time": "import time\nt = time.perf_counter()\n",
    "torch in __init__ and at import is set-up": H + "B = torch.randn(4)\nclass ModelNew(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.b = nn.Parameter(torch.randn(4) * 0.1)\n"
        "    def forward(self, x):\n        return torch.empty_like(x)\n",
    "autograd ctx": H + "class F(torch.autograd.Function):\n    @staticmethod\n"
        "    def forward(ctx, x, eps):\n        ctx.eps = eps\n        ctx._n = 1\n        return torch.empty_like(x)\n",
    "grad mode": H + "torch.set_grad_enabled(False)\ntorch.manual_seed(0)\n",
    "cudnn imported as a module": "import torch.backends.cudnn as cudnn\ncudnn.benchmark = True\n"
        "from torch.backends import cuda\ncuda.matmul.allow_tf32 = False\n",
    "a __main__ block of its own tests": H + "if __name__ == '__main__':\n    import sys, argparse\n"
        "    t = getattr(torch, 'randn')(4)\n    sys.exit(0)\n",
    # the sandbox's since issue 21: the seccomp filter refuses them when they run
    "os.system": "import os\nos.system('true')\n",
    "os alias fork": "import os as o\no.fork()\n",
    "from os import system": "from os import system, execv\n",
    "subprocess": "import subprocess\nsubprocess.run(['nvcc', '--version'])\n",
    "socket": "import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_STREAM)\n",
    "from socket import socket": "from socket import socket, AF_INET\ns = socket(AF_INET)\n",
    "ctypes": "import ctypes\nlibc = ctypes.CDLL(None)\nlibc.execve(b'/bin/sh', None, None)\n",
}
fallback = {
    "torch in forward": H + "class ModelNew(nn.Module):\n    def forward(self, x):\n        return torch.relu(x)\n",
    "torch in a module-level lambda": H + "relu = lambda x, y, B, D: y.copy_(torch.relu(x))\n",
    "imported torch function": "from torch import softmax\ndef f(x):\n    return softmax(x, -1)\n",
}
bad = {
    "os.write": ("import os\n\ndef f():\n    os.write(3, b'x')\n", 4),
    "os.kill": ("import os\nos.kill(1, 9)\n", 2),
    "ctypes.pythonapi": ("import ctypes\nf = ctypes.pythonapi.PyObject_SetAttr\n", 2),
    "from ctypes import py_object": ("from ctypes import py_object\n", 1),
    "socket through torch": ("import torch\ns = torch.socket\n", 2),
    "os as a value": ("import os\nx = os\n", 2),
    "os.path.os": ("import os\nos.path.os.kill(1, 9)\n", 2),
    "from os import dup2": ("from os import dup2 as d\n", 1),
    "torch.os": ("import torch\ntorch.os.system('x')\n", 2),
    "torch.sys": ("import torch\nm = torch.sys.modules\n", 2),
    "from torch import os": ("from torch import os\nos.system('x')\n", 1),
    "subprocess from cpp_extension": ("from torch.utils.cpp_extension import subprocess\n", 1),
    "settings non-constant": ("import torch\ntorch.backends.cudnn.benchmark = lambda: 0\n", 2),
    "patch elsewhere": ("import torch\ntorch.cuda.synchronize = None\n", 2),
    "patch event": ("import torch\ntorch.cuda.Event.elapsed_time = lambda s, o: 0.001\n", 2),
    "patch time": ("import time\ntime.perf_counter = lambda: 0\n", 2),
    "environ attribute": ("import os\nos.environ.get = None\n", 2),
    "other private init": ("import torch.nn as nn\nnn.init._no_grad_uniform_(None, 0, 1)\n", 2),
    "private elsewhere": ("import torch\ntorch._C._cuda_getCurrentRawStream(0)\n", 2),
    "stream": ("import torch\ns = torch.cuda.Stream()\n", 2),
    "sys": ("import sys\n", 1),
    "threading": ("import threading\n", 1),
    "stream made at import": ("import torch\nS = torch.cuda.Stream()\n", 2),
    "attribute of another parameter": ("import torch\ndef p(mod):\n    mod.synchronize = None\n", 3),
    "attrgetter": ("import operator\nimport torch\nf = operator.attrgetter('os.system')(torch)\n", 3),
    "from operator import methodcaller": ("from operator import methodcaller\n", 1),
    "string annotations evaluated": ("import typing\ndef f(x: 'int'):\n    pass\nh = typing.get_type_hints(f)\n", 4),
    "dataclasses": ("import dataclasses\n", 1),
    "__name__ assigned": ("__name__ = '__main__'\nif __name__ == '__main__':\n    import sys\n", 1),
    "the else of a __main__ test runs": ("if __name__ == '__main__':\n    pass\nelse:\n    import sys\n", 4),
    "a __main__ test with more to it": ("if __name__ == '__main__' or True:\n    import sys\n", 2),
    "__name__ bound by import": ("import math as __name__\n", 1),
    "__name__ bound by except": ("try:\n    pass\nexcept ValueError as __name__:\n    pass\n", 3),
    "__name__ bound by a match": ("match '__main__':\n    case __name__:\n        pass\n", 2),
    "__name__ defined": ("def __name__():\n    pass\n", 1),
}
fails = 0
for be in ("triton", "kernelbench"):
    for name, src in ok.items():
        v = w.static_check(src, be, "")
        good = v["verdict"] in ("ok", "missing")
        print("%s %s %s: %s" % ("ok" if good else "FAIL", be, name, v))
        fails += not good
    for name, src in fallback.items():
        v = w.static_check(src + "class ModelNew(object):\n    pass\n", be, "")
        good = v["verdict"] == "fallback"
        print("%s %s %s: %s" % ("ok" if good else "FAIL", be, name, v))
        fails += not good
    for name, (src, line) in bad.items():
        if "match" in name and sys.version_info < (3, 10):
            continue
        v = w.static_check(src, be, "")
        good = v["verdict"] == "reject" and v["reason"].startswith("candidate.py:%d: " % line)
        print("%s %s %s: %s" % ("ok" if good else "FAIL", be, name, v))
        fails += not good
sys.exit(1 if fails else 0)
EOF_PY
expect_success "honest idioms (import os, cudnn flags, CUDA events for sync, nn.init) and what the filter refuses pass; patching is rejected at its line" '
	"$PY" "$TMP/idioms.py" "$KJ_ROOT/python"'

# The build step (kjudge_pyworker.py --build, run by the judge in the
# candidate's jail before the timed worker): a build error is a compile error
# at the candidate's line, anything else is left to the timed process.
cat >"$TMP/build_err.py" <<'EOF_PY'
import torch
x = 1
raise RuntimeError("Error building extension 'kj_relu': nvcc fatal : Unsupported gpu architecture")
class ModelNew(object):
    pass
EOF_PY
cat >"$TMP/build_ok.py" <<'EOF_PY'
import torch
def relu():
    pass
EOF_PY
cat >"$TMP/build_nameerror.py" <<'EOF_PY'
import torch
x = undefined_name
def relu():
    pass
EOF_PY
ABI0='{"entry":"relu","syms":[],"args":[],"warm":[]}'
expect_success "the build step: a load_inline build error is a compile_error at the candidate's line" '
	"$FAKE/python3" "$W" --build "$TMP/build_err.py" --backend kernelbench --abi "$ABI0" --cache "$TMP/bc" \
		--result-fd 1 >"$TMP/b.txt" 2>"$TMP/b.log"; cat "$TMP/b.txt" "$TMP/b.log"
	tail -n 1 "$TMP/b.txt" >"$TMP/b.json"
	test "$(json_get "$TMP/b.json" verdict)" = compile_error &&
	json_get "$TMP/b.json" reason | grep -q "^compile error: RuntimeError (candidate.py:3): Error building extension" &&
	grep -q "Unsupported gpu architecture" "$TMP/b.log"'

expect_success "the build step: a candidate that imports is built (no shapes to warm here)" '
	"$FAKE/python3" "$W" --build "$TMP/build_ok.py" --backend triton --abi "$ABI0" --cache "$TMP/bc" \
		--result-fd 1 >"$TMP/b.txt" 2>&1; cat "$TMP/b.txt"
	tail -n 1 "$TMP/b.txt" >"$TMP/b.json"
	test "$(json_get "$TMP/b.json" verdict)" = ok && test "$(json_get "$TMP/b.json" warmed)" = 0'

expect_success "the build step: an error that is no build error is left to the timed process (import_error)" '
	"$FAKE/python3" "$W" --build "$TMP/build_nameerror.py" --backend triton --abi "$ABI0" \
		--cache "$TMP/bc" --result-fd 1 >"$TMP/b.txt" 2>&1; cat "$TMP/b.txt"
	tail -n 1 "$TMP/b.txt" >"$TMP/b.json"
	test "$(json_get "$TMP/b.json" verdict)" = import_error &&
	json_get "$TMP/b.json" reason | grep -q "NameError (candidate.py:2)"'

expect_success "the build step: a Python without torch says so (env), a rejected source is not imported" '
	"$TMP/notorch/python3" "$W" --build "$TMP/build_ok.py" --backend triton --abi "$ABI0" \
		--cache "$TMP/bc" --result-fd 1 >"$TMP/b.txt" 2>&1; cat "$TMP/b.txt"
	tail -n 1 "$TMP/b.txt" >"$TMP/b.json"
	test "$(json_get "$TMP/b.json" verdict)" = env &&
	"$FAKE/python3" "$W" --build "$KJ_ROOT/examples/redteam/21_py_patch_event.py" --backend triton \
		--abi "$ABI0" --cache "$TMP/bc" --result-fd 1 >"$TMP/b.txt" 2>&1; cat "$TMP/b.txt"
	tail -n 1 "$TMP/b.txt" >"$TMP/b.json"
	test "$(json_get "$TMP/b.json" verdict)" = skipped'

expect_success "a replacement the worker finds after a call is placed at its assignment (26_py_self_patch: line 21)" '
	"$PY" -c "import sys; sys.path.insert(0, \"$KJ_ROOT/python\"); import kjudge_pyworker as w
src = open(\"$KJ_ROOT/examples/redteam/26_py_self_patch.py\").read()
assert w._assignment_lines(src, \"synchronize\") == [\"candidate.py:21\"], w._assignment_lines(src, \"synchronize\")
assert w._assignment_lines(src, \"elapsed_time\") == []
print(\"ok\")"'

expect_success "every red-team Python case rejected statically names its line" '
	n=0
	for f in "$KJ_ROOT"/examples/redteam/*_py_*.py; do
		head -n 1 "$f" | grep -q "expect=rejected" || continue
		grep -q "past the static check" "$f" && continue
		"$PY" "$W" --check "$f" --backend triton --entry relu >"$TMP/s.json"
		r=$(json_get "$TMP/s.json" reason); echo "${f##*/}: $r"
		printf "%s\n" "$r" | grep -q "^candidate.py:[1-9][0-9]*: " || exit 1
		n=$((n + 1))
	done
	test $n -ge 8'

expect_success "a rejected case gets its verdict through kjudge eval (no GPU needed)" '
	KJ_PYTHON=$FAKE/python3 KJ_FAKE_CUDA=1 "$KJ" eval --json --quiet --backend triton level1/relu \
		"$KJ_ROOT/examples/redteam/21_py_patch_event.py" >"$TMP/v.json"; rc=$?
	test $rc -eq 1 && test "$(json_get "$TMP/v.json" status)" = rejected &&
	test "$(json_get "$TMP/v.json" backend)" = triton &&
	json_get "$TMP/v.json" reason | grep -q "monkeypatching"'

expect_success "the honest idioms pass the static check of kjudge eval (the judge then needs a GPU: exit 3, not 1)" '
	for f in relu_os_event linear_nn_init; do
		t=$(hdr "$KJ_ROOT/examples/solutions/kernelbench/$f.py" task)
		KJ_PYTHON=$FAKE/python3 KJ_FAKE_CUDA=1 "$KJ" eval --json --quiet --backend kernelbench "$t" \
			"$KJ_ROOT/examples/solutions/kernelbench/$f.py" >"$TMP/v.json" 2>"$TMP/e"; rc=$?
		echo "$f: rc $rc status $(json_get "$TMP/v.json" status) $(cat "$TMP/e")"
		test "$(json_get "$TMP/v.json" status)" != rejected || exit 1
		if nvidia-smi -L >/dev/null 2>&1; then continue; fi
		test $rc -eq 3 || exit 1
	done'

expect_success "a syntax error is a compile_error naming its line" '
	KJ_PYTHON=$FAKE/python3 KJ_FAKE_CUDA=1 "$KJ" eval --json --quiet level1/relu \
		"$KJ_ROOT/examples/broken/triton/syntax_error.py" >"$TMP/v.json"; rc=$?
	test $rc -eq 1 && test "$(json_get "$TMP/v.json" status)" = compile_error &&
	json_get "$TMP/v.json" reason | grep -q "candidate.py:7: SyntaxError"'

expect_success "a static fallback is rejected under --policy strict" '
	KJ_PYTHON=$FAKE/python3 KJ_FAKE_CUDA=1 "$KJ" eval --json --quiet --policy strict --backend triton \
		level1/softmax "$KJ_ROOT/examples/redteam/20_py_torch_softmax.py" >"$TMP/v.json"; rc=$?
	test $rc -eq 1 && test "$(json_get "$TMP/v.json" status)" = rejected &&
	json_get "$TMP/v.json" reason | grep -q "torch softmax.*policy strict"'

expect_success "an honest candidate on a machine without a GPU: exit 3, 'no CUDA device'" '
	KJ_PYTHON=$FAKE/python3 KJ_FAKE_CUDA=1 "$KJ" eval --backend triton level1/relu \
		"$KJ_ROOT/examples/solutions/triton/relu.py" 2>"$TMP/e"; rc=$?
	cat "$TMP/e"
	if "$KJ" calibrate --help >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then exit 0; fi
	test $rc -eq 3 && grep -q "no CUDA device" "$TMP/e"'

expect_success "kjudge prompt --backend triton gives the exact signature and the rules" '
	"$KJ" prompt --backend triton level1/softmax >"$TMP/p.txt" &&
	grep -qF "def softmax(x, y, B: int, D: int) -> None:" "$TMP/p.txt" &&
	grep -qF "# x: torch.float32 [B, D], input (read only)" "$TMP/p.txt" &&
	grep -q "fallback" "$TMP/p.txt" && grep -q "monkeypatching" "$TMP/p.txt"'

expect_success "kjudge prompt --backend kernelbench lists the params in binding order" '
	"$KJ" prompt --backend kernelbench level1/linear >"$TMP/p.txt" &&
	grep -qF "class ModelNew(nn.Module):" "$TMP/p.txt" &&
	grep -qF "# parameter 0: w torch.float32 [OUT, IN]" "$TMP/p.txt" &&
	grep -qF "# parameter 1: b torch.float32 [OUT]" "$TMP/p.txt" &&
	grep -qF "def forward(self, x):" "$TMP/p.txt"'

expect_success "a .py file selects the triton backend; --help names the new backends" '
	"$KJ" eval --help | grep -q "triton" && "$KJ" prompt --help | grep -q kernelbench &&
	KJ_PYTHON=/nonexistent/python3 "$KJ" eval level1/relu "$KJ_ROOT/examples/solutions/triton/relu.py" \
		2>"$TMP/e"; grep -q "python3 not found" "$TMP/e"'

expect_success "kjudge run --backend triton without a GPU: exit 2, naming the backend" '
	printf "{\"task\": \"level1/relu\", \"path\": \"%s\"}\n" "$KJ_ROOT/examples/solutions/triton/relu.py" \
		>"$TMP/s.jsonl"
	(cd "$TMP" && "$KJ" run --backend triton s.jsonl) 2>"$TMP/e"; rc=$?
	cat "$TMP/e"
	if nvidia-smi -L >/dev/null 2>&1; then exit 0; fi
	test $rc -eq 2 && grep -q "the triton backend needs a CUDA device" "$TMP/e"'

done_testing
