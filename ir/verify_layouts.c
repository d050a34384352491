/* Attribute rules of existing ops that upstream StableHLO's verifier
 * checks beyond their types: custom_call's layouts, output-operand aliases
 * and backend_config per api_version, infeed's layout, composite's name. */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ir/verify_ops.h"

/* A layout as integers: attr_as_i64_list, plus the dense<..> :
 * tensor<Nxindex> form upstream writes. */
static bool layout_list(const Attr *l, int *n, const int64_t **v, Arena *scratch) {
  if (l->kind != ATTR_DENSE || l->type->elem != ELEM_INDEX) return attr_as_i64_list(l, n, v, scratch);
  int64_t cnt = dense_num_elements(l);
  if (l->type->rank != 1 || cnt < 0 || cnt > 64) return false;
  int64_t *out = arena_alloc(scratch, sizeof(int64_t) * (size_t)(cnt + 1));
  for (int64_t i = 0; i < cnt; i++) out[i] = dense_get_int(l, i);
  *n = (int)cnt;
  *v = out;
  return true;
}

/* One entry of operand_layouts / result_layouts for a value of type t
 * ("operand" or "result" #i): a permutation of [0, rank), empty for
 * non-tensors.  False after a diagnostic. */
static bool check_one_layout(Context *c, const Op *op, const char *what, int i, const Type *t, const Attr *l) {
  Arena scratch = {0};
  int n;
  const int64_t *v;
  bool ok = true;
  if (!layout_list(l, &n, &v, &scratch)) {
    op_error(c, op, "%s layout #%d must be a 1-d integer list, but got %s", what, i, vo_attr_str(c, l));
    ok = false;
  } else if (t->kind == TY_TUPLE) {
    op_error(c, op, "Tuple types are not fully supported with layout constraints yet (%s #%d)", what, i);
    ok = false;
  } else if (t->kind != TY_TENSOR) {
    if (n != 0) {
      op_error(c, op, "Only tensor types can have non-empty layout: %s #%d of type '%s' has layout %s", what, i,
               vo_type_str(c, t), vo_attr_str(c, l));
      ok = false;
    }
  } else if (t->rank >= 0) {
    bool perm = n == t->rank;
    for (int k = 0; perm && k < n; k++) {
      perm = v[k] >= 0 && v[k] < n;
      for (int j = 0; perm && j < k; j++) perm = v[j] != v[k];
    }
    if (!perm) {
      op_error(c, op, "incorrect layout %s for type '%s', layout must be a permutation of [0, %d)",
               vo_attr_str(c, l), vo_type_str(c, t), t->rank);
      ok = false;
    }
  }
  arena_free_all(&scratch);
  return ok;
}

/* The layouts of n values (types[i]) against an array attribute. */
static bool check_layouts(Context *c, const Op *op, const char *what, int n, const Type *const *types,
                          const Attr *a) {
  if (a->kind != ATTR_ARRAY) {
    op_error(c, op, "%s_layouts must be an array of layouts, but got %s", what, vo_attr_str(c, a));
    return false;
  }
  if (a->u.array.n != n) {
    op_error(c, op, "Number of %ss must match the number of %s layouts, %d != %d", what, what, n, a->u.array.n);
    return false;
  }
  for (int i = 0; i < n; i++)
    if (!check_one_layout(c, op, what, i, types[i], a->u.array.items[i])) return false;
  return true;
}

/* custom_call's operand_layouts and result_layouts: both or neither; one
 * per operand and per result (per element of a single tuple result). */
static void check_custom_call_layouts(Context *c, const Op *op) {
  const Attr *ol = op_attr(op, "operand_layouts"), *rl = op_attr(op, "result_layouts");
  if (!ol && !rl) return;
  if (!ol || !rl) {
    op_error(c, op, "Layout attributes should be specified for either both operands and results or none "
             "(only %s_layouts is given)", ol ? "operand" : "result");
    return;
  }
  const Type **ot = arena_alloc(&c->arena, sizeof(Type *) * (size_t)(op->noperands + 1));
  for (int i = 0; i < op->noperands; i++) ot[i] = op->operands[i]->type;
  if (!check_layouts(c, op, "operand", op->noperands, ot, ol)) return;
  const Type *r0 = op->nresults == 1 ? op->results[0].type : NULL;
  if (r0 && r0->kind == TY_TUPLE) {
    check_layouts(c, op, "result", r0->ninputs, (const Type *const *)r0->inputs, rl);
    return;
  }
  const Type **rt = arena_alloc(&c->arena, sizeof(Type *) * (size_t)(op->nresults + 1));
  for (int i = 0; i < op->nresults; i++) rt[i] = op->results[i].type;
  check_layouts(c, op, "result", op->nresults, rt, rl);
}

/* Follows tuple indices into t; NULL when one is out of bounds. */
static const Type *tuple_part(Context *c, const Type *t, const Attr *indices) {
  Arena scratch = {0};
  int n = 0;
  const int64_t *v = NULL;
  if (indices && !attr_as_i64_list(indices, &n, &v, &scratch)) t = NULL;
  for (int i = 0; t && i < n; i++)
    t = t->kind == TY_TUPLE && v[i] >= 0 && v[i] < t->ninputs ? t->inputs[v[i]] : NULL;
  arena_free_all(&scratch);
  (void)c;
  return t;
}

/* custom_call's output_operand_aliases: each names an operand in range, and
 * the aliased operand and output parts have one type. */
static void check_output_operand_aliases(Context *c, const Op *op) {
  const Attr *a = op_attr(op, "output_operand_aliases");
  if (!a) return;
  if (a->kind != ATTR_ARRAY) {
    op_error(c, op, "output_operand_aliases must be an array of #stablehlo.output_operand_alias, but got %s",
             vo_attr_str(c, a));
    return;
  }
  for (int k = 0; k < a->u.array.n; k++) {
    const Attr *al = a->u.array.items[k];
    const Attr *oi = al->kind == ATTR_DIALECT ? dialect_param(al, "operand_index") : NULL;
    if (!oi || oi->kind != ATTR_INT || strcmp(al->u.dialect.name, "stablehlo.output_operand_alias") != 0) {
      op_error(c, op, "output_operand_aliases #%d must be a #stablehlo.output_operand_alias<output_tuple_indices = "
               "[..], operand_index = N, operand_tuple_indices = [..]>, but got %s", k, vo_attr_str(c, al));
      return;
    }
    if (oi->u.i < 0 || oi->u.i >= op->noperands) {
      op_error(c, op,
               "expects operandIndex in the output_operand_alias attribute to be in range [0, %d); got: %" PRId64,
               op->noperands, oi->u.i);
      return;
    }
    const Type *opart = tuple_part(c, op->operands[oi->u.i]->type, dialect_param(al, "operand_tuple_indices"));
    if (!opart) {
      op_error(c, op, "operand_tuple_indices in the output_operand_alias attribute out of bounds");
      return;
    }
    const Type *whole = NULL;
    if (op->nresults == 1) {
      whole = op->results[0].type;
    } else {
      Type **rt = arena_alloc(&c->arena, sizeof(Type *) * (size_t)(op->nresults + 1));
      for (int i = 0; i < op->nresults; i++) rt[i] = op->results[i].type;
      whole = type_tuple(c, op->nresults, rt);
    }
    const Type *rpart = tuple_part(c, whole, dialect_param(al, "output_tuple_indices"));
    if (!rpart) {
      op_error(c, op, "output_tuple_indices in the output_operand_alias attribute out of bounds");
      return;
    }
    if (rpart != opart) {
      op_error(c, op, "shapes mismatch in the output_operand_alias attribute: operand part has type '%s' and output "
               "part has type '%s'", vo_type_str(c, opart), vo_type_str(c, rpart));
      return;
    }
  }
}

/* backend_config: a dictionary for API_VERSION_TYPED_FFI (4), a string for
 * the others (when api_version is written: producers that leave it out
 * pass either). */
static void check_backend_config(Context *c, const Op *op) {
  static const char *const names[] = {"API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL",
                                      "API_VERSION_STATUS_RETURNING", "API_VERSION_STATUS_RETURNING_UNIFIED",
                                      "API_VERSION_TYPED_FFI"};
  const Attr *bc = op_attr(op, "backend_config");
  int64_t api = 0;
  const Attr *av = op_attr(op, "api_version");
  if (!bc || !av || !attr_as_int(av, &api) || api < 0 || api > 4) return; /* checked when api_version is given */
  if (api == 4 && bc->kind == ATTR_STRING)
    op_error(c, op, "backend_config for api_version %s must be a dictionary attribute", names[api]);
  else if (api != 4 && bc->kind == ATTR_DICT)
    op_error(c, op, "backend_config for api_version %s must be a string attribute", names[api]);
}

void vo_check_custom_call_attrs(Context *c, Op *op) {
  check_custom_call_layouts(c, op);
  check_output_operand_aliases(c, op);
  check_backend_config(c, op);
  const Attr *t = op_attr(op, "call_target_name");
  if (t && t->kind == ATTR_STRING && strcmp(t->u.str.s, "CreateBuffer") == 0 && op->noperands != 0)
    op_error(c, op, "CreateBuffer custom_call shouldn't have any inputs, but has %d", op->noperands);
}

/* infeed's layout: an array of one array of integers per non-token result. */
void vo_check_infeed_layout(Context *c, Op *op) {
  const Attr *l = op_attr(op, "layout");
  if (!l || op->kind != OP_INFEED) return;
  if (l->kind != ATTR_ARRAY) {
    op_error(c, op, "layout-attribute must be an array, but got %s", vo_attr_str(c, l));
    return;
  }
  int want = op->nresults - 1;
  if (l->u.array.n != want) {
    op_error(c, op, "layout-attribute size must be %d (which is the number of op-results - 1 (for token result)), "
             "but got %d", want < 0 ? 0 : want, l->u.array.n);
    return;
  }
  for (int i = 0; i < l->u.array.n; i++) {
    const Attr *e = l->u.array.items[i];
    if (e->kind != ATTR_ARRAY) {
      op_error(c, op, "layout-attribute expected to have elements of type array, but got %s", vo_attr_str(c, e));
      return;
    }
    for (int k = 0; k < e->u.array.n; k++)
      if (e->u.array.items[k]->kind != ATTR_INT) {
        op_error(c, op, "layout-attribute's leaf elements are expected to be of type integer, but got %s",
                 vo_attr_str(c, e->u.array.items[k]));
        return;
      }
  }
}

/* composite_c1: ^[a-zA-Z][a-zA-Z0-9_]*([.][a-zA-Z0-9_$]+)+$ */
bool vo_namespaced_op_name(const char *s) {
  if (!isalpha((unsigned char)*s)) return false;
  while (isalnum((unsigned char)*s) || *s == '_') s++;
  if (*s != '.') return false;
  while (*s == '.') {
    s++;
    if (!isalnum((unsigned char)*s) && *s != '_' && *s != '$') return false;
    while (isalnum((unsigned char)*s) || *s == '_' || *s == '$') s++;
  }
  return *s == 0;
}

/* send / recv (C1 with I3/I4): the channel type matches is_host_transfer:
 * DEVICE_TO_DEVICE (1) without, DEVICE_TO_HOST (2) for send and
 * HOST_TO_DEVICE (3) for recv with. */
void vo_check_channel_type(Context *c, Op *op) {
  const Attr *ch = op_attr(op, "channel_handle");
  const Attr *t = ch && ch->kind == ATTR_DIALECT ? dialect_param(ch, "type") : NULL;
  if (!t || t->kind != ATTR_INT || (op->kind != OP_SEND && op->kind != OP_RECV)) return;
  const Attr *h = op_attr(op, "is_host_transfer");
  bool host = h && (h->kind == ATTR_UNIT || (h->kind == ATTR_BOOL && h->u.b));
  int64_t want = !host ? 1 : op->kind == OP_SEND ? 2 : 3;
  static const char *const names[] = {"DEVICE_TO_DEVICE", "DEVICE_TO_HOST", "HOST_TO_DEVICE"};
  if (t->u.i != want)
    op_error(c, op, "channel_type should be %s when is_host_transfer is %s, but the channel_handle's type is %" PRId64,
             names[want - 1], host ? "true" : "false", t->u.i);
}

/* The outermost op enclosing op (the module). */
static const Op *top_op(const Op *op) {
  while (op->parent && op->parent->parent && op->parent->parent->parent) op = op->parent->parent->parent;
  return op;
}

/* #stablehlo.replica_group_mesh_axes<mesh = @name, axes = [..]>: the mesh
 * names a symbol of the module. */
void vo_check_mesh_axes(Context *c, Op *op, const Attr *a) {
  const Attr *mesh = dialect_param(a, "mesh");
  if (!mesh || mesh->kind != ATTR_SYMREF) {
    op_error(c, op, "replica_groups: #stablehlo.replica_group_mesh_axes needs 'mesh = @symbol', but got %s",
             vo_attr_str(c, a));
    return;
  }
  const Op *top = top_op(op);
  const Block *body = top->kind == OP_MODULE ? op_body(top) : NULL;
  for (const Op *s = body ? body->first : NULL; s; s = s->next) {
    const char *name = op_symbol_name(s);
    if (name && strcmp(name, mesh->u.str.s) == 0) return;
  }
  op_error(c, op, "replica_groups: mesh symbol '%s' not found", mesh->u.str.s);
}
