"""Helpers for the kernel goldens of testsuite/golden/vm/.

Regenerate a file with `/usr/bin/python3 Inputs/gen_FAMILY.py` (it writes
../FAMILY.mlir, or the path given as its argument).  Each generator builds
a list of cases; every case is one argument-free
function: its inputs are constants passed through one
stablehlo.optimization_barrier (so -O2 can neither fold the op under test
nor see its operands' values, and the fused kernels run), then the op,
then check ops against expected values computed here with NumPy / Python
(never from tpurun's output).
"""
import math
import os
import struct
import sys

import numpy as np

QNAN = {'f16': 0x7E00, 'bf16': 0x7FC0, 'f32': 0x7FC00000, 'f64': 0x7FF8000000000000}
WIDTH = {'f16': 4, 'bf16': 4, 'f32': 8, 'f64': 16}
NPF = {'f16': np.float16, 'bf16': np.float32, 'f32': np.float32, 'f64': np.float64}
INTS = {'i8': np.int8, 'i16': np.int16, 'i32': np.int32, 'i64': np.int64,
        'ui8': np.uint8, 'ui16': np.uint16, 'ui32': np.uint32, 'ui64': np.uint64}


def bf16(x):
    """Rounds float32 values to bfloat16 (nearest even), kept as float32."""
    a = np.atleast_1d(np.asarray(x, dtype=np.float32)).copy()
    shape = np.shape(x)
    b = a.view(np.uint32).astype(np.uint64)
    nan = np.isnan(a)
    u16, one = np.uint64(16), np.uint64(1)
    r = ((b + np.uint64(0x7FFF) + ((b >> u16) & one)) >> u16) << u16
    out = r.astype(np.uint32).view(np.float32)
    out = np.where(nan, np.float32('nan'), out)
    return out.astype(np.float32).reshape(shape)


def npdt(ty):
    if ty in INTS:
        return INTS[ty]
    if ty == 'i1':
        return np.bool_
    if ty in NPF:
        return NPF[ty]
    if ty == 'complex<f32>':
        return np.complex64
    if ty == 'complex<f64>':
        return np.complex128
    raise ValueError(ty)


def arr(vals, ty):
    a = np.array(vals, dtype=npdt(ty))
    if ty == 'bf16':
        a = bf16(a)
    return a


def ffmt(x, ty):
    x = npdt(ty)(x) if ty != 'bf16' else np.float32(x)
    if math.isnan(float(x)):
        return '0x%0*X' % (WIDTH[ty], QNAN[ty])
    if math.isinf(float(x)):
        bits = {'f16': 0x7C00, 'bf16': 0x7F80, 'f32': 0x7F800000, 'f64': 0x7FF0000000000000}[ty]
        sign = {'f16': 0x8000, 'bf16': 0x8000, 'f32': 0x80000000, 'f64': 0x8000000000000000}[ty]
        return '0x%0*X' % (WIDTH[ty], bits | (sign if float(x) < 0 else 0))
    s = repr(x) if ty != 'bf16' else repr(np.float32(x))
    s = s.replace('np.float32(', '').replace('np.float16(', '').replace('np.float64(', '').rstrip(')')
    if 'e' not in s and '.' not in s:
        s += '.0'
    if s.startswith('e') or s.startswith('-e'):
        raise ValueError(s)
    return s


def efmt(x, ty):
    if ty == 'i1':
        return 'true' if bool(x) else 'false'
    if ty in INTS:
        return str(int(x))
    if ty.startswith('complex'):
        p = ty[8:-1]
        return '(%s, %s)' % (ffmt(np.real(x), p), ffmt(np.imag(x), p))
    return ffmt(x, ty)


def dense(a, ty):
    a = np.asarray(a)
    if a.size == 0:
        return 'dense<>'

    def rec(x):
        if x.ndim == 0:
            return efmt(x[()], ty)
        return '[' + ', '.join(rec(y) for y in x) + ']'
    return 'dense<%s>' % rec(a)


def tt(shape, ty):
    return 'tensor<%s%s>' % (''.join('%dx' % d for d in shape), ty)


class Case:
    def __init__(self, name, inputs, body, checks, comment=None):
        """inputs: list of (array, elemtype); body: MLIR lines using %a0..;
        checks: list of (ssa, expected array, elemtype, kind) where kind is
        'eq', ('almost', tol) or ('close', max_ulp)."""
        self.name, self.inputs, self.body, self.checks, self.comment = name, inputs, body, checks, comment

    def render(self):
        out = []
        if self.comment:
            for line in self.comment.split('\n'):
                out.append('// ' + line)
        out.append('func.func @%s() {' % self.name)
        types = []
        for i, (a, ty) in enumerate(self.inputs):
            t = tt(np.shape(a), ty)
            types.append(t)
            out.append('  %%c%d = stablehlo.constant %s : %s' % (i, dense(a, ty), t))
        if self.inputs:
            out.append('  %s = stablehlo.optimization_barrier %s : %s' % (
                ', '.join('%%a%d' % i for i in range(len(types))),
                ', '.join('%%c%d' % i for i in range(len(types))), ', '.join(types)))
        for line in self.body.strip('\n').split('\n'):
            out.append('  ' + line.strip())
        for ssa, exp, ty, kind in [c for c in self.checks if c is not None]:
            t = tt(np.shape(exp), ty)
            if kind == 'eq':
                out.append('  check.expect_eq_const %s, %s : %s' % (ssa, dense(exp, ty), t))
            elif kind[0] == 'almost':
                out.append('  check.expect_almost_eq_const %s, %s : %s {tolerance = %r : f64}' % (
                    ssa, dense(exp, ty), t, kind[1]))
            elif kind[0] == 'close':
                # expect_close compares two tensors: materialize the expected one.
                self._n = getattr(self, '_n', 0) + 1
                out.append('  %%exp%d = stablehlo.constant %s : %s' % (self._n, dense(exp, ty), t))
                out.append('  check.expect_close %s, %%exp%d, max_ulp_difference = %d : %s, %s' % (
                    ssa, self._n, kind[1], t, t))
            else:
                raise ValueError(kind)
        out.append('  func.return')
        out.append('}')
        return '\n'.join(out)


def out_path(name):
    """The file a generator writes: its argument, else ../NAME beside Inputs/."""
    if len(sys.argv) > 1:
        return sys.argv[1]
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', name)


def write(path, header, cases, gen, runs=None):
    n = sum(len(c.checks) for c in cases)
    lines = ['// ' + l if l else '//' for l in header.strip('\n').split('\n')]
    lines += [
        '//',
        '// Generated by Inputs/%s (expected values computed there' % gen,
        '// with NumPy / Python, independently of tpurun); edit the generator, not',
        '// this file.  Inputs pass through stablehlo.optimization_barrier so that',
        '// -O2 neither folds the ops nor loses the fused kernels.',
    ] + (runs or [
        '// RUN: %tpurun -O0 --check %s | FileCheck %s --implicit-check-not=FAIL',
        '// RUN: %tpurun --check %s | FileCheck %s --implicit-check-not=FAIL',
    ]) + [
        '// CHECK: checks: %d passed, 0 failed' % n,
        '',
    ]
    body = '\n\n'.join(c.render() for c in cases)
    with open(path, 'w') as f:
        f.write('\n'.join(lines) + body + '\n')
    return n
