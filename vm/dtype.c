/* Element types of the VM: static facts generated from TPUB_ELEMS, and
 * exact conversions between every storage format and the compute types
 * (double, float, int64) that kernels work in.  Float encodings follow the
 * same rules as the compiler's ir/elem.c, so constants and computed values
 * agree bit for bit. */
#include <math.h>
#include <string.h>

#include "common/minifloat.h"
#include "common/scalar.h"
#include "vm/dtype.h"
#include "vm/vm.h"

/* Let gcc -O2 vectorize the bulk conversion loops (it otherwise refuses
 * loops that need a runtime alias check or an epilogue). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("-fvect-cost-model=dynamic")
#endif

typedef struct ElemFacts {
  const char *name;
  int bits, bytes, cls;
} ElemFacts;

static const ElemFacts elem_facts[TPUB_ELEM_COUNT] = {
#define X(id, name, bits, bytes, cls) {name, bits, bytes, TPUB_CLASS_##cls},
    TPUB_ELEMS(X)
#undef X
};

static bool elem_valid(int elem) { return elem >= 0 && elem < TPUB_ELEM_COUNT; }

int vm_elem_bits(int elem) { return elem_valid(elem) ? elem_facts[elem].bits : 0; }
int vm_elem_bytes(int elem) { return elem_valid(elem) ? elem_facts[elem].bytes : 0; }
int vm_elem_class(int elem) { return elem_valid(elem) ? elem_facts[elem].cls : -1; }
const char *vm_elem_name(int elem) { return elem_valid(elem) ? elem_facts[elem].name : "?"; }
bool vm_elem_is_float(int elem) { return vm_elem_class(elem) == TPUB_CLASS_FLOAT; }
bool vm_elem_is_int(int elem) {
  int c = vm_elem_class(elem);
  return c == TPUB_CLASS_INT || c == TPUB_CLASS_UINT;
}
bool vm_elem_is_unsigned(int elem) { return vm_elem_class(elem) == TPUB_CLASS_UINT; }
int vm_elem_complex_part(int elem) { return elem == TPUB_C128 ? TPUB_F64 : TPUB_F32; }

/* ------------------------------------------------------------------ */
/* f16, bf16 <-> f32 (the hot conversions: branch-light bit arithmetic). */

float vm_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t em = h & 0x7fffu;
  uint32_t bits;
  if (em >= 0x7c00u) bits = 0x7f800000u | ((em & 0x3ffu) << 13);
  else if (em >= 0x400u) bits = (em << 13) + ((127u - 15u) << 23);
  else bits = vm_f32_bits((float)em * 0x1p-24f);
  return vm_bits_f32(bits | sign);
}

/* Round to nearest even (F. Giesen's float_to_half_fast3_rtne). */
uint16_t vm_f32_to_f16(float f) {
  uint32_t x = vm_f32_bits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t ax = x & 0x7fffffffu;
  uint32_t o;
  if (ax >= 0x47800000u) { /* >= 2^16: inf, or NaN (kept quiet with its payload) */
    o = ax > 0x7f800000u ? 0x7e00u | ((ax >> 13) & 0x3ffu) : 0x7c00u;
  } else if (ax < 0x38800000u) { /* below 2^-14: subnormal, rounded by the FPU */
    o = vm_f32_bits(vm_bits_f32(ax) + 0.5f) - 0x3f000000u;
  } else {
    uint32_t mant_odd = (ax >> 13) & 1u;
    ax += ((uint32_t)(15 - 127) << 23) + 0xfffu + mant_odd;
    o = ax >> 13;
  }
  return (uint16_t)(o | sign);
}

float vm_bf16_to_f32(uint16_t h) { return vm_bits_f32((uint32_t)h << 16); }

/* Round to nearest even; a NaN keeps its sign and the top of its payload
 * and is made quiet (common/scalar.h, as the compiler's folds). */
uint16_t vm_f32_to_bf16(float f) { return scalar_f32_to_bf16(f); }

/* ------------------------------------------------------------------ */
/* Every other narrow float kind: common/minifloat.h, as the compiler. */

/* The codec format of a float kind narrower than f32 (ebits 0 for others). */
static Minifloat float_format(int elem) {
  switch (elem) {
    MINIFLOAT_FORMATS(MINIFLOAT_CASE, TPUB_)
  default: return (Minifloat){0, 0, 0, MF_IEEE};
  }
}

double vm_float_bits_to_f64(int elem, uint64_t bits) {
  switch (elem) {
  case TPUB_F64: return vm_bits_f64(bits);
  case TPUB_F32: return vm_bits_f32((uint32_t)bits);
  case TPUB_F16: return vm_f16_to_f32((uint16_t)bits);
  case TPUB_BF16: return vm_bf16_to_f32((uint16_t)bits);
  default: break;
  }
  Minifloat f = float_format(elem);
  return f.ebits ? minifloat_decode(f, bits) : NAN;
}

uint64_t vm_f64_to_float_bits(int elem, double v) {
  switch (elem) {
  case TPUB_F64: return vm_f64_bits(v);
  case TPUB_F32: return vm_f32_bits((float)v);
  default: break;
  }
  Minifloat f = float_format(elem);
  return f.ebits ? minifloat_encode(f, v) : 0;
}

/* ------------------------------------------------------------------ */
/* Integers. */

int64_t vm_wrap_int(int elem, int64_t v) {
  switch (elem) {
  case TPUB_I1:
  case TPUB_U1: return v & 1;
  case TPUB_I2: return (int64_t)((uint64_t)v << 62) >> 62;
  case TPUB_I4: return (int64_t)((uint64_t)v << 60) >> 60;
  case TPUB_I8: return (int8_t)v;
  case TPUB_I16: return (int16_t)v;
  case TPUB_I32: return (int32_t)v;
  case TPUB_U2: return v & 3;
  case TPUB_U4: return v & 15;
  case TPUB_U8: return (uint8_t)v;
  case TPUB_U16: return (uint16_t)v;
  case TPUB_U32: return (uint32_t)v;
  default: return v;
  }
}

/* Float -> integer of elem: truncation toward zero, saturation, NaN -> 0;
 * i1 is v != 0. */
int64_t vm_f64_to_int(int elem, double v) {
  if (elem == TPUB_I1 || elem == TPUB_U1) return v != 0;
  if (v != v) return 0;
  int bits = vm_elem_bits(elem);
  if (vm_elem_is_unsigned(elem)) {
    if (v <= 0) return 0;
    if (bits == 64) return v >= 0x1p64 ? (int64_t)UINT64_MAX : (int64_t)(uint64_t)v;
    double hi = ldexp(1.0, bits) - 1;
    return v >= hi ? (int64_t)hi : (int64_t)v;
  }
  double lim = ldexp(1.0, bits - 1);
  if (v >= lim) return bits == 64 ? INT64_MAX : (int64_t)lim - 1;
  if (v <= -lim) return bits == 64 ? INT64_MIN : -(int64_t)lim;
  return (int64_t)v;
}

/* Integer (as int64, or its uint64 bits when is_unsigned) -> double, rounded
 * to odd beyond 53 bits so that a later rounding to any narrower format is
 * correctly rounded (no double rounding). */
static double int_to_f64_odd(int64_t v, bool is_unsigned) {
  bool neg = !is_unsigned && v < 0;
  uint64_t m = neg ? 0 - (uint64_t)v : (uint64_t)v;
  if (m < (1ull << 53)) return neg ? -(double)m : (double)m;
  int shift = 0;
  while ((m >> shift) >= (1ull << 53)) shift++;
  uint64_t top = m >> shift;
  if (m & ((1ull << shift) - 1)) top |= 1;
  double d = ldexp((double)top, shift);
  return neg ? -d : d;
}

/* Integer -> float element bits, correctly rounded. */
uint64_t vm_int_to_float_bits(int elem, int64_t v, bool is_unsigned) {
  if (elem == TPUB_F64) {
    double d = is_unsigned ? (double)(uint64_t)v : (double)v;
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
  }
  if (elem == TPUB_F32) return vm_f32_bits(is_unsigned ? (float)(uint64_t)v : (float)v);
  return vm_f64_to_float_bits(elem, int_to_f64_odd(v, is_unsigned));
}

/* ------------------------------------------------------------------ */
/* Scalar access. */

uint64_t vm_load_bits(int elem, const void *data, int64_t i) {
  const unsigned char *p = data;
  switch (vm_elem_bytes(elem)) {
  case 1: return p[i];
  case 2: {
    uint16_t v;
    memcpy(&v, p + i * 2, 2);
    return v;
  }
  case 4: {
    uint32_t v;
    memcpy(&v, p + i * 4, 4);
    return v;
  }
  default: {
    uint64_t v;
    memcpy(&v, p + i * vm_elem_bytes(elem), 8);
    return v;
  }
  }
}

void vm_store_bits(int elem, void *data, int64_t i, uint64_t bits) {
  unsigned char *p = data;
  switch (vm_elem_bytes(elem)) {
  case 1: p[i] = (unsigned char)bits; break;
  case 2: {
    uint16_t v = (uint16_t)bits;
    memcpy(p + i * 2, &v, 2);
    break;
  }
  case 4: {
    uint32_t v = (uint32_t)bits;
    memcpy(p + i * 4, &v, 4);
    break;
  }
  default: memcpy(p + i * vm_elem_bytes(elem), &bits, 8); break;
  }
}

double vm_load_f64(int elem, const void *data, int64_t i) {
  switch (vm_elem_class(elem)) {
  case TPUB_CLASS_FLOAT: return vm_float_bits_to_f64(elem, vm_load_bits(elem, data, i));
  case TPUB_CLASS_COMPLEX:
    if (elem == TPUB_C64) return ((const float *)data)[2 * i];
    return ((const double *)data)[2 * i];
  case TPUB_CLASS_UINT: return (double)(uint64_t)vm_load_i64(elem, data, i);
  default: return (double)vm_load_i64(elem, data, i);
  }
}

void vm_store_f64(int elem, void *data, int64_t i, double v) {
  switch (vm_elem_class(elem)) {
  case TPUB_CLASS_FLOAT: vm_store_bits(elem, data, i, vm_f64_to_float_bits(elem, v)); break;
  case TPUB_CLASS_COMPLEX:
    if (elem == TPUB_C64) {
      float *p = data;
      p[2 * i] = (float)v;
      p[2 * i + 1] = 0;
    } else {
      double *p = data;
      p[2 * i] = v;
      p[2 * i + 1] = 0;
    }
    break;
  default: vm_store_i64(elem, data, i, vm_f64_to_int(elem, v)); break;
  }
}

int64_t vm_load_i64(int elem, const void *data, int64_t i) {
  switch (vm_elem_class(elem)) {
  case TPUB_CLASS_INT:
  case TPUB_CLASS_UINT: {
    const unsigned char *p = data;
    switch (elem) {
    case TPUB_I1:
    case TPUB_U1: return p[i] & 1;
    case TPUB_I2:
    case TPUB_I4:
    case TPUB_I8: return (int8_t)p[i];
    case TPUB_U2:
    case TPUB_U4:
    case TPUB_U8: return p[i];
    case TPUB_I16: return (int16_t)vm_load_bits(elem, data, i);
    case TPUB_I32: return (int32_t)vm_load_bits(elem, data, i);
    default: return (int64_t)vm_load_bits(elem, data, i);
    }
  }
  default: return vm_f64_to_int(TPUB_I64, vm_load_f64(elem, data, i));
  }
}

void vm_store_i64(int elem, void *data, int64_t i, int64_t v) {
  switch (vm_elem_class(elem)) {
  case TPUB_CLASS_INT:
  case TPUB_CLASS_UINT: vm_store_bits(elem, data, i, (uint64_t)vm_wrap_int(elem, v)); break;
  case TPUB_CLASS_FLOAT: vm_store_bits(elem, data, i, vm_int_to_float_bits(elem, v, false)); break;
  default: vm_store_f64(elem, data, i, (double)v); break;
  }
}

/* ------------------------------------------------------------------ */
/* Bulk conversions. */

/* dst[i] = EXPR of s[i], the n source elements of type T from index i0. */
#define LOAD_EACH(T, EXPR)                                                                                             \
  do {                                                                                                                 \
    const T *s = (const T *)src + i0;                                                                                  \
    for (int64_t i = 0; i < n; i++) dst[i] = EXPR;                                                                     \
    return;                                                                                                            \
  } while (0)

/* d[i] = EXPR of src[i], stored as type T from index i0. */
#define STORE_EACH(T, EXPR)                                                                                            \
  do {                                                                                                                 \
    T *d = (T *)dst + i0;                                                                                              \
    for (int64_t i = 0; i < n; i++) d[i] = EXPR;                                                                       \
    return;                                                                                                            \
  } while (0)

void vm_to_f64(int elem, const void *src, int64_t i0, int64_t n, double *dst) {
  switch (elem) {
  case TPUB_F64: memcpy(dst, (const double *)src + i0, (size_t)n * 8); return;
  case TPUB_F32: LOAD_EACH(float, s[i]);
  case TPUB_F16: LOAD_EACH(uint16_t, vm_f16_to_f32(s[i]));
  case TPUB_BF16: LOAD_EACH(uint16_t, vm_bf16_to_f32(s[i]));
  case TPUB_I32: LOAD_EACH(int32_t, s[i]);
  case TPUB_I64: LOAD_EACH(int64_t, (double)s[i]);
  default:
    for (int64_t i = 0; i < n; i++) dst[i] = vm_load_f64(elem, src, i0 + i);
    return;
  }
}

void vm_from_f64(int elem, void *dst, int64_t i0, int64_t n, const double *src) {
  switch (elem) {
  case TPUB_F64: memmove((double *)dst + i0, src, (size_t)n * 8); return;
  case TPUB_F32: STORE_EACH(float, (float)src[i]);
  default:
    for (int64_t i = 0; i < n; i++) vm_store_f64(elem, dst, i0 + i, src[i]);
    return;
  }
}

void vm_to_f32(int elem, const void *src, int64_t i0, int64_t n, float *dst) {
  switch (elem) {
  case TPUB_F32: memmove(dst, (const float *)src + i0, (size_t)n * 4); return;
  case TPUB_F16: LOAD_EACH(uint16_t, vm_f16_to_f32(s[i]));
  case TPUB_BF16: LOAD_EACH(uint16_t, vm_bf16_to_f32(s[i]));
  case TPUB_F64: LOAD_EACH(double, (float)s[i]);
  case TPUB_I32: LOAD_EACH(int32_t, (float)s[i]);
  default:
    if (vm_elem_is_int(elem)) {
      bool uns = vm_elem_is_unsigned(elem);
      for (int64_t i = 0; i < n; i++) {
        int64_t v = vm_load_i64(elem, src, i0 + i);
        dst[i] = uns ? (float)(uint64_t)v : (float)v;
      }
      return;
    }
    for (int64_t i = 0; i < n; i++) dst[i] = (float)vm_load_f64(elem, src, i0 + i);
    return;
  }
}

void vm_from_f32(int elem, void *dst, int64_t i0, int64_t n, const float *src) {
  switch (elem) {
  case TPUB_F32: memmove((float *)dst + i0, src, (size_t)n * 4); return;
  case TPUB_F16: STORE_EACH(uint16_t, vm_f32_to_f16(src[i]));
  case TPUB_BF16: STORE_EACH(uint16_t, vm_f32_to_bf16(src[i]));
  case TPUB_F64: STORE_EACH(double, src[i]);
  default:
    for (int64_t i = 0; i < n; i++) vm_store_f64(elem, dst, i0 + i, src[i]);
    return;
  }
}

void vm_to_i64(int elem, const void *src, int64_t i0, int64_t n, int64_t *dst) {
  switch (elem) {
  case TPUB_I64:
  case TPUB_U64: memcpy(dst, (const int64_t *)src + i0, (size_t)n * 8); return;
  case TPUB_I32: LOAD_EACH(int32_t, s[i]);
  case TPUB_U32: LOAD_EACH(uint32_t, s[i]);
  case TPUB_I16: LOAD_EACH(int16_t, s[i]);
  case TPUB_U16: LOAD_EACH(uint16_t, s[i]);
  case TPUB_I8:
  case TPUB_I4:
  case TPUB_I2: LOAD_EACH(int8_t, s[i]);
  case TPUB_U8:
  case TPUB_U4:
  case TPUB_U2: LOAD_EACH(uint8_t, s[i]);
  default:
    for (int64_t i = 0; i < n; i++) dst[i] = vm_load_i64(elem, src, i0 + i);
    return;
  }
}

void vm_from_i64(int elem, void *dst, int64_t i0, int64_t n, const int64_t *src) {
  switch (elem) {
  case TPUB_I64:
  case TPUB_U64: memmove((int64_t *)dst + i0, src, (size_t)n * 8); return;
  case TPUB_I32:
  case TPUB_U32: STORE_EACH(uint32_t, (uint32_t)src[i]);
  case TPUB_I16:
  case TPUB_U16: STORE_EACH(uint16_t, (uint16_t)src[i]);
  case TPUB_I8:
  case TPUB_U8: STORE_EACH(uint8_t, (uint8_t)src[i]);
  default:
    for (int64_t i = 0; i < n; i++) vm_store_i64(elem, dst, i0 + i, src[i]);
    return;
  }
}
