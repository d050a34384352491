/* IR mutation for the passes: moving, erasing and cloning ops, and
 * redirecting uses.  Use lists stay exact after every call. */
#include <string.h>

#include "ir/ir.h"

bool op_results_unused(const Op *op) {
  for (int i = 0; i < op->nresults; i++)
    if (op->results[i].uses) return false;
  return true;
}

void value_replace_all_uses(Context *c, Value *from, Value *to) {
  if (from == to) return;
  while (from->uses) {
    Use *u = from->uses;
    op_set_operand(c, u->user, u->operand_index, to);
  }
}

void op_unlink(Op *op) {
  Block *b = op->parent;
  if (!b) return;
  if (op->prev) op->prev->next = op->next;
  else b->first = op->next;
  if (op->next) op->next->prev = op->prev;
  else b->last = op->prev;
  op->prev = op->next = NULL;
  op->parent = NULL;
}

void op_insert_before(Op *before, Op *op) {
  Block *b = before->parent;
  op->parent = b;
  op->next = before;
  op->prev = before->prev;
  if (before->prev) before->prev->next = op;
  else b->first = op;
  before->prev = op;
}

void op_insert_after(Op *after, Op *op) {
  if (after->next) {
    op_insert_before(after->next, op);
    return;
  }
  op_append(after->parent, op);
}

/* Drops every use an op (and the ops of its regions) makes of values. */
static void drop_all_uses(Op *op) {
  for (int i = 0; i < op->noperands; i++) {
    op_remove_use(op, i);
    op->operands[i] = NULL;
  }
  for (int r = 0; r < op->nregions; r++)
    for (int b = 0; b < op->regions[r].nblocks; b++)
      for (Op *o = op->regions[r].blocks[b]->first; o; o = o->next) drop_all_uses(o);
}

void op_erase(Op *op) {
  if (!op_results_unused(op)) die("erasing '%s' whose results are still used", op->name);
  drop_all_uses(op);
  op_unlink(op);
}

/* ---- value maps and cloning ---- */

void value_map_put(Context *c, ValueMap *m, const Value *from, Value *to) {
  if ((m->count + 1) * 2 > m->cap) {
    size_t ncap = m->cap ? m->cap * 2 : 64;
    ValueMapEntry *ne = arena_alloc(&c->arena, sizeof(ValueMapEntry) * ncap);
    for (size_t i = 0; i < m->cap; i++)
      if (m->entries[i].from) {
        size_t h = ((uintptr_t)m->entries[i].from >> 4) & (ncap - 1);
        while (ne[h].from) h = (h + 1) & (ncap - 1);
        ne[h] = m->entries[i];
      }
    m->entries = ne;
    m->cap = ncap;
  }
  size_t h = ((uintptr_t)from >> 4) & (m->cap - 1);
  while (m->entries[h].from && m->entries[h].from != from) h = (h + 1) & (m->cap - 1);
  if (!m->entries[h].from) m->count++;
  m->entries[h] = (ValueMapEntry){from, to};
}

Value *value_map_get(const ValueMap *m, const Value *from) {
  if (!m->cap) return NULL;
  size_t h = ((uintptr_t)from >> 4) & (m->cap - 1);
  while (m->entries[h].from) {
    if (m->entries[h].from == from) return m->entries[h].to;
    h = (h + 1) & (m->cap - 1);
  }
  return NULL;
}

static Value *mapped(const ValueMap *m, Value *v) {
  Value *t = v ? value_map_get(m, v) : NULL;
  return t ? t : v;
}

void region_clone_into(Context *c, const Region *from, Region *to, ValueMap *m) {
  for (int b = 0; b < from->nblocks; b++) {
    const Block *src = from->blocks[b];
    Type *arg_types[src->nargs ? src->nargs : 1];
    for (int i = 0; i < src->nargs; i++) arg_types[i] = src->args[i].type;
    Block *dst = block_create(c, to, src->nargs, arg_types);
    dst->loc = src->loc;
    for (int i = 0; i < src->nargs; i++) {
      dst->args[i].name_hint = src->args[i].name_hint;
      value_map_put(c, m, &src->args[i], &dst->args[i]);
    }
    region_add_block(c, to, dst);
    for (const Op *o = src->first; o; o = o->next) op_append(dst, op_clone(c, o, m));
  }
}

Op *op_clone(Context *c, const Op *op, ValueMap *m) {
  Value *operands[op->noperands ? op->noperands : 1];
  for (int i = 0; i < op->noperands; i++) operands[i] = mapped(m, op->operands[i]);
  Type *types[op->nresults ? op->nresults : 1];
  for (int i = 0; i < op->nresults; i++) types[i] = op->results[i].type;
  Op *n = op_create(c, op->kind, op->name, op->loc, op->noperands, operands, op->nresults, types, 0, NULL,
                    op->nregions);
  n->nattrs = op->nattrs;
  n->attrs = op->attrs; /* attribute arrays are immutable once built */
  n->srcloc = op->srcloc;
  for (int i = 0; i < op->nresults; i++) {
    n->results[i].name_hint = op->results[i].name_hint;
    value_map_put(c, m, &op->results[i], &n->results[i]);
  }
  for (int r = 0; r < op->nregions; r++) region_clone_into(c, &op->regions[r], &n->regions[r], m);
  return n;
}

Op *op_build(Context *c, OpKind kind, Loc loc, int noperands, Value **operands, Type *result_type, int nattrs,
             NamedAttr *attrs) {
  return op_create(c, kind, NULL, loc, noperands, operands, result_type ? 1 : 0, &result_type, nattrs, attrs, 0);
}

Value *op_build_before(Context *c, Op *at, OpKind kind, int noperands, Value **operands, Type *result_type,
                       int nattrs, NamedAttr *attrs) {
  Op *op = op_build(c, kind, at->loc, noperands, operands, result_type, nattrs, attrs);
  op->srcloc = at->srcloc;
  op_insert_before(at, op);
  return &op->results[0];
}
