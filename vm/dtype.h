/* Element conversions for kernels (vm/dtype.c).  Storage is the host layout
 * of vm/tpub.h: integers sign- or zero-extended in their byte container,
 * minifloats as bit patterns, f16/bf16 as uint16 bits, complex as pairs. */
#ifndef VM_DTYPE_H
#define VM_DTYPE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Bit patterns of f32 and f64 values, and back. */
static inline uint32_t vm_f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static inline float vm_bits_f32(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline uint64_t vm_f64_bits(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}
static inline double vm_bits_f64(uint64_t u) {
  double d;
  memcpy(&d, &u, 8);
  return d;
}

float vm_f16_to_f32(uint16_t h);
uint16_t vm_f32_to_f16(float f); /* round to nearest even */
float vm_bf16_to_f32(uint16_t h);
uint16_t vm_f32_to_bf16(float f); /* round to nearest even; NaN stays NaN */
/* Any real float kind (incl. minifloats, f16, bf16, tf32, f32, f64) <-> double,
 * rounding to nearest even, with the kind's overflow and NaN rules. */
double vm_float_bits_to_f64(int elem, uint64_t bits);
uint64_t vm_f64_to_float_bits(int elem, double v);

/* Scalar access to element i (any tensor element type; complex gives the
 * real part for f64/i64 loads and stores (re, 0)). */
double vm_load_f64(int elem, const void *data, int64_t i);
void vm_store_f64(int elem, void *data, int64_t i, double v);
int64_t vm_load_i64(int elem, const void *data, int64_t i);   /* ints: sign/zero extended */
void vm_store_i64(int elem, void *data, int64_t i, int64_t v); /* wraps to the width */

/* Bulk conversion of n elements starting at element i0 to and from a
 * compute array (the pattern of array-at-a-time kernels on narrow types). */
void vm_to_f64(int elem, const void *src, int64_t i0, int64_t n, double *dst);
void vm_from_f64(int elem, void *dst, int64_t i0, int64_t n, const double *src);
void vm_to_f32(int elem, const void *src, int64_t i0, int64_t n, float *dst);
void vm_from_f32(int elem, void *dst, int64_t i0, int64_t n, const float *src);
void vm_to_i64(int elem, const void *src, int64_t i0, int64_t n, int64_t *dst);
void vm_from_i64(int elem, void *dst, int64_t i0, int64_t n, const int64_t *src);

/* The raw bits of element i (elements of 1, 2, 4 or 8 bytes; for complex,
 * pass the part type and index 2i or 2i+1), and their store. */
uint64_t vm_load_bits(int elem, const void *data, int64_t i);
void vm_store_bits(int elem, void *data, int64_t i, uint64_t bits);

/* Wraps v to the element's width with its canonical extension. */
int64_t vm_wrap_int(int elem, int64_t v);

/* Float -> integer element: truncation toward zero, saturation to the
 * element's range, NaN -> 0; i1 is v != 0. */
int64_t vm_f64_to_int(int elem, double v);
/* Integer (v, or the uint64 bits in v when is_unsigned) -> the bits of a
 * real float element, correctly rounded (no double rounding through f64). */
uint64_t vm_int_to_float_bits(int elem, int64_t v, bool is_unsigned);

#endif
