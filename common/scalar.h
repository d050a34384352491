/* Scalar semantics that the compiler (constant folding, passes/fold.c) and
 * the VM (kernels, vm/kernels/) must compute identically: XLA's
 * NaN-propagating maximum and minimum, comparison directions, and rounding
 * f32 to bf16.
 * Header-only (DESIGN.md §1: common/ depends on nothing). */
#ifndef TPUCC_COMMON_SCALAR_H
#define TPUCC_COMMON_SCALAR_H

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

#endif
