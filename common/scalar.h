/* Scalar semantics that the compiler (constant folding, passes/fold.c) and
 * the VM (kernels, vm/kernels/) must compute identically: XLA's
 * NaN-propagating maximum and minimum, comparison directions, and rounding
 * f32 to bf16, XLA's f32 exp, log, tanh and expm1, and the complex<f32>
 * formulas XLA evaluates in f32.
 * Header-only (DESIGN.md §1: common/ depends on nothing). */
#ifndef TPUCC_COMMON_SCALAR_H
#define TPUCC_COMMON_SCALAR_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* XLA's maximum / minimum of two reals of one type: NaN in x gives x, NaN
 * in y gives y (neither comparison holds), and x wins ties, so the sign of
 * a zero result is x's.  Type-generic (integers too); each argument is
 * evaluated at most twice, so pass plain values. */
#define SCALAR_MAX(x, y) ((((x) != (x)) || (x) >= (y)) ? (x) : (y))
#define SCALAR_MIN(x, y) ((((x) != (x)) || (x) <= (y)) ? (x) : (y))

/* a compared with b in StableHLO comparison direction dir (0 EQ, 1 NE,
 * 2 GE, 3 GT, 4 LE, 5 LT: the enum's order, and the compare opcode's
 * field), with C's operators (so a NaN compares unequal and unordered).
 * Type-generic; each argument may be evaluated more than once. */
#define SCALAR_COMPARE(dir, a, b)                                                                                      \
  ((dir) == 0   ? (a) == (b)                                                                                           \
   : (dir) == 1 ? (a) != (b)                                                                                           \
   : (dir) == 2 ? (a) >= (b)                                                                                           \
   : (dir) == 3 ? (a) > (b)                                                                                            \
   : (dir) == 4 ? (a) <= (b)                                                                                           \
                : (a) < (b))

/* Whether direction dir holds for a three-way comparison result cmp
 * (<0, 0, >0). */
static inline bool scalar_direction_holds(int dir, int cmp) { return SCALAR_COMPARE(dir, cmp, 0); }

/* The bits of an f32 and back, without aliasing. */
static inline uint32_t scalar_f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static inline float scalar_bits_f32(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* The f32 bits u rounded to the nearest bf16 (ties to even), as f32 bits
 * whose low 16 bits are zero.  A NaN is returned unchanged: callers that
 * store a bf16 quiet it (scalar_f32_to_bf16). */
static inline uint32_t scalar_round_bf16_bits(uint32_t u) {
  if ((u & 0x7fffffffu) > 0x7f800000u) return u;
  return (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
}

/* f rounded to the nearest bf16, kept in f32 (per-op bf16 arithmetic). */
static inline float scalar_round_bf16(float f) {
  return scalar_bits_f32(scalar_round_bf16_bits(scalar_f32_bits(f)));
}

/* f as a bf16 bit pattern: rounded to nearest even; a NaN keeps its sign
 * and the top of its payload and is made quiet. */
static inline uint16_t scalar_f32_to_bf16(float f) {
  uint32_t u = scalar_f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
  return (uint16_t)(scalar_round_bf16_bits(u) >> 16);
}

/* XLA's CPU backend compiles with floating-point contraction allowed, so
 * a product feeding a sum is one fused multiply-add (fmaf) below. */

/* e^x as XLA's CPU backend computes f32 exp (llvm_ir_runtime.cc, after
 * Cephes): x = n ln 2 + r with n = floor(x log2(e) + 1/2) clamped to
 * [-127, 127], a degree-6 polynomial for e^r, times 2^n (0 for n = -127). */
static inline float scalar_xla_expf(float in) {
  if (in != in) return in;
  float x = in < -87.8f ? -87.8f : in > 88.8f ? 88.8f : in;
  float n = floorf(fmaf(x, 1.44269504088896341f, 0.5f));
  n = n < -127.0f ? -127.0f : n > 127.0f ? 127.0f : n;
  x = fmaf(-0.693359375f, n, x);
  x = fmaf(2.12194440e-4f, n, x);
  float z = fmaf(x, 1.9875691500E-4f, 1.3981999507E-3f);
  z = fmaf(z, x, 8.3334519073E-3f);
  z = fmaf(z, x, 4.1665795894E-2f);
  z = fmaf(z, x, 1.6666665459E-1f);
  z = fmaf(z, x, 5.0000001201E-1f);
  z = fmaf(z, x * x, x);
  z = 1.0f + z;
  return z * scalar_bits_f32((uint32_t)((int32_t)n + 0x7f) << 23);
}

/* ln x as XLA's CPU backend computes f32 log (llvm_ir_runtime.cc, after
 * Cephes / Eigen): the exponent and a polynomial in the mantissa scaled to
 * [sqrt(1/2), sqrt(2)); -inf for 0, NaN below 0, denormals as 2^-126. */
static inline float scalar_xla_logf(float in) {
  if (in == 0) return -INFINITY;
  if (in == INFINITY) return in;
  if (!(in > 0)) return scalar_bits_f32(0xffffffffu);
  float m = in < 0x1p-126f ? 0x1p-126f : in;
  uint32_t bits = scalar_f32_bits(m);
  float e = 1.0f + (float)((int32_t)(bits >> 23) - 0x7f);
  float t = scalar_bits_f32((bits & ~0x7f800000u) | 0x3f000000u);
  bool small = t < 0.707106781186547524f;
  float t1 = small ? t : 0.0f;
  t = t - 1.0f;
  e = e - (small ? 1.0f : 0.0f);
  t = t + t1;
  float x2 = t * t, x3 = x2 * t;
  float y = fmaf(t, 7.0376836292E-2f, -1.1514610310E-1f);
  float y1 = fmaf(t, -1.2420140846E-1f, 1.4249322787E-1f);
  float y2 = fmaf(t, 2.0000714765E-1f, -2.4999993993E-1f);
  y = fmaf(y, t, 1.1676998740E-1f);
  y1 = fmaf(y1, t, -1.6668057665E-1f);
  y2 = fmaf(y2, t, 3.3333331174E-1f);
  y = fmaf(y, x3, y1);
  y = fmaf(y, x3, y2);
  y = fmaf(y, x3, -2.12194440e-4f * e);
  t = fmaf(-0.5f, x2, t);
  t = t + y;
  return fmaf(0.693359375f, e, t);
}

/* tanh x as XLA's CPU backend computes f32 tanh (llvm_ir/math_ops.cc
 * EmitFastTanh): x itself for |x| < 0.0004, else x clamped to [-9, 9] and
 * a rational function of x^2 (numerator degree 6, denominator 3, Horner
 * steps fused). */
static inline float scalar_xla_tanhf(float x) {
  static const float num[7] = {-2.76076847742355e-16f, 2.00018790482477e-13f, -8.60467152213735e-11f,
                               5.12229709037114e-08f,  1.48572235717979e-05f, 6.37261928875436e-04f,
                               4.89352455891786e-03f};
  static const float den[4] = {1.19825839466702e-06f, 1.18534705686654e-04f, 2.26843463243900e-03f,
                               4.89352518554385e-03f};
  if (fabsf(x) < 0.0004f) return x;
  float c = x < -9.0f ? -9.0f : x > 9.0f ? 9.0f : x, s = c * c, n = num[0], d = den[0];
  for (int i = 1; i < 7; i++) n = fmaf(s, n, num[i]);
  for (int i = 1; i < 4; i++) d = fmaf(s, d, den[i]);
  return c * n / d;
}

/* e^x - 1 as XLA computes f32 expm1 (elemental_ir_emitter.cc EmitExpm1):
 * x when x/2 underflows to 0, e^x - 1 for |x| > 0.5, otherwise
 * tanh(x/2) (e^x + 1), with XLA's exp and tanh above. */
static inline float scalar_xla_expm1f(float x) {
  if (x * 0.5f == 0) return x;
  float e = scalar_xla_expf(x);
  if (fabsf(x) > 0.5f) return e - 1.0f;
  return scalar_xla_tanhf(x * 0.5f) * (e + 1.0f);
}

/* sin and cos of a float rounded once from double: the values XLA's f32
 * sine and cosine gave for the upstream corpus (glibc's sinf and cosf are
 * off by one ULP on some of its elements). */
static inline float scalar_sinf_rounded(float x) { return (float)sin((double)x); }
static inline float scalar_cosf_rounded(float x) { return (float)cos((double)x); }

/* complex<f32> as XLA's CPU backend computes it (elemental_ir_emitter.cc):
 * in f32, one rounding per operation, with the formulas below rather than
 * the correctly rounded complex result, so results match XLA's bit for
 * bit where libm's f32 functions agree with its. */
typedef struct {
  float re, im;
} ScalarC64;

static inline ScalarC64 scalar_c64(float re, float im) {
  ScalarC64 z = {re, im};
  return z;
}

/* (ar br - ai bi) + i (ar bi + ai br), each part one multiply and one fma. */
static inline ScalarC64 scalar_c64_mul(ScalarC64 a, ScalarC64 b) {
  return scalar_c64(fmaf(a.re, b.re, -(a.im * b.im)), fmaf(a.im, b.re, a.re * b.im));
}

/* sin(a + bi) = sin a (e^b/2 + 1/(2e^b)) + i cos a (e^b/2 - 1/(2e^b)). */
static inline ScalarC64 scalar_c64_sin(ScalarC64 z) {
  float e = scalar_xla_expf(z.im), h = 0.5f * e, hn = 0.5f / e;
  return scalar_c64(scalar_sinf_rounded(z.re) * (h + hn), scalar_cosf_rounded(z.re) * (h - hn));
}

/* e^(a + bi) as XLA computes it: e^a cos b + i e^a sin b, and e^a + i b
 * when b is 0 (so e^inf + 0i is inf + 0i, and e^-inf + inf i is NaN + NaN i
 * rather than C's signed zeros). */
static inline ScalarC64 scalar_c64_exp(ScalarC64 z) {
  float e = scalar_xla_expf(z.re);
  if (z.im == 0) return scalar_c64(e, z.im);
  return scalar_c64(e * scalar_cosf_rounded(z.im), e * scalar_sinf_rounded(z.im));
}

/* cos(a + bi) = cos a (1/(2e^b) + e^b/2) + i sin a (1/(2e^b) - e^b/2). */
static inline ScalarC64 scalar_c64_cos(ScalarC64 z) {
  float e = scalar_xla_expf(z.im), h = 0.5f * e, hn = 0.5f / e;
  return scalar_c64(scalar_cosf_rounded(z.re) * (hn + h), scalar_sinf_rounded(z.re) * (hn - h));
}

/* |a + bi| as XLA computes it (EmitComplexAbs): max(|a|,|b|) times
 * sqrt(1 + (min/max)^2), the square fused; min where that is NaN (0 and
 * 0, inf and inf); NaN if a part is NaN. */
static inline float scalar_c64_abs(ScalarC64 z) {
  float x = fabsf(z.re), y = fabsf(z.im);
  if (x != x || y != y) return x + y;
  float mx = x > y ? x : y, mn = x > y ? y : x, q = mn / mx, r = mx * sqrtf(fmaf(q, q, 1.0f));
  return r != r ? mn : r;
}

/* (a+bi)^(c+di) as XLA computes it (EmitComplexPower, 2024):
 * |x|^c e^(-d t) (cos q + i sin q), t = atan2(b, a), q = c t + d ln|x|;
 * then, each overriding the ones before: 0^(c+0i) is 1 for c = 0 and 0
 * for c > 0; x^0 = 1; 1^y = 1; inf^(c+0i) is inf for c > 0, 0 for c < 0. */
static inline ScalarC64 scalar_c64_pow(ScalarC64 x, ScalarC64 y) {
  float a = x.re, b = x.im, c = y.re, d = y.im;
  float r = scalar_c64_abs(x), t = atan2f(b, a);
  bool b0 = b == 0, d0 = d == 0;
  if (a == INFINITY && b0 && d0 && c < 0) return scalar_c64(0.0f, 0.0f);
  if (a == INFINITY && b0 && d0 && c > 0) return scalar_c64(INFINITY, 0.0f);
  if ((a == 1 && b0) || (c == 0 && d0)) return scalar_c64(1.0f, 0.0f);
  if (r == 0 && d0 && 0 <= c) return scalar_c64(c == 0 ? 1.0f : 0.0f, 0.0f);
  float coeff = powf(r, c) * scalar_xla_expf(-d * t);
  float q = fmaf(c, t, d * scalar_xla_logf(r));
  return scalar_c64(coeff * scalar_cosf_rounded(q), coeff * scalar_sinf_rounded(q));
}

#endif
