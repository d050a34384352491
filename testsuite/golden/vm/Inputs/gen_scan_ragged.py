OUT = 'scan_ragged.mlir'
from kg import *
import numpy as np, math, sys, warnings
warnings.simplefilter('ignore')
C = []
rng = np.random.RandomState(5)

def scan(name, x, ty, init, ity, dim, body_ops, ref_step, reverse=False, comment=None, out_ty=None):
    """chlo.scan with one input and one carry; ref_step(slice, carry) -> (out, carry)."""
    a, c = arr(x, ty), arr(init, ity)
    out_ty = out_ty or ty
    n = a.shape[dim]
    outs = [None] * n
    carry = c.astype(np.float64) if ty.startswith(('f', 'bf')) else c.astype(np.int64)
    order = range(n - 1, -1, -1) if reverse else range(n)
    for i in order:
        o, carry = ref_step(np.take(a, i, axis=dim), carry)
        outs[i] = o
    e = np.stack(outs, axis=dim) if n else np.zeros(a.shape)
    st, ct = tt(c.shape, ity), tt(c.shape, ity)
    sl = tt(c.shape, ty)
    attrs = ' attributes {is_reverse = true}' if reverse else ''
    body = ['%%r:2 = chlo.scan(%%a0) inits(%%a1) dimension=%d%s {' % (dim, attrs),
            '^bb0(%%x: %s, %%c: %s):' % (sl, ct)] + ['  ' + l for l in body_ops] + \
           ['} : (%s, %s) -> (%s, %s)' % (tt(a.shape, ty), ct, tt(e.shape, out_ty), ct)]
    return Case(name, [(a, ty), (c, ity)], '\n'.join(body), [('%r#0', arr(e, out_ty), out_ty, 'eq'), ('%r#1', arr(carry, ity), ity, 'eq')], comment)

def wrap32(v):
    return (np.asarray(v, dtype=np.int64) + 2**31) % 2**32 - 2**31

C.append(scan('scan_cumsum_i32', [1, 2, 3, 4, 2**31 - 1], 'i32', 0, 'i32', 0,
              ['%s = stablehlo.add %x, %c : tensor<i32>', 'stablehlo.return %s, %s : tensor<i32>, tensor<i32>'],
              lambda x, c: (wrap32(c + x), wrap32(c + x)), comment='chlo.scan: inclusive prefix sum and the final carry; wraps'))
C.append(scan('scan_cumsum_reverse_f32', [1.0, 2.0, 4.0, 8.0], 'f32', 0.5, 'f32', 0,
              ['%s = stablehlo.add %x, %c : tensor<f32>', 'stablehlo.return %s, %s : tensor<f32>, tensor<f32>'],
              lambda x, c: (c + x, c + x), reverse=True, comment='is_reverse: suffix sums from the last element'))
C.append(scan('scan_cumprod_dim1_f64', [[1.0, 2.0, 3.0], [0.5, -4.0, 0.25]], 'f64', [1.0, 2.0], 'f64', 1,
              ['%m = stablehlo.multiply %x, %c : tensor<2xf64>', 'stablehlo.return %m, %m : tensor<2xf64>, tensor<2xf64>'],
              lambda x, c: (c * x, c * x), comment='along dimension 1: the carry is the input without that dimension'))
C.append(scan('scan_exclusive_i64', [[5, 1], [2, 7], [3, 3]], 'i64', [10, 20], 'i64', 0,
              ['%s = stablehlo.add %x, %c : tensor<2xi64>', 'stablehlo.return %c, %s : tensor<2xi64>, tensor<2xi64>'],
              lambda x, c: (c, c + x), comment='an exclusive scan: each output is the carry before the element'))
C.append(scan('scan_running_max_bf16', [1.0, -3.0, 4.0, 2.0, 8.0], 'bf16', -math.inf, 'bf16', 0,
              ['%m = stablehlo.maximum %x, %c : tensor<bf16>', 'stablehlo.return %m, %m : tensor<bf16>, tensor<bf16>'],
              lambda x, c: (max(c, x), max(c, x))))
C.append(scan('scan_empty', np.zeros((0,)), 'f32', 3.0, 'f32', 0,
              ['%s = stablehlo.add %x, %c : tensor<f32>', 'stablehlo.return %s, %s : tensor<f32>, tensor<f32>'],
              lambda x, c: (c + x, c + x), comment='an empty scan dimension: no output, the init carry'))
# two inputs, two carries: cummax with the index of the last maximum (the corpus's pattern)
X = np.array([3, 1, 4, 1, 5, 5, 2], dtype=np.int32)
I = np.arange(7, dtype=np.int32)
vals, idxs, rv, ri = [], [], -2**31, 0
for v, i in zip(X, I):
    if v >= rv:
        rv, ri = int(v), int(i)
    vals.append(rv); idxs.append(ri)
C.append(Case('scan_cummax_two_carries', [(X, 'i32'), (I, 'i32'), (np.array(-2**31, dtype=np.int32), 'i32'), (np.array(0, dtype=np.int32), 'i32')],
              '\n'.join(['%r:4 = chlo.scan(%a0, %a1) inits(%a2, %a3) dimension=0 {',
                         '^bb0(%v: tensor<i32>, %i: tensor<i32>, %rv: tensor<i32>, %ri: tensor<i32>):',
                         '  %ge = stablehlo.compare  GE, %v, %rv,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>',
                         '  %nv = stablehlo.select %ge, %v, %rv : tensor<i1>, tensor<i32>',
                         '  %ni = stablehlo.select %ge, %i, %ri : tensor<i1>, tensor<i32>',
                         '  stablehlo.return %nv, %ni, %nv, %ni : tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>',
                         '} : (tensor<7xi32>, tensor<7xi32>, tensor<i32>, tensor<i32>) -> (tensor<7xi32>, tensor<7xi32>, tensor<i32>, tensor<i32>)']),
              [('%r#0', np.array(vals, dtype=np.int32), 'i32', 'eq'), ('%r#1', np.array(idxs, dtype=np.int32), 'i32', 'eq'),
               ('%r#2', np.array(5, dtype=np.int32), 'i32', 'eq'), ('%r#3', np.array(5, dtype=np.int32), 'i32', 'eq')],
              'two inputs and two carries: a running maximum and the index of its last occurrence'))

# ---- chlo.ragged_dot
def ragged(name, lhs, rhs, gs, ty, dn, mode, comment=None, rty=None):
    """mode 1: lhs ragged dim non-contracting, rhs has a group dim: rows of
    group g use rhs[g], rows past the groups are zero.  mode 2: the ragged
    dim contracts: result[g] = lhs[:, group g] @ rhs[group g, :]."""
    L, R, G = np.asarray(lhs), np.asarray(rhs), list(gs)
    rty = rty or ty
    if mode == 1 and L.ndim == 2:
        m, n = L.shape[0], R.shape[2]
        e = np.zeros((m, n))
        start = 0
        for g, s in enumerate(G):
            e[start:start + s] = L[start:start + s] @ R[g]
            start += s
    elif mode == 1:  # batch dim 0 on lhs, 1 on rhs
        b, m, n = L.shape[0], L.shape[1], R.shape[3]
        e = np.zeros((b, m, n))
        for bi in range(b):
            start = 0
            for g, s in enumerate(G):
                e[bi, start:start + s] = L[bi, start:start + s] @ R[g, bi]
                start += s
    else:
        e = np.zeros((len(G), L.shape[0], R.shape[1]))
        start = 0
        for g, s in enumerate(G):
            e[g] = L[:, start:start + s] @ R[start:start + s]
            start += s
    a, b = arr(L, ty), arr(R, ty)
    gsa = np.array(G, dtype=np.int64)
    body = ('%%r = "chlo.ragged_dot"(%%a0, %%a1, %%a2) {ragged_dot_dimension_numbers = #chlo.ragged_dot<%s>, '
            'precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]} : (%s, %s, %s) -> %s') % (
        dn, tt(a.shape, ty), tt(b.shape, ty), tt(gsa.shape, 'i64'), tt(e.shape, rty))
    return Case(name, [(a, ty), (b, ty), (gsa, 'i64')], body, [('%r', arr(e, rty), rty, 'eq')], comment)

def ri(*shape):
    return rng.randint(-3, 4, size=shape)
D1 = ('lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], '
      'lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]')
C.append(ragged('ragged_dot_groups_f32', ri(7, 4), ri(3, 4, 5), [2, 4, 1], 'f32', D1, 1,
                'ragged rows (mode 1): rows 0-1 use rhs[0], rows 2-5 rhs[1], row 6 rhs[2]; small integers, exact'))
C.append(ragged('ragged_dot_short_groups_f32', ri(6, 3), ri(2, 3, 2), [1, 3], 'f32', D1, 1, 'groups covering 4 of 6 rows: the rest are zero'))
C.append(ragged('ragged_dot_empty_group_bf16', ri(5, 2), ri(3, 2, 3), [2, 0, 3], 'bf16', D1, 1, 'an empty group'))
C.append(ragged('ragged_dot_i32', ri(4, 3), ri(2, 3, 2), [3, 1], 'i32', D1, 1))
DB = ('lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], '
      'lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]')
C.append(ragged('ragged_dot_batch_f64', ri(2, 5, 3), ri(2, 2, 3, 4), [3, 2], 'f64', DB, 1, 'with a batch dimension'))
D2 = ('lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0], '
      'lhs_ragged_dimensions = [1], rhs_group_dimensions = []')
C.append(ragged('ragged_dot_contracting_f32', ri(3, 6), ri(6, 2), [2, 3, 1], 'f32', D2, 2,
                'ragged contracting dim (mode 2): one [m, n] result per group over its slice of k'))

HEADER = '''chlo.scan (vm/kernels/scan.c) and chlo.ragged_dot (vm/kernels/ragged.c):
inclusive, exclusive and reverse scans, along dimension 0 and 1, i32
(wrapping), i64, bf16, f32, f64, an empty scan dimension, two inputs with two
carries (running max and its index); ragged_dot with ragged rows (groups
covering all rows, fewer rows, an empty group, a batch dimension) and a
ragged contracting dimension, over f32, bf16, f64, i32.  References: the
loops of the scan and the per-group matrix products in NumPy (small
integers, exact).'''
print(write(out_path(OUT), HEADER, C, 'gen_scan_ragged.py'))
