/* refine-shapes: makes a program with unbounded dimensions static from the
 * concrete types of its entry function's arguments (passes/refine.h), as
 * StableHLO's stablehlo-refine-shapes does (docs/shape-refinement.md).
 *
 * One forward sweep over each function body in program order: every op's
 * result types are met with what its operands now give (ir/infer.c, or the
 * rules below for ops without inference), small integer shape computations
 * are folded to constants as soon as their operands are (passes/fold.c), a
 * dynamic op whose shape operands became constants is rewritten into its
 * static form, get_dimension_size of a static dimension becomes its size,
 * and a custom_call @shape_assertion whose predicate is a constant is
 * dropped (true) or reported (false).  A call is refined by a specialized
 * copy of its callee (with the constant scalar operands, the dimension
 * variables, substituted); while, if and case through their regions;
 * function types from what their bodies return.  A value whose type is
 * still unbounded at the end is a located error naming its op. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/limits.h"
#include "ir/table.h"
#include "ir/verify_ops.h"
#include "passes/fold.h"
#include "passes/pass.h"
#include "passes/refine.h"
#include "passes/walk.h"

/* Shape computations with at most this many elements are folded. */
#define REFINE_FOLD_MAX 64
/* Nested call specializations, past which a (recursive) call is an error. */
#define REFINE_MAX_DEPTH 32

typedef struct Refiner {
  Context *c;
  Module *m;
  int depth;
  int clones;       /* specialized callees made, for their names */
  PtrVec callees;   /* functions specialized (erased at the end when unused) */
  Table specialized; /* call signature (callee, operand types, constant scalars) -> its specialized copy */
} Refiner;

/* ------------------------------------------------------------------ */
/* Argument specs */

/* Parses "AxBx...xELEM" (n bytes); false when it is not one. */
static bool parse_type_text(const char *s, size_t n, RefineArg *out) {
  const char *p = s, *end = s + n;
  out->rank = 0;
  for (;;) {
    const char *q = p;
    int64_t v = 0;
    while (q < end && *q >= '0' && *q <= '9') {
      if (v > (INT64_MAX - 9) / 10) return false;
      v = v * 10 + (*q++ - '0');
    }
    if (q == p || q == end || *q != 'x') break;
    if (out->rank == REFINE_MAX_RANK) return false;
    out->dims[out->rank++] = v;
    p = q + 1;
  }
  return elem_from_name(p, (size_t)(end - p), &out->elem);
}

bool refine_parse_arg(const char *spec, RefineArg *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  const char *eq = strchr(spec, '=');
  size_t n = eq ? (size_t)(eq - spec) : strlen(spec);
  if (!parse_type_text(spec, n, out)) {
    snprintf(err, errlen, "bad shape '%.*s' (expected e.g. 3x4xf32, f32 or i64=3)", (int)(n > 80 ? 80 : n), spec);
    return false;
  }
  out->known = true;
  if (eq && out->rank == 0 && elem_is_int(out->elem)) {
    char *stop;
    errno = 0;
    long long v = strtoll(eq + 1, &stop, 10); /* decimal, as tpurun reads the value it passes */
    if (stop == eq + 1 || *stop) return true;  /* not a plain integer: the value is data */
    int w = elem_bits(out->elem);
    bool fits = errno != ERANGE && (elem_is_unsigned(out->elem) ? v >= 0 && (w >= 63 || v < (1LL << w))
                                                                : w >= 64 || (v >= -(1LL << (w - 1)) && v < (1LL << (w - 1))));
    if (!fits) {
      snprintf(err, errlen, "value '%.40s' does not fit %s", eq + 1, elem_name(out->elem));
      return false;
    }
    out->has_value = true, out->value = v;
  }
  return true;
}

/* ------------------------------------------------------------------ */
/* Types */

/* An unbounded type: a tensor with a '?' and no bounds encoding, or unranked. */
static bool unbounded(const Type *t) {
  if (!t || t->kind != TY_TENSOR || t->encoding) return false;
  return t->rank < 0 || !type_is_static(t);
}

/* Whether a value of block b (nested blocks included) is unbounded. */
static bool block_unbounded(const Block *b) {
  for (int i = 0; i < b->nargs; i++)
    if (unbounded(b->args[i].type)) return true;
  for (const Op *op = b->first; op; op = op->next) {
    for (int i = 0; i < op->nresults; i++)
      if (unbounded(op->results[i].type)) return true;
    for (int k = 0; k < op->nregions; k++)
      for (int j = 0; j < op->regions[k].nblocks; j++)
        if (block_unbounded(op->regions[k].blocks[j])) return true;
  }
  return false;
}

bool refine_needed(const Module *m, const char *entry, int *arg) {
  Op *f = module_lookup_func(m, entry ? entry : "main");
  const Attr *ft = f ? op_attr(f, "function_type") : NULL;
  if (!ft || ft->kind != ATTR_TYPE || ft->type->kind != TY_FUNC) return false;
  for (int i = 0; i < ft->type->ninputs; i++)
    if (unbounded(ft->type->inputs[i])) return *arg = i, true;
  for (int i = 0; i < ft->type->nresults; i++)
    if (unbounded(ft->type->results[i])) return *arg = -1, true;
  *arg = -1;
  FOR_EACH_FUNC(m, g) /* a dynamic op inside, e.g. shapes from dimension variables */
    if (block_unbounded(op_body(g))) return true;
  return false;
}

/* A tensor of rank/dims with the element type of like. */
static Type *tensor_like(Context *c, const Type *like, int rank, const int64_t *dims) {
  if (like->elem_opaque) return type_tensor_opaque_elem(c, like->elem_opaque, rank, dims, NULL);
  return type_tensor(c, like->elem, rank, dims, NULL);
}

/* have met with what the operands give (got): have's static dims stay,
 * its '?' take got's; NULL when they disagree on a static dim. */
static Type *meet(Context *c, Type *have, const Type *got) {
  if (!got || got->kind != TY_TENSOR || got->rank < 0 || have->kind != TY_TENSOR || have->encoding) return have;
  if (!unbounded(have)) { /* static: got must not contradict it */
    if (got->encoding || !type_is_static(got)) return have;
    return type_same_dims(got, have) ? have : NULL;
  }
  if (have->rank >= 0 && have->rank != got->rank) return NULL;
  int64_t dims[REFINE_MAX_RANK + 1];
  if (got->rank > REFINE_MAX_RANK) return have;
  for (int i = 0; i < got->rank; i++) {
    int64_t h = have->rank < 0 ? DIM_DYNAMIC : have->dims[i];
    if (h != DIM_DYNAMIC && got->dims[i] != DIM_DYNAMIC && h != got->dims[i]) return NULL;
    dims[i] = h != DIM_DYNAMIC ? h : got->dims[i];
  }
  if (got->encoding) return have; /* a bounded dim stays as it is */
  return tensor_like(c, have, got->rank, dims);
}

/* Sets value v's type to its meet with got; false after an error on op. */
static bool refine_value(Refiner *r, Op *op, Value *v, const Type *got, const char *what, int i) {
  Type *t = meet(r->c, v->type, got);
  if (!t) {
    op_error(r->c, op, "%s #%d has type %s, but the refined operands give %s", what, i, type_to_string(r->c, v->type),
             type_to_string(r->c, got));
    return false;
  }
  v->type = t;
  return true;
}

/* ------------------------------------------------------------------ */
/* Constants */

/* The integer elements (row-major) of a known constant of rank 0 to 2 (a
 * scalar, a shape, convolution padding), at most max; -1 when v is not one. */
static int const_ints(const Value *v, int64_t *out, int max) {
  const Attr *a = fold_known_value(v);
  if (!a || !elem_is_int(a->type->elem) || a->type->rank > 2) return -1;
  int64_t n = dense_num_elements(a);
  if (n < 0 || n > max) return -1;
  for (int64_t i = 0; i < n; i++) out[i] = dense_get_int(a, i);
  return (int)n;
}

/* A new constant before at (its location) with value a. */
static Value *constant_before(Context *c, Op *at, Attr *a) {
  NamedAttr na = {"value", a};
  Op *k = op_build(c, OP_CONSTANT, at->loc, 0, NULL, a->type, 1, &na);
  k->srcloc = at->srcloc;
  op_insert_before(at, k);
  return &k->results[0];
}

/* A dense tensor<N x 2 x i64> of pairs (convolution padding). */
static Attr *dense_pairs(Context *c, int n, const int64_t *lo, const int64_t *hi) {
  int64_t dims[2] = {n, 2};
  int64_t *data = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(2 * n + 1));
  for (int i = 0; i < n; i++) data[2 * i] = lo[i], data[2 * i + 1] = hi[i];
  return attr_dense_raw(c, type_tensor(c, ELEM_I64, 2, dims, NULL), data, sizeof(int64_t) * (size_t)(2 * n), false);
}

/* ------------------------------------------------------------------ */
/* Static forms of the dynamic ops */

typedef struct StaticForm {
  OpKind kind;
  int noperands;
  Value *operands[2];
  int nattrs;
  NamedAttr attrs[16];
  Type *type; /* the result type; NULL: inferred */
} StaticForm;

static void add_attr(StaticForm *s, const char *name, Attr *a) {
  if (s->nattrs < 16) s->attrs[s->nattrs++] = (NamedAttr){name, a};
}

/* op's attributes but the named one, into s. */
static void copy_attrs_but(StaticForm *s, const Op *op, const char *skip) {
  for (int i = 0; i < op->nattrs; i++)
    if (!skip || strcmp(op->attrs[i].name, skip) != 0) add_attr(s, op->attrs[i].name, op->attrs[i].value);
}

/* The result type given by a constant shape operand v. */
static Type *shape_type(Context *c, const Op *op, const Value *v) {
  int64_t dims[REFINE_MAX_RANK];
  int n = const_ints(v, dims, REFINE_MAX_RANK);
  const Type *rt = op->results[0].type;
  if (n < 0 || rt->kind != TY_TENSOR || (rt->rank >= 0 && rt->rank != n)) return NULL;
  for (int i = 0; i < n; i++)
    if (dims[i] < 0) return NULL;
  return tensor_like(c, rt, n, dims);
}

/* Three constant lists of the operand's rank (pad, slice amounts). */
static bool const_lists(const Op *op, int first, int rank, int64_t (*l)[REFINE_MAX_RANK]) {
  for (int k = 0; k < 3; k++)
    if (rank > REFINE_MAX_RANK || const_ints(op->operands[first + k], l[k], REFINE_MAX_RANK) != rank) return false;
  return true;
}

/* What the static form of op is, when its shape operands are constants. */
static bool static_form_of(Context *c, const Op *op, StaticForm *s) {
  memset(s, 0, sizeof *s);
  const Type *xt = op->noperands ? op->operands[0]->type : NULL;
  int rank = xt && xt->kind == TY_TENSOR ? xt->rank : -1;
  int64_t l[3][REFINE_MAX_RANK];
  switch (op->kind) {
  case OP_DYNAMIC_BROADCAST_IN_DIM:
    *s = (StaticForm){.kind = OP_BROADCAST_IN_DIM, .noperands = 1, .operands = {op->operands[0]}};
    add_attr(s, "broadcast_dimensions", (Attr *)op_attr(op, "broadcast_dimensions"));
    return s->attrs[0].value && (s->type = shape_type(c, op, op->operands[1]));
  case OP_DYNAMIC_RESHAPE:
    *s = (StaticForm){.kind = OP_RESHAPE, .noperands = 1, .operands = {op->operands[0]}};
    return (s->type = shape_type(c, op, op->operands[1])) != NULL;
  case OP_DYNAMIC_IOTA:
    *s = (StaticForm){.kind = OP_IOTA};
    copy_attrs_but(s, op, NULL);
    return (s->type = shape_type(c, op, op->operands[0])) != NULL;
  case OP_DYNAMIC_PAD:
    if (rank < 0 || !const_lists(op, 2, rank, l)) return false;
    *s = (StaticForm){.kind = OP_PAD, .noperands = 2, .operands = {op->operands[0], op->operands[1]}};
    add_attr(s, "edge_padding_low", attr_dense_i64_array(c, rank, l[0]));
    add_attr(s, "edge_padding_high", attr_dense_i64_array(c, rank, l[1]));
    add_attr(s, "interior_padding", attr_dense_i64_array(c, rank, l[2]));
    return true;
  case OP_REAL_DYNAMIC_SLICE:
    if (rank < 0 || !const_lists(op, 1, rank, l)) return false;
    *s = (StaticForm){.kind = OP_SLICE, .noperands = 1, .operands = {op->operands[0]}};
    add_attr(s, "start_indices", attr_dense_i64_array(c, rank, l[0]));
    add_attr(s, "limit_indices", attr_dense_i64_array(c, rank, l[1]));
    add_attr(s, "strides", attr_dense_i64_array(c, rank, l[2]));
    return true;
  case OP_DYNAMIC_GATHER: {
    int n = const_ints(op->operands[2], l[0], REFINE_MAX_RANK);
    if (n < 0) return false;
    *s = (StaticForm){.kind = OP_GATHER, .noperands = 2, .operands = {op->operands[0], op->operands[1]}};
    copy_attrs_but(s, op, "slice_sizes");
    add_attr(s, "slice_sizes", attr_dense_i64_array(c, n, l[0]));
    return true;
  }
  case OP_DYNAMIC_CONV: {
    int64_t pad[2 * REFINE_MAX_RANK];
    int n = const_ints(op->operands[2], pad, 2 * REFINE_MAX_RANK);
    if (n < 0 || n % 2) return false;
    for (int i = 0; i < n / 2; i++) l[0][i] = pad[2 * i], l[1][i] = pad[2 * i + 1];
    *s = (StaticForm){.kind = OP_CONVOLUTION, .noperands = 2, .operands = {op->operands[0], op->operands[1]}};
    copy_attrs_but(s, op, "padding");
    add_attr(s, "padding", dense_pairs(c, n / 2, l[0], l[1]));
    return true;
  }
  default: return false;
  }
}

/* The static form's result type (inferred when s->type is NULL); NULL
 * when its operands are not static yet or are inconsistent (reported on
 * op when report). */
static Type *static_form_type(Context *c, const Op *op, StaticForm *s, bool report) {
  for (int i = 0; i < s->noperands; i++)
    if (!type_is_static(s->operands[i]->type)) return NULL;
  if (s->type) return s->type;
  Attr *d = attr_dict(c, s->nattrs, s->attrs);
  Op view = {.kind = s->kind, .name = op_info[s->kind].name, .loc = op->loc, .noperands = s->noperands,
             .operands = s->operands, .nattrs = d->u.dict.n, .attrs = d->u.dict.items};
  Type *t = NULL;
  bool quiet = c->diag.quiet;
  int errors = c->diag.nerrors;
  c->diag.quiet = !report;
  int n = infer_result_types(c, &view, &t, 1);
  c->diag.quiet = quiet;
  if (!report) c->diag.nerrors = errors;
  return n == 1 && type_is_static(t) ? tensor_like(c, op->results[0].type, t->rank, t->dims) : NULL;
}

/* Whether a and b compute the same value: the same value, or equal pure
 * region-free ops of equal operands (to depth levels). */
static bool same_value(const Value *a, const Value *b, int depth) {
  if (a == b) return true;
  const Op *x = a->def, *y = b->def;
  if (!x || !y || depth == 0 || x->kind != y->kind || a->type != b->type || a->index != b->index || x->nregions ||
      y->nregions || x->noperands != y->noperands || x->nattrs != y->nattrs || !op_is_pure(x))
    return false;
  for (int i = 0; i < x->nattrs; i++)
    if (strcmp(x->attrs[i].name, y->attrs[i].name) != 0 || !attr_equal(x->attrs[i].value, y->attrs[i].value))
      return false;
  for (int i = 0; i < x->noperands; i++)
    if (!same_value(x->operands[i], y->operands[i], depth - 1)) return false;
  return true;
}

/* real_dynamic_slice(x, start, start + K, 1s) with constant K: a
 * dynamic_slice of sizes K at the runtime start (upstream's rewrite). */
static Value *slice_of_constant_size(Context *c, Op *op) {
  const Type *xt = op->operands[0]->type, *st = op->operands[1]->type;
  Op *lim = op->operands[2]->def;
  int64_t k[REFINE_MAX_RANK], one[REFINE_MAX_RANK];
  int rank = xt->kind == TY_TENSOR ? xt->rank : -1;
  if (rank < 1 || !type_is_static(xt) || !lim || lim->kind != OP_ADD || st->kind != TY_TENSOR ||
      const_ints(op->operands[3], one, REFINE_MAX_RANK) != rank)
    return NULL;
  for (int i = 0; i < rank; i++)
    if (one[i] != 1) return NULL;
  int side = same_value(lim->operands[0], op->operands[1], 8) ? 1 : same_value(lim->operands[1], op->operands[1], 8) ? 0 : -1;
  if (side < 0 || const_ints(lim->operands[side], k, REFINE_MAX_RANK) != rank) return NULL;
  Value *ops[REFINE_MAX_RANK + 1] = {op->operands[0]};
  Type *scalar = type_scalar_tensor(c, st->elem), *one_t = type_tensor(c, st->elem, 1, (int64_t[]){1}, NULL);
  for (int i = 0; i < rank; i++) {
    int64_t lo = i, hi = i + 1, stride = 1;
    NamedAttr sa[3] = {{"limit_indices", attr_dense_i64_array(c, 1, &hi)},
                       {"start_indices", attr_dense_i64_array(c, 1, &lo)},
                       {"strides", attr_dense_i64_array(c, 1, &stride)}};
    Value *start = op->operands[1], *piece;
    Op *sl = op_build(c, OP_SLICE, op->loc, 1, &start, one_t, 3, sa);
    op_insert_before(op, sl);
    piece = &sl->results[0];
    Op *rs = op_build(c, OP_RESHAPE, op->loc, 1, &piece, scalar, 0, NULL);
    op_insert_before(op, rs);
    ops[i + 1] = &rs->results[0];
  }
  NamedAttr na = {"slice_sizes", attr_dense_i64_array(c, rank, k)};
  Op *ds = op_build(c, OP_DYNAMIC_SLICE, op->loc, rank + 1, ops, tensor_like(c, op->results[0].type, rank, k), 1, &na);
  ds->srcloc = op->srcloc;
  op_insert_before(op, ds);
  return &ds->results[0];
}

/* Builds the static form of op before it, with result type t. */
static Value *build_static(Context *c, Op *op, const StaticForm *s, Type *t) {
  Op *n = op_create(c, s->kind, NULL, op->loc, s->noperands, (Value **)s->operands, 1, &t, s->nattrs,
                    (NamedAttr *)s->attrs, 0);
  n->srcloc = op->srcloc;
  n->results[0].name_hint = op->results[0].name_hint;
  op_insert_before(op, n);
  return &n->results[0];
}

Value *refine_static_form(Context *c, Op *op) {
  StaticForm s;
  if (op->nresults != 1 || !type_is_static(op->results[0].type) || !static_form_of(c, op, &s)) return NULL;
  Type *t = static_form_type(c, op, &s, false);
  return t == op->results[0].type ? build_static(c, op, &s, t) : NULL;
}

/* ------------------------------------------------------------------ */
/* Ops */

static bool refine_block(Refiner *r, Block *b);
static bool refine_function(Refiner *r, Op *f);

/* The result shape of ops without inference whose shape follows from
 * their operands: element-wise ones (convert, ...) and a reshape with one
 * '?' of a static operand. */
static const Type *uninferred_shape(Context *c, const Op *op) {
  const Type *x = op->noperands ? op->operands[0]->type : NULL;
  if (!x || !type_is_static(x)) return NULL;
  if (op_info[op->kind].traits & TRAIT_ELEMENTWISE) return x;
  const Type *rt = op->results[0].type;
  if (op->kind == OP_BITCAST_CONVERT && !x->elem_opaque && !rt->elem_opaque && x->rank < REFINE_MAX_RANK) {
    int from = elem_bits(x->elem), to = elem_bits(rt->elem);
    int64_t dims[REFINE_MAX_RANK];
    memcpy(dims, x->dims, sizeof(int64_t) * (size_t)x->rank);
    if (from == to) return x;
    if (from > to && from % to == 0) return dims[x->rank] = from / to, tensor_like(c, rt, x->rank + 1, dims);
    return from < to && x->rank > 0 ? tensor_like(c, rt, x->rank - 1, dims) : NULL;
  }
  if (op->kind != OP_RESHAPE || rt->rank < 0 || rt->rank > REFINE_MAX_RANK) return NULL;
  int64_t count = 1, known = 1, dims[REFINE_MAX_RANK];
  int unknown = -1;
  type_tensor_num_elements(x, &count);
  for (int i = 0; i < rt->rank; i++) {
    dims[i] = rt->dims[i];
    if (dims[i] == DIM_DYNAMIC) {
      if (unknown >= 0) return NULL;
      unknown = i;
    } else {
      known *= dims[i];
    }
  }
  if (unknown < 0 || known == 0 || count % known) return NULL;
  dims[unknown] = count / known;
  return tensor_like(c, rt, rt->rank, dims);
}

/* Meets op's results with what inference (or uninferred_shape) gives. */
static bool refine_results(Refiner *r, Op *op) {
  Context *c = r->c;
  bool any = false;
  for (int i = 0; i < op->nresults; i++) any |= unbounded(op->results[i].type);
  if (!any) return true;
  Type *got[64];
  int n = -1;
  if (op_has_inference(op->kind) && op->nresults <= 64) {
    bool quiet = c->diag.quiet;
    int errors = c->diag.nerrors;
    c->diag.quiet = true;
    n = infer_result_types(c, op, got, 64);
    c->diag.quiet = quiet;
    c->diag.nerrors = errors;
  } else if (op->nresults == 1 && (got[0] = (Type *)uninferred_shape(c, op))) {
    n = 1;
  }
  if (n != op->nresults) return true;
  for (int i = 0; i < n; i++)
    if (!refine_value(r, op, &op->results[i], got[i], "result", i)) return false;
  return true;
}

/* Folds a small integer computation whose operands are constants (and
 * get_dimension_size of a static dimension) into a constant. */
static void fold_small(Refiner *r, Op *op) {
  Context *c = r->c;
  if (op->nresults != 1 || op->nregions || op->kind == OP_CONSTANT || !op_is_pure(op)) return;
  Type *t = op->results[0].type;
  int64_t n;
  if (!type_tensor_num_elements(t, &n) || n > REFINE_FOLD_MAX || t->elem_opaque || t->encoding) return;
  Attr *a = NULL;
  int32_t size;
  if (op->kind == OP_GET_DIMENSION_SIZE && t->elem == ELEM_I32 && static_dimension_size(op, &size)) {
    a = fold_splat(c, t, (uint64_t)(uint32_t)size);
  } else if (elem_is_int(t->elem)) {
    const Attr *vals[op->noperands ? op->noperands : 1];
    for (int i = 0; i < op->noperands; i++)
      if (!(vals[i] = fold_known_value(op->operands[i]))) return;
    a = fold_op(c, op, vals);
  }
  if (!a) return;
  value_replace_all_uses(c, &op->results[0], constant_before(c, op, a));
  op_erase(op);
}

/* A JAX shape assertion: custom_call @shape_assertion(pred, dims...). */
static bool is_shape_assertion(const Op *op) {
  const Attr *t = op->kind == OP_CUSTOM_CALL ? op_attr(op, "call_target_name") : NULL;
  return t && t->kind == ATTR_STRING && strcmp(t->u.str.s, "shape_assertion") == 0;
}

/* The assertion's error_message with {i} replaced by dim operand i+1's
 * value (or '?' when it is not a constant). */
static char *assertion_message(Context *c, const Op *op) {
  const Attr *m = op_attr(op, "error_message");
  const char *s = m && m->kind == ATTR_STRING ? m->u.str.s : "shape assertion failed";
  size_t cap = strlen(s) + 1, n = 0;
  for (const char *p = s; *p; p++) cap += *p == '{' ? 21 : 0; /* room for each value */
  char *out = arena_alloc(&c->arena, cap);
  for (const char *p = s; *p;) {
    const char *stop;
    long i = tpu_message_placeholder(p, (long)op->noperands - 1, &stop);
    if (i >= 0) {
      int64_t v;
      n += (size_t)(const_ints(op->operands[i + 1], &v, 1) == 1 ? snprintf(out + n, cap - n, "%" PRId64, v)
                                                                  : snprintf(out + n, cap - n, "?"));
      p = stop;
    } else {
      out[n++] = *p++;
    }
  }
  out[n] = 0;
  return out;
}

int refine_fold_assertion(Context *c, Op *op) {
  int64_t v;
  if (!is_shape_assertion(op) || op->noperands < 1 || const_ints(op->operands[0], &v, 1) != 1) return 0;
  if (!v) {
    op_error(c, op, "shape assertion failed: %s", assertion_message(c, op));
    return -1;
  }
  if (!op_results_unused(op)) return 0;
  op_erase(op);
  return 1;
}

/* Replaces the uses of block argument i with a copy of constant k. */
static void substitute_constant(Context *c, Block *b, int i, const Attr *k) {
  if (!b->args[i].uses) return;
  NamedAttr na = {"value", (Attr *)k};
  Op *op = op_build(c, OP_CONSTANT, b->loc, 0, NULL, k->type, 1, &na);
  if (b->first) op_insert_before(b->first, op);
  else op_append(b, op);
  value_replace_all_uses(c, &b->args[i], &op->results[0]);
}

/* The types a function's body returns (its terminator's operands). */
static Op *terminator(Block *b) { return b && b->last && (op_info[b->last->kind].traits & TRAIT_TERMINATOR) ? b->last : NULL; }

/* The signature a call's specialization depends on, as bytes (arena):
 * the callee, each operand's type and constant integer scalar value. */
static const int64_t *call_signature(Refiner *r, const Op *callee, const Op *op, size_t *len) {
  int64_t *key = arena_alloc(&r->c->arena, sizeof(int64_t) * (size_t)(1 + 3 * op->noperands));
  key[0] = (int64_t)(intptr_t)callee;
  for (int i = 0; i < op->noperands; i++) {
    const Attr *k = fold_known_value(op->operands[i]);
    bool scalar = k && k->type->rank == 0 && elem_is_int(k->type->elem);
    int64_t v = 0;
    if (scalar) const_ints(op->operands[i], &v, 1);
    key[1 + 3 * i] = (int64_t)(intptr_t)op->operands[i]->type;
    key[2 + 3 * i] = scalar;
    key[3 + 3 * i] = v;
  }
  *len = sizeof(int64_t) * (size_t)(1 + 3 * op->noperands);
  return key;
}

/* The call now calls specialization f: its callee and result types. */
static bool call_specialized(Refiner *r, Op *op, Op *f) {
  const char *name = op_symbol_name(f);
  op_set_attr(r->c, op, "callee", attr_symref(r->c, name));
  const Type *ft = op_attr(f, "function_type")->type;
  for (int i = 0; i < op->nresults && i < ft->nresults; i++)
    if (!refine_value(r, op, &op->results[i], ft->results[i], "result", i)) return false;
  return true;
}

/* A call: a copy of the callee specialized to the call's operand types
 * and constant scalar operands (one copy per distinct signature); the
 * call's results take its types. */
static bool refine_call(Refiner *r, Op *op) {
  Context *c = r->c;
  const Attr *ca = op_attr(op, "callee");
  Op *callee = ca && ca->kind == ATTR_SYMREF ? module_lookup_func(r->m, ca->u.str.s) : NULL;
  Block *cb = callee ? op_body(callee) : NULL;
  if (!cb || cb->nargs != op->noperands) return true;
  if (r->depth >= REFINE_MAX_DEPTH) {
    op_error(c, op, "calls nest more than %d deep (recursion?): refine-shapes cannot specialize @%s", REFINE_MAX_DEPTH,
             ca->u.str.s);
    return false;
  }
  size_t klen;
  const int64_t *key = call_signature(r, callee, op, &klen);
  void **done = table_get(&r->specialized, key, klen);
  if (done) return call_specialized(r, op, *done);
  ValueMap map = {0};
  Op *f = op_clone(c, callee, &map);
  const char *name;
  do name = arena_printf(&c->arena, "%s_refined_%d", ca->u.str.s, r->clones++);
  while (module_lookup_func(r->m, name));
  op_set_attr(c, f, "sym_name", attr_string(c, name, strlen(name)));
  op_set_attr(c, f, "sym_visibility", attr_string(c, "private", 7));
  op_insert_after(callee, f);
  vec_push(&r->callees, callee);
  Block *b = op_body(f);
  for (int i = 0; i < b->nargs; i++) {
    const Attr *k = fold_known_value(op->operands[i]);
    if (!refine_value(r, op, &b->args[i], op->operands[i]->type, "operand", i)) return false;
    if (k && k->type->rank == 0 && elem_is_int(k->type->elem) && k->type == b->args[i].type)
      substitute_constant(c, b, i, k);
  }
  r->depth++;
  bool ok = refine_function(r, f);
  r->depth--;
  if (!ok) return false;
  *table_put(&r->specialized, key, klen) = f;
  return call_specialized(r, op, f);
}

/* while: the regions' arguments take the operands' types; the body must
 * give back the same types. */
static bool refine_while(Refiner *r, Op *op) {
  for (int k = 0; k < 2 && k < op->nregions; k++) {
    Block *b = op->regions[k].nblocks ? op->regions[k].blocks[0] : NULL;
    for (int i = 0; b && i < b->nargs && i < op->noperands; i++)
      if (!refine_value(r, op, &b->args[i], op->operands[i]->type, "operand", i)) return false;
    if (b && !refine_block(r, b)) return false;
  }
  Op *ret = op->nregions == 2 && op->regions[1].nblocks ? terminator(op->regions[1].blocks[0]) : NULL;
  for (int i = 0; i < op->nresults && i < op->noperands; i++) {
    if (ret && i < ret->noperands && ret->operands[i]->type != op->operands[i]->type) {
      op_error(r->c, op, "the body turns loop-carried value #%d of type %s into %s: refine-shapes needs the same type",
               i, type_to_string(r->c, op->operands[i]->type), type_to_string(r->c, ret->operands[i]->type));
      return false;
    }
    if (!refine_value(r, op, &op->results[i], op->operands[i]->type, "result", i)) return false;
  }
  return true;
}

/* if, case: results take the type every branch returns. */
static bool refine_branches(Refiner *r, Op *op) {
  for (int k = 0; k < op->nregions; k++)
    for (int j = 0; j < op->regions[k].nblocks; j++)
      if (!refine_block(r, op->regions[k].blocks[j])) return false;
  for (int i = 0; i < op->nresults; i++) {
    const Type *t = NULL;
    for (int k = 0; k < op->nregions; k++) {
      Op *ret = op->regions[k].nblocks ? terminator(op->regions[k].blocks[0]) : NULL;
      const Type *bt = ret && i < ret->noperands ? ret->operands[i]->type : NULL;
      t = k == 0 || bt == t ? bt : NULL;
    }
    if (t && !refine_value(r, op, &op->results[i], t, "result", i)) return false;
  }
  return true;
}

/* Refines one op (it may be replaced). */
static bool refine_op(Refiner *r, Op *op) {
  switch (op->kind) {
  case OP_FUNC_CALL: return refine_call(r, op);
  case OP_WHILE: return refine_while(r, op);
  case OP_IF:
  case OP_CASE: return refine_branches(r, op);
  default: break;
  }
  if (is_shape_assertion(op)) return refine_fold_assertion(r->c, op) >= 0;
  for (int k = 0; k < op->nregions; k++)
    for (int j = 0; j < op->regions[k].nblocks; j++)
      if (!refine_block(r, op->regions[k].blocks[j])) return false;
  StaticForm s;
  if (op->nresults == 1 && static_form_of(r->c, op, &s)) {
    Type *t = static_form_type(r->c, op, &s, false);
    bool operands_static = true;
    for (int i = 0; i < op->noperands; i++) operands_static &= type_is_static(op->operands[i]->type);
    if (!t && operands_static) {
      int errors = r->c->diag.nerrors;
      static_form_type(r->c, op, &s, true); /* the reason, e.g. a slice past the end */
      if (r->c->diag.nerrors == errors) op_error(r->c, op, "refine-shapes could not give it a static shape");
      return false;
    }
    if (t && !meet(r->c, op->results[0].type, t)) {
      op_error(r->c, op, "its shape operands give %s, but its result type is %s", type_to_string(r->c, t),
               type_to_string(r->c, op->results[0].type));
      return false;
    }
    if (t) {
      Value *v = build_static(r->c, op, &s, t);
      int errors = r->c->diag.nerrors;
      verify_op_rules(r->c, v->def); /* e.g. a broadcast to a shape the operand does not fit */
      value_replace_all_uses(r->c, &op->results[0], v);
      op_erase(op);
      return r->c->diag.nerrors == errors;
    }
  }
  Value *ds = op->kind == OP_REAL_DYNAMIC_SLICE ? slice_of_constant_size(r->c, op) : NULL;
  if (ds && meet(r->c, op->results[0].type, ds->type)) {
    value_replace_all_uses(r->c, &op->results[0], ds);
    op_erase(op);
    return true;
  }
  if (!refine_results(r, op)) return false;
  fold_small(r, op);
  return true;
}

static bool refine_block(Refiner *r, Block *b) {
  for (Op *op = b->first, *next; op; op = next) {
    next = op->next;
    if (!refine_op(r, op)) return false;
  }
  return true;
}

/* The first value of block b (nested blocks included) whose type is
 * still unbounded, reported on its op; false when there is one. */
static bool all_static(Context *c, Block *b, Op *owner) {
  for (int i = 0; i < b->nargs; i++)
    if (unbounded(b->args[i].type)) {
      op_error(c, owner, "refine-shapes could not make block argument #%d static: it has type %s", i,
               type_to_string(c, b->args[i].type));
      return false;
    }
  for (Op *op = b->first; op; op = op->next) {
    for (int i = 0; i < op->nresults; i++)
      if (unbounded(op->results[i].type)) {
        op_error(c, op, "refine-shapes could not make result #%d static: it has type %s (its shape depends on values "
                 "known only at run time)", i, type_to_string(c, op->results[i].type));
        return false;
      }
    for (int k = 0; k < op->nregions; k++)
      for (int j = 0; j < op->regions[k].nblocks; j++)
        if (!all_static(c, op->regions[k].blocks[j], op)) return false;
  }
  return true;
}

/* Refines a function's body, checks it is static and sets its type from
 * its arguments and what it returns. */
static bool refine_function(Refiner *r, Op *f) {
  Context *c = r->c;
  Block *b = op_body(f);
  int errors = c->diag.nerrors;
  if (!refine_block(r, b) || !all_static(c, b, f)) return false;
  for (Op *op = b->first; op; op = op->next) /* the refined types are consistent */
    if (op->kind != OP_FUNC_CALL) verify_op_rules(c, op);
  if (c->diag.nerrors != errors) return false;
  const Attr *fa = op_attr(f, "function_type");
  const Type *ft = fa && fa->kind == ATTR_TYPE ? fa->type : NULL;
  Op *ret = terminator(b);
  if (!ft || ft->kind != TY_FUNC || !ret || ret->noperands != ft->nresults) return true;
  Type **in = arena_alloc(&c->arena, sizeof(Type *) * (size_t)(b->nargs + 1));
  Type **out = arena_alloc(&c->arena, sizeof(Type *) * (size_t)(ret->noperands + 1));
  for (int i = 0; i < b->nargs; i++) in[i] = b->args[i].type;
  for (int i = 0; i < ret->noperands; i++) {
    if (!(out[i] = meet(c, ft->results[i], ret->operands[i]->type))) {
      op_error(c, ret, "returns %s as result #%d, declared %s", type_to_string(c, ret->operands[i]->type), i,
               type_to_string(c, ft->results[i]));
      return false;
    }
    if (out[i] != ret->operands[i]->type && type_is_static(out[i])) out[i] = ret->operands[i]->type;
  }
  op_set_attr(c, f, "function_type", attr_type(c, type_func(c, b->nargs, in, ret->noperands, out)));
  return true;
}

/* The entry's arguments take the given types; a dimension variable's
 * value replaces its uses.  False after an error. */
static bool apply_args(Refiner *r, Op *f, const RefineSpec *spec) {
  Context *c = r->c;
  Block *b = op_body(f);
  if (spec->nargs && spec->nargs != b->nargs) {
    op_error(c, f, "takes %d arguments, but %d concrete argument types were given", b->nargs, spec->nargs);
    return false;
  }
  for (int i = 0; i < spec->nargs; i++) {
    const RefineArg *a = &spec->args[i];
    Value *v = &b->args[i];
    const Type *have = v->type;
    if (!a->known || have->kind != TY_TENSOR) continue;
    Type *t = type_tensor(c, a->any_elem && !have->elem_opaque ? have->elem : a->elem, a->rank, a->dims, NULL);
    Type *met = !have->elem_opaque && have->elem == t->elem ? meet(c, v->type, t) : NULL;
    if (!met || (!have->encoding && met != t)) {
      op_error(c, f, "argument #%d has type %s: the given %s does not fit it", i, type_to_string(c, have),
               type_to_string(c, t));
      return false;
    }
    v->type = met;
    if (a->has_value)
      substitute_constant(c, b, i, fold_splat(c, met, (uint64_t)a->value));
  }
  for (int i = 0; i < b->nargs; i++)
    if (unbounded(b->args[i].type)) {
      op_error(c, f, "argument #%d has the unbounded type %s: give its concrete shape (tpurun "
               "--input=3x4xf32=VALUES, =random or @FILE.npy; tpucc --input-shape=3x4xf32 once per argument, "
               "i64=N for a dimension variable)", i, type_to_string(c, b->args[i].type));
      return false;
    }
  return true;
}

/* Whether an op of block b (nested blocks included) calls name. */
static bool calls(const Block *b, const char *name) {
  for (const Op *op = b->first; op; op = op->next) {
    const Attr *ca = op->kind == OP_FUNC_CALL ? op_attr(op, "callee") : NULL;
    if (ca && ca->kind == ATTR_SYMREF && strcmp(ca->u.str.s, name) == 0) return true;
    for (int k = 0; k < op->nregions; k++)
      for (int j = 0; j < op->regions[k].nblocks; j++)
        if (calls(op->regions[k].blocks[j], name)) return true;
  }
  return false;
}

/* Erases the specialized callees nothing calls any more. */
static void drop_unused_callees(Refiner *r) {
  for (int i = 0; i < r->callees.len; i++) {
    Op *f = r->callees.items[i];
    if (!f->parent) continue;
    const char *name = op_symbol_name(f);
    bool used = false;
    FOR_EACH_FUNC(r->m, g) used = used || calls(op_body(g), name);
    const Attr *vis = op_attr(f, "sym_visibility");
    if (!used && vis && vis->kind == ATTR_STRING && strcmp(vis->u.str.s, "private") == 0) op_erase(f);
  }
}

bool refine_module(Context *c, Module *m, const RefineSpec *spec) {
  const char *entry = spec->entry ? spec->entry : "main";
  Op *f = module_lookup_func(m, entry);
  if (!f || !op_body(f)) {
    diag_report(c, m->op->loc, SEV_ERROR, "refine-shapes: no function @%s with a body to refine", entry);
    return false;
  }
  Refiner r = {.c = c, .m = m};
  bool ok = apply_args(&r, f, spec) && refine_function(&r, f);
  if (ok) {
    drop_unused_callees(&r);
    dce_module(m);
  }
  vec_free(&r.callees);
  table_free(&r.specialized, NULL);
  return ok;
}

bool pass_refine_shapes(PassContext *pc) {
  static const RefineSpec none = {0};
  return refine_module(pc->c, pc->m, pc->refine ? pc->refine : &none);
}
