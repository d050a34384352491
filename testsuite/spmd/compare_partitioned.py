#!/usr/bin/python3
"""Runs sharded programs partitioned and unpartitioned and compares them.

For each PROGRAM (a module on global shapes with mhlo.sharding annotations
and mhlo.num_partitions = N), tpurun runs it as written (tpucc partitions
it; tpurun takes global inputs and prints global results) and a copy with
every annotation removed and num_partitions = 1, on the same seeded random
inputs, at -O0 and -O2.  Floats must agree within rtol/atol 1e-4/1e-5
(NaNs in the same places), integers and booleans bit for bit.

usage: compare_partitioned.py --tpurun=PATH [--function=NAME] PROGRAM...
Prints one line per program; exit status 1 if any differs or fails."""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np


def strip_annotations(src):
    """The program with its shardings removed, on one partition."""
    src = re.sub(r',\s*mhlo\.sharding = "[^"]*"', '', src)
    src = re.sub(r'mhlo\.sharding = "[^"]*"(,\s*)?', '', src)
    src = re.sub(r'mhlo\.num_partitions = \d+', 'mhlo.num_partitions = 1', src)
    return re.sub(r' \{\s*\}', '', src)


def main_signature(src, function):
    src = re.sub(r'(?m)^\s*//.*$', '', src)
    m = re.search(r'func\.func public @%s\((.*?)\) -> (.*?) \{\n' % re.escape(function), src, re.S)
    if not m:
        m = re.search(r'func\.func public @%s\((.*?)\) \{\n' % re.escape(function), src, re.S)
        return (m.group(1) if m else ''), ''
    return m.group(1), m.group(2)


def count_top(s, what):
    """Occurrences of `what` outside quotes and nested brackets."""
    depth, quoted, n = 0, False, 0
    for i, ch in enumerate(s):
        if ch == '"':
            quoted = not quoted
        if quoted:
            continue
        if ch in '<{[(':
            depth += 1
        elif ch in '>}])':
            depth -= 1
        elif depth == 0 and s.startswith(what, i):
            n += 1
    return n


def run(tpurun, path, level, function, nargs, nres, tag, tmp):
    cmd = [tpurun, level, '--function=' + function, path]
    cmd += ['--input=random:%d' % (11 + i) for i in range(nargs)]
    outs = [os.path.join(tmp, '%s%s_%d.npy' % (tag, level, j)) for j in range(nres)]
    cmd += ['--output=@' + o for o in outs]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        return None, '%s exited %d: %s' % (' '.join(cmd), r.returncode, r.stderr.strip()[:800])
    return [np.load(o) for o in outs], None


def agree(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind in 'fc':
        return np.allclose(a, b, rtol=1e-4, atol=1e-5, equal_nan=True)
    return np.array_equal(a, b)


def compare(tpurun, path, function, tmp):
    src = open(path).read()
    ref = os.path.join(tmp, 'unpartitioned.mlir')
    with open(ref, 'w') as f:
        f.write(strip_annotations(src))
    args, results = main_signature(src, function)
    nargs = count_top(args, '%') if args.strip() else 0
    results = results.strip()
    nres = count_top(results[1:-1] if results.startswith('(') else results, 'tensor<')
    for level in ('-O0', '-O2'):
        want, err = run(tpurun, ref, level, function, nargs, nres, 'ref', tmp)
        if err:
            return err
        got, err = run(tpurun, path, level, function, nargs, nres, 'part', tmp)
        if err:
            return err
        for j, (a, b) in enumerate(zip(want, got)):
            if not agree(a, b):
                return '%s: result %d differs from the unpartitioned program (%s vs %s)' % (level, j, a.shape, b.shape)
    return None


def main(argv):
    tpurun, function, progs = None, 'main', []
    for a in argv:
        if a.startswith('--tpurun='):
            tpurun = a.split('=', 1)[1]
        elif a.startswith('--function='):
            function = a.split('=', 1)[1]
        else:
            progs.append(a)
    if not tpurun or not progs:
        sys.exit(__doc__)
    failed = 0
    for p in progs:
        with tempfile.TemporaryDirectory() as tmp:
            err = compare(tpurun, p, function, tmp)
        print('%s: %s' % (p, 'FAIL: ' + err if err else 'ok'))
        failed += err is not None
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main(sys.argv[1:])
