/* Strided element copies and validation helpers shared by the data-movement
 * kernels (vm/kernels/shape.c, vm/kernels/gather.c).  Elements are moved as opaque 1, 2,
 * 4, 8 or 16-byte units, never interpreted.  Internal to vm/. */
#ifndef VM_K_SHAPE_H
#define VM_K_SHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vm/dtype.h"
#include "vm/kernels/kernels.h"

/* A copy of an n-d box of elements between two strided views, normalised
 * once (size-1 dimensions dropped, contiguous neighbours merged) and then
 * run at any number of base offsets.  Strides and bases count elements. */
typedef struct VmCopyPlan {
  int esize;  /* element bytes */
  int rank;   /* after normalisation; 0 = a single element */
  bool empty; /* some dimension has size 0 */
  bool stream; /* contiguous runs are stored around the caches (large copies) */
  int64_t dims[TPUB_MAX_RANK];
  int64_t src_stride[TPUB_MAX_RANK];
  int64_t dst_stride[TPUB_MAX_RANK];
} VmCopyPlan;

/* Builds the plan of a rank-`rank` box (rank <= TPUB_MAX_RANK). */
void vm_copy_plan_init(VmCopyPlan *p, int esize, int rank, const int64_t *dims, const int64_t *src_stride,
                       const int64_t *dst_stride);

/* dst[dst_base + i . dst_stride] = src[src_base + i . src_stride] for every
 * index i of the box. */
void vm_copy_plan_run(const VmCopyPlan *p, void *dst, int64_t dst_base, const void *src, int64_t src_base);

/* vm_copy_plan_run on host threads (vm/parallel.h) over fixed slabs of the
 * plan's outermost dimension when it moves enough bytes; the same bytes
 * for any thread count.  dst must not overlap src. */
void vm_copy_plan_run_parallel(VmExec *x, const VmCopyPlan *p, void *dst, int64_t dst_base, const void *src,
                               int64_t src_base);

/* Called once per innermost run of a plan: n elements at element offsets
 * dst_off + k * dst_step and src_off + k * src_step. */
typedef void (*VmRunFn)(void *ctx, int64_t dst_off, int64_t src_off, int64_t n, int64_t dst_step, int64_t src_step);

/* Walks the plan's innermost runs in row-major order of the box. */
void vm_copy_plan_walk(const VmCopyPlan *p, int64_t dst_base, int64_t src_base, VmRunFn fn, void *ctx);

/* Row-major element strides of a shape. */
void vm_row_major_strides(int rank, const int64_t *dims, int64_t *strides);

/* Writes n copies of the esize-byte element at value to dst. */
void vm_fill_elems(void *dst, int esize, int64_t n, const void *value);

/* Copies n bytes to dst with non-temporal stores where the host has them
 * (the data bypasses the caches: for results too large to stay there);
 * vm_stream_fence() makes them visible before the task ends. */
void vm_stream_copy(void *dst, const void *src, size_t n);
void vm_stream_fence(void);

/* Reads integer element i of any integer type as an index; unsigned values
 * above INT64_MAX saturate (they are clamped or rejected as huge anyway). */
static inline int64_t vm_load_index(int elem, const void *data, int64_t i) {
  switch (elem) {
  case TPUB_I32: return ((const int32_t *)data)[i];
  case TPUB_I64: return ((const int64_t *)data)[i];
  case TPUB_U64: {
    uint64_t v = ((const uint64_t *)data)[i];
    return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
  }
  default: return vm_load_i64(elem, data, i);
  }
}

/* Validation helpers: each writes a reason prefixed by the opcode name and
 * returns false on failure. */
const char *vm_shape_opname(const VmCheck *c);
bool vm_shape_need_tensor(VmCheck *c, const VmType *t, const char *what);
/* The list v[0..n-1] holds distinct values in [0, bound) (and is sorted when
 * `sorted`); `what` names the field in the message. */
bool vm_shape_dim_list(VmCheck *c, const char *what, const int64_t *v, int64_t n, int64_t bound, bool sorted);
/* Formats a list as "[1, 2, 3]" into buf (truncated with "..."). */
const char *vm_shape_list_str(char *buf, size_t len, const int64_t *v, int64_t n);

#endif
