/* The dynamic-pad pass's shared state (passes/dynamic_pad.c: functions,
 * calls, loops; passes/dynamic_pad_ops.c: the per-op rules).  Every value
 * with bounded '?' dims is retyped to its bounds in place; its runtime
 * sizes are tensor<i32> SSA values kept in `sizes` (docs/dynamic-shapes.md). */
#ifndef PASSES_DYNAMIC_PAD_H
#define PASSES_DYNAMIC_PAD_H

#include "ir/table.h"
#include "passes/pass.h"

typedef struct Dp {
  Context *c;
  Table sizes;    /* Value* -> Value *[rank] (NULL entries: static dims) */
  Table ftypes;   /* func Op* -> its original function type */
  Op *at;         /* new ops go before it */
} Dp;

/* The sizes of v, or NULL when every dim of v is static. */
Value **dp_sizes(const Dp *dp, const Value *v);
void dp_set_sizes(Dp *dp, const Value *v, Value **sizes);
/* A fresh array of rank NULL sizes (arena). */
Value **dp_new_sizes(Dp *dp, int rank);
/* Dim d's size of v: its size value, or a constant of its static size. */
Value *dp_size(Dp *dp, const Value *v, int d);
/* Builds an op with one result before dp->at. */
Value *dp_emit(Dp *dp, OpKind k, int n, Value **operands, Type *t, int nattrs, NamedAttr *attrs);
Value *dp_i32(Dp *dp, int64_t v);                               /* constant tensor<i32> */
Value *dp_bin(Dp *dp, OpKind k, Value *a, Value *b);             /* a k b on tensor<i32> */
/* x with the positions at or past size along dim d replaced by fill (a
 * 0-d tensor of x's element type). */
Value *dp_mask(Dp *dp, Value *x, int d, Value *size, Value *fill);
Value *dp_zero(Dp *dp, const Type *like);                        /* 0-d zero of like's element type */
/* Before dp->at: a run-time check (custom_call @shape_assertion, exit 4)
 * that sizes a and b of `what` (e.g. "operands' dim 0") agree; nothing when
 * they are one value. */
void dp_assert_same(Dp *dp, const Op *op, const char *what, Value *a, Value *b);
/* The per-op rule: retypes op's results to their bounds and records their
 * sizes; false after a located error (an op or dim it cannot make exact). */
bool dp_op(Dp *dp, Op *op);
/* The static type at the bounds of t (t itself when static); false after
 * an error at op for an unbounded '?' dim. */
bool dp_bound_type(Dp *dp, const Op *op, const Type *t, Type **out, const char *what);

#endif
