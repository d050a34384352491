OUT = 'convert.mlir'
from kg import *
import numpy as np, math, struct, sys, warnings
warnings.simplefilter('ignore')

inf, nan = math.inf, math.nan
C = []

def conv(name, x, ty, rty, exp, op='convert', comment=None, kind='eq'):
    a = arr(x, ty)
    e = np.asarray(exp) if rty == 'i1' else arr(exp, rty)
    body = '%%r = stablehlo.%s %%a0 : (%s) -> %s' % (op, tt(a.shape, ty), tt(e.shape, rty))
    return Case(name, [(a, ty)], body, [('%r', e, rty, kind)], comment)

def wrapi(v, ty):
    bits = int(''.join(c for c in ty if c.isdigit()))
    v = int(v) & ((1 << bits) - 1)
    if not ty.startswith('u') and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v

def f2i(x, ty):
    """float -> int: truncate toward zero, saturate, NaN -> 0 (opcodes.def)."""
    bits = int(''.join(c for c in ty if c.isdigit()))
    lo, hi = (0, (1 << bits) - 1) if ty.startswith('u') else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    if math.isnan(x):
        return 0
    if math.isinf(x):
        return hi if x > 0 else lo
    return min(max(math.trunc(x), lo), hi)

def bits_f32(x):
    return struct.unpack('<I', struct.pack('<f', x))[0]

def f32_of(b):
    return struct.unpack('<f', struct.pack('<I', b & 0xFFFFFFFF))[0]

def reduce_precision(x, e, m):
    """XLA's ReducePrecision on f32 bits (xla/service/elemental_ir_emitter.cc)."""
    b = bits_f32(x)
    if math.isnan(x):
        return x
    if m < 23:
        last = 1 << (23 - m)
        bias = (last >> 1) - 1 + ((b & last) >> (23 - m))
        b = (b + bias) & ~(last - 1) & 0xFFFFFFFF
    if e < 8:
        emask = 0xFF << 23
        rbias = (1 << (e - 1)) - 1
        xe = b & emask
        if xe > (127 + rbias) << 23:
            b = (b & 0x80000000) | emask
        elif xe <= (127 - rbias) << 23:
            b = b & 0x80000000
    return f32_of(b)

# ---- int -> int
X = [300, -129, 127, -1, 65535, 2**31 - 1, -2**31]
for ty in ('i8', 'ui8', 'i16', 'ui16', 'i64', 'ui64', 'ui32'):
    C.append(conv('convert_i32_%s' % ty, X, 'i32', ty, [wrapi(v, ty) for v in X],
                  comment='integer conversions keep the low bits (wrap)' if ty == 'i8' else None))
C.append(conv('convert_ui64_i32', [2**64 - 1, 2**32 + 7, 2**63], 'ui64', 'i32', [wrapi(v, 'i32') for v in [2**64 - 1, 2**32 + 7, 2**63]]))
C.append(conv('convert_i8_i64', [-128, -1, 127], 'i8', 'i64', [-128, -1, 127], comment='sign extension'))
C.append(conv('convert_ui8_i16', [255, 128], 'ui8', 'i16', [255, 128], comment='zero extension'))
C.append(conv('convert_i1_i32', [True, False], 'i1', 'i32', [1, 0]))
C.append(conv('convert_i32_i1', [0, 1, -1, 256], 'i32', 'i1', [False, True, True, True], comment='to i1: x != 0'))
C.append(conv('convert_f32_i1', [0.0, -0.0, 0.5, nan], 'f32', 'i1', [False, False, True, True], comment='float to i1: x != 0 (NaN is not 0)'))
# ---- int -> float
C.append(conv('convert_i32_f32', [16777217, 16777219, -2**31, 2**31 - 1], 'i32', 'f32',
              [16777216.0, 16777220.0, -2147483648.0, 2147483648.0], comment='rounds to nearest even'))
C.append(conv('convert_i64_f64', [2**53 + 1, 2**63 - 1, -2**63], 'i64', 'f64', [float(2**53), 2.0**63, -2.0**63]))
C.append(conv('convert_ui64_f32', [2**64 - 1, 3], 'ui64', 'f32', [2.0**64, 3.0]))
C.append(conv('convert_ui64_f64', [2**64 - 1, 2**63 + 2**11], 'ui64', 'f64', [2.0**64, 2.0**63 + 2**11]))
C.append(conv('convert_i32_bf16', [257, 259, -257, 255, 1000000], 'i32', 'bf16', [256.0, 260.0, -256.0, 255.0, 999424.0]))
C.append(conv('convert_i32_f16', [2049, 70000, -65519, -65520], 'i32', 'f16', [2048.0, inf, -65504.0, -inf],
              comment='f16: 65520 and above round to inf'))
C.append(conv('convert_i1_f32', [True, False], 'i1', 'f32', [1.0, 0.0]))
C.append(conv('convert_i8_c64', [-3, 5], 'i8', 'complex<f32>', [-3 + 0j, 5 + 0j]))
# ---- float -> int
F = [1.9, -1.9, 0.5, -0.5, 3e9, -3e9, nan, inf, -inf, 2147483520.0]
for ty in ('i32', 'i8', 'ui8', 'ui32', 'i64', 'ui64', 'i16'):
    C.append(conv('convert_f32_%s' % ty, F, 'f32', ty, [f2i(float(np.float32(v)), ty) for v in F],
                  comment='float to int truncates toward zero, saturates, NaN -> 0' if ty == 'i32' else None))
D = [9.3e18, -9.3e18, 9.2e18, -0.99, 1.8e19, 4503599627370497.0]
for ty in ('i64', 'ui64'):
    C.append(conv('convert_f64_%s' % ty, D, 'f64', ty, [f2i(v, ty) for v in D]))
C.append(conv('convert_bf16_i32', [-3.5, 1e10, 255.0], 'bf16', 'i32', [f2i(float(v), 'i32') for v in bf16([-3.5, 1e10, 255.0])]))
C.append(conv('convert_f16_ui16', [65504.0, -1.0, 2.5], 'f16', 'ui16', [65504, 0, 2]))
# ---- float -> float
V = [1.0, 1.00390625, 1.01171875, 3.4028235e38, 1e-40, -0.0, nan, -inf, 0.1, 3.3961776e38]
C.append(conv('convert_f32_bf16', V, 'f32', 'bf16', bf16(arr(V, 'f32')),
              comment='f32 -> bf16 rounds to nearest even (1 + 2^-8 ties down, 1 + 3 * 2^-8 ties up), overflows to inf'))
C.append(conv('convert_f32_f16', [65504.0, 65519.0, 65520.0, 1e-7, 6e-8, 1e-9, 0.1, nan, -inf], 'f32', 'f16',
              np.array([65504.0, 65519.0, 65520.0, 1e-7, 6e-8, 1e-9, 0.1, nan, -inf], dtype=np.float32).astype(np.float16),
              comment='f16 overflow and subnormals'))
C.append(conv('convert_f64_f32', [1e300, 1e-50, 0.1, 1.0000000596046448, nan], 'f64', 'f32',
              np.array([1e300, 1e-50, 0.1, 1.0000000596046448, nan]).astype(np.float32)))
C.append(conv('convert_bf16_f32', [1.0078125, -3e38, nan], 'bf16', 'f32', bf16([1.0078125, -3e38, nan])))
C.append(conv('convert_f16_f64', [6e-8, 65504.0, -0.0], 'f16', 'f64', np.array([6e-8, 65504.0, -0.0], dtype=np.float16).astype(np.float64)))
C.append(conv('convert_bf16_f16', [1.0e5, 0.333984375, 1e-5], 'bf16', 'f16', bf16([1.0e5, 0.333984375, 1e-5]).astype(np.float16)))
C.append(conv('convert_f16_bf16', [65504.0, 0.0999755859375], 'f16', 'bf16',
              bf16(np.array([65504.0, 0.0999755859375], dtype=np.float16).astype(np.float32))))
C.append(conv('convert_f32_c64', [1.5, nan], 'f32', 'complex<f32>', [1.5 + 0j, complex(nan, 0)]))
C.append(conv('convert_c128_c64', [1e300 + 0.1j, 1 - 2j], 'complex<f64>', 'complex<f32>', np.array([1e300 + 0.1j, 1 - 2j]).astype(np.complex64)))
C.append(conv('convert_rank0_f32_i32', -7.9, 'f32', 'i32', -7))
C.append(conv('convert_empty', np.zeros((0, 3)), 'f32', 'i8', np.zeros((0, 3))))
C.append(conv('convert_f32_ui64_edges', [1.8446744e19, 2.0**63, -0.9], 'f32', 'ui64', [f2i(float(np.float32(v)), 'ui64') for v in [1.8446744e19, 2.0**63, -0.9]]))
C.append(conv('convert_f64_i32_edges', [2147483647.9, -2147483648.9, 1e10], 'f64', 'i32', [f2i(v, 'i32') for v in [2147483647.9, -2147483648.9, 1e10]]))
C.append(conv('convert_f16_i8', [300.0, -300.0, -inf], 'f16', 'i8', [127, -128, -128]))
C.append(conv('convert_bf16_ui8', [nan, 255.5, 256.0], 'bf16', 'ui8', [0, 255, 255]))
C.append(conv('convert_f64_f16_ties', [1.0 + 2**-11, 1.0 + 3 * 2**-11, 65520.0 - 1e-9, 2.0**-25, 2.0**-25 * 1.0000001], 'f64', 'f16',
              np.array([1.0 + 2**-11, 1.0 + 3 * 2**-11, 65520.0 - 1e-9, 2.0**-25, 2.0**-25 * 1.0000001]).astype(np.float16),
              comment='f64 -> f16 rounds once: ties to even, just below the overflow threshold, subnormal ties'))
C.append(conv('convert_f64_bf16_once', [1.0 + 2**-8 + 2**-40, 1.0 + 2**-8], 'f64', 'bf16', [1.0078125, 1.0],
              comment='f64 -> bf16 rounds once (through f32 first, 1 + 2^-8 + 2^-40 would tie down to 1)'))
C.append(conv('convert_i64_bf16', [2**63 - 1, 2**32 + 257], 'i64', 'bf16', [2.0**63, 2.0**32]))
C.append(conv('convert_ui64_f16', [2**64 - 1, 65519], 'ui64', 'f16', [inf, 65504.0]))
# ---- bitcast_convert
C.append(conv('bitcast_f32_i32', [1.0, -0.0, nan, -inf], 'f32', 'i32', [0x3F800000, -2**31, 0x7FC00000, wrapi(0xFF800000, 'i32')],
              op='bitcast_convert', comment='bitcast_convert keeps the bits'))
C.append(conv('bitcast_i32_f32', [0x40490FDB, 1, wrapi(0x80000000, 'i32')], 'i32', 'f32', [f32_of(0x40490FDB), f32_of(1), -0.0], op='bitcast_convert'))
C.append(conv('bitcast_f64_ui64', [1.0, -2.5], 'f64', 'ui64', [0x3FF0000000000000, 0xC004000000000000], op='bitcast_convert'))
C.append(conv('bitcast_bf16_ui16', [1.0, -2.0], 'bf16', 'ui16', [0x3F80, 0xC000], op='bitcast_convert'))
C.append(conv('bitcast_f16_i16', [1.0, 65504.0], 'f16', 'i16', [0x3C00, 0x7BFF], op='bitcast_convert'))
C.append(conv('bitcast_ui8_i8', [255, 128, 1], 'ui8', 'i8', [-1, -128, 1], op='bitcast_convert'))
C.append(conv('bitcast_f32_4xi8', [1.0, 0x01020304 and f32_of(0x01020304)], 'f32', 'ui8',
              [[0, 0, 0x80, 0x3F], [4, 3, 2, 1]], op='bitcast_convert',
              comment='to a narrower type: a new minor dimension, the bytes in little-endian order'))
C.append(conv('bitcast_2xi32_f64', [[0, 0x3FF00000], [1, 0]], 'i32', 'f64', [1.0, 5e-324], op='bitcast_convert',
              comment='to a wider type: the minor dimension goes'))
C.append(conv('bitcast_i64_2xf32', [0x3F80000040000000], 'i64', 'f32', [[2.0, 1.0]], op='bitcast_convert'))
# ---- reduce_precision
def rp(name, x, e, m, comment=None):
    a = arr(x, 'f32')
    exp = np.array([reduce_precision(float(v), e, m) for v in a.ravel()], dtype=np.float32).reshape(a.shape)
    body = '%%r = stablehlo.reduce_precision %%a0, format = e%dm%d : %s' % (e, m, tt(a.shape, 'f32'))
    return Case(name, [(a, 'f32')], body, [('%r', exp, 'f32', 'eq')], comment)
RPV = [1.0, 1.00048828125, 1.00146484375, 65504.0, 65520.0, 1e-8, -3.0e-5, nan, -inf, 0.1, 3.0e38]
C.append(rp('reduce_precision_e5m10', RPV, 5, 10, 'the f16 format: ties to even, overflow to inf, values below its smallest normal to zero'))
C.append(rp('reduce_precision_e8m7', RPV, 8, 7, 'the bf16 format'))
C.append(rp('reduce_precision_e4m3', [1.0, 1.0625, 1.1875, 240.0, 256.0, 0.02, -7.5], 4, 3))
C.append(rp('reduce_precision_e8m23', RPV, 8, 23, 'the f32 format itself: the identity'))
C.append(Case('reduce_precision_nan_payload', [(np.array([0x7F800001, wrapi(0xFF800100, 'i32'), 0x7F800000], dtype=np.int32), 'i32')],
              '%f = stablehlo.bitcast_convert %a0 : (tensor<3xi32>) -> tensor<3xf32>\n'
              '%r = stablehlo.reduce_precision %f, format = e5m10 : tensor<3xf32>\n'
              '%n = stablehlo.is_finite %r : (tensor<3xf32>) -> tensor<3xi1>\n'
              '%z = stablehlo.compare  NE, %r, %r,  FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>',
              [('%z', np.array([True, True, False]), 'i1', 'eq')],
              'a NaN whose payload lies in the dropped mantissa bits stays NaN (not inf)'))
C.append(rp('reduce_precision_2d', [[1.00146484375, 70000.0], [2.0, -0.0]], 5, 10))

def rp_bits(x, total, ebits_src, mbits_src, e, m):
    """XLA's ReducePrecision on the bits of any float type (as reduce_precision above)."""
    sign = 1 << (total - 1)
    emask = ((1 << ebits_src) - 1) << mbits_src
    if (x & emask) == emask and (x & ((1 << mbits_src) - 1)) != 0:
        return x  # NaN
    if m < mbits_src:
        last = 1 << (mbits_src - m)
        x = (x + (last >> 1) - 1 + ((x & last) >> (mbits_src - m))) & ~(last - 1) & ((1 << total) - 1)
    if e < ebits_src:
        src_bias, rbias = (1 << (ebits_src - 1)) - 1, (1 << (e - 1)) - 1
        xe = x & emask
        if xe > (src_bias + rbias) << mbits_src:
            x = (x & sign) | emask
        elif xe <= (src_bias - rbias) << mbits_src:
            x = x & sign
    return x
def rp_other(name, ty, ity, vals_bits, e, m, comment=None):
    w, eb, mb = {'f64': (64, 11, 52), 'f16': (16, 5, 10), 'bf16': (16, 8, 7)}[ty]
    ut, st = {16: (np.uint16, np.int16), 64: (np.uint64, np.int64)}[w]
    x = np.array(vals_bits, dtype=ut).view(st)
    exp = np.array([rp_bits(v, w, eb, mb, e, m) for v in vals_bits], dtype=ut).view(st)
    n = len(vals_bits)
    it, ft = tt((n,), ity), tt((n,), ty)
    body = '\n'.join(['%%f = stablehlo.bitcast_convert %%a0 : (%s) -> %s' % (it, ft),
                      '%%g = stablehlo.reduce_precision %%f, format = e%dm%d : %s' % (e, m, ft),
                      '%%r = stablehlo.bitcast_convert %%g : (%s) -> %s' % (ft, it)])
    return Case(name, [(x, ity)], body, [('%r', exp, ity, 'eq')], comment)
def f64b(v):
    return struct.unpack('<Q', struct.pack('<d', v))[0]
C.append(rp_other('reduce_precision_f64_e8m23', 'f64', 'i64', [f64b(v) for v in [1.0 + 2**-24, 1.0 + 3 * 2**-24, 1e39, 1e-39, 1e-50, 0.1, -3.0]] + [0x7FF0000000000001],
                  8, 23, 'f64, f16 and bf16 inputs, compared as bits: f64 to the f32 format (a NaN with a low payload stays NaN)'))
C.append(rp_other('reduce_precision_f64_e11m10', 'f64', 'i64', [f64b(v) for v in [1.0 + 2**-11, 1e300, 0.1]], 11, 10))
C.append(rp_other('reduce_precision_f16_e5m2', 'f16', 'i16', [0x3C00, 0x3C80, 0x3D80, 0x7BFF, 0x0001, 0x7C01, 0xBE00], 5, 2))
C.append(rp_other('reduce_precision_f16_e4m3', 'f16', 'i16', [0x3C00, 0x5F00, 0x2000, 0x1C00], 4, 3))
C.append(rp_other('reduce_precision_bf16_e5m2', 'bf16', 'i16', [0x3F80, 0x3FA0, 0x4780, 0x3380, 0x7FC1], 5, 2))

HEADER = '''Conversion kernels (vm/kernels/elementwise.c): convert between every
integer width and signedness (wrap, sign and zero extension, to i1 as x != 0),
int -> float (nearest even, f16 overflow), float -> int (truncate, saturate,
NaN -> 0: opcodes.def), float <-> float (bf16 and f16 ties, overflow,
subnormals, NaN), to and between complex types; bitcast_convert with the same
width and with a width change (minor dimension added or dropped,
little-endian); reduce_precision for e5m10, e8m7, e4m3 and e8m23 with ties,
overflow, underflow and NaN payloads (reference: XLA's algorithm on f32 bits,
written out in the generator), rank 0 and empty tensors.'''
print(write(out_path(OUT), HEADER, C, 'gen_convert.py'))
