/* Matrix-multiply engine shared by dot_general (vm/kernels/linalg.c) and
 * convolution (vm/kernels/conv.c): compute kinds, element conversion into and out
 * of a compute array, strided permuted copies and C = A * B on strided
 * matrices (vm/kernels/gemm.c; the f32/f64 kernels are in vm/kernels/gemm_kernel.inc). */
#ifndef VM_K_GEMM_H
#define VM_K_GEMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vm/vm.h"

/* The arithmetic a product is computed in, chosen from the result type:
 * f64 for f64; f32 for every other real float (f16/bf16/minifloats round
 * once at the end); complex of the result's precision; int64 with wrap for
 * integers; or/and for i1. */
typedef enum GemmKind { GK_F32, GK_F64, GK_C64, GK_C128, GK_I64, GK_BOOL } GemmKind;

/* The kind for a result element type and operand element types; -1 when the
 * combination is not supported (e.g. a complex operand with a real result). */
int gemm_kind_for(int result_elem, int lhs_elem, int rhs_elem);
/* Bytes of one compute element. */
int gemm_kind_bytes(GemmKind k);
/* True when elements of `elem` are stored exactly as the compute array of k
 * (no conversion needed). */
bool gemm_is_native(GemmKind k, int elem);

/* n elements of type elem at src -> compute array dst (and back, rounding or
 * wrapping to elem). */
void gemm_load(GemmKind k, int elem, const void *src, int64_t n, void *dst);
void gemm_store(GemmKind k, int elem, const void *src, int64_t n, void *dst);

/* dst (contiguous, row-major over sizes[0..rank)) = src[sum i_d * strides[d]]
 * for elements of es bytes; strides are in elements and may be negative. */
void gemm_strided_copy(int es, int rank, const int64_t *sizes, const int64_t *strides,
                       const void *src, void *dst);

/* Reusable packing buffers of one operation. */
typedef struct GemmWork {
  VmExec *x;
  GemmKind kind;
  bool avx2; /* use the AVX2 kernels (same results bit for bit) */
  void *apack, *bpack;
  size_t abytes, bbytes;
  bool reserved; /* sized by gemm_work_reserve: gemm_run never allocates */
} GemmWork;

void gemm_work_init(GemmWork *w, VmExec *x, GemmKind kind);
void gemm_work_free(GemmWork *w);
/* Allocates the packing buffers of every gemm_run with sizes up to M, N,
 * K (N = 0: of gemm_run_packed only), so that those runs neither allocate
 * nor trap (a host thread may run them, vm/parallel.h).  Returns VM_OK, or
 * a trap when memory is refused. */
int gemm_work_reserve(GemmWork *w, int64_t M, int64_t N, int64_t K);

/* C[i*ldc + j] = sum_p A[i*rsa + p*csa] * B[p*rsb + j*csb] for i < M, j < N,
 * in the compute kind of w (strides in elements).  C is overwritten and must
 * not overlap A or B.  Each C element is summed over p in the same order
 * whatever M and N are.  Returns VM_OK, or a trap when scratch memory is
 * refused (after gemm_work_reserve: VM_TRAP without a message if the sizes
 * exceed the reserved ones, which is a bug of the caller). */
int gemm_run(GemmWork *w, int64_t M, int64_t N, int64_t K, const void *A, int64_t rsa,
             int64_t csa, const void *B, int64_t rsb, int64_t csb, void *C, int64_t ldc);

/* B (K x N, strides in elements) packed once for several gemm_run_packed
 * calls that share it (the real kernels' panel layout; the other kinds keep
 * it row-major): gemm_packed_b_bytes is the size of that buffer. */
size_t gemm_packed_b_bytes(const GemmWork *w, int64_t K, int64_t N);
void gemm_pack_b(const GemmWork *w, int64_t K, int64_t N, const void *B, int64_t rsb, int64_t csb,
                 void *packed);
/* gemm_run with B packed by gemm_pack_b for the same K and N: the same
 * bits, without packing B again. */
int gemm_run_packed(GemmWork *w, int64_t M, int64_t N, int64_t K, const void *A, int64_t rsa, int64_t csa,
                    const void *packed, void *C, int64_t ldc);

/* The dims of a rank-`rank` tensor in neither a nor b (a dot's batching
 * and contracting dims), ascending, into out; returns how many
 * (vm/kernels/linalg.c). */
int gemm_free_dims(int rank, const int64_t *a, int64_t na, const int64_t *b, int64_t nb, int *out);

#endif
