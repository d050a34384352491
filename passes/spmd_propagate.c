/* sharding-propagation: every tensor value of a sharded program's public
 * functions gets a sharding, written as `mhlo.sharding` on its op (and on
 * the function's arguments), for spmd-partition to read.  After GSPMD:
 *
 *   - annotations are fixed: arguments' and ops' mhlo.sharding /
 *     sdy.sharding, custom_call @Sharding, sdy.sharding_constraint,
 *     sdy.reshard;
 *   - rounds of a forward walk (a result from its operands through the
 *     op's dim map, passes/spmd_dims.c) and a backward walk (an operand
 *     from its result, and returned values from the function's result
 *     shardings) fill the rest until nothing changes; broadcasts take
 *     their users' layouts first (their operand is the smaller value),
 *     their operand's only in a second phase;
 *   - where operands disagree (their maps give a partition two different
 *     tiles of one result dim, or an unbalanced layout), the result takes
 *     the layout of the operand with the most bytes: resharding the
 *     smaller operands moves the fewest bytes (the cost model's choice);
 *   - a value nothing reaches is replicated. */
#include <stdlib.h>
#include <string.h>

#include "passes/spmd.h"

typedef struct Slot {
  const Value *v;
  const Sharding *l;
  bool fixed;
} Slot;

typedef struct Prop {
  Spmd *s;
  bool defer_broadcasts; /* first phase: broadcasts take their users' layouts */
  PtrTable slots;        /* Value -> Slot */
  bool changed;
} Prop;

static const Sharding *get(const Prop *p, const Value *v) {
  const Slot *sl = ptr_table_get(&p->slots, v);
  return sl ? sl->l : NULL;
}

/* Records l for v unless v already has one; fixed ones are annotations. */
static void put(Prop *p, const Value *v, const Sharding *l, bool fixed) {
  if (!l || !type_is_tensor(v->type) || v->type->rank < 0) return;
  bool added;
  Slot *sl = ptr_table_put(&p->slots, v, &added);
  if (!added && (sl->fixed || !fixed)) return;
  *sl = (Slot){v, l, fixed};
  p->changed = true;
}

/* The dims that may share a tiling: windowed ops' halo map, else the
 * pointwise dim map. */
static bool prop_map(const Spmd *s, const Op *op, int i, int64_t *map) {
  return spmd_halo_map(s, op, i, map) || spmd_dim_map(s, op, i, map);
}

static bool any_tiled_operand(const Prop *p, const Op *op) {
  for (int i = 0; i < op->noperands; i++) {
    const Sharding *l = get(p, op->operands[i]);
    if (l && !layout_is_replicated(l)) return true;
  }
  return false;
}

static int64_t type_bytes(const Type *t) {
  int64_t n = 0;
  if (!type_tensor_num_elements(t, &n)) return 0;
  return n * elem_storage_bytes(type_elem_kind(t));
}

const Sharding *spmd_combine(const Spmd *s, const Op *op, const Sharding *const *ls, bool halo) {
  int k = op->results[0].type->rank, known = 0, largest = -1;
  int64_t tiles[SHARDING_MAX_RANK + 1], map[SHARDING_MAX_RANK + 1];
  int64_t *co = xcalloc((size_t)(s->n * (k + 1)), sizeof(int64_t));
  bool conflict = false, set[SHARDING_MAX_RANK + 1] = {0};
  for (int e = 0; e < k; e++) tiles[e] = 1;
  for (int i = 0; i < op->noperands; i++)
    if (ls[i] && (largest < 0 || type_bytes(op->operands[i]->type) > type_bytes(op->operands[largest]->type)))
      largest = i;
  for (int i = 0; i < op->noperands && !conflict; i++) {
    const Sharding *l = ls[i];
    if (!l || !(halo ? prop_map(s, op, i, map) : spmd_dim_map(s, op, i, map))) continue;
    known++;
    const int64_t *oc = layout_coords(s, l);
    for (int e = 0; e < k && !conflict; e++) {
      if (map[e] < 0 || l->tiles[map[e]] == 1) continue;
      if (set[e] && tiles[e] != l->tiles[map[e]]) conflict = true;
      for (int64_t q = 0; q < s->n && !conflict; q++) {
        int64_t c = oc[q * (l->rank + 1) + map[e]];
        if (set[e] && co[q * (k + 1) + e] != c) conflict = true;
        co[q * (k + 1) + e] = c;
      }
      set[e] = true;
      tiles[e] = l->tiles[map[e]];
    }
  }
  const Sharding *out = known && !conflict ? layout_from_coords(s, k, tiles, co) : NULL;
  free(co);
  if (!known || out) return out;
  bool mapped = halo ? prop_map(s, op, largest, map) : spmd_dim_map(s, op, largest, map);
  return mapped ? layout_map(s, ls[largest], k, map) : NULL;
}

/* The layout of op's result from its known operands. */
static const Sharding *forward_layout(Prop *p, const Op *op) {
  const Sharding **ls = xcalloc((size_t)op->noperands + 1, sizeof(Sharding *));
  for (int i = 0; i < op->noperands; i++) ls[i] = get(p, op->operands[i]);
  const Sharding *out = spmd_combine(p->s, op, ls, true);
  free(ls);
  /* Tiled operands whose tiling the result does not keep (contracted or
   * reduced dims) say nothing about the result: leave it to its users. */
  if (out && layout_is_replicated(out) && any_tiled_operand(p, op)) return NULL;
  return out;
}

/* Operand i's layout from result layout r: the inverse of its dim map. */
static const Sharding *backward_layout(Prop *p, const Op *op, int i, const Sharding *r) {
  int64_t map[SHARDING_MAX_RANK + 1], inv[SHARDING_MAX_RANK + 1];
  const Type *t = op->operands[i]->type;
  if (!type_is_static(t) || t->rank > SHARDING_MAX_RANK || !prop_map(p->s, op, i, map)) return NULL;
  for (int d = 0; d < t->rank; d++) inv[d] = -1;
  for (int e = 0; e < r->rank; e++)
    if (map[e] >= 0) inv[map[e]] = e;
  return layout_map(p->s, r, t->rank, inv);
}

static bool has_body(const Op *op) { return op->kind == OP_WHILE || op->kind == OP_IF || op->kind == OP_CASE; }

static void seed_block(Prop *p, const Block *b) {
  for (const Op *op = b->first; op; op = op->next) {
    for (int r = 0; r < op->nresults; r++) {
      const Type *t = op->results[r].type;
      if (type_is_tensor(t) && t->rank >= 0) put(p, &op->results[r], layout_full(p->s, spmd_op_sharding(p->s, op, r), t->rank), true);
    }
    for (int r = 0; has_body(op) && r < op->nregions; r++)
      for (int j = 0; j < op->regions[r].nblocks; j++) seed_block(p, op->regions[r].blocks[j]);
  }
}

/* The operands of block b's terminator (NULL when it has none). */
static const Op *terminator(const Block *b) {
  return b && b->last && (op_info[b->last->kind].traits & TRAIT_TERMINATOR) ? b->last : NULL;
}

static void forward(Prop *p, const Block *b);
static void backward(Prop *p, const Block *b);

/* while: results and the regions' arguments take the initial values'
 * layouts; if/case: results those of the first branch's returned values. */
static void forward_body(Prop *p, const Op *op) {
  if (op->kind == OP_WHILE && op->nregions == 2) {
    for (int i = 0; i < op->noperands && i < op->nresults; i++) {
      const Sharding *l = get(p, op->operands[i]);
      put(p, &op->results[i], l, false);
      for (int r = 0; r < 2; r++)
        if (op->regions[r].nblocks && i < op->regions[r].blocks[0]->nargs)
          put(p, &op->regions[r].blocks[0]->args[i], get(p, &op->results[i]), false);
    }
  }
  for (int r = 0; r < op->nregions; r++)
    for (int j = 0; j < op->regions[r].nblocks; j++) forward(p, op->regions[r].blocks[j]);
  const Op *ret = op->kind != OP_WHILE && op->nregions && op->regions[0].nblocks ? terminator(op->regions[0].blocks[0]) : NULL;
  for (int i = 0; ret && i < ret->noperands && i < op->nresults; i++) put(p, &op->results[i], get(p, ret->operands[i]), false);
}

/* The regions' returned values take the results' layouts; a while's
 * initial values too. */
static void backward_body(Prop *p, const Op *op) {
  int body = op->kind == OP_WHILE ? 1 : -1;
  for (int r = 0; r < op->nregions; r++) {
    if (!op->regions[r].nblocks || (op->kind == OP_WHILE && r != body)) continue;
    const Op *ret = terminator(op->regions[r].blocks[0]);
    for (int i = 0; ret && i < ret->noperands && i < op->nresults; i++) put(p, ret->operands[i], get(p, &op->results[i]), false);
  }
  for (int r = 0; r < op->nregions; r++)
    for (int j = 0; j < op->regions[r].nblocks; j++) backward(p, op->regions[r].blocks[j]);
  for (int i = 0; op->kind == OP_WHILE && i < op->noperands && i < op->nresults; i++)
    put(p, op->operands[i], get(p, &op->results[i]), false);
}

static bool propagates(const Op *op) {
  return op->nresults >= 1 && type_is_tensor(op->results[0].type) && type_is_static(op->results[0].type) &&
         op->results[0].type->rank <= SHARDING_MAX_RANK && !custom_call_annotation(op) && op->kind != OP_WHILE &&
         op->kind != OP_IF && op->kind != OP_CASE;
}

/* Results of multi-result ops that share result 0's shape share its layout. */
static void put_results(Prop *p, const Op *op, const Sharding *l) {
  for (int r = 0; r < op->nresults; r++)
    if (op->results[r].type->kind == TY_TENSOR && op->results[r].type->rank == op->results[0].type->rank &&
        (r == 0 || memcmp(op->results[r].type->dims, op->results[0].type->dims,
                          sizeof(int64_t) * (size_t)op->results[0].type->rank) == 0))
      put(p, &op->results[r], l, false);
}

static void forward(Prop *p, const Block *b) {
  for (const Op *op = b->first; op; op = op->next) {
    p->s->pc->steps++;
    if (has_body(op)) forward_body(p, op);
    if (spmd_is_constraint(op) && op->noperands == 1) continue;
    if (!propagates(op) || get(p, &op->results[0])) continue;
    if (p->defer_broadcasts && op->kind == OP_BROADCAST_IN_DIM) continue;
    put_results(p, op, forward_layout(p, op));
  }
}

static void backward(Prop *p, const Block *b) {
  for (const Op *op = b->last; op; op = op->prev) {
    p->s->pc->steps++;
    if (has_body(op)) backward_body(p, op);
    if (op->nresults < 1) continue;
    const Sharding *r = get(p, &op->results[0]);
    if (!r) continue;
    if (spmd_is_constraint(op) && op->noperands == 1) {
      put(p, op->operands[0], r, false);
      continue;
    }
    if (op->kind == OP_SDY_MANUAL_COMPUTATION) {
      for (int i = 0; i < op->noperands; i++) {
        const Type *t = op->operands[i]->type;
        if (type_is_tensor(t) && t->rank >= 0)
          put(p, op->operands[i], layout_full(p->s, spmd_attr_sharding(p->s, op_attr(op, "in_shardings"), i), t->rank), false);
      }
      continue;
    }
    if (!propagates(op)) continue;
    for (int i = 0; i < op->noperands; i++)
      if (!get(p, op->operands[i])) put(p, op->operands[i], backward_layout(p, op, i, r), false);
  }
}

/* Writes the layout of every value of b and its control-flow bodies as
 * its op's mhlo.sharding; unknown ones replicated. */
static void write_ops(Prop *p, Block *b) {
  Spmd *s = p->s;
  for (Op *op = b->first; op; op = op->next) {
    for (int r = 0; has_body(op) && r < op->nregions; r++)
      for (int j = 0; j < op->regions[r].nblocks; j++) write_ops(p, op->regions[r].blocks[j]);
    if (!op->nresults || custom_call_annotation(op) || (op_info[op->kind].traits & TRAIT_TERMINATOR) ||
        op_attr(op, "mhlo.sharding") || op->kind == OP_SDY_MANUAL_COMPUTATION)
      continue;
    const Sharding **rs = arena_alloc(&s->c->arena, sizeof(Sharding *) * (size_t)op->nresults);
    bool any = false;
    for (int r = 0; r < op->nresults; r++) {
      const Type *t = op->results[r].type;
      if (!type_is_tensor(t) || t->rank < 0) continue;
      rs[r] = get(p, &op->results[r]);
      if (!rs[r]) rs[r] = layout_replicated(s, t->rank);
      any = true;
    }
    if (any) spmd_set_op_sharding(s, op, rs);
  }
}

/* The ops' layouts, and the arguments' in arg_attrs. */
static void write_back(Prop *p, Op *func, Block *b) {
  Spmd *s = p->s;
  write_ops(p, b);
  for (int i = 0; i < b->nargs; i++) {
    const Type *t = b->args[i].type;
    if (spmd_func_sharding(s, func, 0, i) || !type_is_tensor(t) || t->rank < 0) continue;
    const Sharding *l = get(p, &b->args[i]);
    spmd_set_func_sharding(s, func, 0, i, l ? l : layout_replicated(s, t->rank));
  }
}

static void propagate_func(Spmd *s, Op *func) {
  Block *b = op_body(func);
  if (!b) return;
  Prop p = {.s = s, .slots = {.size = sizeof(Slot)}};
  for (int i = 0; i < b->nargs; i++)
    if (type_is_tensor(b->args[i].type) && b->args[i].type->rank >= 0)
      put(&p, &b->args[i], layout_full(s, spmd_func_sharding(s, func, 0, i), b->args[i].type->rank), true);
  seed_block(&p, b);
  const Op *ret = b->last && b->last->kind == OP_FUNC_RETURN ? b->last : NULL;
  /* A broadcast's operand is smaller than its result: its users choose its
   * layout first, and only broadcasts nothing reached take their operand's. */
  for (int phase = 0; phase < 2; phase++) {
    p.defer_broadcasts = phase == 0;
    for (int round = 0; round < 8; round++) {
      p.changed = false;
      forward(&p, b);
      for (int i = 0; ret && i < ret->noperands; i++) {
        const Type *t = ret->operands[i]->type;
        if (type_is_tensor(t) && t->rank >= 0)
          put(&p, ret->operands[i], layout_full(s, spmd_func_sharding(s, func, 1, i), t->rank), false);
      }
      backward(&p, b);
      if (!p.changed) break;
    }
  }
  write_back(&p, func, b);
  ptr_table_free(&p.slots);
}

/* A value of more dims than the partitioner handles, as a located error. */
static bool ranks_fit(Context *c, const Op *op) {
  for (int r = 0; r < op->nresults; r++) {
    const Type *t = op->results[r].type;
    if (type_is_tensor(t) && t->rank > SHARDING_MAX_RANK) {
      op_error(c, op, "result #%d has %d dims; SPMD partitioning handles values of at most %d", r, t->rank,
               SHARDING_MAX_RANK);
      return false;
    }
  }
  for (int i = 0; i < op->nregions; i++)
    for (int j = 0; j < op->regions[i].nblocks; j++) {
      const Block *b = op->regions[i].blocks[j];
      for (int a = 0; a < b->nargs; a++)
        if (type_is_tensor(b->args[a].type) && b->args[a].type->rank > SHARDING_MAX_RANK) {
          op_error(c, op, "argument #%d of a region has %d dims; SPMD partitioning handles values of at most %d", a,
                   b->args[a].type->rank, SHARDING_MAX_RANK);
          return false;
        }
      for (const Op *in = b->first; in; in = in->next)
        if (!ranks_fit(c, in)) return false;
    }
  return true;
}

/* The partition and chip counts and the ranks the passes can handle. */
static bool within_limits(PassContext *pc) {
  int64_t n = 1, r = 1;
  attr_as_int(op_attr(pc->m->op, "mhlo.num_partitions"), &n);
  attr_as_int(op_attr(pc->m->op, "mhlo.num_replicas"), &r);
  if (n > SHARDING_MAX_DEVICES || r < 1 || r > SHARDING_MAX_DEVICES / n) {
    op_error(pc->c, pc->m->op, "%lld partitions x %lld replicas: SPMD partitioning handles at most %d chips",
             (long long)n, (long long)r, SHARDING_MAX_DEVICES);
    return false;
  }
  return ranks_fit(pc->c, pc->m->op);
}

bool pass_sharding_propagation(PassContext *pc) {
  if (!spmd_wanted(pc->m)) return true;
  if (!within_limits(pc)) return false;
  /* One function per program: calls are inlined first (at any -O). */
  if (!pass_inline(pc)) return false;
  Spmd s = spmd_begin(pc);
  for (Op *op = op_body(pc->m->op)->first; op; op = op->next)
    if (op->kind == OP_FUNC && !spmd_is_private(op)) propagate_func(&s, op);
  spmd_end(&s);
  return pc->c->diag.nerrors == 0;
}
