/* Shape refinement (passes/refine_shapes.c, docs/shape-refinement.md):
 * a program with unbounded dimensions ('?' without #stablehlo.bounds), as
 * JAX exports with shape polymorphism, made static from the concrete types
 * of its entry function's arguments and the values of its dimension
 * variables (integer scalar arguments the shape computations read). */
#ifndef PASSES_REFINE_H
#define PASSES_REFINE_H

#include <stdbool.h>
#include <stddef.h>

#include "ir/ir.h"

#define REFINE_MAX_RANK 16

/* The concrete type of one argument of the entry function. */
typedef struct RefineArg {
  bool known;      /* false: the argument keeps its declared type */
  bool any_elem;   /* only the shape is given (a .npy's): the declared element type */
  ElemKind elem;
  int rank;
  int64_t dims[REFINE_MAX_RANK];
  bool has_value;  /* an integer scalar whose value is given (a dimension variable) */
  int64_t value;
} RefineArg;

/* What refine-shapes is given: the entry function and its arguments'
 * types (nargs 0: the declared ones). */
typedef struct RefineSpec {
  const char *entry; /* NULL: "main" */
  int nargs;
  const RefineArg *args;
} RefineSpec;

/* Parses "3x4xf32", "f32", "i64=3" (a scalar's value), or a tpurun input
 * literal "2x2xf32=1,2,3,4" (its type; the value too for an integer
 * scalar).  False with a reason in err. */
bool refine_parse_arg(const char *spec, RefineArg *out, char *err, size_t errlen);

/* Whether the program needs refining: the first argument of the entry
 * function with an unbounded dimension (its index in *arg), else -1 in
 * *arg for an unbounded result or value anywhere in the module; false
 * when there is none (or no such function). */
bool refine_needed(const Module *m, const char *entry, int *arg);

/* Refines the module from spec (the refine-shapes pass): false after
 * located diagnostics. */
bool refine_module(Context *c, Module *m, const RefineSpec *spec);

/* The static form of a dynamic op whose shape operands are constants and
 * whose result type is static (dynamic_broadcast_in_dim -> broadcast_in_dim,
 * dynamic_reshape -> reshape, dynamic_iota -> iota, dynamic_pad -> pad,
 * real_dynamic_slice -> slice, dynamic_gather -> gather, dynamic_conv ->
 * convolution), built before op; its result, or NULL when op is not one
 * of them or not yet static.  canonicalize applies it to every program. */
Value *refine_static_form(Context *c, Op *op);

/* A custom_call @shape_assertion whose predicate is a constant: erased
 * when true (1), a located error with its formatted message when false
 * (-1); 0 for any other op.  canonicalize applies it to every program. */
int refine_fold_assertion(Context *c, Op *op);

#endif
