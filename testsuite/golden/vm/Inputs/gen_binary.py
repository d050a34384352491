OUT = 'elementwise_binary.mlir'
from kg import *
import numpy as np, math, sys

inf, nan = math.inf, math.nan
C = []

def binary(name, op, ty, x, y, fn, kind='eq', rty=None, comment=None):
    a, b = arr(x, ty), arr(y, ty)
    rty = rty or ty
    with np.errstate(all='ignore'):
        e = fn(a, b)
    e = arr(e, rty) if rty != 'i1' else np.asarray(e, dtype=bool)
    t = tt(a.shape, ty)
    rt = tt(a.shape, rty)
    if rty == ty:
        body = '%%r = stablehlo.%s %%a0, %%a1 : %s' % (op, t)
    else:
        body = '%%r = stablehlo.%s %%a0, %%a1 : (%s, %s) -> %s' % (op, t, t, rt)
    return Case(name, [(a, ty), (b, ty)], body, [('%r', e, rty, kind)], comment)

def wrap(bits, signed):
    def w(v):
        v = int(v) & ((1 << bits) - 1)
        if signed and v >= 1 << (bits - 1):
            v -= 1 << bits
        return v
    return w

def iref(ty, f):
    """An integer reference on Python ints, wrapped to the type."""
    bits = int(''.join(ch for ch in ty if ch.isdigit()))
    w = wrap(bits, not ty.startswith('u'))
    return lambda a, b: np.array([w(f(int(x), int(y), bits)) for x, y in zip(a.ravel(), b.ravel())],
                                 dtype=object).reshape(a.shape).astype(INTS[ty])

def signbits(name, op, ty, x, y, exp_bits, comment):
    a, b = arr(x, ty), arr(y, ty)
    ity = {'f16': 'i16', 'bf16': 'i16', 'f32': 'i32', 'f64': 'i64'}[ty]
    t = tt(a.shape, ty); it = tt(a.shape, ity)
    body = '%%r = stablehlo.%s %%a0, %%a1 : %s\n%%b = stablehlo.bitcast_convert %%r : (%s) -> %s' % (op, t, t, it)
    return Case(name, [(a, ty), (b, ty)], body, [('%b', np.array(exp_bits, dtype=INTS[ity]), ity, 'eq')], comment)

def bfop(f):
    # bf16: the exact result rounded once to bf16 (computed in f64, then f32, then bf16;
    # the two-step rounding is exact for these inputs: f32 keeps > 2 * 8 + 2 bits)
    return lambda a, b: bf16(f(a.astype(np.float64), b.astype(np.float64)).astype(np.float32))

# ---- add / subtract / multiply
C.append(binary('add_i8', 'add', 'i8', [127, -128, 100, -1], [1, -1, 100, 1], iref('i8', lambda x, y, n: x + y), comment='integers wrap'))
C.append(binary('add_ui8', 'add', 'ui8', [255, 200, 0], [1, 100, 0], iref('ui8', lambda x, y, n: x + y)))
C.append(binary('add_i64', 'add', 'i64', [2**63 - 1, -2**63], [1, -1], iref('i64', lambda x, y, n: x + y)))
C.append(binary('add_ui64', 'add', 'ui64', [2**64 - 1], [2], iref('ui64', lambda x, y, n: x + y)))
C.append(binary('add_i1', 'add', 'i1', [False, False, True, True], [False, True, False, True], np.logical_or, comment='add on i1 is or'))
C.append(binary('add_f32', 'add', 'f32', [1.0, inf, inf, nan, 3.4028235e38, 1e-45], [2.0, -inf, 1.0, 1.0, 3.4028235e38, 1e-45],
                lambda a, b: a + b, comment='inf - inf = NaN; overflow to inf; subnormals kept'))
C.append(signbits('add_zeros_f32', 'add', 'f32', [-0.0, -0.0, 0.0], [-0.0, 0.0, -0.0], [-2**31, 0, 0], '-0 + -0 = -0, -0 + 0 = +0'))
C.append(binary('add_bf16', 'add', 'bf16', [1.0, 1.0, 256.0, 3.0e38], [0.001953125, 0.005859375, 1.0, 3.0e38], bfop(np.add),
                comment='bf16 rounds to nearest: 1 + 2^-9 rounds down, 1 + 3 * 2^-9 up, 256 + 1 ties to even 256'))
C.append(binary('add_f16', 'add', 'f16', [65504.0, 1.0, 2048.0], [65504.0, 0.0004883, 1.0], lambda a, b: a + b))
C.append(binary('add_f64', 'add', 'f64', [0.1, 1e308], [0.2, 1e308], lambda a, b: a + b))
C.append(binary('add_c64', 'add', 'complex<f32>', [1 + 2j, -1.5 + 0j], [3 - 4j, inf], lambda a, b: a + b))
C.append(binary('add_rank0_i32', 'add', 'i32', 2**31 - 1, 1, iref('i32', lambda x, y, n: x + y)))
C.append(binary('add_empty_f32', 'add', 'f32', np.zeros((2, 0)), np.zeros((2, 0)), np.add))
C.append(binary('subtract_i32', 'subtract', 'i32', [-2**31, 0, 5], [1, -2**31, 7], iref('i32', lambda x, y, n: x - y)))
C.append(binary('subtract_ui16', 'subtract', 'ui16', [0, 5], [1, 7], iref('ui16', lambda x, y, n: x - y)))
C.append(binary('subtract_f64', 'subtract', 'f64', [1.0, inf, 0.3], [1.0, inf, 0.1], lambda a, b: a - b))
C.append(binary('subtract_c128', 'subtract', 'complex<f64>', [1 + 2j], [0.5 - 2j], lambda a, b: a - b))
C.append(binary('multiply_i16', 'multiply', 'i16', [256, -32768, 181], [256, -1, 181], iref('i16', lambda x, y, n: x * y)))
C.append(binary('multiply_i64', 'multiply', 'i64', [2**62, 3037000500, -1], [4, 3037000500, -2**63], iref('i64', lambda x, y, n: x * y)))
C.append(binary('multiply_ui32', 'multiply', 'ui32', [65536, 4294967295], [65536, 4294967295], iref('ui32', lambda x, y, n: x * y)))
C.append(binary('multiply_i1', 'multiply', 'i1', [False, False, True, True], [False, True, False, True], np.logical_and, comment='multiply on i1 is and'))
C.append(binary('multiply_f32', 'multiply', 'f32', [0.0, 1e30, 1e-30, -2.0], [inf, 1e30, 1e-30, 1.5], lambda a, b: a * b, comment='0 * inf = NaN; overflow, underflow'))
C.append(binary('multiply_bf16', 'multiply', 'bf16', [1.0078125, 3.0], [1.0078125, 1.0 / 3], bfop(np.multiply)))
C.append(binary('multiply_c64', 'multiply', 'complex<f32>', [1 + 2j, 0 + 1j], [3 - 1j, 0 + 1j], lambda a, b: a.astype(np.complex128) * b))
C.append(binary('multiply_f16', 'multiply', 'f16', [300.0, 0.1], [300.0, 0.1], lambda a, b: (a.astype(np.float64) * b).astype(np.float16)))
# ---- divide / remainder
def idiv(x, y, n):
    if y == 0:
        return -1
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q
def irem(x, y, n):
    if y == 0:
        return x
    return x - idiv(x, y, n) * y
C.append(binary('divide_i32', 'divide', 'i32', [7, -7, 7, -7, 5, -2**31, -2**31], [2, 2, -2, -2, 0, -1, 0], iref('i32', idiv),
                comment='truncating division; x / 0 = -1; INT_MIN / -1 = INT_MIN (wraps)'))
C.append(binary('divide_i8', 'divide', 'i8', [-128, -128, 100], [-1, 3, 0], iref('i8', idiv)))
C.append(binary('divide_ui8', 'divide', 'ui8', [255, 7, 9], [2, 0, 3], iref('ui8', lambda x, y, n: -1 if y == 0 else x // y),
                comment='unsigned x / 0 is all ones'))
C.append(binary('divide_i64', 'divide', 'i64', [-2**63, 10**18], [-1, -7], iref('i64', idiv)))
C.append(binary('divide_ui64', 'divide', 'ui64', [2**64 - 1, 5], [0, 2], iref('ui64', lambda x, y, n: -1 if y == 0 else x // y)))
C.append(binary('divide_f32', 'divide', 'f32', [1.0, -1.0, 0.0, inf, 1.0, 1.0], [0.0, 0.0, 0.0, inf, 3.0, -inf], lambda a, b: a / b,
                comment='1/0 = inf, -1/0 = -inf, 0/0 = NaN, inf/inf = NaN'))
C.append(signbits('divide_negzero_f32', 'divide', 'f32', [1.0, -0.0], [-inf, 5.0], [-2**31, -2**31], '1 / -inf = -0, -0 / 5 = -0'))
C.append(binary('divide_f64', 'divide', 'f64', [1.0, 2.0], [3.0, 1e-310], lambda a, b: a / b))
C.append(binary('divide_bf16', 'divide', 'bf16', [1.0, 10.0], [3.0, 7.0], bfop(np.divide)))
C.append(binary('divide_c128', 'divide', 'complex<f64>', [1 + 2j, 4 + 0j], [3 - 4j, 0 + 2j], lambda a, b: a / b, kind=('almost', 1e-16)))
C.append(binary('remainder_i32', 'remainder', 'i32', [7, -7, 7, -7, 5, -2**31], [2, 2, -2, -2, 0, -1], iref('i32', irem),
                comment='the sign of the dividend; x % 0 = x; INT_MIN % -1 = 0'))
C.append(binary('remainder_i8', 'remainder', 'i8', [-128, -128], [-1, 3], iref('i8', irem)))
C.append(binary('remainder_ui32', 'remainder', 'ui32', [4294967295, 7], [10, 0], iref('ui32', lambda x, y, n: x if y == 0 else x % y)))
C.append(binary('remainder_f32', 'remainder', 'f32', [7.5, -7.5, 7.5, inf, 5.0, 5.0, nan], [2.0, 2.0, -2.0, 2.0, inf, 0.0, 1.0],
                lambda a, b: np.fmod(a, b), comment='fmod: the sign of x; inf % y = NaN; x % inf = x; x % 0 = NaN'))
C.append(signbits('remainder_negzero_f32', 'remainder', 'f32', [-4.0], [2.0], [-2**31], '-4 % 2 = -0'))
C.append(binary('remainder_f64', 'remainder', 'f64', [1e17, 0.3], [3.0, 0.1], lambda a, b: np.fmod(a, b)))
C.append(binary('remainder_f16', 'remainder', 'f16', [5.5, -100.0], [2.0, 7.0], lambda a, b: np.fmod(a, b)))
# ---- power
def ipow(x, y, n):
    if y < 0:
        return 1 if x == 1 else (-1 if y % 2 else 1) if x == -1 else 0
    return pow(x, y, 1 << n)
C.append(binary('power_i32', 'power', 'i32', [2, -2, 2, 1, -1, -1, 0, 3, 5], [10, 3, -1, -5, -3, -4, 0, 40, 0], iref('i32', ipow),
                comment='integer power: a negative exponent gives 0 unless |x| = 1; 0^0 = 1; wraps'))
C.append(binary('power_i8', 'power', 'i8', [2, -2, 3], [7, 7, 5], iref('i8', ipow)))
C.append(binary('power_ui64', 'power', 'ui64', [3, 2], [41, 64], iref('ui64', ipow)))
C.append(binary('power_f32', 'power', 'f32', [2.0, -8.0, 0.0, nan, 1.0, -2.0, 10.0], [0.5, 1.0 / 3, -1.0, 0.0, nan, 3.0, -2.0],
                lambda a, b: np.power(a.astype(np.float64), b.astype(np.float64)), kind=('almost', 1e-7),
                comment='pow(-8, 1/3) = NaN, pow(0, -1) = inf, pow(NaN, 0) = 1, pow(1, NaN) = 1'))
C.append(binary('power_f64', 'power', 'f64', [2.0, 1.5], [0.5, 2.5], np.power, kind=('almost', 1e-15)))
C.append(binary('power_c128', 'power', 'complex<f64>', [1j, 1 + 1j], [2 + 0j, 0.5 + 0j], np.power, kind=('almost', 1e-15)))
# ---- maximum / minimum
C.append(binary('maximum_f32', 'maximum', 'f32', [1.0, nan, 1.0, -inf, 2.0], [2.0, 1.0, nan, -3.0, -inf], np.maximum,
                comment='NaN propagates from either side'))
C.append(binary('minimum_f32', 'minimum', 'f32', [1.0, nan, 1.0, -inf, 2.0], [2.0, 1.0, nan, -3.0, inf], np.minimum))
C.append(binary('maximum_i8', 'maximum', 'i8', [-128, 127, -1], [127, -128, 0], np.maximum))
C.append(binary('minimum_ui8', 'minimum', 'ui8', [255, 0, 128], [1, 5, 127], np.minimum, comment='unsigned order: 255 > 1'))
C.append(binary('maximum_ui64', 'maximum', 'ui64', [2**64 - 1, 1], [0, 2], np.maximum))
C.append(binary('minimum_i64', 'minimum', 'i64', [-2**63, 5], [2**63 - 1, -5], np.minimum))
C.append(binary('maximum_bf16', 'maximum', 'bf16', [1.0, nan], [-1.0, 2.0], np.maximum))
C.append(binary('minimum_f16', 'minimum', 'f16', [1.0, -65504.0], [nan, 2.0], np.minimum))
C.append(binary('maximum_f64', 'maximum', 'f64', [1e-320, -1.0], [0.0, nan], np.maximum))
C.append(binary('maximum_i1', 'maximum', 'i1', [False, True, False], [False, False, True], np.logical_or))
C.append(binary('minimum_i1', 'minimum', 'i1', [True, True, False], [True, False, True], np.logical_and))
def cmax(a, b):
    return np.array([x if (x.real, x.imag) >= (y.real, y.imag) else y for x, y in zip(a, b)])
def cmin(a, b):
    return np.array([x if (x.real, x.imag) <= (y.real, y.imag) else y for x, y in zip(a, b)])
C.append(binary('maximum_c64', 'maximum', 'complex<f32>', [1 + 5j, 2 + 0j, 1 + 1j], [1 + 6j, 1 + 9j, 1 + 1j], cmax,
                comment='complex: lexicographic (real part, then imaginary part)'))
C.append(binary('minimum_c128', 'minimum', 'complex<f64>', [1 + 5j, 2 + 0j], [1 + 6j, 1 + 9j], cmin))
# ---- bitwise
for op, f in (('and', lambda x, y, n: x & y), ('or', lambda x, y, n: x | y), ('xor', lambda x, y, n: x ^ y)):
    C.append(binary('%s_i8' % op, op, 'i8', [-1, 85, -128, 0], [15, -86, -1, 7], iref('i8', f)))
    C.append(binary('%s_ui32' % op, op, 'ui32', [0xFFFFFFFF, 0x12345678], [0x0F0F0F0F, 0x87654321], iref('ui32', f)))
    C.append(binary('%s_i64' % op, op, 'i64', [-2**63, -1], [-1, 0x5555555555555555], iref('i64', f)))
    C.append(binary('%s_i1' % op, op, 'i1', [False, False, True, True], [False, True, False, True],
                    {'and': np.logical_and, 'or': np.logical_or, 'xor': np.logical_xor}[op]))
# ---- shifts
def shl(x, y, n):
    return 0 if y < 0 or y >= n else x << y
def sra(x, y, n):
    # x is the signed value; counts outside [0, n) give all sign bits
    return (-1 if x < 0 else 0) if y < 0 or y >= n else x >> y
def srl(x, y, n):
    return 0 if y < 0 or y >= n else (x & ((1 << n) - 1)) >> y
S8 = [0, 1, 7, 8, 9, 100, -1, 3]
X8 = [-77, -77, -77, -77, -77, -77, -77, 96]
C.append(binary('shift_left_i8', 'shift_left', 'i8', X8, S8, iref('i8', shl), comment='counts >= the width (or negative) give 0'))
C.append(binary('shift_right_arithmetic_i8', 'shift_right_arithmetic', 'i8', X8, S8, iref('i8', sra),
                comment='counts >= the width (or negative) give all sign bits'))
C.append(binary('shift_right_logical_i8', 'shift_right_logical', 'i8', X8, S8, iref('i8', srl), comment='counts >= the width (or negative) give 0'))
S32 = [0, 1, 31, 32, 33, -1]
X32 = [-2**31 + 5] * 6
C.append(binary('shift_left_i32', 'shift_left', 'i32', X32, S32, iref('i32', shl)))
C.append(binary('shift_right_arithmetic_i32', 'shift_right_arithmetic', 'i32', X32, S32, iref('i32', sra)))
C.append(binary('shift_right_logical_i32', 'shift_right_logical', 'i32', X32, S32, iref('i32', srl)))
C.append(binary('shift_left_i64', 'shift_left', 'i64', [1, 1, 3], [63, 64, 62], iref('i64', shl)))
C.append(binary('shift_right_arithmetic_i64', 'shift_right_arithmetic', 'i64', [-2**63, 2**62], [63, 64], iref('i64', sra)))
C.append(binary('shift_right_logical_i64', 'shift_right_logical', 'i64', [-2**63, -1], [63, 64], iref('i64', srl)))
C.append(binary('shift_left_ui16', 'shift_left', 'ui16', [0xFFFF, 1, 1], [4, 15, 16], iref('ui16', shl)))
C.append(binary('shift_right_logical_ui32', 'shift_right_logical', 'ui32', [0xFFFFFFFF, 0x80000000, 5], [4, 31, 32], iref('ui32', srl)))
C.append(binary('shift_right_logical_ui8', 'shift_right_logical', 'ui8', [255, 128], [1, 8], iref('ui8', srl)))
# ---- atan2, complex
C.append(binary('atan2_f32', 'atan2', 'f32', [1.0, 1.0, -1.0, -1.0, 0.0, inf, 3.0], [1.0, -1.0, -1.0, 1.0, -1.0, inf, 0.0],
                lambda a, b: np.arctan2(a.astype(np.float64), b.astype(np.float64)), kind=('almost', 3e-7),
                comment='atan2(y, x) in all four quadrants; atan2(0, -1) = pi; atan2(inf, inf) = pi/4'))
C.append(signbits('atan2_zeros_f32', 'atan2', 'f32', [0.0, -0.0, -0.0], [1.0, 1.0, 2.0], [0, -2**31, -2**31], 'atan2(-0, x > 0) = -0'))
C.append(binary('atan2_f64', 'atan2', 'f64', [0.5, -2.0, nan], [2.0, 0.25, 1.0], np.arctan2, kind=('almost', 1e-15)))
C.append(binary('atan2_special_f64', 'atan2', 'f64', [0.0, -0.0], [-0.0, -0.0], np.arctan2, comment='atan2(+-0, -0) = +-pi'))
C.append(binary('complex_f32', 'complex', 'f32', [1.5, -0.0, inf], [2.0, nan, -1.0], lambda a, b: a + 1j * b.astype(np.complex64) if False else
                np.array([complex(x, y) for x, y in zip(a, b)]), rty='complex<f32>'))
C.append(binary('complex_f64', 'complex', 'f64', [1e300], [-1e-300], lambda a, b: np.array([complex(x, y) for x, y in zip(a, b)]), rty='complex<f64>'))

# ---- more edge values
C.append(binary('shift_right_arithmetic_ui8', 'shift_right_arithmetic', 'ui8', [0x80, 0x80, 0x7F, 0xFF], [1, 8, 1, 100], lambda a, b: np.array([0xC0, 0xFF, 0x3F, 0xFF]),
                comment='arithmetic shift of an unsigned type fills with the top bit'))
C.append(binary('shift_right_arithmetic_ui32', 'shift_right_arithmetic', 'ui32', [0x80000000], [4], lambda a, b: np.array([0xF8000000])))
C.append(binary('power_f32_edges', 'power', 'f32', [-inf, -inf, 0.0, -1.0, 1.0, -0.5, 2.0, -2.0], [3.0, 2.0, -inf, inf, -inf, inf, -inf, 0.5],
                lambda a, b: np.power(a.astype(np.float64), b.astype(np.float64)), comment='IEEE pow special cases'))
C.append(signbits('power_negzero_f32', 'power', 'f32', [-0.0, -0.0], [3.0, 2.0], [-2**31, 0], 'pow(-0, 3) = -0, pow(-0, 2) = +0'))
C.append(binary('remainder_f32_edges', 'remainder', 'f32', [5.0, -0.0, inf], [-0.0, 1.0, inf], lambda a, b: np.fmod(a, b)))
C.append(binary('remainder_bf16_big', 'remainder', 'bf16', [3.0e38, 100.0], [3.0, -7.0], lambda a, b: np.fmod(a.astype(np.float64), b.astype(np.float64)),
                comment='fmod is exact: a huge dividend keeps its exact remainder'))
C.append(binary('atan2_infinities_f64', 'atan2', 'f64', [inf, -inf, inf, 1.0, -1.0], [-inf, inf, 1.0, inf, -inf], np.arctan2))
C.append(binary('divide_ui16_zero', 'divide', 'ui16', [65535, 1], [0, 0], iref('ui16', lambda x, y, n: -1 if y == 0 else x // y)))
C.append(binary('remainder_ui16_zero', 'remainder', 'ui16', [65535, 7], [0, 0], iref('ui16', lambda x, y, n: x if y == 0 else x % y)))
C.append(binary('remainder_i64_edges', 'remainder', 'i64', [-2**63, -2**63], [-1, 0], iref('i64', irem)))
C.append(binary('divide_i16_edges', 'divide', 'i16', [-32768, -32768], [-1, 0], iref('i16', idiv)))
C.append(binary('power_i64_negative', 'power', 'i64', [2, -1, 1, 0], [-1, -2**63, -2**63, -1], iref('i64', ipow)))
C.append(binary('power_ui8', 'power', 'ui8', [2, 3, 255], [8, 5, 2], iref('ui8', ipow)))
C.append(binary('shift_left_i64_big_counts', 'shift_left', 'i64', [1, 1, 1, -1], [2**32, 2**32 + 1, -2**63, 2**63 - 1], iref('i64', shl),
                comment='counts whose low 32 bits are small (2^32, 2^32 + 1) still shift everything out'))
C.append(binary('shift_right_arithmetic_i64_big_counts', 'shift_right_arithmetic', 'i64', [-5, 5, -5], [2**32, 2**32 + 1, -2**63], iref('i64', sra)))
C.append(binary('shift_right_logical_i32_negative_counts', 'shift_right_logical', 'i32', [-1, -1], [-2**31, 2**31 - 1], iref('i32', srl)))
C.append(binary('shift_left_ui64_big_counts', 'shift_left', 'ui64', [1, 1], [2**64 - 1, 2**32], iref('ui64', shl)))
C.append(binary('power_i64_huge_exponents', 'power', 'i64', [1, -1, 2, 3], [2**62, 2**62 + 1, 2**62, 2**40], iref('i64', ipow),
                comment='exponents up to 2^62: by squaring, wrapping'))
C.append(binary('divide_ui64_top_bit', 'divide', 'ui64', [2**64 - 1, 2**63], [2**63, 3], iref('ui64', lambda x, y, n: x // y)))
C.append(binary('remainder_ui64_top_bit', 'remainder', 'ui64', [2**64 - 1, 2**63 + 5], [2**63, 2**63], iref('ui64', lambda x, y, n: x % y)))

HEADER = '''Element-wise binary kernels (vm/kernels/elementwise.c): add, subtract,
multiply, divide, remainder, power, maximum, minimum, and, or, xor,
shift_left, shift_right_arithmetic, shift_right_logical, atan2, complex over
i1, i8..i64, ui8..ui64, f16, bf16, f32, f64, complex<f32/f64>: wrapping
overflow, INT_MIN / -1, x / 0 and x % 0 (opcodes.def), shift counts >= the
width or negative, NaN propagation, +-inf, -0.0 (read back as bits), bf16
round-to-nearest-even ties, rank 0 and empty tensors.  Integer references are
Python integers wrapped to the type; floats NumPy (exact for the IEEE ops).'''
print(write(out_path(OUT), HEADER, C, 'gen_binary.py'))
