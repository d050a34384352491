/* The contraction of an output fusion (vm/kernels/fusion.c) computed block
 * by block: a dot_general (or mxu_dot, the same bits) as the output tiles
 * gemm_batched would compute (vm/kernels/gemm.h), one gemm_run each on
 * host threads, each block handed to a callback while it is in cache; a
 * convolution as chunks of whole batch images.  The blocks depend on the
 * shapes only and are gemm_batched's own, so the bits are the unfused
 * dot_general's and never depend on the thread count.  Internal to vm/. */
#ifndef VM_K_FUSION_DOT_H
#define VM_K_FUSION_DOT_H

#include <stdbool.h>
#include <stdint.h>

#include "vm/kernels/gemm.h"
#include "vm/kernels/kernels.h"

/* Receives rows x cols elements of the contraction's result (its element
 * type) at block, row r at block + r * ld elements; they are the result's
 * elements first + r * row + c (row: the result's row length N). */
typedef int (*FusionBlockFn)(void *ctx, int worker, const void *block, int64_t ld, int64_t first, int64_t row,
                             int64_t rows, int64_t cols);

/* A dot_general being computed block by block. */
typedef struct FusionDot {
  VmExec *x;
  GemmKind kind;
  int ces, out_elem, oes; /* compute and result element bytes, result type */
  bool native_out;
  int64_t batch, m, n, k;
  const char *a, *b; /* operands in the compute kind */
  int64_t a_bs, a_rs, a_cs, b_bs, b_rs, b_cs;
  void *owned[2];
  size_t owned_bytes[2];
  void *ready[2];   /* operand copies gemm_operand_ready made (tile memory) */
  size_t ready_bytes[2];
  int64_t tm, tn;   /* the blocks: gemm_batched's output tiles (gemm_tile_shape) */
  int64_t ncb, nrg; /* column blocks and row groups per batch */
  int workers, ngw; /* workers, and how many GEMM states are initialised */
  char *work;       /* per worker: compute block, result block, GEMM state */
  size_t work_bytes, block_bytes, total;
} FusionDot;

/* Whether ins (dot_general, mxu_dot) can run block by block. */
bool fusion_dot_supported(const VmInstr *ins, const VmType *lt, const VmType *rt, const VmType *ot);
/* Prepares d for operands in[0..1] and a result of type ot, with scratch
 * for the workers worth starting, at most max_workers; traps when out of
 * memory. */
int fusion_dot_begin(FusionDot *d, VmExec *x, const VmInstr *ins, const VmTensor *in, const VmType *ot,
                     int max_workers);
/* Tasks of the fixed decomposition. */
int64_t fusion_dot_ntasks(const FusionDot *d);
/* The workers prepared: one below GEMM_TILE_FLOPS of work (as
 * gemm_batched), else up to the tasks. */
int fusion_dot_workers(const FusionDot *d);
/* Computes task t's blocks on worker's scratch, handing each to fn (safe on
 * host threads: never touches the VmExec). */
int fusion_dot_task(FusionDot *d, int worker, int64_t t, FusionBlockFn fn, void *ctx);
void fusion_dot_end(FusionDot *d);

/* Images of a convolution's result computed per chunk, counted along the
 * result's outermost dimension: 1..batch when the batch dimension is the
 * outermost of both the input and the result, else (or with
 * batch_group_count > 1) the outermost dimension's whole size, one chunk. */
int64_t fusion_conv_chunk(const VmInstr *ins, const VmType *lt, const VmType *ot);
/* Images [first, first + count) of convolution ins into out (count images
 * of the result's type, contiguous): exec_convolution on batch slices, or
 * the whole convolution when count is the result's outermost size. */
int fusion_conv_images(VmExec *x, const VmInstr *ins, const VmTensor *in, const VmType *ot, int64_t first,
                       int64_t count, void *out);

#endif
