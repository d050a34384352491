OUT = 'elementwise_unary.mlir'
from kg import *
import numpy as np, math

def unary(name, op, ty, vals, fn, kind='eq', rty=None, comment=None):
    a = arr(vals, ty)
    rty = rty or ty
    e = fn(a)
    e = arr(e, rty) if rty != 'i1' else np.asarray(e, dtype=bool)
    t = tt(a.shape, ty); rt = tt(a.shape, rty)
    body = '%%r = stablehlo.%s %%a0 : (%s) -> %s' % (op, t, rt) if rty != ty else '%%r = stablehlo.%s %%a0 : %s' % (op, t)
    return Case(name, [(a, ty)], body, [('%r', e, rty, kind)], comment)

def f64ref(f):
    # reference in float64 (then rounded to the element type by arr())
    return lambda a: f(np.asarray(a, dtype=np.float64))

def signbits(name, op, ty, vals, exp_bits, comment=None):
    """The sign of zero: bitcast the result to an integer."""
    a = arr(vals, ty)
    ity = {'f16': 'i16', 'bf16': 'i16', 'f32': 'i32', 'f64': 'i64'}[ty]
    t = tt(a.shape, ty); it = tt(a.shape, ity)
    body = '%%r = stablehlo.%s %%a0 : %s\n%%b = stablehlo.bitcast_convert %%r : (%s) -> %s' % (op, t, t, it)
    return Case(name, [(a, ty)], body, [('%b', np.array(exp_bits, dtype=INTS[ity]), ity, 'eq')], comment)

C = []
I8MIN, I32MIN, I64MIN = -128, -2**31, -2**63
inf, nan = math.inf, math.nan
# abs
C.append(unary('abs_i8', 'abs', 'i8', [I8MIN, -127, -1, 0, 1, 127], lambda a: a.astype(np.int16).__abs__().astype(np.int8),
               comment='abs: INT_MIN stays INT_MIN (two\'s complement wrap)'))
C.append(unary('abs_i64', 'abs', 'i64', [I64MIN, -(2**63 - 1), -3, 0], lambda a: np.array([I64MIN, 2**63 - 1, 3, 0])))
C.append(unary('abs_f32', 'abs', 'f32', [-1.5, 2.25, -inf, inf, nan, -0.0, 0.0, -1e-45], np.abs))
C.append(signbits('abs_negzero_f32', 'abs', 'f32', [-0.0, 0.0, -2.0], [0, 0, 0x40000000], 'abs(-0.0) is +0.0'))
C.append(unary('abs_bf16', 'abs', 'bf16', [-3.0, -0.0, nan, -inf, 1.0078125], np.abs))
C.append(unary('abs_f16', 'abs', 'f16', [-65504.0, -6e-08, 0.5], np.abs))
C.append(unary('abs_f64', 'abs', 'f64', [-1e308, -5e-324, 7.0], np.abs))
C.append(unary('abs_c64', 'abs', 'complex<f32>', [3 + 4j, -5 - 12j, 0j], lambda a: np.abs(a.astype(np.complex128)), rty='f32',
               comment='abs of a complex is its modulus, of the part type'))
C.append(unary('abs_c128', 'abs', 'complex<f64>', [1 + 1j, -8 + 15j], lambda a: np.abs(a), rty='f64', kind=('almost', 1e-15)))
C.append(unary('abs_rank0_i32', 'abs', 'i32', -7, lambda a: np.abs(a)))
C.append(unary('abs_empty_f32', 'abs', 'f32', np.zeros((0, 4)), np.abs, comment='an empty tensor'))
# negate
C.append(unary('negate_i32', 'negate', 'i32', [I32MIN, -1, 0, 2**31 - 1], lambda a: np.array([I32MIN, 1, 0, -(2**31 - 1)]),
               comment='negate wraps: -INT_MIN = INT_MIN'))
C.append(unary('negate_ui8', 'negate', 'ui8', [0, 1, 255, 128], lambda a: (256 - a.astype(np.int64)) % 256))
C.append(unary('negate_i16', 'negate', 'i16', [-32768, 5], lambda a: np.array([-32768, -5])))
C.append(unary('negate_f16', 'negate', 'f16', [1.5, -inf, nan, 65504.0], np.negative))
C.append(signbits('negate_zero_f32', 'negate', 'f32', [0.0, -0.0], [-2**31, 0], 'negate flips the sign of zero'))
C.append(unary('negate_c64', 'negate', 'complex<f32>', [1 - 2j, -0.5 + 0j], np.negative))
# not
C.append(unary('not_i1', 'not', 'i1', [True, False], np.logical_not, comment='not: logical for i1, bitwise otherwise'))
C.append(unary('not_i8', 'not', 'i8', [0, -1, 85, I8MIN], np.invert))
C.append(unary('not_ui16', 'not', 'ui16', [0, 65535, 0x1234], np.invert))
C.append(unary('not_i64', 'not', 'i64', [0, I64MIN], np.invert))
# sign
C.append(unary('sign_i32', 'sign', 'i32', [I32MIN, -5, 0, 9], np.sign))
C.append(unary('sign_f32', 'sign', 'f32', [-2.5, 3.0, inf, -inf, nan, 1e-45], np.sign, comment='sign: NaN stays NaN'))
C.append(signbits('sign_zero_f32', 'sign', 'f32', [0.0, -0.0], [0, -2**31], 'sign keeps the sign of zero'))
C.append(unary('sign_bf16', 'sign', 'bf16', [-0.1, 7.0], np.sign))
C.append(unary('sign_c64', 'sign', 'complex<f32>', [3 + 4j, 0j, -2j], lambda a: np.array([0.6 + 0.8j, 0, -1j]), kind=('almost', 1e-7),
               comment='sign of a complex: x / |x|, 0 for 0'))
# rounding
R = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.7, -2.7, 0.49999997, inf, -inf, nan]
def afz(a):
    return np.where(np.isfinite(a), np.sign(a) * np.floor(np.abs(a) + 0.5), a).astype(a.dtype) if False else \
        np.array([afz1(x) for x in np.asarray(a, dtype=np.float64).ravel()]).reshape(np.shape(a))
def afz1(x):
    # exact: the integer part, plus one away from zero when the dropped fraction is >= 1/2
    if not math.isfinite(x):
        return x
    t = math.trunc(x)
    return math.copysign(abs(t) + (1 if abs(x - t) >= 0.5 else 0), x)
def afz_f32(a):
    # exact: floor(|x|) + (frac >= 0.5), computed in float64 where |x|+0.5 is exact for f32 inputs
    return afz(a)
C.append(unary('floor_f32', 'floor', 'f32', R, np.floor))
C.append(unary('ceil_f32', 'ceil', 'f32', R, np.ceil))
C.append(unary('round_afz_f32', 'round_nearest_afz', 'f32', R, afz_f32, comment='ties away from zero; 0.49999997 rounds to 0'))
C.append(unary('round_even_f32', 'round_nearest_even', 'f32', R, np.rint, comment='ties to even'))
C.append(signbits('round_negzero_f32', 'round_nearest_even', 'f32', [-0.25, -0.5, 0.25], [-2**31, -2**31, 0], 'rounding to zero keeps the sign'))
C.append(unary('floor_f64', 'floor', 'f64', [-1e300, -0.5, 4503599627370495.5, 1e-320], np.floor))
C.append(unary('ceil_f16', 'ceil', 'f16', [-0.5, 0.0999, 1000.5], np.ceil))
C.append(unary('round_even_bf16', 'round_nearest_even', 'bf16', [0.5, 1.5, 2.5, -3.5, 300.0], np.rint))
C.append(unary('round_afz_f64', 'round_nearest_afz', 'f64', [0.5, -0.5, 2.5, 0.49999999999999994], afz))
# float functions: a reference in float64 rounded to the type; tolerance absolute
TOL = {'f16': 2e-3, 'bf16': 1.6e-2, 'f32': 2e-6, 'f64': 1e-14}
def fl(name, op, f, vals_by_ty, exact_specials=None):
    for ty, vals in vals_by_ty.items():
        C.append(unary('%s_%s' % (name, ty), op, ty, vals, f64ref(f), kind=('almost', TOL[ty])))
    if exact_specials:
        C.append(unary('%s_special_f32' % name, op, 'f32', exact_specials, f64ref(f)))
with np.errstate(all='ignore'):
    fl('sqrt', 'sqrt', np.sqrt, {'f32': [0.0, 2.0, 1e-6, 1e30], 'f64': [2.0, 3.0, 1e-300], 'bf16': [2.0, 9.0], 'f16': [3.0, 0.25]},
       [-1.0, inf, -inf, nan, 4.0, 0.0])
    C.append(signbits('sqrt_negzero_f32', 'sqrt', 'f32', [-0.0], [-2**31], 'sqrt(-0.0) = -0.0 (IEEE 754)'))
    fl('rsqrt', 'rsqrt', lambda a: 1 / np.sqrt(a), {'f32': [0.25, 2.0, 100.0], 'f64': [2.0, 1e-10]}, [0.0, -1.0, inf, 4.0])
    fl('cbrt', 'cbrt', np.cbrt, {'f32': [27.0, -8.0, 2.0], 'f64': [-2.0, 1e-300]}, [-0.0, inf, -inf, nan, -27.0])
    fl('exp', 'exponential', np.exp, {'f32': [1.0, -1.0, 10.0, -20.0], 'f64': [1.0, 700.0 / 700, -0.5], 'bf16': [1.0, 2.0], 'f16': [1.0, 3.0]},
       [0.0, -inf, inf, nan, 100.0, -200.0])
    fl('expm1', 'exponential_minus_one', np.expm1, {'f32': [1e-7, -1e-7, 1.0], 'f64': [1e-15, 0.5]}, [0.0, -inf, inf])
    fl('log', 'log', np.log, {'f32': [2.0, 0.5, 1e-30, 1e30], 'f64': [10.0, 1e-300], 'bf16': [2.0, 8.0], 'f16': [2.0, 100.0]},
       [0.0, -0.0, -1.0, inf, nan, 1.0])
    fl('log1p', 'log_plus_one', np.log1p, {'f32': [1e-7, -0.5, 3.0], 'f64': [1e-17, 1.0]}, [-1.0, -2.0, inf, 0.0])
    fl('logistic', 'logistic', lambda a: 1 / (1 + np.exp(-a)), {'f32': [0.0, 1.0, -1.0, 20.0, -20.0], 'f64': [2.0, -3.0], 'bf16': [0.5], 'f16': [-2.0]},
       [inf, -inf, 0.0])
    fl('sine', 'sine', np.sin, {'f32': [0.5, -1.0, 3.0, 100.0], 'f64': [1.0, 1e6], 'bf16': [1.0], 'f16': [2.0]}, [0.0, inf, nan])
    fl('cosine', 'cosine', np.cos, {'f32': [0.5, -1.0, 3.0, 100.0], 'f64': [1.0, 1e6], 'bf16': [1.0], 'f16': [2.0]}, [0.0, inf, -inf])
    fl('tan', 'tan', np.tan, {'f32': [0.5, -1.0, 1.5], 'f64': [1.0, -0.25]}, [0.0, inf])
    fl('tanh', 'tanh', np.tanh, {'f32': [0.5, -1.0, 20.0], 'f64': [1.0, -0.25], 'bf16': [0.75], 'f16': [-0.5]}, [0.0, inf, -inf, nan])
# complex transcendental
C.append(unary('exp_c64', 'exponential', 'complex<f32>', [1 + 1j, -0.5 + 3j], lambda a: np.exp(a.astype(np.complex128)), kind=('almost', 2e-6)))
C.append(unary('log_c128', 'log', 'complex<f64>', [1 + 1j, -1 + 0j, 0.5 - 2j], lambda a: np.log(a), kind=('almost', 1e-14)))
C.append(unary('sqrt_c128', 'sqrt', 'complex<f64>', [-4 + 0j, 3 + 4j, -1j], lambda a: np.sqrt(a), kind=('almost', 1e-14)))
# is_finite
a = arr([0.0, -1.0, inf, -inf, nan, 3.4e38], 'f32')
C.append(unary('is_finite_f32', 'is_finite', 'f32', [0.0, -1.0, inf, -inf, nan, 3.4e38], np.isfinite, rty='i1'))
C.append(unary('is_finite_f16', 'is_finite', 'f16', [65504.0, inf, nan], np.isfinite, rty='i1'))
C.append(unary('is_finite_f64', 'is_finite', 'f64', [1e308, -inf], np.isfinite, rty='i1'))
# popcnt, count_leading_zeros
def popcnt(bits):
    return lambda a: np.array([bin(int(x) & ((1 << bits) - 1)).count('1') for x in np.ravel(a)]).reshape(np.shape(a))
def clz(bits):
    return lambda a: np.array([bits - (int(x) & ((1 << bits) - 1)).bit_length() for x in np.ravel(a)]).reshape(np.shape(a))
C.append(unary('popcnt_i8', 'popcnt', 'i8', [0, -1, I8MIN, 85], popcnt(8)))
C.append(unary('popcnt_i32', 'popcnt', 'i32', [0, -1, I32MIN, 0x0F0F0F0F], popcnt(32)))
C.append(unary('popcnt_ui64', 'popcnt', 'ui64', [0, 2**64 - 1, 2**63 + 1], popcnt(64)))
C.append(unary('popcnt_i16', 'popcnt', 'i16', [-2, 255], popcnt(16)))
C.append(unary('clz_i8', 'count_leading_zeros', 'i8', [0, 1, -1, 64, 127], clz(8)))
C.append(unary('clz_i32', 'count_leading_zeros', 'i32', [0, 1, -1, 0xFFFF], clz(32)))
C.append(unary('clz_i64', 'count_leading_zeros', 'i64', [0, 1, I64MIN, 2**40], clz(64)))
C.append(unary('clz_ui16', 'count_leading_zeros', 'ui16', [0, 65535, 256], clz(16)))
# real, imag
C.append(unary('real_c128', 'real', 'complex<f64>', [1.5 - 2j, -0.25 + 8j], np.real, rty='f64'))
C.append(unary('imag_c64', 'imag', 'complex<f32>', [1.5 - 2j, -0.25 + 8j], np.imag, rty='f32'))
C.append(unary('real_f32', 'real', 'f32', [1.5, -inf], np.real))
C.append(unary('imag_f32', 'imag', 'f32', [1.5, -inf], lambda a: np.zeros_like(a), comment='imag of a real float is zero'))

# ---- more edge values: the sign of zero kept, overflow, branch cuts
N = -2**31
for op in ('cbrt', 'tanh', 'log_plus_one', 'exponential_minus_one', 'sine', 'tan', 'floor', 'ceil', 'round_nearest_afz'):
    C.append(signbits('%s_negzero_f32' % op, op, 'f32', [-0.0], [N], '%s(-0.0) = -0.0' % op if op == 'cbrt' else None))
C.append(signbits('ceil_round_to_negzero_f32', 'ceil', 'f32', [-0.5, -0.25], [N, N], 'ceil(-0.5) and afz(-0.4) round to -0.0'))
C.append(signbits('afz_round_to_negzero_f32', 'round_nearest_afz', 'f32', [-0.4], [N]))
C.append(unary('expm1_limits_f32', 'exponential_minus_one', 'f32', [89.0, -100.0], lambda a: np.array([inf, -1.0]), comment='overflow to inf, saturation at -1'))
C.append(unary('exp_overflow_f16', 'exponential', 'f16', [12.0, -20.0], lambda a: np.array([inf, 0.0]), comment='f16 overflows past 65504, underflows to 0'))
C.append(unary('round_even_f16', 'round_nearest_even', 'f16', [0.5, 2.5, -1.5, 1025.5], np.rint))
C.append(unary('sqrt_branch_cut_c128', 'sqrt', 'complex<f64>', [complex(-4, -0.0), complex(-4, 0.0)], lambda a: np.array([-2j, 2j]),
               comment='the branch cut: the sign of a zero imaginary part picks the side'))
C.append(unary('sign_nan_c128', 'sign', 'complex<f64>', [complex(nan, 0), complex(0, -0.0)], lambda a: np.array([complex(nan, nan), 0j])))
C.append(unary('abs_inf_c64', 'abs', 'complex<f32>', [complex(inf, nan), complex(2e38, 2e38)], lambda a: np.array([inf, math.hypot(float(np.float32(2e38)), float(np.float32(2e38)))]), rty='f32',
               comment='|inf + NaN i| = inf; no overflow in the intermediate square'))
C.append(unary('clz_ui8', 'count_leading_zeros', 'ui8', [0, 1, 255, 16], clz(8)))
C.append(unary('popcnt_ui8', 'popcnt', 'ui8', [255, 0x81], popcnt(8)))

HEADER = '''Element-wise unary kernels (vm/kernels/elementwise.c): abs, negate, not,
sign, floor, ceil, round_nearest_afz/even, sqrt, rsqrt, cbrt, exponential,
exponential_minus_one, log, log_plus_one, logistic, sine, cosine, tan, tanh,
is_finite, popcnt, count_leading_zeros, real, imag over i1, i8..i64,
ui8..ui64, f16, bf16, f32, f64, complex<f32/f64>, with INT_MIN, NaN, +-inf,
-0.0 (its sign read back through bitcast_convert), rank 0 and empty tensors.
Transcendentals are compared with NumPy's float64 result rounded to the type,
within an absolute tolerance of a few ULPs; everything else exactly.'''
import sys
print(write(out_path(OUT), HEADER, C, 'gen_unary.py'))
