/* f32 products of few rows that stream the weight once
 * (vm/kernels/gemm_skinny.c), used by gemm_run before OpenBLAS. */
#ifndef VM_K_GEMM_SKINNY_H
#define VM_K_GEMM_SKINNY_H

#include "vm/kernels/gemm.h"

/* Rows up to which gemm_skinny_f32 takes a product. */
#define GEMM_SKINNY_ROWS 16

/* C = A * B (gemm_run's arguments) when M <= GEMM_SKINNY_ROWS, A's rows
 * are contiguous, B is stored [N,K] or [K,N] and isa and the CPU allow
 * AVX-512 or AVX2 + FMA; false (nothing done) otherwise. */
bool gemm_skinny_f32(GemmIsa isa, int64_t M, int64_t N, int64_t K, const float *A, int64_t rsa, int64_t csa,
                     const float *B, int64_t rsb, int64_t csb, float *C, int64_t ldc);

#endif
