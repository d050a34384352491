/* Machinery shared by the kernels with region bodies (vm/kernels/reduce.c:
 * reduce, reduce_window, select_and_scatter, map; vm/kernels/sort.c: sort,
 * top_k), implemented in vm/kernels/region.c:
 *   - scratch sets: accounted allocations released together;
 *   - validation helpers for region signatures and result shapes;
 *   - region calls per element on scalar tensors, run by a scalar evaluator
 *     (no VM call) when the body is made only of constants, compare,
 *     select, logic and simple arithmetic (JAX comparators, argmax
 *     reducers...), else by vm_call_region;
 *   - comparator recognition and ordering keys for keyed sorting.
 * Internal to vm/. */
#ifndef VM_K_REGION_H
#define VM_K_REGION_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "vm/dtype.h"
#include "vm/kernels/kernels.h"

/* compare directions and types (the COMPARE opcode's fields). */
enum { DIR_EQ, DIR_NE, DIR_GE, DIR_GT, DIR_LE, DIR_LT };
enum { CMP_DEFAULT, CMP_FLOAT, CMP_TOTALORDER, CMP_SIGNED, CMP_UNSIGNED };

/* Copies one element of `bytes` bytes (1, 2, 4, 8 or 16). */
static inline void copy_elem(void *dst, const void *src, int bytes) {
  switch (bytes) {
  case 1: memcpy(dst, src, 1); break;
  case 2: memcpy(dst, src, 2); break;
  case 4: memcpy(dst, src, 4); break;
  case 8: memcpy(dst, src, 8); break;
  default: memcpy(dst, src, (size_t)bytes); break;
  }
}

/* ------------------------------------------------------------------ */
/* Scratch: up to SCRATCH_SLOTS accounted allocations released together.
 * Initialise with `Scratch s = {.x = x};`. */

#define SCRATCH_SLOTS 64
typedef struct Scratch {
  VmExec *x;
  int n;
  void *p[SCRATCH_SLOTS];
  size_t size[SCRATCH_SLOTS];
} Scratch;

/* count * elem_size bytes (at least one), or NULL when refused. */
void *kr_scratch_get(Scratch *s, int64_t count, size_t elem_size);
void kr_scratch_release(Scratch *s);
/* Releases everything and traps with "out of memory: <op> scratch". */
int kr_scratch_fail(Scratch *s, const char *op);

/* ------------------------------------------------------------------ */
/* Validation helpers (CHECK functions); op names the opcode in messages. */

bool kr_is_scalar_of(const VmType *t, int elem); /* tensor<elem> */
/* Explicit parameter i / result i of region field f must be tensor<elem>. */
bool kr_check_region_param(VmCheck *c, const char *op, int f, int i, int elem);
bool kr_check_region_result(VmCheck *c, const char *op, int f, int i, int elem);
/* Result i must be a tensor of elem with the given shape. */
bool kr_check_result_shape(VmCheck *c, const char *op, uint32_t i, int elem, int rank, const int64_t *dims);

/* ------------------------------------------------------------------ */
/* Comparators and ordering keys. */

/* True when region r is `return compare(arg0, arg1)` (either order; dir is
 * given for (arg0, arg1)) without captures. */
bool kr_region_simple_compare(const VmExec *x, const VmRegion *r, int *dir, int *cmp_type);

/* How compare(cmp_type) orders elem, as keys: IEEE doubles (KEYS_F64), or
 * int64s compared as signed integers (KEYS_I64: the total order of the bits
 * for floats, the value for ints, shifted into signed range if unsigned). */
enum { KEYS_NONE, KEYS_F64, KEYS_I64 };
int kr_key_kind(int elem, int cmp_type);
/* Keys of n elements at base + t * stride (t < n) into ikeys or fkeys. */
void kr_load_keys(int kind, int elem, const void *data, int64_t base, int64_t stride, int64_t n, int64_t *ikeys,
                  double *fkeys);
/* The KEYS_I64 key of an element's storage bits (the KEYS_F64 key is
 * vm_float_bits_to_f64). */
int64_t kr_bits_key_i64(int elem, uint64_t bits);

/* ------------------------------------------------------------------ */
/* Region calls. */

/* A body compiled for the scalar evaluator. */
typedef struct MiniOp MiniOp;
typedef struct MiniProg {
  uint32_t nops, nargs, nres, ncaps; /* nargs explicit arguments, then ncaps captures */
  MiniOp *ops;
  uint8_t *arg_bytes, *res_bytes;
  uint64_t (*caps)[2]; /* the captured constants */
  const uint32_t *ret; /* nres registers */
} MiniProg;

/* One region called per element: set args[i].data, call kr_region_call, read
 * res[i].data (16 bytes of storage each). */
typedef struct RegionCall {
  VmExec *x;
  const VmRegion *r;
  const VmFunc *fn;
  int nargs, nres;
  VmTensor *args, *res;
  char *res_store;
  bool mini; /* run by the scalar evaluator */
  MiniProg prog;
} RegionCall;

/* Prepares calls of region r of the executing instruction (scratch from s); false
 * when out of memory.  The region's results must be scalars. */
bool kr_region_call_init(RegionCall *rc, Scratch *s, VmExec *x, const VmRegion *r);
int kr_region_call(RegionCall *rc);

/* Runs a compiled body: args[i].data are the arguments, results go to
 * res[i].data (the evaluator reads every argument before writing a result,
 * so they may alias); or, when key_out is not NULL, the final bits of
 * register key_reg go to *key_out instead. */
void kr_mini_run(const MiniProg *p, const VmTensor *args, VmTensor *res, uint32_t key_reg, uint64_t *key_out);

/* A comparator `return compare(g(arg0), g(arg1))` where g is one computation
 * applied to each argument (JAX canonicalises -0 and NaN this way before a
 * TOTALORDER compare): sorting by the keys g(x), computed once per element,
 * gives exactly the comparator's answers. */
typedef struct KeyFunction {
  uint32_t reg; /* register holding g(arg0) */
  int dir;      /* compare direction for (g(a), g(b)) */
  int cmp_type;
  int elem; /* element type of g's result */
} KeyFunction;

/* Recognises a key-function comparator in a body compiled for the
 * evaluator. */
bool kr_comparator_key_function(const VmFunc *fn, const MiniProg *mp, KeyFunction *kf);

#endif
