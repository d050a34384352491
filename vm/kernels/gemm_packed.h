/* The packed GEMM of the bf16 and 8-bit integer kinds (vm/kernels/gemm.c):
 * operands are packed into 32-bit words of `group` consecutive K values
 * (bf16 pairs, 8-bit quads or 16-bit pairs), A in panels of mr rows and B
 * in panels of nr columns, and a register-blocked micro-kernel of the
 * chosen ISA multiplies them (vm/kernels/gemm_bf16.c, gemm_int8.c).  Every
 * C element is one chain of accumulations over the words in increasing K,
 * the same whatever M, N, the blocking or the position. */
#ifndef VM_K_GEMM_PACKED_H
#define VM_K_GEMM_PACKED_H

#include "vm/kernels/gemm.h"

/* c (mr x nr, row stride ldc, 4-byte elements) = (accumulate ? c : 0)
 * plus the product of an A panel and a B panel of kq words each. */
typedef void (*GemmMicro)(int64_t kq, const uint32_t *ap, const uint32_t *bp, void *c, int64_t ldc,
                          bool accumulate);

/* How compute elements (4 bytes) become words, and the micro-kernel. */
typedef struct GemmPacked {
  int mr, nr;          /* micro-tile; mr <= 8 and nr <= 32 */
  int group, bits;     /* K values per word and bits per value */
  int shift;           /* a value is (element >> shift) masked to bits */
  uint32_t axor, bxor; /* xor of each A (B) value; padding stays 0 */
  GemmMicro micro;
} GemmPacked;

/* Bytes of the packing buffers of products up to M x N x K. */
void gemm_packed_bytes(const GemmPacked *g, int64_t M, int64_t N, int64_t K, size_t *abytes, size_t *bbytes);
/* C (M x N, 4-byte elements, row stride ldc) = A * B through g, K > 0;
 * A and B are 4-byte compute arrays with strides in elements. */
void gemm_packed_run(const GemmPacked *g, int64_t M, int64_t N, int64_t K, const uint32_t *A, int64_t rsa,
                     int64_t csa, const uint32_t *B, int64_t rsb, int64_t csb, uint32_t *C, int64_t ldc,
                     uint32_t *apack, uint32_t *bpack);

/* The kernels of bf16 x bf16 -> f32 (gemm_bf16.c) and of a GK_I8xy kind
 * (gemm_int8.c) for an ISA: the best one it allows on this CPU. */
const GemmPacked *gemm_bf16_kernels(GemmIsa isa);
const GemmPacked *gemm_int8_kernels(GemmIsa isa, GemmKind kind);
/* After gemm_packed_run with 8-bit kernels whose axor/bxor offset the
 * values (vpdpbusd needs an unsigned and a signed operand): subtracts the
 * offsets' terms from C, exactly mod 2^32; sums holds M + N words. */
void gemm_int8_fix(const GemmPacked *g, int64_t M, int64_t N, int64_t K, const int32_t *A, int64_t rsa,
                   int64_t csa, const int32_t *B, int64_t rsb, int64_t csb, uint32_t *C, int64_t ldc,
                   uint32_t *sums);

#endif
