OUT = 'linalg.mlir'
from kg import *
import numpy as np, math, sys, warnings, itertools
warnings.simplefilter('ignore')
inf, nan = math.inf, math.nan
C = []
rng = np.random.RandomState(1234)

def dot(name, a, aty, b, bty, rty, bd, cd, comment=None, kind='eq', ref=None):
    """dot_general; reference by np.einsum on exact (int-valued) inputs."""
    x, y = arr(a, aty), arr(b, bty)
    lb, rb = bd
    lc, rc = cd
    letters = 'abcdefghijklmnop'
    ls = [letters[i] for i in range(x.ndim)]
    rs = [letters[8 + i] for i in range(y.ndim)]
    for p, q in zip(lb, rb):
        rs[q] = ls[p]
    for p, q in zip(lc, rc):
        rs[q] = ls[p]
    out = [ls[i] for i in lb] + [ls[i] for i in range(x.ndim) if i not in lb and i not in lc] + \
          [rs[i] for i in range(y.ndim) if i not in rb and i not in rc]
    hi = np.complex128 if 'complex' in rty else np.float64 if rty.startswith(('f', 'bf')) else np.int64  # no overflow of int64 for these inputs; wrapped below
    e = np.einsum('%s,%s->%s' % (''.join(ls), ''.join(rs), ''.join(out)), x.astype(hi), y.astype(hi))
    if hi is np.int64:
        bits = int(''.join(c for c in rty if c.isdigit()))
        e = np.array([(int(v) + 2**(bits - 1)) % 2**bits - 2**(bits - 1) if not rty.startswith('u') else int(v) % 2**bits for v in e.ravel()], dtype=object).reshape(e.shape)
    e = arr(e, rty)
    dims = ''
    if lb:
        dims += 'batching_dims = %s x %s, ' % (list(lb), list(rb))
    dims += 'contracting_dims = %s x %s' % (list(lc), list(rc))
    body = '%%r = stablehlo.dot_general %%a0, %%a1, %s : (%s, %s) -> %s' % (dims, tt(x.shape, aty), tt(y.shape, bty), tt(e.shape, rty))
    return Case(name, [(x, aty), (y, bty)], body, [('%r', e, rty, kind)], comment)

def ri(*shape, lo=-4, hi=5):
    return rng.randint(lo, hi, size=shape)

C.append(dot('dot_matmul_f32', ri(3, 4), 'f32', ri(4, 5), 'f32', 'f32', ([], []), ([1], [0]), 'small integers: every order of summation is exact'))
C.append(dot('dot_batch_f32', ri(2, 3, 4), 'f32', ri(2, 4, 5), 'f32', 'f32', ([0], [0]), ([2], [1]), 'result dims: batch, lhs free, rhs free'))
C.append(dot('dot_transposed_contract_f64', ri(4, 3), 'f64', ri(5, 4), 'f64', 'f64', ([], []), ([0], [1]), 'contracting lhs dim 0 with rhs dim 1'))
C.append(dot('dot_two_contracting_i32', ri(2, 3, 4), 'i32', ri(4, 2, 5), 'i32', 'i32', ([], []), ([0, 2], [1, 0])))
C.append(dot('dot_batch_middle_bf16', ri(3, 2, 4), 'bf16', ri(4, 2, 3), 'bf16', 'bf16', ([1], [1]), ([2], [0]), 'a batch dimension in the middle'))
C.append(dot('dot_two_batch_f16', ri(2, 2, 3, 2), 'f16', ri(2, 2, 2, 3), 'f16', 'f16', ([0, 1], [0, 1]), ([3], [2])))
C.append(dot('dot_i8_to_i32', ri(4, 8, lo=-128, hi=128), 'i8', ri(8, 3, lo=-128, hi=128), 'i8', 'i32', ([], []), ([1], [0]),
             'i8 operands accumulate in the i32 result type'))
C.append(dot('dot_i32_wrap', [[2**30, 2**30, 2**30]], 'i32', [[2], [1], [1]], 'i32', 'i32', ([], []), ([1], [0]), 'i32 sums wrap'))
C.append(dot('dot_ui8_to_ui32', [[255, 255]], 'ui8', [[255], [255]], 'ui8', 'ui32', ([], []), ([1], [0])))
C.append(dot('dot_i64', ri(2, 3, lo=-2**20, hi=2**20), 'i64', ri(3, 2, lo=-2**20, hi=2**20), 'i64', 'i64', ([], []), ([1], [0])))
C.append(dot('dot_vector_f32', ri(7), 'f32', ri(7), 'f32', 'f32', ([], []), ([0], [0]), 'an inner product: a rank-0 result'))
C.append(dot('dot_outer_f32', ri(3), 'f32', ri(2), 'f32', 'f32', ([], []), ([], []), 'no contracting dimension: an outer product'))
C.append(dot('dot_matvec_f64', ri(3, 5), 'f64', ri(5), 'f64', 'f64', ([], []), ([1], [0])))
C.append(dot('dot_c64', ri(2, 3) + 1j * ri(2, 3), 'complex<f32>', ri(3, 2) - 1j * ri(3, 2), 'complex<f32>', 'complex<f32>', ([], []), ([1], [0]),
             'complex products, no conjugation'))
C.append(dot('dot_c128_batch', ri(2, 2, 2) + 1j * ri(2, 2, 2), 'complex<f64>', ri(2, 2, 2) * 1j, 'complex<f64>', 'complex<f64>', ([0], [0]), ([2], [1])))
C.append(dot('dot_empty_contract', np.zeros((3, 0)), 'f32', np.zeros((0, 2)), 'f32', 'f32', ([], []), ([1], [0]), 'an empty contracting dimension gives zeros'))
C.append(dot('dot_empty_free', np.zeros((0, 4)), 'f32', ri(4, 2), 'f32', 'f32', ([], []), ([1], [0])))
C.append(dot('dot_bf16_to_f32', ri(3, 64), 'bf16', ri(64, 2), 'bf16', 'f32', ([], []), ([1], [0]), 'bf16 operands, f32 result'))
C.append(dot('dot_large_f32', ri(129, 16), 'f32', ri(16, 130), 'f32', 'f32', ([], []), ([1], [0]), 'a result larger than one (128, 128) tile'))
C.append(dot('dot_large_batch_i32', ri(2, 9, 300, lo=-50, hi=50), 'i32', ri(2, 300, 5, lo=-50, hi=50), 'i32', 'i32', ([0], [0]), ([2], [1]),
             'a contracting dimension of 300, longer than a tile'))
C.append(dot('dot_nan_inf_f32', [[inf, 1.0], [nan, 0.0], [0.0, 2.0]], 'f32', [[0.0], [1.0]], 'f32', 'f32', ([], []), ([1], [0]),
             'inf * 0 = NaN, NaN propagates'))
C.append(dot('dot_ui64_wrap', [[2**64 - 1, 2]], 'ui64', [[3], [2**63]], 'ui64', 'ui64', ([], []), ([1], [0]), 'ui64 products and sums wrap'))

# ---- cholesky: A = L L^H for small integer L (exact in floating point)
def chol(name, L, ty, lower, comment=None):
    L = np.asarray(L)
    A = L @ np.conj(np.swapaxes(L, -1, -2))
    exp = L if lower else np.conj(np.swapaxes(L, -1, -2))
    n = L.shape[-1]
    mask = np.broadcast_to(np.tril(np.ones((n, n), dtype=bool)) if lower else np.triu(np.ones((n, n), dtype=bool)), L.shape)
    # the other triangle of the input holds garbage: it must not be read
    Ain = np.where(mask, A, 99)
    t = tt(L.shape, ty)
    body = ('%%r = "stablehlo.cholesky"(%%a0) {lower = %s} : (%s) -> %s\n'
            '%%z = stablehlo.constant dense<0.0> : %s\n'
            '%%k = stablehlo.select %%a1, %%r, %%z : %s, %s') % (
        'true' if lower else 'false', t, t, t, tt(L.shape, 'i1'), t)
    if 'complex' in ty:
        body = body.replace('dense<0.0>', 'dense<(0.0, 0.0)>')
    return Case(name, [(Ain, ty), (mask, 'i1')], body, [('%k', np.where(mask, exp, 0), ty, 'eq')],
                comment or 'cholesky: the other triangle of the result is implementation-defined, so it is masked out')
L3 = np.array([[2, 0, 0], [1, 3, 0], [-1, 2, 4]])
C.append(chol('cholesky_lower_f32', L3, 'f32', True))
C.append(chol('cholesky_upper_f64', L3, 'f64', False, 'upper: A = U^T U; the input\'s lower triangle is not read'))
C.append(chol('cholesky_batch_f64', np.stack([L3, [[1, 0, 0], [-2, 5, 0], [3, 0, 1]]]), 'f64', True))
C.append(chol('cholesky_c128', np.array([[2, 0, 0], [1 + 1j, 3, 0], [-1j, 2 - 2j, 1]]), 'complex<f64>', True, 'Hermitian: A = L L^H'))
C.append(chol('cholesky_1x1', [[[3.0]]], 'f32', True))

# ---- triangular_solve
TR = {0: 'NO_TRANSPOSE', 1: 'TRANSPOSE', 2: 'ADJOINT'}
def trsm(name, A, B, ty, left, lower, unit, trans, tol):
    A = np.asarray(A); B = np.asarray(B)
    n = A.shape[-1]
    tri = np.tril(A) if lower else np.triu(A)
    if unit:
        tri = tri - np.diag(np.diag(tri)) + np.eye(n) if A.ndim == 2 else tri - np.eye(n) * np.diagonal(tri, axis1=-2, axis2=-1)[..., None, :] + np.eye(n)
    op = tri if trans == 0 else np.swapaxes(tri, -1, -2) if trans == 1 else np.conj(np.swapaxes(tri, -1, -2))
    # A's other triangle (and its diagonal when unit) hold garbage that must not be read
    garbage = np.where(np.tril(np.ones((n, n), dtype=bool)) if lower else np.triu(np.ones((n, n), dtype=bool)), A, 77.0)
    if unit:
        garbage = garbage + 0 * garbage
        idx = np.arange(n)
        garbage[..., idx, idx] = 55.0
    X = np.linalg.solve(op, B) if left else np.swapaxes(np.linalg.solve(np.swapaxes(op, -1, -2), np.swapaxes(B, -1, -2)), -1, -2)
    body = ('%%r = "stablehlo.triangular_solve"(%%a0, %%a1) {left_side = %s, lower = %s, unit_diagonal = %s, transpose_a = #stablehlo<transpose %s>} : (%s, %s) -> %s') % (
        str(left).lower(), str(lower).lower(), str(unit).lower(), TR[trans], tt(A.shape, ty), tt(B.shape, ty), tt(B.shape, ty))
    return Case(name, [(garbage, ty), (B, ty)], body, [('%r', X, ty, ('almost', tol))])
A4 = np.array([[2.0, 0.5, -1.0, 3.0], [1.0, -4.0, 2.0, 0.25], [0.5, 1.5, 3.0, -2.0], [-1.0, 2.0, 0.75, 5.0]])
Bl = np.array([[1.0, 2.0], [-3.0, 0.5], [4.0, -1.0], [0.0, 2.5]])
Br = Bl.T.copy()
for left, lower, unit, trans in itertools.product((True, False), (True, False), (False, True), (0, 1, 2)):
    name = 'trsm_%s_%s_%s_%s_f64' % ('left' if left else 'right', 'lower' if lower else 'upper', 'unit' if unit else 'diag', TR[trans].lower())
    C.append(trsm(name, A4, Bl if left else Br, 'f64', left, lower, unit, trans, 1e-12))
C[-24].comment = ('triangular_solve: every combination of left_side, lower, unit_diagonal and transpose_a\n'
                  '(the unread triangle holds 77 and, with unit_diagonal, the diagonal 55)')
C.append(trsm('trsm_left_lower_f32', A4, Bl, 'f32', True, True, False, 0, 1e-5))
C.append(trsm('trsm_right_upper_transpose_f32', A4, Br, 'f32', False, False, False, 1, 1e-5))
Ac = A4 + 1j * np.array([[0, 1, 2, 3], [1, 0, -1, 2], [-2, 0.5, 0, 1], [1, 1, 1, 0]])
Bc = Bl + 1j * Bl[::-1]
for trans in (0, 1, 2):
    C.append(trsm('trsm_left_lower_%s_c128' % TR[trans].lower(), Ac, Bc, 'complex<f64>', True, True, False, trans, 1e-12))
C[-3].comment = 'complex: TRANSPOSE and ADJOINT differ by the conjugation'
C.append(trsm('trsm_right_upper_adjoint_c64', Ac, Bc.T.copy(), 'complex<f32>', False, False, False, 2, 1e-5))
C.append(trsm('trsm_batch_f64', np.stack([A4, A4 * 2]), np.stack([Bl, -Bl]), 'f64', True, False, False, 0, 1e-12))

# ---- larger factorizations and solves, past the 128-wide diagonal blocks.
# The operands are built in the program from iota by a formula (exact binary
# fractions), so no large constant is needed: cholesky(L L^T) is checked
# against L itself, and triangular_solve(A, A X) against X.
def formula_matrix(n, ty, lower, diag, name):
    """%name = a triangular n x n matrix: off-diagonal ((7 i + 3 j) mod 11 - 5) / 8
    in the triangle, diag on the diagonal, zero elsewhere."""
    t, it, bt = tt((n, n), ty), tt((n, n), 'i32'), tt((n, n), 'i1')
    return [
        '%%%s_i = stablehlo.iota dim = 0 : %s' % (name, it),
        '%%%s_j = stablehlo.iota dim = 1 : %s' % (name, it),
        '%%%s_c7 = stablehlo.constant dense<7> : %s' % (name, it),
        '%%%s_c3 = stablehlo.constant dense<3> : %s' % (name, it),
        '%%%s_c11 = stablehlo.constant dense<11> : %s' % (name, it),
        '%%%s_c5 = stablehlo.constant dense<5> : %s' % (name, it),
        '%%%s_p = stablehlo.multiply %%%s_i, %%%s_c7 : %s' % (name, name, name, it),
        '%%%s_q = stablehlo.multiply %%%s_j, %%%s_c3 : %s' % (name, name, name, it),
        '%%%s_s = stablehlo.add %%%s_p, %%%s_q : %s' % (name, name, name, it),
        '%%%s_m = stablehlo.remainder %%%s_s, %%%s_c11 : %s' % (name, name, name, it),
        '%%%s_k = stablehlo.subtract %%%s_m, %%%s_c5 : %s' % (name, name, name, it),
        '%%%s_f = stablehlo.convert %%%s_k : (%s) -> %s' % (name, name, it, t),
        '%%%s_e = stablehlo.constant dense<0.125> : %s' % (name, t),
        '%%%s_v = stablehlo.multiply %%%s_f, %%%s_e : %s' % (name, name, name, t),
        '%%%s_d = stablehlo.constant dense<%r> : %s' % (name, float(diag), t),
        '%%%s_z = stablehlo.constant dense<0.0> : %s' % (name, t),
        '%%%s_tri = stablehlo.compare  %s, %%%s_i, %%%s_j,  SIGNED : (%s, %s) -> %s' % (name, 'GT' if lower else 'LT', name, name, it, it, bt),
        '%%%s_dg = stablehlo.compare  EQ, %%%s_i, %%%s_j,  SIGNED : (%s, %s) -> %s' % (name, name, name, it, it, bt),
        '%%%s_o = stablehlo.select %%%s_tri, %%%s_v, %%%s_z : %s, %s' % (name, name, name, name, bt, t),
        '%%%s = stablehlo.select %%%s_dg, %%%s_d, %%%s_o : %s, %s' % (name, name, name, name, bt, t),
    ]

def formula_np(n, lower, diag):
    i, j = np.indices((n, n))
    v = (((7 * i + 3 * j) % 11) - 5) / 8
    return np.where(i == j, diag, np.where(i > j if lower else i < j, v, 0.0))

def big_cholesky(name, n, ty, comment=None):
    L = formula_np(n, True, 2.0)
    assert np.allclose(np.linalg.cholesky(L @ L.T), L)  # the formula is the factor
    t = tt((n, n), ty)
    body = formula_matrix(n, ty, True, 2.0, 'L') + [
        '%%A = stablehlo.dot_general %%L, %%L, contracting_dims = [1] x [1] : (%s, %s) -> %s' % (t, t, t),
        '%Ab = stablehlo.optimization_barrier %A : ' + t,
        '%r = "stablehlo.cholesky"(%Ab) {lower = true} : (' + t + ') -> ' + t,
        '%%low = stablehlo.compare  GE, %%L_i, %%L_j,  SIGNED : (%s, %s) -> %s' % (tt((n, n), 'i32'), tt((n, n), 'i32'), tt((n, n), 'i1')),
        '%k = stablehlo.select %low, %r, %L_z : ' + tt((n, n), 'i1') + ', ' + t,
        'check.expect_eq %k, %L : ' + t]
    c = Case(name, [], '\n'.join(body), [], comment)
    c.checks = [None]  # one check, written in the body
    return c

def big_trsm(name, n, m, ty, lower, trans, tol, comment=None):
    A = formula_np(n, lower, 3.0)
    i, j = np.indices((n, m))
    X = ((5 * i + j) % 9 - 4) / 4
    op = A if trans == 0 else A.T
    assert np.allclose(np.linalg.solve(op, op @ X), X)
    t, bt = tt((n, n), ty), tt((n, m), ty)
    xi = tt((n, m), 'i32')
    cd = '[1] x [0]' if trans == 0 else '[0] x [0]'
    body = formula_matrix(n, ty, lower, 3.0, 'A') + [
        '%X_i = stablehlo.iota dim = 0 : ' + xi,
        '%X_j = stablehlo.iota dim = 1 : ' + xi,
        '%X_c5 = stablehlo.constant dense<5> : ' + xi,
        '%X_c9 = stablehlo.constant dense<9> : ' + xi,
        '%X_c4 = stablehlo.constant dense<4> : ' + xi,
        '%X_p = stablehlo.multiply %X_i, %X_c5 : ' + xi,
        '%X_s = stablehlo.add %X_p, %X_j : ' + xi,
        '%X_m = stablehlo.remainder %X_s, %X_c9 : ' + xi,
        '%X_k = stablehlo.subtract %X_m, %X_c4 : ' + xi,
        '%X_f = stablehlo.convert %X_k : (' + xi + ') -> ' + bt,
        '%X_q = stablehlo.constant dense<0.25> : ' + bt,
        '%X = stablehlo.multiply %X_f, %X_q : ' + bt,
        '%%B = stablehlo.dot_general %%A, %%X, contracting_dims = %s : (%s, %s) -> %s' % (cd, t, bt, bt),
        '%Ab, %Bb = stablehlo.optimization_barrier %A, %B : ' + t + ', ' + bt,
        '%%r = "stablehlo.triangular_solve"(%%Ab, %%Bb) {left_side = true, lower = %s, unit_diagonal = false, transpose_a = #stablehlo<transpose %s>} : (%s, %s) -> %s' % (
            str(lower).lower(), TR[trans], t, bt, bt),
        'check.expect_almost_eq %%r, %%X {tolerance = %r : f64} : %s' % (tol, bt)]
    c = Case(name, [], '\n'.join(body).replace('%%', '%'), [], comment)
    c.checks = [None]
    return c

C.append(big_cholesky('cholesky_200_f64', 200, 'f64', 'a 200x200 Cholesky factor (past the 128 blocks) of L L^T, L built from iota; compared with L exactly'))
C.append(big_cholesky('cholesky_140_f32', 140, 'f32'))
C.append(big_trsm('trsm_200_lower_f64', 200, 6, 'f64', True, 0, 1e-12, 'a 200x200 triangular solve of A X, A and X built from iota, against X'))
C.append(big_trsm('trsm_200_upper_transpose_f64', 200, 6, 'f64', False, 1, 1e-12))
C.append(big_trsm('trsm_140_lower_f32', 140, 3, 'f32', True, 0, 1e-5))

HEADER = '''Linear algebra kernels (vm/kernels/linalg.c, gemm.c): dot_general with
batch dims (leading, middle, two), contracting dims (transposed, two, none,
empty), matrix-vector and inner products, i8 -> i32, ui8 -> ui32 and bf16 ->
f32 accumulation, wrapping i32 sums, i64, f16, bf16, f32, f64, complex,
operands larger than a (128, 128) tile, inf * 0; cholesky (lower, upper,
batched, complex Hermitian, 1x1; inputs L L^H of small integer L, so the
factor is exact; the unread triangle holds garbage and the result's other
triangle is masked); triangular_solve in all 24 combinations of left_side /
lower / unit_diagonal / transpose_a on f64, plus f32, complex TRANSPOSE vs
ADJOINT and a batch (unread entries hold garbage).  References: np.einsum on
small integers (exact) and np.linalg.solve (within 1e-12 / 1e-5).'''
print(write(out_path(OUT), HEADER, C, 'gen_linalg.py'))
