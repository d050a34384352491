/* Per-op verification rules: the constraints (C1, C2, ...) of the StableHLO
 * specification and of the CHLO / check dialects, one function per op family.
 *
 * The generic verifier (ir/verifier.c) checks operand / result / region
 * counts from the op table, terminators, symbols and dominance; it then calls
 * verify_tensor_type on every value type and verify_op_rules on every op.
 *
 * Rules are written to never reject a valid program: dynamic dimensions
 * ('?') and unranked tensors are compatible with anything, quantized and
 * other non-builtin element types are only checked where the rule does not
 * depend on the element type, and a missing or malformed attribute disables
 * only the checks that need it.  Nothing here trusts the IR: attribute kinds,
 * operand counts, ranks and every dimension number read from an attribute are
 * checked before use.
 *
 * Files:  verify_common.c       dispatch, tensor-type sizes, shared helpers
 *         verify_elementwise.c  element-wise, compare, convert, select, clamp,
 *                               bitcast_convert, map, CHLO element-wise
 *                               and broadcasting (chlo.broadcast_*)
 *         verify_shape.c        broadcast, reshape, transpose, slice, pad,
 *                               concatenate, iota, reverse, gather, scatter,
 *                               tuples, dynamic shape ops
 *         verify_data.c         reduce, reduce_window, select_and_scatter,
 *                               dot, dot_general, convolution, fft, sort,
 *                               linear algebra, batch norm, rng
 *         verify_quant.c        quantized types on every op; the
 *                               quantization rules of add, dot_general,
 *                               convolution, transpose, reshape,
 *                               broadcast_in_dim, uniform_(de)quantize
 *         verify_calls.c        the call graph: cycles, depth (the loader's rule)
 *         verify_control.c      while, if, case, collectives, custom_call,
 *                               composite, constant, check.*, CHLO non-
 *                               element-wise ops, tokens */
#ifndef TPUCC_IR_VERIFY_OPS_H
#define TPUCC_IR_VERIFY_OPS_H

#include "ir/ir.h"

/* Entry points used by ir/verifier.c. */
void verify_op_rules(Context *c, Op *op);
void verify_tensor_type(Context *c, Loc loc, const Type *t);
/* The quantization constraints of an op's values and of its kind
 * (verify_quant.c). */
void verify_quant_op(Context *c, Op *op);
/* No recursion and no chain of calls deeper than tpurun runs
 * (verify_calls.c). */
void verify_call_graph(Context *c, Module *m);

/* ------------------------------------------------------------------ */
/* The func.func named `name` in the module around `from`, or NULL. */
const Op *vo_lookup_func(const Op *from, const char *name);

/* The per-op rules (each returns after reporting; never aborts), one per distinct VERIFY column of ir/ops.def, in
 * verify_elementwise.c, verify_shape.c, verify_data.c, verify_control.c
 * (verify_none in verify_common.c). */
#define OP(id, name, mino, maxo, nres, nreg, traits, elems, verify, ...) void verify_##verify(Context *c, Op *op);
#include "ir/ops.def"
#undef OP

/* ------------------------------------------------------------------ */
/* Shared helpers (verify_common.c). */

/* Types of operands and results; NULL when the index is out of range or the
 * value is missing. */
const Type *vo_operand_type(const Op *op, int i);
const Type *vo_result_type(const Op *op, int i);

bool vo_is_tensor(const Type *t);       /* any tensor (ranked or not) */
bool vo_is_ranked(const Type *t);       /* ranked tensor */
bool vo_builtin_elem(const Type *t);    /* tensor with a builtin element type */
int vo_rank(const Type *t);             /* rank; -1 when unranked / not a tensor */
int64_t vo_dim(const Type *t, int i);   /* DIM_DYNAMIC when unknown */
bool vo_dim_known(int64_t d);           /* not DIM_DYNAMIC */
bool vo_dims_compatible(int64_t a, int64_t b);
/* Shapes compatible: unranked, or same rank and every dim compatible. */
bool vo_shapes_compatible(const Type *a, const Type *b);
/* Element types equal; non-builtin (quantized) elements compare leniently. */
bool vo_elems_compatible(const Type *a, const Type *b);
/* Full compatibility (tensors: shape + element; tuples: element-wise;
 * everything else: identity). */
bool vo_types_compatible(const Type *a, const Type *b);

unsigned vo_elem_mask(ElemKind k);

/* Strings for messages (arena-allocated, shortened when very long). */
const char *vo_type_str(Context *c, const Type *t);
const char *vo_attr_str(Context *c, const Attr *a);
const char *vo_list_str(Context *c, int n, const int64_t *v); /* "[1, 2]" */
const char *vo_shape_str(Context *c, const Type *t);          /* "[2, ?]" */
const char *vo_i128_str(Context *c, __int128 v);

/* "operand #i must be tensor of <mask> values, but got 'T'" (or result).
 * Non-tensor types are reported; tensors with non-builtin elements pass.
 * Returns true when the value is an acceptable tensor. */
bool vo_check_operand(Context *c, const Op *op, int i, unsigned mask);
bool vo_check_result(Context *c, const Op *op, int i, unsigned mask);
/* Only "must be a tensor" (any element), same message style. */
bool vo_require_tensor_operand(Context *c, const Op *op, int i);
bool vo_require_tensor_result(Context *c, const Op *op, int i);

/* Attributes.  A list of integers (array<i64: ..>, dense<..>, [1, 2],
 * or a dialect [1, 2] list). */
typedef struct I64List {
  int n;
  const int64_t *v;
} I64List;

/* Result of reading an attribute. */
typedef enum AttrRead { AR_ABSENT, AR_OK, AR_BAD } AttrRead;

/* Read attribute NAME of OP as a list of integers.  When REQUIRED and absent,
 * report "requires attribute 'NAME'"; when present but not a list of
 * integers, report that.  Returns AR_OK only when *out is valid. */
AttrRead vo_i64_list_attr(Context *c, const Op *op, const char *name, bool required, I64List *out);
/* Same for one integer attribute. */
AttrRead vo_int_attr(Context *c, const Op *op, const char *name, bool required, int64_t *out);
/* Same for a bool attribute (true / false, or an i1 integer). */
AttrRead vo_bool_attr(Context *c, const Op *op, const char *name, bool required, bool *out);
/* A list of booleans (array<i1: ..> or dense<..> : tensor<Nxi1>). */
AttrRead vo_bool_list_attr(Context *c, const Op *op, const char *name, bool required, int *n, bool **v);
/* An Nx2 integer attribute (padding): dense<[[lo, hi], ...]> : tensor<Nx2xi64>
 * or an array of 2-element lists.  *pairs holds 2 * *n values. */
AttrRead vo_pairs_attr(Context *c, const Op *op, const char *name, bool required, int *n, const int64_t **pairs);
/* An enum attribute whose value must be one of VALID (NULL-terminated).
 * ENUM_NAME is the expected enum (a different enum name is reported). */
AttrRead vo_enum_attr(Context *c, const Op *op, const char *name, const char *enum_name,
                      const char *const *valid, bool required, const char **out);
/* A dialect attribute #NAME<...> (e.g. "stablehlo.gather"). */
AttrRead vo_dialect_attr(Context *c, const Op *op, const char *name, const char *dialect_name, bool required,
                         const Attr **out);
/* Parameter KEY of a dialect attribute as a list of integers; absent means
 * the empty list.  Reports a parameter of the wrong kind. */
bool vo_dialect_list(Context *c, const Op *op, const Attr *d, const char *key, I64List *out);
/* Parameter KEY as one integer; absent gives DEFLT. */
bool vo_dialect_int(Context *c, const Op *op, const Attr *d, const char *key, int64_t deflt, int64_t *out);

/* Lists of dimension numbers: report "WHAT contains out-of-range dimension
 * D (must be in [0, BOUND))" / "WHAT contains duplicate dimension D"; returns
 * true when every entry is in range and unique (when UNIQUE). */
bool vo_check_dims(Context *c, const Op *op, const char *what, const I64List *l, int64_t bound, bool unique);
bool vo_is_sorted(const I64List *l);
bool vo_list_contains(const I64List *l, int64_t v);

/* Regions. */
Block *vo_region_block(const Op *op, int r);  /* first block of region r or NULL */
const Op *vo_block_return(const Block *b);    /* its terminator when it is a return op */

/* A scalar-computation region (reduce, reduce_window, scatter, all_reduce,
 * ...): block arguments must be 2N 0-d tensors (or, when ALLOW_RANKED, any
 * tensors) whose element types E_i are promotable from IN_ELEMS[i]; the
 * return yields N values of types tensor<E_i>.  On success, OUT_ELEMS[i]
 * receives E_i (ELEM_COUNT when unknown).  WHAT names the region in
 * messages ("reduction body").  Returns false when it reported something. */
bool vo_check_reducer(Context *c, const Op *op, int region, const char *what, int n, const Type *const *in_types,
                      ElemKind *out_elems);

/* is_promotable(x, y) of the specification. */
bool vo_promotable(ElemKind x, ElemKind y);

/* ------------------------------------------------------------------ */
/* Inference (ir/infer.c) runs a rule on an op without results, with
 * c->infer set: result checks then pass, and the shape a rule computes for
 * result #i (where it would compare it with the result's) is recorded
 * here instead.  One computation of each result shape serves both. */
struct InferSink {
  int max;             /* results that can be recorded */
  int *rank;           /* per result; -1 until recorded */
  const int64_t **dims;
};
/* Record (in inference) or the caller compares (false: not inferring). */
bool vo_infer_shape(Context *c, int res_i, int rank, const int64_t *dims);
/* Group size of replica_groups (verify_control.c), after checking them;
 * -1 when unknown. */
int64_t vo_replica_group_size(Context *c, const Op *op, bool required);
/* Is a collective's process group exactly a replica group?  Not in
 * cross_replica_and_partition mode (a channel, no use_global_device_ids),
 * where each group also spans the partitions, a count the op lacks. */
bool vo_groups_exact(const Op *op);


/* The values of operand i when a stablehlo.constant of a 1-d integer
 * tensor defines it (a shape known when verifying). */
bool vo_constant_ints(Context *c, const Op *op, int i, I64List *out);

/* Attribute rules of verify_layouts.c. */
void vo_check_custom_call_attrs(Context *c, Op *op); /* layouts, aliases, backend_config, CreateBuffer */
void vo_check_infeed_layout(Context *c, Op *op);
void vo_check_channel_type(Context *c, Op *op); /* send, recv */
void vo_check_mesh_axes(Context *c, Op *op, const Attr *a); /* replica_group_mesh_axes' mesh exists */
bool vo_namespaced_op_name(const char *s); /* composite_c1 */

#endif
