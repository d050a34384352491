OUT = 'special.mlir'
from kg import *
import numpy as np, math, sys, warnings, struct
warnings.simplefilter('ignore')
inf, nan = math.inf, math.nan
C = []

# ---- references in double precision, written out here (no SciPy)
def digamma(x):
    if x <= 0 and x == math.floor(x):
        return nan
    if x < 0.5:  # reflection
        return digamma(1 - x) - math.pi / math.tan(math.pi * x)
    r = 0.0
    while x < 10:
        r -= 1 / x
        x += 1
    f = 1 / (x * x)
    return r + math.log(x) - 0.5 / x - f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (1 / 240 - f / 132))))

B2J = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6]
def hurwitz_zeta(s, q):
    """Euler-Maclaurin summation for s > 1, q > 0."""
    if s == 1:
        return inf
    N = 20
    total = sum((q + k) ** -s for k in range(N))
    a = q + N
    total += a ** (1 - s) / (s - 1) + 0.5 * a ** -s
    fact, poch = 1.0, s  # (2j)! and s (s+1) ... (s+2j-2)
    for j, b in enumerate(B2J, 1):
        fact *= (2 * j - 1) * (2 * j)
        total += b / fact * poch * a ** (-s - 2 * j + 1)
        poch *= (s + 2 * j - 1) * (s + 2 * j)
    return total

def polygamma(n, x):
    if n == 0:
        return digamma(x)
    return (-1) ** (n + 1) * math.factorial(int(n)) * hurwitz_zeta(n + 1, x)

def bessel_i1e(x):
    s, term, k, h = 0.0, abs(x) / 2, 0, abs(x) / 2
    while True:
        s += term
        k += 1
        term *= h * h / (k * (k + 1))
        if term <= 1e-18 * s or term == 0:
            break
    return math.copysign(s * math.exp(-abs(x)), x)

def erf_inv(y):
    if y == 1:
        return inf
    if y == -1:
        return -inf
    if abs(y) > 1 or y != y:
        return nan
    lo, hi = -6.0, 6.0
    for _ in range(200):  # bisection on the monotone erf
        mid = (lo + hi) / 2
        if math.erf(mid) < y:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2

def lgamma(x):
    if x <= 0 and x == math.floor(x):
        return inf
    return math.lgamma(x) if math.isfinite(x) else (inf if x != x or True else nan) if x == inf or x == -inf else nan

REL = {'f32': 2e-6, 'f64': 1e-12, 'f16': 2e-3, 'bf16': 1.6e-2}

def un(name, op, ty, xs, f, rel=None, comment=None, exact=False):
    a = arr(xs, ty)
    e = np.array([f(float(v)) for v in a.ravel()]).reshape(a.shape)
    ea = arr(e, ty)
    fin = np.isfinite(ea)
    scale = max(1.0, float(np.max(np.abs(ea[fin]))) if fin.any() else 1.0)
    kind = 'eq' if exact else ('almost', float('%.2g' % ((rel or REL[ty]) * scale)))
    body = '%%r = chlo.%s %%a0 : %s -> %s' % (op, tt(a.shape, ty), tt(a.shape, ty))
    return Case(name, [(a, ty)], body, [('%r', ea, ty, kind)], comment)

def bi(name, op, ty, xs, ys, f, rel=None, comment=None, exact=False):
    a, b = arr(xs, ty), arr(ys, ty)
    e = np.array([f(float(p), float(q)) for p, q in zip(a.ravel(), b.ravel())]).reshape(a.shape)
    ea = arr(e, ty)
    fin = np.isfinite(ea)
    scale = max(1.0, float(np.max(np.abs(ea[fin]))) if fin.any() else 1.0)
    kind = 'eq' if exact else ('almost', float('%.2g' % ((rel or REL[ty]) * scale)))
    t = tt(a.shape, ty)
    body = '%%r = chlo.%s %%a0, %%a1 : %s, %s -> %s' % (op, t, t, t)
    return Case(name, [(a, ty), (b, ty)], body, [('%r', ea, ty, kind)], comment)

ERFX = [0.0, 0.1, -0.5, 1.0, 2.0, -3.0, 5.0, inf, -inf, nan]
for ty in ('f32', 'f64'):
    C.append(un('erf_%s' % ty, 'erf', ty, ERFX, math.erf, comment='erf: odd, saturating at +-1' if ty == 'f32' else None))
    C.append(un('erfc_%s' % ty, 'erfc', ty, [0.0, 0.1, -0.5, 1.0, 2.0, -3.0, 5.0, 10.0, inf, -inf], math.erfc,
                comment='erfc keeps its relative accuracy in the tail (erfc(10) ~ 2e-45)' if ty == 'f32' else None))
    C.append(un('erf_inv_%s' % ty, 'erf_inv', ty, [0.0, 0.5, -0.5, 0.9, -0.99, 0.999, 1.0, -1.0, 1.5, nan], erf_inv,
                comment='erf_inv(+-1) = +-inf, |x| > 1 gives NaN' if ty == 'f32' else None))
    C.append(un('lgamma_%s' % ty, 'lgamma', ty, [1.0, 2.0, 0.5, 3.5, 10.0, 100.0, -0.5, -2.5, 0.0, -3.0, inf], lgamma,
                comment='lgamma = log|gamma|: negative non-integers, poles at 0 and -3 give inf' if ty == 'f32' else None))
    C.append(un('digamma_%s' % ty, 'digamma', ty, [1.0, 2.0, 0.5, 3.25, 10.0, 100.0, -0.5, -2.25, 1e-3], digamma,
                comment='digamma, with the reflection formula for x < 0.5' if ty == 'f32' else None))
    C.append(un('bessel_i1e_%s' % ty, 'bessel_i1e', ty, [0.0, 0.5, -1.0, 2.0, 10.0, -25.0], bessel_i1e,
                comment='bessel_i1e = exp(-|x|) I1(x), odd' if ty == 'f32' else None))
    C.append(bi('polygamma_%s' % ty, 'polygamma', ty, [0.0, 1.0, 1.0, 2.0, 3.0, 1.0], [2.0, 1.0, 0.5, 3.0, 1.5, 10.0], polygamma,
                comment='polygamma(n, x): n = 0 is digamma; psi1(1) = pi^2 / 6' if ty == 'f32' else None))
    C.append(bi('zeta_%s' % ty, 'zeta', ty, [2.0, 3.0, 2.0, 4.5, 1.5], [1.0, 1.0, 0.5, 2.0, 3.0], hurwitz_zeta,
                comment='Hurwitz zeta(x, q): zeta(2, 1) = pi^2 / 6, zeta(2, 1/2) = pi^2 / 2' if ty == 'f32' else None))
C.append(un('erf_bf16', 'erf', 'bf16', [0.5, -1.0, 2.0], math.erf))
C.append(un('lgamma_f16', 'lgamma', 'f16', [0.5, 4.0, 7.5], lgamma))
C.append(un('digamma_bf16', 'digamma', 'bf16', [1.0, 5.0], digamma))
C.append(un('erf_inv_f16', 'erf_inv', 'f16', [0.25, -0.75], erf_inv))
# inverse trigonometric and hyperbolic
TRIG = [('asin', math.asin, [0.0, 0.5, -1.0, 1.0, 0.99, 2.0]), ('acos', math.acos, [0.0, 0.5, -1.0, 1.0, -0.99, 2.0]),
        ('atan', math.atan, [0.0, 1.0, -10.0, inf, -inf, 1e-30]),
        ('sinh', math.sinh, [0.0, 0.5, -2.0, 20.0, 1e-5]), ('cosh', math.cosh, [0.0, 0.5, -2.0, 20.0]),
        ('asinh', math.asinh, [0.0, 0.5, -2.0, 1e10, -1e-6]), ('acosh', math.acosh, [1.0, 1.5, 10.0, 1e10, 0.5]),
        ('atanh', math.atanh, [0.0, 0.5, -0.9, 1.0, -1.0, 2.0]), ('tan', math.tan, [0.0, 0.5, -1.0, 1.5])]
def safe(f):
    def g(x):
        try:
            return f(x)
        except ValueError:
            if f is math.atanh and abs(x) == 1:
                return math.copysign(inf, x)
            return nan
        except OverflowError:
            return inf
    return g
for op, f, xs in TRIG:
    C.append(un('%s_f32' % op, op, 'f32', xs, safe(f), comment='%s (chlo)%s' % (op, ', outside its domain NaN' if op in ('asin', 'acos', 'acosh', 'atanh') else '')))
    C.append(un('%s_f64' % op, op, 'f64', xs, safe(f)))
C.append(un('asin_bf16', 'asin', 'bf16', [0.5, -0.25], math.asin))
C.append(un('sinh_f16', 'sinh', 'f16', [1.0, -3.0], math.sinh))
# predicates and conj
def pred(name, op, ty, xs, f):
    a = arr(xs, ty)
    e = np.array([f(float(v)) for v in a.ravel()], dtype=bool)
    return Case(name, [(a, ty)], '%%r = chlo.%s %%a0 : %s -> %s' % (op, tt(a.shape, ty), tt(a.shape, 'i1')), [('%r', e, 'i1', 'eq')])
V = [inf, -inf, nan, 0.0, 3.4e38, -1.0]
C.append(pred('is_inf_f32', 'is_inf', 'f32', V, math.isinf))
C.append(pred('is_pos_inf_f64', 'is_pos_inf', 'f64', V, lambda v: v == inf))
C.append(pred('is_neg_inf_bf16', 'is_neg_inf', 'bf16', V[:4], lambda v: v == -inf))
C.append(pred('is_inf_f16', 'is_inf', 'f16', [inf, 65504.0, -inf], math.isinf))
C.append(Case('conj_c64', [(np.array([1 + 2j, -3 - 0.5j]), 'complex<f32>')], '%r = chlo.conj %a0 : tensor<2xcomplex<f32>> -> tensor<2xcomplex<f32>>',
              [('%r', np.array([1 - 2j, -3 + 0.5j]), 'complex<f32>', 'eq')], 'conj negates the imaginary part'))
C.append(Case('conj_c128', [(np.array([1j]), 'complex<f64>')], '%r = chlo.conj %a0 : tensor<1xcomplex<f64>> -> tensor<1xcomplex<f64>>',
              [('%r', np.array([-1j]), 'complex<f64>', 'eq')]))
# square: x * x, exact for these values; complex (re - im)(re + im) + 2 re im i
for ty in ('f32', 'f64', 'f16', 'bf16'):
    C.append(un('square_%s' % ty, 'square', ty, [0.0, -0.0, 1.5, -3.0, 0.25, 300.0, inf, -inf, nan], lambda v: v * v,
                exact=True, comment='square: x * x; -0 gives +0, 300^2 overflows f16 to inf, NaN stays NaN' if ty == 'f16' else None))
C.append(Case('square_c64', [(np.array([1 + 2j, -3 - 0.5j]), 'complex<f32>')], '%r = chlo.square %a0 : tensor<2xcomplex<f32>> -> tensor<2xcomplex<f32>>',
              [('%r', np.array([-3 + 4j, 8.75 + 3j]), 'complex<f32>', 'eq')], 'square of a complex: (re - im)(re + im) + 2 re im i'))
C.append(Case('square_c128', [(np.array([0.5 - 2j]), 'complex<f64>')], '%r = chlo.square %a0 : tensor<1xcomplex<f64>> -> tensor<1xcomplex<f64>>',
              [('%r', np.array([-3.75 - 2j]), 'complex<f64>', 'eq')]))
# next_after: exact, on the bits
def next_after_bits(x, y, ty):
    """The next representable value after x toward y, by stepping the bits."""
    w = {'f16': 16, 'bf16': 16, 'f32': 32, 'f64': 64}[ty]
    if x != x or y != y:
        return nan
    if x == y:
        return y
    if ty == 'f64':
        return float(np.nextafter(np.float64(x), np.float64(y)))
    if ty == 'f32':
        return float(np.nextafter(np.float32(x), np.float32(y)))
    if ty == 'f16':
        return float(np.nextafter(np.float16(x), np.float16(y)))
    # bf16: the upper half of an f32
    b = struct.unpack('<I', struct.pack('<f', x))[0] >> 16
    if x == 0:
        b = 1 | (0x8000 if y < 0 else 0)
    elif (x < y) == (x > 0):
        b += 1
    else:
        b -= 1
    return struct.unpack('<f', struct.pack('<I', b << 16))[0]
NX = [1.0, 1.0, 0.0, -0.0, 2.0, inf, 3.4028235e38, nan, 1.0, -1.0]
NY = [2.0, 0.0, 1.0, -1.0, 2.0, 0.0, inf, 1.0, nan, -inf]
for ty in ('f32', 'f64', 'f16', 'bf16'):
    xs, ys = NX, NY
    if ty == 'f16':
        xs = [65504.0 if v == 3.4028235e38 else v for v in NX]
    if ty == 'bf16':
        xs = [3.3895314e38 if v == 3.4028235e38 else v for v in NX]
    a, b = arr(xs, ty), arr(ys, ty)
    e = [next_after_bits(float(p), float(q), ty) for p, q in zip(a, b)]
    C.append(bi('next_after_%s' % ty, 'next_after', ty, xs, ys, lambda p, q, ty=ty: next_after_bits(p, q, ty), exact=True,
                comment='next_after: one step of the bits; from 0 the smallest subnormal; x == y gives y; NaN in, NaN out' if ty == 'f32' else None))

HEADER = '''CHLO special functions and the other chlo element-wise ops
(vm/kernels/special.c, elementwise.c): erf, erfc, erf_inv, lgamma, digamma,
bessel_i1e, polygamma, zeta, asin, acos, atan, sinh, cosh, asinh, acosh,
atanh, tan, is_inf, is_pos_inf, is_neg_inf, conj, square, next_after over
f16, bf16, f32, f64 (complex for conj and square), with poles, infinities, NaN, out-of-domain
arguments, subnormal steps.  References are written out in the generator in
double precision (Python's math.erf / erfc / lgamma; bisection for erf_inv;
recurrence + asymptotic series for digamma; Euler-Maclaurin for Hurwitz zeta
and polygamma; the power series for I1) and compared within a tolerance
relative to the largest result (2e-6 for f32, 1e-12 for f64); next_after
exactly.'''
print(write(out_path(OUT), HEADER, C, 'gen_special.py'))
