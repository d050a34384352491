OUT = 'shape.mlir'
from kg import *
import numpy as np, math, sys, warnings
warnings.simplefilter('ignore')
inf, nan = math.inf, math.nan
C = []

def G(name, inputs, body, exp, ety, comment=None, extra=()):
    """inputs: [(array, type)]; body may use {t0}, {t1}, ... (input tensor types)
    and {rt} (the expected result's type); the result is %r."""
    ins = [(arr(a, ty) if ty != 'i1' else np.asarray(a, dtype=bool), ty) for a, ty in inputs]
    e = arr(exp, ety) if ety != 'i1' else np.asarray(exp, dtype=bool)
    fmt = {'t%d' % i: tt(np.shape(a), ty) for i, (a, ty) in enumerate(ins)}
    fmt['rt'] = tt(e.shape, ety)
    return Case(name, ins, body.format(**fmt), [('%r', e, ety, 'eq')] + list(extra), comment)

def idx(v, ty='i64'):
    return (np.array(v, dtype=INTS[ty]), ty)

A23 = np.arange(6).reshape(2, 3)
A234 = np.arange(24).reshape(2, 3, 4)
# ---- broadcast_in_dim
C.append(G('broadcast_scalar_f32', [(2.5, 'f32')], '%r = stablehlo.broadcast_in_dim %a0, dims = [] : ({t0}) -> {rt}',
           np.full((2, 3), 2.5), 'f32', 'a scalar to every element'))
C.append(G('broadcast_row_i32', [([1, 2, 3], 'i32')], '%r = stablehlo.broadcast_in_dim %a0, dims = [1] : ({t0}) -> {rt}',
           np.broadcast_to([1, 2, 3], (2, 3)), 'i32'))
C.append(G('broadcast_col_ui8', [([[7], [9]], 'ui8')], '%r = stablehlo.broadcast_in_dim %a0, dims = [0, 1] : ({t0}) -> {rt}',
           np.broadcast_to([[7], [9]], (2, 4)), 'ui8', 'a size-1 dimension broadcasts'))
C.append(G('broadcast_transposing_bf16', [(A23 + 0.5, 'bf16')], '%r = stablehlo.broadcast_in_dim %a0, dims = [2, 0] : ({t0}) -> {rt}',
           np.broadcast_to((A23 + 0.5).T[:, None, :], (3, 2, 2)), 'bf16', 'dims need not be increasing: operand dim 0 -> result dim 2'))
C.append(G('broadcast_c64', [([1 + 1j, -2j], 'complex<f32>')], '%r = stablehlo.broadcast_in_dim %a0, dims = [0] : ({t0}) -> {rt}',
           np.broadcast_to(np.array([1 + 1j, -2j])[:, None], (2, 3)), 'complex<f32>'))
C.append(G('broadcast_i1_empty', [([True], 'i1')], '%r = stablehlo.broadcast_in_dim %a0, dims = [1] : ({t0}) -> {rt}',
           np.zeros((0, 5), dtype=bool), 'i1', 'to an empty result'))
# ---- reshape
C.append(G('reshape_f32', [(np.arange(6.0), 'f32')], '%r = stablehlo.reshape %a0 : ({t0}) -> {rt}', np.arange(6.0).reshape(3, 2), 'f32', 'row-major order'))
C.append(G('reshape_rank0', [([[3]], 'i16')], '%r = stablehlo.reshape %a0 : ({t0}) -> {rt}', np.int16(3), 'i16'))
C.append(G('reshape_i64_3d', [(A234, 'i64')], '%r = stablehlo.reshape %a0 : ({t0}) -> {rt}', A234.reshape(4, 6), 'i64'))
C.append(G('reshape_empty', [(np.zeros((0, 4)), 'f64')], '%r = stablehlo.reshape %a0 : ({t0}) -> {rt}', np.zeros((2, 0, 3)), 'f64'))
# ---- transpose
C.append(G('transpose_2d_f32', [(A23 + 0.25, 'f32')], '%r = stablehlo.transpose %a0, dims = [1, 0] : ({t0}) -> {rt}', (A23 + 0.25).T, 'f32'))
C.append(G('transpose_3d_i8', [(A234, 'i8')], '%r = stablehlo.transpose %a0, dims = [2, 0, 1] : ({t0}) -> {rt}', A234.transpose(2, 0, 1), 'i8',
           'result dim i = operand dim permutation[i]'))
C.append(G('transpose_3d_f16', [(A234 / 4, 'f16')], '%r = stablehlo.transpose %a0, dims = [1, 2, 0] : ({t0}) -> {rt}', (A234 / 4).transpose(1, 2, 0), 'f16'))
C.append(G('transpose_c128', [(A23 * 1j, 'complex<f64>')], '%r = stablehlo.transpose %a0, dims = [1, 0] : ({t0}) -> {rt}', (A23 * 1j).T, 'complex<f64>'))
C.append(G('transpose_ui64_big', [(np.arange(300).reshape(20, 15) * (2**40 + 1), 'ui64')], '%r = stablehlo.transpose %a0, dims = [1, 0] : ({t0}) -> {rt}',
           (np.arange(300).reshape(20, 15) * (2**40 + 1)).T, 'ui64'))
C.append(G('transpose_empty', [(np.zeros((0, 3)), 'i32')], '%r = stablehlo.transpose %a0, dims = [1, 0] : ({t0}) -> {rt}', np.zeros((3, 0)), 'i32'))
# ---- slice
B = np.arange(35).reshape(5, 7)
C.append(G('slice_strided_i32', [(B, 'i32')], '%r = stablehlo.slice %a0 [1:5:2, 0:7:3] : ({t0}) -> {rt}', B[1:5:2, 0:7:3], 'i32'))
C.append(G('slice_f32', [(B * 0.5, 'f32')], '%r = stablehlo.slice %a0 [2:4, 6:7] : ({t0}) -> {rt}', (B * 0.5)[2:4, 6:7], 'f32'))
C.append(G('slice_empty', [(B, 'i8')], '%r = stablehlo.slice %a0 [3:3, 0:7] : ({t0}) -> {rt}', B[3:3, :], 'i8', 'an empty slice'))
C.append(G('slice_3d_bf16', [(A234, 'bf16')], '%r = stablehlo.slice %a0 [1:2, 0:3:2, 1:4:2] : ({t0}) -> {rt}', A234[1:2, 0:3:2, 1:4:2], 'bf16'))
# ---- concatenate
C.append(G('concatenate_dim0_f32', [(A23, 'f32'), ([[9.0, 8.0, 7.0]], 'f32')], '%r = stablehlo.concatenate %a0, %a1, dim = 0 : ({t0}, {t1}) -> {rt}',
           np.concatenate([A23, [[9, 8, 7]]], 0), 'f32'))
C.append(G('concatenate_dim1_three_i64', [(A23, 'i64'), (np.zeros((2, 0)), 'i64'), ([[-1], [-2]], 'i64')],
           '%r = stablehlo.concatenate %a0, %a1, %a2, dim = 1 : ({t0}, {t1}, {t2}) -> {rt}', np.concatenate([A23, [[-1], [-2]]], 1), 'i64',
           'an empty operand contributes nothing'))
C.append(G('concatenate_i1', [([True], 'i1'), ([False, True], 'i1')], '%r = stablehlo.concatenate %a0, %a1, dim = 0 : ({t0}, {t1}) -> {rt}',
           [True, False, True], 'i1'))
C.append(G('concatenate_c64_dim2', [(A234[:, :, :1] * 1j, 'complex<f32>'), (A234 + 0j, 'complex<f32>')],
           '%r = stablehlo.concatenate %a0, %a1, dim = 2 : ({t0}, {t1}) -> {rt}', np.concatenate([A234[:, :, :1] * 1j, A234], 2), 'complex<f32>'))
# ---- pad
def pad_ref(a, v, low, high, interior):
    a = np.asarray(a)
    shape = [max(0, (d - 1) * (i + 1) + 1 if d else 0) for d, i in zip(a.shape, interior)]
    full_shape = [s + max(l, 0) + max(h, 0) for s, l, h in zip(shape, low, high)]
    out = np.full(full_shape, v, dtype=a.dtype)
    sl = tuple(slice(max(l, 0), max(l, 0) + s, i + 1) for l, s, i in zip(low, shape, interior))
    out[sl] = a
    crop = tuple(slice(-min(l, 0), fs - (-min(h, 0))) for l, h, fs in zip(low, high, full_shape))
    return out[crop]
def pad_case(name, a, ty, v, low, high, interior, comment=None):
    return G(name, [(a, ty), (v, ty)],
             '%%r = stablehlo.pad %%a0, %%a1, low = %s, high = %s, interior = %s : ({t0}, {t1}) -> {rt}' % (low, high, interior),
             pad_ref(arr(a, ty), arr(v, ty), low, high, interior), ty, comment)
C.append(pad_case('pad_low_high_f32', A23 + 1.0, 'f32', -1.0, [1, 0], [0, 2], [0, 0]))
C.append(pad_case('pad_interior_i32', A23, 'i32', 9, [0, 1], [1, 0], [1, 2], 'interior padding between elements'))
C.append(pad_case('pad_negative_i8', B, 'i8', 0, [-1, -2], [-2, 1], [0, 0], 'negative low / high crop'))
C.append(pad_case('pad_negative_interior_f64', A23, 'f64', nan, [-1, 1], [2, -3], [1, 1], 'cropping into the interior padding'))
C.append(pad_case('pad_bf16_3d', A234[:, :2, :2], 'bf16', 0.5, [0, 1, 0], [1, 0, 0], [0, 0, 1]))
C.append(pad_case('pad_empty_operand', np.zeros((0, 2)), 'ui16', 7, [1, 0], [1, 1], [3, 0], 'an empty operand: the padding only'))
C.append(pad_case('pad_c64', np.array([1 + 2j, 3j]), 'complex<f32>', -1 + 0j, [1], [1], [1]))
C.append(pad_case('pad_rank0', 5, 'i32', 0, [], [], []))
# ---- reverse
C.append(G('reverse_dim0_f32', [(A23 * 1.5, 'f32')], '%r = stablehlo.reverse %a0, dims = [0] : {t0}', (A23 * 1.5)[::-1], 'f32'))
C.append(G('reverse_dims02_i16', [(A234, 'i16')], '%r = stablehlo.reverse %a0, dims = [0, 2] : {t0}', A234[::-1, :, ::-1], 'i16'))
C.append(G('reverse_none_ui32', [(A23, 'ui32')], '%r = stablehlo.reverse %a0, dims = [] : {t0}', A23, 'ui32'))
C.append(G('reverse_c128', [([1j, 2, 3 - 1j], 'complex<f64>')], '%r = stablehlo.reverse %a0, dims = [0] : {t0}', [3 - 1j, 2, 1j], 'complex<f64>'))
# ---- iota
C.append(G('iota_i32', [], '%r = stablehlo.iota dim = 0 : {rt}', np.arange(5), 'i32'))
C.append(G('iota_dim1_f32', [], '%r = stablehlo.iota dim = 1 : {rt}', np.broadcast_to(np.arange(4.0), (3, 4)), 'f32'))
C.append(G('iota_dim0_ui8', [], '%r = stablehlo.iota dim = 0 : {rt}', np.broadcast_to(np.arange(3)[:, None], (3, 2)), 'ui8'))
C.append(G('iota_bf16', [], '%r = stablehlo.iota dim = 0 : {rt}', bf16(np.arange(300.0)), 'bf16', 'bf16 cannot hold 257: it rounds to even'))
C.append(G('iota_i8_wrap', [], '%r = stablehlo.iota dim = 0 : {rt}', [(i + 128) % 256 - 128 for i in range(260)], 'i8'))
C.append(G('iota_c64', [], '%r = stablehlo.iota dim = 0 : {rt}', np.arange(3) + 0j, 'complex<f32>'))
C.append(G('iota_f64_3d', [], '%r = stablehlo.iota dim = 2 : {rt}', np.broadcast_to(np.arange(3.0), (2, 2, 3)), 'f64'))
# ---- dynamic_slice (starts clamped into [0, dim - size])
def ds_ref(a, starts, sizes):
    st = [min(max(s, 0), d - z) for s, d, z in zip(starts, a.shape, sizes)]
    return a[tuple(slice(s, s + z) for s, z in zip(st, sizes))]
def ds(name, a, ty, starts, sizes, ity='i64', comment=None):
    ins = [(a, ty)] + [idx(s, ity) for s in starts]
    names = ', '.join('%%a%d' % (i + 1) for i in range(len(starts)))
    types = ', '.join('{t%d}' % (i + 1) for i in range(len(starts)))
    return G(name, ins, '%%r = stablehlo.dynamic_slice %%a0, %s, sizes = %s : ({t0}, %s) -> {rt}' % (names, list(sizes), types),
             ds_ref(np.asarray(a), starts, sizes), ty, comment)
C.append(ds('dynamic_slice_f32', B * 1.0, 'f32', [1, 2], [2, 3]))
C.append(ds('dynamic_slice_clamp_high', B, 'i32', [4, 6], [2, 3], comment='starts past the end clamp to dim - size'))
C.append(ds('dynamic_slice_clamp_negative', B, 'i32', [-3, -100], [3, 2], ity='i32', comment='negative starts clamp to 0'))
C.append(ds('dynamic_slice_ui_index', B, 'i8', [200, 3], [1, 4], ity='ui8', comment='an unsigned start of 200'))
C.append(ds('dynamic_slice_3d_c64', A234 * (1 + 1j), 'complex<f32>', [1, 1, 2], [1, 2, 2]))
C.append(ds('dynamic_slice_full', A23, 'ui64', [1, 1], [2, 3], comment='the whole operand: starts clamp to 0'))
C.append(ds('dynamic_slice_ui64_huge', np.arange(5), 'i32', [2**64 - 1], [2], ity='ui64', comment='unsigned starts above INT64_MAX clamp to the end, not to 0'))
C.append(ds('dynamic_slice_ui64_top_bit', np.arange(5), 'i32', [2**63], [2], ity='ui64'))
# ---- dynamic_update_slice
def dus_ref(a, u, starts):
    a = np.array(a).copy()
    st = [min(max(s, 0), d - z) for s, d, z in zip(starts, a.shape, np.shape(u))]
    a[tuple(slice(s, s + z) for s, z in zip(st, np.shape(u)))] = u
    return a
def dus(name, a, u, ty, starts, ity='i64', comment=None):
    ins = [(a, ty), (u, ty)] + [idx(s, ity) for s in starts]
    names = ', '.join('%%a%d' % (i + 2) for i in range(len(starts)))
    types = ', '.join('{t%d}' % (i + 2) for i in range(len(starts)))
    return G(name, ins, '%%r = stablehlo.dynamic_update_slice %%a0, %%a1, %s : ({t0}, {t1}, %s) -> {rt}' % (names, types),
             dus_ref(arr(a, ty), arr(u, ty), starts), ty, comment)
U = -np.arange(1, 7).reshape(2, 3)
C.append(dus('dynamic_update_slice_i32', B, U, 'i32', [1, 2]))
C.append(dus('dynamic_update_slice_clamp_high', B, U, 'i32', [10, 5], comment='starts clamp so the update fits'))
C.append(dus('dynamic_update_slice_clamp_negative_f32', B * 1.0, U * 1.0, 'f32', [-1, -7], ity='i32'))
C.append(dus('dynamic_update_slice_bf16', A234 * 1.0, np.full((2, 1, 2), 0.5), 'bf16', [0, 2, 3]))
C.append(dus('dynamic_update_slice_i1', [True, True, True], [False], 'i1', [1]))
C.append(dus('dynamic_update_slice_empty_update', A23, np.zeros((0, 2)), 'i16', [1, 1], comment='an empty update leaves the operand'))
C.append(dus('dynamic_update_slice_c128', [1j, 2j, 3j], [5 + 0j, 6 + 0j], 'complex<f64>', [2]))
C.append(dus('dynamic_update_slice_ui32_huge', np.arange(5), [7, 8], 'i32', [2**32 - 1], ity='ui32', comment='an unsigned start of 2^32 - 1 clamps to the end'))

HEADER = '''Data movement kernels (vm/kernels/shape.c): broadcast_in_dim (scalar,
size-1 and permuted dims, empty), reshape, transpose (2-D, 3-D, a 20x15
tile-crossing one), slice (strides, empty), concatenate (2 and 3 operands, an
empty one), pad (low / high / interior, negative crops, cropping into the
interior padding, empty operand, rank 0), reverse, iota (wrapping i8, bf16
rounding, complex), dynamic_slice and dynamic_update_slice with starts clamped
from above and below (signed, unsigned and i32 / i64 indices), over i1, i8..i64,
ui8..ui64, f16, bf16, f32, f64 and complex.  References: NumPy indexing.'''
print(write(out_path(OUT), HEADER, C, 'gen_shape.py'))
