/* Verification rules of element-wise ops: unary and binary arithmetic,
 * compare, convert, select, clamp, bitcast_convert, map, reduce_precision,
 * and the element-wise CHLO ops.  Spec: "Constraints" of each op in
 * docs/spec.md; CHLO: docs/chlo.md. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "ir/quant.h"
#include "ir/verify_ops.h"

/* All tensor operands and results have one shape ("?" compatible). */
static bool check_same_shape(Context *c, const Op *op) {
  const Type *first = NULL;
  for (int i = 0; i < op->noperands + op->nresults; i++) {
    const Type *t = i < op->noperands ? vo_operand_type(op, i) : vo_result_type(op, i - op->noperands);
    if (!vo_is_ranked(t)) continue;
    if (!first) {
      first = t;
      continue;
    }
    if (!vo_shapes_compatible(first, t)) {
      op_error(c, op, "requires the same shape for all operands and results");
      return false;
    }
  }
  return true;
}

/* All tensor operands and results have one element type. */
static bool check_same_elem(Context *c, const Op *op) {
  const Type *first = NULL;
  for (int i = 0; i < op->noperands + op->nresults; i++) {
    const Type *t = i < op->noperands ? vo_operand_type(op, i) : vo_result_type(op, i - op->noperands);
    if (!vo_builtin_elem(t)) continue;
    if (!first) {
      first = t;
      continue;
    }
    if (first->elem != t->elem) {
      op_error(c, op, "requires the same element type for all operands and results");
      return false;
    }
  }
  return true;
}

/* Every operand and result is a tensor of MASK; shapes and element types
 * agree. */
static void verify_same_type_of(Context *c, Op *op, unsigned mask) {
  /* one report for the first bad value: they share one type */
  for (int i = 0; i < op->noperands; i++)
    if (!vo_check_operand(c, op, i, mask)) return;
  for (int i = 0; i < op->nresults; i++)
    if (!vo_check_result(c, op, i, mask)) return;
  check_same_shape(c, op);
  check_same_elem(c, op);
}

static void expect_result_elem(Context *c, const Op *op, int i, ElemKind want) {
  const Type *t = vo_result_type(op, i);
  if (!vo_builtin_elem(t) || want >= ELEM_COUNT) return;
  if (t->elem != want)
    op_error(c, op, "expects result #%d to have element type %s, but got '%s'", i, elem_name(want),
             vo_type_str(c, t));
}

/* abs: the result of a complex operand is its real element type (C2). */
void verify_abs(Context *c, Op *op) {
  bool ok = vo_check_operand(c, op, 0, EM_SINT | EM_FLOAT | EM_COMPLEX) &&
            vo_check_result(c, op, 0, EM_SINT | EM_FLOAT | EM_COMPLEX);
  if (!ok) return;
  check_same_shape(c, op);
  const Type *in = vo_operand_type(op, 0);
  const Type *res = vo_result_type(op, 0);
  if (!vo_builtin_elem(in) || !vo_builtin_elem(res)) return;
  ElemKind want = elem_is_complex(in->elem) ? elem_complex_part(in->elem) : in->elem;
  /* a complex result of a complex operand is what older producers wrote */
  if (res->elem != want && res->elem != in->elem) expect_result_elem(c, op, 0, want);
}

/* real / imag: complex -> its part type, float -> float (C1, C2). */
void verify_real_imag(Context *c, Op *op) {
  bool ok = vo_check_operand(c, op, 0, EM_FLOAT | EM_COMPLEX) && vo_check_result(c, op, 0, EM_FLOAT);
  if (!ok) return;
  check_same_shape(c, op);
  const Type *in = vo_operand_type(op, 0);
  if (!vo_builtin_elem(in)) return;
  expect_result_elem(c, op, 0, elem_is_complex(in->elem) ? elem_complex_part(in->elem) : in->elem);
}

/* is_finite, chlo.is_inf / is_neg_inf / is_pos_inf: float -> i1. */
void verify_float_predicate(Context *c, Op *op) {
  bool ok = vo_check_operand(c, op, 0, EM_FLOAT) && vo_check_result(c, op, 0, EM_BOOL);
  if (ok) check_same_shape(c, op);
}

/* complex: (f32, f32) -> complex<f32>, (f64, f64) -> complex<f64>. */
void verify_complex(Context *c, Op *op) {
  bool ok = vo_check_operand(c, op, 0, EM_FLOAT) && vo_check_operand(c, op, 1, EM_FLOAT) &&
            vo_check_result(c, op, 0, EM_COMPLEX);
  if (!ok) return;
  check_same_shape(c, op);
  const Type *l = vo_operand_type(op, 0), *r = vo_operand_type(op, 1);
  if (vo_builtin_elem(l) && vo_builtin_elem(r) && l->elem != r->elem) {
    op_error(c, op, "requires the same element type for both operands, but got '%s' and '%s'", vo_type_str(c, l),
             vo_type_str(c, r));
    return;
  }
  if (!vo_builtin_elem(l)) return;
  if (l->elem != ELEM_F32 && l->elem != ELEM_F64) {
    op_error(c, op, "operand #0 must be tensor of f32 or f64 values, but got '%s'", vo_type_str(c, l));
    return;
  }
  expect_result_elem(c, op, 0, l->elem == ELEM_F32 ? ELEM_C64 : ELEM_C128);
}

/* convert: any element types, same shape (C1). */
void verify_convert(Context *c, Op *op) {
  bool ok = vo_require_tensor_operand(c, op, 0);
  ok &= vo_require_tensor_result(c, op, 0);
  if (ok) check_same_shape(c, op);
}

static const char *const comparison_directions[] = {"EQ", "NE", "GE", "GT", "LE", "LT", NULL};
static const char *const comparison_types[] = {"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED", NULL};

/* compare: same operand types, i1 result of their shape, a valid direction
 * and a compare_type that suits the element type (C1-C3). */
void verify_compare(Context *c, Op *op) {
  vo_enum_attr(c, op, "comparison_direction", "comparison_direction", comparison_directions, true, NULL);
  const char *ct = NULL;
  vo_enum_attr(c, op, "compare_type", "comparison_type", comparison_types, false, &ct);
  bool ok = vo_require_tensor_operand(c, op, 0);
  ok &= vo_require_tensor_operand(c, op, 1);
  ok &= vo_check_result(c, op, 0, EM_BOOL);
  if (!ok) return;
  check_same_shape(c, op);
  const Type *l = vo_operand_type(op, 0), *r = vo_operand_type(op, 1);
  if (!vo_elems_compatible(l, r)) {
    op_error(c, op, "requires the same element type for both operands, but got '%s' and '%s'", vo_type_str(c, l),
             vo_type_str(c, r));
    return;
  }
  if (!ct || !vo_builtin_elem(l) || strcmp(ct, "NOTYPE") == 0) return;
  unsigned m = vo_elem_mask(l->elem);
  bool fits;
  if (m == EM_SINT) fits = strcmp(ct, "SIGNED") == 0;
  else if (m == EM_UINT || m == EM_BOOL) fits = strcmp(ct, "UNSIGNED") == 0;
  else if (m == EM_FLOAT) fits = strcmp(ct, "FLOAT") == 0 || strcmp(ct, "TOTALORDER") == 0;
  else if (m == EM_COMPLEX) fits = strcmp(ct, "FLOAT") == 0;
  else fits = true;
  if (!fits)
    op_error(c, op, "compare_type %s is not valid for operands of element type %s", ct, elem_name(l->elem));
}

/* select: pred is i1, a scalar or of the shape of the branches; branches and
 * result share one type (C1, C2). */
void verify_select(Context *c, Op *op) {
  bool ok = vo_check_operand(c, op, 0, EM_BOOL);
  ok &= vo_require_tensor_operand(c, op, 1);
  ok &= vo_require_tensor_operand(c, op, 2);
  ok &= vo_require_tensor_result(c, op, 0);
  if (!ok) return;
  const Type *p = vo_operand_type(op, 0), *t = vo_operand_type(op, 1), *f = vo_operand_type(op, 2),
             *res = vo_result_type(op, 0);
  if (vo_rank(p) > 0 && !vo_shapes_compatible(p, t))
    op_error(c, op, "requires the predicate to be a scalar or to have the shape of on_true, but got '%s' and '%s'",
             vo_type_str(c, p), vo_type_str(c, t));
  if (!vo_types_compatible(t, f) || !vo_types_compatible(t, res))
    op_error(c, op, "requires compatible types for on_true, on_false and the result, but got '%s', '%s' and '%s'",
             vo_type_str(c, t), vo_type_str(c, f), vo_type_str(c, res));
}

/* clamp: min and max scalar or of the operand's shape, all of one element
 * type, result of the operand's type (C1-C4). */
void verify_clamp(Context *c, Op *op) {
  bool ok = true;
  for (int i = 0; i < 3; i++) ok &= vo_require_tensor_operand(c, op, i);
  ok &= vo_require_tensor_result(c, op, 0);
  if (!ok) return;
  const Type *mn = vo_operand_type(op, 0), *x = vo_operand_type(op, 1), *mx = vo_operand_type(op, 2),
             *res = vo_result_type(op, 0);
  if (vo_rank(mn) > 0 && !vo_shapes_compatible(mn, x))
    op_error(c, op, "min shape %s is not scalar and is not compatible with operand shape %s", vo_shape_str(c, mn),
             vo_shape_str(c, x));
  if (vo_rank(mx) > 0 && !vo_shapes_compatible(mx, x))
    op_error(c, op, "max shape %s is not scalar and is not compatible with operand shape %s", vo_shape_str(c, mx),
             vo_shape_str(c, x));
  if (!vo_elems_compatible(mn, x) || !vo_elems_compatible(mx, x))
    op_error(c, op, "requires the same element type for min, operand and max, but got '%s', '%s' and '%s'",
             vo_type_str(c, mn), vo_type_str(c, x), vo_type_str(c, mx));
  if (!vo_types_compatible(x, res))
    op_error(c, op, "requires the result type '%s' to match the operand type '%s'", vo_type_str(c, res),
             vo_type_str(c, x));
}

/* bitcast_convert: shapes follow the bit widths (C1); complex only to and
 * from complex (C2). */
void verify_bitcast_convert(Context *c, Op *op) {
  bool ok = vo_require_tensor_operand(c, op, 0);
  ok &= vo_require_tensor_result(c, op, 0);
  if (!ok) return;
  const Type *in = vo_operand_type(op, 0), *out = vo_result_type(op, 0);
  /* A quantized element is its storage integer here. */
  const QuantType *qi = type_quant(in), *qo = type_quant(out);
  if ((!vo_builtin_elem(in) && !qi) || (!vo_builtin_elem(out) && !qo)) return;
  ElemKind ei = qi ? qi->storage : in->elem, eo = qo ? qo->storage : out->elem;
  if (elem_is_complex(ei) != elem_is_complex(eo)) {
    op_error(c, op, "cannot convert between real and complex types, but got '%s' and '%s'", vo_type_str(c, in),
             vo_type_str(c, out));
    return;
  }
  if (!vo_is_ranked(in) || !vo_is_ranked(out)) return;
  int bi = elem_bits(ei), bo = elem_bits(eo);
  int r = in->rank;
  if (bi == bo) {
    if (!vo_shapes_compatible(in, out))
      op_error(c, op, "requires the same shape for operand and result when the bit widths match, but got %s and %s",
               vo_shape_str(c, in), vo_shape_str(c, out));
    return;
  }
  const Type *small = bi < bo ? in : out, *big = bi < bo ? out : in;
  int bs = bi < bo ? bi : bo, bb = bi < bo ? bo : bi;
  if (small->rank != big->rank + 1) {
    op_error(c, op, "requires the %s to have one more dimension than the %s when converting %d-bit to %d-bit "
             "elements, but got shapes %s and %s",
             bi < bo ? "operand" : "result", bi < bo ? "result" : "operand", bi, bo, vo_shape_str(c, in),
             vo_shape_str(c, out));
    return;
  }
  (void)r;
  for (int i = 0; i < big->rank; i++)
    if (!vo_dims_compatible(small->dims[i], big->dims[i])) {
      op_error(c, op, "requires dimension %d of operand and result to match, but got shapes %s and %s", i,
               vo_shape_str(c, in), vo_shape_str(c, out));
      return;
    }
  int64_t last = small->dims[small->rank - 1];
  if (bs > 0 && bb % bs == 0 && vo_dim_known(last) && last != bb / bs)
    op_error(c, op, "requires the last dimension of the %s to be %d (%d / %d bits), but got %" PRId64,
             bi < bo ? "operand" : "result", bb / bs, bb, bs, last);
}

/* map: inputs and result share a shape, dimensions = range(rank), and the
 * computation maps scalars of the input element types to one scalar of the
 * result element type (C1-C4). */
void verify_map(Context *c, Op *op) {
  bool ok = true;
  for (int i = 0; i < op->noperands; i++) ok &= vo_require_tensor_operand(c, op, i);
  ok &= vo_require_tensor_result(c, op, 0);
  if (!ok) return;
  check_same_shape(c, op);
  const Type *in0 = vo_operand_type(op, 0);
  I64List dims;
  if (vo_i64_list_attr(c, op, "dimensions", false, &dims) == AR_OK && vo_is_ranked(in0)) {
    bool iota = dims.n == in0->rank;
    for (int i = 0; iota && i < dims.n; i++) iota = dims.v[i] == i;
    if (!iota)
      op_error(c, op, "requires monotonically increasing dimension numbers covering the operand rank %d, but got %s",
               in0->rank, vo_list_str(c, dims.n, dims.v));
  }
  Block *b = vo_region_block(op, 0);
  if (!b) return;
  if (b->nargs != op->noperands) {
    op_error(c, op, "computation must take %d parameters, but takes %d parameter(s)", op->noperands, b->nargs);
    return;
  }
  for (int i = 0; i < b->nargs; i++) {
    const Type *t = b->args[i].type, *in = vo_operand_type(op, i);
    if (!t) continue;
    if (!vo_is_tensor(t) || t->rank > 0) {
      op_error(c, op, "computation parameter #%d must be a 0-dimensional tensor, but got '%s'", i,
               vo_type_str(c, t));
      continue;
    }
    if (!vo_elems_compatible(t, in))
      op_error(c, op, "computation parameter #%d must have the element type of operand #%d, but got '%s' and '%s'", i,
               i, vo_type_str(c, t), vo_type_str(c, in));
  }
  const Op *ret = vo_block_return(b);
  if (!ret) return;
  if (ret->noperands != 1) {
    op_error(c, op, "computation must return 1 value, but returns %d", ret->noperands);
    return;
  }
  const Type *rt = vo_operand_type(ret, 0), *res = vo_result_type(op, 0);
  if (rt && (!vo_is_tensor(rt) || rt->rank > 0))
    op_error(c, op, "computation must return a 0-dimensional tensor, but returns '%s'", vo_type_str(c, rt));
  else if (rt && !vo_elems_compatible(rt, res))
    op_error(c, op, "computation returns '%s', but the result element type is that of '%s'", vo_type_str(c, rt),
             vo_type_str(c, res));
}

/* reduce_precision: 1 <= exponent_bits, 0 <= mantissa_bits (C2, C3). */
void verify_reduce_precision(Context *c, Op *op) {
  verify_same_type_of(c, op, EM_FLOAT);
  int64_t e, m;
  if (vo_int_attr(c, op, "exponent_bits", true, &e) == AR_OK && e < 1)
    op_error(c, op, "exponent_bits must be at least 1, but got %" PRId64, e);
  if (vo_int_attr(c, op, "mantissa_bits", true, &m) == AR_OK && m < 0)
    op_error(c, op, "mantissa_bits must be non-negative, but got %" PRId64, m);
}

/* The rule of the ops that keep one type: the element classes of their
 * row's ELEMS column (ir/ops.def). */
/* A tolerance parameter of a #stablehlo.result_accuracy as a double (0
 * when absent); false when it is not a number. */
static bool accuracy_param(const Attr *ra, const char *key, double *v) {
  const Attr *a = dialect_param(ra, key);
  *v = 0;
  if (!a) return true;
  if (a->kind == ATTR_INT) *v = (double)a->u.i;
  else if (a->kind == ATTR_FLOAT && a->type->kind == TY_ELEM) *v = float_bits_to_double(a->type->elem, a->u.f);
  else return false;
  return true;
}

/* result_accuracy of the transcendental ops: tolerances not negative, all
 * zero unless the mode is TOLERANCE. */
static void check_result_accuracy(Context *c, Op *op) {
  const Attr *ra = op_attr(op, "result_accuracy");
  if (!ra) return;
  const Attr *m = ra->kind == ATTR_DIALECT ? dialect_param(ra, "mode") : NULL;
  const char *mode = NULL;
  if (m && m->kind == ATTR_DIALECT && strcmp(m->u.dialect.name, "stablehlo.result_accuracy_mode") == 0 &&
      m->u.dialect.n == 1)
    mode = attr_enum_value(m->u.dialect.params[0].value);
  if (!mode || (strcmp(mode, "DEFAULT") != 0 && strcmp(mode, "HIGHEST") != 0 && strcmp(mode, "TOLERANCE") != 0)) {
    op_error(c, op, "attribute 'result_accuracy' must be a #stablehlo.result_accuracy<atol = .., rtol = .., ulps = "
             "..,  mode = #stablehlo.result_accuracy_mode<DEFAULT|HIGHEST|TOLERANCE>>");
    return;
  }
  double atol, rtol, ulps;
  if (!accuracy_param(ra, "atol", &atol) || !accuracy_param(ra, "rtol", &rtol) || !accuracy_param(ra, "ulps", &ulps)) {
    op_error(c, op, "result_accuracy: atol, rtol and ulps must be numbers");
    return;
  }
  if (atol < 0 || rtol < 0 || ulps < 0 || signbit(atol) || signbit(rtol))
    op_error(c, op, "result_accuracy: negative tolerance (atol %g, rtol %g, ulps %g)", atol, rtol, ulps);
  else if (strcmp(mode, "TOLERANCE") != 0 && (atol != 0 || rtol != 0 || ulps != 0))
    op_error(c, op, "Invalid tolerances for ResultAccuracyAttr with mode %s, must be all zero (got atol %g, rtol %g, "
             "ulps %g)", mode, atol, rtol, ulps);
}

void verify_same_type(Context *c, Op *op) {
  verify_same_type_of(c, op, op_info[op->kind].elems);
  check_result_accuracy(c, op);
}

/* ------------------------------------------------------------------ */
/* chlo.broadcast_*: element-wise over operands broadcast to one shape. */

/* One dimension of the broadcast of sizes A and B ('?' unknown, 1
 * stretches); false when they cannot broadcast. */
static bool broadcast_dim(int64_t a, int64_t b, int64_t *out) {
  if (a == 1 || a == b) *out = b;
  else if (b == 1) *out = a;
  else if (!vo_dim_known(a) || !vo_dim_known(b)) *out = vo_dim_known(a) ? a : b;
  else return false;
  return true;
}

/* The broadcast shape of ranked A and B into D (room for both ranks):
 * NumPy-style (trailing dimensions aligned), or, when BD is given and the
 * ranks differ, the lower-rank operand's dimension i placed at BD[i] of
 * the other's.  Returns the rank, or -1 after reporting. */
static int broadcast_shapes(Context *c, const Op *op, const Type *a, const Type *b, const I64List *bd, int64_t *d) {
  const Type *hi = a->rank >= b->rank ? a : b, *lo = hi == a ? b : a;
  int R = hi->rank;
  for (int k = 0; k < R; k++) d[k] = hi->dims[k];
  bool mapped = bd && a->rank != b->rank;
  if (mapped && bd->n != lo->rank) {
    op_error(c, op, "broadcast_dimensions has %d entries, but the lower-rank operand has rank %d", bd->n, lo->rank);
    return -1;
  }
  if (mapped && !vo_check_dims(c, op, "broadcast_dimensions", bd, R, true)) return -1;
  for (int i = 0; i < lo->rank; i++) {
    int k = mapped ? (int)bd->v[i] : R - lo->rank + i;
    if (!broadcast_dim(hi->dims[k], lo->dims[i], &d[k])) {
      op_error(c, op, "operands of shapes %s and %s cannot be broadcast together (dimension %d)",
               vo_shape_str(c, a), vo_shape_str(c, b), k);
      return -1;
    }
  }
  return R;
}

/* Operands FIRST.. share an element type of the row's ELEMS; the result
 * has the broadcast shape of all operands and element type WANT
 * (ELEM_COUNT: the operands'). */
static void verify_broadcasting(Context *c, Op *op, int first, ElemKind want) {
  if (op->noperands <= first) return; /* the arity check reports it */
  unsigned mask = op_info[op->kind].elems;
  for (int i = 0; i < op->noperands; i++)
    if (!vo_check_operand(c, op, i, i < first ? EM_BOOL : mask)) return;
  if (!vo_require_tensor_result(c, op, 0)) return;
  for (int i = first + 1; i < op->noperands; i++)
    if (!vo_elems_compatible(vo_operand_type(op, first), vo_operand_type(op, i))) {
      op_error(c, op, "requires the same element type for operands #%d and #%d", first, i);
      return;
    }
  const Type *t0 = vo_operand_type(op, first);
  expect_result_elem(c, op, 0, want < ELEM_COUNT ? want : vo_builtin_elem(t0) ? t0->elem : ELEM_COUNT);
  I64List bd;
  AttrRead ab = vo_i64_list_attr(c, op, "broadcast_dimensions", false, &bd);
  if (ab == AR_BAD) return;
  const Type *acc = vo_operand_type(op, 0);
  for (int i = 1; i < op->noperands; i++) {
    const Type *t = vo_operand_type(op, i);
    if (!vo_is_ranked(acc) || !vo_is_ranked(t)) return;
    int64_t *d = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(acc->rank + t->rank + 1));
    int R = broadcast_shapes(c, op, acc, t, ab == AR_OK ? &bd : NULL, d);
    if (R < 0) return;
    acc = type_tensor(c, ELEM_I1, R, d, NULL); /* the shape so far */
  }
  if (vo_infer_shape(c, 0, acc->rank, acc->dims)) return;
  const Type *res = vo_result_type(op, 0);
  if (vo_is_ranked(res) && !vo_shapes_compatible(res, acc))
    op_error(c, op, "inferred shape %s is incompatible with the result type '%s'", vo_shape_str(c, acc),
             vo_type_str(c, res));
}

void verify_chlo_broadcast(Context *c, Op *op) { verify_broadcasting(c, op, 0, ELEM_COUNT); }

void verify_chlo_broadcast_compare(Context *c, Op *op) {
  vo_enum_attr(c, op, "comparison_direction", "comparison_direction", comparison_directions, true, NULL);
  verify_broadcasting(c, op, 0, ELEM_I1);
}

void verify_chlo_broadcast_complex(Context *c, Op *op) {
  const Type *t = vo_operand_type(op, 0);
  ElemKind e = vo_builtin_elem(t) ? t->elem : ELEM_COUNT;
  if (e < ELEM_COUNT && e != ELEM_F32 && e != ELEM_F64) {
    op_error(c, op, "expects f32 or f64 parts, but got '%s'", vo_type_str(c, t));
    return;
  }
  verify_broadcasting(c, op, 0, e == ELEM_F32 ? ELEM_C64 : e == ELEM_F64 ? ELEM_C128 : ELEM_COUNT);
}

/* broadcast_select(pred, on_true, on_false): an i1 pred. */
void verify_chlo_broadcast_select(Context *c, Op *op) { verify_broadcasting(c, op, 1, ELEM_COUNT); }
