#!/usr/bin/env python3
"""Writes docs/ops.md's index of ops: op -> registry table entry -> CPU kernel
file -> CUDA file, found from the code rather than by hand.

usage: tests/ops_index.py [--build DIR] [--update docs/ops.md | --check docs/ops.md]

- the op and its table: the entries of kj_ops_X[] in src/ops/table_X.c,
  read from the preprocessed file (`cc -E`), with the CPU kernel each one
  names (kj_cpu64_K);
- the CPU file: the file in which kj_cpu64_K is defined once
  src/ops/cpu/cpu64_X.c is preprocessed (the line markers name the *_impl.h
  that expands the definition, macros included);
- the CUDA file: the function that src/ops/cuda/ops_table.cu gives the op
  (an explicit {"name", kj_cuda_F} entry, else kj_cuda_NAME), and the
  object of DIR (default build) that defines it (nm), i.e. the .cu it is
  compiled from.  Needs a CUDA build.

Without --update or --check it prints the table.  --update rewrites the block
between <!-- ops-index:begin --> and <!-- ops-index:end -->; --check exits 1
when that block differs from what the code says.
"""
import bisect
import glob
import os
import re
import subprocess
import sys

BEGIN, END = '<!-- ops-index:begin -->', '<!-- ops-index:end -->'
CC = os.environ.get('CC', 'cc')


def preprocess(path):
    return subprocess.run([CC, '-E', '-std=c11', '-D_GNU_SOURCE', '-Iinclude', '-Isrc', path],
                          check=True, capture_output=True, text=True).stdout


def table_entries(path):
    """[(op name, cpu kernel)] of the kj_ops_X[] array of a table file."""
    text = preprocess(path)
    m = re.search(r'const kj_op kj_ops_[a-z]\[\] = \{(.*?)\n\};', text, re.S)
    if not m:
        sys.exit('ops_index: no kj_ops_X[] in %s' % path)
    body = re.sub(r'^#.*$', '', m.group(1), flags=re.M)
    out = []
    for e in re.finditer(r'\{\s*(?:\.name\s*=\s*)?"(\w+)"\s*,', body):
        k = re.compile(r'kj_cpu64_(\w+)').search(body, e.end())
        out.append((e.group(1), k.group(1)))
    return out


def cpu_files():
    """kernel -> the file that defines kj_cpu64_kernel."""
    where = {}
    for c in sorted(glob.glob('src/ops/cpu/cpu64_*.c')):
        cur, text, files = c, [], []
        for line in preprocess(c).split('\n'):
            lm = re.match(r'^# \d+ "([^"]+)"', line)
            if lm:
                cur = lm.group(1)
                continue
            text.append(line)
            files.append(cur)
        joined = '\n'.join(text)
        starts = [0]
        for line in text:
            starts.append(starts[-1] + len(line) + 1)
        for d in re.finditer(r'\bkj_cpu64_(\w+)\s*\(', joined):
            rest = joined[d.end():]
            semi, brace = rest.find(';'), rest.find('{')
            if brace < 0 or (0 <= semi < brace):
                continue  # a declaration or a use
            line_no = bisect.bisect_right(starts, d.start()) - 1
            where.setdefault(d.group(1), os.path.normpath(files[line_no]))
    return where


def cuda_fns():
    """op name -> kj_cuda_ function, from ops_table.cu's explicit entries."""
    text = open('src/ops/cuda/ops_table.cu').read()
    return dict(re.findall(r'\{"(\w+)", (kj_cuda_\w+)\}', text))


def cuda_files(build):
    """kj_cuda_ function -> the .cu whose object defines it."""
    where = {}
    for o in sorted(glob.glob(os.path.join(build, 'obj/src/ops/cuda/*.o'))):
        out = subprocess.run(['nm', '--defined-only', '-C', o], check=True,
                             capture_output=True, text=True).stdout
        src = 'src/ops/cuda/' + os.path.basename(o)[:-2] + '.cu'
        if not os.path.exists(src):
            continue  # left in the build by a file since moved or removed
        for m in re.finditer(r' T (kj_cuda_\w+)\(', out):
            where.setdefault(m.group(1), src)
    return where


def render(build):
    cpu, fns, cu = cpu_files(), cuda_fns(), cuda_files(build)
    if not cu:
        sys.exit('ops_index: no CUDA objects under %s/obj/src/ops/cuda (a CUDA build is needed)'
                 % build)
    rows = ['| op | table entry | CPU file | CUDA file |', '|---|---|---|---|']
    for t in sorted(glob.glob('src/ops/table_*.c')):
        for name, k in table_entries(t):
            fn = fns.get(name, 'kj_cuda_' + name)
            if k not in cpu:
                sys.exit('ops_index: no definition of kj_cpu64_%s (op %s)' % (k, name))
            if fn not in cu:
                sys.exit('ops_index: no object defines %s (op %s)' % (fn, name))
            rows.append('| `%s` | `%s` | `%s` | `%s` |' % (name, t, cpu[k], cu[fn]))
    return '\n'.join(rows)


def main(argv):
    build, mode, doc = 'build', None, None
    i = 1
    while i < len(argv):
        if argv[i] == '--build' and i + 1 < len(argv):
            build = argv[i + 1]
            i += 2
        elif argv[i] in ('--update', '--check') and i + 1 < len(argv):
            mode, doc = argv[i], argv[i + 1]
            i += 2
        else:
            sys.exit(__doc__.split('\n\n')[1])
    table = render(build)
    if not mode:
        print(table)
        return 0
    text = open(doc).read()
    a, b = text.find(BEGIN), text.find(END)
    if a < 0 or b < a:
        sys.exit('ops_index: %s has no %s ... %s block' % (doc, BEGIN, END))
    new = text[:a + len(BEGIN)] + '\n' + table + '\n' + text[b:]
    if mode == '--check':
        if new != text:
            sys.stderr.write('ops_index: %s is out of date; run tests/ops_index.py --update %s\n'
                             % (doc, doc))
            return 1
        return 0
    open(doc, 'w').write(new)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
