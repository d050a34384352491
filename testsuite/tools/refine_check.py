#!/usr/bin/python3
"""Runs the dynamic programs of testsuite/tools/refine/ through tpurun at
several sizes (inputs as .npy files, as SHAPE=random and as literals) and
compares every result with NumPy.  Usage: refine_check.py BUILD TMP CACHE"""
import os, subprocess, sys
import numpy as np

build, tmp, cache = sys.argv[1:4]
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'refine')
rng = np.random.default_rng(7)
failures = 0


def conv1d(v, w):
    x = np.pad(v[0, :, 0], 1)
    return np.array([[[np.dot(x[i:i + 3], w[:, 0, 0])] for i in range(v.shape[1])]], np.float32)


# program -> (inputs of size n, expected results)
CASES = {
    'broadcast': (lambda n: [rng.standard_normal((n, 4), np.float32)],
                  lambda n, x: [np.broadcast_to(x, (2, n, 4)), np.int32(n)]),
    'reshape_iota': (lambda n: [rng.standard_normal((n, 4), np.float32)],
                     lambda n, x: [(x + np.arange(n, dtype=np.float32)[:, None]).reshape(-1)]),
    'pad_slice': (lambda n: [rng.standard_normal(n, np.float32), rng.standard_normal((n, 4), np.float32)],
                  lambda n, x, y: [np.concatenate([[0.5], np.insert(x, range(1, n), 0.5), np.full(n, 0.5)]).astype(np.float32),
                                   y[1:n, 0:4:2]]),
    'gather_conv': (lambda n: [rng.standard_normal((5, n), np.float32), np.array([[3], [1]], np.int32),
                               rng.standard_normal((1, n, 1), np.float32), rng.standard_normal((3, 1, 1), np.float32)],
                    lambda n, x, idx, v, w: [x[idx[:, 0], :], conv1d(v, w)]),
}


def run(name, n, inputs):
    """tpurun with the dimension variable n and .npy inputs; its results."""
    args = [f'--input=i64={n}']
    for i, a in enumerate(inputs):
        path = os.path.join(tmp, f'{name}_{n}_in{i}.npy')
        np.save(path, a)
        args.append(f'--input=@{path}')
    outs = [os.path.join(tmp, f'{name}_{n}_out{i}.npy') for i in range(2)]
    nres = len(CASES[name][1](n, *inputs))
    cmd = [f'{build}/tpurun', os.path.join(here, name + '.mlir'), f'--cache-dir={cache}'] + args + \
        [f'--output=@{p}' for p in outs[:nres]]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None, f'exit {r.returncode}: {r.stderr.strip()[:400]}'
    return [np.load(p) for p in outs[:nres]], None


for name, (make, expect) in CASES.items():
    for n in (2, 3, 5):
        inputs = make(n)
        got, err = run(name, n, inputs)
        want = expect(n, *inputs)
        if err:
            print(f'FAIL {name} n={n}: {err}'); failures += 1; continue
        for i, (g, w) in enumerate(zip(got, want)):
            w = np.asarray(w)
            if g.shape != w.shape or not np.allclose(g, w, rtol=1e-5, atol=1e-5):
                print(f'FAIL {name} n={n} result {i}: got {g.shape} {g.ravel()[:6]}, want {w.shape} {w.ravel()[:6]}')
                failures += 1
        if not failures: print(f'ok {name} n={n}')
sys.exit(1 if failures else 0)
