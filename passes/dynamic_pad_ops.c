/* The dynamic-pad pass's per-op rules (docs/dynamic-shapes.md): how each
 * op's padded computation stays exact on the valid region of its bounded
 * dims, and the runtime sizes of its results.  The padding of a value is
 * undefined; ops that read across a dynamic dim (reductions, contractions,
 * pads, reverses, concatenations) mask it or move the valid region first. */
#include <string.h>

#include "passes/dynamic_pad.h"

#define DP_MAX_RANK 64

/* The i64 list of attribute a, and its length (0 when absent). */
static int list_attr(Dp *dp, const Attr *a, const int64_t **v) {
  int n = 0;
  *v = NULL;
  if (a && attr_as_i64_list(a, &n, v, &dp->c->arena)) return n;
  return 0;
}

static int op_list(Dp *dp, const Op *op, const char *name, const int64_t **v) {
  return list_attr(dp, op_attr(op, name), v);
}

static int64_t op_int(const Op *op, const char *name) {
  int64_t v = 0;
  attr_as_int(op_attr(op, name), &v);
  return v;
}

/* The located error for a dynamic dim an op cannot make exact. */
static bool cannot(Dp *dp, const Op *op, int d, const char *why) {
  op_error(dp->c, op, "dimension %d is dynamic: %s (tpucc's dynamic-pad makes only the ops of "
           "docs/dynamic-shapes.md exact on a bounded dimension)", d, why);
  return false;
}

/* Whether any operand of op has a dynamic dim. */
static bool any_dynamic_operand(const Dp *dp, const Op *op) {
  for (int i = 0; i < op->noperands; i++)
    if (dp_sizes(dp, op->operands[i])) return true;
  return false;
}

/* Retypes result i to its bounds and records sizes (NULL: all static). */
static bool set_result(Dp *dp, Op *op, int i, Value **sizes) {
  Type *t;
  if (!dp_bound_type(dp, op, op->results[i].type, &t, "result")) return false;
  const Type *orig = op->results[i].type;
  op->results[i].type = t;
  bool any = false;
  for (int d = 0; sizes && orig->kind == TY_TENSOR && d < orig->rank; d++) {
    if (orig->dims[d] != DIM_DYNAMIC) sizes[d] = NULL;
    any |= sizes[d] != NULL;
  }
  if (any) dp_set_sizes(dp, &op->results[i], sizes);
  return true;
}

/* Results whose '?' dims take their bound as size (nothing at run time
 * says otherwise: iota, constants broadcast to a bounded type). */
static Value **bound_sizes(Dp *dp, const Type *t) {
  Value **s = dp_new_sizes(dp, t->rank);
  for (int d = 0; d < t->rank; d++)
    if (t->dims[d] == DIM_DYNAMIC) s[d] = dp_i32(dp, type_dim_bound(t, d));
  return s;
}

/* Whether size value v is a constant (a bound taken as size, e.g. of a
 * broadcast): it yields to a size known at run time and is not checked
 * against one. */
static bool is_bound_size(const Value *v) { return v->def && v->def->kind == OP_CONSTANT; }

/* Element-wise: sizes pass through from the operands of the result's rank
 * (a run-time size before a constant one); two run-time sizes of one dim
 * are checked to agree at run time. */
static bool rule_elementwise(Dp *dp, Op *op) {
  const Type *rt = op->results[0].type;
  Value **s = dp_new_sizes(dp, rt->rank);
  for (int i = 0; i < op->noperands; i++) {
    Value **os = dp_sizes(dp, op->operands[i]);
    for (int d = 0; os && op->operands[i]->type->rank == rt->rank && d < rt->rank; d++) {
      if (!os[d]) continue;
      if (s[d] && !is_bound_size(s[d]) && !is_bound_size(os[d]))
        dp_assert_same(dp, op, arena_printf(&dp->c->arena, "operands' dim %d", d), s[d], os[d]);
      if (!s[d] || (is_bound_size(s[d]) && !is_bound_size(os[d]))) s[d] = os[d];
    }
  }
  for (int d = 0; d < rt->rank; d++)
    if (rt->dims[d] == DIM_DYNAMIC && !s[d]) s[d] = dp_i32(dp, type_dim_bound(rt, d));
  for (int r = 0; r < op->nresults; r++)
    if (!set_result(dp, op, r, r ? memcpy(dp_new_sizes(dp, rt->rank), s, sizeof(Value *) * (size_t)rt->rank) : s))
      return false;
  return true;
}

static bool rule_broadcast_in_dim(Dp *dp, Op *op) {
  const Type *rt = op->results[0].type;
  const int64_t *bd;
  int n = op_list(dp, op, "broadcast_dimensions", &bd);
  Value **os = dp_sizes(dp, op->operands[0]);
  Value **s = bound_sizes(dp, rt);
  for (int j = 0; j < n; j++) {
    if (!os || !os[j]) continue;
    if (rt->dims[bd[j]] != DIM_DYNAMIC)
      return cannot(dp, op, (int)bd[j], "a dynamic operand dim broadcast into a static result dim");
    s[bd[j]] = os[j];
  }
  return set_result(dp, op, 0, s);
}

static bool rule_transpose(Dp *dp, Op *op) {
  const int64_t *perm;
  int n = op_list(dp, op, "permutation", &perm);
  Value **os = dp_sizes(dp, op->operands[0]), **s = dp_new_sizes(dp, n);
  for (int d = 0; d < n; d++) s[d] = os ? os[perm[d]] : NULL;
  return set_result(dp, op, 0, s);
}

/* A broadcast of the scalar tensor<i32> v to type t. */
static Value *splat(Dp *dp, Value *v, Type *t) {
  NamedAttr bd = {"broadcast_dimensions", attr_dense_i64_array(dp->c, 0, NULL)};
  return dp_emit(dp, OP_BROADCAST_IN_DIM, 1, &v, t, 1, &bd);
}

/* A tensor of like's element type and the given rank-1 size. */
static Type *vector_like(Dp *dp, const Type *like, int64_t n) {
  int64_t *d = arena_dup(&dp->c->arena, &n, sizeof n);
  return like->elem_opaque ? type_tensor_opaque_elem(dp->c, like->elem_opaque, 1, d, NULL)
                           : type_tensor(dp->c, like->elem, 1, d, NULL);
}

static Value *ew(Dp *dp, OpKind k, Value *a, Value *b) {
  Value *ops[2] = {a, b};
  return dp_emit(dp, k, 2, ops, a->type, 0, NULL);
}

/* The elements of the padded x at the row-major positions flat_idx (an
 * i32 tensor of bt's shape; clamped by the gather), as a value of type bt. */
static Value *gather_flat(Dp *dp, Value *x, Value *flat_idx, Type *bt) {
  Context *c = dp->c;
  const Type *in = x->type;
  int64_t total = 1, count = 1, one = 1;
  for (int j = 0; j < in->rank; j++) total *= in->dims[j];
  for (int d = 0; d < bt->rank; d++) count *= bt->dims[d];
  int64_t two[2] = {count, 1};
  Value *flat = dp_emit(dp, OP_RESHAPE, 1, &x, vector_like(dp, in, total), 0, NULL);
  Value *ids = dp_emit(dp, OP_RESHAPE, 1, &flat_idx, type_tensor(c, ELEM_I32, 2, two, NULL), 0, NULL);
  NamedAttr gp[4] = {{"offset_dims", attr_int_list(c, 0, NULL)},
                     {"collapsed_slice_dims", attr_int_list(c, 1, (int64_t[]){0})},
                     {"start_index_map", attr_int_list(c, 1, (int64_t[]){0})},
                     {"index_vector_dim", attr_i64(c, 1)}};
  NamedAttr ga[2] = {{"dimension_numbers", attr_dialect(c, "stablehlo.gather", 4, gp)},
                     {"slice_sizes", attr_dense_i64_array(c, 1, &one)}};
  Value *gops[2] = {flat, ids};
  Value *g = dp_emit(dp, OP_GATHER, 2, gops, vector_like(dp, in, count), 2, ga);
  return dp_emit(dp, OP_RESHAPE, 1, &g, bt, 0, NULL);
}

/* Reshape by an index computation (the dynamic dim is not the major dim of
 * its group): each output position's row-major index in the real output
 * shape (dim dout of size out_size), decomposed in the real input shape
 * (dim din of size in_size), is read from the padded input, flattened,
 * through a gather. */
static bool reshape_compact(Dp *dp, Op *op, int din, int dout, Value *in_size, Value *out_size) {
  Context *c = dp->c;
  Value *x = op->operands[0];
  const Type *in = x->type;
  Type *bt;
  if (!dp_bound_type(dp, op, op->results[0].type, &bt, "result")) return false;
  int r = bt->rank;
  Type *it = type_tensor(c, ELEM_I32, r, bt->dims, NULL);
  Value *lin = NULL, *stride = dp_i32(dp, 1);
  for (int d = r - 1; d >= 0; d--) {
    NamedAttr ia = {"iota_dimension", attr_i64(c, d)};
    Value *term = ew(dp, OP_MULTIPLY, dp_emit(dp, OP_IOTA, 0, NULL, it, 1, &ia), splat(dp, stride, it));
    lin = lin ? ew(dp, OP_ADD, lin, term) : term;
    stride = dp_bin(dp, OP_MULTIPLY, stride, d == dout ? out_size : dp_i32(dp, bt->dims[d]));
  }
  Value *flat_idx = NULL;
  int64_t pstride = 1;
  for (int j = in->rank - 1; j >= 0; j--) {
    Value *dim = splat(dp, j == din ? dp_bin(dp, OP_MAXIMUM, in_size, dp_i32(dp, 1)) : dp_i32(dp, in->dims[j]), it);
    Value *term = ew(dp, OP_MULTIPLY, ew(dp, OP_REMAINDER, lin, dim), splat(dp, dp_i32(dp, pstride), it));
    lin = ew(dp, OP_DIVIDE, lin, dim);
    flat_idx = flat_idx ? ew(dp, OP_ADD, flat_idx, term) : term;
    pstride *= in->dims[j];
  }
  Value *y = gather_flat(dp, x, flat_idx, bt);
  Value **s = dp_new_sizes(dp, r);
  s[dout] = out_size;
  value_replace_all_uses(c, &op->results[0], y);
  dp_set_sizes(dp, y, s);
  op_erase(op);
  return true;
}

/* Reshape: the one dynamic dim must be the major dim of its group (the
 * dims whose product matches between operand and result); its padded rows
 * then stay contiguous and the result's size is size * in_minor / out_minor. */
static bool rule_reshape(Dp *dp, Op *op) {
  const Type *in = op->operands[0]->type, *rt = op->results[0].type;
  Value **os = dp_sizes(dp, op->operands[0]);
  int din = -1, dout = -1;
  for (int d = 0; os && d < in->rank; d++)
    if (os[d]) {
      if (din >= 0) return cannot(dp, op, d, "a reshape of more than one dynamic dim");
      din = d;
    }
  for (int d = 0; d < rt->rank; d++)
    if (rt->dims[d] == DIM_DYNAMIC) dout = d;
  if (din < 0) return set_result(dp, op, 0, dout < 0 ? NULL : bound_sizes(dp, rt));
  if (dout < 0) return cannot(dp, op, din, "a reshape of a dynamic dim into a static shape");
  int64_t in_major = 1, out_major = 1, in_minor = 1, out_minor = 1;
  for (int d = 0; d < din; d++) in_major *= in->dims[d];
  for (int d = 0; d < dout; d++) out_major *= type_dim_bound(rt, d);
  for (int d = din + 1; d < in->rank; d++) in_minor *= in->dims[d];
  for (int d = dout + 1; d < rt->rank; d++) out_minor *= type_dim_bound(rt, d);
  if (in_major != out_major || in_minor == 0 || out_minor == 0 ||
      (in_minor % out_minor != 0 && out_minor % in_minor != 0)) {
    if (in_major * in_minor == 0 || out_major * out_minor == 0)
      return cannot(dp, op, din, "a reshape with a zero static dim beside a dynamic one");
    Value *t = dp_bin(dp, OP_DIVIDE, dp_bin(dp, OP_MULTIPLY, os[din], dp_i32(dp, in_major * in_minor)),
                      dp_i32(dp, out_major * out_minor));
    return reshape_compact(dp, op, din, dout, os[din], t);
  }
  Value *size = os[din];
  if (in_minor > out_minor) size = dp_bin(dp, OP_MULTIPLY, size, dp_i32(dp, in_minor / out_minor));
  if (out_minor > in_minor) size = dp_bin(dp, OP_DIVIDE, size, dp_i32(dp, out_minor / in_minor));
  Value **s = dp_new_sizes(dp, rt->rank);
  s[dout] = size;
  return set_result(dp, op, 0, s);
}

/* Reduce: the padding of each reduced dynamic dim becomes the init value;
 * the kept dims keep their sizes. */
static bool rule_reduce(Dp *dp, Op *op) {
  int n = op->noperands / 2;
  const int64_t *dims;
  int nd = op_list(dp, op, "dimensions", &dims);
  Value **os = NULL;
  for (int i = 0; i < n; i++) {
    Value **si = dp_sizes(dp, op->operands[i]);
    if (!si) continue;
    os = si;
    Value *x = op->operands[i];
    for (int k = 0; k < nd; k++)
      if (si[dims[k]]) x = dp_mask(dp, x, (int)dims[k], si[dims[k]], op->operands[n + i]);
    op_set_operand(dp->c, op, i, x);
  }
  for (int r = 0; r < op->nresults; r++) {
    const Type *rt = op->results[r].type;
    Value **s = dp_new_sizes(dp, rt->rank);
    for (int d = 0, o = 0; os && d < op->operands[0]->type->rank; d++) {
      bool reduced = false;
      for (int k = 0; k < nd; k++) reduced |= dims[k] == d;
      if (!reduced) s[o++] = os[d];
    }
    if (!set_result(dp, op, r, s)) return false;
  }
  return true;
}

/* dot_general: contracted padding masked with zeros on both sides; the
 * result's dims are batch, lhs free, rhs free. */
static bool rule_dot_general(Dp *dp, Op *op) {
  const Attr *dn = op_attr(op, "dot_dimension_numbers");
  const int64_t *lb, *rb, *lc, *rc;
  int nb = list_attr(dp, dialect_param(dn, "lhs_batching_dimensions"), &lb);
  list_attr(dp, dialect_param(dn, "rhs_batching_dimensions"), &rb);
  int nc = list_attr(dp, dialect_param(dn, "lhs_contracting_dimensions"), &lc);
  list_attr(dp, dialect_param(dn, "rhs_contracting_dimensions"), &rc);
  Value **ls = dp_sizes(dp, op->operands[0]), **rs = dp_sizes(dp, op->operands[1]);
  for (int k = 0; k < nb; k++)
    if (ls && rs && ls[lb[k]] && rs[rb[k]] && !is_bound_size(ls[lb[k]]) && !is_bound_size(rs[rb[k]]))
      dp_assert_same(dp, op, "batching dims'", ls[lb[k]], rs[rb[k]]);
  for (int k = 0; k < nc; k++) {
    if (ls && rs && ls[lc[k]] && rs[rc[k]] && !is_bound_size(ls[lc[k]]) && !is_bound_size(rs[rc[k]]))
      dp_assert_same(dp, op, "contracting dims'", ls[lc[k]], rs[rc[k]]);
    Value *size = ls && ls[lc[k]] ? ls[lc[k]] : rs && rs[rc[k]] ? rs[rc[k]] : NULL;
    if (!size) continue;
    op_set_operand(dp->c, op, 0, dp_mask(dp, op->operands[0], (int)lc[k], size, dp_zero(dp, op->operands[0]->type)));
    op_set_operand(dp->c, op, 1, dp_mask(dp, op->operands[1], (int)rc[k], size, dp_zero(dp, op->operands[1]->type)));
  }
  const Type *rt = op->results[0].type;
  Value **s = dp_new_sizes(dp, rt->rank);
  int o = 0;
  for (int k = 0; k < nb; k++, o++) s[o] = ls && ls[lb[k]] ? ls[lb[k]] : rs ? rs[rb[k]] : NULL;
  for (int side = 0; side < 2; side++) {
    const Type *t = op->operands[side]->type;
    Value **ss = side ? rs : ls;
    for (int d = 0; d < t->rank; d++) {
      bool used = false;
      for (int k = 0; k < nb; k++) used |= (side ? rb[k] : lb[k]) == d;
      for (int k = 0; k < nc; k++) used |= (side ? rc[k] : lc[k]) == d;
      if (!used) s[o++] = ss ? ss[d] : NULL;
    }
  }
  return set_result(dp, op, 0, s);
}

/* Concatenate along a dynamic dim: each operand written at the sum of the
 * sizes before it, in order (each one's padding is overwritten by the next). */
static bool rule_concatenate(Dp *dp, Op *op) {
  int dim = (int)op_int(op, "dimension");
  const Type *rt = op->results[0].type;
  Value **s = dp_new_sizes(dp, rt->rank);
  bool along = false;
  for (int i = 0; i < op->noperands; i++) {
    Value **os = dp_sizes(dp, op->operands[i]);
    for (int d = 0; os && d < rt->rank; d++)
      if (d != dim && !s[d]) s[d] = os[d];
    along |= os && os[dim];
  }
  if (!along) return set_result(dp, op, 0, s);
  Type *bt;
  if (!dp_bound_type(dp, op, rt, &bt, "result")) return false;
  Value *zero = dp_zero(dp, bt);
  NamedAttr bda = {"broadcast_dimensions", attr_dense_i64_array(dp->c, 0, NULL)};
  Value *acc = dp_emit(dp, OP_BROADCAST_IN_DIM, 1, &zero, bt, 1, &bda);
  Value *off = dp_i32(dp, 0);
  for (int i = 0; i < op->noperands; i++) {
    Value *ops[DP_MAX_RANK + 2] = {acc, op->operands[i]};
    for (int d = 0; d < rt->rank; d++) ops[d + 2] = d == dim ? off : dp_i32(dp, 0);
    acc = dp_emit(dp, OP_DYNAMIC_UPDATE_SLICE, rt->rank + 2, ops, bt, 0, NULL);
    off = dp_bin(dp, OP_ADD, off, dp_size(dp, op->operands[i], dim));
  }
  s[dim] = off;
  value_replace_all_uses(dp->c, &op->results[0], acc);
  dp_set_sizes(dp, acc, s);
  op_erase(op);
  return true;
}

/* Slice: size ceil((min(size, limit) - start) / stride), at least 0. */
static bool rule_slice(Dp *dp, Op *op) {
  const int64_t *st, *li, *sd;
  op_list(dp, op, "start_indices", &st);
  op_list(dp, op, "limit_indices", &li);
  op_list(dp, op, "strides", &sd);
  Value **os = dp_sizes(dp, op->operands[0]);
  int rank = op->operands[0]->type->rank;
  Value **s = dp_new_sizes(dp, rank);
  for (int d = 0; os && d < rank; d++) {
    if (!os[d]) continue;
    Value *end = dp_bin(dp, OP_MINIMUM, os[d], dp_i32(dp, li[d]));
    Value *num = dp_bin(dp, OP_ADD, dp_bin(dp, OP_SUBTRACT, end, dp_i32(dp, st[d])), dp_i32(dp, sd[d] - 1));
    s[d] = dp_bin(dp, OP_MAXIMUM, dp_bin(dp, OP_DIVIDE, num, dp_i32(dp, sd[d])), dp_i32(dp, 0));
  }
  /* The static result of the padded operand is slice of the bound. */
  Type *t = op->results[0].type;
  int64_t dims[DP_MAX_RANK];
  for (int d = 0; d < rank; d++) {
    int64_t lim = li[d] < op->operands[0]->type->dims[d] ? li[d] : op->operands[0]->type->dims[d];
    dims[d] = lim <= st[d] ? 0 : (lim - st[d] + sd[d] - 1) / sd[d];
  }
  if (t->dims && rank) {
    for (int d = 0; d < rank; d++)
      if (t->dims[d] != DIM_DYNAMIC && t->dims[d] != dims[d])
        return cannot(dp, op, d, "a slice of a dynamic dim into a static result dim");
  }
  bool ok = set_result(dp, op, 0, s);
  op->results[0].type = type_with_bounds(dp->c, op->results[0].type, dims, dims);
  return ok;
}

/* Pad: the operand's padding becomes the padding value first; the size is
 * low + size + (size - 1) * interior + high. */
static bool rule_pad(Dp *dp, Op *op) {
  const int64_t *lo, *hi, *in;
  op_list(dp, op, "edge_padding_low", &lo);
  op_list(dp, op, "edge_padding_high", &hi);
  op_list(dp, op, "interior_padding", &in);
  Value **os = dp_sizes(dp, op->operands[0]);
  int rank = op->operands[0]->type->rank;
  Value **s = dp_new_sizes(dp, rank);
  Value *x = op->operands[0];
  for (int d = 0; os && d < rank; d++) {
    if (!os[d]) continue;
    if (hi[d] < 0) return cannot(dp, op, d, "a negative high padding of a dynamic dim");
    x = dp_mask(dp, x, d, os[d], op->operands[1]);
    Value *gaps = dp_bin(dp, OP_MAXIMUM, dp_bin(dp, OP_SUBTRACT, os[d], dp_i32(dp, 1)), dp_i32(dp, 0));
    Value *size = dp_bin(dp, OP_ADD, os[d], dp_bin(dp, OP_MULTIPLY, gaps, dp_i32(dp, in[d])));
    s[d] = dp_bin(dp, OP_MAXIMUM, dp_bin(dp, OP_ADD, size, dp_i32(dp, lo[d] + hi[d])), dp_i32(dp, 0));
  }
  op_set_operand(dp->c, op, 0, x);
  bool ok = set_result(dp, op, 0, s);
  int64_t dims[DP_MAX_RANK];
  const Type *t = x->type;
  for (int d = 0; d < rank; d++) /* the padded result of the padded operand */
    dims[d] = lo[d] + hi[d] + t->dims[d] + (t->dims[d] > 0 ? (t->dims[d] - 1) * in[d] : 0);
  op->results[0].type = type_with_bounds(dp->c, op->results[0].type, dims, dims);
  return ok;
}

/* Reverse along a dynamic dim: the valid region ends up at the back; two
 * copies side by side and a dynamic_slice at bound - size bring it back. */
static bool rule_reverse(Dp *dp, Op *op) {
  const int64_t *dims;
  int nd = op_list(dp, op, "dimensions", &dims);
  Value **os = dp_sizes(dp, op->operands[0]);
  if (!set_result(dp, op, 0, os ? memcpy(dp_new_sizes(dp, op->results[0].type->rank), os,
                                         sizeof(Value *) * (size_t)op->results[0].type->rank) : NULL))
    return false;
  if (!os) return true;
  Value *res = &op->results[0], *y = res;
  const Type *t = res->type;
  dp->at = op->next;
  Op *first = NULL;
  for (int k = 0; k < nd; k++) {
    int d = (int)dims[k];
    if (!os[d]) continue;
    int64_t dd[DP_MAX_RANK];
    for (int j = 0; j < t->rank; j++) dd[j] = t->dims[j] * (j == d ? 2 : 1);
    NamedAttr ca = {"dimension", attr_i64(dp->c, d)};
    Value *two[2] = {y, y};
    Value *cat = dp_emit(dp, OP_CONCATENATE, 2, two, type_with_bounds(dp->c, t, dd, dd), 1, &ca);
    if (!first) first = cat->def;
    Value *ops[DP_MAX_RANK + 1] = {cat};
    Value *shift = dp_bin(dp, OP_SUBTRACT, dp_i32(dp, t->dims[d]), os[d]);
    for (int j = 0; j < t->rank; j++) ops[j + 1] = j == d ? shift : dp_i32(dp, 0);
    NamedAttr sz = {"slice_sizes", attr_dense_i64_array(dp->c, t->rank, t->dims)};
    y = dp_emit(dp, OP_DYNAMIC_SLICE, t->rank + 1, ops, (Type *)t, 1, &sz);
  }
  if (y == res) return true;
  /* Every use but the new ops' reads the shifted value. */
  Value **sizes = dp_sizes(dp, res);
  for (Use *u = res->uses, *next; u; u = next) {
    next = u->next;
    if (u->user->kind == OP_CONCATENATE && u->user == first) continue;
    op_set_operand(dp->c, u->user, u->operand_index, y);
  }
  dp_set_sizes(dp, y, sizes);
  return true;
}

/* dynamic_slice / dynamic_update_slice: start indices clamped against the
 * runtime size (size - slice size), as the spec clamps against the shape. */
static bool rule_dynamic_slice(Dp *dp, Op *op, bool update) {
  Value **os = dp_sizes(dp, op->operands[0]);
  int rank = op->operands[0]->type->rank, first = update ? 2 : 1;
  const int64_t *ss = NULL;
  if (!update) op_list(dp, op, "slice_sizes", &ss);
  if (update && dp_sizes(dp, op->operands[1]))
    return cannot(dp, op, 0, "the update of a dynamic_update_slice has a dynamic dim");
  for (int d = 0; os && d < rank; d++) {
    if (!os[d]) continue;
    int64_t len = update ? op->operands[1]->type->dims[d] : ss[d];
    Value *idx = op->operands[first + d];
    ElemKind ek = idx->type->elem;
    Value *hi = dp_bin(dp, OP_MAXIMUM, dp_bin(dp, OP_SUBTRACT, os[d], dp_i32(dp, len)), dp_i32(dp, 0));
    Value *i32 = ek == ELEM_I32 ? idx : dp_emit(dp, OP_CONVERT, 1, &idx, type_scalar_tensor(dp->c, ELEM_I32), 0, NULL);
    Value *cl = dp_bin(dp, OP_MINIMUM, dp_bin(dp, OP_MAXIMUM, i32, dp_i32(dp, 0)), hi);
    if (ek != ELEM_I32) cl = dp_emit(dp, OP_CONVERT, 1, &cl, idx->type, 0, NULL);
    op_set_operand(dp->c, op, first + d, cl);
  }
  if (!update) return set_result(dp, op, 0, NULL);
  return set_result(dp, op, 0, os ? memcpy(dp_new_sizes(dp, rank), os, sizeof(Value *) * (size_t)rank) : NULL);
}

/* get_dimension_size of a dynamic dim: its size value. */
static bool rule_get_dimension_size(Dp *dp, Op *op) {
  Value **os = dp_sizes(dp, op->operands[0]);
  int d = (int)op_int(op, "dimension");
  if (!os || !os[d]) return set_result(dp, op, 0, NULL);
  value_replace_all_uses(dp->c, &op->results[0], os[d]);
  op_erase(op);
  return true;
}

/* set_dimension_size: the operand's padded data, with that dim's size now
 * the size operand (clamped to 0..bound); an identity reshape carries it. */
static bool rule_set_dimension_size(Dp *dp, Op *op) {
  Value **os = dp_sizes(dp, op->operands[0]);
  int d = (int)op_int(op, "dimension"), rank = op->operands[0]->type->rank;
  Value **s = dp_new_sizes(dp, rank);
  for (int j = 0; os && j < rank; j++) s[j] = os[j];
  Value *sz = op->operands[1];
  int64_t bound = op->operands[0]->type->dims[d];
  s[d] = dp_bin(dp, OP_MINIMUM, dp_bin(dp, OP_MAXIMUM, sz, dp_i32(dp, 0)), dp_i32(dp, bound));
  Value *x = op->operands[0];
  Value *y = dp_emit(dp, OP_RESHAPE, 1, &x, x->type, 0, NULL);
  value_replace_all_uses(dp->c, &op->results[0], y);
  dp_set_sizes(dp, y, s);
  op_erase(op);
  return true;
}

/* The dims of a shape operand as tensor<i32> sizes: element d of it. */
static Value *shape_elem(Dp *dp, Value *shape, int d) {
  int64_t one = 1, start = d, limit = d + 1;
  NamedAttr a[3] = {{"limit_indices", attr_dense_i64_array(dp->c, 1, &limit)},
                    {"start_indices", attr_dense_i64_array(dp->c, 1, &start)},
                    {"strides", attr_dense_i64_array(dp->c, 1, &one)}};
  Value *e = dp_emit(dp, OP_SLICE, 1, &shape, type_tensor(dp->c, shape->type->elem, 1, &one, NULL), 3, a);
  e = dp_emit(dp, OP_RESHAPE, 1, &e, type_scalar_tensor(dp->c, shape->type->elem), 0, NULL);
  if (shape->type->elem != ELEM_I32) e = dp_emit(dp, OP_CONVERT, 1, &e, type_scalar_tensor(dp->c, ELEM_I32), 0, NULL);
  return e;
}

/* dynamic_iota with a bounded result: an iota at the bound, sizes from its
 * shape operand. */
static bool rule_dynamic_iota(Dp *dp, Op *op) {
  const Type *rt = op->results[0].type;
  Value **s = dp_new_sizes(dp, rt->rank);
  for (int d = 0; d < rt->rank; d++)
    if (rt->dims[d] == DIM_DYNAMIC) s[d] = shape_elem(dp, op->operands[0], d);
  Type *bt;
  if (!dp_bound_type(dp, op, rt, &bt, "result")) return false;
  NamedAttr ia = {"iota_dimension", attr_i64(dp->c, op_int(op, "iota_dimension"))};
  Value *y = dp_emit(dp, OP_IOTA, 0, NULL, bt, 1, &ia);
  value_replace_all_uses(dp->c, &op->results[0], y);
  dp_set_sizes(dp, y, s);
  op_erase(op);
  return true;
}

/* Sort along a dynamic dim: one more key first, "is padding", so the
 * valid elements sort before the padding whatever the comparator says of
 * it (a < b when b alone is padding; the comparator when both agree). */
static bool rule_sort(Dp *dp, Op *op) {
  int rank = op->operands[0]->type->rank;
  int dim = op_attr(op, "dimension") ? (int)op_int(op, "dimension") : -1;
  if (dim < 0) dim += rank;
  Value **os = NULL;
  for (int i = 0; i < op->noperands && !os; i++) os = dp_sizes(dp, op->operands[i]);
  for (int r = 0; r < op->nresults; r++)
    if (!set_result(dp, op, r, os ? memcpy(dp_new_sizes(dp, rank), os, sizeof(Value *) * (size_t)rank) : NULL))
      return false;
  if (!os || !os[dim]) return true;
  Context *c = dp->c;
  const Type *t = op->operands[0]->type;
  Type *it = type_tensor(c, ELEM_I32, rank, t->dims, NULL), *bt = type_tensor(c, ELEM_I1, rank, t->dims, NULL);
  NamedAttr ia = {"iota_dimension", attr_i64(c, dim)};
  NamedAttr bd = {"broadcast_dimensions", attr_dense_i64_array(c, 0, NULL)};
  NamedAttr ge = {"comparison_direction", attr_enum(c, "stablehlo", "comparison_direction", "GE")};
  Value *cmp[2] = {dp_emit(dp, OP_IOTA, 0, NULL, it, 1, &ia), dp_emit(dp, OP_BROADCAST_IN_DIM, 1, &os[dim], it, 1, &bd)};
  Value *pad = dp_emit(dp, OP_COMPARE, 2, cmp, bt, 1, &ge);
  int n = op->noperands;
  Value **ops = dp_new_sizes(dp, n + 1);
  Type **rt = arena_alloc(&c->arena, sizeof(Type *) * (size_t)(n + 2));
  ops[0] = pad;
  rt[0] = bt;
  for (int i = 0; i < n; i++) ops[i + 1] = op->operands[i], rt[i + 1] = op->results[i].type;
  Op *ns = op_create(c, op->kind, op->name, op->loc, n + 1, ops, n + 1, rt, op->nattrs, op->attrs, 1);
  Block *old = op->regions[0].blocks[0];
  Type *i1 = type_scalar_tensor(c, ELEM_I1);
  Type **at = arena_alloc(&c->arena, sizeof(Type *) * (size_t)(old->nargs + 3));
  at[0] = at[1] = i1;
  for (int i = 0; i < old->nargs; i++) at[i + 2] = old->args[i].type;
  Block *b = block_create(c, &ns->regions[0], old->nargs + 2, at);
  region_add_block(c, &ns->regions[0], b);
  ValueMap m = {0};
  for (int i = 0; i < old->nargs; i++) value_map_put(c, &m, &old->args[i], &b->args[i + 2]);
  for (const Op *o = old->first; o != old->last; o = o->next) op_append(b, op_clone(c, o, &m));
  Value *verdict = value_map_get(&m, old->last->operands[0]);
  if (!verdict) verdict = old->last->operands[0];
  NamedAttr ne = {"comparison_direction", attr_enum(c, "stablehlo", "comparison_direction", "NE")};
  Value *pp[2] = {&b->args[0], &b->args[1]};
  Op *differ = op_build(c, OP_COMPARE, op->loc, 2, pp, i1, 1, &ne);
  op_append(b, differ);
  Value *sel[3] = {&differ->results[0], &b->args[1], verdict};
  Op *pick = op_build(c, OP_SELECT, op->loc, 3, sel, i1, 0, NULL);
  op_append(b, pick);
  op_append(b, op_create(c, old->last->kind, old->last->name, old->last->loc, 1, (Value *[]){&pick->results[0]}, 0,
                         NULL, 0, NULL, 0));
  op_insert_before(op, ns);
  for (int i = 0; i < n; i++) {
    value_replace_all_uses(c, &op->results[i], &ns->results[i + 1]);
    dp_set_sizes(dp, &ns->results[i + 1], dp_sizes(dp, &op->results[i]));
  }
  op_erase(op);
  return true;
}

/* Gather: the start index of each dynamic operand dim clamped to
 * size - slice size (the op clamps against the bound); the result's batch
 * dims take the sizes of the indices' dims. */
static bool rule_gather(Dp *dp, Op *op) {
  Context *c = dp->c;
  const Attr *dn = op_attr(op, "dimension_numbers");
  const int64_t *offs, *map, *ss, *obd;
  int noff = list_attr(dp, dialect_param(dn, "offset_dims"), &offs);
  int nmap = list_attr(dp, dialect_param(dn, "start_index_map"), &map);
  int nobd = list_attr(dp, dialect_param(dn, "operand_batching_dims"), &obd);
  int64_t ivd = 0;
  attr_as_int(dialect_param(dn, "index_vector_dim"), &ivd);
  op_list(dp, op, "slice_sizes", &ss);
  Value **os = dp_sizes(dp, op->operands[0]), **is = dp_sizes(dp, op->operands[1]);
  Value *idx = op->operands[1];
  const Type *it = idx->type;
  for (int k = 0; os && k < nobd; k++)
    if (os[obd[k]]) return cannot(dp, op, (int)obd[k], "a gather over a dynamic operand batching dim");
  if (is && ivd < it->rank && is[ivd]) return cannot(dp, op, (int)ivd, "a dynamic index vector dim");
  bool clamp = false;
  for (int k = 0; os && k < nmap; k++) clamp |= os[map[k]] != NULL;
  if (clamp) {
    int64_t one = 1, n = nmap;
    Value **parts = dp_new_sizes(dp, nmap);
    for (int k = 0; k < nmap; k++) {
      Value *hi = os[map[k]] ? dp_bin(dp, OP_MAXIMUM, dp_bin(dp, OP_SUBTRACT, os[map[k]], dp_i32(dp, ss[map[k]])), dp_i32(dp, 0))
                             : dp_i32(dp, INT32_MAX);
      parts[k] = dp_emit(dp, OP_RESHAPE, 1, &hi, type_tensor(c, ELEM_I32, 1, &one, NULL), 0, NULL);
    }
    NamedAttr cd = {"dimension", attr_i64(c, 0)};
    Value *u = nmap == 1 ? parts[0] : dp_emit(dp, OP_CONCATENATE, nmap, parts, type_tensor(c, ELEM_I32, 1, &n, NULL), 1, &cd);
    if (it->elem != ELEM_I32) u = dp_emit(dp, OP_CONVERT, 1, &u, type_tensor(c, it->elem, 1, &n, NULL), 0, NULL);
    int64_t d1 = ivd < it->rank ? ivd : 0;
    Value *ub;
    if (ivd < it->rank) {
      NamedAttr bd = {"broadcast_dimensions", attr_dense_i64_array(c, 1, &d1)};
      ub = dp_emit(dp, OP_BROADCAST_IN_DIM, 1, &u, (Type *)it, 1, &bd);
    } else {
      Value *sc = dp_emit(dp, OP_RESHAPE, 1, &u, type_scalar_tensor(c, it->elem), 0, NULL);
      NamedAttr bd = {"broadcast_dimensions", attr_dense_i64_array(c, 0, NULL)};
      ub = dp_emit(dp, OP_BROADCAST_IN_DIM, 1, &sc, (Type *)it, 1, &bd);
    }
    Value *mn[2] = {idx, ub};
    op_set_operand(c, op, 1, dp_emit(dp, OP_MINIMUM, 2, mn, (Type *)it, 0, NULL));
  }
  const Type *rt = op->results[0].type;
  Value **s = dp_new_sizes(dp, rt->rank);
  for (int d = 0, b = 0; d < rt->rank; d++) {
    bool off = false;
    for (int k = 0; k < noff; k++) off |= offs[k] == d;
    if (off) continue;
    if (b == ivd) b++;
    s[d] = is ? is[b] : NULL;
    b++;
  }
  for (int d = 0; d < rt->rank; d++)
    if (rt->dims[d] == DIM_DYNAMIC && !s[d]) return cannot(dp, op, d, "a gather result dim that is a dynamic slice");
  return set_result(dp, op, 0, s);
}

/* A 1-D i32 vector of the n scalar tensor<i32> values v, converted to
 * elem and broadcast along dim ivd of type t (or everywhere when ivd is
 * t's rank: an implicit index vector of one). */
static Value *index_vector(Dp *dp, Value **v, int n, int64_t ivd, const Type *t) {
  Context *c = dp->c;
  int64_t one = 1, nn = n;
  Value **parts = dp_new_sizes(dp, n);
  for (int k = 0; k < n; k++) parts[k] = dp_emit(dp, OP_RESHAPE, 1, &v[k], type_tensor(c, ELEM_I32, 1, &one, NULL), 0, NULL);
  NamedAttr cd = {"dimension", attr_i64(c, 0)};
  Value *u = n == 1 ? parts[0] : dp_emit(dp, OP_CONCATENATE, n, parts, type_tensor(c, ELEM_I32, 1, &nn, NULL), 1, &cd);
  if (t->elem != ELEM_I32) u = dp_emit(dp, OP_CONVERT, 1, &u, type_tensor(c, t->elem, 1, &nn, NULL), 0, NULL);
  if (ivd < t->rank) {
    NamedAttr bd = {"broadcast_dimensions", attr_dense_i64_array(c, 1, &ivd)};
    return dp_emit(dp, OP_BROADCAST_IN_DIM, 1, &u, (Type *)t, 1, &bd);
  }
  Value *sc = dp_emit(dp, OP_RESHAPE, 1, &u, type_scalar_tensor(c, t->elem), 0, NULL);
  NamedAttr bd = {"broadcast_dimensions", attr_dense_i64_array(c, 0, NULL)};
  return dp_emit(dp, OP_BROADCAST_IN_DIM, 1, &sc, (Type *)t, 1, &bd);
}

/* Scatter: an update window is skipped when it does not fit the operand;
 * against the runtime sizes, each start index whose window passes a
 * dynamic dim's size (and each index of a padding row of the indices)
 * becomes the bound, which the padded op skips too. */
static bool rule_scatter(Dp *dp, Op *op) {
  Context *c = dp->c;
  int n = (op->noperands - 1) / 2;
  const Attr *dn = op_attr(op, "scatter_dimension_numbers");
  const int64_t *uwd, *iwd, *map, *ibd;
  int nuwd = list_attr(dp, dialect_param(dn, "update_window_dims"), &uwd);
  int niwd = list_attr(dp, dialect_param(dn, "inserted_window_dims"), &iwd);
  int nmap = list_attr(dp, dialect_param(dn, "scatter_dims_to_operand_dims"), &map);
  int nibd = list_attr(dp, dialect_param(dn, "input_batching_dims"), &ibd);
  int64_t ivd = 0;
  attr_as_int(dialect_param(dn, "index_vector_dim"), &ivd);
  Value **os = dp_sizes(dp, op->operands[0]), **is = dp_sizes(dp, op->operands[n]);
  Value *idx = op->operands[n];
  const Type *it = idx->type, *ot = op->operands[0]->type, *ut = op->operands[n + 1]->type;
  for (int i = 1; i < n; i++)
    if (dp_sizes(dp, op->operands[i]) != os && dp_sizes(dp, op->operands[i]))
      return cannot(dp, op, 0, "a scatter whose inputs have different dynamic dims");
  for (int k = 0; os && k < nibd; k++)
    if (os[ibd[k]]) return cannot(dp, op, (int)ibd[k], "a scatter over a dynamic input batching dim");
  if (is && ivd < it->rank && is[ivd]) return cannot(dp, op, (int)ivd, "a dynamic index vector dim");
  for (int i = 0; i < n; i++) {
    Value **us = dp_sizes(dp, op->operands[n + 1 + i]);
    for (int k = 0; us && k < nuwd; k++)
      if (us[uwd[k]]) return cannot(dp, op, (int)uwd[k], "a dynamic update window dim");
  }
  /* The window size along each operand dim. */
  int64_t win[DP_MAX_RANK];
  for (int d = 0, w = 0; d < ot->rank; d++) {
    bool inserted = false;
    for (int k = 0; k < niwd; k++) inserted |= iwd[k] == d;
    for (int k = 0; k < nibd; k++) inserted |= ibd[k] == d;
    win[d] = inserted ? 1 : w < nuwd ? ut->dims[uwd[w++]] : 1;
  }
  bool any = is != NULL;
  for (int k = 0; os && k < nmap; k++) any |= os[map[k]] != NULL;
  if (any) {
    Value **hi = dp_new_sizes(dp, nmap), **bound = dp_new_sizes(dp, nmap);
    for (int k = 0; k < nmap; k++) {
      int d = (int)map[k];
      Value *size = os && os[d] ? os[d] : dp_i32(dp, ot->dims[d]);
      hi[k] = dp_bin(dp, OP_SUBTRACT, size, dp_i32(dp, win[d]));
      bound[k] = dp_i32(dp, ot->dims[d]);
    }
    Value *ub = index_vector(dp, hi, nmap, ivd, it), *big = index_vector(dp, bound, nmap, ivd, it);
    Type *bt = type_tensor(c, ELEM_I1, it->rank, it->dims, NULL);
    NamedAttr gt = {"comparison_direction", attr_enum(c, "stablehlo", "comparison_direction", "GT")};
    Value *cmp[2] = {idx, ub};
    Value *bad = dp_emit(dp, OP_COMPARE, 2, cmp, bt, 1, &gt);
    for (int e = 0; is && e < it->rank; e++) {
      if (!is[e]) continue;
      Type *i32t = type_tensor(c, ELEM_I32, it->rank, it->dims, NULL);
      NamedAttr ia = {"iota_dimension", attr_i64(c, e)};
      NamedAttr bd = {"broadcast_dimensions", attr_dense_i64_array(c, 0, NULL)};
      NamedAttr ge = {"comparison_direction", attr_enum(c, "stablehlo", "comparison_direction", "GE")};
      Value *rc[2] = {dp_emit(dp, OP_IOTA, 0, NULL, i32t, 1, &ia), dp_emit(dp, OP_BROADCAST_IN_DIM, 1, &is[e], i32t, 1, &bd)};
      Value *row[2] = {bad, dp_emit(dp, OP_COMPARE, 2, rc, bt, 1, &ge)};
      bad = dp_emit(dp, OP_OR, 2, row, bt, 0, NULL);
    }
    Value *sel[3] = {bad, big, idx};
    op_set_operand(c, op, n, dp_emit(dp, OP_SELECT, 3, sel, (Type *)it, 0, NULL));
  }
  for (int r = 0; r < op->nresults; r++)
    if (!set_result(dp, op, r, os ? memcpy(dp_new_sizes(dp, ot->rank), os, sizeof(Value *) * (size_t)ot->rank) : NULL))
      return false;
  return true;
}

/* List attribute name of op, or n copies of dflt when absent. */
static const int64_t *list_or(Dp *dp, const Op *op, const char *name, int n, int64_t dflt) {
  const int64_t *v;
  if (op_list(dp, op, name, &v) >= n) return v;
  int64_t *d = arena_alloc(&dp->c->arena, sizeof(int64_t) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) d[i] = dflt;
  return d;
}

/* Padding [d][side] of a dense<[[lo, hi], ...]> attribute, 0 when absent. */
static int64_t pad_of(const Op *op, int d, int side) {
  const Attr *a = op_attr(op, "padding");
  if (!a || a->kind != ATTR_DENSE || dense_num_elements(a) <= 2 * d + side) return 0;
  return dense_get_int(a, 2 * d + side);
}

/* A windowed dim's output size: max(0, floor((size + lo + hi - dilated
 * window) / stride) + 1). */
static Value *window_size(Dp *dp, Value *size, int64_t lo, int64_t hi, int64_t w, int64_t wd, int64_t stride) {
  int64_t dw = w > 0 ? (w - 1) * wd + 1 : 0;
  Value *num = dp_bin(dp, OP_ADD, size, dp_i32(dp, lo + hi - dw + stride));
  return dp_bin(dp, OP_DIVIDE, dp_bin(dp, OP_MAXIMUM, num, dp_i32(dp, 0)), dp_i32(dp, stride));
}

/* The static window output of a padded dim of bound b. */
static int64_t window_bound(int64_t b, int64_t lo, int64_t hi, int64_t w, int64_t wd, int64_t stride) {
  int64_t num = b + lo + hi - (w > 0 ? (w - 1) * wd + 1 : 0) + stride;
  return num > 0 ? num / stride : 0;
}

/* Result r of op retyped with dim d (for each d with s[d]) at dims[d]. */
static void retype_dims(Dp *dp, Op *op, int r, Value **s, const int64_t *bdims) {
  const Type *t = op->results[r].type;
  int64_t *dims = arena_alloc(&dp->c->arena, sizeof(int64_t) * (size_t)(t->rank + 1));
  for (int d = 0; d < t->rank; d++) dims[d] = s[d] ? bdims[d] : t->dims[d];
  op->results[r].type = type_with_bounds(dp->c, t, dims, dims);
}

/* reduce_window: each dynamic dim's padding becomes the init value (what
 * the op pads with), output sizes from the window formula. */
static bool rule_reduce_window(Dp *dp, Op *op) {
  int n = op->noperands / 2, rank = op->operands[0]->type->rank;
  const int64_t *wdim = list_or(dp, op, "window_dimensions", rank, 1), *st = list_or(dp, op, "window_strides", rank, 1);
  const int64_t *bd = list_or(dp, op, "base_dilations", rank, 1), *wd = list_or(dp, op, "window_dilations", rank, 1);
  Value **os = NULL;
  for (int i = 0; i < n; i++) {
    Value **si = dp_sizes(dp, op->operands[i]);
    if (!si) continue;
    os = si;
    Value *x = op->operands[i];
    for (int d = 0; d < rank; d++)
      if (si[d]) {
        if (bd[d] != 1) return cannot(dp, op, d, "a reduce_window with a base dilation on a dynamic dim");
        x = dp_mask(dp, x, d, si[d], op->operands[n + i]);
      }
    op_set_operand(dp->c, op, i, x);
  }
  Value **s = dp_new_sizes(dp, rank);
  int64_t bdims[DP_MAX_RANK];
  for (int d = 0; os && d < rank; d++)
    if (os[d]) {
      s[d] = window_size(dp, os[d], pad_of(op, d, 0), pad_of(op, d, 1), wdim[d], wd[d], st[d]);
      bdims[d] = window_bound(op->operands[0]->type->dims[d], pad_of(op, d, 0), pad_of(op, d, 1), wdim[d], wd[d], st[d]);
    }
  for (int r = 0; r < op->nresults; r++) {
    Value **sr = r ? memcpy(dp_new_sizes(dp, rank), s, sizeof(Value *) * (size_t)rank) : s;
    if (!set_result(dp, op, r, sr)) return false;
    retype_dims(dp, op, r, s, bdims);
  }
  return true;
}

/* convolution: the input's dynamic feature and spatial padding become
 * zeros; the batch size passes through, spatial sizes from the window
 * formula. */
static bool rule_convolution(Dp *dp, Op *op) {
  const Attr *cd = op_attr(op, "dimension_numbers");
  if (!cd || cd->kind != ATTR_CONV_DIMS) return cannot(dp, op, 0, "a convolution without dimension numbers");
  const ConvDims *c = &cd->u.conv;
  int ns = c->nspatial;
  if (dp_sizes(dp, op->operands[1])) return cannot(dp, op, 0, "a convolution with a dynamic kernel");
  Value **is = dp_sizes(dp, op->operands[0]);
  const int64_t *st = list_or(dp, op, "window_strides", ns, 1), *ld = list_or(dp, op, "lhs_dilation", ns, 1);
  const int64_t *rd = list_or(dp, op, "rhs_dilation", ns, 1);
  int64_t fgc = op_attr(op, "feature_group_count") ? op_int(op, "feature_group_count") : 1;
  int64_t bgc = op_attr(op, "batch_group_count") ? op_int(op, "batch_group_count") : 1;
  const Type *rt = op->results[0].type;
  Value **s = dp_new_sizes(dp, rt->rank);
  int64_t bdims[DP_MAX_RANK];
  Value *x = op->operands[0];
  if (is && is[c->input_batch]) {
    if (bgc != 1) return cannot(dp, op, (int)c->input_batch, "a dynamic batch with batch_group_count > 1");
    s[c->output_batch] = is[c->input_batch];
  }
  if (is && is[c->input_feature]) {
    if (fgc != 1) return cannot(dp, op, (int)c->input_feature, "a dynamic feature dim with feature_group_count > 1");
    x = dp_mask(dp, x, (int)c->input_feature, is[c->input_feature], dp_zero(dp, x->type));
  }
  for (int k = 0; is && k < ns; k++) {
    int d = (int)c->input_spatial[k];
    if (!is[d]) continue;
    if (ld[k] != 1) return cannot(dp, op, d, "an lhs_dilation on a dynamic spatial dim");
    x = dp_mask(dp, x, d, is[d], dp_zero(dp, x->type));
    int64_t w = op->operands[1]->type->dims[c->kernel_spatial[k]];
    s[c->output_spatial[k]] = window_size(dp, is[d], pad_of(op, k, 0), pad_of(op, k, 1), w, rd[k], st[k]);
    bdims[c->output_spatial[k]] = window_bound(x->type->dims[d], pad_of(op, k, 0), pad_of(op, k, 1), w, rd[k], st[k]);
  }
  if (s[c->output_batch]) bdims[c->output_batch] = x->type->dims[c->input_batch];
  op_set_operand(dp->c, op, 0, x);
  bool ok = set_result(dp, op, 0, s);
  retype_dims(dp, op, 0, s, bdims);
  return ok;
}

/* dynamic_broadcast_in_dim / dynamic_reshape with a bounded result: the
 * static op at the bounds, the '?' sizes from the shape operand. */
static bool rule_dynamic_shape(Dp *dp, Op *op) {
  const Type *rt = op->results[0].type;
  Value **s = dp_new_sizes(dp, rt->rank);
  for (int d = 0; d < rt->rank; d++)
    if (rt->dims[d] == DIM_DYNAMIC) s[d] = shape_elem(dp, op->operands[1], d);
  Type *bt;
  if (!dp_bound_type(dp, op, rt, &bt, "result")) return false;
  Value *x = op->operands[0];
  Value **os = dp_sizes(dp, x);
  if (op->kind == OP_DYNAMIC_RESHAPE) {
    for (int d = 0; os && d < x->type->rank; d++)
      if (os[d]) return cannot(dp, op, d, "a dynamic_reshape of a dynamic operand");
    int64_t a = 1, b = 1;
    for (int d = 0; d < x->type->rank; d++) a *= x->type->dims[d];
    for (int d = 0; d < bt->rank; d++) b *= bt->dims[d];
    if (a != b) return cannot(dp, op, 0, "a dynamic_reshape whose bounds hold another element count than its operand");
    Value *y = dp_emit(dp, OP_RESHAPE, 1, &x, bt, 0, NULL);
    value_replace_all_uses(dp->c, &op->results[0], y);
    dp_set_sizes(dp, y, s);
    op_erase(op);
    return true;
  }
  const int64_t *bd;
  int n = op_list(dp, op, "broadcast_dimensions", &bd);
  for (int j = 0; j < n; j++) {
    if (os && os[j]) s[bd[j]] = os[j];
    else if (x->type->dims[j] != 1 && x->type->dims[j] != bt->dims[bd[j]])
      return cannot(dp, op, (int)bd[j], "a dynamic_broadcast_in_dim of a static operand dim other than 1 or the bound");
  }
  NamedAttr a = {"broadcast_dimensions", attr_dense_i64_array(dp->c, n, bd)};
  Value *y = dp_emit(dp, OP_BROADCAST_IN_DIM, 1, &x, bt, 1, &a);
  value_replace_all_uses(dp->c, &op->results[0], y);
  dp_set_sizes(dp, y, s);
  op_erase(op);
  return true;
}

/* An i32 iota along dim d of type it. */
static Value *iota_i32(Dp *dp, Type *it, int d) {
  NamedAttr ia = {"iota_dimension", attr_i64(dp->c, d)};
  return dp_emit(dp, OP_IOTA, 0, NULL, it, 1, &ia);
}

/* x[clamp(idx_d, 0, bound_d - 1)...] for per-dim index tensors idx (i32,
 * of bt's shape): a gather of the flattened padded x. */
static Value *gather_at(Dp *dp, Value *x, Value **idx, Type *bt) {
  const Type *in = x->type;
  Type *it = type_tensor(dp->c, ELEM_I32, bt->rank, bt->dims, NULL);
  Value *flat = NULL;
  int64_t pstride = 1;
  for (int d = in->rank - 1; d >= 0; d--) {
    Value *lo = splat(dp, dp_i32(dp, 0), it), *hi = splat(dp, dp_i32(dp, in->dims[d] > 0 ? in->dims[d] - 1 : 0), it);
    Value *cl[3] = {lo, idx[d], hi};
    Value *k = dp_emit(dp, OP_CLAMP, 3, cl, it, 0, NULL);
    Value *term = ew(dp, OP_MULTIPLY, k, splat(dp, dp_i32(dp, pstride), it));
    flat = flat ? ew(dp, OP_ADD, flat, term) : term;
    pstride *= in->dims[d];
  }
  if (!flat) flat = splat(dp, dp_i32(dp, 0), it);
  return gather_flat(dp, x, flat, bt);
}

/* real_dynamic_slice with a bounded result: element i of dim d is
 * operand[start_d + i * stride_d]; size ceil((limit - start) / stride). */
static bool rule_real_dynamic_slice(Dp *dp, Op *op) {
  const Type *rt = op->results[0].type;
  Type *bt;
  if (!dp_bound_type(dp, op, rt, &bt, "result")) return false;
  int r = bt->rank;
  Type *it = type_tensor(dp->c, ELEM_I32, r, bt->dims, NULL);
  Value **s = dp_new_sizes(dp, r), **idx = dp_new_sizes(dp, r);
  for (int d = 0; d < r; d++) {
    Value *st = shape_elem(dp, op->operands[1], d), *li = shape_elem(dp, op->operands[2], d);
    Value *sd = dp_bin(dp, OP_MAXIMUM, shape_elem(dp, op->operands[3], d), dp_i32(dp, 1));
    Value *num = dp_bin(dp, OP_ADD, dp_bin(dp, OP_SUBTRACT, li, st), dp_bin(dp, OP_SUBTRACT, sd, dp_i32(dp, 1)));
    if (rt->dims[d] == DIM_DYNAMIC) s[d] = dp_bin(dp, OP_DIVIDE, dp_bin(dp, OP_MAXIMUM, num, dp_i32(dp, 0)), sd);
    idx[d] = ew(dp, OP_ADD, splat(dp, st, it), ew(dp, OP_MULTIPLY, iota_i32(dp, it, d), splat(dp, sd, it)));
  }
  Value *y = gather_at(dp, op->operands[0], idx, bt);
  value_replace_all_uses(dp->c, &op->results[0], y);
  dp_set_sizes(dp, y, s);
  op_erase(op);
  return true;
}

/* dynamic_pad with a bounded result: position p of dim d holds operand[k]
 * when q = p - low is >= 0, a multiple of interior + 1 and k = q /
 * (interior + 1) < the operand's size, else the padding value; size low +
 * size + max(size - 1, 0) * interior + high. */
static bool rule_dynamic_pad(Dp *dp, Op *op) {
  Context *c = dp->c;
  const Type *rt = op->results[0].type;
  Type *bt;
  if (!dp_bound_type(dp, op, rt, &bt, "result")) return false;
  int r = bt->rank;
  Type *it = type_tensor(c, ELEM_I32, r, bt->dims, NULL), *b1 = type_tensor(c, ELEM_I1, r, bt->dims, NULL);
  Value *x = op->operands[0];
  Value **s = dp_new_sizes(dp, r), **idx = dp_new_sizes(dp, r), *valid = NULL;
  NamedAttr ge = {"comparison_direction", attr_enum(c, "stablehlo", "comparison_direction", "GE")};
  NamedAttr eq = {"comparison_direction", attr_enum(c, "stablehlo", "comparison_direction", "EQ")};
  NamedAttr lt = {"comparison_direction", attr_enum(c, "stablehlo", "comparison_direction", "LT")};
  for (int d = 0; d < r; d++) {
    Value *lo = shape_elem(dp, op->operands[2], d), *hi = shape_elem(dp, op->operands[3], d);
    Value *in = shape_elem(dp, op->operands[4], d), *step = dp_bin(dp, OP_ADD, in, dp_i32(dp, 1));
    Value *size = dp_size(dp, x, d);
    Value *gaps = dp_bin(dp, OP_MAXIMUM, dp_bin(dp, OP_SUBTRACT, size, dp_i32(dp, 1)), dp_i32(dp, 0));
    Value *total = dp_bin(dp, OP_ADD, dp_bin(dp, OP_ADD, lo, hi), dp_bin(dp, OP_ADD, size, dp_bin(dp, OP_MULTIPLY, gaps, in)));
    if (rt->dims[d] == DIM_DYNAMIC) s[d] = dp_bin(dp, OP_MAXIMUM, total, dp_i32(dp, 0));
    Value *q = ew(dp, OP_SUBTRACT, iota_i32(dp, it, d), splat(dp, lo, it)), *bstep = splat(dp, step, it);
    idx[d] = ew(dp, OP_DIVIDE, q, bstep);
    Value *c1[2] = {q, splat(dp, dp_i32(dp, 0), it)};
    Value *c2[2] = {ew(dp, OP_REMAINDER, q, bstep), splat(dp, dp_i32(dp, 0), it)};
    Value *c3[2] = {idx[d], splat(dp, size, it)};
    Value *ok = dp_emit(dp, OP_AND, 2, (Value *[]){dp_emit(dp, OP_COMPARE, 2, c1, b1, 1, &ge), dp_emit(dp, OP_COMPARE, 2, c2, b1, 1, &eq)}, b1, 0, NULL);
    ok = dp_emit(dp, OP_AND, 2, (Value *[]){ok, dp_emit(dp, OP_COMPARE, 2, c3, b1, 1, &lt)}, b1, 0, NULL);
    valid = valid ? dp_emit(dp, OP_AND, 2, (Value *[]){valid, ok}, b1, 0, NULL) : ok;
  }
  Value *g = gather_at(dp, x, idx, bt);
  NamedAttr bd = {"broadcast_dimensions", attr_dense_i64_array(c, 0, NULL)};
  Value *pad = dp_emit(dp, OP_BROADCAST_IN_DIM, 1, &op->operands[1], bt, 1, &bd);
  Value *sel[3] = {valid, g, pad};
  Value *y = valid ? dp_emit(dp, OP_SELECT, 3, sel, bt, 0, NULL) : g;
  value_replace_all_uses(c, &op->results[0], y);
  dp_set_sizes(dp, y, s);
  op_erase(op);
  return true;
}

/* Whether op's kind has a rule here for dynamic operands or results. */
bool dp_op(Dp *dp, Op *op) {
  bool dyn_res = false;
  for (int r = 0; r < op->nresults; r++)
    dyn_res |= op->results[r].type->kind == TY_TENSOR && !type_is_static(op->results[r].type);
  if (!dyn_res && !any_dynamic_operand(dp, op)) return true;
  switch (op->kind) {
  case OP_BROADCAST_IN_DIM: return rule_broadcast_in_dim(dp, op);
  case OP_TRANSPOSE: return rule_transpose(dp, op);
  case OP_RESHAPE: return rule_reshape(dp, op);
  case OP_REDUCE: return rule_reduce(dp, op);
  case OP_DOT_GENERAL: return rule_dot_general(dp, op);
  case OP_CONCATENATE: return rule_concatenate(dp, op);
  case OP_SLICE: return rule_slice(dp, op);
  case OP_PAD: return rule_pad(dp, op);
  case OP_REVERSE: return rule_reverse(dp, op);
  case OP_DYNAMIC_SLICE: return rule_dynamic_slice(dp, op, false);
  case OP_DYNAMIC_UPDATE_SLICE: return rule_dynamic_slice(dp, op, true);
  case OP_GET_DIMENSION_SIZE: return rule_get_dimension_size(dp, op);
  case OP_SET_DIMENSION_SIZE: return rule_set_dimension_size(dp, op);
  case OP_DYNAMIC_IOTA: return rule_dynamic_iota(dp, op);
  case OP_SORT: return rule_sort(dp, op);
  case OP_REAL_DYNAMIC_SLICE: return rule_real_dynamic_slice(dp, op);
  case OP_DYNAMIC_PAD: return rule_dynamic_pad(dp, op);
  case OP_GATHER: return rule_gather(dp, op);
  case OP_SCATTER: return rule_scatter(dp, op);
  case OP_REDUCE_WINDOW: return rule_reduce_window(dp, op);
  case OP_CONVOLUTION: return rule_convolution(dp, op);
  case OP_DYNAMIC_BROADCAST_IN_DIM:
  case OP_DYNAMIC_RESHAPE: return rule_dynamic_shape(dp, op);
  case OP_IOTA: return set_result(dp, op, 0, bound_sizes(dp, op->results[0].type));
  default: break;
  }
  if ((op_info[op->kind].traits & TRAIT_ELEMENTWISE) && op->nregions == 0 && op->nresults >= 1)
    return rule_elementwise(dp, op);
  for (int i = 0; i < op->noperands; i++) {
    Value **os = dp_sizes(dp, op->operands[i]);
    for (int d = 0; os && d < op->operands[i]->type->rank; d++)
      if (os[d]) {
        op_error(dp->c, op, "operand #%d: dimension %d is dynamic, and tpucc's dynamic-pad has no rule to make this op exact on it "
                 "(docs/dynamic-shapes.md lists the ops it supports)", i, d);
        return false;
      }
  }
  for (int r = 0; r < op->nresults; r++)
    if (op->results[r].type->kind == TY_TENSOR && !type_is_static(op->results[r].type)) {
      op_error(dp->c, op, "result #%d has a dynamic dimension, and tpucc's dynamic-pad has no rule for this op "
               "(docs/dynamic-shapes.md lists the ops it supports)", r);
      return false;
    }
  return true;
}
