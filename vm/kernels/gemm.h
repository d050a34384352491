/* Matrix-multiply engine shared by dot_general and mxu_dot
 * (vm/kernels/linalg.c), convolution (vm/kernels/conv.c) and ragged_dot
 * (vm/kernels/ragged.c): compute kinds, element conversion into and out of
 * a compute array, strided permuted copies, C = A * B on strided matrices
 * (vm/kernels/gemm.c: OpenBLAS for f32/f64, plain loops for the other
 * kinds, the packed kernels of vm/kernels/gemm_packed.h for bf16 and
 * 8-bit integers) and the threaded batched product of dot_general. */
#ifndef VM_K_GEMM_H
#define VM_K_GEMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vm/vm.h"

/* The arithmetic a product is computed in, chosen from the result and
 * operand types: f64 for f64; bf16 pairs into f32 (GK_BF16: both operands
 * bf16, a float result other than f64; compute arrays hold the bf16
 * values as f32); f32 for every other real float (f16/bf16/minifloats
 * round once at the end); complex of the result's precision; int32 with
 * wrap for 8-bit operands and a result of at most 32 bits (GK_I8xy: x, y
 * = S or U the lhs and rhs signedness; compute arrays are int32); int64
 * with wrap for other integers; or/and for i1. */
typedef enum GemmKind {
  GK_F32, GK_F64, GK_C64, GK_C128, GK_I64, GK_BOOL, GK_BF16, GK_I8SS, GK_I8SU, GK_I8US, GK_I8UU
} GemmKind;

/* The vector instructions the packed kernels (bf16, 8-bit) may use:
 * TPU_VM_ISA=generic or avx2 caps the default, which is the best the CPU
 * has (vm/kernels/gemm.c). */
typedef enum GemmIsa { GEMM_ISA_GENERIC, GEMM_ISA_AVX2, GEMM_ISA_AVX512 } GemmIsa;
GemmIsa gemm_isa_default(void);

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

/* Reusable buffers of one operation (packing, operand copies). */
typedef struct GemmWork {
  VmExec *x;
  GemmKind kind;
  GemmIsa isa; /* gemm_isa_default(); tests may lower it */
  void *apack, *bpack, *sums;
  size_t abytes, bbytes, sbytes;
  bool reserved; /* sized by gemm_work_reserve: gemm_run never allocates */
} GemmWork;

void gemm_work_init(GemmWork *w, VmExec *x, GemmKind kind);
void gemm_work_free(GemmWork *w);
/* Allocates the buffers of every gemm_run with sizes up to M, N, K whose
 * operands each have a unit stride, so that those runs neither allocate
 * nor trap (a host thread may run them, vm/parallel.h).  Returns VM_OK,
 * or a trap when memory is refused. */
int gemm_work_reserve(GemmWork *w, int64_t M, int64_t N, int64_t K);

/* C[i*ldc + j] = sum_p A[i*rsa + p*csa] * B[p*rsb + j*csb] for i < M, j < N,
 * in the compute kind of w (strides in elements).  C is overwritten and must
 * not overlap A or B.  The bits of a C element depend only on the operand
 * values, M, N, K and the element's position (OpenBLAS sums an element in
 * an order that depends on its place in its micro-tiles); callers cut a
 * product into pieces by its shape only, never by the thread count.
 * Returns VM_OK, or a trap when scratch memory is refused (after
 * gemm_work_reserve: VM_TRAP without a message if the sizes exceed the
 * reserved ones, which is a bug of the caller). */
int gemm_run(GemmWork *w, int64_t M, int64_t N, int64_t K, const void *A, int64_t rsa,
             int64_t csa, const void *B, int64_t rsb, int64_t csb, void *C, int64_t ldc);

/* One operand of a batched product: [batch][rows][cols] with strides in
 * compute elements. */
typedef struct GemmOperand {
  const void *base;
  int64_t batch_stride, row_stride, col_stride;
} GemmOperand;

/* C[b][i][j] (contiguous) = A[b] (M x K) * B[b] (K x N) for b < batch, cut
 * into output tiles whose bounds depend only on M, N and K, run on host
 * threads (vm_parallel_for): the same bits for every thread count. */
int gemm_batched(VmExec *x, GemmKind kind, int64_t batch, int64_t M, int64_t N, int64_t K, GemmOperand a,
                 GemmOperand b, void *C);

/* Work per output tile of gemm_batched; smaller products run on one thread. */
#define GEMM_TILE_FLOPS (1 << 23)
/* The output tiles gemm_batched cuts an M x N x K product into (tm x tn,
 * the last row and column of tiles smaller), from the shape alone: a
 * product computed tile by tile with gemm_run has gemm_batched's bits. */
void gemm_tile_shape(int64_t M, int64_t N, int64_t K, int64_t *tm, int64_t *tn);
/* Copies operand o (batch x rows x cols) row-major into a tile buffer
 * *copy (*bytes, vm_tile_free it) when BLAS could not read it in place
 * (f32, f64), so that gemm_run on its tiles never copies; else leaves it. */
int gemm_operand_ready(VmExec *x, GemmKind kind, int64_t batch, int64_t rows, int64_t cols, GemmOperand *o,
                       void **copy, size_t *bytes);
/* dot_general's product (vm/kernels/linalg.c); tiles: operand copies and
 * the accumulator are tile buffers (mxu_dot) rather than HBM scratch. */
int gemm_dot_run(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out, bool tiles);

/* The dims of a rank-`rank` tensor in neither a nor b (a dot's batching
 * and contracting dims), ascending, into out; returns how many
 * (vm/kernels/linalg.c). */
int gemm_free_dims(int rank, const int64_t *a, int64_t na, const int64_t *b, int64_t nb, int *out);

#endif
