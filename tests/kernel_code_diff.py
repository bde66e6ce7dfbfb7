#!/usr/bin/env python3
"""kernel_code_diff.py BASE_DIR AFTER_DIR: the device code of two CUDA builds
compared kernel by kernel, to show that moving code between files changed no
kernel.  Each directory holds what `nvcc --keep --keep-dir DIR` leaves for
src/ops/cuda/*.cu built with the Makefile's NVFLAGS, e.g. after touching
the .cu files, `make -j2 NVFLAGS="<the Makefile's NVFLAGS> --keep --keep-dir
DIR"`, or nvcc per file with those flags into a tree exported by git archive.

- PTX (*.compute_*.ptx): every .entry and .func by name; a name may occur in
  several modules (a static helper, a template instantiated in two files),
  compared as a multiset byte for byte, or as a set once normalised: the
  debug line directives (.loc, .file) dropped, labels and the local depot
  renumbered in order of first use and comments dropped, since their
  numbers count the functions before it in its module (they change when a
  function moves to another file or its neighbours change);
- machine code (*.cubin): the bytes of each kernel's .text.<name> section.
Prints counts and the names that changed or have no counterpart.
"""
import glob
import os
import re
import struct
import sys
from collections import Counter, defaultdict

HEAD = re.compile(r'^(?:\.visible |\.weak |\.extern )*(\.entry|\.func)\s+(?:\([^)]*\)\s*)?([\w$]+)')

def funcs(path):
    out = []
    L = open(path).read().split('\n')
    i = 0
    while i < len(L):
        m = HEAD.match(L[i])
        if m:
            j = i
            while j < len(L) and L[j] != '{' and not L[j].rstrip().endswith(';'):
                j += 1
            if j < len(L) and L[j] == '{':
                k = j
                while L[k] != '}':
                    k += 1
                out.append((m.group(1), m.group(2), '\n'.join(L[i:k + 1])))
                i = k + 1
                continue
        i += 1
    return out

def strip(t):
    """The function without its debug line directives (.loc, .file), its
    labels and local depot renumbered in order of first use, its comments
    dropped (see the top of the file)."""
    t = '\n'.join(l for l in t.split('\n') if not re.match(r'^\s*\.(loc|file)\b', l))
    t = re.sub(r'//.*', '', t)
    names = {}
    def ren(m):
        return names.setdefault(m.group(0), '%s#%d' % (m.group(1), len(names)))
    return re.sub(r'(\$L__[A-Za-z]+|__local_depot)[0-9_]+', ren, t)

def load(d):
    by = defaultdict(lambda: defaultdict(list))  # (arch, kind) -> name -> [(file, text)]
    for p in sorted(glob.glob(os.path.join(d, '**', '*.compute_*.ptx'), recursive=True)):
        b = os.path.basename(p)
        src, arch = b.split('.')[0], b.split('.')[1]
        for kind, name, t in funcs(p):
            by[(arch, kind)][name].append((src, t))
    return by

def ptx_report(a, b):
    for key in sorted(set(a) | set(b)):
        A, B = a[key], b[key]
        same = sameloc = changed = 0
        lines = []
        moved = Counter()
        for n in sorted(set(A) | set(B)):
            if n not in B:
                lines.append('   only before: %s (%s)' % (n, ','.join(s for s, _ in A[n])))
                continue
            if n not in A:
                lines.append('   only after: %s (%s)' % (n, ','.join(s for s, _ in B[n])))
                continue
            ta, tb = Counter(t for _, t in A[n]), Counter(t for _, t in B[n])
            sa, sb = set(strip(t) for _, t in A[n]), set(strip(t) for _, t in B[n])
            fa, fb = sorted(s for s, _ in A[n]), sorted(s for s, _ in B[n])
            if fa != fb:
                moved['%s -> %s' % (','.join(fa), ','.join(fb))] += 1
            if ta == tb:
                same += 1
            elif sa == sb:
                sameloc += 1
            else:
                changed += 1
                lines.append('   changed: %s (%s -> %s)' % (n, ','.join(fa), ','.join(fb)))
        print('%s %s: %d names before, %d after; %d byte-identical, %d identical but for .loc/.file, label numbers and comments, '
              '%d changed, %d only before, %d only after' % (key[0], key[1], len(A), len(B), same, sameloc,
              changed, len(set(A) - set(B)), len(set(B) - set(A))))
        for m, c in sorted(moved.items()):
            print('   moved %s: %d' % (m, c))
        print('\n'.join(lines)) if lines else None


def sections(path):
    d = open(path, 'rb').read()
    shoff, = struct.unpack_from('<Q', d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', d, 0x3A)
    hdrs = [struct.unpack_from('<IIQQQQIIQQ', d, shoff + i * shentsize) for i in range(shnum)]
    stro = hdrs[shstrndx][4]
    out = {}
    for h in hdrs:
        name = d[stro + h[0]:d.index(b'\0', stro + h[0])].decode()
        if name.startswith('.text.') and h[1] != 8:  # not NOBITS
            out[name[6:]] = d[h[4]:h[4] + h[5]]
    return out

def load_sass(root):
    by = defaultdict(list)
    for p in glob.glob(os.path.join(root, '**', '*.cubin'), recursive=True):
        for n, b in sections(p).items():
            by[n].append(b)
    return by

def sass_report(a, b):
    same = sum(1 for n in a if n in b and sorted(a[n]) == sorted(b[n]))
    diff = [n for n in a if n in b and sorted(a[n]) != sorted(b[n])]
    print('sm_90a code: %d functions before, %d after; %d identical byte for byte, %d differ, %d only before, %d only after'
          % (len(a), len(b), same, len(diff), len(set(a) - set(b)), len(set(b) - set(a))))
    for n in sorted(diff):
        print('   differs:', n)


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    ptx_report(load(sys.argv[1]), load(sys.argv[2]))
    sass_report(load_sass(sys.argv[1]), load_sass(sys.argv[2]))
