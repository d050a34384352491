/* Constant folding, the engine of the canonicalize pass: the value of an op
 * whose operands are all known constants, computed exactly.
 *
 * - Integers of every width (i1..i64, ui*, si*) in GMP, wrapped to the
 *   result width.  What the spec leaves to the implementation (division
 *   by zero, INT_MIN / -1) is never folded.
 * - Floats (f64 natively; f32, f16, bf16 and the minifloats through double
 *   and one rounding, which is correct for +, -, *, /, sqrt since double
 *   has more than 2p+2 bits).  Transcendental functions are not folded:
 *   libm does not round them correctly, the VM would disagree.
 * - Shape ops move storage bytes (any element type, complex included).
 * - reduce of one integer, f32 or f64 input whose body is one add,
 *   multiply, max, min, and, or or xor, in the VM's row-major order.
 *
 * A result bigger than FOLD_MAX_ELEMENTS elements is not materialized
 * unless all its elements are equal (then it is a splat).  Only dense<...>
 * literals are known values; dense_resource (e.g. elided weights) is not. */
#ifndef PASSES_FOLD_H
#define PASSES_FOLD_H

#include "ir/ir.h"

#define FOLD_MAX_ELEMENTS ((int64_t)1 << 20)

/* The dense<...> value of v when a stablehlo.constant defines it with a
 * usable literal; NULL otherwise. */
const Attr *fold_known_value(const Value *v);

/* The value of op's single result from the values of its operands (vals[i]
 * NULL: unknown); NULL when the op cannot be folded exactly. */
Attr *fold_op(Context *c, const Op *op, const Attr *const *vals);

/* Whether fold_op reads the regions of ops of this kind (reduce: its body),
 * so that an op with regions is worth offering it. */
bool fold_reads_regions(OpKind kind);

/* A dense attribute of static type t whose elements all have the storage
 * bits `bits` (a splat unless t has one element or none). */
Attr *fold_splat(Context *c, Type *t, uint64_t bits);

/* True when every element of the dense attribute a has the same storage
 * bits, returned in *bits (false for an empty tensor). */
bool fold_uniform(const Attr *a, uint64_t *bits);

/* One element-wise operation, as fold_op evaluates it per element. */
typedef struct FoldElemOp {
  OpKind kind;
  int direction;   /* compare: 0 EQ, 1 NE, 2 GE, 3 GT, 4 LE, 5 LT */
  bool total;      /* compare: compare_type TOTALORDER */
  ElemKind in;     /* element kind of the operands (select, clamp: operand 1) */
  ElemKind out;    /* element kind of the result */
} FoldElemOp;

/* Integer folding of one element (for the unit tests): args are the
 * operands' numbers (sign- or zero-extended per e->in), *result the result's
 * number per e->out.  False when the op is not folded at these values. */
bool fold_int_scalar(const FoldElemOp *e, int nargs, const int64_t *args, int64_t *result);

#endif
