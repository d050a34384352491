/* MLIR bytecode reader: use-list orders (format version 3 on).  As MLIR's
 * reader does, every value's uses end up in descending (op, operand)
 * order of the pre-order walk, except for the values the file gives a
 * permutation of that order (full, or as (from, to) pairs). */
#include <stdlib.h>
#include <string.h>

#include "frontend/bc_read.h"

/* One use-list order of a value below nvalues, not already in seen. */
static bool read_order(BcFile *b, BcCur *r, uint64_t nvalues, bool *seen, PtrVec *out) {
  BcUseOrder *u = arena_alloc(&b->c->arena, sizeof *u);
  if (nvalues > 1 && !bc_varint(b, r, &u->index)) return false;
  if (u->index >= nvalues) return bc_corrupt(b, r, "use-list order of value %llu of %llu", (unsigned long long)u->index, (unsigned long long)nvalues);
  if (seen[u->index]) return bc_corrupt(b, r, "a second use-list order of value %llu", (unsigned long long)u->index);
  seen[u->index] = true;
  if (!bc_varint_flag(b, r, &u->n, &u->pairs)) return false;
  if (u->n > r->end - r->pos) return bc_corrupt(b, r, "use-list order of %llu entries exceeds the data", (unsigned long long)u->n);
  u->idx = arena_alloc(&b->c->arena, sizeof(uint64_t) * (size_t)(u->n ? u->n : 1));
  for (uint64_t k = 0; k < u->n; k++)
    if (!bc_varint(b, r, &u->idx[k])) return false;
  vec_push(out, u);
  return true;
}

/* The use-list orders of a scope of nvalues values: at most one per value. */
bool bc_read_use_lists(BcFile *b, BcCur *r, uint64_t nvalues, PtrVec *out) {
  uint64_t count = 1;
  if (nvalues > 1 && !bc_count(b, r, 1, &count)) return false;
  if (count > nvalues) return bc_corrupt(b, r, "%llu use-list orders for %llu values", (unsigned long long)count, (unsigned long long)nvalues);
  bool *seen = xcalloc((size_t)nvalues, sizeof *seen);
  bool ok = true;
  for (uint64_t i = 0; ok && i < count; i++) ok = read_order(b, r, nvalues, seen, out);
  free(seen);
  return ok;
}

static uint64_t use_id(const Use *u) { return (uint64_t)u->user->order << 32 | (uint32_t)u->operand_index; }

static int cmp_desc(const void *a, const void *b) {
  uint64_t x = use_id(*(Use *const *)a), y = use_id(*(Use *const *)b);
  return x < y ? 1 : x > y ? -1 : 0;
}

/* v's uses as an array (malloc'd), *n of them. */
static Use **uses_of(Value *v, size_t *n) {
  size_t k = 0;
  for (Use *u = v->uses; u; u = u->next) k++;
  Use **a = xcalloc(k ? k : 1, sizeof *a);
  k = 0;
  for (Use *u = v->uses; u; u = u->next) a[k++] = u;
  *n = k;
  return a;
}

/* Relinks v's use list in the order of a. */
static void relink(Value *v, Use **a, size_t n) {
  Use **link = &v->uses;
  for (size_t i = 0; i < n; i++) {
    *link = a[i];
    a[i]->pprev = link;
    link = &a[i]->next;
  }
  *link = NULL;
}

static void sort_uses(Value *v) {
  if (!v->uses || !v->uses->next) return;
  size_t n;
  Use **a = uses_of(v, &n);
  qsort(a, n, sizeof *a, cmp_desc);
  relink(v, a, n);
  free(a);
}

static void number_and_sort(Op *op, uint32_t *id, bool sort) {
  if (!sort) op->order = (*id)++;
  for (int i = 0; sort && i < op->nresults; i++) sort_uses(&op->results[i]);
  for (int i = 0; i < op->nregions; i++)
    for (int k = 0; k < op->regions[i].nblocks; k++) {
      Block *blk = op->regions[i].blocks[k];
      for (int a = 0; sort && a < blk->nargs; a++) sort_uses(&blk->args[a]);
      for (Op *o = blk->first; o; o = o->next) number_and_sort(o, id, sort);
    }
}

static void clear_order(Op *op) {
  op->order = 0;
  for (int i = 0; i < op->nregions; i++)
    for (int k = 0; k < op->regions[i].nblocks; k++)
      for (Op *o = op->regions[i].blocks[k]->first; o; o = o->next) clear_order(o);
}

/* Applies order u to its value, whose uses are sorted; false if u is not
 * a permutation of them. */
static bool apply(BcUseOrder *u) {
  size_t n;
  Use **sorted = uses_of(u->value, &n);
  uint64_t *shuffle = xcalloc(n ? n : 1, sizeof *shuffle);
  bool ok = true;
  if (u->pairs) {
    for (size_t i = 0; i < n; i++) shuffle[i] = i;
    ok = u->n % 2 == 0;
    for (uint64_t k = 0; ok && k < u->n; k += 2) {
      ok = u->idx[k] < n;
      if (ok) shuffle[u->idx[k]] = u->idx[k + 1];
    }
  } else {
    ok = u->n == n;
    for (size_t i = 0; ok && i < n; i++) shuffle[i] = u->idx[i];
  }
  bool *seen = xcalloc(n ? n : 1, sizeof *seen);
  for (size_t i = 0; ok && i < n; i++) {
    ok = shuffle[i] < n && !seen[shuffle[i]];
    if (ok) seen[shuffle[i]] = true;
  }
  if (ok && n > 1) {
    Use **final = xcalloc(n, sizeof *final);
    for (size_t i = 0; i < n; i++) {
      if (u->pairs) final[i] = sorted[shuffle[i]];
      else final[shuffle[i]] = sorted[i];
    }
    relink(u->value, final, n);
    free(final);
  }
  free(seen);
  free(shuffle);
  free(sorted);
  return ok || n < 2;
}

bool bc_apply_use_lists(BcFile *b, Op *module, PtrVec *orders) {
  uint32_t id = 0;
  number_and_sort(module, &id, false);
  number_and_sort(module, &id, true);
  bool ok = true;
  for (int i = 0; ok && i < orders->len; i++) ok = apply(orders->items[i]);
  clear_order(module);
  if (!ok) {
    BcCur at = {b->sections[BC_SEC_IR].pos, b->sections[BC_SEC_IR].end, "IR"};
    return bc_corrupt(b, &at, "a use-list order is not a permutation of its value's uses");
  }
  return true;
}
