/* quant-lower: rewrites every op on quantized tensors into ops on storage
 * integers and the expressed float type, by the formulas of the
 * specification (docs/quantization.md):
 *
 *   uniform_dequantize   (convert(x, i32|i64) - zero_point) as the expressed
 *                        type, times scale
 *   uniform_quantize     clamp(x / scale + zero_point, storage_min,
 *                        storage_max), round_nearest_even, convert to the
 *                        storage type; of a quantized operand: requantize,
 *                        quantize(dequantize(x))
 *   data movement        (reshape, transpose, slice, gather, pad, ...) whose
 *                        quantized values share their parameters: the same
 *                        op on the storage integers (bit-identical)
 *   dot_general,         quantized lhs and rhs: the integer fast path when it
 *   convolution          is provably identical to the float definition
 *                        (power-of-two scales, integer sums below 2^24 for
 *                        f32), else dequantize_op_quantize; float lhs with a
 *                        quantized rhs (hybrid): op(lhs, dequantize(rhs))
 *   any other op         dequantize_op_quantize: dequantize its quantized
 *                        operands, run it on the expressed type, quantize
 *                        its quantized results
 *
 * It works in two phases.  The first builds the new ops in front of each op
 * while every value keeps its quantized type: new ops read a quantized
 * value as its storage integers, and a rewritten op's storage result is
 * marked with a bitcast_convert back to its quantized type, so later ops
 * still see the parameters.  The second gives every value, block argument
 * and function type its storage type and drops those markers (now
 * identities).  Afterwards no quantized type is left; a function's
 * quantized arguments and results are its storage integers.
 *
 * It also turns the testdata generator's `custom_call @check.eq(actual,
 * expected) -> i1` into check.expect_almost_eq (tolerance 1e-4) or
 * check.expect_eq for integers, the reference interpreter's reading. */
#include <math.h>
#include <string.h>

#include "ir/quant.h"
#include "passes/pass.h"
#include "passes/walk.h"

typedef struct Q {
  Context *c;
  Op *at;   /* new ops go before it, with its location */
  bool ok;
} Q;

static Value *emit(Q *q, OpKind k, int n, Value **operands, Type *t, int nattrs, NamedAttr *attrs) {
  return op_build_before(q->c, q->at, k, n, operands, t, nattrs, attrs);
}

/* A dense constant of type T (static, builtin element) from N doubles:
 * splat when N is 1. */
static Value *constant(Q *q, Type *t, int n, const double *v) {
  int esz = elem_storage_bytes(t->elem);
  uint8_t *data = arena_alloc(&q->c->arena, (size_t)esz * (size_t)n);
  for (int i = 0; i < n; i++) {
    uint64_t bits;
    if (elem_is_float(t->elem)) {
      bits = double_to_float_bits(t->elem, v[i]);
    } else {
      int64_t x = (int64_t)v[i];
      memcpy(&bits, &x, sizeof bits);
    }
    memcpy(data + (size_t)i * (size_t)esz, &bits, (size_t)esz); /* little-endian host layout */
  }
  int64_t count = 1;
  type_tensor_num_elements(t, &count);
  NamedAttr value = {"value", attr_dense_raw(q->c, t, data, (size_t)esz * (size_t)n, n == 1 && count != 1)};
  return emit(q, OP_CONSTANT, 0, NULL, t, 1, &value);
}

/* The per-tensor or per-axis parameter list V (one per scale of QT) as a
 * tensor of LIKE's shape and element kind E: a splat, or a 1-D constant
 * broadcast along the quantized dimension. */
static Value *params(Q *q, const Type *like, const QuantType *qt, ElemKind e, const double *v) {
  Type *full = type_tensor(q->c, e, like->rank, like->dims, NULL);
  if (qt->axis < 0) return constant(q, full, 1, v);
  int64_t n = qt->nscales;
  Value *vec = constant(q, type_tensor(q->c, e, 1, &n, NULL), qt->nscales, v);
  int64_t axis = qt->axis;
  NamedAttr bd = {"broadcast_dimensions", attr_dense_i64_array(q->c, 1, &axis)};
  return emit(q, OP_BROADCAST_IN_DIM, 1, &vec, full, 1, &bd);
}

static Value *scales(Q *q, const Type *like, const QuantType *qt, ElemKind e) {
  return params(q, like, qt, e, qt->scales);
}

static Value *zero_points(Q *q, const Type *like, const QuantType *qt, ElemKind e) {
  double *z = arena_alloc(&q->c->arena, sizeof(double) * (size_t)qt->nscales);
  for (int i = 0; i < qt->nscales; i++) z[i] = (double)qt->zero_points[i];
  return params(q, like, qt, e, z);
}

static Value *convert(Q *q, Value *x, ElemKind to) {
  return emit(q, OP_CONVERT, 1, &x, type_with_elem(q->c, x->type, to), 0, NULL);
}

static Value *bin(Q *q, OpKind k, Value *x, Value *y) {
  Value *o[2] = {x, y};
  return emit(q, k, 2, o, y->type, 0, NULL);
}

/* The integer kind storage values are widened to before subtracting the
 * zero point: i32, or i64 for 32-bit storage. */
static ElemKind wide_int(const QuantType *qt) { return qt->bits < 32 ? ELEM_I32 : ELEM_I64; }

/* Storage integers minus the zero point, in the wide integer kind. */
static Value *centered(Q *q, Value *x, const QuantType *qt) {
  ElemKind w = wide_int(qt);
  Value *xi = convert(q, x, w);
  return bin(q, OP_SUBTRACT, xi, zero_points(q, x->type, qt, w));
}

/* dequantize(x) of the specification, in x's expressed type. */
static Value *dequantize(Q *q, Value *x) {
  const QuantType *qt = type_quant(x->type);
  Value *f = convert(q, centered(q, x, qt), qt->expressed);
  return bin(q, OP_MULTIPLY, f, scales(q, x->type, qt, qt->expressed));
}

/* quantize(x, type) of the specification: x in the expressed type; the
 * result is the storage integers, marked with TYPE (see the header). */
static Value *quantize(Q *q, Value *x, Type *type) {
  const QuantType *qt = type_quant(type);
  ElemKind e = qt->expressed;
  if (x->type->elem != e) x = convert(q, x, e);
  Value *s = bin(q, OP_DIVIDE, x, scales(q, x->type, qt, e));
  s = bin(q, OP_ADD, s, zero_points(q, x->type, qt, e));
  double lo = (double)qt->storage_min, hi = (double)qt->storage_max;
  Type *scalar = type_tensor(q->c, e, 0, NULL, NULL);
  Value *o[3] = {constant(q, scalar, 1, &lo), s, constant(q, scalar, 1, &hi)};
  Value *cl = emit(q, OP_CLAMP, 3, o, s->type, 0, NULL);
  Value *r = emit(q, OP_ROUND_NEAREST_EVEN, 1, &cl, cl->type, 0, NULL);
  Value *st = convert(q, r, qt->storage);
  return emit(q, OP_BITCAST_CONVERT, 1, &st, type, 0, NULL);
}

/* Replaces op's results by VALS and erases it. */
static void replace_op(Q *q, Op *op, Value **vals) {
  for (int i = 0; i < op->nresults; i++) value_replace_all_uses(q->c, &op->results[i], vals[i]);
  op_erase(op);
}

/* Every quantized operand and result has the same parameters; the ops
 * that may take per-axis tensors pass them on unchanged or relabel the
 * quantized dimension as the verifier checked. */
static bool same_params(const Op *op) {
  if (quant_op_flags(op->kind) & QF_PER_AXIS) return true;
  const Type *first = NULL;
  for (int i = 0; i < op->noperands + op->nresults; i++) {
    const Type *t = i < op->noperands ? op->operands[i]->type : op->results[i - op->noperands].type;
    if (!type_is_quant(t) || t->kind != TY_TENSOR) continue;
    if (first && first->elem_opaque != t->elem_opaque) return false;
    first = t;
  }
  return true;
}

/* An op computing in its region (QF_BODY): every quantized operand,
 * result and entry block argument of its regions has one type. */
static bool one_quant_type(const Op *op) {
  const Type *first = NULL;
  for (int i = 0; i < op->noperands + op->nresults; i++) {
    const Type *t = i < op->noperands ? op->operands[i]->type : op->results[i - op->noperands].type;
    if (!type_is_quant(t)) continue;
    if (first && first->elem_opaque != t->elem_opaque) return false;
    first = t;
  }
  for (int r = 0; r < op->nregions; r++) {
    Block *b = op->regions[r].nblocks ? op->regions[r].blocks[0] : NULL;
    for (int i = 0; b && i < b->nargs; i++) {
      const Type *t = b->args[i].type;
      if (!type_is_quant(t)) continue;
      if (first && (first->kind == TY_TENSOR ? first->elem_opaque : first) !=
                       (t->kind == TY_TENSOR ? t->elem_opaque : t))
        return false;
      first = t;
    }
  }
  return true;
}

static bool has_quant(const Op *op) {
  for (int i = 0; i < op->noperands; i++)
    if (type_contains_quant(op->operands[i]->type)) return true;
  for (int i = 0; i < op->nresults; i++)
    if (type_contains_quant(op->results[i].type)) return true;
  return false;
}

/* s = 2^e exactly, with e returned. */
static bool power_of_two(double s, int *e) {
  int x;
  double m = frexp(s, &x);
  *e = x - 1;
  return m == 0.5;
}

/* The product of the contracted dimension sizes of a dot_general or
 * convolution (per output element); -1 when unknown. */
static int64_t contracted_size(Context *c, const Op *op) {
  const Type *l = op->operands[0]->type, *r = op->operands[1]->type;
  if (!type_is_static(l) || !type_is_static(r)) return -1;
  int64_t k = 1;
  if (op->kind == OP_CONVOLUTION) {
    const Attr *dn = op_attr(op, "dimension_numbers");
    if (!dn || dn->kind != ATTR_CONV_DIMS) return -1;
    k = r->dims[dn->u.conv.kernel_input_feature];
    for (int i = 0; i < dn->u.conv.nspatial; i++) k *= r->dims[dn->u.conv.kernel_spatial[i]];
    return k;
  }
  if (op->kind == OP_DOT) return l->rank ? l->dims[l->rank - 1] : 1;
  const Attr *dn = op_attr(op, "dot_dimension_numbers");
  const Attr *lc = dn ? dialect_param(dn, "lhs_contracting_dimensions") : NULL;
  int n = 0;
  const int64_t *v = NULL;
  if (lc && !attr_as_i64_list(lc, &n, &v, &c->arena)) return -1;
  for (int i = 0; i < n; i++) k *= l->dims[v[i]];
  return k;
}

/* The result dimension that rhs dimension AXIS becomes; -1 if none. */
static int result_axis(Context *c, const Op *op, int axis) {
  const Type *l = op->operands[0]->type, *r = op->operands[1]->type;
  if (op->kind == OP_CONVOLUTION) {
    const Attr *dn = op_attr(op, "dimension_numbers");
    return dn && dn->kind == ATTR_CONV_DIMS && axis == dn->u.conv.kernel_output_feature
               ? (int)dn->u.conv.output_feature : -1;
  }
  if (op->kind == OP_DOT) return l->rank == 2 && axis == 1 ? 1 : l->rank == 1 && axis == 1 ? 0 : -1;
  const Attr *dn = op_attr(op, "dot_dimension_numbers");
  const char *keys[4] = {"lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions",
                         "rhs_contracting_dimensions"};
  int n[4] = {0};
  const int64_t *v[4] = {NULL};
  for (int i = 0; i < 4; i++) {
    const Attr *a = dn ? dialect_param(dn, keys[i]) : NULL;
    if (a && !attr_as_i64_list(a, &n[i], &v[i], &c->arena)) return -1;
  }
  for (int i = 0; i < n[1]; i++)
    if (v[1][i] == axis) return i;
  int pos = n[0] + (l->rank - n[0] - n[2]);
  for (int d = 0; d < r->rank; d++) {
    bool skip = false;
    for (int i = 0; i < n[1]; i++) skip |= v[1][i] == d;
    for (int i = 0; i < n[3]; i++) skip |= v[3][i] == d;
    if (skip) continue;
    if (d == axis) return pos;
    pos++;
  }
  return -1;
}

/* The integer fast path is exactly the specification's result when every
 * dequantized value, product and partial sum of the float computation is
 * exact: power-of-two scales (within the exponent range, their product's
 * times any exact sum finite), storage of at most 16 bits, and |sum| < 2^24 for f32 (2^53 for f64) for any operands.
 * docs/quantization.md gives the argument. */
static bool fast_path_exact(Context *c, const Op *op, const QuantType *ql, const QuantType *qr, const QuantType *qo) {
  ElemKind e = ql->expressed;
  if ((e != ELEM_F32 && e != ELEM_F64) || qr->expressed != e || qo->expressed != e || ql->axis >= 0) return false;
  if (ql->bits > 16 || qr->bits > 16) return false;
  int ea, eb, lo = e == ELEM_F32 ? -126 : -1022, hi = e == ELEM_F32 ? 90 : 900;
  /* every exact sum (< 2^24, 2^53) times sa * sb stays finite */
  int top = e == ELEM_F32 ? 127 - 24 : 1023 - 53;
  if (!power_of_two(ql->scales[0], &ea) || ea < lo || ea > hi) return false;
  for (int i = 0; i < qr->nscales; i++)
    if (!power_of_two(qr->scales[i], &eb) || eb < lo || eb > hi || ea + eb < lo || ea + eb > top ||
        qr->zero_points[i] != 0)
      return false;
  int64_t k = contracted_size(c, op);
  if (k < 0) return false;
  double za = (double)ql->zero_points[0];
  double ma = fmax(fabs((double)ql->storage_min - za), fabs((double)ql->storage_max - za));
  double mb = fmax(fabs((double)qr->storage_min), fabs((double)qr->storage_max));
  double limit = e == ELEM_F32 ? 16777216.0 : 9007199254740992.0;
  return (double)k * ma * mb < limit;
}

/* dot_general / dot / convolution with quantized lhs and rhs on the
 * integer fast path: acc = op(a - za, b) in i32, then
 * quantize(convert(acc) * (sa * sb)).  False when it does not apply. */
static bool lower_contraction(Q *q, Op *op) {
  if ((op->kind != OP_DOT_GENERAL && op->kind != OP_DOT && op->kind != OP_CONVOLUTION) || op->noperands != 2)
    return false;
  Value *l = op->operands[0], *r = op->operands[1];
  Type *rt = op->results[0].type;
  const QuantType *ql = type_quant(l->type), *qr = type_quant(r->type), *qo = type_quant(rt);
  if (!ql || !qr || !qo || !type_is_static(rt) || !fast_path_exact(q->c, op, ql, qr, qo)) return false;
  int axis = qr->axis >= 0 ? result_axis(q->c, op, qr->axis) : -1;
  if (qr->axis >= 0 && axis < 0) return false;
  ValueMap m = {0};
  value_map_put(q->c, &m, l, centered(q, l, ql));
  value_map_put(q->c, &m, r, convert(q, r, ELEM_I32));
  Op *acc = op_clone(q->c, op, &m);
  acc->results[0].type = type_with_elem(q->c, rt, ELEM_I32);
  op_insert_before(op, acc);
  QuantType prod = *qr;
  double *s = arena_alloc(&q->c->arena, sizeof(double) * (size_t)qr->nscales);
  for (int i = 0; i < qr->nscales; i++) s[i] = ql->scales[0] * qr->scales[i];
  prod.scales = s;
  prod.axis = axis;
  Value *f = convert(q, &acc->results[0], ql->expressed);
  f = bin(q, OP_MULTIPLY, f, scales(q, f->type, &prod, ql->expressed));
  Value *out = quantize(q, f, rt);
  replace_op(q, op, &out);
  return true;
}

/* dequantize_op_quantize: OP cloned on the expressed type. */
static void lower_generic(Q *q, Op *op) {
  for (int r = 0; r < op->nregions; r++)
    for (int b = 0; b < op->regions[r].nblocks; b++)
      for (int i = 0; i < op->regions[r].blocks[b]->nargs; i++)
        if (type_is_quant(op->regions[r].blocks[b]->args[i].type)) {
          op_error(q->c, op, "is not supported on quantized tensors by tpucc (a region over quantized values)");
          q->ok = false;
          return;
        }
  ElemKind e = ELEM_COUNT;
  for (int i = 0; i < op->noperands + op->nresults; i++) {
    const QuantType *qt = type_quant(i < op->noperands ? op->operands[i]->type : op->results[i - op->noperands].type);
    if (qt && e != ELEM_COUNT && qt->expressed != e) {
      op_error(q->c, op, "is not supported by tpucc on quantized tensors of different expressed types");
      q->ok = false;
      return;
    }
    if (qt) e = qt->expressed;
  }
  ValueMap m = {0};
  for (int i = 0; i < op->noperands; i++) {
    Value *x = op->operands[i];
    if (type_is_quant(x->type) && !value_map_get(&m, x)) value_map_put(q->c, &m, x, dequantize(q, x));
  }
  Op *f = op_clone(q->c, op, &m);
  Value **out = arena_alloc(&q->c->arena, sizeof(Value *) * (size_t)(op->nresults ? op->nresults : 1));
  for (int i = 0; i < op->nresults; i++) {
    const QuantType *qt = type_quant(op->results[i].type);
    if (qt) f->results[i].type = type_with_elem(q->c, op->results[i].type, qt->expressed);
  }
  op_insert_before(q->at, f);
  for (int i = 0; i < op->nresults; i++)
    out[i] = type_is_quant(op->results[i].type) ? quantize(q, &f->results[i], op->results[i].type) : &f->results[i];
  replace_op(q, op, out);
}

/* Every tensor the op uses or defines has a static shape. */
static bool all_static(const Op *op) {
  for (int i = 0; i < op->noperands + op->nresults; i++) {
    const Type *t = i < op->noperands ? op->operands[i]->type : op->results[i - op->noperands].type;
    if (t->kind == TY_TENSOR && !type_is_static(t)) return false;
  }
  return true;
}

static void lower_op(Q *q, Op *op) {
  q->at = op;
  unsigned flags = quant_op_flags(op->kind);
  if ((flags & QF_MOVES) && same_params(op)) return; /* phase 2 retypes its values */
  if ((flags & QF_BODY) && one_quant_type(op)) return; /* its lowered body computes; phase 2 retypes */
  if (!all_static(op)) {
    op_error(q->c, op, "is not supported on quantized tensors of a dynamic shape by tpucc");
    q->ok = false;
    return;
  }
  Value *x = op->noperands ? op->operands[0] : NULL;
  Value *r = NULL;
  if (op->kind == OP_UNIFORM_DEQUANTIZE) r = dequantize(q, x);
  else if (op->kind == OP_UNIFORM_QUANTIZE) r = quantize(q, type_is_quant(x->type) ? dequantize(q, x) : x, op->results[0].type);
  else if (lower_contraction(q, op)) return;
  if (r) replace_op(q, op, &r);
  else lower_generic(q, op);
}

/* custom_call @check.eq(a, b) -> tensor<i1>: check.expect_(almost_)eq and
 * a true constant for its result. */
static void lower_check_eq(Q *q, Op *op) {
  q->at = op;
  const Type *t = op->operands[0]->type;
  bool is_int = t->kind == TY_TENSOR && !t->elem_opaque && !elem_is_float(t->elem) && !elem_is_complex(t->elem);
  NamedAttr tol = {"tolerance", attr_float_bits(q->c, type_elem(q->c, ELEM_F64), double_to_float_bits(ELEM_F64, 1e-4))};
  Value *o[2] = {op->operands[0], op->operands[1]};
  Op *chk = op_build(q->c, is_int ? OP_CHECK_EXPECT_EQ : OP_CHECK_EXPECT_ALMOST_EQ, op->loc, 2, o, NULL,
                     is_int ? 0 : 1, &tol);
  chk->srcloc = op->srcloc;
  op_insert_before(op, chk);
  double one = 1;
  Value *r = op->nresults == 1 && type_is_static(op->results[0].type) && op->results[0].type->elem == ELEM_I1
                 ? constant(q, op->results[0].type, 1, &one)
                 : NULL;
  if (op->nresults == 0 || r) replace_op(q, op, &r);
}

static bool is_check_eq(const Op *op) {
  const Attr *t = op->kind == OP_CUSTOM_CALL ? op_attr(op, "call_target_name") : NULL;
  return t && t->kind == ATTR_STRING && t->u.str.len == 8 && memcmp(t->u.str.s, "check.eq", 8) == 0 &&
         op->noperands == 2 && op->nresults <= 1;
}

static void lower_block(Q *q, Block *b) {
  for (Op *op = b->first, *next; op && q->ok; op = next) {
    next = op->next;
    for (int r = 0; r < op->nregions; r++)
      for (int k = 0; k < op->regions[r].nblocks; k++) lower_block(q, op->regions[r].blocks[k]);
    if (is_check_eq(op)) lower_check_eq(q, op);
    else if (has_quant(op)) lower_op(q, op);
  }
}

/* Phase 2: storage types everywhere; identity bitcast_converts dropped. */
static void retype_block(Context *c, Block *b) {
  for (int i = 0; i < b->nargs; i++) b->args[i].type = type_quant_storage(c, b->args[i].type);
  for (Op *op = b->first, *next; op; op = next) {
    next = op->next;
    for (int i = 0; i < op->nresults; i++) op->results[i].type = type_quant_storage(c, op->results[i].type);
    for (int r = 0; r < op->nregions; r++)
      for (int k = 0; k < op->regions[r].nblocks; k++) retype_block(c, op->regions[r].blocks[k]);
    if (op->kind == OP_FUNC) {
      const Attr *ft = op_attr(op, "function_type");
      if (ft && ft->kind == ATTR_TYPE) op_set_attr(c, op, "function_type", attr_type(c, type_quant_storage(c, ft->type)));
    }
    if (op->kind == OP_BITCAST_CONVERT && op->results[0].type == op->operands[0]->type) {
      value_replace_all_uses(c, &op->results[0], op->operands[0]);
      op_erase(op);
    }
  }
}

bool pass_quant_lower(PassContext *pc) {
  Q q = {.c = pc->c, .ok = true};
  FOR_EACH_FUNC(pc->m, f) {
    lower_block(&q, op_body(f));
    if (!q.ok) return false;
  }
  retype_block(pc->c, op_body(pc->m->op));
  return true;
}
