/* Type rules of ops added with issue 17's missing ops:
 * interpreter.print (its operand is a tensor, as upstream's HLO_Tensor),
 * chlo.constant_like (a scalar value of the result's element type, the
 * operand's shape) and interpreter.run_parallel (upstream's
 * RunParallelOp::verify). */
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

/* The func.func of symbol reference a, or NULL after a located error. */
static const Op *run_parallel_func(Context *c, Op *op, const Attr *a) {
  const Op *f = a && a->kind == ATTR_SYMREF ? vo_lookup_func(op, a->u.str.s) : NULL;
  if (!f) op_error(c, op, "Function %s not found", a ? vo_attr_str(c, a) : "(none)");
  return f;
}

/* A function's (arguments, results) counts from its function_type. */
static bool func_counts(const Op *f, int *nargs, int *nres) {
  const Attr *ft = op_attr(f, "function_type");
  if (!ft || ft->kind != ATTR_TYPE || ft->type->kind != TY_FUNC) return false;
  *nargs = ft->type->ninputs, *nres = ft->type->nresults;
  return true;
}

/* The infeed queue: non-empty, each a function returning one tensor. */
static void run_parallel_infeed(Context *c, Op *op, const Attr *infeed) {
  if (infeed->kind != ATTR_ARRAY || infeed->u.array.n == 0) {
    op_error(c, op, "infeed attribute is optional or should not be empty");
    return;
  }
  for (int i = 0; i < infeed->u.array.n; i++) {
    const Op *f = run_parallel_func(c, op, infeed->u.array.items[i]);
    const Attr *ft = f ? op_attr(f, "function_type") : NULL;
    if (!ft || ft->kind != ATTR_TYPE || ft->type->kind != TY_FUNC) return;
    const Type *fty = ft->type;
    if (fty->nresults != 1) {
      op_error(c, op, "Function \"%s\" should return 1 tensor but returns %d", infeed->u.array.items[i]->u.str.s,
               fty->nresults);
      return;
    }
    if (fty->results[0]->kind != TY_TENSOR) {
      op_error(c, op, "Function \"%s\" should return a tensor type, but instead returns '%s'",
               infeed->u.array.items[i]->u.str.s, vo_type_str(c, fty->results[0]));
      return;
    }
  }
}

void verify_run_parallel(Context *c, Op *op) {
  const Attr *progs = op_attr(op, "programs");
  if (!progs || progs->kind != ATTR_ARRAY || progs->u.array.n == 0 || !progs->u.array.items[0] ||
      progs->u.array.items[0]->kind != ATTR_ARRAY || progs->u.array.items[0]->u.array.n == 0) {
    op_error(c, op, "`programs` attribute cannot be empty");
    return;
  }
  int partitions = progs->u.array.items[0]->u.array.n, nargs = 0, nres = 0;
  for (int r = 0; r < progs->u.array.n; r++) {
    const Attr *row = progs->u.array.items[r];
    int n = row && row->kind == ATTR_ARRAY ? row->u.array.n : -1;
    if (n != partitions) {
      op_error(c, op, "Sizes of second dimension of `programs` should all match %d but got %d", partitions, n);
      return;
    }
    for (int p = 0; p < n; p++) {
      const Op *f = run_parallel_func(c, op, row->u.array.items[p]);
      int a, k;
      if (!f) return;
      if (func_counts(f, &a, &k)) nargs += a, nres += k;
    }
  }
  if (op->noperands != nargs)
    op_error(c, op, "Number of inputs (%d) should match the sum of the number of inputs of all programs (%d)",
             op->noperands, nargs);
  if (op->nresults != nres)
    op_error(c, op, "Number of results (%d) should match the sum of the number of results of all programs (%d)",
             op->nresults, nres);
  const Attr *infeed = op_attr(op, "infeed");
  if (infeed) run_parallel_infeed(c, op, infeed);
}
