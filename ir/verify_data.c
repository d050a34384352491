/* Verification rules of data-heavy ops: reduce, reduce_window,
 * select_and_scatter, dot, dot_general, convolution, fft, sort, linear
 * algebra, batch norm and random numbers.  Spec: "Constraints" of each op in
 * docs/spec.md. */
#include <inttypes.h>
#include <string.h>

#include "ir/verify_ops.h"

static bool expect_rank(Context *c, const Op *op, int res_i, int rank) {
  const Type *res = vo_result_type(op, res_i);
  if (!vo_is_ranked(res) || res->rank == rank) return true;
  op_error(c, op, "expects result #%d to have rank %d, but got '%s'", res_i, rank, vo_type_str(c, res));
  return false;
}

static void expect_shape(Context *c, const Op *op, int res_i, int rank, const int64_t *dims) {
  if (vo_infer_shape(c, res_i, rank, dims)) return;
  const Type *res = vo_result_type(op, res_i);
  if (!expect_rank(c, op, res_i, rank) || !vo_is_ranked(res)) return;
  for (int i = 0; i < rank; i++)
    if (!vo_dims_compatible(res->dims[i], dims[i])) {
      op_error(c, op, "inferred shape %s is incompatible with result #%d of type '%s' (dimension %d)",
               vo_list_str(c, rank, dims), res_i, vo_type_str(c, res), i);
      return;
    }
}

static int64_t *new_dims(Context *c, int n) { return arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(n + 1)); }

/* A list attribute with N entries, each positive; absent gives all 1s.
 * Returns NULL when it reported a problem (or the attribute is bad). */
static const int64_t *positive_list(Context *c, const Op *op, const char *name, int n, bool required) {
  I64List l;
  AttrRead ar = vo_i64_list_attr(c, op, name, required, &l);
  if (ar == AR_BAD || (ar == AR_ABSENT && required)) return NULL;
  if (ar == AR_ABSENT) {
    int64_t *ones = new_dims(c, n);
    for (int i = 0; i < n; i++) ones[i] = 1;
    return ones;
  }
  if (n >= 0 && l.n != n) {
    op_error(c, op, "%s should have %d elements, but has %d elements", name, n, l.n);
    return NULL;
  }
  for (int i = 0; i < l.n; i++)
    if (l.v[i] <= 0) {
      op_error(c, op, "expects %s to be positive, but got %s", name, vo_list_str(c, l.n, l.v));
      return NULL;
    }
  return l.v;
}

/* Padding attribute with N rows; absent gives zeros. */
static const int64_t *padding_pairs(Context *c, const Op *op, const char *name, int n) {
  int rows = 0;
  const int64_t *p = NULL;
  AttrRead ar = vo_pairs_attr(c, op, name, false, &rows, &p);
  if (ar == AR_BAD) return NULL;
  if (ar == AR_ABSENT) return new_dims(c, 2 * n); /* zeroed */
  if (rows != n) {
    op_error(c, op, "expects padding to have shape [%d, 2], but got [%d, 2]", n, rows);
    return NULL;
  }
  return p;
}

/* num_windows of one dimension (spec of reduce_window / convolution). */
static __int128 num_windows(int64_t size, int64_t base_dil, int64_t lo, int64_t hi, int64_t window,
                            int64_t win_dil, int64_t stride) {
  __int128 dilated = size == 0 ? 0 : (__int128)(size - 1) * base_dil + 1;
  __int128 padded = (__int128)lo + dilated + hi;
  __int128 dwin = window == 0 ? 0 : (__int128)(window - 1) * win_dil + 1;
  if (padded <= 0 || dwin > padded) return 0;
  return (padded - dwin) / stride + 1;
}

static const char *const precisions[] = {"DEFAULT", "HIGH", "HIGHEST", NULL};

/* precision_config: empty or up to two precision enums. */
static void check_precision_config(Context *c, const Op *op) {
  const Attr *a = op_attr(op, "precision_config");
  if (!a) return;
  if (a->kind != ATTR_ARRAY) {
    op_error(c, op, "attribute 'precision_config' must be an array of precision enums, but got %s", vo_attr_str(c, a));
    return;
  }
  if (a->u.array.n > 2) {
    op_error(c, op, "expects precision config to be empty or have <= 2 elements, but got %d", a->u.array.n);
    return;
  }
  for (int i = 0; i < a->u.array.n; i++) {
    const Attr *e = a->u.array.items[i];
    const char *v = attr_enum_value(e);
    bool valid = false;
    for (const char *const *p = precisions; v && *p; p++) valid |= strcmp(*p, v) == 0;
    if (!valid) {
      op_error(c, op, "precision_config entry #%d must be one of DEFAULT, HIGH or HIGHEST, but got %s", i,
               vo_attr_str(c, e));
      return;
    }
  }
}

/* ------------------------------------------------------------------ */
/* reduce / reduce_window: N inputs, then N init values */

/* Returns N after checking that the operands and results are tensors (*OK),
 * or -1 after reporting an odd number of operands. */
static int reduce_arity(Context *c, const Op *op, bool *ok) {
  int nops = op->noperands;
  if (nops < 2 || nops % 2) {
    op_error(c, op, "expects an even number of operands (inputs and init values), but got %d", nops);
    return -1;
  }
  *ok = true;
  for (int i = 0; i < nops; i++) *ok &= vo_require_tensor_operand(c, op, i);
  for (int i = 0; i < op->nresults; i++) *ok &= vo_require_tensor_result(c, op, i);
  return nops / 2;
}

static bool one_result_per_input(Context *c, const Op *op, int n) {
  if (op->nresults == n || c->infer) return true;
  op_error(c, op, "expects %d results (one per input), but got %d", n, op->nresults);
  return false;
}

/* Inputs of compatible shapes, 0-d init values of their element types, and
 * a reduction body giving the result element types.  Returns false when the
 * input shapes differ (the caller stops there). */
static bool check_reduce_inputs(Context *c, const Op *op, int n) {
  const Type *in0 = vo_operand_type(op, 0);
  for (int i = 1; i < n; i++)
    if (!vo_shapes_compatible(in0, vo_operand_type(op, i))) {
      op_error(c, op, "expects all inputs to have compatible shapes, but got '%s' and '%s'", vo_type_str(c, in0),
               vo_type_str(c, vo_operand_type(op, i)));
      return false;
    }
  for (int i = 0; i < n; i++) {
    const Type *in = vo_operand_type(op, i), *init = vo_operand_type(op, n + i);
    if (vo_rank(init) > 0)
      op_error(c, op, "expects init value #%d to be a 0-dimensional tensor, but got '%s'", i, vo_type_str(c, init));
    else if (!vo_elems_compatible(in, init))
      op_error(c, op, "expects input #%d and init value #%d to have the same element type, but got '%s' and '%s'", i,
               i, vo_type_str(c, in), vo_type_str(c, init));
  }
  const Type **in_types = arena_alloc(&c->arena, sizeof(Type *) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) in_types[i] = vo_operand_type(op, i);
  ElemKind *elems = arena_alloc(&c->arena, sizeof(ElemKind) * (size_t)(n + 1));
  if (vo_check_reducer(c, op, 0, "reduction body", n, in_types, elems))
    for (int i = 0; i < n; i++) {
      const Type *res = vo_result_type(op, i);
      if (vo_builtin_elem(res) && elems[i] < ELEM_COUNT && res->elem != elems[i])
        op_error(c, op, "expects result #%d to have element type %s (from the reduction body), but got '%s'", i,
                 elem_name(elems[i]), vo_type_str(c, res));
    }
  return true;
}

/* ------------------------------------------------------------------ */
/* reduce */

void verify_reduce(Context *c, Op *op) {
  bool ok;
  int n = reduce_arity(c, op, &ok);
  if (n < 0) return;
  I64List dims;
  AttrRead ad = vo_i64_list_attr(c, op, "dimensions", true, &dims);
  ok &= one_result_per_input(c, op, n);
  if (!ok || !check_reduce_inputs(c, op, n)) return;
  const Type *in0 = vo_operand_type(op, 0);
  if (ad != AR_OK || !vo_is_ranked(in0)) return;
  if (!vo_check_dims(c, op, "dimensions", &dims, in0->rank, true)) return;
  int rank = in0->rank - dims.n;
  int64_t *d = new_dims(c, rank);
  for (int i = 0, k = 0; i < in0->rank; i++)
    if (!vo_list_contains(&dims, i)) d[k++] = in0->dims[i];
  for (int i = 0; i < n; i++) expect_shape(c, op, i, rank, d);
}

/* ------------------------------------------------------------------ */
/* reduce_window */

void verify_reduce_window(Context *c, Op *op) {
  bool ok;
  int n = reduce_arity(c, op, &ok);
  if (n < 0) return;
  ok &= one_result_per_input(c, op, n);
  I64List wd;
  AttrRead aw = vo_i64_list_attr(c, op, "window_dimensions", true, &wd);
  if (!ok || !check_reduce_inputs(c, op, n)) return;
  const Type *in0 = vo_operand_type(op, 0);
  int rank = vo_is_ranked(in0) ? in0->rank : (aw == AR_OK ? wd.n : -1);
  if (aw == AR_OK && rank >= 0 && wd.n != rank) {
    op_error(c, op, "window_dimensions should have %d elements (the input rank), but has %d elements", rank, wd.n);
    return;
  }
  if (aw == AR_OK)
    for (int i = 0; i < wd.n; i++)
      if (wd.v[i] <= 0) {
        op_error(c, op, "expects window_dimensions to be positive, but got %s", vo_list_str(c, wd.n, wd.v));
        aw = AR_BAD;
        break;
      }
  if (rank < 0) return;
  const int64_t *strides = positive_list(c, op, "window_strides", rank, false);
  const int64_t *bdil = positive_list(c, op, "base_dilations", rank, false);
  const int64_t *wdil = positive_list(c, op, "window_dilations", rank, false);
  const int64_t *pad = padding_pairs(c, op, "padding", rank);
  if (aw != AR_OK || !strides || !bdil || !wdil || !pad || !vo_is_ranked(in0)) return;
  int64_t *d = new_dims(c, rank);
  for (int i = 0; i < rank; i++) {
    if (!vo_dim_known(in0->dims[i])) {
      d[i] = DIM_DYNAMIC;
      continue;
    }
    __int128 w = num_windows(in0->dims[i], bdil[i], pad[2 * i], pad[2 * i + 1], wd.v[i], wdil[i], strides[i]);
    d[i] = w > INT64_MAX ? DIM_DYNAMIC : (int64_t)w;
  }
  for (int i = 0; i < n; i++) expect_shape(c, op, i, rank, d);
}

/* ------------------------------------------------------------------ */
/* select_and_scatter */

/* select_and_scatter's select region: (tensor<E>, tensor<E>) -> tensor<i1>
 * with E the operand x's element type. */
static void check_select_region(Context *c, Op *op, const Type *x) {
  Block *sel = vo_region_block(op, 0);
  if (sel) {
    if (sel->nargs != 2) {
      op_error(c, op, "select region must take 2 parameters, but takes %d parameter(s)", sel->nargs);
    } else {
      for (int i = 0; i < 2; i++) {
        const Type *t = sel->args[i].type;
        if (t && (!vo_is_tensor(t) || t->rank > 0 || !vo_elems_compatible(t, x)))
          op_error(c, op, "select region parameter #%d must be a 0-dimensional tensor of the operand element type, "
                   "but got '%s'", i, vo_type_str(c, t));
      }
    }
    const Op *ret = vo_block_return(sel);
    if (ret) {
      const Type *rt = vo_operand_type(ret, 0);
      if (ret->noperands != 1)
        op_error(c, op, "select region must return 1 value, but returns %d", ret->noperands);
      else if (rt && (!vo_is_tensor(rt) || rt->rank > 0 || (vo_builtin_elem(rt) && rt->elem != ELEM_I1)))
        op_error(c, op, "select region must return tensor<i1>, but returns '%s'", vo_type_str(c, rt));
    }
  }
}

/* window_dimensions of a rank-`rank` select_and_scatter: positive, one
 * per dimension (C4: absent is an empty list, so only a rank-0 operand may
 * leave it out); NULL after a diagnostic. */
static const int64_t *select_window(Context *c, Op *op, int rank) {
  I64List wd;
  AttrRead aw = vo_i64_list_attr(c, op, "window_dimensions", false, &wd);
  const int64_t *win = NULL;
  if (aw == AR_OK) {
    if (wd.n != rank) {
      op_error(c, op, "window_dimensions should have %d elements (the operand rank), but has %d elements", rank, wd.n);
    } else {
      win = wd.v;
      for (int i = 0; i < rank; i++)
        if (wd.v[i] <= 0) {
          op_error(c, op, "expects window_dimensions to be positive, but got %s", vo_list_str(c, wd.n, wd.v));
          win = NULL;
          break;
        }
    }
  } else if (aw == AR_ABSENT && rank != 0) {
    op_error(c, op, "window_dimensions should have %d elements (the operand rank), but is absent", rank);
  } else if (aw == AR_ABSENT) {
    int64_t *ones = new_dims(c, rank);
    for (int i = 0; i < rank; i++) ones[i] = 1;
    win = ones;
  }
  return win;
}

void verify_select_and_scatter(Context *c, Op *op) {
  bool ok = true;
  for (int i = 0; i < 3; i++) ok &= vo_require_tensor_operand(c, op, i);
  ok &= vo_require_tensor_result(c, op, 0);
  if (!ok) return;
  const Type *x = vo_operand_type(op, 0), *src = vo_operand_type(op, 1), *init = vo_operand_type(op, 2),
             *res = vo_result_type(op, 0);
  if (!vo_elems_compatible(x, src))
    op_error(c, op, "expects source to have the element type of the operand, but got '%s' and '%s'",
             vo_type_str(c, src), vo_type_str(c, x));
  if (vo_rank(init) > 0)
    op_error(c, op, "expects init_value to be a 0-dimensional tensor, but got '%s'", vo_type_str(c, init));
  else if (!vo_elems_compatible(x, init))
    op_error(c, op, "expects init_value to have the element type of the operand, but got '%s' and '%s'",
             vo_type_str(c, init), vo_type_str(c, x));
  if (!vo_shapes_compatible(x, res))
    op_error(c, op, "expects the result to have the shape of the operand, but got '%s' and '%s'", vo_type_str(c, res),
             vo_type_str(c, x));
  check_select_region(c, op, x);
  ElemKind e;
  const Type *in_types[1] = {x};
  if (vo_check_reducer(c, op, 1, "scatter region", 1, in_types, &e) && e < ELEM_COUNT && vo_builtin_elem(res) &&
      res->elem != e)
    op_error(c, op, "expects the result to have element type %s (from the scatter region), but got '%s'",
             elem_name(e), vo_type_str(c, res));
  if (!vo_is_ranked(x)) return;
  int rank = x->rank;
  const int64_t *win = select_window(c, op, rank);
  const int64_t *strides = positive_list(c, op, "window_strides", rank, false);
  const int64_t *pad = padding_pairs(c, op, "padding", rank);
  if (!win || !strides || !pad) return;
  int64_t *d = new_dims(c, rank);
  for (int i = 0; i < rank; i++) {
    if (!vo_dim_known(x->dims[i])) {
      d[i] = DIM_DYNAMIC;
      continue;
    }
    __int128 w = num_windows(x->dims[i], 1, pad[2 * i], pad[2 * i + 1], win[i], 1, strides[i]);
    d[i] = w > INT64_MAX ? DIM_DYNAMIC : (int64_t)w;
  }
  if (!vo_is_ranked(src)) return;
  if (src->rank != rank) {
    op_error(c, op, "expects source to have rank %d, but got '%s'", rank, vo_type_str(c, src));
    return;
  }
  for (int i = 0; i < rank; i++)
    if (!vo_dims_compatible(src->dims[i], d[i])) {
      op_error(c, op, "expects source shape to be %s (the number of windows), but got '%s'", vo_list_str(c, rank, d),
               vo_type_str(c, src));
      return;
    }
}

/* ------------------------------------------------------------------ */
/* dot / dot_general */

void verify_dot(Context *c, Op *op) {
  bool ok = vo_require_tensor_operand(c, op, 0);
  ok &= vo_require_tensor_operand(c, op, 1);
  ok &= vo_require_tensor_result(c, op, 0);
  check_precision_config(c, op);
  if (!ok) return;
  const Type *l = vo_operand_type(op, 0), *r = vo_operand_type(op, 1);
  if (!vo_elems_compatible(l, r))
    op_error(c, op, "expects lhs and rhs to have the same element type, but got '%s' and '%s'", vo_type_str(c, l),
             vo_type_str(c, r));
  if (!vo_is_ranked(l) || !vo_is_ranked(r)) return;
  if (l->rank < 1 || l->rank > 2 || r->rank < 1 || r->rank > 2) {
    op_error(c, op, "expects lhs and rhs of rank 1 or 2, but got '%s' and '%s'", vo_type_str(c, l),
             vo_type_str(c, r));
    return;
  }
  if (!vo_dims_compatible(l->dims[l->rank - 1], r->dims[0])) {
    op_error(c, op, "expects the contracting dimensions to have the same size, but got '%s' and '%s'",
             vo_type_str(c, l), vo_type_str(c, r));
    return;
  }
  int64_t d[2];
  int rank = 0;
  if (l->rank == 2) d[rank++] = l->dims[0];
  if (r->rank == 2) d[rank++] = r->dims[1];
  expect_shape(c, op, 0, rank, d);
}

/* The common part of dot_general and chlo.ragged_dot: batching and
 * contracting dimension lists.  Returns true when they are consistent. */
static bool check_dot_dims(Context *c, const Op *op, const Type *l, const Type *r, const I64List *lb,
                           const I64List *rb, const I64List *lc, const I64List *rc) {
  bool good = true;
  if (lb->n != rb->n) {
    op_error(c, op, "lhs and rhs should have the same number of batching dimensions (%d vs %d)", lb->n, rb->n);
    good = false;
  }
  if (lc->n != rc->n) {
    op_error(c, op, "lhs and rhs should have the same number of contracting dimensions (%d vs %d)", lc->n, rc->n);
    good = false;
  }
  int64_t lbound = vo_is_ranked(l) ? l->rank : INT64_MAX, rbound = vo_is_ranked(r) ? r->rank : INT64_MAX;
  good &= vo_check_dims(c, op, "lhs_batching_dimensions", lb, lbound, true);
  good &= vo_check_dims(c, op, "rhs_batching_dimensions", rb, rbound, true);
  good &= vo_check_dims(c, op, "lhs_contracting_dimensions", lc, lbound, true);
  good &= vo_check_dims(c, op, "rhs_contracting_dimensions", rc, rbound, true);
  for (int s = 0; s < 2; s++) { /* lhs, rhs */
    const I64List *batch = s ? rb : lb, *contr = s ? rc : lc;
    const char *side = s ? "rhs" : "lhs";
    for (int i = 0; i < contr->n; i++)
      if (vo_list_contains(batch, contr->v[i])) {
        op_error(c, op, "has duplicated dimension %" PRId64 " in %s_batching_dimensions and %s_contracting_dimensions",
                 contr->v[i], side, side);
        good = false;
      }
  }
  if (!good) return false;
  for (int k = 0; k < 2; k++) { /* batching, contracting */
    const I64List *ld = k ? lc : lb, *rd = k ? rc : rb;
    for (int i = 0; i < ld->n; i++) {
      int64_t a = vo_dim(l, (int)ld->v[i]), b = vo_dim(r, (int)rd->v[i]);
      if (!vo_dims_compatible(a, b)) {
        op_error(c, op, "%s dimension sizes must match for lhs/rhs: lhs dimension %" PRId64 " has size %" PRId64
                 ", rhs dimension %" PRId64 " has size %" PRId64, k ? "contracting" : "batching", ld->v[i], a,
                 rd->v[i], b);
        good = false;
      }
    }
  }
  return good;
}

/* C21: an algorithm (its fields are checked when it is parsed) needs the
 * DEFAULT precision config. */
static void check_dot_algorithm_precision(Context *c, Op *op) {
  const Attr *alg = op_attr(op, "algorithm"), *pc = op_attr(op, "precision_config");
  if (!alg) return;
  if (alg->kind != ATTR_DIALECT || strcmp(alg->u.dialect.name, "stablehlo.dot_algorithm") != 0) {
    op_error(c, op, "attribute 'algorithm' must be a #stablehlo.dot_algorithm<...> attribute");
    return;
  }
  if (!pc || pc->kind != ATTR_ARRAY) return;
  for (int i = 0; i < pc->u.array.n; i++) {
    const char *v = attr_enum_value(pc->u.array.items[i]);
    if (v && strcmp(v, "DEFAULT") != 0) {
      op_error(c, op, "must specify DEFAULT precision config when algorithm is set, but precision #%d is %s", i, v);
      return;
    }
  }
}

void verify_dot_general(Context *c, Op *op) {
  bool ok = vo_require_tensor_operand(c, op, 0);
  ok &= vo_require_tensor_operand(c, op, 1);
  ok &= vo_require_tensor_result(c, op, 0);
  const Attr *dn = NULL;
  AttrRead ad = vo_dialect_attr(c, op, "dot_dimension_numbers", "stablehlo.dot", true, &dn);
  check_precision_config(c, op);
  check_dot_algorithm_precision(c, op);
  if (!ok) return;
  const Type *l = vo_operand_type(op, 0), *r = vo_operand_type(op, 1);
  if (!vo_elems_compatible(l, r))
    op_error(c, op, "expects lhs and rhs to have the same element type, but got '%s' and '%s'", vo_type_str(c, l),
             vo_type_str(c, r));
  if (ad != AR_OK) return;
  I64List lb, rb, lc, rc;
  if (!vo_dialect_list(c, op, dn, "lhs_batching_dimensions", &lb) ||
      !vo_dialect_list(c, op, dn, "rhs_batching_dimensions", &rb) ||
      !vo_dialect_list(c, op, dn, "lhs_contracting_dimensions", &lc) ||
      !vo_dialect_list(c, op, dn, "rhs_contracting_dimensions", &rc))
    return;
  if (!check_dot_dims(c, op, l, r, &lb, &rb, &lc, &rc)) return;
  if (!vo_is_ranked(l) || !vo_is_ranked(r)) return;
  int rank = l->rank + r->rank - 2 * lc.n - lb.n;
  if (rank < 0) return;
  int64_t *d = new_dims(c, rank);
  int k = 0;
  for (int i = 0; i < lb.n; i++) d[k++] = l->dims[lb.v[i]];
  for (int i = 0; i < l->rank; i++)
    if (!vo_list_contains(&lb, i) && !vo_list_contains(&lc, i)) d[k++] = l->dims[i];
  for (int i = 0; i < r->rank; i++)
    if (!vo_list_contains(&rb, i) && !vo_list_contains(&rc, i)) d[k++] = r->dims[i];
  expect_shape(c, op, 0, k, d);
}

/* ------------------------------------------------------------------ */
/* convolution / dynamic_conv */

/* feature_group_count and batch_group_count (C9-C12 of convolution);
 * false when they are unusable for the shape checks. */
static bool conv_group_counts(Context *c, Op *op, int64_t *fgc, int64_t *bgc) {
  *fgc = *bgc = 1;
  AttrRead af = vo_int_attr(c, op, "feature_group_count", false, fgc);
  AttrRead ab = vo_int_attr(c, op, "batch_group_count", false, bgc);
  bool groups_ok = af != AR_BAD && ab != AR_BAD;
  if (af != AR_BAD && *fgc <= 0) {
    op_error(c, op, "expects feature_group_count to be a positive number, got %" PRId64 ".", *fgc);
    groups_ok = false;
  }
  if (ab != AR_BAD && *bgc <= 0) {
    op_error(c, op, "expects batch_group_count to be a positive number, got %" PRId64 ".", *bgc);
    groups_ok = false;
  }
  if (groups_ok && *fgc != 1 && *bgc != 1) {
    op_error(c, op, "expects batch_group_count and feature_group_count not to be both greater than 1. Got %" PRId64
             " and %" PRId64 " resp.", *bgc, *fgc);
    groups_ok = false;
  }
  return groups_ok;
}

/* The window attributes of an N-d convolution; *pad is NULL for
 * dynamic_conv (its padding is operand 2), and every list NULL when that
 * padding is not a constant. */
static void conv_window(Context *c, Op *op, int N, const int64_t **strides, const int64_t **ldil,
                        const int64_t **rdil, const int64_t **pad) {
  int ns = N - 2;
  bool dynamic = op->kind == OP_DYNAMIC_CONV;
  *strides = *ldil = *rdil = *pad = NULL;
  const Op *pdef = dynamic && op->noperands > 2 ? op->operands[2]->def : NULL;
  if (dynamic && (!pdef || pdef->kind != OP_CONSTANT)) {
    /* as upstream: the window is checked once the padding is known (the
     * refinement makes it a constant, then a convolution) */
    const Type *p = vo_operand_type(op, 2);
    if (vo_is_ranked(p) && (p->rank != 2 || !vo_dims_compatible(p->dims[0], ns) || !vo_dims_compatible(p->dims[1], 2)))
      op_error(c, op, "expects padding to have shape [%d, 2], but got '%s'", ns, vo_type_str(c, p));
    return;
  }
  *strides = positive_list(c, op, "window_strides", ns, false);
  *ldil = positive_list(c, op, "lhs_dilation", ns, false);
  *rdil = positive_list(c, op, "rhs_dilation", ns, false);
  *pad = dynamic ? NULL : padding_pairs(c, op, "padding", ns);
  int nrev = 0;
  bool *rev = NULL;
  if (vo_bool_list_attr(c, op, "window_reversal", false, &nrev, &rev) == AR_OK && nrev != ns)
    op_error(c, op, "window_reversal should have %d elements, but has %d elements", ns, nrev);
  if (dynamic) {
    const Type *p = vo_operand_type(op, 2);
    if (vo_is_ranked(p) && (p->rank != 2 || !vo_dims_compatible(p->dims[0], ns) || !vo_dims_compatible(p->dims[1], 2)))
      op_error(c, op, "expects padding to have shape [%d, 2], but got '%s'", ns, vo_type_str(c, p));
  }
}

/* C13, C18, C20: the input, kernel and output dimension numbers of an N-d
 * convolution are each a permutation of its dimensions. */
static bool conv_dimension_numbers(Context *c, Op *op, const ConvDims *cd, int N) {
  int ns = N - 2;
  if (cd->nspatial != ns) {
    op_error(c, op, "expects the number of spatial dimensions (%d) to be the input rank minus 2 (%d)", cd->nspatial,
             ns);
    return false;
  }
  if (ns > 0 && (!cd->input_spatial || !cd->kernel_spatial || !cd->output_spatial)) return false;
  int64_t *grp = new_dims(c, N);
  bool dims_ok = true;
  for (int g = 0; g < 3; g++) {
    static const char *const names[] = {"input dimension numbers", "kernel dimension numbers",
                                        "output dimension numbers"};
    if (g == 0) {
      grp[0] = cd->input_batch;
      for (int i = 0; i < ns; i++) grp[1 + i] = cd->input_spatial[i];
      grp[N - 1] = cd->input_feature;
    } else if (g == 1) {
      for (int i = 0; i < ns; i++) grp[i] = cd->kernel_spatial[i];
      grp[N - 2] = cd->kernel_input_feature;
      grp[N - 1] = cd->kernel_output_feature;
    } else {
      grp[0] = cd->output_batch;
      for (int i = 0; i < ns; i++) grp[1 + i] = cd->output_spatial[i];
      grp[N - 1] = cd->output_feature;
    }
    I64List gl = {N, grp};
    dims_ok &= vo_check_dims(c, op, names[g], &gl, N, true);
  }
  return dims_ok;
}

/* C10-C12, C14-C16: the batch and feature sizes divide by the group
 * counts and the kernel's input features match the groups'. */
static void conv_group_sizes(Context *c, Op *op, const Type *l, const Type *r, const ConvDims *cd, int64_t fgc,
                             int64_t bgc) {
  int64_t ib = l->dims[cd->input_batch], ifeat = l->dims[cd->input_feature];
  int64_t kif = r->dims[cd->kernel_input_feature], kof = r->dims[cd->kernel_output_feature];
  if (vo_dim_known(ib) && ib % bgc != 0)
    op_error(c, op, "expects input batch dimension (%" PRId64 ") to be divisible by batch_group_count. Got "
             "batch_group_count = %" PRId64 ".", ib, bgc);
  if (vo_dim_known(ifeat) && ifeat % fgc != 0)
    op_error(c, op, "expects input feature dimension (%" PRId64 ") to be a multiple of feature_group_count. Got "
             "feature_group_count = %" PRId64 ".", ifeat, fgc);
  else if (vo_dim_known(ifeat) && vo_dim_known(kif) && ifeat / fgc != kif)
    op_error(c, op, "expects input feature dimension (%" PRId64 ") / feature_group_count = kernel input feature "
             "dimension (%" PRId64 "). Got feature_group_count = %" PRId64 ".", ifeat, kif, fgc);
  if (vo_dim_known(kof) && kof % bgc != 0)
    op_error(c, op, "expects output feature dimension size (%" PRId64 ") to be a multiple of batch_group_count. Got "
             "batch_group_count = %" PRId64 ".", kof, bgc);
  if (vo_dim_known(kof) && kof % fgc != 0)
    op_error(c, op, "expects kernel output feature dimension (%" PRId64 ") to be divisible by feature_group_count. "
             "For feature_group_count = %" PRId64 ".", kof, fgc);
}

void verify_convolution(Context *c, Op *op) {
  bool dynamic = op->kind == OP_DYNAMIC_CONV;
  bool ok = vo_require_tensor_operand(c, op, 0);
  ok &= vo_require_tensor_operand(c, op, 1);
  if (dynamic) ok &= vo_check_operand(c, op, 2, EM_INT);
  ok &= vo_require_tensor_result(c, op, 0);
  check_precision_config(c, op);
  const Attr *dn = op_attr(op, "dimension_numbers");
  if (!dn) op_error(c, op, "requires attribute 'dimension_numbers'");
  else if (dn->kind != ATTR_CONV_DIMS) {
    op_error(c, op, "attribute 'dimension_numbers' must be a #stablehlo.conv<...> attribute, but got %s",
             vo_attr_str(c, dn));
    dn = NULL;
  }
  int64_t fgc, bgc;
  bool groups_ok = conv_group_counts(c, op, &fgc, &bgc);
  if (!ok) return;
  const Type *l = vo_operand_type(op, 0), *r = vo_operand_type(op, 1), *res = vo_result_type(op, 0);
  if (!vo_elems_compatible(l, r))
    op_error(c, op, "expects lhs and rhs to have the same element type, but got '%s' and '%s'", vo_type_str(c, l),
             vo_type_str(c, r));
  if (!vo_is_ranked(l) || !vo_is_ranked(r)) return;
  if (l->rank != r->rank) {
    op_error(c, op, "expects convolution arguments to have same number of dimensions. Got: '%s' and '%s'.",
             vo_type_str(c, l), vo_type_str(c, r));
    return;
  }
  int N = l->rank;
  if (N < 2) {
    op_error(c, op, "expects convolution arguments to have >= 2 dimensions. Got: '%s' and '%s'.", vo_type_str(c, l),
             vo_type_str(c, r));
    return;
  }
  expect_rank(c, op, 0, N);
  const int64_t *strides, *ldil, *rdil, *pad;
  conv_window(c, op, N, &strides, &ldil, &rdil, &pad);
  if (!dn || !conv_dimension_numbers(c, op, &dn->u.conv, N)) return;
  const ConvDims *cd = &dn->u.conv;
  for (int s = 0; s < N - 2; s++) {
    int64_t win = r->dims[cd->kernel_spatial[s]];
    if (vo_dim_known(win) && win <= 0) {
      op_error(c, op, "expects window to have positive value for %d-th window dimension, but got %" PRId64
               " (kernel dimension %" PRId64 ")", s, win, cd->kernel_spatial[s]);
      return;
    }
  }
  if (groups_ok) conv_group_sizes(c, op, l, r, cd, fgc, bgc);
  if (!c->infer && (!vo_is_ranked(res) || res->rank != N)) return;
  int64_t *d = new_dims(c, N), ib = l->dims[cd->input_batch];
  for (int i = 0; i < N; i++) d[i] = DIM_DYNAMIC;
  if (groups_ok && vo_dim_known(ib)) d[cd->output_batch] = ib / bgc;
  d[cd->output_feature] = r->dims[cd->kernel_output_feature];
  if (pad && strides && ldil && rdil)
    for (int s = 0; s < N - 2; s++) {
      int64_t in = l->dims[cd->input_spatial[s]], win = r->dims[cd->kernel_spatial[s]];
      if (!vo_dim_known(in) || !vo_dim_known(win)) continue;
      __int128 w = num_windows(in, ldil[s], pad[2 * s], pad[2 * s + 1], win, rdil[s], strides[s]);
      if (w <= INT64_MAX) d[cd->output_spatial[s]] = (int64_t)w;
    }
  expect_shape(c, op, 0, N, d);
}

/* ------------------------------------------------------------------ */
/* fft */

static const char *const fft_types[] = {"FFT", "IFFT", "RFFT", "IRFFT", NULL};

void verify_fft(Context *c, Op *op) {
  bool ok = vo_check_operand(c, op, 0, EM_FLOAT | EM_COMPLEX);
  ok &= vo_check_result(c, op, 0, EM_FLOAT | EM_COMPLEX);
  const char *ty = NULL;
  AttrRead at = vo_enum_attr(c, op, "fft_type", "fft_type", fft_types, true, &ty);
  I64List len;
  AttrRead al = vo_i64_list_attr(c, op, "fft_length", true, &len);
  if (al == AR_OK && (len.n < 1 || len.n > 3)) {
    op_error(c, op, "fft_length must have 1 to 3 elements, but has %d", len.n);
    al = AR_BAD;
  }
  if (!ok) return;
  const Type *in = vo_operand_type(op, 0), *res = vo_result_type(op, 0);
  if (al == AR_OK && vo_is_ranked(in) && len.n > in->rank) {
    op_error(c, op, "operand rank (%d) must not be less than the fft_length size (%d)", in->rank, len.n);
    al = AR_BAD;
  }
  if (at != AR_OK) return;
  bool real_in = !strcmp(ty, "RFFT"), real_out = !strcmp(ty, "IRFFT");
  if (vo_builtin_elem(in) && vo_builtin_elem(res)) {
    ElemKind ei = in->elem, eo = res->elem;
    bool good;
    if (real_in) good = elem_is_float(ei) && elem_is_complex(eo) && elem_complex_part(eo) == ei;
    else if (real_out) good = elem_is_complex(ei) && elem_is_float(eo) && elem_complex_part(ei) == eo;
    else good = elem_is_complex(ei) && ei == eo;
    if (!good) {
      op_error(c, op, "%s does not map operand element type %s to result element type %s", ty, elem_name(ei),
               elem_name(eo));
      return;
    }
  }
  if (!vo_is_ranked(in) || !vo_is_ranked(res)) return;
  if (res->rank != in->rank) {
    op_error(c, op, "expects the result to have the operand's rank %d, but got '%s'", in->rank, vo_type_str(c, res));
    return;
  }
  int R = in->rank;
  if (R == 0) return;
  /* C4: trailing dims of the real tensor equal fft_length */
  const Type *real = real_in ? in : real_out ? res : NULL;
  if (real && al == AR_OK)
    for (int i = 0; i < len.n; i++) {
      int64_t dd = real->dims[R - len.n + i];
      if (vo_dim_known(dd) && dd != len.v[i]) {
        op_error(c, op, "expects the trailing dimensions of the real %s to be fft_length %s, but got '%s'",
                 real_in ? "operand" : "result", vo_list_str(c, len.n, len.v), vo_type_str(c, real));
        return;
      }
    }
  /* IRFFT: the complex operand's trailing dimensions are fft_length's, the
   * last one fft_length[-1] / 2 + 1 (what the result's C4 implies; C5 below
   * checks that last one against a static result). */
  if (real_out && al == AR_OK)
    for (int i = 0; i < len.n - (vo_dim_known(res->dims[R - 1]) ? 1 : 0); i++) {
      int64_t dd = in->dims[R - len.n + i], want = i == len.n - 1 ? len.v[i] / 2 + 1 : len.v[i];
      if (vo_dim_known(dd) && dd != want) {
        op_error(c, op, "IRFFT requires the operand's trailing dimensions to be fft_length %s with the last one "
                 "fft_length[-1] / 2 + 1, but got '%s' (dimension %d is %" PRId64 ", not %" PRId64 ")",
                 vo_list_str(c, len.n, len.v), vo_type_str(c, in), R - len.n + i, dd, want);
        return;
      }
    }
  /* C5 */
  int64_t *d = new_dims(c, R);
  for (int i = 0; i < R; i++) d[i] = in->dims[i];
  if (real_in) {
    int64_t last = in->dims[R - 1];
    d[R - 1] = vo_dim_known(last) ? (last == 0 ? 0 : last / 2 + 1) : DIM_DYNAMIC;
  } else if (real_out) {
    int64_t last = res->dims[R - 1];
    int64_t want = vo_dim_known(last) ? (last == 0 ? 0 : last / 2 + 1) : DIM_DYNAMIC;
    if (!vo_dims_compatible(in->dims[R - 1], want)) {
      op_error(c, op, "expects the last operand dimension to be %" PRId64 " for a result of '%s', but got '%s'", want,
               vo_type_str(c, res), vo_type_str(c, in));
      return;
    }
    d[R - 1] = last;
  }
  expect_shape(c, op, 0, R, d);
}

/* ------------------------------------------------------------------ */
/* cholesky, triangular_solve */

void verify_cholesky(Context *c, Op *op) {
  bool ok = vo_check_operand(c, op, 0, EM_FLOAT | EM_COMPLEX);
  ok &= vo_check_result(c, op, 0, EM_FLOAT | EM_COMPLEX);
  bool lower;
  vo_bool_attr(c, op, "lower", false, &lower);
  if (!ok) return;
  const Type *a = vo_operand_type(op, 0), *res = vo_result_type(op, 0);
  if (!vo_types_compatible(a, res))
    op_error(c, op, "requires the result type '%s' to match the operand type '%s'", vo_type_str(c, res),
             vo_type_str(c, a));
  if (!vo_is_ranked(a)) return;
  if (a->rank < 2) {
    op_error(c, op, "argument 'a' must have rank >= 2, got shape %s", vo_shape_str(c, a));
    return;
  }
  if (!vo_dims_compatible(a->dims[a->rank - 2], a->dims[a->rank - 1]))
    op_error(c, op, "minor dimensions of 'a' must have equal size, got shape %s", vo_shape_str(c, a));
}

static const char *const transposes[] = {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT", NULL};

void verify_triangular_solve(Context *c, Op *op) {
  bool ok = vo_check_operand(c, op, 0, EM_FLOAT | EM_COMPLEX);
  ok &= vo_check_operand(c, op, 1, EM_FLOAT | EM_COMPLEX);
  ok &= vo_check_result(c, op, 0, EM_FLOAT | EM_COMPLEX);
  bool left = false, flag;
  vo_bool_attr(c, op, "left_side", false, &left);
  vo_bool_attr(c, op, "lower", false, &flag);
  vo_bool_attr(c, op, "unit_diagonal", false, &flag);
  vo_enum_attr(c, op, "transpose_a", "transpose", transposes, false, NULL);
  if (!ok) return;
  const Type *a = vo_operand_type(op, 0), *b = vo_operand_type(op, 1), *res = vo_result_type(op, 0);
  if (!vo_elems_compatible(a, b))
    op_error(c, op, "expects 'a' and 'b' to have the same element type, but got '%s' and '%s'", vo_type_str(c, a),
             vo_type_str(c, b));
  if (!vo_types_compatible(b, res))
    op_error(c, op, "requires the result type '%s' to match the type of 'b' '%s'", vo_type_str(c, res),
             vo_type_str(c, b));
  if (!vo_is_ranked(a) || !vo_is_ranked(b)) return;
  if (a->rank < 2) {
    op_error(c, op, "operand 'a' must have rank >= 2, but got '%s'", vo_type_str(c, a));
    return;
  }
  if (b->rank != a->rank) {
    op_error(c, op, "operands must have equal rank, but got '%s' and '%s'", vo_type_str(c, a), vo_type_str(c, b));
    return;
  }
  int R = a->rank;
  if (!vo_dims_compatible(a->dims[R - 2], a->dims[R - 1])) {
    op_error(c, op, "the two minor dimensions of operand 'a' must have equal size, but got '%s'", vo_type_str(c, a));
    return;
  }
  int64_t bd = b->dims[left ? R - 2 : R - 1];
  if (!vo_dims_compatible(a->dims[R - 1], bd))
    op_error(c, op, "shared dimension of operands 'a' and 'b' does not match, but got '%s' and '%s'",
             vo_type_str(c, a), vo_type_str(c, b));
  for (int i = 0; i < R - 2; i++)
    if (!vo_dims_compatible(a->dims[i], b->dims[i])) {
      op_error(c, op, "batch dimensions of the operands must match, but got '%s' and '%s'", vo_type_str(c, a),
               vo_type_str(c, b));
      return;
    }
}

/* ------------------------------------------------------------------ */
/* batch norm */

void verify_batch_norm(Context *c, Op *op) {
  bool ok = true;
  for (int i = 0; i < op->noperands; i++) ok &= vo_check_operand(c, op, i, EM_FLOAT);
  for (int i = 0; i < op->nresults; i++) ok &= vo_check_result(c, op, i, EM_FLOAT);
  int64_t fi;
  AttrRead af = vo_int_attr(c, op, "feature_index", true, &fi);
  const Attr *eps = op_attr(op, "epsilon");
  if (!eps) op_error(c, op, "requires attribute 'epsilon'");
  else if (eps->kind != ATTR_FLOAT)
    op_error(c, op, "attribute 'epsilon' must be a float, but got %s", vo_attr_str(c, eps));
  if (!ok) return;
  /* C2: one element type */
  const Type *x = vo_operand_type(op, 0);
  for (int i = 1; i < op->noperands + op->nresults; i++) {
    const Type *t = i < op->noperands ? vo_operand_type(op, i) : vo_result_type(op, i - op->noperands);
    if (!vo_elems_compatible(x, t)) {
      op_error(c, op, "requires the same element type for all operands and results");
      break;
    }
  }
  /* the operand-shaped values and the feature-sized ones */
  int big[3], nbig = 0, small[6], nsmall = 0; /* index: operand i >= 0, result -(i+1) */
  if (op->kind == OP_BATCH_NORM_INFERENCE) {
    big[nbig++] = -1;
    for (int i = 1; i <= 4; i++) small[nsmall++] = i;
  } else if (op->kind == OP_BATCH_NORM_TRAINING) {
    big[nbig++] = -1;
    small[nsmall++] = 1;
    small[nsmall++] = 2;
    small[nsmall++] = -2;
    small[nsmall++] = -3;
  } else {
    big[nbig++] = 4;
    big[nbig++] = -1;
    for (int i = 1; i <= 3; i++) small[nsmall++] = i;
    small[nsmall++] = -2;
    small[nsmall++] = -3;
  }
  for (int k = 0; k < nbig; k++) {
    int i = big[k];
    const Type *t = i >= 0 ? vo_operand_type(op, i) : vo_result_type(op, -i - 1);
    if (!vo_shapes_compatible(x, t))
      op_error(c, op, "expects %s #%d to have the shape of the operand, but got '%s' and '%s'",
               i >= 0 ? "operand" : "result", i >= 0 ? i : -i - 1, vo_type_str(c, t), vo_type_str(c, x));
  }
  if (af != AR_OK || !vo_is_ranked(x)) return;
  if (fi < 0 || fi >= x->rank) {
    op_error(c, op, "expects feature_index to be smaller than the rank of operand type; got feature_index %" PRId64
             ", and rank %d.", fi, x->rank);
    return;
  }
  int64_t fsize = x->dims[fi];
  for (int k = 0; k < nsmall; k++) {
    int i = small[k];
    const Type *t = i >= 0 ? vo_operand_type(op, i) : vo_result_type(op, -i - 1);
    if (!vo_is_ranked(t)) continue;
    if (t->rank != 1 || !vo_dims_compatible(t->dims[0], fsize))
      op_error(c, op, "expects %s #%d to be a 1-dimensional tensor of size %s (the feature dimension), but got '%s'",
               i >= 0 ? "operand" : "result", i >= 0 ? i : -i - 1,
               vo_dim_known(fsize) ? vo_i128_str(c, fsize) : "?", vo_type_str(c, t));
  }
}

/* ------------------------------------------------------------------ */
/* sort */

void verify_sort(Context *c, Op *op) {
  int n = op->noperands;
  bool ok = true;
  for (int i = 0; i < n; i++) ok &= vo_require_tensor_operand(c, op, i);
  for (int i = 0; i < op->nresults; i++) ok &= vo_require_tensor_result(c, op, i);
  int64_t dim = -1;
  AttrRead ad = vo_int_attr(c, op, "dimension", false, &dim);
  bool stable;
  vo_bool_attr(c, op, "is_stable", false, &stable);
  if (n < 1) {
    op_error(c, op, "expects at least 1 input");
    return;
  }
  if (op->nresults != n && !c->infer) {
    op_error(c, op, "expects %d results (one per input), but got %d", n, op->nresults);
    ok = false;
  }
  if (!ok) return;
  const Type *in0 = vo_operand_type(op, 0);
  for (int i = 0; i < n; i++) {
    const Type *in = vo_operand_type(op, i), *res = vo_result_type(op, i);
    if (!vo_types_compatible(in, res))
      op_error(c, op, "expects result #%d to have the type of input #%d, but got '%s' and '%s'", i, i,
               vo_type_str(c, res), vo_type_str(c, in));
    if (i > 0 && !vo_shapes_compatible(in0, in)) {
      op_error(c, op, "requires the same shape for all inputs, but got '%s' and '%s'", vo_type_str(c, in0),
               vo_type_str(c, in));
      return;
    }
  }
  if (ad != AR_BAD && vo_is_ranked(in0)) {
    int64_t R = in0->rank;
    if (R > 0 && (dim < -R || dim >= R))
      op_error(c, op, "dimension attribute value must be in range [-%" PRId64 ", %" PRId64 "), but found %" PRId64, R,
               R, dim);
  }
  Block *b = vo_region_block(op, 0);
  if (!b) return;
  if (b->nargs != 2 * n) {
    op_error(c, op, "comparator must take %d parameters, but takes %d parameter(s)", 2 * n, b->nargs);
    return;
  }
  for (int i = 0; i < 2 * n; i++) {
    const Type *t = b->args[i].type, *in = vo_operand_type(op, i / 2);
    if (!t) continue;
    if (!vo_is_tensor(t) || t->rank > 0 || !vo_elems_compatible(t, in)) {
      op_error(c, op, "comparator parameter #%d must be a 0-dimensional tensor of the element type of input #%d, "
               "but got '%s'", i, i / 2, vo_type_str(c, t));
      return;
    }
  }
  const Op *ret = vo_block_return(b);
  if (!ret) return;
  const Type *rt = vo_operand_type(ret, 0);
  if (ret->noperands != 1)
    op_error(c, op, "comparator must return 1 value, but returns %d", ret->noperands);
  else if (rt && (!vo_is_tensor(rt) || rt->rank > 0 || (vo_builtin_elem(rt) && rt->elem != ELEM_I1)))
    op_error(c, op, "comparator must return tensor<i1>, but returns '%s'", vo_type_str(c, rt));
}

/* ------------------------------------------------------------------ */
/* rng, rng_bit_generator */

static const char *const rng_distributions[] = {"UNIFORM", "NORMAL", NULL};
static const char *const rng_algorithms[] = {"DEFAULT", "THREE_FRY", "PHILOX", NULL};

void verify_rng(Context *c, Op *op) {
  const char *dist = NULL;
  vo_enum_attr(c, op, "rng_distribution", "rng_distribution", rng_distributions, true, &dist);
  bool ok = vo_check_operand(c, op, 0, EM_BOOL | EM_INT | EM_FLOAT);
  ok &= vo_check_operand(c, op, 1, EM_BOOL | EM_INT | EM_FLOAT);
  ok &= vo_check_operand(c, op, 2, EM_INT);
  ok &= vo_check_result(c, op, 0, EM_BOOL | EM_INT | EM_FLOAT);
  if (!ok) return;
  const Type *a = vo_operand_type(op, 0), *b = vo_operand_type(op, 1), *shape = vo_operand_type(op, 2),
             *res = vo_result_type(op, 0);
  for (int i = 0; i < 2; i++) {
    const Type *t = i ? b : a;
    if (vo_rank(t) > 0)
      op_error(c, op, "expects operand #%d to be a 0-dimensional tensor, but got '%s'", i, vo_type_str(c, t));
    if (!vo_elems_compatible(t, res))
      op_error(c, op, "expects operand #%d to have the result element type, but got '%s' and '%s'", i,
               vo_type_str(c, t), vo_type_str(c, res));
  }
  if (dist && !strcmp(dist, "NORMAL") && vo_builtin_elem(a) && !elem_is_float(a->elem))
    op_error(c, op, "NORMAL distribution requires floating-point operands, but got '%s'", vo_type_str(c, a));
  if (vo_rank(shape) > 1)
    op_error(c, op, "expects the shape operand to be a 1-dimensional tensor, but got '%s'", vo_type_str(c, shape));
  else if (vo_rank(shape) == 1 && vo_dim_known(shape->dims[0]) && vo_is_ranked(res) && shape->dims[0] != res->rank)
    op_error(c, op, "shape operand has %" PRId64 " elements, but the result has rank %d", shape->dims[0], res->rank);
  I64List v;
  if (c->infer || !vo_is_ranked(res) || !vo_constant_ints(c, op, 2, &v) || v.n != res->rank) return;
  for (int i = 0; i < v.n; i++)
    if (v.v[i] < 0 || (vo_dim_known(res->dims[i]) && res->dims[i] != v.v[i])) {
      op_error(c, op, "the shape operand %s is incompatible with the result type '%s'", vo_list_str(c, v.n, v.v),
               vo_type_str(c, res));
      return;
    }
}

void verify_rng_bit_generator(Context *c, Op *op) {
  const char *alg = NULL;
  vo_enum_attr(c, op, "rng_algorithm", "rng_algorithm", rng_algorithms, true, &alg);
  bool ok = vo_check_operand(c, op, 0, EM_INT | EM_FLOAT);
  ok &= vo_check_result(c, op, 0, EM_INT | EM_FLOAT);
  ok &= vo_check_result(c, op, 1, EM_INT | EM_FLOAT);
  if (!ok) return;
  const Type *st = vo_operand_type(op, 0), *out_st = vo_result_type(op, 0);
  if (!vo_types_compatible(st, out_st))
    op_error(c, op, "output state shape must be compatible with initial state shape. Got: '%s' and '%s'",
             vo_type_str(c, st), vo_type_str(c, out_st));
  if (!alg || !vo_is_ranked(st) || st->rank != 1 || !vo_dim_known(st->dims[0])) return;
  int64_t size = st->dims[0];
  if (!strcmp(alg, "THREE_FRY") && size != 2)
    op_error(c, op, "output state shape must be compatible with [2], but got '%s'", vo_type_str(c, st));
  else if (!strcmp(alg, "PHILOX") && size != 2 && size != 3)
    op_error(c, op, "output state shape must be compatible with [2] or [3], but got '%s'", vo_type_str(c, st));
}
