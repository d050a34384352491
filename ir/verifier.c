/* The verifier: structural rules common to all ops (counts from the op
 * table, terminators, symbols, calls, returns, SSA dominance) here; per-op
 * type and shape rules in ir/verify_*.c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/table.h"
#include "ir/verify_ops.h"

typedef struct Verifier {
  Context *c;
  Module *m;
  Table funcs; /* sym_name -> func op */
  Table types; /* tensor types already checked */
} Verifier;

/* Check each distinct tensor type once (types are interned). */
static void check_type_once(Verifier *v, Loc loc, const Type *t) {
  if (t->kind != TY_TENSOR) return;
  void **seen = table_put(&v->types, t, 0);
  if (*seen) return;
  *seen = (void *)t;
  verify_tensor_type(v->c, loc, t);
}

static void verify_region(Verifier *v, Op *parent, Region *r);

/* Does value v dominate op `user` (defined earlier in an enclosing block)? */
static bool dominates(const Value *v, const Op *user) {
  const Block *def_block = v->def ? v->def->parent : v->block;
  for (const Op *o = user; o; o = o->parent && o->parent->parent ? o->parent->parent->parent : NULL) {
    if (o->parent == def_block) {
      if (!v->def) return true;
      return v->def->order < o->order;
    }
  }
  return false;
}

/* Is value v defined outside of the isolated op `iso` (func)? */
static bool crosses_isolation(const Value *v, const Op *user) {
  const Block *def_block = v->def ? v->def->parent : v->block;
  for (const Op *o = user->parent && user->parent->parent ? user->parent->parent->parent : NULL; o;
       o = o->parent && o->parent->parent ? o->parent->parent->parent : NULL) {
    for (int r = 0; r < o->nregions; r++)
      for (int b = 0; b < o->regions[r].nblocks; b++)
        if (o->regions[r].blocks[b] == def_block) return false;
    if (op_info[o->kind].traits & TRAIT_ISOLATED) return true;
  }
  return false;
}

static const char *plural(int n) { return n == 1 ? "" : "s"; }

static void verify_counts(Verifier *v, Op *op) {
  const OpInfo *info = &op_info[op->kind];
  if (info->min_operands >= 0 && op->noperands < info->min_operands) {
    if (info->max_operands == info->min_operands)
      op_error(v->c, op, "requires %d operand%s, but found %d", info->min_operands, plural(info->min_operands),
               op->noperands);
    else
      op_error(v->c, op, "requires at least %d operand%s, but found %d", info->min_operands,
               plural(info->min_operands), op->noperands);
  } else if (info->max_operands >= 0 && op->noperands > info->max_operands) {
    op_error(v->c, op, "requires %s%d operand%s, but found %d", info->max_operands == info->min_operands ? "" : "at most ",
             info->max_operands, plural(info->max_operands), op->noperands);
  }
  if (info->num_results >= 0 && op->nresults != info->num_results)
    op_error(v->c, op, "requires %d result%s, but found %d", info->num_results, plural(info->num_results),
             op->nresults);
  if (info->num_regions >= 0 && op->nregions != info->num_regions)
    op_error(v->c, op, "requires %d region%s, but found %d", info->num_regions, plural(info->num_regions),
             op->nregions);
}

static void verify_func(Verifier *v, Op *op) {
  const Attr *name = op_attr(op, "sym_name"), *ft = op_attr(op, "function_type");
  if (!name || name->kind != ATTR_STRING) op_error(v->c, op, "requires a string attribute 'sym_name'");
  if (!ft || ft->kind != ATTR_TYPE || ft->type->kind != TY_FUNC) {
    op_error(v->c, op, "requires a function type attribute 'function_type'");
    return;
  }
  const Attr *vis = op_attr(op, "sym_visibility");
  if (vis && (vis->kind != ATTR_STRING || (strcmp(vis->u.str.s, "public") && strcmp(vis->u.str.s, "private") &&
                                           strcmp(vis->u.str.s, "nested"))))
    op_error(v->c, op, "'sym_visibility' must be \"public\", \"private\" or \"nested\"");
  const Type *fty = ft->type;
  const char *keys[] = {"arg_attrs", "res_attrs"};
  int counts[] = {fty->ninputs, fty->nresults};
  for (int k = 0; k < 2; k++) {
    const Attr *a = op_attr(op, keys[k]);
    if (!a) continue;
    bool ok = a->kind == ATTR_ARRAY && a->u.array.n == counts[k];
    for (int i = 0; ok && i < a->u.array.n; i++) ok = a->u.array.items[i]->kind == ATTR_DICT;
    if (!ok) op_error(v->c, op, "'%s' must be an array of %d dictionaries", keys[k], counts[k]);
  }
  if (op->nregions != 1) return;
  Region *r = &op->regions[0];
  if (r->nblocks == 0) {
    if (!vis || vis->kind != ATTR_STRING || strcmp(vis->u.str.s, "private") != 0)
      op_error(v->c, op, "a function declaration (no body) must be private");
    return;
  }
  Block *entry = r->blocks[0];
  if (entry->nargs != fty->ninputs) {
    op_error(v->c, op, "entry block has %d arguments but the function type has %d inputs", entry->nargs,
             fty->ninputs);
    return;
  }
  for (int i = 0; i < entry->nargs; i++)
    if (entry->args[i].type != fty->inputs[i])
      op_error(v->c, op, "type of entry block argument #%d ('%s') does not match the function signature ('%s')", i,
               type_to_string(v->c, entry->args[i].type), type_to_string(v->c, fty->inputs[i]));
  Op *ret = entry->last;
  if (!ret || (ret->kind != OP_FUNC_RETURN)) {
    op_error(v->c, ret ? ret : op, "the body of a function must end with 'func.return'");
    return;
  }
  if (ret->noperands != fty->nresults) {
    op_error(v->c, ret, "has %d operands, but enclosing function (@%s) returns %d", ret->noperands,
             name ? name->u.str.s : "?", fty->nresults);
    return;
  }
  for (int i = 0; i < ret->noperands; i++)
    if (ret->operands[i]->type != fty->results[i])
      op_error(v->c, ret, "type of return operand %d ('%s') doesn't match function result type ('%s') in function @%s",
               i, type_to_string(v->c, ret->operands[i]->type), type_to_string(v->c, fty->results[i]),
               name ? name->u.str.s : "?");
}

static void verify_call(Verifier *v, Op *op) {
  const Attr *callee = op_attr(op, "callee");
  if (!callee || callee->kind != ATTR_SYMREF) {
    op_error(v->c, op, "requires a 'callee' symbol reference attribute");
    return;
  }
  void **slot = table_get(&v->funcs, callee->u.str.s, callee->u.str.len ? callee->u.str.len : 1);
  Op *f = slot ? *slot : NULL;
  if (!f) {
    op_error(v->c, op, "'%s' does not reference a valid function", callee->u.str.s);
    return;
  }
  const Attr *ft = op_attr(f, "function_type");
  if (!ft || ft->kind != ATTR_TYPE || ft->type->kind != TY_FUNC) return;
  const Type *fty = ft->type;
  if (fty->ninputs != op->noperands) {
    op_error(v->c, op, "incorrect number of operands for callee: %d, expected %d", op->noperands, fty->ninputs);
    return;
  }
  for (int i = 0; i < op->noperands; i++)
    if (op->operands[i]->type != fty->inputs[i])
      op_error(v->c, op, "operand type mismatch: expected operand type '%s', but provided '%s' for operand number %d",
               type_to_string(v->c, fty->inputs[i]), type_to_string(v->c, op->operands[i]->type), i);
  if (fty->nresults != op->nresults) {
    op_error(v->c, op, "incorrect number of results for callee: %d, expected %d", op->nresults, fty->nresults);
    return;
  }
  for (int i = 0; i < op->nresults; i++)
    if (op->results[i].type != fty->results[i])
      op_error(v->c, op, "result type mismatch at index %d: expected '%s', but found '%s'", i,
               type_to_string(v->c, fty->results[i]), type_to_string(v->c, op->results[i].type));
}

/* A dense_resource attribute of op names a blob of exactly its tensor's
 * bytes (elements in their storage size: i1 and sub-byte integers take a
 * byte each); only __elided__ may have none (it is filled with seeded
 * random data when run). */
static void check_resource(Verifier *v, const Op *op, const Attr *a) {
  const char *name = a->u.resource.name;
  const Resource *r = NULL;
  for (int i = 0; i < v->m->nresources && !r; i++)
    if (strcmp(v->m->resources[i].name, name) == 0) r = &v->m->resources[i];
  int64_t count, esz = elem_storage_bytes(type_elem_kind(a->type));
  if (!type_tensor_num_elements(a->type, &count) || count > INT64_MAX / esz) return; /* the type's own error */
  long long want = (long long)(count * esz);
  const char *ty = type_to_string(v->c, a->type);
  if (!r || !r->hex) {
    if (strcmp(name, "__elided__") != 0)
      op_error(v->c, op, "dense_resource<%s> has no blob in the dialect_resources section ('%s' needs %lld bytes); "
               "only __elided__ may be left out", name, ty, want);
  } else if (!r->data) {
    op_error(v->c, op, "the blob of dense_resource<%s> has %zu bytes, fewer than its 4-byte alignment prefix", name,
             strlen(r->hex) / 2 - 1);
  } else if ((uint64_t)want != r->nbytes) {
    op_error(v->c, op, "the blob of dense_resource<%s> has %zu bytes of data, but '%s' needs %lld bytes", name,
             r->nbytes, ty, want);
  }
}

static void verify_op(Verifier *v, Op *op) {
  if (op->kind == OP_UNKNOWN) {
    op_error(v->c, op, "is not an operation tpucc knows (unregistered operation)");
    return;
  }
  verify_counts(v, op);
  for (int i = 0; i < op->noperands; i++) {
    Value *x = op->operands[i];
    if (!dominates(x, op)) {
      op_error(v->c, op, "operand #%d does not dominate this use", i);
    } else if (crosses_isolation(x, op)) {
      op_error(v->c, op, "using value defined outside the region");
    }
  }
  for (int i = 0; i < op->nresults; i++)
    check_type_once(v, op->loc, op->results[i].type);
  Block *parent = op->parent;
  bool is_terminator = op_info[op->kind].traits & TRAIT_TERMINATOR;
  if (is_terminator && parent && parent->last != op)
    op_error(v->c, op, "must be the last operation in the parent block");
  if (op->kind == OP_FUNC) {
    if (!parent || !parent->parent || parent->parent->parent->kind != OP_MODULE)
      op_error(v->c, op, "expects parent op 'builtin.module'");
    verify_func(v, op);
  } else if (op->kind == OP_MODULE) {
    if (parent) op_error(v->c, op, "nested modules are not supported");
  } else if (op->kind == OP_FUNC_CALL) {
    verify_call(v, op);
  } else if (op->kind == OP_FUNC_RETURN) {
    const Op *owner = parent && parent->parent ? parent->parent->parent : NULL;
    if (!owner || owner->kind != OP_FUNC) op_error(v->c, op, "expects parent op 'func.func'");
  } else if (op->kind == OP_RETURN) {
    const Op *owner = parent && parent->parent ? parent->parent->parent : NULL;
    if (!owner || owner->kind == OP_FUNC || owner->kind == OP_MODULE)
      op_error(v->c, op, "must be inside a region of a StableHLO op (use func.return in functions)");
  } else if (op->kind == OP_SDY_MESH) {
    if (!parent || !parent->parent || parent->parent->parent->kind != OP_MODULE)
      op_error(v->c, op, "expects parent op 'builtin.module'");
  } else if (parent && parent->parent && parent->parent->parent && parent->parent->parent->kind == OP_MODULE) {
    op_error(v->c, op, "cannot appear at module level (only func.func can)");
  }
  for (int i = 0; i < op->nattrs; i++)
    if (op->attrs[i].value->kind == ATTR_DENSE_RESOURCE) check_resource(v, op, op->attrs[i].value);
  if (op->kind != OP_FUNC && op->kind != OP_MODULE) {
    verify_op_rules(v->c, op);
    verify_quant_op(v->c, op);
  }
  for (int r = 0; r < op->nregions; r++) verify_region(v, op, &op->regions[r]);
}

static void verify_region(Verifier *v, Op *parent, Region *r) {
  for (int b = 0; b < r->nblocks; b++) {
    Block *blk = r->blocks[b];
    for (int i = 0; i < blk->nargs; i++)
      check_type_once(v, parent->loc, blk->args[i].type);
    uint32_t order = 0;
    for (Op *op = blk->first; op; op = op->next) op->order = order++;
    if (parent->kind != OP_MODULE && parent->kind != OP_FUNC) {
      if (!blk->last || !(op_info[blk->last->kind].traits & TRAIT_TERMINATOR))
        op_error(v->c, blk->last ? blk->last : parent, "%s",
                 blk->last ? "expects the region of its parent op to end with 'stablehlo.return'"
                           : "has a region with an empty block; it must end with 'stablehlo.return'");
    }
    for (Op *op = blk->first; op; op = op->next) verify_op(v, op);
  }
}

bool verify_module(Context *c, Module *m) {
  int before = c->diag.nerrors;
  Verifier v = {.c = c, .m = m};
  Block *body = op_body(m->op);
  /* Symbols must be unique. */
  for (Op *a = body ? body->first : NULL; a; a = a->next) {
    const char *name = op_symbol_name(a);
    if (!name) continue;
    size_t len = strlen(name);
    void **s = table_put(&v.funcs, name, len ? len : 1);
    if (*s) op_error(c, a, "redefinition of symbol named '%s'", name);
    else *s = a;
  }
  if (body) {
    uint32_t order = 0;
    for (Op *op = body->first; op; op = op->next) op->order = order++;
  }
  verify_op(&v, m->op);
  verify_call_graph(c, m);
  table_free(&v.funcs, NULL);
  table_free(&v.types, NULL);
  return c->diag.nerrors == before;
}
