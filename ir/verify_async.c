/* Type rules of stablehlo.async_start and stablehlo.async_done (spec:
 * async_start C1-C4, async_done C1) with the wording of StableHLO's
 * verifier; the !stablehlo.future type itself is checked by the parser
 * (ranked tensor elements). */
#include <string.h>

#include "ir/verify_ops.h"

/* The ops async_start may run (C2): the collectives and the slices. */
static bool is_async_body_op(OpKind k) {
  return k == OP_ALL_REDUCE || k == OP_ALL_GATHER || k == OP_ALL_TO_ALL || k == OP_COLLECTIVE_PERMUTE ||
         k == OP_REDUCE_SCATTER || k == OP_COLLECTIVE_BROADCAST || k == OP_SLICE || k == OP_DYNAMIC_SLICE ||
         k == OP_DYNAMIC_UPDATE_SLICE;
}

/* "T1, T2" of n types. */
static const char *types_str(Context *c, int n, Type *const *t) {
  const char *s = "";
  for (int i = 0; i < n; i++) s = arena_printf(&c->arena, "%s%s%s", s, i ? ", " : "", vo_type_str(c, t[i]));
  return s;
}

/* The region's arguments match the operands (C3). */
static bool async_args_match(Context *c, const Op *op, const Block *b) {
  if (b->nargs != op->noperands) {
    op_error(c, op, "number of operands (%d) must match number of region arguments (%d)", op->noperands, b->nargs);
    return false;
  }
  for (int i = 0; i < b->nargs; i++)
    if (!vo_types_compatible(op->operands[i]->type, b->args[i].type)) {
      op_error(c, op, "operand type '%s' at index %d must match region argument type '%s'",
               vo_type_str(c, op->operands[i]->type), i, vo_type_str(c, b->args[i].type));
      return false;
    }
  return true;
}

void verify_future_start(Context *c, Op *op) {
  Block *b = vo_region_block(op, 0);
  if (!b) return;
  const Op *inner = b->first, *ret = inner ? inner->next : NULL;
  if (!inner || !ret || ret->next || ret->kind != OP_RETURN) {
    op_error(c, op, "region must contain exactly one operation and a return");
    return;
  }
  if (!is_async_body_op(inner->kind)) {
    op_error(c, op, "region must contain a collective or slice operation");
    return;
  }
  if (!async_args_match(c, op, b)) return;
  Type **el = arena_alloc(&c->arena, sizeof(Type *) * (size_t)(ret->noperands + 1));
  for (int i = 0; i < ret->noperands; i++) el[i] = ret->operands[i]->type;
  Type *inferred = type_future(c, ret->noperands, el);
  if (c->infer) return;
  const Type *res = op->nresults == 1 ? op->results[0].type : NULL;
  if (!res || res != inferred)
    op_error(c, op, "inferred type(s) '%s' are incompatible with return type(s) of operation '%s'",
             vo_type_str(c, inferred), res ? vo_type_str(c, res) : "");
}

void verify_future_done(Context *c, Op *op) {
  const Type *f = op->operands[0]->type;
  if (f->kind != TY_FUTURE) {
    op_error(c, op, "operand must be a future, but got '%s'", vo_type_str(c, f));
    return;
  }
  if (c->infer) return;
  bool same = op->nresults == f->ninputs;
  for (int i = 0; same && i < op->nresults; i++) same = op->results[i].type == f->inputs[i];
  if (!same) {
    Type **rt = arena_alloc(&c->arena, sizeof(Type *) * (size_t)(op->nresults + 1));
    for (int i = 0; i < op->nresults; i++) rt[i] = op->results[i].type;
    op_error(c, op, "inferred type(s) '%s' are incompatible with return type(s) of operation '%s'",
             types_str(c, f->ninputs, f->inputs), types_str(c, op->nresults, rt));
  }
}
