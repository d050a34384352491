OUT = 'compare_select.mlir'
from kg import *
import numpy as np, math, struct, sys, warnings
warnings.simplefilter('ignore')

inf, nan = math.inf, math.nan
C = []
DIRS = ['EQ', 'NE', 'GE', 'GT', 'LE', 'LT']
PY = {'EQ': lambda x, y: x == y, 'NE': lambda x, y: x != y, 'GE': lambda x, y: x >= y,
      'GT': lambda x, y: x > y, 'LE': lambda x, y: x <= y, 'LT': lambda x, y: x < y}

def cmp_case(name, ty, ctype, x, y, key=None, comment=None, dirs=DIRS):
    """One function comparing x and y in every direction; key maps an element to
    a Python value ordered as the comparison type orders them."""
    a, b = arr(x, ty), arr(y, ty)
    t = tt(a.shape, ty); it = tt(a.shape, 'i1')
    body, checks = [], []
    for d in dirs:
        body.append('%%%s = stablehlo.compare  %s, %%a0, %%a1,  %s : (%s, %s) -> %s' % (d.lower(), d, ctype, t, t, it))
        if key is None:
            e = np.array([PY[d](p, q) for p, q in zip(a.ravel().tolist(), b.ravel().tolist())]).reshape(a.shape)
        else:
            e = np.array([PY[d](key(p), key(q)) for p, q in zip(a.ravel(), b.ravel())]).reshape(a.shape)
        checks.append(('%' + d.lower(), e, 'i1', 'eq'))
    return Case(name, [(a, ty), (b, ty)], '\n'.join(body), checks, comment)

def total_key(width):
    """IEEE totalOrder: -NaN < -inf < ... < -0 < +0 < ... < inf < NaN, on the bits."""
    fmt = {32: ('<f', '<I'), 64: ('<d', '<Q')}[width]
    def k(v):
        u = struct.unpack(fmt[1], struct.pack(fmt[0], float(v)))[0]
        return -(u & ((1 << (width - 1)) - 1)) - 1 if u >> (width - 1) else u
    return k

C.append(cmp_case('compare_i32_signed', 'i32', 'SIGNED', [-2**31, -1, 0, 5, 2**31 - 1], [2**31 - 1, 1, 0, 5, -2**31]))
C.append(cmp_case('compare_ui32_unsigned', 'ui32', 'UNSIGNED', [0xFFFFFFFF, 1, 7], [1, 0xFFFFFFFF, 7], comment='unsigned order: 0xFFFFFFFF is the largest'))
C.append(cmp_case('compare_i8_signed', 'i8', 'SIGNED', [-128, 127, -1], [127, -128, -1]))
C.append(cmp_case('compare_ui64_unsigned', 'ui64', 'UNSIGNED', [2**64 - 1, 0], [2**63, 0]))
C.append(cmp_case('compare_i64_signed', 'i64', 'SIGNED', [-2**63, 3], [2**63 - 1, 3]))
C.append(cmp_case('compare_i1_unsigned', 'i1', 'UNSIGNED', [False, False, True, True], [False, True, False, True], key=lambda v: int(v),
                  comment='i1: false < true'))
FX = [1.0, nan, nan, 1.0, -0.0, inf, -inf, 2.0]
FY = [1.0, 1.0, nan, nan, 0.0, inf, inf, -3.0]
C.append(cmp_case('compare_f32_float', 'f32', 'FLOAT', FX, FY,
                  comment='FLOAT: every comparison with NaN is false except NE; -0 == +0'))
C.append(cmp_case('compare_f64_float', 'f64', 'FLOAT', FX, FY))
C.append(cmp_case('compare_bf16_float', 'bf16', 'FLOAT', [1.0, nan, -0.0, 1.0078125], [1.0, 1.0, 0.0, 1.0]))
C.append(cmp_case('compare_f16_float', 'f16', 'FLOAT', [65504.0, nan, -inf], [inf, nan, -65504.0]))
TX = [-0.0, 0.0, 1.0, -inf, nan, 1.0, -1.0]
TY = [0.0, -0.0, 1.0, -3.4e38, nan, nan, -nan]
TXB = [0x80000000, 0, 0x3F800000, 0xFF800000, 0x7FC00000, 0x3F800000, 0xBF800000, 0xFFC00000]
TYB = [0, 0x80000000, 0x3F800000, 0xFF7FFFFF, 0x7FC00000, 0x7FC00000, 0xFFC00000, 0xFF800000]
def tk(u):
    # totalOrder on f32 bits: negative values order by decreasing magnitude
    return -(u & 0x7FFFFFFF) - 1 if u >> 31 else u
C.append(Case('compare_f32_totalorder',
              [(np.array(TXB, dtype=np.uint32).view(np.int32), 'i32'), (np.array(TYB, dtype=np.uint32).view(np.int32), 'i32')],
              '\n'.join(['%x = stablehlo.bitcast_convert %a0 : (tensor<8xi32>) -> tensor<8xf32>',
                         '%y = stablehlo.bitcast_convert %a1 : (tensor<8xi32>) -> tensor<8xf32>'] +
                        ['%%%s = stablehlo.compare  %s, %%x, %%y,  TOTALORDER : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>' % (d.lower(), d) for d in DIRS]),
              [('%' + d.lower(), np.array([PY[d](tk(p), tk(q)) for p, q in zip(TXB, TYB)]), 'i1', 'eq') for d in DIRS],
              'TOTALORDER: -NaN < -inf < -max < -0 < +0 < 1 < NaN, on the bits (inputs are bit patterns)'))
def tot_case(name, ty, ity, xb, yb, w):
    """TOTALORDER on bit patterns of a w-bit float type."""
    def k(u):
        return -(u & ((1 << (w - 1)) - 1)) - 1 if u >> (w - 1) else u
    ut, st = {16: (np.uint16, np.int16), 64: (np.uint64, np.int64)}[w]
    x, y = np.array(xb, dtype=ut).view(st), np.array(yb, dtype=ut).view(st)
    n = len(xb)
    ft, it, bt = tt((n,), ty), tt((n,), ity), tt((n,), 'i1')
    body = ['%%x = stablehlo.bitcast_convert %%a0 : (%s) -> %s' % (it, ft), '%%y = stablehlo.bitcast_convert %%a1 : (%s) -> %s' % (it, ft)]
    body += ['%%%s = stablehlo.compare  %s, %%x, %%y,  TOTALORDER : (%s, %s) -> %s' % (d.lower(), d, ft, ft, bt) for d in DIRS]
    return Case(name, [(x, ity), (y, ity)], '\n'.join(body),
                [('%' + d.lower(), np.array([PY[d](k(p), k(q)) for p, q in zip(xb, yb)]), 'i1', 'eq') for d in DIRS])
C.append(tot_case('compare_f16_totalorder', 'f16', 'i16', [0x8000, 0x7E00, 0xFE00, 0xFC00, 0x7E01, 0x3C00], [0x0000, 0x7C00, 0xFC00, 0xFE00, 0x7E00, 0x3C00], 16))
C[-1].comment = 'TOTALORDER on f16, bf16 and f64 bit patterns: NaN payloads order too'
C.append(tot_case('compare_bf16_totalorder', 'bf16', 'i16', [0x8000, 0x7FC0, 0xFFC0, 0x0001], [0x0000, 0x7F80, 0xFF80, 0x8001], 16))
C.append(tot_case('compare_f64_totalorder', 'f64', 'i64', [0x8000000000000000, 0x7FF8000000000000, 0xFFF8000000000000, 0x7FF8000000000001],
                  [0, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000], 64))
C.append(cmp_case('compare_c64_eq_ne', 'complex<f32>', 'FLOAT', [1 + 2j, 1 + 2j, complex(nan, 0)], [1 + 2j, 1 - 2j, complex(nan, 0)],
                  dirs=['EQ', 'NE'], comment='complex: EQ and NE only'))
C.append(cmp_case('compare_c128_eq_ne', 'complex<f64>', 'FLOAT', [0j, 3 + 0j], [-0.0 + 0j, 3 + 1e-300j], dirs=['EQ', 'NE']))
C.append(cmp_case('compare_rank0_f32', 'f32', 'FLOAT', 2.5, 2.5))
C.append(cmp_case('compare_empty_i32', 'i32', 'SIGNED', np.zeros((0,)), np.zeros((0,)), dirs=['LT']))
# ---- select
def sel(name, ty, p, x, y, scalar_pred=False, comment=None):
    pa = np.array(p, dtype=bool)
    a, b = arr(x, ty), arr(y, ty)
    e = np.where(pa, a, b) if not scalar_pred else (a if bool(pa) else b)
    body = '%%r = stablehlo.select %%a0, %%a1, %%a2 : (%s, %s, %s) -> %s' % (tt(pa.shape, 'i1'), tt(a.shape, ty), tt(a.shape, ty), tt(a.shape, ty))
    return Case(name, [(pa, 'i1'), (a, ty), (b, ty)], body, [('%r', e, ty, 'eq')], comment)
C.append(sel('select_f32', 'f32', [True, False, True, False], [1.0, nan, -0.0, 4.0], [5.0, 6.0, 7.0, nan]))
C.append(sel('select_i64', 'i64', [[True, False], [False, True]], [[1, 2], [3, 4]], [[-1, -2], [-3, -4]]))
C.append(sel('select_scalar_pred_true', 'ui8', True, [1, 2, 3], [4, 5, 6], scalar_pred=True, comment='a scalar predicate picks a whole operand'))
C.append(sel('select_scalar_pred_false', 'bf16', False, [1.0, 2.0], [3.0, 4.0], scalar_pred=True))
C.append(sel('select_c128', 'complex<f64>', [False, True], [1j, 2j], [3 + 0j, 4 + 0j]))
C.append(sel('select_i1', 'i1', [True, False], [False, False], [True, True]))
C.append(sel('select_rank0', 'f16', True, 1.5, 2.5, scalar_pred=True))
# ---- clamp
def clamp(name, ty, lo, x, hi, ref, comment=None):
    l, a, h = arr(lo, ty), arr(x, ty), arr(hi, ty)
    body = '%%r = stablehlo.clamp %%a0, %%a1, %%a2 : (%s, %s, %s) -> %s' % (tt(l.shape, ty), tt(a.shape, ty), tt(h.shape, ty), tt(a.shape, ty))
    return Case(name, [(l, ty), (a, ty), (h, ty)], body, [('%r', arr(ref, ty), ty, 'eq')], comment)
C.append(clamp('clamp_f32_scalar_bounds', 'f32', -1.0, [-5.0, 0.5, 5.0, nan, -inf, inf], 1.0, [-1.0, 0.5, 1.0, nan, -1.0, 1.0],
               comment='min(max(x, lo), hi): NaN propagates'))
C.append(clamp('clamp_i32_tensor_bounds', 'i32', [0, -10, 5], [-3, 7, 9], [2, 10, 6], [0, 7, 6]))
C.append(clamp('clamp_ui8', 'ui8', 10, [0, 200, 255], 250, [10, 200, 250]))
C.append(clamp('clamp_i8', 'i8', -128, [-128, 0, 127], 0, [-128, 0, 0]))
C.append(clamp('clamp_bf16', 'bf16', 0.0, [-1.0, 0.5, 8.0], 6.0, [0.0, 0.5, 6.0]))
C.append(clamp('clamp_f64_nan_bound', 'f64', nan, [1.0, 2.0], 3.0, [nan, nan], comment='a NaN bound propagates'))
C.append(clamp('clamp_inverted_bounds', 'i32', 5, [0, 7, 3], 2, [2, 2, 2], comment='lo > hi: min(max(x, 5), 2) = 2'))
C.append(clamp('clamp_rank0', 'i64', 0, -9, 4, 0))

HEADER = '''compare (vm/kernels/elementwise.c) in all six directions with every
comparison type: SIGNED (i8, i32, i64), UNSIGNED (ui32, ui64, i1), FLOAT (f16,
bf16, f32, f64 with NaN, +-inf, -0.0; complex EQ / NE), TOTALORDER (f32 bit
patterns: -NaN < -inf < -0 < +0 < NaN); select with an element-wise and a
scalar predicate; clamp with scalar and tensor bounds, NaN and inverted
bounds; rank 0 and empty tensors.  Expected values from Python's comparisons
and NumPy (TOTALORDER on the sign-magnitude bits).'''
print(write(out_path(OUT), HEADER, C, 'gen_compare.py'))
