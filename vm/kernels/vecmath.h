/* f32 element-wise functions eight lanes at a time: erf, erfc, tanh, sin,
 * cos and log1p through glibc's vector math library (libmvec),
 * within 2 ULP of the correctly rounded result; exp computed in double
 * (vecmath.c), within 1 ULP (libmvec's is 3; log, 4 ULP there, stays
 * scalar), and logistic as the scalar kernel's 1 / (1 + exp(-x)) on it
 * (expm1 stays scalar: XLA's formula, common/scalar.h).  Every element,
 * the last partial group included, goes through
 * the same vector code, so a result never depends on its position or on
 * how an array is cut into tiles.  Internal to vm/. */
#ifndef VM_K_VECMATH_H
#define VM_K_VECMATH_H

#include <stdbool.h>
#include <stdint.h>

/* o[i] = f(a[i]) for i < n with the vector version of VM opcode `opcode`;
 * false (nothing written) when there is none, or the CPU lacks AVX2 and
 * FMA, or TPU_VM_ISA=generic asks for portable code. */
bool vecmath_f32(int opcode, const float *a, float *o, int64_t n);

#endif
