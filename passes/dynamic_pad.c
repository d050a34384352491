/* dynamic-pad (docs/dynamic-shapes.md), XLA's DynamicPadder: makes a
 * program with bounded dynamic dims (tensor<?x4xf32, #stablehlo.bounds<8, ?>>)
 * static at its bounds.  Each bounded '?' dim's runtime size is a
 * tensor<i32> SSA value: a function gets one extra parameter per '?' dim
 * of its arguments and one extra result per '?' dim of its results (after
 * the others, in order), recorded in tpu.dynamic_args / tpu.dynamic_results
 * for the back end's DYNDIMS section; calls and while loops carry them;
 * the per-op rules of passes/dynamic_pad_ops.c keep every op exact on the
 * valid region.  An unbounded '?' is an error here: tpurun refines those
 * from the inputs before compiling. */
#include <string.h>

#include "passes/dynamic_pad.h"
#include "passes/walk.h"

Value **dp_sizes(const Dp *dp, const Value *v) {
  void **slot = table_get(&dp->sizes, v, 0);
  return slot ? *slot : NULL;
}

void dp_set_sizes(Dp *dp, const Value *v, Value **sizes) { *table_put(&dp->sizes, v, 0) = sizes; }

Value **dp_new_sizes(Dp *dp, int rank) { return arena_alloc(&dp->c->arena, sizeof(Value *) * (size_t)(rank + 1)); }

Value *dp_emit(Dp *dp, OpKind k, int n, Value **operands, Type *t, int nattrs, NamedAttr *attrs) {
  return op_build_before(dp->c, dp->at, k, n, operands, t, nattrs, attrs);
}

/* A 0-d constant of type t (elem bytes of raw data). */
static Value *scalar_const(Dp *dp, Type *t, const void *data) {
  NamedAttr v = {"value", attr_dense_raw(dp->c, t, data, (size_t)elem_storage_bytes(t->elem), false)};
  return dp_emit(dp, OP_CONSTANT, 0, NULL, t, 1, &v);
}

Value *dp_i32(Dp *dp, int64_t v) {
  int32_t x = (int32_t)v;
  return scalar_const(dp, type_scalar_tensor(dp->c, ELEM_I32), &x);
}

void dp_assert_same(Dp *dp, const Op *op, const char *what, Value *a, Value *b) {
  if (!a || !b || a == b) return;
  Context *c = dp->c;
  Value *ab[2] = {a, b};
  NamedAttr eq = {"comparison_direction", attr_enum(c, "stablehlo", "comparison_direction", "EQ")};
  Value *same = dp_emit(dp, OP_COMPARE, 2, ab, type_scalar_tensor(c, ELEM_I1), 1, &eq);
  const char *msg = arena_printf(&c->arena, "'%s' %s sizes differ at run time: {0} and {1}", op->name, what);
  NamedAttr attrs[3] = {{"call_target_name", attr_string(c, "shape_assertion", 15)},
                        {"error_message", attr_string(c, msg, strlen(msg))},
                        {"has_side_effect", attr_bool(c, true)}};
  Value *operands[3] = {same, a, b};
  op_insert_before(dp->at, op_build(c, OP_CUSTOM_CALL, op->loc, 3, operands, NULL, 3, attrs));
}

Value *dp_zero(Dp *dp, const Type *like) {
  uint8_t zero[16] = {0};
  Type *t = like->elem_opaque ? type_tensor_opaque_elem(dp->c, like->elem_opaque, 0, NULL, NULL)
                              : type_scalar_tensor(dp->c, like->elem);
  return scalar_const(dp, t, zero);
}

Value *dp_bin(Dp *dp, OpKind k, Value *a, Value *b) {
  Value *ops[2] = {a, b};
  return dp_emit(dp, k, 2, ops, type_scalar_tensor(dp->c, ELEM_I32), 0, NULL);
}

Value *dp_size(Dp *dp, const Value *v, int d) {
  Value **s = dp_sizes(dp, v);
  return s && s[d] ? s[d] : dp_i32(dp, v->type->dims[d]);
}

Value *dp_mask(Dp *dp, Value *x, int d, Value *size, Value *fill) {
  Context *c = dp->c;
  const Type *t = x->type;
  Type *it = type_tensor(c, ELEM_I32, t->rank, t->dims, NULL);
  NamedAttr ia = {"iota_dimension", attr_i64(c, d)};
  Value *iota = dp_emit(dp, OP_IOTA, 0, NULL, it, 1, &ia);
  NamedAttr bd = {"broadcast_dimensions", attr_dense_i64_array(c, 0, NULL)};
  Value *lim = dp_emit(dp, OP_BROADCAST_IN_DIM, 1, &size, it, 1, &bd);
  Value *cmp[2] = {iota, lim};
  NamedAttr dir = {"comparison_direction", attr_enum(c, "stablehlo", "comparison_direction", "LT")};
  Value *keep = dp_emit(dp, OP_COMPARE, 2, cmp, type_tensor(c, ELEM_I1, t->rank, t->dims, NULL), 1, &dir);
  Value *bfill = dp_emit(dp, OP_BROADCAST_IN_DIM, 1, &fill, (Type *)t, 1, &bd);
  Value *sel[3] = {keep, x, bfill};
  return dp_emit(dp, OP_SELECT, 3, sel, (Type *)t, 0, NULL);
}

bool dp_bound_type(Dp *dp, const Op *op, const Type *t, Type **out, const char *what) {
  *out = (Type *)t;
  if (t->kind != TY_TENSOR || type_is_static(t)) return true;
  if (t->rank < 0) {
    op_error(dp->c, op, "%s is an unranked tensor '%s'; tpurun refines it from the inputs", what, type_to_string(dp->c, t));
    return false;
  }
  int64_t *dims = arena_alloc(&dp->c->arena, sizeof(int64_t) * (size_t)(t->rank + 1));
  for (int d = 0; d < t->rank; d++) {
    dims[d] = type_dim_bound(t, d);
    if (dims[d] == DIM_DYNAMIC) {
      op_error(dp->c, op, "%s: unbounded dynamic dimension %d of '%s'; tpurun refines it from the inputs", what, d,
               type_to_string(dp->c, t));
      return false;
    }
    if (t->dims[d] == DIM_DYNAMIC && dims[d] > INT32_MAX) {
      op_error(dp->c, op, "%s: the bound %lld of dimension %d of '%s' does not fit the i32 that carries its size", what,
               (long long)dims[d], d, type_to_string(dp->c, t));
      return false;
    }
  }
  *out = type_with_bounds(dp->c, t, dims, dims);
  return true;
}

/* Number of '?' dims of t (0 for non-tensors). */
static int ndyn(const Type *t) {
  int n = 0;
  for (int d = 0; t->kind == TY_TENSOR && d < t->rank; d++) n += t->dims[d] == DIM_DYNAMIC;
  return n;
}

/* Gives block b one more tensor<i32> argument per '?' dim of types[i]
 * (the original types of its first n args), retypes those args to their
 * bounds and records their sizes; quads (if not NULL) gets (arg, dim,
 * bound, size arg) per '?' dim.  False after an error at op. */
static bool extend_block_args(Dp *dp, Op *op, Block *b, int n, Type *const *types, PtrVec *quads) {
  int extra = 0;
  for (int i = 0; i < n; i++) extra += ndyn(types[i]);
  Type *i32 = type_scalar_tensor(dp->c, ELEM_I32);
  Value *args = arena_alloc(&dp->c->arena, sizeof(Value) * (size_t)(b->nargs + extra + 1));
  int total = b->nargs + extra;
  for (int i = 0; i < b->nargs; i++) {
    args[i] = (Value){.type = b->args[i].type, .block = b, .index = i, .name_hint = b->args[i].name_hint};
    value_replace_all_uses(dp->c, &b->args[i], &args[i]);
  }
  int k = b->nargs;
  for (int i = 0; i < n; i++) {
    if (!ndyn(types[i])) continue;
    Type *bt;
    if (!dp_bound_type(dp, op, types[i], &bt, "argument")) return false;
    Value **s = dp_new_sizes(dp, types[i]->rank);
    for (int d = 0; d < types[i]->rank; d++) {
      if (types[i]->dims[d] != DIM_DYNAMIC) continue;
      args[k] = (Value){.type = i32, .block = b, .index = k};
      s[d] = &args[k];
      if (quads) {
        int64_t q[4] = {i, d, bt->dims[d], k};
        for (int j = 0; j < 4; j++) vec_push(quads, (void *)(intptr_t)q[j]);
      }
      k++;
    }
    args[i].type = bt;
    dp_set_sizes(dp, &args[i], s);
  }
  b->args = args;
  b->nargs = total;
  return true;
}

/* The operands a terminator or call passes for values vals[0..n): the
 * values, then the size of each '?' dim of types[i]. */
static Value **with_sizes(Dp *dp, int n, Value *const *vals, Type *const *types, int *total) {
  int extra = 0;
  for (int i = 0; i < n; i++) extra += ndyn(types[i]);
  Value **ops = arena_alloc(&dp->c->arena, sizeof(Value *) * (size_t)(n + extra + 1));
  int k = 0;
  for (int i = 0; i < n; i++) ops[k++] = vals[i];
  for (int i = 0; i < n; i++)
    for (int d = 0; types[i]->kind == TY_TENSOR && d < types[i]->rank; d++)
      if (types[i]->dims[d] == DIM_DYNAMIC) ops[k++] = dp_size(dp, vals[i], d);
  *total = k;
  return ops;
}

/* Replaces terminator term by one that also passes the sizes of its
 * operands, for results of the original types. */
static void extend_terminator(Dp *dp, Op *term, int n, Type *const *types) {
  dp->at = term;
  int total;
  Value **ops = with_sizes(dp, n, term->operands, types, &total);
  Op *nt = op_create(dp->c, term->kind, term->name, term->loc, total, ops, 0, NULL, term->nattrs, term->attrs, 0);
  op_insert_before(term, nt);
  op_erase(term);
}

/* Types of the results of a call or while after the pass: the originals
 * at their bounds, then one tensor<i32> per '?' dim. */
static bool bounded_results(Dp *dp, const Op *op, int n, Type *const *types, Type ***out, int *total) {
  int extra = 0;
  for (int i = 0; i < n; i++) extra += ndyn(types[i]);
  Type **t = arena_alloc(&dp->c->arena, sizeof(Type *) * (size_t)(n + extra + 1));
  for (int i = 0; i < n; i++)
    if (!dp_bound_type(dp, op, types[i], &t[i], "result")) return false;
  for (int i = n; i < n + extra; i++) t[i] = type_scalar_tensor(dp->c, ELEM_I32);
  *out = t;
  *total = n + extra;
  return true;
}

/* After new_op replaced op (same first n results, then sizes): the uses
 * move over and the sizes are recorded. */
static void adopt_results(Dp *dp, Op *op, Op *new_op, int n, Type *const *types) {
  int k = n;
  for (int i = 0; i < n; i++) {
    value_replace_all_uses(dp->c, &op->results[i], &new_op->results[i]);
    if (!ndyn(types[i])) continue;
    Value **s = dp_new_sizes(dp, types[i]->rank);
    for (int d = 0; d < types[i]->rank; d++)
      if (types[i]->dims[d] == DIM_DYNAMIC) s[d] = &new_op->results[k++];
    dp_set_sizes(dp, &new_op->results[i], s);
  }
}

static bool block_ops(Dp *dp, Block *b, bool carried);

/* Whether any operand of op has a recorded size. */
static bool any_sized_operand(const Dp *dp, const Op *op) {
  for (int i = 0; i < op->noperands; i++)
    if (dp_sizes(dp, op->operands[i])) return true;
  return false;
}

/* func.call: the callee takes and gives the sizes too (its original type). */
static bool rewrite_call(Dp *dp, Op *op) {
  const Attr *callee = op_attr(op, "callee");
  void **slot = callee ? table_get(&dp->ftypes, callee->u.str.s, callee->u.str.len) : NULL;
  if (!slot) return dp_op(dp, op);
  const Type *ft = *slot;
  int nops, nres;
  Value **ops = with_sizes(dp, op->noperands, op->operands, ft->inputs, &nops);
  Type **rt;
  if (!bounded_results(dp, op, ft->nresults, ft->results, &rt, &nres)) return false;
  if (nops == op->noperands && nres == op->nresults) return true;
  Op *n = op_create(dp->c, op->kind, op->name, op->loc, nops, ops, nres, rt, op->nattrs, op->attrs, 0);
  op_insert_before(op, n);
  adopt_results(dp, op, n, op->nresults, ft->results);
  op_erase(op);
  return true;
}

/* The types of op's first n results, as written (*orig, arena); whether
 * one has a dynamic dim. */
static bool original_results(Dp *dp, const Op *op, int n, Type ***orig) {
  *orig = arena_alloc(&dp->c->arena, sizeof(Type *) * (size_t)(n + 1));
  bool any = false;
  for (int i = 0; i < n; i++) {
    (*orig)[i] = op->results[i].type;
    any |= ndyn((*orig)[i]) > 0;
  }
  return any;
}

/* stablehlo.while: the sizes of its dynamic operands are carried as more
 * loop values through the condition and the body. */
static bool rewrite_while(Dp *dp, Op *op) {
  int n = op->noperands;
  Type **orig;
  bool any = original_results(dp, op, n, &orig);
  if (!any) {
    for (int r = 0; r < op->nregions; r++)
      for (int k = 0; k < op->regions[r].nblocks; k++)
        if (!block_ops(dp, op->regions[r].blocks[k], false)) return false;
    return true;
  }
  int nops, nres;
  Value **ops = with_sizes(dp, n, op->operands, orig, &nops);
  Type **rt;
  if (!bounded_results(dp, op, n, orig, &rt, &nres)) return false;
  Op *w = op_create(dp->c, op->kind, op->name, op->loc, nops, ops, nres, rt, op->nattrs, op->attrs, op->nregions);
  for (int r = 0; r < op->nregions; r++) {
    w->regions[r] = op->regions[r];
    w->regions[r].parent = w;
    for (int k = 0; k < w->regions[r].nblocks; k++) w->regions[r].blocks[k]->parent = &w->regions[r];
    Block *b = w->regions[r].blocks[0];
    if (!extend_block_args(dp, w, b, n, orig, NULL) || !block_ops(dp, b, true)) return false;
    if (r == 1) extend_terminator(dp, b->last, n, orig);
  }
  op->nregions = 0;
  op_insert_before(op, w);
  adopt_results(dp, op, w, n, orig);
  op_erase(op);
  return true;
}

/* stablehlo.if / case with dynamic results: each branch returns the
 * sizes too, as more results. */
static bool rewrite_branch(Dp *dp, Op *op) {
  int n = op->nresults;
  Type **orig;
  bool any = original_results(dp, op, n, &orig);
  for (int r = 0; r < op->nregions; r++)
    for (int k = 0; k < op->regions[r].nblocks; k++)
      if (!block_ops(dp, op->regions[r].blocks[k], any)) return false;
  dp->at = op;
  if (!any) return dp_op(dp, op);
  int nres;
  Type **rt;
  if (!bounded_results(dp, op, n, orig, &rt, &nres)) return false;
  Op *w = op_create(dp->c, op->kind, op->name, op->loc, op->noperands, op->operands, nres, rt, op->nattrs, op->attrs,
                    op->nregions);
  for (int r = 0; r < op->nregions; r++) {
    w->regions[r] = op->regions[r];
    w->regions[r].parent = w;
    for (int k = 0; k < w->regions[r].nblocks; k++) w->regions[r].blocks[k]->parent = &w->regions[r];
    extend_terminator(dp, w->regions[r].blocks[0]->last, n, orig);
  }
  op->nregions = 0;
  op_insert_before(op, w);
  adopt_results(dp, op, w, n, orig);
  op_erase(op);
  return true;
}

/* Every op of block b in order (the terminator of a function or a while
 * region, carried, is its caller's business). */
static bool block_ops(Dp *dp, Block *b, bool carried) {
  for (Op *op = b->first, *next; op; op = next) {
    next = op->next;
    if (op == b->last && (op_info[op->kind].traits & TRAIT_TERMINATOR)) {
      if (!carried && op->kind == OP_RETURN && any_sized_operand(dp, op)) {
        op_error(dp->c, op, "returns a value with a dynamic dimension from a region other than a function's or a "
                 "while body's (tpucc's dynamic-pad carries sizes through calls and while loops)");
        return false;
      }
      continue;
    }
    bool branch = op->kind == OP_IF || op->kind == OP_CASE;
    for (int r = 0; op->kind != OP_WHILE && !branch && r < op->nregions; r++)
      for (int k = 0; k < op->regions[r].nblocks; k++)
        if (!block_ops(dp, op->regions[r].blocks[k], false)) return false;
    dp->at = op;
    bool ok = op->kind == OP_FUNC_CALL ? rewrite_call(dp, op)
              : op->kind == OP_WHILE   ? rewrite_while(dp, op)
              : branch                 ? rewrite_branch(dp, op)
                                       : dp_op(dp, op);
    if (!ok) return false;
  }
  return true;
}

/* An array attribute of n dictionaries: list's, then empty ones. */
static Attr *extend_dicts(Dp *dp, const Attr *list, int n) {
  Attr **items = arena_alloc(&dp->c->arena, sizeof(Attr *) * (size_t)(n + 1));
  for (int i = 0; i < n; i++)
    items[i] = i < list->u.array.n ? list->u.array.items[i] : attr_dict(dp->c, 0, NULL);
  return attr_array(dp->c, n, items);
}

/* The i64 array attribute of a quad list. */
static Attr *quads_attr(Dp *dp, const PtrVec *q) {
  int64_t *v = arena_alloc(&dp->c->arena, sizeof(int64_t) * (size_t)(q->len + 1));
  for (int i = 0; i < q->len; i++) v[i] = (int64_t)(intptr_t)q->items[i];
  return attr_dense_i64_array(dp->c, q->len, v);
}

/* Rewrites function f: its arguments, body and results. */
static bool dp_func(Dp *dp, Op *f) {
  Block *b = op_body(f);
  const Attr *fta = op_attr(f, "function_type");
  if (!fta || fta->kind != ATTR_TYPE) return true;
  const Type *ft = fta->type;
  PtrVec argq = {0}, resq = {0};
  bool ok = extend_block_args(dp, f, b, ft->ninputs, ft->inputs, &argq) && block_ops(dp, b, true);
  Op *ret = b->last;
  if (ok && ret && ret->kind == OP_FUNC_RETURN) {
    int k = ret->noperands;
    for (int i = 0; i < ft->nresults; i++)
      for (int d = 0; ft->results[i]->kind == TY_TENSOR && d < ft->results[i]->rank; d++)
        if (ft->results[i]->dims[d] == DIM_DYNAMIC) {
          int64_t q[4] = {i, d, type_dim_bound(ft->results[i], d), k++};
          for (int j = 0; j < 4; j++) vec_push(&resq, (void *)(intptr_t)q[j]);
        }
    extend_terminator(dp, ret, ft->nresults, ft->results);
    ret = b->last;
    Type **in = arena_alloc(&dp->c->arena, sizeof(Type *) * (size_t)(b->nargs + 1));
    Type **out = arena_alloc(&dp->c->arena, sizeof(Type *) * (size_t)(ret->noperands + 1));
    for (int i = 0; i < b->nargs; i++) in[i] = b->args[i].type;
    for (int i = 0; i < ret->noperands; i++) out[i] = ret->operands[i]->type;
    op_set_attr(dp->c, f, "function_type", attr_type(dp->c, type_func(dp->c, b->nargs, in, ret->noperands, out)));
    const Attr *aa = op_attr(f, "arg_attrs"), *ra = op_attr(f, "res_attrs");
    if (aa && aa->kind == ATTR_ARRAY) op_set_attr(dp->c, f, "arg_attrs", extend_dicts(dp, aa, b->nargs));
    if (ra && ra->kind == ATTR_ARRAY) op_set_attr(dp->c, f, "res_attrs", extend_dicts(dp, ra, ret->noperands));
    if (argq.len) op_set_attr(dp->c, f, "tpu.dynamic_args", quads_attr(dp, &argq));
    if (resq.len) op_set_attr(dp->c, f, "tpu.dynamic_results", quads_attr(dp, &resq));
  }
  vec_free(&argq);
  vec_free(&resq);
  return ok;
}

/* Whether t has a bounded '?' dim. */
static bool type_bounded(const Type *t) {
  for (int d = 0; t->kind == TY_TENSOR && d < t->rank; d++)
    if (t->dims[d] == DIM_DYNAMIC && type_dim_bound(t, d) != DIM_DYNAMIC) return true;
  return false;
}

static bool region_bounded(const Region *r) {
  for (int k = 0; k < r->nblocks; k++) {
    const Block *b = r->blocks[k];
    for (int i = 0; i < b->nargs; i++)
      if (type_bounded(b->args[i].type)) return true;
    for (const Op *op = b->first; op; op = op->next) {
      for (int i = 0; i < op->nresults; i++)
        if (type_bounded(op->results[i].type)) return true;
      for (int i = 0; i < op->nregions; i++)
        if (region_bounded(&op->regions[i])) return true;
    }
  }
  return false;
}

/* A module without any bounded dim is left as it is (its unbounded '?'
 * dims, if any, are refined by tpurun or refused by the back end); in one
 * with bounded dims an unbounded '?' is a located error. */
bool pass_dynamic_pad(PassContext *pc) {
  Module *m = pc->m;
  bool any = false;
  FOR_EACH_FUNC(m, f) {
    const Attr *fta = op_attr(f, "function_type");
    if (fta && fta->kind == ATTR_TYPE)
      for (int i = 0; i < fta->type->nresults; i++) any |= type_bounded(fta->type->results[i]);
    any |= region_bounded(&f->regions[0]);
  }
  if (!any) return true;
  Dp dp = {.c = pc->c};
  FOR_EACH_FUNC(m, f) {
    const Attr *fta = op_attr(f, "function_type");
    const char *name = op_symbol_name(f);
    if (fta && fta->kind == ATTR_TYPE && name) *table_put(&dp.ftypes, name, strlen(name)) = fta->type;
  }
  bool ok = true;
  FOR_EACH_FUNC(m, f) {
    pc->steps++;
    if (!dp_func(&dp, f)) ok = false;
  }
  table_free(&dp.sizes, NULL);
  table_free(&dp.ftypes, NULL);
  return ok;
}
