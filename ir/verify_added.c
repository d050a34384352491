/* Type rules of ops added with issue 17's missing ops:
 * interpreter.print (its operand is a tensor, as upstream's HLO_Tensor)
 * and chlo.constant_like (a scalar value of the result's element type,
 * the operand's shape). */
#include "ir/verify_ops.h"

void verify_print(Context *c, Op *op) { vo_require_tensor_operand(c, op, 0); }

void verify_constant_like(Context *c, Op *op) {
  const Attr *v = op_attr(op, "value");
  if (!v) {
    op_error(c, op, "requires attribute 'value'");
    return;
  }
  if ((v->kind != ATTR_INT && v->kind != ATTR_FLOAT && v->kind != ATTR_BOOL) || (v->kind != ATTR_BOOL && !v->type)) {
    op_error(c, op, "attribute 'value' must be a typed scalar, but got %s", vo_attr_str(c, v));
    return;
  }
  const Type *in = vo_operand_type(op, 0), *res = vo_result_type(op, 0);
  if (!vo_require_tensor_operand(c, op, 0) || !res) return;
  ElemKind k = v->kind == ATTR_BOOL ? ELEM_I1 : v->type->elem;
  if (vo_builtin_elem(res) && res->elem != k) op_error(c, op, "value's type doesn't match element return type");
  if (!vo_shapes_compatible(in, res))
    op_error(c, op, "requires the same shape for the operand and the result, but got '%s' and '%s'",
             vo_type_str(c, in), vo_type_str(c, res));
}
