/* Element-wise kernels: unary and binary arithmetic, convert,
 * bitcast_convert, compare, select and clamp, for every element type of
 * vm/tpub.h.
 *
 * Strategy: f32, f64 and integers in their native containers run as
 * straight loops over the whole buffer (one switch per instruction, not per
 * element).  f16, bf16, tf32 and the minifloats are converted to f32 in
 * chunks, computed there (as XLA does) and rounded back; complex<f32> is
 * computed in complex<f64> chunks, except multiply, power, sine and cosine,
 * which follow XLA's f32 formulas (common/scalar.h), as does f32 expm1.
 * Sub-byte integers (i1, i2, i4, ui2, ui4) use the 8-bit loops with the
 * element's width, then a wrap pass restores the canonical sign/zero
 * extension. */
#include <complex.h>
#include <math.h>
#include <string.h>

#include "common/scalar.h"
#include "vm/dtype.h"
#include "vm/kernels/kernels.h"
#include "vm/kernels/vecmath.h"
#include "vm/opinfo.h"

/* gcc -O2 only vectorizes loops that need no runtime alias check or
 * epilogue; the element-wise loops here want both. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("-fvect-cost-model=dynamic")
#endif

enum { CHUNK = 512 };

typedef double _Complex cdouble;

static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

static inline cdouble cmk(double re, double im) {
  cdouble z;
  __real__ z = re;
  __imag__ z = im;
  return z;
}

static bool is_complex(int elem) { return vm_elem_class(elem) == TPUB_CLASS_COMPLEX; }

/* Restores the canonical extension of n sub-byte integers after 8-bit
 * arithmetic. */
static void wrap_subbyte(int elem, void *data, int64_t n) {
  uint8_t *p = data;
  switch (elem) {
  case TPUB_I1:
  case TPUB_U1:
    for (int64_t i = 0; i < n; i++) p[i] &= 1;
    break;
  case TPUB_U2:
    for (int64_t i = 0; i < n; i++) p[i] &= 3;
    break;
  case TPUB_U4:
    for (int64_t i = 0; i < n; i++) p[i] &= 15;
    break;
  case TPUB_I2:
    for (int64_t i = 0; i < n; i++) p[i] = (uint8_t)((int8_t)(uint8_t)(p[i] << 6) >> 6);
    break;
  case TPUB_I4:
    for (int64_t i = 0; i < n; i++) p[i] = (uint8_t)((int8_t)(uint8_t)(p[i] << 4) >> 4);
    break;
  default: break;
  }
}

/* ------------------------------------------------------------------ */
/* Real kernels, instantiated for float (M = MF: expf...) and double. */

#define MF(fn) fn##f
#define MD(fn) fn
#define EACH(expr)                                                                                 \
  for (i = 0; i < n; i++) {                                                                        \
    expr;                                                                                          \
  }                                                                                                \
  break

/* sinh and cosh as XLA's CHLO decompositions compute them (the corpus
 * expects their rounding): e^(x + log 1/2) -+ e^(-x + log 1/2), and for
 * |x| < 1, (expm1(x) + expm1(x) / (expm1(x) + 1)) / 2, with the f32 expm1 of
 * the element-wise kernel (XLA's, common/scalar.h). */
#define LOG_HALF(T) ((T)-0.69314718055994530942)
static inline float sinh_xla_f(float x) {
  if (fabsf(x) < 1) {
    float e = scalar_xla_expm1f(x);
    return 0.5f * (e + e / (e + 1));
  }
  return expf(x + LOG_HALF(float)) - expf(-x + LOG_HALF(float));
}
static inline double sinh_xla_d(double x) {
  if (fabs(x) < 1) {
    double e = expm1(x);
    return 0.5 * (e + e / (e + 1));
  }
  return exp(x + LOG_HALF(double)) - exp(-x + LOG_HALF(double));
}
/* f32 e^x - 1 with XLA's formula (common/scalar.h), f64 with libm's. */
#define EXPM1_XLA(T, x) (sizeof(T) == 4 ? (T)scalar_xla_expm1f((float)(x)) : (T)expm1((double)(x)))
#define SINH_XLA(T, M, x) (sizeof(T) == 4 ? (T)sinh_xla_f((float)(x)) : (T)sinh_xla_d((double)(x)))

/* The loops that move most data get an AVX2 clone, chosen at load time
 * when the host has it (no FMA: the bits stay those of the plain loop). */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define VM_SANITIZED 1 /* gcc's sanitizers: ifunc resolvers run before them */
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define VM_SANITIZED 1 /* clang's */
#endif
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(VM_SANITIZED)
#define WIDE_SIMD __attribute__((target_clones("avx2", "default")))
#else
#define WIDE_SIMD __attribute__((noinline))
#endif

#define DEFINE_UNARY_REAL(NAME, T, M)                                                              \
  WIDE_SIMD static void NAME(int op, const T *a, T *o, int64_t n) {                                \
    int64_t i;                                                                                     \
    switch (op) {                                                                                  \
    case VM_OP_ABS: EACH(o[i] = M(fabs)(a[i]));                                                    \
    case VM_OP_NEGATE: EACH(o[i] = -a[i]);                                                         \
    case VM_OP_SIGN: EACH(o[i] = a[i] > 0 ? (T)1 : a[i] < 0 ? (T)-1 : a[i]);                       \
    case VM_OP_SQRT: EACH(o[i] = M(sqrt)(a[i]));                                                   \
    case VM_OP_RSQRT: EACH(o[i] = (T)1 / M(sqrt)(a[i]));                                           \
    case VM_OP_CBRT: EACH(o[i] = M(cbrt)(a[i]));                                                   \
    case VM_OP_EXPONENTIAL: EACH(o[i] = M(exp)(a[i]));                                             \
    case VM_OP_EXPONENTIAL_MINUS_ONE: EACH(o[i] = EXPM1_XLA(T, a[i]));                              \
    case VM_OP_LOG: EACH(o[i] = M(log)(a[i]));                                                     \
    case VM_OP_LOG_PLUS_ONE: EACH(o[i] = M(log1p)(a[i]));                                          \
    case VM_OP_LOGISTIC: EACH(o[i] = (T)1 / ((T)1 + M(exp)(-a[i])));                               \
    case VM_OP_SINE: EACH(o[i] = M(sin)(a[i]));                                                    \
    case VM_OP_COSINE: EACH(o[i] = M(cos)(a[i]));                                                  \
    case VM_OP_TAN: EACH(o[i] = M(tan)(a[i]));                                                     \
    case VM_OP_TANH: EACH(o[i] = M(tanh)(a[i]));                                                   \
    case VM_OP_FLOOR: EACH(o[i] = M(floor)(a[i]));                                                 \
    case VM_OP_CEIL: EACH(o[i] = M(ceil)(a[i]));                                                   \
    case VM_OP_ROUND_NEAREST_AFZ: EACH(o[i] = M(round)(a[i]));                                     \
    case VM_OP_ROUND_NEAREST_EVEN: EACH(o[i] = M(rint)(a[i]));                                     \
    case VM_OP_ERF: EACH(o[i] = M(erf)(a[i]));                                                     \
    case VM_OP_ERFC: EACH(o[i] = M(erfc)(a[i]));                                                   \
    case VM_OP_ERF_INV: EACH(o[i] = (T)vm_sf_erf_inv(a[i]));                                       \
    case VM_OP_LGAMMA: EACH(o[i] = (T)vm_sf_lgamma(a[i]));                                         \
    case VM_OP_DIGAMMA: EACH(o[i] = (T)vm_sf_digamma(a[i]));                                       \
    case VM_OP_BESSEL_I1E: EACH(o[i] = (T)vm_sf_bessel_i1e(a[i]));                                 \
    case VM_OP_ASIN: EACH(o[i] = M(asin)(a[i]));                                                   \
    case VM_OP_ACOS: EACH(o[i] = M(acos)(a[i]));                                                   \
    case VM_OP_ATAN: EACH(o[i] = M(atan)(a[i]));                                                   \
    case VM_OP_SINH: EACH(o[i] = SINH_XLA(T, M, a[i]));                                            \
    case VM_OP_COSH: EACH(T x_ = a[i]; o[i] = M(exp)(x_ + LOG_HALF(T)) + M(exp)(-x_ + LOG_HALF(T))); \
    case VM_OP_SQUARE: EACH(o[i] = a[i] * a[i]);                                                   \
    case VM_OP_ASINH: EACH(o[i] = M(asinh)(a[i]));                                                 \
    case VM_OP_ACOSH: EACH(o[i] = M(acosh)(a[i]));                                                 \
    case VM_OP_ATANH: EACH(o[i] = M(atanh)(a[i]));                                                 \
    case VM_OP_IMAG: EACH(o[i] = 0);                                                               \
    default: /* conj, real: identity */                                                            \
      if (o != a) memmove(o, a, (size_t)n * sizeof(T));                                            \
      break;                                                                                       \
    }                                                                                              \
  }

#define DEFINE_BINARY_REAL(NAME, T, M)                                                             \
  WIDE_SIMD static void NAME(int op, const T *a, const T *b, T *o, int64_t n) {                    \
    int64_t i;                                                                                     \
    switch (op) {                                                                                  \
    case VM_OP_ADD: EACH(o[i] = a[i] + b[i]);                                                      \
    case VM_OP_SUBTRACT: EACH(o[i] = a[i] - b[i]);                                                 \
    case VM_OP_MULTIPLY: EACH(o[i] = a[i] * b[i]);                                                 \
    case VM_OP_DIVIDE: EACH(o[i] = a[i] / b[i]);                                                   \
    case VM_OP_REMAINDER: EACH(o[i] = M(fmod)(a[i], b[i]));                                        \
    case VM_OP_POWER: EACH(o[i] = M(pow)(a[i], b[i]));                                             \
    case VM_OP_MAXIMUM: EACH(T x_ = a[i]; T y_ = b[i]; o[i] = SCALAR_MAX(x_, y_));                 \
    case VM_OP_MINIMUM: EACH(T x_ = a[i]; T y_ = b[i]; o[i] = SCALAR_MIN(x_, y_));                 \
    case VM_OP_ATAN2: EACH(o[i] = M(atan2)(a[i], b[i]));                                           \
    case VM_OP_NEXT_AFTER: EACH(o[i] = M(nextafter)(a[i], b[i]));                                  \
    case VM_OP_POLYGAMMA: EACH(o[i] = (T)vm_sf_polygamma(a[i], b[i]));                             \
    case VM_OP_ZETA: EACH(o[i] = (T)vm_sf_zeta(a[i], b[i]));                                       \
    default: break;                                                                                \
    }                                                                                              \
  }

/* The comparison loops, one per direction so each vectorizes (the
 * directions of SCALAR_COMPARE in common/scalar.h). */
#define DEFINE_COMPARE(NAME, T)                                                                    \
  WIDE_SIMD static void NAME(int dir, const T *a, const T *b, uint8_t *o, int64_t n) {             \
    int64_t i;                                                                                     \
    switch (dir) {                                                                                 \
    case 0: EACH(o[i] = a[i] == b[i]);                                                             \
    case 1: EACH(o[i] = a[i] != b[i]);                                                             \
    case 2: EACH(o[i] = a[i] >= b[i]);                                                             \
    case 3: EACH(o[i] = a[i] > b[i]);                                                              \
    case 4: EACH(o[i] = a[i] <= b[i]);                                                             \
    default: EACH(o[i] = a[i] < b[i]);                                                             \
    }                                                                                              \
  }

/* clamp with lo/hi either per element (step 1) or scalars (step 0): XLA's
 * NaN-propagating max with lo, then min with hi. */
#define DEFINE_CLAMP(NAME, T)                                                                      \
  WIDE_SIMD static void NAME(const T *lo, int64_t ls, const T *x, const T *hi, int64_t hs, T *o,   \
                   int64_t n) {                                                                    \
    for (int64_t i = 0; i < n; i++) {                                                              \
      T v = x[i], l = lo[i * ls], h = hi[i * hs];                                                  \
      T t = SCALAR_MAX(v, l);                                                                      \
      o[i] = SCALAR_MIN(t, h);                                                                     \
    }                                                                                              \
  }

DEFINE_UNARY_REAL(unary_f32, float, MF)
DEFINE_UNARY_REAL(unary_f64, double, MD)
DEFINE_BINARY_REAL(binary_f32, float, MF)
DEFINE_BINARY_REAL(binary_f64, double, MD)
DEFINE_COMPARE(compare_f32, float)
DEFINE_COMPARE(compare_f64, double)
DEFINE_CLAMP(clamp_f32, float)
DEFINE_CLAMP(clamp_f64, double)

/* ------------------------------------------------------------------ */
/* Integer kernels, instantiated for every native container.  T is the
 * storage type, U its unsigned and S its signed counterpart; `width` is
 * the element's bit width (<= the container's), so sub-byte types share
 * the 8-bit loops. */

/* base^e modulo 2^64 by squaring. */
static inline uint64_t ipow_u64(uint64_t base, uint64_t e) {
  uint64_t r = 1;
  while (e) {
    if (e & 1) r *= base;
    base *= base;
    e >>= 1;
  }
  return r;
}

static inline uint64_t width_mask(int width) {
  return width >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << width) - 1;
}

#define DEFINE_INT_KERNELS(SFX, T, U, S, SGN)                                                      \
  static void binary_##SFX(int op, const T *a, const T *b, T *o, int64_t n, int width) {           \
    const bool sgn = SGN;                                                                          \
    const T tmin = sgn ? (T)((U)1 << (sizeof(T) * 8 - 1)) : 0;                                     \
    const int sh = (int)sizeof(T) * 8 - width;                                                     \
    const U mask = (U)width_mask(width);                                                           \
    int64_t i;                                                                                     \
    switch (op) {                                                                                  \
    case VM_OP_ADD: EACH(o[i] = (T)((U)a[i] + (U)b[i]));                                           \
    case VM_OP_SUBTRACT: EACH(o[i] = (T)((U)a[i] - (U)b[i]));                                      \
    case VM_OP_MULTIPLY: EACH(o[i] = (T)(1u * (U)a[i] * (U)b[i])); /* unsigned: no int overflow */ \
    case VM_OP_DIVIDE:                                                                             \
      EACH(T x_ = a[i]; T y_ = b[i];                                                               \
           o[i] = y_ == 0 ? (T)-1 : (sgn && y_ == (T)-1 && x_ == tmin) ? x_ : (T)(x_ / y_));       \
    case VM_OP_REMAINDER:                                                                          \
      EACH(T x_ = a[i]; T y_ = b[i]; o[i] = y_ == 0 ? x_ : (sgn && y_ == (T)-1) ? 0 : (T)(x_ % y_)); \
    case VM_OP_POWER: /* negative exponent: 1 for 1, +-1 for -1, else 0 */                         \
      EACH(T x_ = a[i]; T y_ = b[i];                                                               \
           T neg_ = x_ == 1 ? (T)1 : x_ == (T)-1 ? ((y_ & 1) ? (T)-1 : (T)1) : (T)0;               \
           o[i] = (sgn && (S)y_ < 0) ? neg_ : (T)ipow_u64((uint64_t)x_, (uint64_t)y_));            \
    case VM_OP_MULHI: /* the operands as stored: sign- or zero-extended */                        \
      EACH(o[i] = sgn ? (T)((__int128)a[i] * (__int128)b[i] >> width)                              \
                      : (T)((unsigned __int128)(U)a[i] * (unsigned __int128)(U)b[i] >> width));     \
    case VM_OP_MAXIMUM: EACH(o[i] = a[i] >= b[i] ? a[i] : b[i]);                                   \
    case VM_OP_MINIMUM: EACH(o[i] = a[i] <= b[i] ? a[i] : b[i]);                                   \
    case VM_OP_AND: EACH(o[i] = a[i] & b[i]);                                                      \
    case VM_OP_OR: EACH(o[i] = a[i] | b[i]);                                                       \
    case VM_OP_XOR: EACH(o[i] = a[i] ^ b[i]);                                                      \
    case VM_OP_SHIFT_LEFT:                                                                         \
      EACH(U s_ = (U)b[i]; o[i] = s_ >= (U)width ? (T)0 : (T)((U)a[i] << s_));                     \
    case VM_OP_SHIFT_RIGHT_LOGICAL:                                                                \
      EACH(U s_ = (U)b[i]; o[i] = s_ >= (U)width ? (T)0 : (T)(((U)a[i] & mask) >> s_));            \
    case VM_OP_SHIFT_RIGHT_ARITHMETIC:                                                             \
      EACH(U s_ = (U)b[i]; S v_ = (S)((S)(U)((U)a[i] << sh) >> sh);                                \
           o[i] = s_ >= (U)width ? (v_ < 0 ? (T)-1 : (T)0) : (T)(v_ >> s_));                       \
    default: break;                                                                                \
    }                                                                                              \
  }                                                                                                \
  static void unary_##SFX(int op, const T *a, T *o, int64_t n, int width) {                        \
    const bool sgn = SGN;                                                                          \
    const uint64_t mask = width_mask(width);                                                       \
    int64_t i;                                                                                     \
    switch (op) {                                                                                  \
    case VM_OP_ABS: EACH(o[i] = (sgn && (S)a[i] < 0) ? (T)(0 - (U)a[i]) : a[i]);                   \
    case VM_OP_NEGATE: EACH(o[i] = (T)(0 - (U)a[i]));                                              \
    case VM_OP_SIGN:                                                                               \
      EACH(o[i] = sgn ? (T)(((S)a[i] > 0) - ((S)a[i] < 0)) : (T)(a[i] != 0));                      \
    case VM_OP_NOT: EACH(o[i] = (T)~a[i]);                                                         \
    case VM_OP_POPCNT: EACH(o[i] = (T)__builtin_popcountll((uint64_t)(U)a[i] & mask));             \
    case VM_OP_COUNT_LEADING_ZEROS:                                                                \
      EACH(uint64_t v_ = (uint64_t)(U)a[i] & mask;                                                 \
           o[i] = v_ == 0 ? (T)width : (T)(__builtin_clzll(v_) - (64 - width)));                   \
    default:                                                                                       \
      if (o != a) memmove(o, a, (size_t)n * sizeof(T));                                            \
      break;                                                                                       \
    }                                                                                              \
  }                                                                                                \
  DEFINE_COMPARE(compare_##SFX, T)                                                                 \
  DEFINE_CLAMP(clamp_##SFX, T)

DEFINE_INT_KERNELS(i8, int8_t, uint8_t, int8_t, 1)
DEFINE_INT_KERNELS(u8, uint8_t, uint8_t, int8_t, 0)
DEFINE_INT_KERNELS(i16, int16_t, uint16_t, int16_t, 1)
DEFINE_INT_KERNELS(u16, uint16_t, uint16_t, int16_t, 0)
DEFINE_INT_KERNELS(i32, int32_t, uint32_t, int32_t, 1)
DEFINE_INT_KERNELS(u32, uint32_t, uint32_t, int32_t, 0)
DEFINE_INT_KERNELS(i64, int64_t, uint64_t, int64_t, 1)
DEFINE_INT_KERNELS(u64, uint64_t, uint64_t, int64_t, 0)

/* Integer unary/binary on any integer element type (b may be NULL for
 * unary).  i1 computes as a 1-bit unsigned number, except that add is or
 * (the spec's boolean add). */
static void int_op(int op, int elem, const void *a, const void *b, void *o, int64_t n) {
  int width = vm_elem_bits(elem);
  if (elem == TPUB_I1 && op == VM_OP_ADD) op = VM_OP_OR;
  switch (elem) {
#define CASE(E, SFX, T)                                                                            \
  case E:                                                                                          \
    if (b) binary_##SFX(op, a, b, o, n, width);                                                    \
    else unary_##SFX(op, a, o, n, width);                                                          \
    break;
    CASE(TPUB_I2, i8, int8_t)
    CASE(TPUB_I4, i8, int8_t)
    CASE(TPUB_I8, i8, int8_t)
    CASE(TPUB_I1, u8, uint8_t)
    CASE(TPUB_U1, u8, uint8_t)
    CASE(TPUB_U2, u8, uint8_t)
    CASE(TPUB_U4, u8, uint8_t)
    CASE(TPUB_U8, u8, uint8_t)
    CASE(TPUB_I16, i16, int16_t)
    CASE(TPUB_U16, u16, uint16_t)
    CASE(TPUB_I32, i32, int32_t)
    CASE(TPUB_U32, u32, uint32_t)
    CASE(TPUB_I64, i64, int64_t)
    CASE(TPUB_U64, u64, uint64_t)
#undef CASE
  default: break;
  }
  if (width < 8) wrap_subbyte(elem, o, n);
}

/* ------------------------------------------------------------------ */
/* Complex kernels, in complex<f64> (complex<f32> goes through chunks). */

/* chlo.square of a complex number: (re - im)(re + im) + i 2 re im. */
/* (re - im)(re + im) + 2 re im i, the real part 0 when |re| = |im| and re
 * is finite (chlo.md's decomposition: re + im may overflow). */
static cdouble c_square(cdouble z) {
  double re = creal(z), im = cimag(z);
  return cmk(isfinite(re) && fabs(re) == fabs(im) ? 0.0 : (re - im) * (re + im), re * im * 2);
}

/* e^re cos im + i e^re sin im, and e^re + i im when im is 0: XLA's formula
 * (the spec's results at infinities, where C's cexp differs). */
static cdouble c_exp(cdouble z) {
  double re = creal(z), im = cimag(z), e = exp(re);
  return im == 0 ? cmk(e, im) : cmk(e * cos(im), e * sin(im));
}

static cdouble c_sign(cdouble z) {
  double re = creal(z), im = cimag(z);
  if (isnan(re) || isnan(im)) return cmk(NAN, NAN);
  if (re == 0 && im == 0) return z;
  if (isinf(re) || isinf(im)) {
    re = isinf(re) ? copysign(1.0, re) : copysign(0.0, re);
    im = isinf(im) ? copysign(1.0, im) : copysign(0.0, im);
  }
  double m = hypot(re, im);
  return cmk(re / m, im / m);
}

/* e^z - 1 without cancellation for small z. */
static cdouble c_expm1(cdouble z) {
  double x = creal(z), y = cimag(z), s = sin(y / 2);
  return cmk(expm1(x) * cos(y) - 2 * s * s, exp(x) * sin(y));
}

/* log(1 + z) without cancellation for small z. */
static cdouble c_log1p(cdouble z) {
  double x = creal(z), y = cimag(z);
  if (fabs(x) < 0.5 && fabs(y) < 0.5) return cmk(0.5 * log1p(x * (2 + x) + y * y), atan2(y, 1 + x));
  return clog(cmk(1 + x, y));
}

static cdouble c_mul(cdouble a, cdouble b) {
  double ar = creal(a), ai = cimag(a), br = creal(b), bi = cimag(b);
  return cmk(ar * br - ai * bi, ar * bi + ai * br);
}

/* a^b as XLA computes it: |a|^c e^(-d arg a) (cos q + i sin q) with
 * q = c arg a + d/2 ln|a|^2, and 0^0 = 1, 0^b = 0 for re(b) > 0. */
static cdouble c_pow(cdouble a, cdouble b) {
  double ar = creal(a), ai = cimag(a), c = creal(b), d = cimag(b);
  if (ar == 0 && ai == 0) {
    if (c == 0 && d == 0) return cmk(1, 0);
    if (c > 0) return cmk(0, 0);
  }
  double aa_bb = ar * ar + ai * ai, arg = atan2(ai, ar);
  double coeff = pow(aa_bb, 0.5 * c) * exp(-d * arg);
  double q = c * arg + 0.5 * d * log(aa_bb);
  return cmk(coeff * cos(q), coeff * sin(q));
}

/* atan2(y, x) = -i log((x + iy) / sqrt(x^2 + y^2)). */
static cdouble c_atan2(cdouble y, cdouble x) {
  cdouble iy = cmk(-cimag(y), creal(y));
  cdouble l = clog((x + iy) / csqrt(c_mul(x, x) + c_mul(y, y)));
  return cmk(cimag(l), -creal(l));
}

/* Lexicographic (re, im) order: is a >= b (or a > b when strict)? */
static bool c_greater(cdouble a, cdouble b, bool strict) {
  if (creal(a) != creal(b)) return creal(a) > creal(b);
  return strict ? cimag(a) > cimag(b) : cimag(a) >= cimag(b);
}

/* chlo._asin_acos_kernel: w with asin(z) = atan2(re z, re w) + i sign(im z)
 * im w; re w = sqrt(a^2 - x^2) by Kahan's product of square roots, im w =
 * log(a + sqrt(a^2 - 1)) = |im asin(z)|, on q = |re z| + i |im z|. */
static cdouble c_asin_acos_kernel(cdouble z) {
  cdouble q = cmk(fabs(creal(z)), fabs(cimag(z)));
  cdouble p = c_mul(csqrt(cmk(1.0 - creal(q), -cimag(q))), csqrt(cmk(1.0 + creal(q), cimag(q))));
  return cmk(creal(p), fabs(cimag(casin(q))));
}

static void unary_c128(int op, const cdouble *a, cdouble *o, int64_t n) {
  int64_t i;
  switch (op) {
  case VM_OP_NEGATE: EACH(o[i] = cmk(-creal(a[i]), -cimag(a[i])));
  case VM_OP_SIGN: EACH(o[i] = c_sign(a[i]));
  case VM_OP_SQRT: EACH(o[i] = csqrt(a[i]));
  case VM_OP_RSQRT: EACH(o[i] = 1.0 / csqrt(a[i]));
  case VM_OP_CBRT: EACH(o[i] = cpow(a[i], cmk(1.0 / 3.0, 0)));
  case VM_OP_EXPONENTIAL: EACH(o[i] = c_exp(a[i]));
  case VM_OP_EXPONENTIAL_MINUS_ONE: EACH(o[i] = c_expm1(a[i]));
  case VM_OP_LOG: EACH(o[i] = clog(a[i]));
  case VM_OP_LOG_PLUS_ONE: EACH(o[i] = c_log1p(a[i]));
  case VM_OP_LOGISTIC: EACH(o[i] = 1.0 / (1.0 + c_exp(cmk(-creal(a[i]), -cimag(a[i])))));
  case VM_OP_SINE: EACH(o[i] = csin(a[i]));
  case VM_OP_COSINE: EACH(o[i] = ccos(a[i]));
  case VM_OP_TAN: EACH(o[i] = ctan(a[i]));
  case VM_OP_TANH: EACH(o[i] = ctanh(a[i]));
  case VM_OP_ASIN: EACH(o[i] = casin(a[i]));
  case VM_OP_ACOS: EACH(o[i] = cacos(a[i]));
  case VM_OP_ATAN: EACH(o[i] = catan(a[i]));
  case VM_OP_SINH: EACH(o[i] = csinh(a[i]));
  case VM_OP_COSH: EACH(o[i] = ccosh(a[i]));
  case VM_OP_SQUARE: EACH(o[i] = c_square(a[i]));
  case VM_OP_ASINH: EACH(o[i] = casinh(a[i]));
  case VM_OP_ACOSH: EACH(o[i] = cacosh(a[i]));
  case VM_OP_ATANH: EACH(o[i] = catanh(a[i]));
  case VM_OP_CONJ: EACH(o[i] = cmk(creal(a[i]), -cimag(a[i])));
  case VM_OP_ASIN_ACOS_KERNEL: EACH(o[i] = c_asin_acos_kernel(a[i]));
  default:
    if (o != a) memmove(o, a, (size_t)n * sizeof(cdouble));
    break;
  }
}

static void binary_c128(int op, const cdouble *a, const cdouble *b, cdouble *o, int64_t n) {
  int64_t i;
  switch (op) {
  case VM_OP_ADD: EACH(o[i] = a[i] + b[i]);
  case VM_OP_SUBTRACT: EACH(o[i] = a[i] - b[i]);
  case VM_OP_MULTIPLY: EACH(o[i] = c_mul(a[i], b[i]));
  case VM_OP_DIVIDE: EACH(o[i] = a[i] / b[i]);
  case VM_OP_POWER: EACH(o[i] = c_pow(a[i], b[i]));
  case VM_OP_MAXIMUM: EACH(o[i] = c_greater(a[i], b[i], false) ? a[i] : b[i]);
  case VM_OP_MINIMUM: EACH(o[i] = c_greater(b[i], a[i], false) ? a[i] : b[i]);
  case VM_OP_ATAN2: EACH(o[i] = c_atan2(a[i], b[i]));
  default: break;
  }
}

/* complex<f32> ops XLA computes in f32 with its own formulas (see
 * common/scalar.h); false for the others, which go through complex<f64>. */
static bool unary_c64(int op, const float *a, float *o, int64_t n) {
  ScalarC64 (*f)(ScalarC64);
  switch (op) {
  case VM_OP_SINE: f = scalar_c64_sin; break;
  case VM_OP_COSINE: f = scalar_c64_cos; break;
  case VM_OP_EXPONENTIAL: f = scalar_c64_exp; break;
  default: return false;
  }
  for (int64_t i = 0; i < n; i++) {
    ScalarC64 r = f(scalar_c64(a[2 * i], a[2 * i + 1]));
    o[2 * i] = r.re, o[2 * i + 1] = r.im;
  }
  return true;
}

static bool binary_c64(int op, const float *a, const float *b, float *o, int64_t n) {
  ScalarC64 (*f)(ScalarC64, ScalarC64);
  switch (op) {
  case VM_OP_MULTIPLY: f = scalar_c64_mul; break;
  case VM_OP_POWER: f = scalar_c64_pow; break;
  default: return false;
  }
  for (int64_t i = 0; i < n; i++) {
    ScalarC64 r = f(scalar_c64(a[2 * i], a[2 * i + 1]), scalar_c64(b[2 * i], b[2 * i + 1]));
    o[2 * i] = r.re, o[2 * i + 1] = r.im;
  }
  return true;
}

/* complex<f32> <-> complex<f64> chunk conversions. */
static void c64_to_c128(const float *src, int64_t i0, int64_t n, cdouble *dst) {
  for (int64_t i = 0; i < n; i++) dst[i] = cmk(src[2 * (i0 + i)], src[2 * (i0 + i) + 1]);
}
static void c128_to_c64(const cdouble *src, float *dst, int64_t i0, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    dst[2 * (i0 + i)] = (float)creal(src[i]);
    dst[2 * (i0 + i) + 1] = (float)cimag(src[i]);
  }
}

/* ------------------------------------------------------------------ */
/* Unary operations. */

/* Rounds a float of nbits (src_e exponent, src_m mantissa bits) to e
 * exponent and m mantissa bits as XLA does: mantissa to nearest even,
 * exponent overflow to inf, underflow (incl. the narrower format's
 * denormals) to zero; NaN stays NaN (inf when m = 0). */
static uint64_t reduce_precision_bits(uint64_t x, int nbits, int src_e, int src_m, int64_t e,
                                      int64_t m) {
  const uint64_t all = width_mask(nbits);
  const uint64_t exp_mask = ((1ull << src_e) - 1) << src_m;
  const uint64_t mant_mask = (1ull << src_m) - 1;
  const uint64_t sign_bit = 1ull << (nbits - 1);
  const uint64_t orig = x;
  const bool nan = (x & exp_mask) == exp_mask && (x & mant_mask) != 0;
  if (m < src_m) {
    int drop = src_m - (int)m;
    uint64_t last = 1ull << drop;
    uint64_t bias = (last >> 1) - 1 + ((x & last) >> drop);
    x = ((x + bias) & ~(last - 1)) & all;
  }
  if (e < src_e) {
    uint64_t xe = x & exp_mask;
    int64_t f_bias = (1ll << (src_e - 1)) - 1, r_bias = (1ll << (e - 1)) - 1;
    uint64_t rmax = (uint64_t)(f_bias + r_bias), rmin = (uint64_t)(f_bias - r_bias);
    if (xe > (rmax << src_m)) x = (x & sign_bit) | exp_mask;
    else if (xe <= (rmin << src_m)) x &= sign_bit;
  }
  if (nan) x = m > 0 ? orig : (orig & sign_bit) | exp_mask;
  return x;
}

static void reduce_precision(int elem, const void *a, void *o, int64_t n, int64_t e, int64_t m) {
  int nbits = 0, src_e = 0, src_m = 0;
  switch (elem) {
  case TPUB_F64: nbits = 64, src_e = 11, src_m = 52; break;
  case TPUB_F32: nbits = 32, src_e = 8, src_m = 23; break;
  case TPUB_F16: nbits = 16, src_e = 5, src_m = 10; break;
  case TPUB_BF16: nbits = 16, src_e = 8, src_m = 7; break;
  default: break;
  }
  if (nbits) {
    for (int64_t i = 0; i < n; i++)
      vm_store_bits(elem, o, i, reduce_precision_bits(vm_load_bits(elem, a, i), nbits, src_e, src_m, e, m));
    return;
  }
  float buf[CHUNK]; /* other real types: exact in f32 */
  for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
    int64_t k = min64(CHUNK, n - i0);
    vm_to_f32(elem, a, i0, k, buf);
    for (int64_t i = 0; i < k; i++) {
      uint32_t bits;
      memcpy(&bits, &buf[i], 4);
      bits = (uint32_t)reduce_precision_bits(bits, 32, 8, 23, e, m);
      memcpy(&buf[i], &bits, 4);
    }
    vm_from_f32(elem, o, i0, k, buf);
  }
}

/* is_finite, is_inf, is_pos_inf, is_neg_inf: real float -> i1. */
static void float_predicate(int op, int elem, const void *a, uint8_t *o, int64_t n) {
  double buf[CHUNK];
  for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
    int64_t k = min64(CHUNK, n - i0);
    vm_to_f64(elem, a, i0, k, buf);
    uint8_t *r = o + i0;
    switch (op) {
    case VM_OP_IS_FINITE:
      for (int64_t i = 0; i < k; i++) r[i] = isfinite(buf[i]) != 0;
      break;
    case VM_OP_IS_INF:
      for (int64_t i = 0; i < k; i++) r[i] = isinf(buf[i]) != 0;
      break;
    case VM_OP_IS_POS_INF:
      for (int64_t i = 0; i < k; i++) r[i] = buf[i] == INFINITY;
      break;
    default:
      for (int64_t i = 0; i < k; i++) r[i] = buf[i] == -INFINITY;
      break;
    }
  }
}

/* real / imag: a complex operand gives its part; a real one itself / 0. */
static void complex_part(int op, int elem, const void *a, void *o, int64_t n) {
  int part = op == VM_OP_IMAG;
  if (elem == TPUB_C64) {
    const float *s = a;
    float *d = o;
    for (int64_t i = 0; i < n; i++) d[i] = s[2 * i + part];
  } else if (elem == TPUB_C128) {
    const double *s = a;
    double *d = o;
    for (int64_t i = 0; i < n; i++) d[i] = s[2 * i + part];
  } else if (!part) {
    if (o != a) memmove(o, a, (size_t)(n * vm_elem_bytes(elem)));
  } else {
    uint64_t zero = vm_f64_to_float_bits(elem, 0.0);
    for (int64_t i = 0; i < n; i++) vm_store_bits(elem, o, i, zero);
  }
}

static void complex_abs(int elem, const void *a, void *o, int64_t n) {
  if (elem == TPUB_C64) {
    const float *s = a;
    float *d = o;
    for (int64_t i = 0; i < n; i++) d[i] = hypotf(s[2 * i], s[2 * i + 1]);
  } else {
    const double *s = a;
    double *d = o;
    for (int64_t i = 0; i < n; i++) d[i] = hypot(s[2 * i], s[2 * i + 1]);
  }
}

int exec_unary(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  (void)x;
  const int op = ins->opcode, elem = in[0].type->elem;
  const int64_t n = in[0].type->count;
  const void *a = in[0].data;
  void *o = out[0].data;
  if (n == 0) return VM_OK;
  switch (op) {
  case VM_OP_IS_FINITE:
  case VM_OP_IS_INF:
  case VM_OP_IS_POS_INF:
  case VM_OP_IS_NEG_INF: float_predicate(op, elem, a, o, n); return VM_OK;
  case VM_OP_REDUCE_PRECISION:
    reduce_precision(elem, a, o, n, vm_field_int(ins, 0), vm_field_int(ins, 1));
    return VM_OK;
  case VM_OP_REAL:
  case VM_OP_IMAG: complex_part(op, elem, a, o, n); return VM_OK;
  case VM_OP_ABS:
    if (is_complex(elem)) {
      complex_abs(elem, a, o, n);
      return VM_OK;
    }
    break;
  default: break;
  }
  switch (vm_elem_class(elem)) {
  case TPUB_CLASS_FLOAT:
    if (elem == TPUB_F32) {
      if (!vecmath_f32(op, a, o, n)) unary_f32(op, a, o, n);
    } else if (elem == TPUB_F64) {
      unary_f64(op, a, o, n);
    } else {
      float buf[CHUNK];
      for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
        int64_t k = min64(CHUNK, n - i0);
        vm_to_f32(elem, a, i0, k, buf);
        if (!vecmath_f32(op, buf, buf, k)) unary_f32(op, buf, buf, k);
        vm_from_f32(elem, o, i0, k, buf);
      }
    }
    break;
  case TPUB_CLASS_COMPLEX:
    if (elem == TPUB_C128) {
      unary_c128(op, a, o, n);
    } else if (!unary_c64(op, a, o, n)) {
      cdouble buf[CHUNK / 2];
      for (int64_t i0 = 0; i0 < n; i0 += CHUNK / 2) {
        int64_t k = min64(CHUNK / 2, n - i0);
        c64_to_c128(a, i0, k, buf);
        unary_c128(op, buf, buf, k);
        c128_to_c64(buf, o, i0, k);
      }
    }
    break;
  default: int_op(op, elem, a, NULL, o, n); break;
  }
  return VM_OK;
}

/* ------------------------------------------------------------------ */
/* Binary operations. */

/* Bit width of a real float element's encoding (tf32: 19 bits in 32). */
static int float_width(int elem) { return elem == TPUB_TF32 ? 19 : vm_elem_bits(elem); }

/* next_after in the element's own format, by stepping its bit pattern
 * (XLA's algorithm). */
static void next_after_bits(int elem, const void *a, const void *b, void *o, int64_t n) {
  const int w = float_width(elem);
  const bool has_sign = elem != TPUB_F8E8M0FNU;
  const uint64_t sign_bit = has_sign ? 1ull << (w - 1) : 0;
  const uint64_t nan_bits = vm_f64_to_float_bits(elem, NAN);
  const bool fnuz = vm_float_bits_to_f64(elem, sign_bit) != 0 && has_sign; /* -0 pattern is NaN */
  for (int64_t i = 0; i < n; i++) {
    uint64_t xb = vm_load_bits(elem, a, i), yb = vm_load_bits(elem, b, i), r;
    double xv = vm_float_bits_to_f64(elem, xb), yv = vm_float_bits_to_f64(elem, yb);
    if (isnan(xv) || isnan(yv)) r = nan_bits;
    else if (xv == yv) r = yb;
    else if (xv == 0) r = (yv < 0 ? sign_bit : 0) | 1;
    else r = ((xv > yv) == (xv > 0)) ? xb - 1 : xb + 1;
    if (fnuz && r == sign_bit) r = 0;
    vm_store_bits(elem, o, i, r);
  }
}

/* complex(re, im) from two real tensors. */
static void make_complex(int elem, const void *a, const void *b, void *o, int64_t n) {
  if (elem == TPUB_F32) {
    const float *re = a, *im = b;
    float *d = o;
    for (int64_t i = 0; i < n; i++) {
      d[2 * i] = re[i];
      d[2 * i + 1] = im[i];
    }
  } else {
    const double *re = a, *im = b;
    double *d = o;
    for (int64_t i = 0; i < n; i++) {
      d[2 * i] = re[i];
      d[2 * i + 1] = im[i];
    }
  }
}

/* vm_binary_apply on bf16: in f32, converting inline (bf16 -> f32 is a
 * shift; back rounds to nearest even, as vm_from_f32 does): the reduce and
 * scatter fast paths call it for one or two elements at a time. */
static void binary_bf16(int op, void *o, const void *a, const void *b, int64_t n) {
  const uint16_t *sa = a, *sb = b;
  uint16_t *so = o;
  float ba[CHUNK], bb[CHUNK];
  for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
    int64_t k = min64(CHUNK, n - i0);
    for (int64_t i = 0; i < k; i++) {
      ba[i] = scalar_bits_f32((uint32_t)sa[i0 + i] << 16);
      bb[i] = scalar_bits_f32((uint32_t)sb[i0 + i] << 16);
    }
    binary_f32(op, ba, bb, ba, k);
    for (int64_t i = 0; i < k; i++) so[i0 + i] = scalar_f32_to_bf16(ba[i]);
  }
}

/* vm_binary_apply for element types other than f32 and f64: in f32 or
 * complex<f64> chunks, or the integer loops.  Apart so that the chunk
 * buffers cost nothing to the f32/f64 calls. */
__attribute__((noinline)) static void binary_other(int op, int elem, void *o, const void *a, const void *b,
                                                   int64_t n) {
  switch (vm_elem_class(elem)) {
  case TPUB_CLASS_FLOAT:
    if (op == VM_OP_NEXT_AFTER) {
      next_after_bits(elem, a, b, o, n);
    } else {
      float ba[CHUNK], bb[CHUNK];
      for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
        int64_t k = min64(CHUNK, n - i0);
        vm_to_f32(elem, a, i0, k, ba);
        vm_to_f32(elem, b, i0, k, bb);
        binary_f32(op, ba, bb, ba, k);
        vm_from_f32(elem, o, i0, k, ba);
      }
    }
    break;
  case TPUB_CLASS_COMPLEX:
    if (elem == TPUB_C128) {
      binary_c128(op, a, b, o, n);
    } else if (!binary_c64(op, a, b, o, n)) {
      cdouble ba[CHUNK / 2], bb[CHUNK / 2];
      for (int64_t i0 = 0; i0 < n; i0 += CHUNK / 2) {
        int64_t k = min64(CHUNK / 2, n - i0);
        c64_to_c128(a, i0, k, ba);
        c64_to_c128(b, i0, k, bb);
        binary_c128(op, ba, bb, ba, k);
        c128_to_c64(ba, o, i0, k);
      }
    }
    break;
  default: int_op(op, elem, a, b, o, n); break;
  }
}

void vm_binary_apply(int op, int elem, void *o, const void *a, const void *b, int64_t n) {
  /* f32, f64 and bf16 directly (their loops are not inlined here):
   * scatters combine single elements, where each call's overhead counts. */
  if (elem == TPUB_F32)
    binary_f32(op, a, b, o, n);
  else if (elem == TPUB_F64)
    binary_f64(op, a, b, o, n);
  else if (elem == TPUB_BF16 && op != VM_OP_NEXT_AFTER)
    binary_bf16(op, o, a, b, n);
  else
    binary_other(op, elem, o, a, b, n);
}

int exec_binary(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  (void)x;
  const int64_t n = in[0].type->count;
  if (n == 0) return VM_OK;
  if (ins->opcode == VM_OP_COMPLEX)
    make_complex(in[0].type->elem, in[0].data, in[1].data, out[0].data, n);
  else
    vm_binary_apply(ins->opcode, in[0].type->elem, out[0].data, in[0].data, in[1].data, n);
  return VM_OK;
}

/* ------------------------------------------------------------------ */
/* compare */

/* Key whose signed order is the IEEE totalOrder of a float encoding:
 * -NaN < -inf < ... < -0 < +0 < ... < inf < NaN. */
static int64_t total_order_key(int elem, uint64_t bits) {
  if (elem == TPUB_F8E8M0FNU) return (int64_t)bits;
  int w = float_width(elem);
  int64_t mag = (int64_t)(bits & width_mask(w - 1));
  return (bits >> (w - 1)) & 1 ? ~mag : mag;
}

#define CMP3(x, y) (((x) > (y)) - ((x) < (y)))

/* Complex compare: EQ/NE on both parts, orderings lexicographic on
 * (re, im); with IEEE semantics a NaN part makes all but NE false. */
static void compare_complex(int dir, bool total, int elem, const void *a, const void *b, uint8_t *o,
                            int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    double ar, ai, br, bi;
    if (elem == TPUB_C64) {
      const float *pa = a, *pb = b;
      ar = pa[2 * i], ai = pa[2 * i + 1], br = pb[2 * i], bi = pb[2 * i + 1];
    } else {
      const double *pa = a, *pb = b;
      ar = pa[2 * i], ai = pa[2 * i + 1], br = pb[2 * i], bi = pb[2 * i + 1];
    }
    int c;
    if (total) {
      uint64_t u[4];
      memcpy(&u[0], &ar, 8), memcpy(&u[1], &ai, 8), memcpy(&u[2], &br, 8), memcpy(&u[3], &bi, 8);
      int64_t k[4];
      for (int j = 0; j < 4; j++) k[j] = total_order_key(TPUB_F64, u[j]);
      c = k[0] != k[2] ? CMP3(k[0], k[2]) : CMP3(k[1], k[3]);
    } else if (isnan(ar) || isnan(ai) || isnan(br) || isnan(bi)) {
      o[i] = dir == 1;
      continue;
    } else {
      c = ar != br ? CMP3(ar, br) : CMP3(ai, bi);
    }
    o[i] = scalar_direction_holds(dir, c);
  }
}

static void compare_total_order(int dir, int elem, const void *a, const void *b, uint8_t *o,
                                int64_t n) {
  int64_t ka[CHUNK], kb[CHUNK];
  for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
    int64_t k = min64(CHUNK, n - i0);
    for (int64_t i = 0; i < k; i++) {
      ka[i] = total_order_key(elem, vm_load_bits(elem, a, i0 + i));
      kb[i] = total_order_key(elem, vm_load_bits(elem, b, i0 + i));
    }
    compare_i64(dir, ka, kb, o + i0, k);
  }
}

int exec_compare(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  (void)x;
  const int dir = (int)vm_field_int(ins, 0);
  const bool total = vm_field_int(ins, 1) == 2;
  const int elem = in[0].type->elem;
  const int64_t n = in[0].type->count;
  const void *a = in[0].data, *b = in[1].data;
  uint8_t *o = out[0].data;
  if (n == 0) return VM_OK;
  switch (vm_elem_class(elem)) {
  case TPUB_CLASS_FLOAT:
    if (total) {
      compare_total_order(dir, elem, a, b, o, n);
    } else if (elem == TPUB_F32) {
      compare_f32(dir, a, b, o, n);
    } else if (elem == TPUB_F64) {
      compare_f64(dir, a, b, o, n);
    } else {
      float ba[CHUNK], bb[CHUNK]; /* every small float is exact in f32 */
      for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
        int64_t k = min64(CHUNK, n - i0);
        vm_to_f32(elem, a, i0, k, ba);
        vm_to_f32(elem, b, i0, k, bb);
        compare_f32(dir, ba, bb, o + i0, k);
      }
    }
    break;
  case TPUB_CLASS_COMPLEX: compare_complex(dir, total, elem, a, b, o, n); break;
  default:
    switch (elem) {
    case TPUB_I2:
    case TPUB_I4:
    case TPUB_I8: compare_i8(dir, a, b, o, n); break;
    case TPUB_I16: compare_i16(dir, a, b, o, n); break;
    case TPUB_U16: compare_u16(dir, a, b, o, n); break;
    case TPUB_I32: compare_i32(dir, a, b, o, n); break;
    case TPUB_U32: compare_u32(dir, a, b, o, n); break;
    case TPUB_I64: compare_i64(dir, a, b, o, n); break;
    case TPUB_U64: compare_u64(dir, a, b, o, n); break;
    default: compare_u8(dir, a, b, o, n); break; /* i1, ui1, ui2, ui4, ui8 */
    }
    break;
  }
  return VM_OK;
}

/* ------------------------------------------------------------------ */
/* select and clamp */

int exec_select(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  (void)x, (void)ins;
  const VmType *rt = out[0].type;
  const int64_t n = rt->count;
  const uint8_t *p = in[0].data;
  void *o = out[0].data;
  if (n == 0) return VM_OK;
  if (vm_type_is_scalar(in[0].type)) {
    const void *src = p[0] ? in[1].data : in[2].data;
    if (src != o) memmove(o, src, (size_t)rt->nbytes);
    return VM_OK;
  }
  switch (vm_elem_bytes(rt->elem)) {
#define SELECT_LOOP(T, K)                                                                          \
  {                                                                                                \
    const T *t = in[1].data, *f = in[2].data;                                                      \
    T *d = o;                                                                                      \
    for (int64_t i = 0; i < n; i++)                                                                \
      for (int j = 0; j < (K); j++) d[i * (K) + j] = p[i] ? t[i * (K) + j] : f[i * (K) + j];       \
    break;                                                                                         \
  }
  case 1: SELECT_LOOP(uint8_t, 1)
  case 2: SELECT_LOOP(uint16_t, 1)
  case 4: SELECT_LOOP(uint32_t, 1)
  case 8: SELECT_LOOP(uint64_t, 1)
  default: SELECT_LOOP(uint64_t, 2)
#undef SELECT_LOOP
  }
  return VM_OK;
}

int exec_clamp(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  (void)x, (void)ins;
  const int elem = in[1].type->elem;
  const int64_t n = in[1].type->count;
  const int64_t ls = vm_type_is_scalar(in[0].type) ? 0 : 1, hs = vm_type_is_scalar(in[2].type) ? 0 : 1;
  const void *lo = in[0].data, *v = in[1].data, *hi = in[2].data;
  void *o = out[0].data;
  if (n == 0) return VM_OK;
  switch (elem) {
  case TPUB_F32: clamp_f32(lo, ls, v, hi, hs, o, n); break;
  case TPUB_F64: clamp_f64(lo, ls, v, hi, hs, o, n); break;
  case TPUB_I2:
  case TPUB_I4:
  case TPUB_I8: clamp_i8(lo, ls, v, hi, hs, o, n); break;
  case TPUB_I1:
  case TPUB_U1:
  case TPUB_U2:
  case TPUB_U4:
  case TPUB_U8: clamp_u8(lo, ls, v, hi, hs, o, n); break;
  case TPUB_I16: clamp_i16(lo, ls, v, hi, hs, o, n); break;
  case TPUB_U16: clamp_u16(lo, ls, v, hi, hs, o, n); break;
  case TPUB_I32: clamp_i32(lo, ls, v, hi, hs, o, n); break;
  case TPUB_U32: clamp_u32(lo, ls, v, hi, hs, o, n); break;
  case TPUB_I64: clamp_i64(lo, ls, v, hi, hs, o, n); break;
  case TPUB_U64: clamp_u64(lo, ls, v, hi, hs, o, n); break;
  default: { /* small floats: exact in f32, and clamp picks one of its inputs */
    float bl[CHUNK], bv[CHUNK], bh[CHUNK];
    for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
      int64_t k = min64(CHUNK, n - i0);
      vm_to_f32(elem, lo, i0 * ls, ls ? k : 1, bl);
      vm_to_f32(elem, v, i0, k, bv);
      vm_to_f32(elem, hi, i0 * hs, hs ? k : 1, bh);
      clamp_f32(bl, ls, bv, bh, hs, bv, k);
      vm_from_f32(elem, o, i0, k, bv);
    }
    break;
  }
  }
  return VM_OK;
}

/* ------------------------------------------------------------------ */
/* convert */

/* Any element type to any other, in chunks: integers through int64 (with
 * correctly rounded int -> float), reals through f64 (exact for every
 * real type, so each result is rounded once), complex part by part. */
static void convert_generic(int ie, int oe, const void *a, void *o, int64_t n) {
  const int ic = vm_elem_class(ie), oc = vm_elem_class(oe);
  const bool in_int = ic == TPUB_CLASS_INT || ic == TPUB_CLASS_UINT;
  const bool out_int = oc == TPUB_CLASS_INT || oc == TPUB_CLASS_UINT;
  int64_t iv[CHUNK];
  double re[CHUNK], im[CHUNK];
  for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
    int64_t k = min64(CHUNK, n - i0);
    if (in_int) {
      const bool uns = ic == TPUB_CLASS_UINT;
      vm_to_i64(ie, a, i0, k, iv);
      if (out_int) {
        if (oe == TPUB_I1 || oe == TPUB_U1)
          for (int64_t i = 0; i < k; i++) iv[i] = iv[i] != 0;
        vm_from_i64(oe, o, i0, k, iv);
      } else if (oc == TPUB_CLASS_FLOAT) {
        for (int64_t i = 0; i < k; i++) vm_store_bits(oe, o, i0 + i, vm_int_to_float_bits(oe, iv[i], uns));
      } else if (oe == TPUB_C64) {
        float *d = (float *)o + 2 * i0;
        for (int64_t i = 0; i < k; i++) {
          d[2 * i] = uns ? (float)(uint64_t)iv[i] : (float)iv[i];
          d[2 * i + 1] = 0;
        }
      } else {
        double *d = (double *)o + 2 * i0;
        for (int64_t i = 0; i < k; i++) {
          d[2 * i] = uns ? (double)(uint64_t)iv[i] : (double)iv[i];
          d[2 * i + 1] = 0;
        }
      }
      continue;
    }
    if (ic == TPUB_CLASS_FLOAT) {
      vm_to_f64(ie, a, i0, k, re);
      memset(im, 0, (size_t)k * sizeof(double));
    } else if (ie == TPUB_C64) {
      const float *s = (const float *)a + 2 * i0;
      for (int64_t i = 0; i < k; i++) re[i] = s[2 * i], im[i] = s[2 * i + 1];
    } else {
      const double *s = (const double *)a + 2 * i0;
      for (int64_t i = 0; i < k; i++) re[i] = s[2 * i], im[i] = s[2 * i + 1];
    }
    if (out_int) {
      for (int64_t i = 0; i < k; i++) iv[i] = vm_f64_to_int(oe, re[i]);
      vm_from_i64(oe, o, i0, k, iv);
    } else if (oc == TPUB_CLASS_FLOAT) {
      vm_from_f64(oe, o, i0, k, re);
    } else if (oe == TPUB_C64) {
      float *d = (float *)o + 2 * i0;
      for (int64_t i = 0; i < k; i++) d[2 * i] = (float)re[i], d[2 * i + 1] = (float)im[i];
    } else {
      double *d = (double *)o + 2 * i0;
      for (int64_t i = 0; i < k; i++) d[2 * i] = re[i], d[2 * i + 1] = im[i];
    }
  }
}

/* The frequent conversions as straight loops; false when not one of them. */
static bool convert_fast(int ie, int oe, const void *a, void *o, int64_t n) {
#define PAIR(x, y) ((x) * TPUB_ELEM_COUNT + (y))
#define LOOP(TI, TO, EXPR)                                                                         \
  {                                                                                                \
    const TI *s = a;                                                                               \
    TO *d = o;                                                                                     \
    for (int64_t i = 0; i < n; i++) {                                                              \
      TI v = s[i];                                                                                 \
      d[i] = (EXPR);                                                                               \
    }                                                                                              \
    return true;                                                                                   \
  }
  switch (PAIR(ie, oe)) {
  case PAIR(TPUB_F32, TPUB_F64): LOOP(float, double, v)
  case PAIR(TPUB_F64, TPUB_F32): LOOP(double, float, (float)v)
  case PAIR(TPUB_I32, TPUB_F32): LOOP(int32_t, float, (float)v)
  case PAIR(TPUB_I32, TPUB_F64): LOOP(int32_t, double, v)
  case PAIR(TPUB_I64, TPUB_F32): LOOP(int64_t, float, (float)v)
  case PAIR(TPUB_I64, TPUB_F64): LOOP(int64_t, double, (double)v)
  case PAIR(TPUB_I32, TPUB_I64): LOOP(int32_t, int64_t, v)
  case PAIR(TPUB_I64, TPUB_I32): LOOP(int64_t, int32_t, (int32_t)v)
  case PAIR(TPUB_F32, TPUB_I32):
    LOOP(float, int32_t, v != v ? 0 : v >= 0x1p31f ? INT32_MAX : v <= -0x1p31f ? INT32_MIN : (int32_t)v)
  case PAIR(TPUB_F64, TPUB_I32):
    LOOP(double, int32_t, v != v ? 0 : v >= 0x1p31 ? INT32_MAX : v <= -0x1p31 ? INT32_MIN : (int32_t)v)
  case PAIR(TPUB_F32, TPUB_I64):
    LOOP(float, int64_t, v != v ? 0 : v >= 0x1p63f ? INT64_MAX : v <= -0x1p63f ? INT64_MIN : (int64_t)v)
  case PAIR(TPUB_F64, TPUB_I64):
    LOOP(double, int64_t, v != v ? 0 : v >= 0x1p63 ? INT64_MAX : v <= -0x1p63 ? INT64_MIN : (int64_t)v)
  case PAIR(TPUB_F16, TPUB_F32):
  case PAIR(TPUB_BF16, TPUB_F32): vm_to_f32(ie, a, 0, n, o); return true;
  case PAIR(TPUB_F32, TPUB_F16):
  case PAIR(TPUB_F32, TPUB_BF16): vm_from_f32(oe, o, 0, n, a); return true;
  case PAIR(TPUB_F16, TPUB_F64):
  case PAIR(TPUB_BF16, TPUB_F64): vm_to_f64(ie, a, 0, n, o); return true;
  default: return false;
  }
#undef LOOP
#undef PAIR
}

int exec_convert(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  (void)x, (void)ins;
  const int ie = in[0].type->elem, oe = out[0].type->elem;
  const int64_t n = in[0].type->count;
  if (n == 0) return VM_OK;
  if (ie == oe) {
    if (out[0].data != in[0].data) memmove(out[0].data, in[0].data, (size_t)out[0].type->nbytes);
    return VM_OK;
  }
  if (!convert_fast(ie, oe, in[0].data, out[0].data, n))
    convert_generic(ie, oe, in[0].data, out[0].data, n);
  return VM_OK;
}

/* ------------------------------------------------------------------ */
/* bitcast_convert */

/* Does the element fill its storage exactly (no sub-byte packing)? */
static bool fills_storage(int elem) { return vm_elem_bytes(elem) * 8 == vm_elem_bits(elem); }

/* Stores `bits` (the element's width) in canonical form. */
static void store_canonical(int elem, void *o, int64_t i, uint64_t bits) {
  int w = vm_elem_bits(elem);
  if (vm_elem_class(elem) == TPUB_CLASS_INT && elem != TPUB_I1 && w < 64)
    bits = (uint64_t)((int64_t)(bits << (64 - w)) >> (64 - w));
  vm_store_bits(elem, o, i, bits);
}

int exec_bitcast_convert(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  (void)ins;
  const int ie = in[0].type->elem, oe = out[0].type->elem;
  const int ib = vm_elem_bits(ie), ob = vm_elem_bits(oe);
  const void *a = in[0].data;
  void *o = out[0].data;
  if (out[0].type->count == 0) return VM_OK;
  if (fills_storage(ie) && fills_storage(oe)) { /* little-endian bytes are the same */
    if (o != a) memmove(o, a, (size_t)out[0].type->nbytes);
    return VM_OK;
  }
  if (o == a && ib != ob) return vm_trap(x, "bitcast_convert: result buffer aliases its operand");
  const uint64_t in_mask = width_mask(ib), out_mask = width_mask(ob);
  if (ib == ob) {
    for (int64_t i = 0; i < in[0].type->count; i++)
      store_canonical(oe, o, i, vm_load_bits(ie, a, i) & in_mask);
  } else if (ib > ob) { /* each operand element splits into ib/ob results, low bits first */
    const int r = ib / ob;
    for (int64_t i = 0; i < in[0].type->count; i++) {
      uint64_t w = vm_load_bits(ie, a, i) & in_mask;
      for (int j = 0; j < r; j++) store_canonical(oe, o, i * r + j, (w >> (j * ob)) & out_mask);
    }
  } else { /* ob/ib operand elements join into one result */
    const int r = ob / ib;
    for (int64_t i = 0; i < out[0].type->count; i++) {
      uint64_t w = 0;
      for (int j = 0; j < r; j++) w |= (vm_load_bits(ie, a, i * r + j) & in_mask) << (j * ib);
      store_canonical(oe, o, i, w);
    }
  }
  return VM_OK;
}

/* ------------------------------------------------------------------ */
/* Validators. */

static const char *op_name(const VmCheck *c) { return vm_op_rows[c->ins->opcode].name; }

static const VmType *tensor_in(VmCheck *c, uint32_t i) {
  const VmType *t = vm_check_in(c, i);
  if (!t || !vm_type_is_tensor(t)) {
    vm_check_fail(c, "%s: operand %u is not a tensor", op_name(c), i);
    return NULL;
  }
  return t;
}

static const VmType *tensor_out(VmCheck *c, uint32_t i) {
  const VmType *t = vm_check_out(c, i);
  if (!t || !vm_type_is_tensor(t)) {
    vm_check_fail(c, "%s: result %u is not a tensor", op_name(c), i);
    return NULL;
  }
  return t;
}

static bool bad_elem(VmCheck *c, const char *role, int elem) {
  return vm_check_fail(c, "%s: %s element type %s is not supported", op_name(c), role,
                       vm_elem_name(elem));
}

static bool want_result_elem(VmCheck *c, const VmType *to, int elem) {
  if (to->elem == elem) return true;
  return vm_check_fail(c, "%s: result element type is %s, expected %s", op_name(c),
                       vm_elem_name(to->elem), vm_elem_name(elem));
}

/* One tensor operand and a tensor result of the same shape. */
static bool unary_types(VmCheck *c, const VmType **ti, const VmType **to) {
  if (!(*ti = tensor_in(c, 0)) || !(*to = tensor_out(c, 0))) return false;
  if (!vm_type_same_shape(*ti, *to))
    return vm_check_fail(c, "%s: result shape differs from the operand's", op_name(c));
  return true;
}

static bool is_numeric(int elem) { return vm_elem_class(elem) >= 0; }

bool check_unary_abs(VmCheck *c) {
  const VmType *ti, *to;
  if (!unary_types(c, &ti, &to)) return false;
  if (!is_numeric(ti->elem)) return bad_elem(c, "operand", ti->elem);
  return want_result_elem(c, to, is_complex(ti->elem) ? vm_elem_complex_part(ti->elem) : ti->elem);
}

bool check_unary_numeric(VmCheck *c) {
  const VmType *ti, *to;
  if (!unary_types(c, &ti, &to)) return false;
  bool ok = c->ins->opcode == VM_OP_CONJ ? vm_elem_is_float(ti->elem) || is_complex(ti->elem)
                                         : is_numeric(ti->elem);
  if (!ok) return bad_elem(c, "operand", ti->elem);
  return want_result_elem(c, to, ti->elem);
}

bool check_unary_int(VmCheck *c) {
  const VmType *ti, *to;
  if (!unary_types(c, &ti, &to)) return false;
  if (!vm_elem_is_int(ti->elem)) return bad_elem(c, "operand", ti->elem);
  return want_result_elem(c, to, ti->elem);
}

bool check_unary_float(VmCheck *c) {
  const VmType *ti, *to;
  if (!unary_types(c, &ti, &to)) return false;
  bool real_only;
  switch (c->ins->opcode) {
  case VM_OP_ERF:
  case VM_OP_ERFC:
  case VM_OP_ERF_INV:
  case VM_OP_LGAMMA:
  case VM_OP_DIGAMMA:
  case VM_OP_BESSEL_I1E: real_only = true; break;
  default: real_only = false; break;
  }
  if (!vm_elem_is_float(ti->elem) && (real_only || !is_complex(ti->elem)))
    return bad_elem(c, "operand", ti->elem);
  if (c->ins->opcode == VM_OP_ASIN_ACOS_KERNEL && !is_complex(ti->elem)) /* its kernel is complex only */
    return bad_elem(c, "operand", ti->elem);
  return want_result_elem(c, to, ti->elem);
}

bool check_unary_real(VmCheck *c) {
  const VmType *ti, *to;
  if (!unary_types(c, &ti, &to)) return false;
  if (!vm_elem_is_float(ti->elem)) return bad_elem(c, "operand", ti->elem);
  return want_result_elem(c, to, ti->elem);
}

bool check_unary_to_pred(VmCheck *c) {
  const VmType *ti, *to;
  if (!unary_types(c, &ti, &to)) return false;
  if (!vm_elem_is_float(ti->elem)) return bad_elem(c, "operand", ti->elem);
  return want_result_elem(c, to, TPUB_I1);
}

bool check_unary_part(VmCheck *c) {
  const VmType *ti, *to;
  if (!unary_types(c, &ti, &to)) return false;
  if (is_complex(ti->elem)) return want_result_elem(c, to, vm_elem_complex_part(ti->elem));
  if (!vm_elem_is_float(ti->elem)) return bad_elem(c, "operand", ti->elem);
  return want_result_elem(c, to, ti->elem);
}

bool check_convert(VmCheck *c) {
  const VmType *ti, *to;
  if (!unary_types(c, &ti, &to)) return false;
  if (!is_numeric(ti->elem)) return bad_elem(c, "operand", ti->elem);
  if (!is_numeric(to->elem)) return bad_elem(c, "result", to->elem);
  return true;
}

bool check_bitcast_convert(VmCheck *c) {
  const VmType *ti, *to;
  if (!(ti = tensor_in(c, 0)) || !(to = tensor_out(c, 0))) return false;
  if (!is_numeric(ti->elem)) return bad_elem(c, "operand", ti->elem);
  if (!is_numeric(to->elem)) return bad_elem(c, "result", to->elem);
  const int ib = vm_elem_bits(ti->elem), ob = vm_elem_bits(to->elem);
  const bool packed = !fills_storage(ti->elem) || !fills_storage(to->elem);
  if (packed && (ib > 64 || ob > 64))
    return vm_check_fail(c, "bitcast_convert: %s to %s is not supported", vm_elem_name(ti->elem),
                         vm_elem_name(to->elem));
  if (ib == ob) {
    if (!vm_type_same_shape(ti, to))
      return vm_check_fail(c, "bitcast_convert: result shape differs from the operand's");
    return true;
  }
  const VmType *wide = ib > ob ? ti : to, *narrow = ib > ob ? to : ti;
  const int ratio = ib > ob ? ib / ob : ob / ib;
  if ((ib > ob ? ib % ob : ob % ib) != 0)
    return vm_check_fail(c, "bitcast_convert: %d-bit and %d-bit elements do not divide", ib, ob);
  bool ok = narrow->rank == wide->rank + 1 && narrow->dims[narrow->rank - 1] == ratio;
  for (int d = 0; ok && d < wide->rank; d++) ok = narrow->dims[d] == wide->dims[d];
  if (!ok)
    return vm_check_fail(c,
                         "bitcast_convert: the %s-element shape must be the %s-element shape "
                         "with a minor dimension of %d",
                         vm_elem_name(narrow->elem), vm_elem_name(wide->elem), ratio);
  return true;
}

bool check_reduce_precision(VmCheck *c) {
  const VmType *ti, *to;
  if (!unary_types(c, &ti, &to)) return false;
  if (!vm_elem_is_float(ti->elem)) return bad_elem(c, "operand", ti->elem);
  int64_t e = vm_field_int(c->ins, 0), m = vm_field_int(c->ins, 1);
  if (e < 1) return vm_check_fail(c, "reduce_precision: exponent_bits %lld < 1", (long long)e);
  if (m < 0) return vm_check_fail(c, "reduce_precision: mantissa_bits %lld < 0", (long long)m);
  return want_result_elem(c, to, ti->elem);
}

/* Two operands of one type and a result of the same shape. */
static bool binary_types(VmCheck *c, const VmType **ta, const VmType **to) {
  const VmType *tb;
  if (!(*ta = tensor_in(c, 0)) || !(tb = tensor_in(c, 1)) || !(*to = tensor_out(c, 0))) return false;
  if (!vm_type_equal(*ta, tb)) return vm_check_fail(c, "%s: operand types differ", op_name(c));
  if (!vm_type_same_shape(*ta, *to))
    return vm_check_fail(c, "%s: result shape differs from the operands'", op_name(c));
  return true;
}

bool check_binary_numeric(VmCheck *c) {
  const VmType *ta, *to;
  if (!binary_types(c, &ta, &to)) return false;
  if (!is_numeric(ta->elem) || (c->ins->opcode == VM_OP_REMAINDER && is_complex(ta->elem)))
    return bad_elem(c, "operand", ta->elem);
  return want_result_elem(c, to, ta->elem);
}

bool check_binary_int(VmCheck *c) {
  const VmType *ta, *to;
  if (!binary_types(c, &ta, &to)) return false;
  if (!vm_elem_is_int(ta->elem)) return bad_elem(c, "operand", ta->elem);
  return want_result_elem(c, to, ta->elem);
}

bool check_binary_float(VmCheck *c) {
  const VmType *ta, *to;
  if (!binary_types(c, &ta, &to)) return false;
  bool ok = vm_elem_is_float(ta->elem) || (c->ins->opcode == VM_OP_ATAN2 && is_complex(ta->elem));
  if (!ok) return bad_elem(c, "operand", ta->elem);
  return want_result_elem(c, to, ta->elem);
}

bool check_complex(VmCheck *c) {
  const VmType *ta, *to;
  if (!binary_types(c, &ta, &to)) return false;
  if (ta->elem != TPUB_F32 && ta->elem != TPUB_F64) return bad_elem(c, "operand", ta->elem);
  return want_result_elem(c, to, ta->elem == TPUB_F32 ? TPUB_C64 : TPUB_C128);
}

bool check_compare(VmCheck *c) {
  const VmType *ta, *to;
  if (!binary_types(c, &ta, &to)) return false;
  if (!is_numeric(ta->elem)) return bad_elem(c, "operand", ta->elem);
  int64_t dir = vm_field_int(c->ins, 0), type = vm_field_int(c->ins, 1);
  if (dir < 0 || dir > 5) return vm_check_fail(c, "compare: direction %lld is not 0..5", (long long)dir);
  if (type < 0 || type > 4) return vm_check_fail(c, "compare: type %lld is not 0..4", (long long)type);
  return want_result_elem(c, to, TPUB_I1);
}

bool check_select(VmCheck *c) {
  const VmType *tp, *tt, *tf, *to;
  if (!(tp = tensor_in(c, 0)) || !(tt = tensor_in(c, 1)) || !(tf = tensor_in(c, 2)) ||
      !(to = tensor_out(c, 0)))
    return false;
  if (tp->elem != TPUB_I1) return vm_check_fail(c, "select: predicate element type must be i1");
  if (!is_numeric(to->elem)) return bad_elem(c, "result", to->elem);
  if (!vm_type_equal(tt, to) || !vm_type_equal(tf, to))
    return vm_check_fail(c, "select: on_true, on_false and the result must have one type");
  if (!vm_type_is_scalar(tp) && !vm_type_same_shape(tp, to))
    return vm_check_fail(c, "select: predicate must be a scalar or have the result's shape");
  return true;
}

bool check_clamp(VmCheck *c) {
  const VmType *tl, *tx, *th, *to;
  if (!(tl = tensor_in(c, 0)) || !(tx = tensor_in(c, 1)) || !(th = tensor_in(c, 2)) ||
      !(to = tensor_out(c, 0)))
    return false;
  if (!is_numeric(tx->elem) || is_complex(tx->elem)) return bad_elem(c, "operand", tx->elem);
  if (!vm_type_equal(tx, to)) return vm_check_fail(c, "clamp: result type differs from the operand's");
  const VmType *bounds[2] = {tl, th};
  for (int k = 0; k < 2; k++) {
    if (bounds[k]->elem != tx->elem)
      return vm_check_fail(c, "clamp: %s element type differs from the operand's", k ? "max" : "min");
    if (!vm_type_is_scalar(bounds[k]) && !vm_type_same_shape(bounds[k], tx))
      return vm_check_fail(c, "clamp: %s must be a scalar or have the operand's shape",
                           k ? "max" : "min");
  }
  return true;
}
