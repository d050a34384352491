/* The codec of every floating-point element kind narrower than f32 (f16,
 * bf16, tf32 and the 8-, 6- and 4-bit minifloats): bit pattern <-> double,
 * exact in one direction, rounded to nearest even in the other.  The
 * compiler (constants, folding: ir/elem.c) and the VM (kernels:
 * vm/dtype.c) both use this one copy, so a value folded at compile time and
 * the same value computed at run time have the same bits.  Header-only
 * (DESIGN.md §1: common/ depends on nothing); docs/common.md.
 *
 * Special values: the encodings are ml_dtypes' (float8.h / mxfloat.h, the
 * types XLA and JAX use; the StableHLO spec defers to them).  NaN payloads
 * follow IEEE 754-2019 §6.2.3, as the conversions XLA compiles (LLVM
 * fptrunc / fpext) do, not ml_dtypes' scalar conversions, which may
 * return the canonical NaN of the sign:
 *   - IEEE style (f16, bf16, tf32, f8E5M2, f8E4M3, f8E3M4): infinities and
 *     NaNs as in IEEE 754.  A NaN keeps its sign both ways; encoding keeps
 *     the top of the payload and sets the quiet bit, decoding keeps the
 *     payload and is quiet.  Overflow gives infinity.
 *   - FN (f8E4M3FN): no infinity; S.1111.111 is NaN, one per sign.  A NaN
 *     keeps its sign; overflow and infinity give the NaN of their sign.
 *   - FNUZ (f8E4M3FNUZ, f8E5M2FNUZ, f8E4M3B11FNUZ): no infinity, no -0; the
 *     pattern of -0, 0x80, is the one NaN.  Every NaN, overflow and
 *     infinity encodes as 0x80, -0 and negative underflow as +0; 0x80
 *     decodes to a negative NaN (its sign bit is set, as in ml_dtypes).
 *   - E8M0 (f8E8M0FNU): an unsigned power of two 2^(e-127), no zero; 0xff
 *     is the one NaN and decodes to a positive NaN.  NaN, zero, negative
 *     values, overflow and infinity encode as 0xff; values below 2^-127
 *     encode as 2^-127.
 *   - FINITE (f4E2M1FN, f6E2M3FN, f6E3M2FN): neither infinity nor NaN.
 *     Overflow and infinity saturate to the largest finite value of their
 *     sign; a NaN (implementation-defined in the OCP MX spec) encodes as +0.
 */
#ifndef TPUCC_COMMON_MINIFLOAT_H
#define TPUCC_COMMON_MINIFLOAT_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* How a format treats its top exponent (see the header comment). */
typedef enum MinifloatStyle { MF_IEEE, MF_FN, MF_FNUZ, MF_E8M0, MF_FINITE } MinifloatStyle;

/* A format: exponent and mantissa widths, exponent bias, style.  A sign
 * bit sits above the exponent in every style but E8M0.  ebits == 0 marks
 * "not a format of this codec". */
typedef struct Minifloat {
  int ebits, mbits, bias;
  MinifloatStyle style;
} Minifloat;

/* Every format: X(P, NAME, ebits, mbits, bias, STYLE).  P is a prefix that
 * X may paste to NAME, so one table serves the compiler's ELEM_ kinds and
 * the VM's TPUB_ kinds (their names agree). */
#define MINIFLOAT_FORMATS(X, P)        \
  X(P, F16, 5, 10, 15, IEEE)           \
  X(P, BF16, 8, 7, 127, IEEE)          \
  X(P, TF32, 8, 10, 127, IEEE)         \
  X(P, F8E5M2, 5, 2, 15, IEEE)         \
  X(P, F8E4M3, 4, 3, 7, IEEE)          \
  X(P, F8E3M4, 3, 4, 3, IEEE)          \
  X(P, F8E4M3FN, 4, 3, 7, FN)          \
  X(P, F8E4M3FNUZ, 4, 3, 8, FNUZ)      \
  X(P, F8E5M2FNUZ, 5, 2, 16, FNUZ)     \
  X(P, F8E4M3B11FNUZ, 4, 3, 11, FNUZ)  \
  X(P, F8E8M0FNU, 8, 0, 127, E8M0)     \
  X(P, F4E2M1FN, 2, 1, 1, FINITE)      \
  X(P, F6E2M3FN, 2, 3, 1, FINITE)      \
  X(P, F6E3M2FN, 3, 2, 3, FINITE)

/* For MINIFLOAT_FORMATS inside a switch on a kind:
 * `case P##NAME: return (Minifloat){...};` */
#define MINIFLOAT_CASE(P, name, e, m, b, s) \
  case P##name: return (Minifloat){e, m, b, MF_##s};

/* Largest finite encoding of f, without the sign. */
static inline uint64_t minifloat_max_finite_bits(Minifloat f) {
  uint64_t emask = (1ull << f.ebits) - 1, mmask = (1ull << f.mbits) - 1;
  switch (f.style) {
  case MF_IEEE: return ((emask - 1) << f.mbits) | mmask;
  case MF_FN: return (emask << f.mbits) | (mmask - 1);
  case MF_E8M0: return emask - 1;
  default: return (emask << f.mbits) | mmask;
  }
}

/* The quiet double NaN of the given sign whose fraction, below the quiet
 * bit, is payload (the bits under 0x0008000000000000). */
static inline double minifloat_nan_f64(bool negative, uint64_t payload) {
  uint64_t u = (negative ? 0x8000000000000000ull : 0) | 0x7ff8000000000000ull | payload;
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

/* The value of the pattern `bits` of format f (bits above the format's
 * width are ignored). */
static inline double minifloat_decode(Minifloat f, uint64_t bits) {
  uint64_t emask = (1ull << f.ebits) - 1, mmask = (1ull << f.mbits) - 1;
  bool negative = f.style != MF_E8M0 && ((bits >> (f.ebits + f.mbits)) & 1);
  uint64_t e = (bits >> f.mbits) & emask, m = bits & mmask;
  switch (f.style) {
  case MF_IEEE:
    if (e == emask && m == 0) return negative ? -INFINITY : INFINITY;
    if (e == emask) return minifloat_nan_f64(negative, (m << (52 - f.mbits)) & 0x0007ffffffffffffull);
    break;
  case MF_FN:
    if (e == emask && m == mmask) return minifloat_nan_f64(negative, 0);
    break;
  case MF_FNUZ:
    if (negative && e == 0 && m == 0) return minifloat_nan_f64(true, 0);
    break;
  case MF_E8M0: return e == emask ? minifloat_nan_f64(false, 0) : ldexp(1.0, (int)e - f.bias);
  case MF_FINITE: break;
  }
  double v = e == 0 ? ldexp((double)m, 1 - f.bias - f.mbits)
                    : ldexp((double)(m | (1ull << f.mbits)), (int)e - f.bias - f.mbits);
  return negative ? -v : v;
}

/* The encoding of NaN v in format f (see the header comment). */
static inline uint64_t minifloat_encode_nan(Minifloat f, double v, uint64_t sign) {
  uint64_t emask = (1ull << f.ebits) - 1, mmask = (1ull << f.mbits) - 1, u;
  memcpy(&u, &v, sizeof u);
  switch (f.style) {
  case MF_IEEE: return sign | (emask << f.mbits) | (1ull << (f.mbits - 1)) | ((u & 0x000fffffffffffffull) >> (52 - f.mbits));
  case MF_FN: return sign | (emask << f.mbits) | mmask;
  case MF_FNUZ: return 1ull << (f.ebits + f.mbits);
  case MF_E8M0: return emask;
  default: return 0;
  }
}

/* v rounded to the nearest value of format f (ties to even), with f's
 * rules for NaN, infinity, overflow, underflow and signed zero. */
static inline uint64_t minifloat_encode(Minifloat f, double v) {
  uint64_t emask = (1ull << f.ebits) - 1;
  uint64_t sign = f.style != MF_E8M0 && signbit(v) ? 1ull << (f.ebits + f.mbits) : 0;
  if (isnan(v)) return minifloat_encode_nan(f, v, sign);
  double a = fabs(v);
  if (f.style == MF_E8M0 && (a == 0 || signbit(v))) return emask;
  if (a == 0) return f.style == MF_FNUZ ? 0 : sign;
  uint64_t bits;
  if (isinf(a)) {
    bits = UINT64_MAX;
  } else {
    int x;
    frexp(a, &x);
    int exp = x - 1; /* a = 1.m * 2^exp */
    int emin = f.style == MF_E8M0 ? -f.bias : 1 - f.bias;
    if (exp < emin) {
      /* below the normals: a count of subnormal steps (E8M0 has none and
       * keeps its smallest value, 2^-127) */
      bits = f.style == MF_E8M0 ? 0 : (uint64_t)nearbyint(ldexp(a, f.bias - 1 + f.mbits));
    } else {
      /* q in [2^mbits, 2^(mbits+1)]: a carry from rounding moves into the
       * exponent field */
      double q = nearbyint(ldexp(a, f.mbits - exp));
      bits = exp + f.bias + 1 > 4096 ? UINT64_MAX : ((uint64_t)(exp + f.bias - 1) << f.mbits) + (uint64_t)q;
    }
  }
  if (bits > minifloat_max_finite_bits(f)) {
    switch (f.style) {
    case MF_IEEE: return sign | (emask << f.mbits);
    case MF_FINITE: return sign | minifloat_max_finite_bits(f);
    default: return minifloat_encode_nan(f, NAN, sign);
    }
  }
  if (f.style == MF_FNUZ && bits == 0) return 0;
  return sign | bits;
}

#endif
