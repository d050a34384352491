/* The kernel interface: one loader-time validator (CHECK) and one executor
 * (EXEC) per opcode, as named in vm/opcodes.def.  Internal to vm/. */
#ifndef VM_KERNELS_H
#define VM_KERNELS_H

#include "vm/vm.h"

/* What a validator sees.  The loader has already checked the operand and
 * result counts against the table, every register index, every field's
 * kind and bounds, and every region's function index and capture
 * registers.  A validator checks everything else EXEC relies on (shapes,
 * element types, field lengths and ranges) so that no .tpub can make EXEC
 * read or write out of bounds. */
typedef struct VmCheck {
  const VmProgram *prog;
  const VmFunc *func;
  const VmInstr *ins;
  char *err; /* reason, written by vm_check_fail */
  size_t errlen;
} VmCheck;

/* Writes the reason and returns false. */
bool vm_check_fail(VmCheck *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const VmType *vm_check_in(const VmCheck *c, uint32_t i);  /* type of operand i */
const VmType *vm_check_out(const VmCheck *c, uint32_t i); /* type of result i */
/* Region field f must take nargs arguments (plus captures) and give nres
 * results; arg_types / res_types may be NULL to skip the type test, else
 * each must be a tensor of the same element type and shape. */
bool vm_check_region(VmCheck *c, int f, int nargs, const VmType *const *arg_types, int nres,
                     const VmType *const *res_types);
/* Helpers shared by validators. */
bool vm_type_is_tensor(const VmType *t);
bool vm_type_same_shape(const VmType *a, const VmType *b);
bool vm_type_equal(const VmType *a, const VmType *b); /* same element type and shape */
bool vm_type_is_scalar(const VmType *t);              /* rank-0 tensor */

/* If region r computes `return op(arg0, arg1)` or `return op(arg1, arg0)`
 * with one element-wise binary opcode and no captures, returns that opcode
 * (VM_OP_ADD, VM_OP_MAXIMUM, ...), else -1: kernels use it to pick a fast,
 * vectorized path instead of calling the region per element.  *swapped
 * tells which order the body uses.  A caller that always computes
 * op(arg0, arg1) passes swapped NULL: a swapped body on floats or complex
 * numbers (elem), where the order decides ties, signed zeros and NaN
 * payloads, then gives -1. */
int vm_region_binary_op(const VmExec *x, const VmRegion *r, int elem, bool *swapped);

/* o[j] = op(a[j], b[j]) for j < n: binary element-wise opcode op on
 * element type elem, exactly as exec_binary computes it (o may be a or b).
 * Kernels whose region body is one such op (vm_region_binary_op) use it so
 * that every element type rounds and wraps as the unfused op does. */
void vm_binary_apply(int op, int elem, void *o, const void *a, const void *b, int64_t n);

/* The current value of capture i of region r of the executing instruction
 * (its type is the region function's parameter nargs + i). */
const void *vm_region_capture(const VmExec *x, const VmRegion *r, uint32_t i);

/* The slot where a kernel keeps what it decided once about the executing
 * instruction (a plan derived from the program alone, never from values):
 * NULL until the kernel stores a malloc'ed block there, which
 * vm_exec_free frees.  Returns NULL when out of host memory. */
void **vm_instr_cache(VmExec *x);

/* A reduce instruction folded over row-major ranges of its inputs
 * (vm/kernels/reduce.c): begin fills the N results (or f32 accumulators) with
 * the init values, each vm_reduce_fold folds input elements [s, s + len)
 * (data[i]: input i at element s) in row-major order, end writes the
 * results and frees.  Any split of the input gives the bits of
 * exec_reduce.  begin traps and returns NULL when out of memory. */
typedef struct VmReduceFold VmReduceFold;
/* The reduce's body captures nothing (its inputs may be promoted to the
 * body's wider types: the fold converts them as it goes). */
bool vm_reduce_foldable(const VmInstr *ins);
/* in_types: the N inputs' types; init: of the same element types. */
VmReduceFold *vm_reduce_fold_begin(VmExec *x, const VmInstr *ins, const VmType *const *in_types, const VmTensor *init,
                                   VmTensor *out);
/* Ranges of whole blocks of this many elements write disjoint results and
 * may be folded on different threads at once; in_count: one block only. */
int64_t vm_reduce_fold_block(const VmReduceFold *f, int64_t in_count);
int vm_reduce_fold(VmReduceFold *f, const void *const *data, int64_t s, int64_t len);
void vm_reduce_fold_end(VmReduceFold *f, bool ok);

#define OPC(id, name, nin, nout, fields, check, exec, flags, doc) \
  bool check(VmCheck *c);
#include "vm/opcodes.def"
#undef OPC

typedef int (*VmExecFn)(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out);
#define OPC(id, name, nin, nout, fields, check, exec, flags, doc) \
  int exec(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out);
#include "vm/opcodes.def"
#undef OPC

/* Every opcode's EXEC, indexed by opcode (vm/interp.c): the interpreter's
 * dispatch, and kernels that run a body's instruction on whole tensors. */
extern const VmExecFn vm_exec_table[VM_OP_COUNT];

/* Special functions of CHLO in double precision (vm/kernels/special.c). */
double vm_sf_lgamma(double x);
double vm_sf_digamma(double x);
double vm_sf_erf_inv(double x);
double vm_sf_bessel_i1e(double x);
double vm_sf_zeta(double x, double q);
double vm_sf_polygamma(double n, double x);

#endif
