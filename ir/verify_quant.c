/* The quantization constraints of the specification: those of quantized
 * element and tensor types (C1-C13 of "Quantized element types") on every
 * value an op uses or defines, which ops take per-axis quantized tensors,
 * and the per-op rules that name quantized tensors (add, dot_general, dot,
 * convolution, transpose, reshape, broadcast_in_dim, uniform_quantize,
 * uniform_dequantize).  Called by ir/verifier.c for every op. */
#include <string.h>

#include "ir/quant.h"
#include "ir/verify_ops.h"

/* Type checks of one value: false after reporting. */
static bool check_value(Context *c, const Op *op, const char *what, int i, const Type *t) {
  if (t->kind == TY_TUPLE) {
    for (int k = 0; k < t->ninputs; k++)
      if (!check_value(c, op, what, i, t->inputs[k])) return false;
    return true;
  }
  const QuantType *q = type_quant(t);
  if (!q) return true;
  const char *why = t->kind == TY_TENSOR ? quant_check_tensor(t) : NULL;
  if (!why && t->kind == TY_TENSOR && t->rank < 0 && op->kind != OP_CUSTOM_CALL)
    why = "quantized tensors must be ranked";
  if (!why && q->axis >= 0 && !(quant_op_flags(op->kind) & QF_PER_AXIS))
    why = "per-axis quantized tensors are not allowed here (only per-tensor ones)";
  if (!why) return true;
  op_error(c, op, "%s #%d must be ranked tensor of valid quantized elements, but got '%s': %s", what, i,
           vo_type_str(c, t), why);
  return false;
}

static bool same_quant(const Type *a, const Type *b) {
  const Type *ea = a->kind == TY_TENSOR ? a->elem_opaque : a, *eb = b->kind == TY_TENSOR ? b->elem_opaque : b;
  return ea == eb;
}

/* transpose_c1, reshape_c1, broadcast_in_dim_c1: operand and result carry
 * the same quantization parameters (scales compared as a list). */
static bool check_same_params(Context *c, const Op *op, const Type *in, const Type *out) {
  const QuantType *a = type_quant(in), *b = type_quant(out);
  if (!a || !b) return true;
  bool per_tensor = a->axis < 0 && b->axis < 0;
  bool same = a->nscales == b->nscales && a->storage == b->storage && a->expressed == b->expressed &&
              a->storage_min == b->storage_min && a->storage_max == b->storage_max;
  for (int i = 0; same && i < a->nscales; i++)
    same = a->scales[i] == b->scales[i] && a->zero_points[i] == b->zero_points[i];
  if (per_tensor && !same_quant(in, out)) {
    op_error(c, op, "expect same quantization scale and zero_point but got '%s' vs '%s'", vo_type_str(c, in),
             vo_type_str(c, out));
    return false;
  }
  if (a->axis >= 0 && b->axis >= 0 && !same && op->kind != OP_BROADCAST_IN_DIM &&
      op->kind != OP_DYNAMIC_BROADCAST_IN_DIM) {
    op_error(c, op, "expect same quantization scales and zero_points but got '%s' vs '%s'", vo_type_str(c, in),
             vo_type_str(c, out));
    return false;
  }
  return true;
}

/* add_c2 .. add_c7 */
static void quant_add(Context *c, const Op *op, const Type *l, const Type *res) {
  const Type *r = vo_operand_type(op, 1);
  if (!l || !r || !res) return;
  const QuantType *a = type_quant(l), *b = type_quant(r), *o = type_quant(res);
  if (!a && !b && !o) return;
  if (!a || !b || !o) {
    op_error(c, op, "expects all operands and results to be either quantized or non-quantized");
  } else if (a->storage != b->storage || a->storage != o->storage) {
    op_error(c, op, "mismatched operands and result quantization storage types");
  } else if (a->expressed != b->expressed || a->expressed != o->expressed) {
    op_error(c, op, "mismatched operands and result quantization expressed types");
  } else if ((a->axis >= 0 || b->axis >= 0) && o->axis < 0) {
    op_error(c, op, "result is not per_axis quantized but lhs or rhs are");
  } else if ((a->axis >= 0 && a->axis != o->axis) || (b->axis >= 0 && b->axis != o->axis)) {
    op_error(c, op, "quantization_dimension of operands and result are not same");
  } else if (a->axis < 0 && b->axis < 0 && o->axis >= 0) {
    op_error(c, op, "result per_axis quantized but none from rhs and lhs are per_axis quantized");
  }
}

/* convolution_c28, c31-c34 and dot_general_c14, c17-c20. */
static void check_contraction_common(Context *c, const Op *op) {
  const Type *l = vo_operand_type(op, 0), *r = vo_operand_type(op, 1), *res = vo_result_type(op, 0);
  const QuantType *a = type_quant(l), *b = type_quant(r), *o = type_quant(res);
  if (!b || (!a) != (!o)) {
    op_error(c, op, "rhs should be quantized for quantized operations and is_quantized(lhs)=is_quantized(result) "
                    "should hold");
  } else if (a && a->storage != b->storage) {
    op_error(c, op, "mismatched lhs and rhs quantization storage types");
  } else if (a && (a->expressed != b->expressed || a->expressed != o->expressed)) {
    op_error(c, op, "mismatched lhs, rhs and result quantization expressed types");
  } else if (a && b->axis < 0 && o->axis >= 0) {
    op_error(c, op, "mismatched rhs and result quantization granularity");
  } else if (!a && (l->elem != b->expressed || res->elem != b->expressed || l->elem_opaque || res->elem_opaque)) {
    op_error(c, op, "mismatched rhs quantization expressed type and lhs and result element type");
  }
}

static void quant_dot_general(Context *c, const Op *op, const Type *in, const Type *out) {
  const Type *r = vo_operand_type(op, 1);
  if (op->noperands != 2 || (!type_is_quant(r) && !type_is_quant(in) && !type_is_quant(out))) return;
  const QuantType *b = type_quant(r);
  if (b) {
    bool zero = true;
    for (int i = 0; i < b->nscales; i++) zero &= b->zero_points[i] == 0;
    if (!zero) {
      op_error(c, op, b->axis < 0 ? "Zero point of rhs should be 0" : "Zero points of rhs should be 0");
      return;
    }
    const Attr *dn = op_attr(op, "dot_dimension_numbers");
    const Attr *rc = dn ? dialect_param(dn, "rhs_contracting_dimensions") : NULL;
    int n = 0;
    const int64_t *v = NULL;
    if (b->axis >= 0 && rc && attr_as_i64_list(rc, &n, &v, &c->arena)) {
      for (int i = 0; i < n; i++)
        if (v[i] == b->axis) {
          op_error(c, op, "Quantization dimension of rhs should not be in the contracting dimension of rhs");
          return;
        }
    }
  }
  check_contraction_common(c, op);
}

static void quant_convolution(Context *c, const Op *op, const Type *in, const Type *out) {
  if (op->noperands < 2 || (!type_is_quant(op->operands[1]->type) && !type_is_quant(in) && !type_is_quant(out)))
    return;
  const QuantType *b = type_quant(vo_operand_type(op, 1)), *o = type_quant(vo_result_type(op, 0));
  const Attr *dn = op_attr(op, "dimension_numbers");
  if (dn && dn->kind == ATTR_CONV_DIMS) {
    if (b && b->axis >= 0 && b->axis != dn->u.conv.kernel_output_feature) {
      op_error(c, op, "quantization dimension of rhs should be same with kernel_output_feature_dimension");
      return;
    }
    if (o && o->axis >= 0 && o->axis != dn->u.conv.output_feature) {
      op_error(c, op, "quantization dimension of result should be same with output_feature_dimension");
      return;
    }
  }
  check_contraction_common(c, op);
}

static void quant_transpose(Context *c, const Op *op, const Type *in, const Type *out) {
  if (!check_same_params(c, op, in, out)) return;
  const QuantType *a = type_quant(in), *b = type_quant(out);
  I64List perm;
  const Attr *p = op_attr(op, "permutation");
  if (!a || !b || a->axis < 0 || b->axis < 0 || !p || !attr_as_i64_list(p, &perm.n, &perm.v, &c->arena)) return;
  if (b->axis < perm.n && perm.v[b->axis] != a->axis)
    op_error(c, op, "operand quantization_dimension %d is not same as permutation[%d] = %lld", a->axis, b->axis,
             (long long)perm.v[b->axis]);
}

static void quant_reshape(Context *c, const Op *op, const Type *in, const Type *out) {
  if (!check_same_params(c, op, in, out)) return;
  const QuantType *a = type_quant(in), *b = type_quant(out);
  if (!a || !b || a->axis < 0 || b->axis < 0 || !vo_is_ranked(in) || !vo_is_ranked(out)) return;
  if (a->axis >= in->rank || b->axis >= out->rank) return;
  if (vo_dim_known(in->dims[a->axis]) && vo_dim_known(out->dims[b->axis]) && in->dims[a->axis] != out->dims[b->axis]) {
    op_error(c, op, "expect same quantization dimension size for operand and result");
    return;
  }
  if (!type_is_static(in) || !type_is_static(out)) return;
  uint64_t pa = 1, pb = 1;
  for (int i = 0; i < a->axis; i++) pa *= (uint64_t)in->dims[i];
  for (int i = 0; i < b->axis; i++) pb *= (uint64_t)out->dims[i];
  if (pa != pb)
    op_error(c, op, "product of dimensions before quantization dimension must match between operand and result for "
                    "%llu and %llu", (unsigned long long)pa, (unsigned long long)pb);
}

/* broadcast_in_dim_c1, c6 */
static void quant_broadcast_in_dim(Context *c, const Op *op, const Type *in, const Type *out) {
  if (!check_same_params(c, op, in, out)) return;
  const QuantType *a = type_quant(in), *b = type_quant(out);
  if (!a || !b || a->axis < 0 || b->axis < 0 || !vo_is_ranked(in) || a->axis >= in->rank) return;
  I64List d;
  const Attr *p = op_attr(op, "broadcast_dimensions");
  if (!p || !attr_as_i64_list(p, &d.n, &d.v, &c->arena) || a->axis >= d.n) return;
  if (d.v[a->axis] != b->axis) {
    op_error(c, op, "result quantization_dimension %d not same as broadcast_dimensions[%d] = %lld", b->axis,
             a->axis, (long long)d.v[a->axis]);
    return;
  }
  if (in->dims[a->axis] == 1) {
    for (int i = 0; i < b->nscales; i++) {
      if (b->scales[i] != a->scales[0]) {
        op_error(c, op, "mismatch result scale %d (%e) and operand scale 0 (%e)", i, b->scales[i], a->scales[0]);
        return;
      }
      if (b->zero_points[i] != a->zero_points[0]) {
        op_error(c, op, "mismatch result zero_point %d (%lld) and operand zero_point 0 (%lld)", i,
                 (long long)b->zero_points[i], (long long)a->zero_points[0]);
        return;
      }
    }
  } else if (!check_same_params(c, op, in, out) || a->nscales != b->nscales) {
    op_error(c, op, "expect same quantization scales and zero_points but got '%s' vs '%s'", vo_type_str(c, in),
             vo_type_str(c, out));
  }
}

/* uniform_quantize_c1, uniform_dequantize_c1-c2 */
static void quant_uniform(Context *c, const Op *op, const Type *in, const Type *out) {
  const QuantType *a = type_quant(in), *b = type_quant(out);
  if (op->kind == OP_UNIFORM_QUANTIZE) {
    if (!b) {
      op_error(c, op, "result #0 must be a tensor of quantized elements, but got '%s'", vo_type_str(c, out));
    } else if (!a && (in->elem_opaque || !elem_is_float(in->elem))) {
      op_error(c, op, "operand #0 must be a tensor of floating-point or quantized elements, but got '%s'",
               vo_type_str(c, in));
    } else if ((a ? a->expressed : in->elem) != b->expressed) {
      op_error(c, op, "Expressed type of result expected to be '%s', but got '%s'",
               elem_name(a ? a->expressed : in->elem), elem_name(b->expressed));
    }
    return;
  }
  if (!a) {
    op_error(c, op, "operand #0 must be a tensor of quantized elements, but got '%s'", vo_type_str(c, in));
  } else if (b || out->elem_opaque || out->elem != a->expressed) {
    op_error(c, op, "result #0 must be a tensor of the operand's expressed type '%s', but got '%s'",
             elem_name(a->expressed), vo_type_str(c, out));
  }
}

static void quant_none(Context *c, const Op *op, const Type *in, const Type *out) {
  (void)c, (void)op, (void)in, (void)out;
}

/* The per-op rules, from the RULE column of ir/quant.def. */
typedef void (*QuantRule)(Context *c, const Op *op, const Type *in, const Type *out);
static const QuantRule rules[OP_COUNT] = {
#define QUANT(id, flags, rule) [OP_##id] = quant_##rule,
#include "ir/quant.def"
#undef QUANT
};

/* Same baseline type (spec's baseline_type: the parameters reset): the
 * storage, its range, the expressed type and the quantized dimension. */
static bool same_baseline(const QuantType *a, const QuantType *b) {
  return a->storage == b->storage && a->storage_min == b->storage_min && a->storage_max == b->storage_max &&
         a->expressed == b->expressed && (a->axis < 0) == (b->axis < 0) && a->axis == b->axis;
}

/* The C1 of the element-wise ops whose operands and results share a type
 * (TRAIT_SAME_TYPE; add has its own rules): quantized ones all, with one
 * baseline type. */
static void check_same_baseline(Context *c, const Op *op) {
  const QuantType *first = NULL;
  bool any_plain = false;
  for (int i = 0; i < op->noperands + op->nresults; i++) {
    const Type *t = i < op->noperands ? op->operands[i]->type : op->results[i - op->noperands].type;
    if (t->kind != TY_TENSOR) continue;
    const QuantType *q = type_quant(t);
    if (!q) {
      any_plain = true;
    } else if (first && !same_baseline(first, q)) {
      op_error(c, op, "requires its quantized operands and results to have the same baseline type (storage, "
                      "storage range, expressed type and quantized dimension), but got '%s'",
               vo_type_str(c, t));
      return;
    } else {
      first = q;
    }
  }
  if (first && any_plain) op_error(c, op, "expects all operands and results to be either quantized or non-quantized");
}

void verify_quant_op(Context *c, Op *op) {
  bool ok = true;
  for (int i = 0; i < op->noperands && ok; i++) ok = check_value(c, op, "operand", i, op->operands[i]->type);
  for (int i = 0; i < op->nresults && ok; i++) ok = check_value(c, op, "result", i, op->results[i].type);
  if (!ok || op->noperands < 1 || op->nresults < 1) return;
  if ((op_info[op->kind].traits & TRAIT_SAME_TYPE) && op->kind != OP_ADD) check_same_baseline(c, op);
  const Type *in = op->operands[0]->type, *out = op->results[0].type;
  if (in->kind != TY_TENSOR || out->kind != TY_TENSOR) return;
  if (rules[op->kind]) rules[op->kind](c, op, in, out);
}
