/* The clean-up passes: inline, CSE and DCE. */
#include <string.h>

#include "ir/table.h"
#include "passes/pass.h"
#include "passes/walk.h"

/* ------------------------------------------------------------------ */
/* Side effects. */

bool op_is_pure(const Op *op) {
  unsigned traits = op_info[op->kind].traits;
  if (traits & (TRAIT_SIDE_EFFECT | TRAIT_TERMINATOR | TRAIT_SYMBOL | TRAIT_COLLECTIVE)) return false;
  switch (op->kind) {
  /* External code, decompositions that may hold anything, randomness that
   * must not be merged, and collectives every chip must reach. */
  case OP_CUSTOM_CALL: case OP_COMPOSITE: case OP_FUNC_CALL: case OP_RNG: case OP_REPLICA_ID: case OP_PARTITION_ID: case OP_CREATE_TOKEN: case OP_AFTER_ALL:
  case OP_OPTIMIZATION_BARRIER: case OP_UNKNOWN:
    return false;
  default: break;
  }
  for (int r = 0; r < op->nregions; r++)
    for (int b = 0; b < op->regions[r].nblocks; b++)
      for (const Op *o = op->regions[r].blocks[b]->first; o; o = o->next)
        if (!(op_info[o->kind].traits & TRAIT_TERMINATOR) && !op_is_pure(o)) return false;
  return true;
}

/* ------------------------------------------------------------------ */
/* DCE: erase pure ops whose results are unused, last to first, so whole
 * dead chains go in one sweep. */

static int dce_block(Block *b) {
  int erased = 0;
  for (Op *op = b->last, *prev; op; op = prev) {
    prev = op->prev;
    for (int r = 0; r < op->nregions; r++)
      for (int k = 0; k < op->regions[r].nblocks; k++) erased += dce_block(op->regions[r].blocks[k]);
    if (op->nresults > 0 && op_results_unused(op) && op_is_pure(op)) {
      op_erase(op);
      erased++;
    }
  }
  return erased;
}

int dce_module(Module *m) {
  int erased = 0;
  FOR_EACH_FUNC(m, f) erased += dce_block(op_body(f));
  return erased;
}

bool pass_dce(PassContext *pc) {
  dce_module(pc->m);
  return true;
}

/* ------------------------------------------------------------------ */
/* CSE: an op equal to an earlier one in the same or an enclosing block
 * (same kind, operands, attributes and result types, no regions) is
 * replaced by it.  Scopes chain outward, as dominance does. */

typedef struct CseScope {
  Table ops; /* hash -> first op of a chain (Op.next_cse via a side table) */
  struct CseScope *outer;
} CseScope;

static uint64_t op_hash(const Op *op) {
  uint64_t h = 1469598103934665603ull ^ (uint64_t)op->kind;
  for (int i = 0; i < op->noperands; i++) h = (h ^ (uintptr_t)op->operands[i]) * 1099511628211ull;
  for (int i = 0; i < op->nresults; i++) h = (h ^ (uintptr_t)op->results[i].type) * 1099511628211ull;
  h = (h ^ (uint64_t)op->nattrs) * 1099511628211ull;
  if (op->kind == OP_CONSTANT && op->nattrs) {
    const Attr *v = op_attr(op, "value");
    if (v && v->kind == ATTR_DENSE) {
      size_t n = v->u.dense.nbytes < 64 ? v->u.dense.nbytes : 64;
      for (size_t i = 0; i < n; i++) h = (h ^ v->u.dense.data[i]) * 1099511628211ull;
    }
  }
  return h ? h : 1;
}

static bool ops_equal(const Op *a, const Op *b) {
  if (a->kind != b->kind || a->noperands != b->noperands || a->nresults != b->nresults || a->nattrs != b->nattrs ||
      a->nregions || b->nregions || strcmp(a->name, b->name) != 0)
    return false;
  for (int i = 0; i < a->noperands; i++)
    if (a->operands[i] != b->operands[i]) return false;
  for (int i = 0; i < a->nresults; i++)
    if (a->results[i].type != b->results[i].type) return false;
  for (int i = 0; i < a->nattrs; i++) {
    const Attr *x = a->attrs[i].value, *y = b->attrs[i].value;
    /* Two dense_resource<__elided__> weights are unknown, not equal. */
    if (x != y && x->kind == ATTR_DENSE_RESOURCE) return false;
    if (strcmp(a->attrs[i].name, b->attrs[i].name) != 0 || !attr_equal(x, y)) return false;
  }
  return true;
}

typedef struct CseEntry {
  const Op *op;
  struct CseEntry *next;
} CseEntry;

static const Op *cse_find(CseScope *s, uint64_t h, const Op *op) {
  for (; s; s = s->outer) {
    void **slot = table_get(&s->ops, (const void *)(uintptr_t)h, 0);
    for (CseEntry *e = slot ? *slot : NULL; e; e = e->next)
      if (ops_equal(e->op, op)) return e->op;
  }
  return NULL;
}

static int cse_block(Context *c, Block *b, CseScope *outer) {
  CseScope scope = {.outer = outer};
  int merged = 0;
  for (Op *op = b->first, *next; op; op = next) {
    next = op->next;
    for (int r = 0; r < op->nregions; r++)
      for (int k = 0; k < op->regions[r].nblocks; k++)
        merged += cse_block(c, op->regions[r].blocks[k],
                            op_info[op->kind].traits & TRAIT_ISOLATED ? NULL : &scope);
    if (op->nregions || op->nresults == 0 || !op_is_pure(op)) continue;
    uint64_t h = op_hash(op);
    const Op *same = cse_find(&scope, h, op);
    if (same) {
      for (int i = 0; i < op->nresults; i++) value_replace_all_uses(c, &op->results[i], &same->results[i]);
      op_erase(op);
      merged++;
      continue;
    }
    void **slot = table_put(&scope.ops, (const void *)(uintptr_t)h, 0);
    CseEntry *e = arena_alloc(&c->arena, sizeof *e);
    e->op = op;
    e->next = *slot;
    *slot = e;
  }
  table_free(&scope.ops, NULL);
  return merged;
}

bool pass_cse(PassContext *pc) {
  FOR_EACH_FUNC(pc->m, f) cse_block(pc->c, op_body(f), NULL);
  return true;
}

/* ------------------------------------------------------------------ */
/* Inlining: every func.call of a function with a body is replaced by a
 * copy of that body; private functions nobody references any more are
 * removed.  Recursion (which StableHLO does not have) stops at a depth. */

#define INLINE_MAX_ROUNDS 32

static bool is_private(const Op *f) {
  const Attr *vis = op_attr(f, "sym_visibility");
  return vis && vis->kind == ATTR_STRING && strcmp(vis->u.str.s, "private") == 0;
}

/* Inlines the calls of block b (and nested blocks); returns how many. */
static int inline_calls(PassContext *pc, Block *b) {
  int n = 0;
  for (Op *op = b->first, *next; op; op = next) {
    next = op->next;
    for (int r = 0; r < op->nregions; r++)
      for (int k = 0; k < op->regions[r].nblocks; k++) n += inline_calls(pc, op->regions[r].blocks[k]);
    if (op->kind != OP_FUNC_CALL) continue;
    const Attr *callee = op_attr(op, "callee");
    Op *f = callee && callee->kind == ATTR_SYMREF ? module_lookup_func(pc->m, callee->u.str.s) : NULL;
    Block *body = f ? op_body(f) : NULL;
    if (!body || body->nargs != op->noperands || !body->last || body->last->kind != OP_FUNC_RETURN ||
        body->last->noperands != op->nresults)
      continue;
    ValueMap map = {0};
    for (int i = 0; i < body->nargs; i++) value_map_put(pc->c, &map, &body->args[i], op->operands[i]);
    for (const Op *o = body->first; o != body->last; o = o->next) op_insert_before(op, op_clone(pc->c, o, &map));
    for (int i = 0; i < op->nresults; i++) {
      Value *v = body->last->operands[i], *to = value_map_get(&map, v);
      value_replace_all_uses(pc->c, &op->results[i], to ? to : v);
    }
    op_erase(op);
    n++;
  }
  return n;
}

/* Marks every symbol named by an attribute (callees, decompositions,
 * called computations, run_parallel programs). */
static void mark_symrefs(Table *used, const Attr *a) {
  if (!a) return;
  switch (a->kind) {
  case ATTR_SYMREF: *table_put(used, a->u.str.s, strlen(a->u.str.s) + 1) = (void *)a; break;
  case ATTR_ARRAY:
    for (int i = 0; i < a->u.array.n; i++) mark_symrefs(used, a->u.array.items[i]);
    break;
  case ATTR_DICT:
    for (int i = 0; i < a->u.dict.n; i++) mark_symrefs(used, a->u.dict.items[i].value);
    break;
  default: break;
  }
}

static void mark_block_symrefs(Table *used, const Block *b) {
  for (const Op *op = b->first; op; op = op->next) {
    for (int i = 0; i < op->nattrs; i++) mark_symrefs(used, op->attrs[i].value);
    for (int r = 0; r < op->nregions; r++)
      for (int k = 0; k < op->regions[r].nblocks; k++) mark_block_symrefs(used, op->regions[r].blocks[k]);
  }
}

bool pass_inline(PassContext *pc) {
  for (int round = 0; round < INLINE_MAX_ROUNDS; round++) {
    int n = 0;
    FOR_EACH_FUNC(pc->m, f) n += inline_calls(pc, op_body(f));
    if (!n) break;
  }
  /* Remove private functions that nothing names any more. */
  Block *mb = op_body(pc->m->op);
  Table used = {0};
  FOR_EACH_FUNC(pc->m, f) mark_block_symrefs(&used, op_body(f));
  for (Op *f = mb ? mb->first : NULL, *next; f; f = next) {
    next = f->next;
    const char *name = op_symbol_name(f);
    if (f->kind == OP_FUNC && name && is_private(f) && !table_get(&used, name, strlen(name) + 1)) op_erase(f);
  }
  table_free(&used, NULL);
  return true;
}
