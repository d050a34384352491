/* Fusion, after XLA's instruction fusion (passes/passes.def "fusion").
 *
 * Ops are visited from the last to the first of each block, so consumers
 * form groups first and pull their producers in:
 *   - loop fusion: element-wise ops of one shape (the loop shape), with the
 *     broadcasts, reshapes and splat constants that feed them;
 *   - reduction input fusion: a single-input reduce with its element-wise
 *     producers;
 *   - output fusion: a dot_general or convolution whose only user is a loop
 *     group of its shape (bias, activation, scaling);
 *   - sibling multi-output fusion: two groups of one loop shape that read the
 *     same value and do not depend on each other.
 * A producer moves into a group when all its users are in that group; a
 * cheap producer (broadcast, reshape, splat constant, iota) with other users
 * is duplicated into it; an expensive one (anything else) never is.  Every
 * decision is priced with the cost model: a producer joins when the HBM
 * bytes its result would cost (written and read back) exceed the bytes of
 * the operands it adds to the group.  A group of one op is left alone.
 * Groups become tpu.fusion ops placed where their last op was. */
#include <stdlib.h>
#include <string.h>

#include "ir/table.h"
#include "passes/cost.h"
#include "passes/pass.h"
#include "passes/walk.h"

/* XLA's bound on a fusion's operands and results. */
#define FUSION_MAX_PARAMS 16

typedef enum GroupKind { GK_LOOP, GK_INPUT, GK_OUTPUT, GK_MULTI } GroupKind;
static const char *const kind_names[] = {"loop", "input", "output", "multi_output"};

typedef struct Group {
  PtrVec ops;       /* members, any order until built */
  PtrVec clones;    /* cheap producers copied in; the original stays */
  Op *root;         /* the last member in block order */
  const Type *loop; /* shape every element-wise member has */
  GroupKind kind;
  bool has_contraction; /* a dot_general / convolution is in it */
  bool dead;            /* merged into another group */
} Group;

typedef struct Fuser {
  PassContext *pc;
  Table group_of; /* Op* -> Group* (moved members and roots) */
  PtrVec groups;
} Fuser;

/* ------------------------------------------------------------------ */
/* Op classes. */

static bool is_static_tensor(const Type *t) { return t && t->kind == TY_TENSOR && type_is_static(t); }

/* Element-wise with every operand of the result's shape (no implicit scalar
 * broadcasts, no regions). */
static bool is_plain_elementwise(const Op *op) {
  if (!(op_info[op->kind].traits & TRAIT_ELEMENTWISE) || op->nregions || op->nresults != 1) return false;
  const Type *r = op->results[0].type;
  if (!is_static_tensor(r)) return false;
  for (int i = 0; i < op->noperands; i++) {
    const Type *t = op->operands[i]->type;
    if (!is_static_tensor(t) || t->rank != r->rank || memcmp(t->dims, r->dims, sizeof(int64_t) * (size_t)r->rank))
      return false;
  }
  return true;
}

static bool is_splat_constant(const Op *op) {
  if (op->kind != OP_CONSTANT) return false;
  const Attr *v = op_attr(op, "value");
  return v && v->kind == ATTR_DENSE && (v->u.dense.splat || dense_num_elements(v) == 1);
}

/* Cheap to compute again inside every consumer: duplicated, never shared. */
static bool is_cheap_producer(const Op *op) {
  if (op->nresults != 1 || !is_static_tensor(op->results[0].type)) return false;
  return op->kind == OP_BROADCAST_IN_DIM || op->kind == OP_RESHAPE || op->kind == OP_IOTA || is_splat_constant(op);
}

static bool same_shape(const Type *a, const Type *b) {
  return a->rank == b->rank && memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)a->rank) == 0;
}

static bool is_single_input_reduce(const Op *op) {
  return op->kind == OP_REDUCE && op->noperands == 2 && op->nresults == 1 && is_static_tensor(op->operands[0]->type);
}

static bool is_contraction(const Op *op) {
  return (op->kind == OP_DOT_GENERAL || op->kind == OP_CONVOLUTION) && op->nresults == 1 &&
         is_static_tensor(op->results[0].type);
}

/* ------------------------------------------------------------------ */
/* Group bookkeeping. */

static Group *group_of(Fuser *f, const Op *op) {
  void **slot = table_get(&f->group_of, op, 0);
  return slot ? *slot : NULL;
}

static bool in_group(const Group *g, const Op *op) {
  for (int i = 0; i < g->ops.len; i++)
    if (g->ops.items[i] == op) return true;
  for (int i = 0; i < g->clones.len; i++)
    if (g->clones.items[i] == op) return true;
  return false;
}

static void add_member(Fuser *f, Group *g, Op *op) {
  vec_push(&g->ops, op);
  *table_put(&f->group_of, op, 0) = g;
}

/* Values the group reads from outside (deduplicated), into params. */
static int collect_params(const Group *g, const Op *extra, Value **params, int cap) {
  int n = 0;
  for (int pass = 0; pass < 2; pass++) {
    const PtrVec *v = pass == 0 ? &g->ops : &g->clones;
    for (int i = 0; i <= v->len; i++) {
      const Op *op = i < v->len ? v->items[i] : (pass == 1 ? extra : NULL);
      if (!op) continue;
      for (int k = 0; k < op->noperands; k++) {
        Value *x = op->operands[k];
        if (x->def && (in_group(g, x->def) || x->def == extra)) continue;
        bool seen = false;
        for (int j = 0; j < n && !seen; j++) seen = params[j] == x;
        if (seen) continue;
        if (n == cap) return cap + 1;
        params[n++] = x;
      }
    }
  }
  return n;
}

static bool all_users_in(const Group *g, const Op *op) {
  for (int i = 0; i < op->nresults; i++)
    for (const Use *u = op->results[i].uses; u; u = u->next)
      if (!in_group(g, u->user)) return false;
  return true;
}

/* Bytes that fusing producer p into g saves: its result is neither written
 * nor read back, minus the bytes of p's operands the group must now read
 * (when p is duplicated, the original stays, so only the read is saved). */
static double bytes_saved(const Group *g, const Op *p, bool duplicate) {
  double result = cost_tiled_bytes(p->results[0].type);
  double saved = duplicate ? result : 2 * result;
  double added = 0;
  for (int k = 0; k < p->noperands; k++) {
    const Value *x = p->operands[k];
    if (x->def && in_group(g, x->def)) continue;
    added += cost_tiled_bytes(x->type);
  }
  return saved - added;
}

/* Tries to bring the producer of operand value v into g. */
static bool try_fuse_producer(Fuser *f, Group *g, Value *v) {
  Op *p = v->def;
  if (!p || p->parent != g->root->parent || in_group(g, p) || group_of(f, p)) return false;
  if (!op_is_pure(p) || p->nresults != 1) return false;
  const Type *t = p->results[0].type;
  if (!is_static_tensor(t)) return false;
  bool only_user = all_users_in(g, p);
  bool elementwise = is_plain_elementwise(p) && same_shape(t, g->loop);
  bool cheap = is_cheap_producer(p) && (same_shape(t, g->loop) || is_splat_constant(p));
  if (!elementwise && !cheap) return false;
  bool duplicate = !only_user;
  if (duplicate && !cheap) return false;
  if (bytes_saved(g, p, duplicate) < 0) return false;
  Value *params[FUSION_MAX_PARAMS + 1];
  if (collect_params(g, p, params, FUSION_MAX_PARAMS) > FUSION_MAX_PARAMS) return false;
  if (duplicate) vec_push(&g->clones, p);
  else add_member(f, g, p);
  return true;
}

/* Pulls producers in until nothing more joins. */
static void grow(Fuser *f, Group *g) {
  for (bool changed = true; changed;) {
    changed = false;
    for (int pass = 0; pass < 2 && !changed; pass++) {
      PtrVec *v = pass == 0 ? &g->ops : &g->clones;
      for (int i = 0; i < v->len && !changed; i++) {
        Op *op = v->items[i];
        /* Producers of a contraction's operands stay outside (MXU inputs);
         * a reduce's init value is a scalar parameter. */
        if (is_contraction(op)) continue;
        int n = op->kind == OP_REDUCE ? 1 : op->noperands;
        for (int k = 0; k < n && !changed; k++) changed = try_fuse_producer(f, g, op->operands[k]);
      }
    }
  }
}

/* Output fusion: a contraction of the loop shape whose only user is g. */
static void fuse_contraction(Fuser *f, Group *g) {
  if (g->kind != GK_LOOP) return;
  for (int i = 0; i < g->ops.len; i++) {
    Op *op = g->ops.items[i];
    for (int k = 0; k < op->noperands; k++) {
      Op *p = op->operands[k]->def;
      if (!p || !is_contraction(p) || p->parent != g->root->parent || group_of(f, p) || !all_users_in(g, p) ||
          !same_shape(p->results[0].type, g->loop))
        continue;
      Value *params[FUSION_MAX_PARAMS + 1];
      if (collect_params(g, p, params, FUSION_MAX_PARAMS) > FUSION_MAX_PARAMS) continue;
      add_member(f, g, p);
      g->kind = GK_OUTPUT;
      g->has_contraction = true;
      return;
    }
  }
}

static Group *new_group(Fuser *f, Op *root, const Type *loop, GroupKind kind) {
  Group *g = arena_alloc(&f->pc->c->arena, sizeof *g);
  g->root = root;
  g->loop = loop;
  g->kind = kind;
  add_member(f, g, root);
  vec_push(&f->groups, g);
  return g;
}

/* ------------------------------------------------------------------ */
/* Sibling multi-output fusion. */

/* Does any op of `later`'s inputs depend (through ops after `earlier`'s
 * first position) on a member of `earlier`? */
static bool depends_on(Fuser *f, const Group *later, const Group *earlier, uint32_t from) {
  PtrVec stack = {0};
  Table seen = {0};
  bool found = false;
  for (int pass = 0; pass < 2; pass++) {
    const PtrVec *v = pass == 0 ? &later->ops : &later->clones;
    for (int i = 0; i < v->len; i++) vec_push(&stack, v->items[i]);
  }
  while (stack.len && !found) {
    Op *op = stack.items[--stack.len];
    for (int k = 0; k < op->noperands && !found; k++) {
      Op *p = op->operands[k]->def;
      if (!p || p->parent != later->root->parent || p->order < from) continue;
      if (group_of(f, p) == earlier || in_group(earlier, p)) found = true;
      void **s = table_put(&seen, p, 0);
      if (*s) continue;
      *s = p;
      vec_push(&stack, p);
    }
  }
  vec_free(&stack);
  table_free(&seen, NULL);
  return found;
}

static uint32_t first_order(const Group *g) {
  uint32_t m = UINT32_MAX;
  for (int i = 0; i < g->ops.len; i++) {
    const Op *op = g->ops.items[i];
    if (op->order < m) m = op->order;
  }
  return m;
}

/* Every user of a's results outside a comes after b's root. */
static bool outputs_used_after(const Group *a, const Group *b) {
  for (int i = 0; i < a->ops.len; i++) {
    const Op *op = a->ops.items[i];
    for (int r = 0; r < op->nresults; r++)
      for (const Use *u = op->results[r].uses; u; u = u->next) {
        const Op *user = u->user;
        while (user && user->parent != b->root->parent) user = user->parent && user->parent->parent ? user->parent->parent->parent : NULL;
        if (user && !in_group(a, user) && user->order <= b->root->order) return false;
      }
  }
  return true;
}

static bool shares_param(const Group *a, const Group *b) {
  Value *pa[FUSION_MAX_PARAMS + 1], *pb[FUSION_MAX_PARAMS + 1];
  int na = collect_params(a, NULL, pa, FUSION_MAX_PARAMS), nb = collect_params(b, NULL, pb, FUSION_MAX_PARAMS);
  for (int i = 0; i < na && i <= FUSION_MAX_PARAMS; i++)
    for (int j = 0; j < nb && j <= FUSION_MAX_PARAMS; j++)
      if (pa[i] == pb[j] && cost_tiled_bytes(pa[i]->type) >= cost_tiled_bytes(a->loop) / 2) return true;
  return false;
}

static void merge_siblings(Fuser *f) {
  for (int i = 0; i < f->groups.len; i++) {
    Group *a = f->groups.items[i];
    if (a->dead || a->has_contraction) continue;
    for (int j = 0; j < f->groups.len; j++) {
      Group *b = f->groups.items[j];
      if (b == a || b->dead || b->has_contraction) continue;
      if (a->root->order >= b->root->order || !same_shape(a->loop, b->loop) || !shares_param(a, b)) continue;
      if (depends_on(f, b, a, first_order(a)) || !outputs_used_after(a, b)) continue;
      Group merged = *b;
      PtrVec ops = {0}, clones = {0};
      for (int k = 0; k < b->ops.len; k++) vec_push(&ops, b->ops.items[k]);
      for (int k = 0; k < a->ops.len; k++) vec_push(&ops, a->ops.items[k]);
      for (int k = 0; k < b->clones.len; k++) vec_push(&clones, b->clones.items[k]);
      for (int k = 0; k < a->clones.len; k++) vec_push(&clones, a->clones.items[k]);
      merged.ops = ops;
      merged.clones = clones;
      Value *params[FUSION_MAX_PARAMS + 1];
      if (collect_params(&merged, NULL, params, FUSION_MAX_PARAMS) > FUSION_MAX_PARAMS) {
        vec_free(&ops);
        vec_free(&clones);
        continue;
      }
      vec_free(&b->ops);
      vec_free(&b->clones);
      b->ops = ops;
      b->clones = clones;
      b->kind = GK_MULTI;
      for (int k = 0; k < a->ops.len; k++) *table_put(&f->group_of, a->ops.items[k], 0) = b;
      a->dead = true;
      break;
    }
  }
}

/* ------------------------------------------------------------------ */
/* Building the tpu.fusion op. */

static int by_order(const void *x, const void *y) {
  const Op *a = *(const Op *const *)x, *b = *(const Op *const *)y;
  return a->order < b->order ? -1 : a->order > b->order;
}

static void build_fusion(Fuser *f, Group *g) {
  Context *c = f->pc->c;
  /* Clones first (they only read params), then members in block order. */
  PtrVec all = {0};
  for (int i = 0; i < g->clones.len; i++) vec_push(&all, g->clones.items[i]);
  for (int i = 0; i < g->ops.len; i++) vec_push(&all, g->ops.items[i]);
  qsort(all.items, (size_t)all.len, sizeof(void *), by_order);
  Value *params[FUSION_MAX_PARAMS + 1];
  int np = collect_params(g, NULL, params, FUSION_MAX_PARAMS);
  if (np > FUSION_MAX_PARAMS) die("fusion group exceeds its operand bound");
  /* Outputs: member results used outside the group (the root's always). */
  PtrVec outs = {0};
  for (int i = 0; i < all.len; i++) {
    Op *op = all.items[i];
    if (!in_group(g, op) || group_of(f, op) != g) continue; /* clones are never outputs */
    bool is_clone = false;
    for (int k = 0; k < g->clones.len; k++) is_clone |= g->clones.items[k] == op;
    if (is_clone) continue;
    for (int r = 0; r < op->nresults; r++) {
      bool outside = false;
      for (const Use *u = op->results[r].uses; u && !outside; u = u->next) outside = !in_group(g, u->user);
      if (outside) vec_push(&outs, &op->results[r]);
    }
  }
  Type *out_types[outs.len ? outs.len : 1];
  for (int i = 0; i < outs.len; i++) out_types[i] = ((Value *)outs.items[i])->type;
  Value *operands[np ? np : 1];
  Type *arg_types[np ? np : 1];
  for (int i = 0; i < np; i++) operands[i] = params[i], arg_types[i] = params[i]->type;
  NamedAttr kind = {"kind", attr_string(c, kind_names[g->kind], strlen(kind_names[g->kind]))};
  Op *fusion = op_create(c, OP_TPU_FUSION, NULL, g->root->loc, np, operands, outs.len, out_types, 1, &kind, 1);
  Block *body = block_create(c, &fusion->regions[0], np, arg_types);
  region_add_block(c, &fusion->regions[0], body);
  ValueMap map = {0};
  for (int i = 0; i < np; i++) value_map_put(c, &map, params[i], &body->args[i]);
  for (int i = 0; i < all.len; i++) op_append(body, op_clone(c, all.items[i], &map));
  Value *yielded[outs.len ? outs.len : 1];
  for (int i = 0; i < outs.len; i++) yielded[i] = value_map_get(&map, outs.items[i]);
  op_append(body, op_create(c, OP_TPU_YIELD, NULL, g->root->loc, outs.len, yielded, 0, NULL, 0, NULL, 0));
  op_insert_before(g->root, fusion);
  for (int i = 0; i < outs.len; i++) value_replace_all_uses(c, outs.items[i], &fusion->results[i]);
  /* Members go last to first, consumers before their producers. */
  for (int i = all.len - 1; i >= 0; i--) {
    Op *op = all.items[i];
    if (group_of(f, op) == g && op_results_unused(op)) op_erase(op);
  }
  vec_free(&all);
  vec_free(&outs);
}

/* ------------------------------------------------------------------ */

static void fuse_block(PassContext *pc, Block *b) {
  /* Nested control flow first (its blocks are separate loops). */
  for (Op *op = b->first; op; op = op->next)
    if (!(op_info[op->kind].traits & TRAIT_ISOLATED) && (op->kind == OP_WHILE || op->kind == OP_IF || op->kind == OP_CASE))
      for (int r = 0; r < op->nregions; r++)
        for (int k = 0; k < op->regions[r].nblocks; k++) fuse_block(pc, op->regions[r].blocks[k]);
  uint32_t order = 0;
  for (Op *op = b->first; op; op = op->next) op->order = order++;
  Fuser f = {.pc = pc};
  for (Op *op = b->last; op; op = op->prev) {
    if (group_of(&f, op)) continue;
    Group *g = NULL;
    if (is_plain_elementwise(op)) g = new_group(&f, op, op->results[0].type, GK_LOOP);
    else if (is_single_input_reduce(op)) g = new_group(&f, op, op->operands[0]->type, GK_INPUT);
    if (!g) continue;
    grow(&f, g);
    fuse_contraction(&f, g);
  }
  merge_siblings(&f);
  for (int i = 0; i < f.groups.len; i++) {
    Group *g = f.groups.items[i];
    if (!g->dead && g->ops.len + g->clones.len >= 2) build_fusion(&f, g);
  }
  for (int i = 0; i < f.groups.len; i++) {
    Group *g = f.groups.items[i];
    vec_free(&g->ops);
    vec_free(&g->clones);
  }
  vec_free(&f.groups);
  table_free(&f.group_of, NULL);
}

bool pass_fusion(PassContext *pc) {
  FOR_EACH_FUNC(pc->m, fn) fuse_block(pc, op_body(fn));
  dce_module(pc->m);
  return true;
}
