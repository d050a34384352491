/* Verification rules of shape ops: broadcast, reshape, transpose, slice,
 * dynamic_slice, dynamic_update_slice, concatenate, pad, iota, reverse,
 * gather, scatter, tuples and the dynamic-shape variants.  Spec:
 * "Constraints" of each op in docs/spec.md. */
#include <gmp.h>
#include <inttypes.h>
#include <string.h>

#include "ir/verify_ops.h"

/* Element type of the result equals the operand's. */
static void same_elem(Context *c, const Op *op, const Type *in, const Type *out, const char *what) {
  if (vo_builtin_elem(in) && vo_builtin_elem(out) && in->elem != out->elem)
    op_error(c, op, "expects the result to have the element type of the %s, but got '%s' and '%s'", what,
             vo_type_str(c, in), vo_type_str(c, out));
}

/* The result must have RANK dimensions; returns false (after reporting)
 * when it does not.  Unranked results pass. */
static bool expect_rank(Context *c, const Op *op, const Type *res, int rank) {
  if (!vo_is_ranked(res) || res->rank == rank) return true;
  op_error(c, op, "expects the result to have rank %d, but got '%s'", rank, vo_type_str(c, res));
  return false;
}

/* Compare the result shape with the inferred one (DIM_DYNAMIC: unknown);
 * in inference, record it (these ops have one result). */
static void expect_shape(Context *c, const Op *op, const Type *res, int rank, const int64_t *dims) {
  if (vo_infer_shape(c, 0, rank, dims)) return;
  if (!expect_rank(c, op, res, rank) || !vo_is_ranked(res)) return;
  for (int i = 0; i < rank; i++)
    if (!vo_dims_compatible(res->dims[i], dims[i])) {
      op_error(c, op, "inferred shape %s is incompatible with the result type '%s' (dimension %d)",
               vo_list_str(c, rank, dims), vo_type_str(c, res), i);
      return;
    }
}

/* A scalar (0-d) integer tensor operand. */
static bool check_scalar_int_operand(Context *c, const Op *op, int i) {
  const Type *t = vo_operand_type(op, i);
  if (!t) return false;
  if (!vo_is_tensor(t) || vo_rank(t) > 0 || (vo_builtin_elem(t) && !(vo_elem_mask(t->elem) & EM_INT))) {
    op_error(c, op, "operand #%d must be a 0-dimensional tensor of integer values, but got '%s'", i,
             vo_type_str(c, t));
    return false;
  }
  return true;
}

/* A 1-d integer tensor operand (a runtime shape); *size receives its static
 * length or DIM_DYNAMIC. */
static bool check_shape_operand(Context *c, const Op *op, int i, int64_t *size) {
  const Type *t = vo_operand_type(op, i);
  *size = DIM_DYNAMIC;
  if (!t) return false;
  if (!vo_is_tensor(t) || (t->rank >= 0 && t->rank != 1) ||
      (vo_builtin_elem(t) && !(vo_elem_mask(t->elem) & EM_INT))) {
    op_error(c, op, "operand #%d must be a 1-dimensional tensor of integer values, but got '%s'", i,
             vo_type_str(c, t));
    return false;
  }
  *size = vo_dim(t, 0);
  if (!vo_dim_known(*size)) {
    op_error(c, op, "operand #%d must be statically shaped (a 1-d shape of known length), but got '%s'", i,
             vo_type_str(c, t));
    return false;
  }
  return true;
}

/* A shape operand defined by a constant against the result type: each
 * size non-negative and equal to the result's where that is static. */
static void check_constant_shape(Context *c, const Op *op, int i, const Type *res) {
  I64List v;
  if (c->infer || !vo_is_ranked(res) || !vo_constant_ints(c, op, i, &v) || v.n != res->rank) return;
  for (int k = 0; k < v.n; k++)
    if (v.v[k] < 0 || (vo_dim_known(res->dims[k]) && res->dims[k] != v.v[k])) {
      op_error(c, op, "output shape %s is incompatible with return type of operation '%s'", vo_list_str(c, v.n, v.v),
               vo_type_str(c, res));
      return;
    }
}

/* ------------------------------------------------------------------ */

/* broadcast_in_dim / dynamic_broadcast_in_dim: the result rank and
 * broadcast_dimensions (AR: how reading it went). */
static void check_broadcast_dims(Context *c, const Op *op, const Type *in, const Type *res, AttrRead ar,
                                 const I64List *dims) {
  if (vo_is_ranked(in) && vo_is_ranked(res) && res->rank < in->rank) {
    op_error(c, op, "result rank (%d) is less than operand rank (%d)", res->rank, in->rank);
    return;
  }
  if (ar != AR_OK) return;
  if (vo_is_ranked(in) && dims->n != in->rank) {
    op_error(c, op, "broadcast_dimensions size (%d) does not match operand rank (%d)", dims->n, in->rank);
    return;
  }
  if (!vo_is_ranked(res)) return;
  if (!vo_check_dims(c, op, "broadcast_dimensions", dims, res->rank, true) || !vo_is_ranked(in)) return;
  for (int i = 0; i < in->rank; i++) {
    int64_t od = in->dims[i], rd = res->dims[dims->v[i]];
    if (vo_dim_known(od) && vo_dim_known(rd) && od != 1 && od != rd)
      op_error(c, op,
               "size of operand dimension %d (%" PRId64 ") is not equal to 1 or size of result dimension %" PRId64
               " (%" PRId64 ")",
               i, od, dims->v[i], rd);
  }
}

/* StableHLO's result constraint of reshape and broadcast_in_dim: static,
 * or exactly one '?' dim and it bounded. */
static void static_or_single_bounded(Context *c, const Op *op, const Type *res) {
  if (!vo_is_ranked(res) || type_is_static(res)) return;
  int ndyn = 0, nbounded = 0;
  for (int d = 0; d < res->rank; d++)
    if (res->dims[d] == DIM_DYNAMIC) {
      ndyn++;
      nbounded += type_dim_bound(res, d) != DIM_DYNAMIC;
    }
  if (ndyn != 1 || nbounded != 1)
    op_error(c, op, "result #0 must be statically shaped or single bounded dimension tensor, but got '%s'",
             vo_type_str(c, res));
}

void verify_broadcast_in_dim(Context *c, Op *op) {
  bool ok = vo_require_tensor_operand(c, op, 0);
  ok &= vo_require_tensor_result(c, op, 0);
  I64List dims;
  AttrRead ar = vo_i64_list_attr(c, op, "broadcast_dimensions", true, &dims);
  if (!ok) return;
  const Type *in = vo_operand_type(op, 0), *res = vo_result_type(op, 0);
  same_elem(c, op, in, res, "operand");
  static_or_single_bounded(c, op, res);
  check_broadcast_dims(c, op, in, res, ar, &dims);
}

void verify_broadcast(Context *c, Op *op) {
  bool ok = vo_require_tensor_operand(c, op, 0);
  ok &= vo_require_tensor_result(c, op, 0);
  I64List sizes;
  AttrRead ar = vo_i64_list_attr(c, op, "broadcast_sizes", true, &sizes);
  if (!ok) return;
  const Type *in = vo_operand_type(op, 0), *res = vo_result_type(op, 0);
  same_elem(c, op, in, res, "operand");
  if (ar != AR_OK || !vo_is_ranked(in)) return;
  bool bad = false;
  for (int i = 0; i < sizes.n; i++)
    if (sizes.v[i] < 0) {
      op_error(c, op, "broadcast_sizes must be non-negative, but got %s", vo_list_str(c, sizes.n, sizes.v));
      bad = true;
      break;
    }
  if (bad || sizes.n > 4096 || in->rank > 4096) return;
  int rank = sizes.n + in->rank;
  int64_t *d = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(rank + 1));
  for (int i = 0; i < sizes.n; i++) d[i] = sizes.v[i];
  for (int i = 0; i < in->rank; i++) d[sizes.n + i] = in->dims[i];
  expect_shape(c, op, res, rank, d);
}

void verify_dynamic_broadcast_in_dim(Context *c, Op *op) {
  bool ok = vo_require_tensor_operand(c, op, 0);
  int64_t osize;
  ok &= check_shape_operand(c, op, 1, &osize);
  ok &= vo_require_tensor_result(c, op, 0);
  I64List dims, exp_dims, nonexp_dims;
  AttrRead ar = vo_i64_list_attr(c, op, "broadcast_dimensions", true, &dims);
  AttrRead ae = vo_i64_list_attr(c, op, "known_expanding_dimensions", false, &exp_dims);
  AttrRead an = vo_i64_list_attr(c, op, "known_nonexpanding_dimensions", false, &nonexp_dims);
  if (!ok) return;
  const Type *in = vo_operand_type(op, 0), *res = vo_result_type(op, 0);
  same_elem(c, op, in, res, "operand");
  if (vo_is_ranked(res) && vo_dim_known(osize) && osize != res->rank)
    op_error(c, op, "output_dimensions size (%" PRId64 ") does not match result rank (%d)", osize, res->rank);
  if (vo_is_ranked(in)) {
    if (ae == AR_OK) vo_check_dims(c, op, "known_expanding_dimensions", &exp_dims, in->rank, true);
    if (an == AR_OK) vo_check_dims(c, op, "known_nonexpanding_dimensions", &nonexp_dims, in->rank, true);
    if (ae == AR_OK && an == AR_OK)
      for (int i = 0; i < exp_dims.n; i++)
        if (vo_list_contains(&nonexp_dims, exp_dims.v[i])) {
          op_error(c, op, "dimension %" PRId64 " is both known expanding and known non-expanding", exp_dims.v[i]);
          break;
        }
  }
  check_broadcast_dims(c, op, in, res, ar, &dims);
  check_constant_shape(c, op, 1, res);
  I64List shape;
  if (ar != AR_OK || !vo_is_ranked(in) || dims.n != in->rank || !vo_constant_ints(c, op, 1, &shape)) return;
  for (int i = 0; i < in->rank; i++) {
    int64_t od = in->dims[i];
    if (dims.v[i] < 0 || dims.v[i] >= shape.n) return;
    int64_t sd = shape.v[dims.v[i]];
    if (vo_dim_known(od) && od != 1 && od != sd) {
      op_error(c, op,
               "size of operand dimension %d (%" PRId64 ") is not equal to 1 or value of shape at index %" PRId64
               " (%" PRId64 ")",
               i, od, dims.v[i], sd);
      return;
    }
  }
}

/* Exact element count of a static tensor type. */
static bool num_elements(const Type *t, mpz_t out) {
  if (!type_is_static(t)) return false;
  mpz_set_ui(out, 1);
  for (int i = 0; i < t->rank; i++) {
    if (t->dims[i] < 0) return false;
    mpz_mul_ui(out, out, (unsigned long)t->dims[i]);
  }
  return true;
}

static void check_same_count(Context *c, const Op *op, const Type *in, const Type *res) {
  mpz_t a, b;
  mpz_init(a);
  mpz_init(b);
  if (num_elements(in, a) && num_elements(res, b) && mpz_cmp(a, b) != 0) {
    char *sa = arena_alloc(&c->arena, mpz_sizeinbase(a, 10) + 2);
    char *sb = arena_alloc(&c->arena, mpz_sizeinbase(b, 10) + 2);
    mpz_get_str(sa, 10, a);
    mpz_get_str(sb, 10, b);
    op_error(c, op, "number of output elements (%s) doesn't match expected number of elements (%s)", sb, sa);
  }
  mpz_clear(a);
  mpz_clear(b);
}

void verify_reshape(Context *c, Op *op) {
  bool ok = vo_require_tensor_operand(c, op, 0);
  ok &= vo_require_tensor_result(c, op, 0);
  if (!ok) return;
  const Type *in = vo_operand_type(op, 0), *res = vo_result_type(op, 0);
  same_elem(c, op, in, res, "operand");
  static_or_single_bounded(c, op, res);
  check_same_count(c, op, in, res);
}

void verify_dynamic_reshape(Context *c, Op *op) {
  bool ok = vo_require_tensor_operand(c, op, 0);
  int64_t osize;
  ok &= check_shape_operand(c, op, 1, &osize);
  ok &= vo_require_tensor_result(c, op, 0);
  if (!ok) return;
  const Type *in = vo_operand_type(op, 0), *res = vo_result_type(op, 0);
  same_elem(c, op, in, res, "operand");
  if (vo_is_ranked(res) && vo_dim_known(osize) && osize != res->rank)
    op_error(c, op, "output_shape size (%" PRId64 ") does not match result rank (%d)", osize, res->rank);
  check_same_count(c, op, in, res);
  check_constant_shape(c, op, 1, res);
  I64List shape;
  if (!type_is_static(in) || !vo_constant_ints(c, op, 1, &shape)) return;
  __int128 want = 1, have = 1;
  for (int i = 0; i < in->rank; i++) want *= in->dims[i];
  for (int i = 0; i < shape.n && have <= ((__int128)1 << 64); i++) have *= shape.v[i] < 0 ? 0 : shape.v[i];
  if (want != have)
    op_error(c, op, "output_shape is incompatible with input type of operation: input has %s elements, but "
             "output_shape has %s", vo_i128_str(c, want), vo_i128_str(c, have));
}

void verify_transpose(Context *c, Op *op) {
  bool ok = vo_require_tensor_operand(c, op, 0);
  ok &= vo_require_tensor_result(c, op, 0);
  I64List perm;
  AttrRead ar = vo_i64_list_attr(c, op, "permutation", true, &perm);
  if (!ok) return;
  const Type *in = vo_operand_type(op, 0), *res = vo_result_type(op, 0);
  same_elem(c, op, in, res, "operand");
  if (ar != AR_OK || !vo_is_ranked(in)) return;
  if (perm.n != in->rank) {
    op_error(c, op, "operand rank (%d) does not match permutation size (%d)", in->rank, perm.n);
    return;
  }
  if (!vo_check_dims(c, op, "permutation", &perm, in->rank, true)) return;
  int64_t *d = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(perm.n + 1));
  for (int i = 0; i < perm.n; i++) d[i] = in->dims[perm.v[i]];
  expect_shape(c, op, res, perm.n, d);
}

void verify_slice(Context *c, Op *op) {
  bool ok = vo_require_tensor_operand(c, op, 0);
  ok &= vo_require_tensor_result(c, op, 0);
  I64List start, limit, strides;
  AttrRead as = vo_i64_list_attr(c, op, "start_indices", true, &start);
  AttrRead al = vo_i64_list_attr(c, op, "limit_indices", true, &limit);
  AttrRead at = vo_i64_list_attr(c, op, "strides", false, &strides);
  if (!ok) return;
  const Type *in = vo_operand_type(op, 0), *res = vo_result_type(op, 0);
  same_elem(c, op, in, res, "operand");
  if (as != AR_OK || al != AR_OK || at == AR_BAD) return;
  bool has_strides = at == AR_OK;
  int rank = vo_is_ranked(in) ? in->rank : start.n;
  bool sizes_ok = true;
  if (start.n != rank) {
    op_error(c, op, "the number of elements in start_indices (%d) does not match the rank of the operand (%d)",
             start.n, rank);
    sizes_ok = false;
  }
  if (limit.n != rank) {
    op_error(c, op, "the number of elements in limit_indices (%d) does not match the rank of the operand (%d)",
             limit.n, rank);
    sizes_ok = false;
  }
  if (has_strides && strides.n != rank) {
    op_error(c, op, "the number of elements in strides (%d) does not match the rank of the operand (%d)", strides.n,
             rank);
    sizes_ok = false;
  }
  if (!sizes_ok) return;
  int64_t *d = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(rank + 1));
  bool dims_ok = true;
  for (int i = 0; i < rank; i++) {
    int64_t s = start.v[i], l = limit.v[i], st = has_strides ? strides.v[i] : 1;
    int64_t dim = vo_dim(in, i);
    bool good = true;
    if (s < 0) {
      op_error(c, op, "negative start index %" PRId64 " in dimension %d", s, i);
      good = false;
    }
    if (vo_dim_known(dim) && l > dim) {
      op_error(c, op, "limit index %" PRId64 " is larger than dimension size %" PRId64 " in dimension %d", l, dim, i);
      good = false;
    }
    if (s > l) {
      op_error(c, op, "start index %" PRId64 " is larger than limit index %" PRId64 " in dimension %d", s, l, i);
      good = false;
    }
    if (st <= 0) {
      op_error(c, op, "stride must be positive but got %" PRId64 " in dimension %d", st, i);
      good = false;
    }
    if (!good) {
      dims_ok = false;
      continue;
    }
    d[i] = (l - s) / st + ((l - s) % st != 0);
  }
  if (dims_ok) expect_shape(c, op, res, rank, d);
}

/* Start indices of dynamic_slice / dynamic_update_slice: scalar integer
 * tensors of one type. */
static bool check_start_indices(Context *c, const Op *op, int first) {
  bool ok = true;
  const Type *t0 = NULL;
  for (int i = first; i < op->noperands; i++) {
    if (!check_scalar_int_operand(c, op, i)) {
      ok = false;
      continue;
    }
    const Type *t = vo_operand_type(op, i);
    if (!t0) t0 = t;
    else if (!vo_types_compatible(t0, t)) {
      op_error(c, op, "start indices must have the same type, but got '%s' and '%s'", vo_type_str(c, t0),
               vo_type_str(c, t));
      ok = false;
      break;
    }
  }
  return ok;
}

void verify_dynamic_slice(Context *c, Op *op) {
  bool ok = vo_require_tensor_operand(c, op, 0);
  ok &= vo_require_tensor_result(c, op, 0);
  ok &= check_start_indices(c, op, 1);
  I64List sizes;
  AttrRead ar = vo_i64_list_attr(c, op, "slice_sizes", true, &sizes);
  if (!ok) return;
  const Type *in = vo_operand_type(op, 0), *res = vo_result_type(op, 0);
  same_elem(c, op, in, res, "operand");
  int nidx = op->noperands - 1;
  if (vo_is_ranked(in) && nidx != in->rank)
    op_error(c, op, "has %d start indices, but the operand has rank %d", nidx, in->rank);
  if (ar != AR_OK) return;
  if (vo_is_ranked(in) && sizes.n != in->rank) {
    op_error(c, op, "slice_sizes size (%d) does not match the operand rank (%d)", sizes.n, in->rank);
    return;
  }
  bool good = true;
  for (int i = 0; i < sizes.n; i++) {
    int64_t dim = vo_dim(in, i);
    if (sizes.v[i] < 0) {
      op_error(c, op, "slice size %" PRId64 " in dimension %d must be non-negative", sizes.v[i], i);
      good = false;
    } else if (vo_dim_known(dim) && sizes.v[i] > dim) {
      op_error(c, op, "slice size %" PRId64 " is larger than dimension size %" PRId64 " in dimension %d", sizes.v[i],
               dim, i);
      good = false;
    }
  }
  if (good) expect_shape(c, op, res, sizes.n, sizes.v);
}

void verify_dynamic_update_slice(Context *c, Op *op) {
  bool ok = vo_require_tensor_operand(c, op, 0);
  ok &= vo_require_tensor_operand(c, op, 1);
  ok &= vo_require_tensor_result(c, op, 0);
  ok &= check_start_indices(c, op, 2);
  if (!ok) return;
  const Type *in = vo_operand_type(op, 0), *upd = vo_operand_type(op, 1), *res = vo_result_type(op, 0);
  if (!vo_types_compatible(in, res))
    op_error(c, op, "requires the result type '%s' to match the operand type '%s'", vo_type_str(c, res),
             vo_type_str(c, in));
  if (vo_builtin_elem(in) && vo_builtin_elem(upd) && in->elem != upd->elem)
    op_error(c, op, "expects the update to have the element type of the operand, but got '%s' and '%s'",
             vo_type_str(c, upd), vo_type_str(c, in));
  int nidx = op->noperands - 2;
  if (vo_is_ranked(in) && nidx != in->rank)
    op_error(c, op, "has %d start indices, but the operand has rank %d", nidx, in->rank);
  if (!vo_is_ranked(in) || !vo_is_ranked(upd)) return;
  if (upd->rank != in->rank) {
    op_error(c, op, "update rank (%d) does not match operand rank (%d)", upd->rank, in->rank);
    return;
  }
  for (int i = 0; i < in->rank; i++)
    if (vo_dim_known(upd->dims[i]) && vo_dim_known(in->dims[i]) && upd->dims[i] > in->dims[i]) {
      op_error(c, op, "update dimension %d (%" PRId64 ") is larger than the operand dimension (%" PRId64 ")", i,
               upd->dims[i], in->dims[i]);
      return;
    }
}

void verify_concatenate(Context *c, Op *op) {
  bool ok = true;
  for (int i = 0; i < op->noperands; i++) ok &= vo_require_tensor_operand(c, op, i);
  ok &= vo_require_tensor_result(c, op, 0);
  int64_t dim;
  AttrRead ar = vo_int_attr(c, op, "dimension", true, &dim);
  if (!ok) return;
  if (op->noperands < 1) {
    op_error(c, op, "expects at least 1 input");
    return;
  }
  const Type *first = NULL;
  int first_i = 0;
  for (int i = 0; i < op->noperands; i++) {
    const Type *t = vo_operand_type(op, i);
    if (vo_builtin_elem(t) && vo_builtin_elem(first) && t->elem != first->elem) {
      op_error(c, op, "requires the same element type for all operands, but operand #%d has '%s' and operand #%d "
               "has '%s'", first_i, vo_type_str(c, first), i, vo_type_str(c, t));
      return;
    }
    if (!first && vo_builtin_elem(t)) {
      first = t;
      first_i = i;
    }
  }
  const Type *res = vo_result_type(op, 0);
  if (first) same_elem(c, op, first, res, "operands");
  const Type *r0 = NULL;
  int r0_i = 0;
  for (int i = 0; i < op->noperands; i++) {
    const Type *t = vo_operand_type(op, i);
    if (!vo_is_ranked(t)) continue;
    if (!r0) {
      r0 = t;
      r0_i = i;
    } else if (t->rank != r0->rank) {
      op_error(c, op, "operands (%d) and (%d) do not match rank", r0_i, i);
      return;
    }
  }
  if (!r0) return;
  int rank = r0->rank;
  if (rank == 0) {
    op_error(c, op, "rank-0 values cannot be concatenated");
    return;
  }
  if (ar != AR_OK) return;
  if (dim < 0 || dim >= rank) {
    op_error(c, op, "dimension %" PRId64 " is out-of-bounds for input rank %d", dim, rank);
    return;
  }
  int64_t *d = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(rank + 1));
  for (int k = 0; k < rank; k++) d[k] = DIM_DYNAMIC;
  __int128 sum = 0;
  bool sum_known = true;
  for (int i = 0; i < op->noperands; i++) {
    const Type *t = vo_operand_type(op, i);
    if (!vo_is_ranked(t)) {
      sum_known = false;
      continue;
    }
    for (int k = 0; k < rank; k++) {
      if (k == dim) continue;
      if (!vo_dims_compatible(d[k], t->dims[k])) {
        op_error(c, op, "shapes of operand (%d) and (%d) do not match at non-concat index %d: %s != %s", r0_i, i, k,
                 vo_shape_str(c, r0), vo_shape_str(c, t));
        return;
      }
      if (vo_dim_known(t->dims[k])) d[k] = t->dims[k];
    }
    if (vo_dim_known(t->dims[dim])) sum += t->dims[dim];
    else sum_known = false;
  }
  if (sum_known && sum <= INT64_MAX) d[dim] = (int64_t)sum;
  else if (sum_known) {
    op_error(c, op, "the concatenated dimension size %s is too large", vo_i128_str(c, sum));
    return;
  }
  expect_shape(c, op, res, rank, d);
}

/* pad / dynamic_pad: a 0-d padding value PV, and the result RES, of the
 * element type of the operand IN. */
static void check_pad_types(Context *c, const Op *op, const Type *in, const Type *pv, const Type *res) {
  if (vo_rank(pv) > 0)
    op_error(c, op, "padding value type should be a rank-0 tensor, is rank %d", pv->rank);
  if (vo_builtin_elem(in) && vo_builtin_elem(pv) && in->elem != pv->elem)
    op_error(c, op, "expects the padding value to have the element type of the operand, but got '%s' and '%s'",
             vo_type_str(c, pv), vo_type_str(c, in));
  same_elem(c, op, in, res, "operand");
}

void verify_pad(Context *c, Op *op) {
  bool ok = vo_require_tensor_operand(c, op, 0);
  ok &= vo_require_tensor_operand(c, op, 1);
  ok &= vo_require_tensor_result(c, op, 0);
  I64List lo, hi, in_pad;
  AttrRead al = vo_i64_list_attr(c, op, "edge_padding_low", true, &lo);
  AttrRead ah = vo_i64_list_attr(c, op, "edge_padding_high", true, &hi);
  AttrRead ai = vo_i64_list_attr(c, op, "interior_padding", true, &in_pad);
  if (!ok) return;
  const Type *in = vo_operand_type(op, 0), *pv = vo_operand_type(op, 1), *res = vo_result_type(op, 0);
  check_pad_types(c, op, in, pv, res);
  if (al != AR_OK || ah != AR_OK || ai != AR_OK) return;
  int rank = vo_is_ranked(in) ? in->rank : lo.n;
  if (lo.n != rank || hi.n != rank || in_pad.n != rank) {
    op_error(c, op,
             "edge_padding_low (%d), edge_padding_high (%d) and interior_padding (%d) must have one entry per "
             "operand dimension (%d)",
             lo.n, hi.n, in_pad.n, rank);
    return;
  }
  int64_t *d = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(rank + 1));
  bool good = true;
  for (int i = 0; i < rank; i++) {
    d[i] = DIM_DYNAMIC;
    if (in_pad.v[i] < 0) {
      op_error(c, op, "interior padding cannot be negative: %" PRId64 " in dimension %d", in_pad.v[i], i);
      good = false;
      continue;
    }
    int64_t dim = vo_dim(in, i);
    if (!vo_dim_known(dim) || lo.v[i] == DIM_DYNAMIC || hi.v[i] == DIM_DYNAMIC) continue;
    __int128 size = (__int128)lo.v[i] + hi.v[i] + dim + (__int128)(dim > 0 ? dim - 1 : 0) * in_pad.v[i];
    if (size < 0) {
      op_error(c, op, "padding results in negative size %s for dimension %d", vo_i128_str(c, size), i);
      good = false;
    } else if (size > INT64_MAX) {
      op_error(c, op, "padding results in size %s for dimension %d, more than 2^63-1", vo_i128_str(c, size), i);
      good = false;
    } else {
      d[i] = (int64_t)size;
    }
  }
  if (good) expect_shape(c, op, res, rank, d);
}

/* dynamic_pad with constant paddings (C3, C4): interior padding
 * non-negative, and the result size as pad's. */
static void check_constant_padding(Context *c, const Op *op, const Type *in, const Type *res) {
  I64List lo, hi, inner;
  bool klo = vo_constant_ints(c, op, 2, &lo), khi = vo_constant_ints(c, op, 3, &hi);
  bool kin = vo_constant_ints(c, op, 4, &inner);
  if (kin)
    for (int i = 0; i < inner.n; i++)
      if (inner.v[i] < 0) {
        op_error(c, op, "interior_padding must be non-negative, but got %" PRId64, inner.v[i]);
        return;
      }
  if (c->infer || !klo || !khi || !kin || !vo_is_ranked(in) || !vo_is_ranked(res) || res->rank != in->rank ||
      lo.n != in->rank || hi.n != in->rank || inner.n != in->rank)
    return;
  for (int i = 0; i < in->rank; i++) {
    if (!vo_dim_known(in->dims[i]) || !vo_dim_known(res->dims[i])) continue;
    __int128 gaps = in->dims[i] > 0 ? (__int128)(in->dims[i] - 1) * inner.v[i] : 0;
    __int128 want = (__int128)lo.v[i] + hi.v[i] + in->dims[i] + gaps;
    if (want != res->dims[i]) {
      op_error(c, op, "expected output dimension at index %d to equal %s, but got %" PRId64, i, vo_i128_str(c, want),
               res->dims[i]);
      return;
    }
  }
}

void verify_dynamic_pad(Context *c, Op *op) {
  bool ok = vo_require_tensor_operand(c, op, 0);
  ok &= vo_require_tensor_operand(c, op, 1);
  ok &= vo_require_tensor_result(c, op, 0);
  int64_t sz[3];
  for (int i = 0; i < 3; i++) ok &= check_shape_operand(c, op, 2 + i, &sz[i]);
  if (!ok) return;
  const Type *in = vo_operand_type(op, 0), *pv = vo_operand_type(op, 1), *res = vo_result_type(op, 0);
  check_pad_types(c, op, in, pv, res);
  if (vo_is_ranked(in))
    for (int i = 0; i < 3; i++)
      if (vo_dim_known(sz[i]) && sz[i] != in->rank) {
        op_error(c, op, "padding operand #%d has %" PRId64 " elements, but the operand has rank %d", 2 + i, sz[i],
                 in->rank);
        break;
      }
  if (vo_is_ranked(in)) expect_rank(c, op, res, in->rank);
  check_constant_padding(c, op, in, res);
}

void verify_iota(Context *c, Op *op) {
  int64_t dim;
  AttrRead ar = vo_int_attr(c, op, "iota_dimension", true, &dim);
  bool ok = vo_check_result(c, op, 0, EM_ANY);
  if (op->kind == OP_DYNAMIC_IOTA) {
    int64_t osize;
    ok &= check_shape_operand(c, op, 0, &osize);
    const Type *res = vo_result_type(op, 0);
    if (ok && vo_is_ranked(res) && vo_dim_known(osize) && osize != res->rank)
      op_error(c, op, "output_shape size (%" PRId64 ") does not match result rank (%d)", osize, res->rank);
    if (ok) check_constant_shape(c, op, 0, res);
  }
  if (!ok || ar != AR_OK) return;
  const Type *res = vo_result_type(op, 0);
  if (!vo_is_ranked(res)) return;
  if (res->rank == 0) {
    op_error(c, op, "does not support scalars");
    return;
  }
  if (dim < 0 || dim >= res->rank)
    op_error(c, op, "iota dimension %" PRId64 " is out of range for the result rank %d", dim, res->rank);
}

void verify_reverse(Context *c, Op *op) {
  bool ok = vo_require_tensor_operand(c, op, 0);
  ok &= vo_require_tensor_result(c, op, 0);
  I64List dims;
  AttrRead ar = vo_i64_list_attr(c, op, "dimensions", true, &dims);
  if (!ok) return;
  const Type *in = vo_operand_type(op, 0), *res = vo_result_type(op, 0);
  if (!vo_types_compatible(in, res))
    op_error(c, op, "requires the result type '%s' to match the operand type '%s'", vo_type_str(c, res),
             vo_type_str(c, in));
  if (ar == AR_OK && vo_is_ranked(in)) vo_check_dims(c, op, "dimensions", &dims, in->rank, true);
}

void verify_get_dimension_size(Context *c, Op *op) {
  bool ok = vo_require_tensor_operand(c, op, 0);
  ok &= vo_check_result(c, op, 0, EM_INT);
  int64_t dim;
  AttrRead ar = vo_int_attr(c, op, "dimension", true, &dim);
  if (!ok) return;
  const Type *in = vo_operand_type(op, 0), *res = vo_result_type(op, 0);
  if (vo_rank(res) > 0)
    op_error(c, op, "expects a 0-dimensional result, but got '%s'", vo_type_str(c, res));
  if (ar == AR_OK && vo_is_ranked(in) && (dim < 0 || dim >= in->rank))
    op_error(c, op, "requires dimension attribute in range [0, %d); found (%" PRId64 ")", in->rank, dim);
}

void verify_real_dynamic_slice(Context *c, Op *op) {
  bool ok = vo_require_tensor_operand(c, op, 0);
  ok &= vo_require_tensor_result(c, op, 0);
  int64_t sz[3];
  for (int i = 0; i < 3; i++) ok &= check_shape_operand(c, op, 1 + i, &sz[i]);
  if (!ok) return;
  const Type *in = vo_operand_type(op, 0), *res = vo_result_type(op, 0);
  same_elem(c, op, in, res, "operand");
  if (!vo_is_ranked(in)) return;
  for (int i = 0; i < 3; i++)
    if (vo_dim_known(sz[i]) && sz[i] != in->rank) {
      op_error(c, op, "operand #%d has %" PRId64 " elements, but the operand has rank %d", 1 + i, sz[i], in->rank);
      return;
    }
  expect_rank(c, op, res, in->rank);
}

/* ------------------------------------------------------------------ */
/* gather / dynamic_gather / scatter: dimension numbers */

/* What gather and scatter call the fields of their dimension numbers, and
 * the words their messages use for the operand and the indices. */
typedef struct IndexDimNames {
  const char *window;       /* offset_dims / update_window_dims */
  const char *collapsed;    /* collapsed_slice_dims / inserted_window_dims */
  const char *obatch;       /* operand_batching_dims / input_batching_dims */
  const char *ibatch;       /* start_indices_batching_dims / scatter_indices_batching_dims */
  const char *index_map;    /* start_index_map / scatter_dims_to_operand_dims */
  const char *operand;      /* "operand" / "input" */
  const char *indices;      /* "start indices" / "scatter indices" */
  const char *indices_name; /* "start_indices" / "scatter_indices" */
} IndexDimNames;

static const IndexDimNames gather_names = {
    "offset_dims",     "collapsed_slice_dims", "operand_batching_dims", "start_indices_batching_dims",
    "start_index_map", "operand",              "start indices",         "start_indices"};
static const IndexDimNames scatter_names = {
    "update_window_dims",           "inserted_window_dims", "input_batching_dims", "scatter_indices_batching_dims",
    "scatter_dims_to_operand_dims", "input",                "scatter indices",     "scatter_indices"};

/* The fields of a #stablehlo.gather / #stablehlo.scatter attribute. */
typedef struct IndexDims {
  I64List window, collapsed, obatch, ibatch, index_map;
  int64_t ivd; /* index_vector_dim */
} IndexDims;

static bool expect_sorted(Context *c, const Op *op, const char *name, const I64List *l) {
  if (vo_is_sorted(l)) return true;
  op_error(c, op, "expects %s to be sorted, got: %s", name, vo_list_str(c, l->n, l->v));
  return false;
}

/* Reads the dimension numbers DN (field names NM) and checks them against the
 * operand IN, the indices IDX and R_WIN, the rank of the tensor that holds the
 * window dimensions (gather: result, scatter: updates; -1 when unranked).
 * Returns false when the caller should stop: a field could not be read or the
 * lists are inconsistent.  Otherwise *SIZES_OK tells whether the operand and
 * indices batching dimensions have the same sizes. */
static bool check_index_dims(Context *c, const Op *op, const Attr *dn, const IndexDimNames *nm, const Type *in,
                             const Type *idx, int r_win, IndexDims *d, bool *sizes_ok) {
  if (!vo_dialect_list(c, op, dn, nm->window, &d->window) ||
      !vo_dialect_list(c, op, dn, nm->collapsed, &d->collapsed) ||
      !vo_dialect_list(c, op, dn, nm->obatch, &d->obatch) || !vo_dialect_list(c, op, dn, nm->ibatch, &d->ibatch) ||
      !vo_dialect_list(c, op, dn, nm->index_map, &d->index_map) ||
      !vo_dialect_int(c, op, dn, "index_vector_dim", 0, &d->ivd))
    return false;
  const I64List *win = &d->window, *col = &d->collapsed, *ob = &d->obatch, *ib = &d->ibatch, *map = &d->index_map;
  int64_t ivd = d->ivd;
  int r_in = vo_rank(in), r_idx = vo_rank(idx);
  int64_t bound_in = r_in >= 0 ? r_in : INT64_MAX;
  bool good = true;
  /* gather C4, C5; scatter C7, C8: window dimensions */
  good &= expect_sorted(c, op, nm->window, win);
  good &= vo_check_dims(c, op, nm->window, win, r_win >= 0 ? r_win : INT64_MAX, true);
  /* gather C6-C12; scatter C9-C13: collapsed / inserted and batching dimensions */
  good &= expect_sorted(c, op, nm->collapsed, col);
  good &= expect_sorted(c, op, nm->obatch, ob);
  good &= vo_check_dims(c, op, nm->collapsed, col, bound_in, true);
  good &= vo_check_dims(c, op, nm->obatch, ob, bound_in, true);
  for (int i = 0; i < ob->n; i++)
    if (vo_list_contains(col, ob->v[i])) {
      op_error(c, op, "has duplicated dimension %" PRId64 " in %s and %s", ob->v[i], nm->collapsed, nm->obatch);
      good = false;
    }
  /* gather C18, C19; scatter C20, C21: the index map */
  good &= vo_check_dims(c, op, nm->index_map, map, bound_in, true);
  for (int i = 0; i < map->n; i++)
    if (vo_list_contains(ob, map->v[i])) {
      op_error(c, op, "has duplicated dimension %" PRId64 " in %s and %s", map->v[i], nm->index_map, nm->obatch);
      good = false;
    }
  /* gather C1; scatter C2 */
  if (r_in >= 0 && (int64_t)win->n + col->n + ob->n != r_in) {
    op_error(c, op, "%s size (%d) plus %s size (%d) plus %s size (%d) is not equal to %s rank (%d)", nm->window,
             win->n, nm->collapsed, col->n, nm->obatch, ob->n, nm->operand, r_in);
    good = false;
  }
  /* gather C2, C3, C13-C16; scatter C14-C17, C19, C22: the indices */
  if (r_idx >= 0) {
    if (ivd < 0 || ivd > r_idx) {
      op_error(c, op, "index_vector_dim %" PRId64 " is out of bounds for %s with rank %d", ivd, nm->indices, r_idx);
      good = false;
    } else {
      int64_t want = ivd < r_idx ? idx->dims[ivd] : 1;
      if (vo_dim_known(want) && map->n != want) {
        op_error(c, op, "%s size (%d) is not equal to size of index dimension (%" PRId64 ") of %s (%" PRId64 ")",
                 nm->index_map, map->n, ivd, nm->indices_name, want);
        good = false;
      }
    }
    good &= vo_check_dims(c, op, nm->ibatch, ib, r_idx, true);
  }
  if (vo_list_contains(ib, ivd)) {
    op_error(c, op, "expects %s not to include index_vector_dim %" PRId64, nm->ibatch, ivd);
    good = false;
  }
  if (ob->n != ib->n) {
    op_error(c, op, "%s size (%d) is not equal to %s size (%d)", nm->obatch, ob->n, nm->ibatch, ib->n);
    good = false;
  }
  if (!good) return false;
  /* gather C17; scatter C18 */
  for (int i = 0; i < ob->n; i++) {
    int64_t a = vo_dim(in, (int)ob->v[i]), b = vo_dim(idx, (int)ib->v[i]);
    if (!vo_dims_compatible(a, b)) {
      op_error(c, op, "%s batching dimension %" PRId64 " (size %" PRId64 ") and %s batching dimension %" PRId64
               " (size %" PRId64 ") must have the same size", nm->operand, ob->v[i], a, nm->indices, ib->v[i], b);
      good = false;
    }
  }
  *sizes_ok = good;
  return true;
}

/* ------------------------------------------------------------------ */
/* gather / dynamic_gather */

void verify_gather(Context *c, Op *op) {
  bool dynamic = op->kind == OP_DYNAMIC_GATHER;
  bool ok = vo_require_tensor_operand(c, op, 0);
  ok &= vo_check_operand(c, op, 1, EM_INT);
  ok &= vo_require_tensor_result(c, op, 0);
  const Attr *dn = NULL;
  AttrRead ad = vo_dialect_attr(c, op, "dimension_numbers", "stablehlo.gather", true, &dn);
  I64List slice = {0, NULL};
  AttrRead as = AR_ABSENT;
  int64_t nslice = DIM_DYNAMIC;
  if (dynamic) {
    ok &= check_shape_operand(c, op, 2, &nslice);
    if (ok && vo_constant_ints(c, op, 2, &slice)) as = AR_OK; /* constant slice sizes: the static rules */
  } else {
    as = vo_i64_list_attr(c, op, "slice_sizes", true, &slice);
  }
  bool sorted;
  vo_bool_attr(c, op, "indices_are_sorted", false, &sorted);
  if (!ok) return;
  const Type *in = vo_operand_type(op, 0), *idx = vo_operand_type(op, 1), *res = vo_result_type(op, 0);
  same_elem(c, op, in, res, "operand");
  if (ad != AR_OK) return;
  IndexDims dims;
  bool good;
  if (!check_index_dims(c, op, dn, &gather_names, in, idx, vo_rank(res), &dims, &good)) return;
  I64List offset = dims.window, collapsed = dims.collapsed, obatch = dims.obatch;
  int64_t ivd = dims.ivd;
  int r_in = vo_rank(in), r_idx = vo_rank(idx);
  if (dynamic && r_in >= 0 && vo_dim_known(nslice) && nslice != r_in) {
    op_error(c, op, "slice_sizes size (%" PRId64 ") not equal to operand rank (%d)", nslice, r_in);
    return;
  }
  if (as != AR_OK) return;
  /* C20, C21, C9, C12 */
  if (r_in >= 0 && slice.n != r_in) {
    op_error(c, op, "slice_sizes size (%d) not equal to operand rank (%d)", slice.n, r_in);
    return;
  }
  for (int i = 0; i < slice.n; i++) {
    int64_t dim = vo_dim(in, i);
    if (slice.v[i] < 0 || (vo_dim_known(dim) && slice.v[i] > dim)) {
      op_error(c, op, "slice size (%" PRId64 ") is out of bounds for operand dimension %d (size %s)", slice.v[i], i,
               vo_dim_known(dim) ? vo_i128_str(c, dim) : "?");
      good = false;
    }
  }
  for (int i = 0; i < collapsed.n; i++)
    if (collapsed.v[i] < slice.n && slice.v[collapsed.v[i]] > 1) {
      op_error(c, op, "slice_sizes collapsed dimension %" PRId64 " should <= 1 but got %" PRId64, collapsed.v[i],
               slice.v[collapsed.v[i]]);
      good = false;
    }
  for (int i = 0; i < obatch.n; i++)
    if (obatch.v[i] < slice.n && slice.v[obatch.v[i]] > 1) {
      op_error(c, op, "slice_sizes operand batching dimension %" PRId64 " should <= 1 but got %" PRId64, obatch.v[i],
               slice.v[obatch.v[i]]);
      good = false;
    }
  if (!good || r_idx < 0) return;
  /* C22: result shape */
  int nbatch = r_idx - (ivd < r_idx ? 1 : 0);
  int64_t rank = (int64_t)nbatch + offset.n;
  if (rank > 4096) return;
  int64_t *d = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(rank + 1));
  int bi = 0, si = 0;
  for (int64_t k = 0; k < rank; k++) {
    if (vo_list_contains(&offset, k)) {
      while (si < slice.n && (vo_list_contains(&collapsed, si) || vo_list_contains(&obatch, si))) si++;
      d[k] = si < slice.n ? slice.v[si++] : DIM_DYNAMIC;
    } else {
      if (bi == ivd && ivd < r_idx) bi++;
      d[k] = bi < r_idx ? idx->dims[bi++] : DIM_DYNAMIC;
    }
  }
  for (int i = 0; i < offset.n; i++)
    if (offset.v[i] >= rank) {
      op_error(c, op, "offset_dims contains %" PRId64 ", out of range for the inferred result rank %" PRId64,
               offset.v[i], rank);
      return;
    }
  expect_shape(c, op, res, (int)rank, d);
}

/* ------------------------------------------------------------------ */
/* scatter */

/* C1, C3, C6, C24 of scatter's n inputs and updates: one shape each, the
 * updates' element types those of the inputs, results shaped as inputs.
 * False after a diagnostic that makes the rest meaningless. */
static bool scatter_operand_types(Context *c, Op *op, int n) {
  const Type *in0 = vo_operand_type(op, 0), *upd0 = vo_operand_type(op, n + 1);
  for (int i = 1; i < n; i++)
    if (!vo_shapes_compatible(in0, vo_operand_type(op, i))) {
      op_error(c, op, "expects all inputs to have the same shape, but got '%s' and '%s'", vo_type_str(c, in0),
               vo_type_str(c, vo_operand_type(op, i)));
      return false;
    }
  for (int i = 1; i < n; i++)
    if (!vo_shapes_compatible(upd0, vo_operand_type(op, n + 1 + i))) {
      op_error(c, op, "expects all updates to have the same shape, but got '%s' and '%s'", vo_type_str(c, upd0),
               vo_type_str(c, vo_operand_type(op, n + 1 + i)));
      return false;
    }
  for (int i = 0; i < n; i++) {
    const Type *in = vo_operand_type(op, i), *upd = vo_operand_type(op, n + 1 + i), *res = vo_result_type(op, i);
    if (!vo_elems_compatible(in, upd))
      op_error(c, op, "expects updates #%d to have the element type of input #%d, but got '%s' and '%s'", i, i,
               vo_type_str(c, upd), vo_type_str(c, in));
    if (!vo_shapes_compatible(in, res))
      op_error(c, op, "expects result #%d to have the shape of input #%d, but got '%s' and '%s'", i, i,
               vo_type_str(c, res), vo_type_str(c, in));
  }
  return true;
}

/* C23, C25: the update computation, and the result element types it
 * gives. */
static void scatter_update_computation(Context *c, Op *op, int n) {
  const Type **in_types = arena_alloc(&c->arena, sizeof(Type *) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) in_types[i] = vo_operand_type(op, i);
  ElemKind *elems = arena_alloc(&c->arena, sizeof(ElemKind) * (size_t)(n + 1));
  if (vo_check_reducer(c, op, 0, "update_computation", n, in_types, elems))
    for (int i = 0; i < n; i++) {
      const Type *res = vo_result_type(op, i);
      if (vo_builtin_elem(res) && elems[i] < ELEM_COUNT && res->elem != elems[i])
        op_error(c, op, "expects result #%d to have element type %s (from the update computation), but got '%s'", i,
                 elem_name(elems[i]), vo_type_str(c, res));
    }
}

/* C4: the updates' dimensions against the scatter indices' (scatter
 * dimensions) and the input's (window dimensions). */
static void scatter_updates_shape(Context *c, Op *op, const Type *in0, const Type *idx, const Type *upd0,
                                  const IndexDims *dims) {
  I64List uwd = dims->window, iwd = dims->collapsed, ibd = dims->obatch;
  int64_t ivd = dims->ivd;
  int r_in = vo_rank(in0), r_idx = vo_rank(idx), r_upd = vo_rank(upd0);
  int nscatter = r_idx - (ivd < r_idx ? 1 : 0);
  if ((int64_t)nscatter + uwd.n != r_upd) {
    op_error(c, op, "expects updates to have rank %d (%d scatter dimensions plus %d window dimensions), but got '%s'",
             nscatter + uwd.n, nscatter, uwd.n, vo_type_str(c, upd0));
    return;
  }
  int si = 0, wi = 0;
  for (int k = 0; k < r_upd; k++) {
    int64_t ud = upd0->dims[k];
    if (vo_list_contains(&uwd, k)) {
      /* the wi-th input dimension not inserted and not batching */
      while (wi < r_in && (vo_list_contains(&iwd, wi) || vo_list_contains(&ibd, wi))) wi++;
      int64_t id = vo_dim(in0, wi++);
      if (vo_dim_known(ud) && vo_dim_known(id) && ud > id) {
        op_error(c, op, "expects updates dimension %d (size %" PRId64 ") to be at most the size %" PRId64
                 " of input dimension %d", k, ud, id, wi - 1);
        return;
      }
    } else {
      if (si == ivd && ivd < r_idx) si++;
      int64_t sd = vo_dim(idx, si++);
      if (!vo_dims_compatible(ud, sd)) {
        op_error(c, op, "expects updates dimension %d (size %" PRId64 ") to match scatter indices dimension %d (size %"
                 PRId64 ")", k, ud, si - 1, sd);
        return;
      }
    }
  }
}

void verify_scatter(Context *c, Op *op) {
  int nops = op->noperands;
  if (nops < 3 || nops % 2 == 0) {
    op_error(c, op, "expects an odd number of operands (inputs, scatter_indices, updates), but got %d", nops);
    return;
  }
  int n = (nops - 1) / 2;
  bool ok = true;
  for (int i = 0; i < nops; i++) ok &= i == n ? vo_check_operand(c, op, i, EM_INT) : vo_require_tensor_operand(c, op, i);
  for (int i = 0; i < op->nresults; i++) ok &= vo_require_tensor_result(c, op, i);
  const Attr *dn = NULL;
  AttrRead ad = vo_dialect_attr(c, op, "scatter_dimension_numbers", "stablehlo.scatter", true, &dn);
  bool flag;
  vo_bool_attr(c, op, "indices_are_sorted", false, &flag);
  vo_bool_attr(c, op, "unique_indices", false, &flag);
  if (op->nresults != n && !c->infer) {
    op_error(c, op, "expects %d results (one per input), but got %d", n, op->nresults);
    ok = false;
  }
  if (!ok) return;
  if (!scatter_operand_types(c, op, n)) return;
  scatter_update_computation(c, op, n);
  if (ad != AR_OK) return;
  const Type *in0 = vo_operand_type(op, 0), *idx = vo_operand_type(op, n), *upd0 = vo_operand_type(op, n + 1);
  IndexDims dims;
  bool good;
  int r_upd = vo_rank(upd0);
  if (!check_index_dims(c, op, dn, &scatter_names, in0, idx, r_upd, &dims, &good)) return;
  int r_idx = vo_rank(idx);
  if (!good || r_idx < 0 || r_upd < 0 || dims.ivd < 0 || dims.ivd > r_idx) return;
  scatter_updates_shape(c, op, in0, idx, upd0, &dims);
}

/* ------------------------------------------------------------------ */
/* tuples */

void verify_tuple(Context *c, Op *op) {
  const Type *res = vo_result_type(op, 0);
  if (!res) return;
  if (res->kind != TY_TUPLE) {
    op_error(c, op, "result #0 must be a tuple, but got '%s'", vo_type_str(c, res));
    return;
  }
  if (res->ninputs != op->noperands) {
    op_error(c, op, "result type '%s' has %d elements, but the op has %d operands", vo_type_str(c, res), res->ninputs,
             op->noperands);
    return;
  }
  for (int i = 0; i < op->noperands; i++)
    if (!vo_types_compatible(res->inputs[i], vo_operand_type(op, i))) {
      op_error(c, op, "result element #%d has type '%s', but operand #%d has type '%s'", i,
               vo_type_str(c, res->inputs[i]), i, vo_type_str(c, vo_operand_type(op, i)));
      return;
    }
}

void verify_get_tuple_element(Context *c, Op *op) {
  const Type *in = vo_operand_type(op, 0), *res = vo_result_type(op, 0);
  int64_t index;
  AttrRead ar = vo_int_attr(c, op, "index", true, &index);
  if (!in) return;
  if (in->kind != TY_TUPLE) {
    op_error(c, op, "operand #0 must be a tuple, but got '%s'", vo_type_str(c, in));
    return;
  }
  if (ar != AR_OK) return;
  if (index < 0 || index >= in->ninputs) {
    op_error(c, op, "index %" PRId64 " is out of bounds of operand with size %d", index, in->ninputs);
    return;
  }
  if (res && !vo_types_compatible(in->inputs[index], res))
    op_error(c, op, "has return type %s, but expected %s", vo_type_str(c, res), vo_type_str(c, in->inputs[index]));
}
