/* Element types: names, widths, classes, and exact conversions between
 * double and the bit patterns of every floating-point kind. */
#include <math.h>
#include <string.h>

#include "common/minifloat.h"
#include "common/scalar.h"
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

/* The codec format of a float kind narrower than f32 (ebits 0 for others). */
static Minifloat float_format(ElemKind k) {
  switch (k) {
    MINIFLOAT_FORMATS(MINIFLOAT_CASE, ELEM_)
  default: return (Minifloat){0, 0, 0, MF_IEEE};
  }
}

double float_bits_to_double(ElemKind k, uint64_t bits) {
  if (k == ELEM_F64) {
    double d;
    memcpy(&d, &bits, 8);
    return d;
  }
  if (k == ELEM_F32) return scalar_bits_f32((uint32_t)bits);
  Minifloat f = float_format(k);
  if (!f.ebits) die("float_bits_to_double on non-float kind %s", elem_name(k));
  return minifloat_decode(f, bits);
}

uint64_t double_to_float_bits(ElemKind k, double v) {
  if (k == ELEM_F64) {
    uint64_t b;
    memcpy(&b, &v, 8);
    return b;
  }
  if (k == ELEM_F32) return scalar_f32_bits((float)v);
  Minifloat f = float_format(k);
  if (!f.ebits) die("double_to_float_bits on non-float kind %s", elem_name(k));
  return minifloat_encode(f, v);
}

double elem_float_max(ElemKind k) {
  switch (k) {
  case ELEM_F64: return 1.7976931348623157e308;
  case ELEM_F32: return 3.4028234663852886e38;
  default: break;
  }
  Minifloat f = float_format(k);
  if (!f.ebits) die("elem_float_max on non-float kind %s", elem_name(k));
  return minifloat_decode(f, minifloat_max_finite_bits(f));
}

bool elem_float_saturates(ElemKind k) { return float_format(k).style == MF_FINITE; }
