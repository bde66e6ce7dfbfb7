#!/usr/bin/env python3
"""Honest KernelBench-format candidates for problems of a KernelBench
checkout, written at run time into OUT (never into the project: the problem
files are KernelBench's, not ours).

  python3 bench/kb_cands.py KB_DIR OUT [--plain N] [--levels 1,2,3] [--inline]

KB_DIR is a checkout's root or any folder holding level1/ (or
KernelBench/level1/).  Two kinds, one file per problem, named
LEVEL__PROBLEM__KIND.py, and OUT/pairs.tsv listing "problem_path<TAB>candidate_path<TAB>kind":

  plain   N problems (--plain N, default 12; 0 for none), taken from the
          levels (--levels, default 1,2,3) in turn, each in problem order: the problem's own module, its class renamed to
          ModelNew (PyTorch operators only: kjudge flags it fallback);
  inline  the level-1 elementwise activations below: a ModelNew of our own
          whose forward runs one CUDA kernel built by
          torch.utils.cpp_extension.load_inline (a build per candidate).
"""
import argparse
import os
import re
import sys

# problem file stem -> the activation's CUDA expression of v (a float)
ACTIVATIONS = {
    "19_ReLU": "fmaxf(v, 0.0f)",
    "20_LeakyReLU": "v > 0.0f ? v : 0.01f * v",
    "21_Sigmoid": "1.0f / (1.0f + expf(-v))",
    "22_Tanh": "tanhf(v)",
    "25_Swish": "v / (1.0f + expf(-v))",
    "28_HardSigmoid": "fminf(fmaxf(v / 6.0f + 0.5f, 0.0f), 1.0f)",
    "30_Softsign": "v / (1.0f + fabsf(v))",
    "32_HardTanh": "fminf(fmaxf(v, -1.0f), 1.0f)",
}

INLINE = '''import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_cuda = r"""
#include <torch/extension.h>
__global__ void act_k(const float *__restrict__ x, float *__restrict__ y, long n) {
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
        float v = x[i];
        y[i] = %(expr)s;
    }
}
torch::Tensor act(torch::Tensor x) {
    auto y = torch::empty_like(x);
    long n = x.numel();
    int blocks = (int)((n + 255) / 256 < 65535 * 8 ? (n + 255) / 256 : 65535 * 8);
    act_k<<<blocks, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""
_cpp = "torch::Tensor act(torch::Tensor x);"
_mod = load_inline(name="kj_act_%(name)s", cpp_sources=_cpp, cuda_sources=_cuda, functions=["act"],
                   verbose=False)


class ModelNew(nn.Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, x):
        return _mod.act(x.contiguous())
'''


def level_dir(root, level):
    for d in (os.path.join(root, "KernelBench", "level%d" % level), os.path.join(root, "level%d" % level)):
        if os.path.isdir(d):
            return d
    return None


def problems(root, level):
    d = level_dir(root, level)
    if not d:
        return []
    def num(f):
        m = re.match(r"(\d+)_", f)
        return int(m.group(1)) if m else 1 << 30
    return [os.path.join(d, f) for f in sorted(os.listdir(d), key=num) if f.endswith(".py")]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kb_dir")
    ap.add_argument("out")
    ap.add_argument("--plain", type=int, default=12)
    ap.add_argument("--levels", default="1,2,3")
    ap.add_argument("--inline", action="store_true")
    a = ap.parse_args()
    if not level_dir(a.kb_dir, 1):
        sys.exit("kb_cands: no level1/ under %s (a KernelBench checkout)" % a.kb_dir)
    os.makedirs(a.out, exist_ok=True)
    pairs = []
    # levels 1, 2 and 3 in turn, each in problem order
    lists = [problems(a.kb_dir, int(lv)) for lv in a.levels.split(",") if lv.strip()]
    plain = [l[i] for i in range(max(map(len, lists))) for l in lists if i < len(l)][:a.plain]
    for p in plain:
        src = open(p).read()
        if not re.search(r"\bclass Model\b", src):
            continue
        lv = os.path.basename(os.path.dirname(p))
        out = os.path.join(a.out, "%s__%s__plain.py" % (lv, os.path.basename(p)[:-3]))
        with open(out, "w") as f:
            f.write(re.sub(r"\bModel\b", "ModelNew", src))
        pairs.append((p, out, "plain"))
    if a.inline:
        for p in problems(a.kb_dir, 1):
            stem = os.path.basename(p)[:-3]
            if stem not in ACTIVATIONS:
                continue
            out = os.path.join(a.out, "level1__%s__inline.py" % stem)
            name = re.sub(r"[^A-Za-z0-9_]", "_", stem)
            with open(out, "w") as f:
                f.write(INLINE % {"expr": ACTIVATIONS[stem], "name": name})
            pairs.append((p, out, "inline"))
    with open(os.path.join(a.out, "pairs.tsv"), "w") as f:
        for p, c, k in pairs:
            f.write("%s\t%s\t%s\n" % (os.path.abspath(p), os.path.abspath(c), k))
    print("kb_cands: %d candidates (%d plain, %d inline) in %s" %
          (len(pairs), sum(k == "plain" for _, _, k in pairs), sum(k == "inline" for _, _, k in pairs), a.out))


if __name__ == "__main__":
    main()
