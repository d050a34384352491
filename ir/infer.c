/* Result-type inference: the types StableHLO's type inference gives an op's
 * results (the ops implementing InferTypeOpInterface /
 * InferShapedTypeOpInterface; each op's "Constraints" in docs/spec.md),
 * from its operands' types, attributes and regions.  The eager runtime
 * uses it when the user gives no result types.
 *
 * Each op kind's rule is infer_<INFER> of its row of ir/ops.def (none: the
 * user must give the types, as StableHLO asks for convert, reshape, iota,
 * custom_call, ...).  op->results are never read, so a rule applies to an
 * op parsed with "-> ()" and to a real op alike.
 *
 * Where the verifier computes a result shape (dot_general, gather,
 * convolution, reduce_window, slice, pad, ...), the rule runs the
 * verifier's type rule (ir/verify_*.c) on a result-less view of the op with
 * c->infer set: the rule's operand checks report inconsistent inputs, and
 * the shape it would compare with the result is recorded instead
 * (vo_infer_shape).  One computation serves both. */
#include <inttypes.h>
#include <string.h>

#include "ir/verify_ops.h"

typedef int (*InferFn)(Context *c, const Op *op, Type **out, int max_out);

#define OP(id, name, mino, maxo, nres, nreg, traits, elems, verify, infer, ...) \
  static int infer_##infer(Context *c, const Op *op, Type **out, int max_out);
#include "ir/ops.def"
#undef OP

/* The rule of each op: the INFER column of ir/ops.def. */
static const InferFn infer_rules[OP_COUNT] = {
#define OP(id, name, mino, maxo, nres, nreg, traits, elems, verify, infer, ...) [OP_##id] = infer_##infer,
#include "ir/ops.def"
#undef OP
};

/* ------------------------------------------------------------------ */
/* Helpers. */

/* Runs the op's verifier rule on a view of it without results; the shapes
 * it computes go to SINK (may be NULL).  False when it reported an error. */
static bool run_rule(Context *c, const Op *op, InferSink *sink) {
  Op view = *op;
  view.nresults = 0;
  view.results = NULL;
  InferSink none = {0, NULL, NULL};
  InferSink *saved = c->infer;
  int before = c->diag.nerrors;
  c->infer = sink ? sink : &none;
  verify_op_rules(c, &view);
  c->infer = saved;
  return c->diag.nerrors == before;
}

static InferSink *new_sink(Context *c, int n) {
  InferSink *s = arena_alloc(&c->arena, sizeof *s);
  s->max = n;
  s->rank = arena_alloc(&c->arena, sizeof(int) * (size_t)(n + 1));
  s->dims = arena_alloc(&c->arena, sizeof(int64_t *) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) s->rank[i] = -1;
  return s;
}

/* A tensor of the given shape with the element type of ELEM_OF (a builtin
 * or a quantized element type). */
static Type *tensor_of(Context *c, const Type *elem_of, int rank, const int64_t *dims) {
  if (elem_of->elem_opaque) return type_tensor_opaque_elem(c, elem_of->elem_opaque, rank, dims, NULL);
  return type_tensor(c, elem_of->elem, rank, dims, NULL);
}

/* SHAPE_OF's shape (and bounds) with element type E. */
static Type *with_elem(Context *c, const Type *shape_of, ElemKind e) {
  return type_tensor(c, e, shape_of->rank, shape_of->dims, shape_of->encoding);
}

static const Type *operand(const Op *op, int i) { return vo_operand_type(op, i); }

/* The types of operands FIRST .. FIRST + N - 1 of OP (an arena array). */
static Type **types_of(Context *c, const Op *op, int first, int n) {
  Type **t = arena_alloc(&c->arena, sizeof(Type *) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) t[i] = (Type *)operand(op, first + i);
  return t;
}

/* Writes N results, or reports that the caller has room for fewer. */
static int emit(Context *c, const Op *op, Type **out, int max_out, int n, Type *const *types) {
  if (n > max_out) {
    op_error(c, op, "has %d inferred result types, but room was given for %d", n, max_out);
    return -1;
  }
  for (int i = 0; i < n; i++) out[i] = types[i];
  return n;
}

static int emit1(Context *c, const Op *op, Type **out, int max_out, Type *t) {
  return emit(c, op, out, max_out, 1, &t);
}

/* The op's operand I must be a tensor for its rule; reports it if not. */
static bool tensor_operand(Context *c, const Op *op, int i) {
  if (vo_is_tensor(operand(op, i))) return true;
  op_error(c, op, "cannot infer its result type from operand #%d of type '%s'", i, vo_type_str(c, operand(op, i)));
  return false;
}

/* Operand counts of the row (the generic verifier's check). */
static bool operand_count_ok(Context *c, const Op *op) {
  const OpInfo *in = &op_info[op->kind];
  if (in->min_operands >= 0 && op->noperands < in->min_operands) {
    op_error(c, op, "expects at least %d operands, but got %d", in->min_operands, op->noperands);
    return false;
  }
  if (in->max_operands >= 0 && op->noperands > in->max_operands) {
    op_error(c, op, "expects at most %d operands, but got %d", in->max_operands, op->noperands);
    return false;
  }
  for (int i = 0; i < op->noperands; i++)
    if (!operand(op, i)) {
      op_error(c, op, "operand #%d has no type", i);
      return false;
    }
  return true;
}

bool op_has_inference(OpKind k) { return k > OP_UNKNOWN && k < OP_COUNT && infer_rules[k] != infer_none; }

int infer_result_types(Context *c, const Op *op, Type **out, int max_out) {
  if (!op || op->kind <= OP_UNKNOWN || op->kind >= OP_COUNT) {
    if (op) op_error(c, op, "is not an op tpucc knows; cannot infer its result types");
    return -1;
  }
  if (!operand_count_ok(c, op)) return -1;
  int n = infer_rules[op->kind](c, op, out, max_out);
  if (n <= 0) return n;
  /* Some operand constraints are checked against the result (fft's
   * trailing dimensions, ...), which the rule skipped without one: the op
   * with the inferred types must verify too. */
  Value *res = arena_alloc(&c->arena, sizeof(Value) * (size_t)n);
  for (int i = 0; i < n; i++) res[i] = (Value){.type = out[i], .index = i};
  Op view = *op;
  view.nresults = n;
  view.results = res;
  int before = c->diag.nerrors;
  verify_op_rules(c, &view);
  return c->diag.nerrors == before ? n : -1;
}

/* ------------------------------------------------------------------ */
/* Rules without computation. */

static int infer_none(Context *c, const Op *op, Type **out, int max_out) {
  (void)out;
  (void)max_out;
  bool one = op_info[op->kind].num_results == 1;
  op_error(c, op, "cannot infer its result type%s; give the result type%s", one ? "" : "s", one ? "" : "s");
  return -1;
}

/* Terminators and checks: no results. */
static int infer_no_results(Context *c, const Op *op, Type **out, int max_out) {
  (void)c, (void)op, (void)out, (void)max_out;
  return 0;
}

/* The type of operand #0, once the op's rule finds its operands consistent
 * (element-wise ops, reverse, collective_permute, ...). */
static int infer_operand(Context *c, const Op *op, Type **out, int max_out) {
  if (!run_rule(c, op, NULL)) return -1;
  return emit1(c, op, out, max_out, (Type *)operand(op, 0));
}

/* One result per operand, of its type (sort, while, optimization_barrier,
 * collective_reduce). */
static int infer_operands(Context *c, const Op *op, Type **out, int max_out) {
  if (!run_rule(c, op, NULL)) return -1;
  return emit(c, op, out, max_out, op->noperands, types_of(c, op, 0, op->noperands));
}

/* ------------------------------------------------------------------ */
/* Element-wise ops whose result element type differs. */

/* abs, real, imag: a complex operand gives its part type, a real one keeps
 * its type (C2 of abs, C2 of real / imag). */
static int infer_complex_part(Context *c, const Op *op, Type **out, int max_out) {
  if (!run_rule(c, op, NULL)) return -1;
  const Type *t = operand(op, 0);
  if (vo_builtin_elem(t) && elem_is_complex(t->elem)) return emit1(c, op, out, max_out, with_elem(c, t, elem_complex_part(t->elem)));
  return emit1(c, op, out, max_out, (Type *)t);
}

/* is_finite, compare, chlo.is_*_inf: i1 of the operands' shape. */
static int infer_predicate(Context *c, const Op *op, Type **out, int max_out) {
  if (!run_rule(c, op, NULL) || !tensor_operand(c, op, 0)) return -1;
  return emit1(c, op, out, max_out, with_elem(c, operand(op, 0), ELEM_I1));
}

/* complex(lhs, rhs): complex of the parts' float type. */
static int infer_complex(Context *c, const Op *op, Type **out, int max_out) {
  if (!run_rule(c, op, NULL) || !tensor_operand(c, op, 0)) return -1;
  const Type *t = operand(op, 0);
  ElemKind e = vo_builtin_elem(t) ? t->elem : ELEM_COUNT;
  if (e != ELEM_F32 && e != ELEM_F64) {
    op_error(c, op, "expects f32 or f64 parts, but got '%s'", vo_type_str(c, t));
    return -1;
  }
  return emit1(c, op, out, max_out, with_elem(c, t, e == ELEM_F32 ? ELEM_C64 : ELEM_C128));
}

/* clamp(min, operand, max), select(pred, on_true, on_false) and
 * triangular_solve(a, b): the type of operand #1 (min, max and pred may be
 * scalars). */
static int infer_operand_1(Context *c, const Op *op, Type **out, int max_out) {
  if (!run_rule(c, op, NULL)) return -1;
  return emit1(c, op, out, max_out, (Type *)operand(op, 1));
}

/* The I-th value the return of region R yields, or NULL after reporting. */
static const Type *region_return_type(Context *c, const Op *op, int r, int i) {
  const Op *ret = vo_block_return(vo_region_block(op, r));
  if (ret && i < ret->noperands && operand(ret, i)) return operand(ret, i);
  op_error(c, op, "cannot infer its result types: region #%d does not return value #%d", r, i);
  return NULL;
}

/* map: the operands' shape, the element type the computation returns. */
static int infer_map(Context *c, const Op *op, Type **out, int max_out) {
  if (!run_rule(c, op, NULL) || !tensor_operand(c, op, 0)) return -1;
  const Type *rt = region_return_type(c, op, 0, 0);
  if (!rt) return -1;
  if (!vo_is_tensor(rt)) {
    op_error(c, op, "cannot infer its result type: the computation returns '%s'", vo_type_str(c, rt));
    return -1;
  }
  const Type *in = operand(op, 0);
  Type *t = rt->elem_opaque ? type_tensor_opaque_elem(c, rt->elem_opaque, in->rank, in->dims, NULL)
                            : type_tensor(c, rt->elem, in->rank, in->dims, NULL);
  return emit1(c, op, out, max_out, t);
}

/* constant: the type of its value. */
static int infer_constant(Context *c, const Op *op, Type **out, int max_out) {
  const Attr *v = op_attr(op, "value");
  if (!v || !v->type || (v->kind != ATTR_DENSE && v->kind != ATTR_DENSE_RESOURCE)) {
    op_error(c, op, "cannot infer its result type without a dense 'value' attribute");
    return -1;
  }
  return emit1(c, op, out, max_out, v->type);
}

/* ------------------------------------------------------------------ */
/* Shapes computed by the verifier's rules. */

/* Runs the rule to record N result shapes; false after reporting. */
static InferSink *rule_shapes(Context *c, const Op *op, int n) {
  InferSink *s = new_sink(c, n);
  if (!run_rule(c, op, s)) return NULL;
  for (int i = 0; i < n; i++)
    if (s->rank[i] < 0) {
      op_error(c, op, "cannot infer the shape of result #%d from these operands and attributes", i);
      return NULL;
    }
  return s;
}

/* The one result's shape from the rule, with the element type of operand
 * I; NULL after reporting. */
static Type *rule_shape_of(Context *c, const Op *op, int i) {
  if (!tensor_operand(c, op, i)) return NULL;
  InferSink *s = rule_shapes(c, op, 1);
  return s ? tensor_of(c, operand(op, i), s->rank[0], s->dims[0]) : NULL;
}

/* broadcast, transpose, slice, dynamic_slice, concatenate, pad, gather,
 * dot, dot_general, convolution, chlo.ragged_dot, chlo.broadcast_*: the
 * rule's shape, the element type of operand #0 (the lhs of a contraction:
 * the spec fixes only the shape, C12 of dot_general). */
static int infer_shape(Context *c, const Op *op, Type **out, int max_out) {
  Type *t = rule_shape_of(c, op, 0);
  return t ? emit1(c, op, out, max_out, t) : -1;
}

/* chlo.broadcast_select: the broadcast shape, on_true's element type. */
static int infer_chlo_broadcast_select(Context *c, const Op *op, Type **out, int max_out) {
  Type *t = rule_shape_of(c, op, 1);
  return t ? emit1(c, op, out, max_out, t) : -1;
}

/* chlo.broadcast_compare: i1 of the broadcast shape. */
static int infer_chlo_broadcast_compare(Context *c, const Op *op, Type **out, int max_out) {
  Type *t = rule_shape_of(c, op, 0);
  return t ? emit1(c, op, out, max_out, with_elem(c, t, ELEM_I1)) : -1;
}

/* chlo.broadcast_complex: complex of the parts' type, broadcast shape (the
 * rule checks that the parts are f32 or f64). */
static int infer_chlo_broadcast_complex(Context *c, const Op *op, Type **out, int max_out) {
  Type *t = rule_shape_of(c, op, 0);
  if (!t) return -1;
  if (t->elem != ELEM_F32 && t->elem != ELEM_F64) {
    op_error(c, op, "cannot infer the complex type of parts '%s'", vo_type_str(c, operand(op, 0)));
    return -1;
  }
  return emit1(c, op, out, max_out, with_elem(c, t, t->elem == ELEM_F64 ? ELEM_C128 : ELEM_C64));
}

/* reduce, reduce_window: N inputs and N init values; result i has the
 * rule's shape and the element type the body returns as value i. */
static int infer_reduce(Context *c, const Op *op, Type **out, int max_out) {
  int n = op->noperands / 2;
  InferSink *s = rule_shapes(c, op, n);
  if (!s) return -1;
  Type **t = arena_alloc(&c->arena, sizeof(Type *) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    const Type *rt = region_return_type(c, op, 0, i);
    if (!rt) return -1;
    if (!vo_is_tensor(rt)) rt = operand(op, i);
    t[i] = tensor_of(c, rt, s->rank[i], s->dims[i]);
  }
  return emit(c, op, out, max_out, n, t);
}

/* all_to_all: the rule's shape of each operand, split and concatenated. */
static int infer_all_to_all(Context *c, const Op *op, Type **out, int max_out) {
  int n = op->noperands;
  for (int i = 0; i < n; i++)
    if (!tensor_operand(c, op, i)) return -1;
  InferSink *s = rule_shapes(c, op, n);
  if (!s) return -1;
  Type **t = arena_alloc(&c->arena, sizeof(Type *) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) t[i] = tensor_of(c, operand(op, i), s->rank[i], s->dims[i]);
  return emit(c, op, out, max_out, n, t);
}

/* chlo.top_k: values (the operand's element type) and i32 indices of the
 * rule's shape (the last dimension k). */
static int infer_top_k(Context *c, const Op *op, Type **out, int max_out) {
  if (!tensor_operand(c, op, 0)) return -1;
  InferSink *s = rule_shapes(c, op, 2);
  if (!s) return -1;
  Type *t[2] = {tensor_of(c, operand(op, 0), s->rank[0], s->dims[0]),
                type_tensor(c, ELEM_I32, s->rank[1], s->dims[1], NULL)};
  return emit(c, op, out, max_out, 2, t);
}

/* ------------------------------------------------------------------ */
/* Rules of their own. */

/* fft: FFT / IFFT keep the type; RFFT gives complex with the last
 * dimension fft_length[-1] / 2 + 1; IRFFT the real part type with the last
 * dimension fft_length[-1] (C2, C5 of fft). */
static int infer_fft(Context *c, const Op *op, Type **out, int max_out) {
  if (!run_rule(c, op, NULL) || !tensor_operand(c, op, 0)) return -1;
  const Type *in = operand(op, 0);
  const char *ty = attr_enum_value(op_attr(op, "fft_type"));
  I64List len;
  if (!ty || vo_i64_list_attr(c, op, "fft_length", true, &len) != AR_OK || len.n < 1) return -1;
  bool rfft = !strcmp(ty, "RFFT"), irfft = !strcmp(ty, "IRFFT");
  if (!rfft && !irfft) return emit1(c, op, out, max_out, (Type *)in);
  if (!vo_is_ranked(in) || in->rank < 1 || !vo_builtin_elem(in)) {
    op_error(c, op, "cannot infer the %s result type of '%s'", ty, vo_type_str(c, in));
    return -1;
  }
  ElemKind e = in->elem;
  if (rfft) e = e == ELEM_F32 ? ELEM_C64 : e == ELEM_F64 ? ELEM_C128 : ELEM_COUNT;
  else e = elem_is_complex(e) ? elem_complex_part(e) : ELEM_COUNT;
  if (e == ELEM_COUNT) {
    op_error(c, op, "%s cannot take operand '%s'", ty, vo_type_str(c, in));
    return -1;
  }
  int64_t *d = arena_dup(&c->arena, in->dims, sizeof(int64_t) * (size_t)in->rank);
  int64_t last = len.v[len.n - 1];
  d[in->rank - 1] = rfft ? (last == 0 ? 0 : last / 2 + 1) : last;
  return emit1(c, op, out, max_out, type_tensor(c, e, in->rank, d, NULL));
}

/* scatter: the types of its N inputs (operands 0..N-1). */
static int infer_scatter(Context *c, const Op *op, Type **out, int max_out) {
  if (!run_rule(c, op, NULL)) return -1;
  int n = (op->noperands - 1) / 2;
  return emit(c, op, out, max_out, n, types_of(c, op, 0, n));
}

/* if, case: the types the first branch returns (the rule, which compares
 * every branch with the results, needs results; the branches are checked
 * against each other when the op is verified). */
static int infer_branches(Context *c, const Op *op, Type **out, int max_out) {
  const Op *ret = vo_block_return(vo_region_block(op, 0));
  if (!ret) {
    op_error(c, op, "cannot infer its result types: its first branch does not end with 'stablehlo.return'");
    return -1;
  }
  for (int r = 1; r < op->nregions; r++) {
    const Op *other = vo_block_return(vo_region_block(op, r));
    bool same = other && other->noperands == ret->noperands;
    for (int i = 0; same && i < ret->noperands; i++) same = vo_types_compatible(operand(ret, i), operand(other, i));
    if (!same) {
      op_error(c, op, "cannot infer its result types: branch #%d does not return the types of branch #0", r);
      return -1;
    }
  }
  return emit(c, op, out, max_out, ret->noperands, types_of(c, ret, 0, ret->noperands));
}

static int infer_tuple(Context *c, const Op *op, Type **out, int max_out) {
  return emit1(c, op, out, max_out, type_tuple(c, op->noperands, types_of(c, op, 0, op->noperands)));
}

static int infer_get_tuple_element(Context *c, const Op *op, Type **out, int max_out) {
  const Type *tu = operand(op, 0);
  int64_t index;
  if (vo_int_attr(c, op, "index", true, &index) != AR_OK) return -1;
  if (tu->kind != TY_TUPLE || index < 0 || index >= tu->ninputs) {
    op_error(c, op, "index %" PRId64 " is out of range for '%s'", index, vo_type_str(c, tu));
    return -1;
  }
  return emit1(c, op, out, max_out, tu->inputs[index]);
}

/* after_all, create_token, outfeed, send: a token. */
static int infer_token(Context *c, const Op *op, Type **out, int max_out) {
  if (!run_rule(c, op, NULL)) return -1;
  return emit1(c, op, out, max_out, type_token(c));
}

/* replica_id, partition_id: tensor<ui32>; get_dimension_size: tensor<i32>. */
static int infer_process_id(Context *c, const Op *op, Type **out, int max_out) {
  return emit1(c, op, out, max_out, type_scalar_tensor(c, ELEM_UI32));
}

static int infer_dimension_size(Context *c, const Op *op, Type **out, int max_out) {
  if (!run_rule(c, op, NULL)) return -1;
  return emit1(c, op, out, max_out, type_scalar_tensor(c, ELEM_I32));
}

/* batch_norm_inference: the operand's type; batch_norm_training (output,
 * batch_mean, batch_var) and batch_norm_grad (grad_operand, grad_scale,
 * grad_offset): the operand's type, then twice the scale's (the feature
 * dimension's size). */
static int infer_batch_norm(Context *c, const Op *op, Type **out, int max_out) {
  if (!run_rule(c, op, NULL)) return -1;
  Type *t[3] = {(Type *)operand(op, 0), (Type *)operand(op, 1), (Type *)operand(op, 1)};
  return emit(c, op, out, max_out, op_info[op->kind].num_results, t);
}

/* The element type of a reduction's result I: the one its computation
 * returns, to which the operand is promoted (all_reduce C6, reduce_scatter
 * C8), else operand I's. */
static const Type *reduced_elem_of(const Op *op, int i) {
  const Op *ret = op->nregions > 0 ? vo_block_return(vo_region_block(op, 0)) : NULL;
  const Type *rt = ret && ret->noperands > 0 ? operand(ret, 0) : NULL;
  return vo_is_tensor(rt) ? rt : operand(op, i);
}

/* all_reduce: each operand's shape, the computation's element type. */
static int infer_all_reduce(Context *c, const Op *op, Type **out, int max_out) {
  if (!run_rule(c, op, NULL)) return -1;
  int n = op->noperands;
  Type **t = types_of(c, op, 0, n);
  for (int i = 0; i < n; i++) {
    const Type *e = reduced_elem_of(op, i);
    if (vo_is_tensor(t[i]) && !vo_elems_compatible(e, t[i])) t[i] = tensor_of(c, e, t[i]->rank, t[i]->dims);
  }
  return emit(c, op, out, max_out, n, t);
}

/* all_gather (MUL) and reduce_scatter (!MUL): each operand's shape with
 * dimension ATTR multiplied / divided by the process groups' size, known
 * when they are the replica groups; reduce_scatter's element type is its
 * computation's. */
static int group_scaled(Context *c, const Op *op, Type **out, int max_out, const char *attr, bool mul) {
  if (!run_rule(c, op, NULL)) return -1;
  int64_t dim, gs = vo_replica_group_size(c, op, true);
  if (vo_int_attr(c, op, attr, true, &dim) != AR_OK) return -1;
  if (gs <= 0) {
    op_error(c, op, "cannot infer its result types without the size of its replica groups");
    return -1;
  }
  if (!vo_groups_exact(op)) {
    op_error(c, op, "cannot infer its result types: its process groups span the partitions too "
             "(cross_replica_and_partition mode); give the result types");
    return -1;
  }
  int n = op->noperands;
  Type **t = arena_alloc(&c->arena, sizeof(Type *) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    const Type *in = operand(op, i);
    if (!vo_is_ranked(in) || dim < 0 || dim >= in->rank) {
      op_error(c, op, "cannot infer result #%d from operand '%s' and %s %" PRId64, i, vo_type_str(c, in), attr, dim);
      return -1;
    }
    int64_t *d = arena_dup(&c->arena, in->dims, sizeof(int64_t) * (size_t)in->rank);
    if (mul && vo_dim_known(d[dim]) && (__int128)d[dim] * gs > INT64_MAX) {
      op_error(c, op, "gathered dimension %" PRId64 " of size %" PRId64 " times %" PRId64 " is too large", dim, d[dim],
               gs);
      return -1;
    }
    if (vo_dim_known(d[dim])) d[dim] = mul ? d[dim] * gs : d[dim] / gs;
    t[i] = tensor_of(c, mul ? in : reduced_elem_of(op, i), in->rank, d);
  }
  return emit(c, op, out, max_out, n, t);
}

static int infer_all_gather(Context *c, const Op *op, Type **out, int max_out) {
  return group_scaled(c, op, out, max_out, "all_gather_dim", true);
}

static int infer_reduce_scatter(Context *c, const Op *op, Type **out, int max_out) {
  return group_scaled(c, op, out, max_out, "scatter_dimension", false);
}

/* ------------------------------------------------------------------ */
/* Futures. */

/* async_start: the future of its body's returned types (C4). */
static int infer_future_start(Context *c, const Op *op, Type **out, int max_out) {
  if (!run_rule(c, op, NULL)) return -1;
  const Block *b = vo_region_block(op, 0);
  const Op *ret = b ? b->last : NULL;
  if (!ret) {
    op_error(c, op, "cannot infer its result type without a body");
    return -1;
  }
  Type **el = arena_alloc(&c->arena, sizeof(Type *) * (size_t)(ret->noperands + 1));
  for (int i = 0; i < ret->noperands; i++) el[i] = ret->operands[i]->type;
  return emit1(c, op, out, max_out, type_future(c, ret->noperands, el));
}

/* async_done: the types its future holds (C1). */
static int infer_future_done(Context *c, const Op *op, Type **out, int max_out) {
  if (!run_rule(c, op, NULL)) return -1;
  const Type *f = operand(op, 0);
  return emit(c, op, out, max_out, f->ninputs, f->inputs);
}
