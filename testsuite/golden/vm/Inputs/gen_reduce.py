OUT = 'reduce.mlir'
from kg import *
import numpy as np, math, sys, warnings
warnings.simplefilter('ignore')
inf, nan = math.inf, math.nan
C = []

def red(name, a, ty, init, op, dims, exp, rty=None, comment=None, kind='eq'):
    """reduce with a one-op body on the body type rty (promotion when rty != ty)."""
    rty = rty or ty
    x = arr(a, ty) if ty != 'i1' else np.asarray(a, dtype=bool)
    i = arr(init, ty) if ty != 'i1' else np.asarray(init, dtype=bool)
    e = arr(exp, rty) if rty != 'i1' else np.asarray(exp, dtype=bool)
    s = tt((), rty)
    body = ('%%r = stablehlo.reduce(%%a0 init: %%a1) across dimensions = %s : (%s, %s) -> %s\n'
            '  reducer(%%x: %s, %%y: %s) {\n'
            '    %%s = stablehlo.%s %%x, %%y : %s\n'
            '    stablehlo.return %%s : %s\n'
            '  }') % (list(dims), tt(x.shape, ty), tt((), ty), tt(e.shape, rty), s, s, op, s, s)
    return Case(name, [(x, ty), (i, ty)], body, [('%r', e, rty, kind)], comment)

M = np.array([[1, 2, 3, 4], [5, 6, 7, 8], [-9, 10, 11, -12]])
C.append(red('reduce_add_f32_dim1', M, 'f32', 0.0, 'add', [1], M.sum(1), comment='integer-valued floats: exact in any order'))
C.append(red('reduce_add_f32_all', M, 'f32', 0.5, 'add', [0, 1], M.sum() + 0.5, comment='to rank 0; the init value is folded in once'))
C.append(red('reduce_add_f64_dim0', M / 8, 'f64', 0.0, 'add', [0], (M / 8).sum(0)))
C.append(red('reduce_add_i32_wrap', [2**31 - 1, 1, 5], 'i32', 0, 'add', [0], -2**31 + 5, comment='integer sums wrap'))
C.append(red('reduce_add_ui8', [[200, 100], [1, 2]], 'ui8', 0, 'add', [1], [44, 3]))
C.append(red('reduce_mul_i64', [[3, -2, 7], [2**32, 2**32, 1]], 'i64', 1, 'multiply', [1], [-42, 0], comment='2^32 * 2^32 wraps to 0'))
C.append(red('reduce_mul_f32', [[0.5, 4.0, -2.0], [inf, 0.0, 1.0]], 'f32', 1.0, 'multiply', [1], [-4.0, nan]))
C.append(red('reduce_max_f32_nan', [[1.0, nan, 3.0], [-inf, -5.0, -inf]], 'f32', -inf, 'maximum', [1], [nan, -5.0], comment='max: NaN propagates'))
C.append(red('reduce_min_f32', [[1.0, -0.5, 3.0], [inf, inf, inf]], 'f32', inf, 'minimum', [1], [-0.5, inf]))
C.append(red('reduce_max_i8', M, 'i8', -128, 'maximum', [0], M.max(0)))
C.append(red('reduce_min_ui8', [[255, 3], [7, 200]], 'ui8', 255, 'minimum', [0], [7, 3]))
C.append(red('reduce_max_ui64', [2**64 - 1, 5], 'ui64', 0, 'maximum', [0], 2**64 - 1))
C.append(red('reduce_min_i64', [-2**63, 2**63 - 1], 'i64', 2**63 - 1, 'minimum', [0], -2**63))
C.append(red('reduce_and_i1', [[True, True], [True, False]], 'i1', True, 'and', [1], [True, False]))
C.append(red('reduce_or_i1', [[False, False], [True, False]], 'i1', False, 'or', [1], [False, True]))
C.append(red('reduce_and_i32', [[0xFF, 0x0F], [-1, -2]], 'i32', -1, 'and', [1], [0x0F, -2]))
C.append(red('reduce_or_ui16', [[0x100, 0x1], [0, 0]], 'ui16', 0, 'or', [1], [0x101, 0]))
C.append(red('reduce_xor_i8', [[1, 2, 3], [-1, 1, 0]], 'i8', 0, 'xor', [1], [0, -2]))
C.append(red('reduce_add_bf16', [[1.0, 0.00390625], [3.0, 0.0078125]], 'bf16', 0.0, 'add', [1], [1.0, 3.0],
             comment='bf16 sums round to bf16: 1 + 2^-8 and 3 + 2^-7 tie to even'))
C.append(red('reduce_add_c64', [[1 + 1j, 2 - 3j], [0.5j, -1 + 0j]], 'complex<f32>', 0j, 'add', [1], [3 - 2j, -1 + 0.5j]))
C.append(red('reduce_max_f16', [[1.0, 65504.0], [-2.0, -65504.0]], 'f16', -inf, 'maximum', [1], [65504.0, -2.0]))
C.append(red('reduce_empty_dim', np.zeros((3, 0)), 'f32', 2.5, 'add', [1], [2.5, 2.5, 2.5], comment='an empty reduced dimension gives the init value'))
C.append(red('reduce_3d_middle', np.arange(24).reshape(2, 3, 4), 'i32', 0, 'add', [1], np.arange(24).reshape(2, 3, 4).sum(1)))
C.append(red('reduce_3d_outer', np.arange(24).reshape(2, 3, 4), 'i32', 100, 'maximum', [0, 2], np.maximum(np.arange(24).reshape(2, 3, 4).max((0, 2)), 100)))
C.append(red('reduce_no_dims', [1.5, 2.5], 'f32', 10.0, 'add', [], [11.5, 12.5], comment='no reduced dimension: each element is combined with the init'))
# promoted: input type narrower than the body's
C.append(red('reduce_promoted_bf16_f32', [[1.0, 0.00390625, 0.00390625, 0.00390625]], 'bf16', 0.0, 'add', [1], [1.01171875], rty='f32',
             comment='bf16 input summed in f32 (promotable reducer): no rounding to bf16 in between'))
C.append(red('reduce_promoted_f16_f32', [[2048.0, 1.0, 1.0]], 'f16', 0.0, 'add', [1], [2050.0], rty='f32', comment='f16 would lose 2048 + 1'))
C.append(red('reduce_promoted_i8_i32', [[100, 100, 100], [-128, -128, 0]], 'i8', 0, 'add', [1], [300, -256], rty='i32'))
C.append(red('reduce_promoted_ui8_ui64', [[255] * 4], 'ui8', 0, 'add', [1], [1020], rty='ui64'))
big = np.arange(1, 1025, dtype=np.float64).reshape(8, 128)
C.append(red('reduce_add_8x128', big, 'f32', 0.0, 'add', [1], big.sum(1), comment='a whole (8, 128) tile'))
C.append(red('reduce_add_1000', np.ones((3, 1000)), 'bf16', 0.0, 'add', [0, 1], 3000.0, rty='f32'))

# multi-operand: argmax with ties to the lower index
def argmax_case(name, vals, ty, axis, comment=None):
    v = arr(vals, ty)
    n = v.shape[axis]
    ix = np.broadcast_to(np.arange(n).reshape([-1 if d == axis else 1 for d in range(v.ndim)]), v.shape).astype(np.int32)
    ev = v.max(axis)
    ei = np.argmax(v, axis).astype(np.int32)  # first maximum: the lowest index
    s, si = tt((), ty), tt((), 'i32')
    body = ('%%r:2 = "stablehlo.reduce"(%%a0, %%a1, %%a2, %%a3) ({\n'
            '  ^bb0(%%xv: %s, %%xi: %s, %%yv: %s, %%yi: %s):\n'
            '    %%gt = stablehlo.compare  GT, %%xv, %%yv : (%s, %s) -> tensor<i1>\n'
            '    %%eq = stablehlo.compare  EQ, %%xv, %%yv : (%s, %s) -> tensor<i1>\n'
            '    %%lt = stablehlo.compare  LT, %%xi, %%yi : (%s, %s) -> tensor<i1>\n'
            '    %%tie = stablehlo.and %%eq, %%lt : tensor<i1>\n'
            '    %%take = stablehlo.or %%gt, %%tie : tensor<i1>\n'
            '    %%v = stablehlo.select %%take, %%xv, %%yv : tensor<i1>, %s\n'
            '    %%i = stablehlo.select %%take, %%xi, %%yi : tensor<i1>, %s\n'
            '    stablehlo.return %%v, %%i : %s, %s\n'
            '}) {dimensions = array<i64: %d>} : (%s, %s, %s, %s) -> (%s, %s)') % (
        s, si, s, si, s, s, s, s, si, si, s, si, s, si, axis,
        tt(v.shape, ty), tt(v.shape, 'i32'), s, si, tt(ev.shape, ty), tt(ev.shape, 'i32'))
    lowest = {'f32': -inf, 'bf16': -inf, 'i32': -2**31, 'ui8': 0, 'f64': -inf}[ty]
    return Case(name, [(v, ty), (ix, 'i32'), (arr(lowest, ty), ty), (np.array(-1, dtype=np.int32), 'i32')], body,
                [('%r#0', ev, ty, 'eq'), ('%r#1', ei, 'i32', 'eq')], comment)
C.append(argmax_case('argmax_f32', [[1.0, 7.0, 7.0, 2.0], [-3.0, -1.0, -2.0, -1.0], [0.5, 0.25, 0.125, 0.0]], 'f32', 1,
                     'two operands reduced together (values, indices): argmax, ties to the lower index'))
C.append(argmax_case('argmax_i32_dim0', [[5, 1], [5, 9], [2, 9]], 'i32', 0))
C.append(argmax_case('argmax_bf16', [[1.0, 3.0, 2.0, 3.0, 0.0, 3.0]], 'bf16', 1))
C.append(argmax_case('argmax_ui8_long', [list(np.arange(200) % 37)], 'ui8', 1))

HEADER = '''reduce (vm/kernels/reduce.c) with add, multiply, maximum, minimum, and,
or and xor bodies over f16, bf16, f32, f64, i8..i64, ui8..ui64, i1 and
complex<f32>: wrapping sums, NaN propagation, bf16 rounding at every step,
one, several, all and no reduced dimensions, an empty reduced dimension (the
init value), a full (8, 128) tile; promoted reducers (bf16 / f16 summed in
f32, i8 in i32, ui8 in ui64); a two-operand argmax with ties to the lower
index.  Float inputs are chosen so every order of summation gives the same
bits; references are NumPy sums / maxima.'''
print(write(out_path(OUT), HEADER, C, 'gen_reduce.py'))
