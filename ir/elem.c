/* Element types: names, widths, classes, and exact conversions between
 * double and the bit patterns of every floating-point kind. */
#include <math.h>
#include <string.h>

#include "ir/ir.h"

typedef struct ElemInfo {
  const char *name;
  int bits;
  ElemClass cls;
} ElemInfo;

static const ElemInfo elem_table[ELEM_COUNT] = {
#define X(e, s, b, c) {s, b, EC_##c},
    ELEM_TYPES(X)
#undef X
};

const char *elem_name(ElemKind k) { return elem_table[k].name; }
int elem_bits(ElemKind k) { return elem_table[k].bits; }
ElemClass elem_class(ElemKind k) { return elem_table[k].cls; }
bool elem_is_int(ElemKind k) {
  ElemClass c = elem_table[k].cls;
  return c == EC_INT || c == EC_UINT || c == EC_SINT;
}
bool elem_is_float(ElemKind k) { return elem_table[k].cls == EC_FLOAT; }
bool elem_is_complex(ElemKind k) { return elem_table[k].cls == EC_COMPLEX; }
bool elem_is_unsigned(ElemKind k) { return elem_table[k].cls == EC_UINT; }

int elem_storage_bytes(ElemKind k) {
  int bits = elem_table[k].bits;
  if (bits <= 8) return 1;
  if (bits <= 16) return 2;
  if (bits <= 32) return 4;
  if (bits <= 64) return 8;
  return 16;
}

ElemKind elem_complex_part(ElemKind k) { return k == ELEM_C128 ? ELEM_F64 : ELEM_F32; }

bool elem_from_name(const char *s, size_t n, ElemKind *out) {
  for (int k = 0; k < ELEM_COUNT; k++) {
    const char *name = elem_table[k].name;
    if (name[0] == s[0] && strncmp(name, s, n) == 0 && name[n] == 0) {
      *out = (ElemKind)k;
      return true;
    }
  }
  return false;
}

/* How a small float format treats its top exponent. */
typedef enum FloatStyle {
  FS_IEEE,   /* top exponent: inf (mantissa 0) or NaN */
  FS_FN,     /* no inf; all-ones exponent and mantissa is NaN */
  FS_FNUZ,   /* no inf, no -0; the pattern of -0 is the only NaN */
  FS_FINITE, /* neither inf nor NaN (f4/f6) */
  FS_E8M0,   /* unsigned exponent only; all ones is NaN */
} FloatStyle;

typedef struct FloatFormat {
  int ebits, mbits, bias;
  FloatStyle style;
} FloatFormat;

static bool float_format(ElemKind k, FloatFormat *f) {
  switch (k) {
  case ELEM_F16: *f = (FloatFormat){5, 10, 15, FS_IEEE}; return true;
  case ELEM_BF16: *f = (FloatFormat){8, 7, 127, FS_IEEE}; return true;
  case ELEM_TF32: *f = (FloatFormat){8, 10, 127, FS_IEEE}; return true;
  case ELEM_F8E5M2: *f = (FloatFormat){5, 2, 15, FS_IEEE}; return true;
  case ELEM_F8E4M3: *f = (FloatFormat){4, 3, 7, FS_IEEE}; return true;
  case ELEM_F8E3M4: *f = (FloatFormat){3, 4, 3, FS_IEEE}; return true;
  case ELEM_F8E4M3FN: *f = (FloatFormat){4, 3, 7, FS_FN}; return true;
  case ELEM_F8E4M3FNUZ: *f = (FloatFormat){4, 3, 8, FS_FNUZ}; return true;
  case ELEM_F8E5M2FNUZ: *f = (FloatFormat){5, 2, 16, FS_FNUZ}; return true;
  case ELEM_F8E4M3B11FNUZ: *f = (FloatFormat){4, 3, 11, FS_FNUZ}; return true;
  case ELEM_F8E8M0FNU: *f = (FloatFormat){8, 0, 127, FS_E8M0}; return true;
  case ELEM_F4E2M1FN: *f = (FloatFormat){2, 1, 1, FS_FINITE}; return true;
  case ELEM_F6E2M3FN: *f = (FloatFormat){2, 3, 1, FS_FINITE}; return true;
  case ELEM_F6E3M2FN: *f = (FloatFormat){3, 2, 3, FS_FINITE}; return true;
  default: return false;
  }
}

/* Largest finite encoding of a small format (without sign). */
static uint64_t max_finite_bits(const FloatFormat *f) {
  uint64_t emask = (1u << f->ebits) - 1, mmask = (1u << f->mbits) - 1;
  switch (f->style) {
  case FS_IEEE: return ((emask - 1) << f->mbits) | mmask;
  case FS_FN: return (emask << f->mbits) | (mmask - 1);
  case FS_E8M0: return emask - 1;
  default: return (emask << f->mbits) | mmask;
  }
}

double float_bits_to_double(ElemKind k, uint64_t bits) {
  if (k == ELEM_F64) {
    double d;
    memcpy(&d, &bits, 8);
    return d;
  }
  if (k == ELEM_F32) {
    uint32_t b = (uint32_t)bits;
    float f;
    memcpy(&f, &b, 4);
    return f;
  }
  FloatFormat f;
  if (!float_format(k, &f)) die("float_bits_to_double on non-float kind %s", elem_name(k));
  uint64_t emask = (1u << f.ebits) - 1, mmask = (1u << f.mbits) - 1;
  bool has_sign = f.style != FS_E8M0;
  int sign = has_sign ? (int)((bits >> (f.ebits + f.mbits)) & 1) : 0;
  uint64_t e = (bits >> f.mbits) & emask, m = bits & mmask;
  switch (f.style) {
  case FS_IEEE:
    if (e == emask) return m ? NAN : (sign ? -INFINITY : INFINITY);
    break;
  case FS_FN:
    if (e == emask && m == mmask) return NAN;
    break;
  case FS_FNUZ:
    if (sign && e == 0 && m == 0) return NAN;
    break;
  case FS_E8M0:
    if (e == emask) return NAN;
    return ldexp(1.0, (int)e - f.bias);
  case FS_FINITE: break;
  }
  double v = e == 0 ? ldexp((double)m, 1 - f.bias - f.mbits)
                    : ldexp((double)(m | (1ull << f.mbits)), (int)e - f.bias - f.mbits);
  return sign ? -v : v;
}

uint64_t double_to_float_bits(ElemKind k, double v) {
  if (k == ELEM_F64) {
    uint64_t b;
    memcpy(&b, &v, 8);
    return b;
  }
  if (k == ELEM_F32) {
    float f = (float)v;
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
  }
  FloatFormat f;
  if (!float_format(k, &f)) die("double_to_float_bits on non-float kind %s", elem_name(k));
  uint64_t emask = (1u << f.ebits) - 1, mmask = (1u << f.mbits) - 1;
  int total = f.ebits + f.mbits;
  bool has_sign = f.style != FS_E8M0;
  uint64_t sign = (has_sign && signbit(v)) ? (1ull << total) : 0;
  uint64_t nan_bits;
  switch (f.style) {
  case FS_IEEE: nan_bits = (emask << f.mbits) | (1ull << (f.mbits ? f.mbits - 1 : 0)); break;
  case FS_FN: nan_bits = (emask << f.mbits) | mmask; break;
  case FS_FNUZ: nan_bits = 1ull << total; break;
  case FS_E8M0: nan_bits = emask; break;
  default: nan_bits = 0; break;
  }
  uint64_t max_bits = max_finite_bits(&f);
  if (isnan(v)) return f.style == FS_IEEE || f.style == FS_FN ? nan_bits | sign : nan_bits;
  double a = fabs(v);
  if (f.style == FS_E8M0 && a == 0) return nan_bits;
  if (a == 0) return f.style == FS_FNUZ ? 0 : sign;
  uint64_t bits;
  if (isinf(a)) {
    bits = UINT64_MAX;
  } else {
    int x;
    frexp(a, &x);
    int exp = x - 1; /* a = 1.m * 2^exp */
    int emin = 1 - f.bias;
    if (f.style == FS_E8M0) emin = -f.bias;
    if (exp < emin) {
      double q = nearbyint(ldexp(a, f.bias - 1 + f.mbits));
      bits = (uint64_t)q;
      if (f.style == FS_E8M0) bits = 0; /* below 2^-127: the smallest value */
    } else {
      double q = nearbyint(ldexp(a, f.mbits - exp));
      if (exp + f.bias + 1 > 4096) bits = UINT64_MAX;
      else bits = ((uint64_t)(exp + f.bias - 1) << f.mbits) + (uint64_t)q;
      if (f.style == FS_E8M0) bits = (uint64_t)(exp + f.bias) + (q >= 2 ? 1 : 0);
    }
  }
  if (bits > max_bits) {
    switch (f.style) {
    case FS_IEEE: return sign | (emask << f.mbits);
    case FS_FINITE: return sign | max_bits;
    case FS_FN: return sign | nan_bits;
    default: return nan_bits;
    }
  }
  if (f.style == FS_FNUZ && bits == 0) return 0;
  return sign | bits;
}

double elem_float_max(ElemKind k) {
  switch (k) {
  case ELEM_F64: return 1.7976931348623157e308;
  case ELEM_F32: return 3.4028234663852886e38;
  default: break;
  }
  FloatFormat f;
  if (!float_format(k, &f)) die("elem_float_max on non-float kind %s", elem_name(k));
  return float_bits_to_double(k, max_finite_bits(&f));
}

bool elem_float_saturates(ElemKind k) {
  FloatFormat f;
  return float_format(k, &f) && f.style == FS_FINITE;
}
