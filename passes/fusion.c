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
 * Groups become tpu.fusion ops placed where their last op was.
 *
 * Cost: O(n log n) in the block's ops, whatever the size of a group (a
 * step of growing looks at the group's reads from outside, at most 16;
 * merged groups are union-find sets; sibling candidates come from treaps
 * of each value's readers).  The steps are counted in pc->steps. */
#include <stdlib.h>
#include <string.h>

#include "ir/table.h"
#include "passes/cost.h"
#include "passes/pass.h"
#include "passes/walk.h"

/* XLA's bound on a fusion's operands and results. */
#define FUSION_MAX_PARAMS 16
/* Ops in one fusion (members and clones): a kernel's code is bounded; past
 * it a long chain is split, one array written and read back per split. */
#define FUSION_MAX_OPS 1024
/* Sibling fusion looks at no more than this many candidate groups for one
 * group, the latest first, and gives a group up (no sibling) when its
 * dependence walk passes this many use edges: bounds on compile time. */
#define FUSION_SIBLING_CANDIDATES 256
#define FUSION_WALK_BUDGET 4096
#define KEY_NONE UINT64_MAX

typedef enum GroupKind { GK_LOOP, GK_INPUT, GK_OUTPUT, GK_MULTI } GroupKind;
static const char *const kind_names[] = {"loop", "input", "output", "multi_output"};

/* A value a group reads from outside, with the uses its members make of it
 * and the first place (pass, member, operand) where growing looks at it. */
typedef struct Param {
  Value *v;
  uint32_t users_in;
  uint64_t key;   /* KEY_NONE: no member offers its producer for fusion */
  bool broadcast; /* a member broadcasts it: it must stay whole, not computed tile by tile */
} Param;

/* A group is a union-find set of parts: each part holds the ops it brought
 * (members, then clones); the representative's fields describe the whole. */
typedef struct Group {
  PtrVec ops;                   /* this part's members, in the order they joined */
  PtrVec clones;                /* this part's cheap producers copied in; the original stays */
  struct Group *up;             /* union-find parent; NULL for a representative */
  struct Group *next_part, *last_part;
  Table clone_set;              /* representative: the clones of every part */
  Param params[FUSION_MAX_PARAMS];
  int nparams;
  int size;                     /* representative: members and clones of every part */
  Op *root;                     /* the last member in block order */
  const Type *loop;             /* shape every element-wise member has */
  uint32_t first;               /* lowest order of a member */
  GroupKind kind;
  bool has_contraction;         /* a dot_general / convolution is in it */
  bool dead;                    /* merged into another group */
} Group;

typedef struct Fuser {
  PassContext *pc;
  Block *block;
  uint32_t nops;
  Op **ops;          /* [nops] the block's ops by order, as numbered */
  Group **owner;     /* [nops] the part an op is a member of */
  uint32_t *nuses;   /* [nops] uses of the op's result + 1; 0 until counted */
  uint32_t *mark;    /* [nops] visit stamps of the sibling dependence walk */
  PtrVec groups;     /* in creation order: roots last to first */
  Table readers;     /* Value* -> ReaderSet*: the groups reading it */
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
    if (!is_static_tensor(t) || t->rank != r->rank ||
        (r->rank && memcmp(t->dims, r->dims, sizeof(int64_t) * (size_t)r->rank)))
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

/* True when value v is defined inside op (in one of its regions). */
static bool defined_inside(const Value *v, const Op *op) {
  const Block *b = v->def ? v->def->parent : v->block;
  while (b && b->parent && b->parent->parent) {
    if (b->parent->parent == op) return true;
    b = b->parent->parent->parent;
  }
  return false;
}

/* True when every operand used in region r (nested regions included) is
 * defined inside op: the region captures nothing. */
static bool region_is_closed(const Region *r, const Op *op) {
  for (int bi = 0; bi < r->nblocks; bi++)
    for (const Op *o = r->blocks[bi]->first; o; o = o->next) {
      for (int i = 0; i < o->noperands; i++)
        if (!defined_inside(o->operands[i], op)) return false;
      for (int k = 0; k < o->nregions; k++)
        if (!region_is_closed(&o->regions[k], op)) return false;
    }
  return true;
}

/* A reduce of one input whose body captures nothing: the VM folds the
 * producer's tiles into it (a body reading outer values cannot run on
 * tiles, so it is left unfused and its producer counted whole). */
static bool is_single_input_reduce(const Op *op) {
  return op->kind == OP_REDUCE && op->noperands == 2 && op->nresults == 1 &&
         is_static_tensor(op->operands[0]->type) && op->nregions == 1 && region_is_closed(&op->regions[0], op);
}

/* A dot_general with an algorithm stays unfused: its lowering rounds the
 * operands and result to the algorithm's types. */
static bool is_contraction(const Op *op) {
  return (op->kind == OP_DOT_GENERAL || op->kind == OP_CONVOLUTION) && op->nresults == 1 &&
         is_static_tensor(op->results[0].type) && !op_attr(op, "algorithm");
}

/* ------------------------------------------------------------------ */
/* Group bookkeeping. */

static Group *find(Group *g) {
  while (g->up) {
    if (g->up->up) g->up = g->up->up;
    g = g->up;
  }
  return g;
}

/* Is op one of this block's ops as numbered (not one built since)? */
static bool numbered(const Fuser *f, const Op *op) {
  return op && op->parent == f->block && op->order < f->nops && f->ops[op->order] == op;
}

/* The group op is a member of, or NULL. */
static Group *group_of(const Fuser *f, const Op *op) {
  if (!numbered(f, op) || !f->owner[op->order]) return NULL;
  return find(f->owner[op->order]);
}

/* Member or clone of the group whose representative is g. */
static bool in_group(const Fuser *f, Group *g, const Op *op) {
  return numbered(f, op) && (group_of(f, op) == g || table_get(&g->clone_set, op, 0));
}

/* Uses of p's result, counted once per block. */
static uint32_t use_count(Fuser *f, const Op *p) {
  uint32_t *n = &f->nuses[p->order];
  if (!*n) {
    *n = 1;
    for (const Use *u = p->results[0].uses; u; u = u->next) ++*n, f->pc->steps++;
  }
  return *n - 1;
}

static Param *find_param(Group *g, const Value *v) {
  for (int i = 0; i < g->nparams; i++)
    if (g->params[i].v == v) return &g->params[i];
  return NULL;
}

/* Values g would read from outside once p joins: its operands outside g
 * that are not read yet, plus g's reads but p's result. */
static int params_with(const Fuser *f, Group *g, const Op *p) {
  int n = g->nparams - (p->nresults == 1 && find_param(g, &p->results[0]) ? 1 : 0);
  for (int k = 0; k < p->noperands; k++) {
    Value *x = p->operands[k];
    f->pc->steps++;
    if ((x->def && in_group(f, g, x->def)) || find_param(g, x)) continue;
    bool seen = false;
    for (int j = 0; j < k && !seen; j++) seen = p->operands[j] == x;
    n += !seen;
  }
  return n;
}

/* Records p's reads of its operands; scan is the key of p's first operand
 * growing looks at (KEY_NONE when it looks at none). */
static void note_reads(Fuser *f, Group *g, Op *p, uint64_t scan) {
  int scanned = is_contraction(p) ? 0 : p->kind == OP_REDUCE ? 1 : p->noperands;
  for (int k = 0; k < p->noperands; k++) {
    Value *x = p->operands[k];
    f->pc->steps++;
    if (x->def && in_group(f, g, x->def)) continue;
    Param *q = find_param(g, x);
    if (!q) {
      if (g->nparams == FUSION_MAX_PARAMS) die("fusion group exceeds its operand bound");
      q = &g->params[g->nparams++];
      *q = (Param){.v = x, .key = KEY_NONE};
    }
    q->users_in++;
    q->broadcast |= p->kind == OP_BROADCAST_IN_DIM;
    if (k < scanned && scan + (uint64_t)k < q->key) q->key = scan + (uint64_t)k;
  }
}

/* p joins g (as a clone when duplicate): its result is no longer read from
 * outside, its operands are. */
static void join(Fuser *f, Group *g, Op *p, bool duplicate) {
  Param *q = p->nresults == 1 ? find_param(g, &p->results[0]) : NULL;
  if (q) *q = g->params[--g->nparams];
  PtrVec *v = duplicate ? &g->clones : &g->ops;
  uint64_t scan = ((uint64_t)duplicate << 62) | ((uint64_t)v->len << 8);
  vec_push(v, p);
  g->size++;
  if (duplicate) *table_put(&g->clone_set, p, 0) = p;
  else f->owner[p->order] = g, g->first = p->order < g->first ? p->order : g->first;
  note_reads(f, g, p, scan);
}

/* Bytes that fusing producer p into g saves: its result is neither written
 * nor read back, minus the bytes of p's operands the group must now read
 * (when p is duplicated, the original stays, so only the read is saved). */
static double bytes_saved(const Fuser *f, Group *g, const Op *p, bool duplicate) {
  double result = cost_tiled_bytes(p->results[0].type);
  double saved = duplicate ? result : 2 * result;
  double added = 0;
  for (int k = 0; k < p->noperands; k++) {
    const Value *x = p->operands[k];
    if (x->def && in_group(f, g, x->def)) continue;
    added += cost_tiled_bytes(x->type);
  }
  return saved - added;
}

/* Can the producer of read q join g now?  *duplicate: as a clone. */
static bool can_fuse_producer(Fuser *f, Group *g, const Param *q, bool *duplicate) {
  Op *p = q->v->def;
  /* A broadcast reads other positions than the tile it writes: what it
   * reads is a whole operand of the fusion, never a value computed in it. */
  if (g->size >= FUSION_MAX_OPS || q->broadcast) return false;
  if (!p || p->parent != f->block || !numbered(f, p) || group_of(f, p)) return false;
  if (!op_is_pure(p) || p->nresults != 1) return false;
  const Type *t = p->results[0].type;
  if (!is_static_tensor(t)) return false;
  bool only_user = q->users_in == use_count(f, p);
  bool elementwise = is_plain_elementwise(p) && same_shape(t, g->loop);
  bool cheap = is_cheap_producer(p) && (same_shape(t, g->loop) || is_splat_constant(p));
  if (!elementwise && !cheap) return false;
  *duplicate = !only_user;
  if (*duplicate && !cheap) return false;
  if (bytes_saved(f, g, p, *duplicate) < 0) return false;
  return params_with(f, g, p) <= FUSION_MAX_PARAMS;
}

/* Pulls producers in until nothing more joins.  Each step takes the read
 * that comes first in (pass, member, operand) order among those whose
 * producer can join: the order of a scan of the members that starts again
 * after every join.  The candidates are the group's reads, at most
 * FUSION_MAX_PARAMS, so a step costs O(1) and growing O(group size). */
static void grow(Fuser *f, Group *g) {
  for (;;) {
    int best = -1;
    bool best_dup = false;
    for (int i = 0; i < g->nparams; i++) {
      bool dup;
      f->pc->steps++;
      if (g->params[i].key == KEY_NONE || (best >= 0 && g->params[i].key > g->params[best].key)) continue;
      if (can_fuse_producer(f, g, &g->params[i], &dup)) best = i, best_dup = dup;
    }
    if (best < 0) return;
    join(f, g, g->params[best].v->def, best_dup);
  }
}

/* Output fusion: a contraction of the loop shape whose only user is g. */
static void fuse_contraction(Fuser *f, Group *g) {
  if (g->kind != GK_LOOP || g->size >= FUSION_MAX_OPS) return;
  for (int i = 0; i < g->ops.len; i++) {
    Op *op = g->ops.items[i];
    for (int k = 0; k < op->noperands; k++) {
      Op *p = op->operands[k]->def;
      f->pc->steps++;
      if (!p || !is_contraction(p) || p->parent != f->block || !numbered(f, p) || group_of(f, p)) continue;
      const Param *q = find_param(g, &p->results[0]);
      if (!q || q->users_in != use_count(f, p) || !same_shape(p->results[0].type, g->loop)) continue;
      if (params_with(f, g, p) > FUSION_MAX_PARAMS) continue;
      join(f, g, p, false);
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
  g->first = root->order;
  g->last_part = g;
  join(f, g, root, false);
  vec_push(&f->groups, g);
  return g;
}

/* ------------------------------------------------------------------ */
/* Sibling multi-output fusion. */

/* A treap of the groups that read one value, keyed by root order: the
 * dead and the stale (a merge made the value internal) stay and are
 * skipped, so entries are only added. */
typedef struct Reader {
  Group *g;
  uint32_t key, prio;
  struct Reader *l, *r;
} Reader;

typedef struct ReaderSet {
  Reader *root;
} ReaderSet;

static ReaderSet *readers(Fuser *f, const Value *x) {
  void **slot = table_put(&f->readers, x, 0);
  if (!*slot) *slot = arena_alloc(&f->pc->c->arena, sizeof(ReaderSet));
  return *slot;
}

static Reader *tree_insert(Fuser *f, Reader *t, Reader *n) {
  f->pc->steps++;
  if (!t) return n;
  if (n->key < t->key) {
    t->l = tree_insert(f, t->l, n);
    if (t->l->prio > t->prio) {
      Reader *l = t->l;
      t->l = l->r, l->r = t, t = l;
    }
  } else {
    t->r = tree_insert(f, t->r, n);
    if (t->r->prio > t->prio) {
      Reader *r = t->r;
      t->r = r->l, r->l = t, t = r;
    }
  }
  return t;
}

/* The entry with the largest key below `bound`, or NULL. */
static Reader *tree_below(Fuser *f, Reader *t, uint32_t bound) {
  Reader *best = NULL;
  for (; t; t = t->key < bound ? t->r : t->l) {
    f->pc->steps++;
    if (t->key < bound) best = t;
  }
  return best;
}

static void add_reader(Fuser *f, const Value *x, Group *g) {
  ReaderSet *set = readers(f, x);
  uint32_t key = g->root->order;
  Reader *at = tree_below(f, set->root, key + 1);
  if (at && at->key == key) return;
  Reader *n = arena_alloc(&f->pc->c->arena, sizeof *n);
  uint32_t h = key + 1; /* a fixed mix of the key: the same tree every run */
  h ^= h >> 16, h *= 0x7feb352du, h ^= h >> 15, h *= 0x846ca68bu, h ^= h >> 16;
  *n = (Reader){.g = g, .key = key, .prio = h};
  set->root = tree_insert(f, set->root, n);
}

/* The lowest order of an op outside a that uses a member's result (users
 * in regions count as their op in the block). */
static uint32_t first_outside_use(const Fuser *f, Group *a) {
  uint32_t m = UINT32_MAX;
  for (Group *part = a; part; part = part->next_part)
    for (int i = 0; i < part->ops.len; i++) {
      const Op *op = part->ops.items[i];
      for (int r = 0; r < op->nresults; r++)
        for (const Use *u = op->results[r].uses; u; u = u->next) {
          const Op *user = u->user;
          f->pc->steps++;
          while (user && user->parent != f->block)
            user = user->parent && user->parent->parent ? user->parent->parent->parent : NULL;
          if (user && !in_group(f, a, user) && user->order < m) m = user->order;
        }
    }
  return m;
}

/* Groups that read, through ops before `limit`, a clone of a placed at or
 * after a's first member (then a and they are not merged).  Collected into
 * deps; false when the walk exceeds its budget. */
static bool clone_dependents(Fuser *f, Group *a, uint32_t limit, PtrVec *deps) {
  PtrVec stack = {0};
  uint32_t stamp = a->first + 1, steps = 0;
  for (int i = 0; i < a->clones.len; i++) {
    Op *p = a->clones.items[i];
    if (p->order >= a->first && f->mark[p->order] != stamp) f->mark[p->order] = stamp, vec_push(&stack, p);
  }
  bool ok = true;
  while (stack.len && ok) {
    Op *op = stack.items[--stack.len];
    for (int r = 0; r < op->nresults && ok; r++)
      for (const Use *u = op->results[r].uses; u && ok; u = u->next) {
        ok = ++steps <= FUSION_WALK_BUDGET;
        Op *user = u->user;
        if (!numbered(f, user) || user->order >= limit || f->mark[user->order] == stamp) continue;
        f->mark[user->order] = stamp;
        Group *g = group_of(f, user);
        if (g) vec_push(deps, g);
        vec_push(&stack, user);
      }
  }
  vec_free(&stack);
  f->pc->steps += steps;
  return ok;
}

/* The params of a merged with b; false past the operand bound. */
static bool merged_params(const Fuser *f, Group *a, Group *b, Param *out, int *n) {
  *n = 0;
  for (int side = 0; side < 2; side++) {
    Group *g = side ? a : b, *other = side ? b : a;
    for (int i = 0; i < g->nparams; i++) {
      Value *x = g->params[i].v;
      bool broadcast = g->params[i].broadcast;
      if (x->def && in_group(f, other, x->def)) {
        if (broadcast) return false; /* it would broadcast a value computed in the fusion */
        continue;
      }
      int seen = -1;
      for (int j = 0; j < *n && seen < 0; j++)
        if (out[j].v == x) seen = j;
      if (seen >= 0) {
        out[seen].broadcast |= broadcast;
        continue;
      }
      if (*n == FUSION_MAX_PARAMS) return false;
      out[(*n)++] = (Param){.v = x, .key = KEY_NONE, .broadcast = broadcast};
    }
  }
  return true;
}

/* a joins b: a's parts go after b's, a's clones into b's set. */
static void merge_into(Fuser *f, Group *a, Group *b, const Param *params, int n) {
  for (int i = 0; i < n; i++)
    if (!find_param(b, params[i].v)) add_reader(f, params[i].v, b);
  memcpy(b->params, params, sizeof(Param) * (size_t)n);
  b->nparams = n;
  b->size += a->size;
  if (a->clone_set.count > b->clone_set.count) {
    Table t = a->clone_set;
    a->clone_set = b->clone_set;
    b->clone_set = t;
  }
  for (uint32_t i = 0; i < a->clone_set.cap; i++)
    if (a->clone_set.slots[i].key) *table_put(&b->clone_set, a->clone_set.slots[i].key, 0) = a->clone_set.slots[i].value;
  table_free(&a->clone_set, NULL);
  b->last_part->next_part = a;
  b->last_part = a->last_part;
  b->kind = GK_MULTI;
  a->up = b;
  a->dead = true;
}

/* The first group (in creation order, so the latest root) a can merge
 * with: same loop shape, a large read in common, root after a's and
 * before any outside use of a's results, not reading a's clones, within
 * the operand bound; then a merges into it. */
static void merge_sibling(Fuser *f, Group *a) {
  uint32_t limit = first_outside_use(f, a);
  PtrVec deps = {0};
  if (!clone_dependents(f, a, limit, &deps)) goto out;
  Reader *roots[FUSION_MAX_PARAMS], *at[FUSION_MAX_PARAMS];
  int nl = 0;
  for (int i = 0; i < a->nparams; i++) {
    const Value *x = a->params[i].v;
    if (cost_tiled_bytes(x->type) < cost_tiled_bytes(a->loop) / 2) continue;
    roots[nl] = readers(f, x)->root;
    at[nl] = tree_below(f, roots[nl], limit); /* the latest root before limit */
    nl++;
  }
  Group *prev = NULL;
  for (int steps = 0; steps < FUSION_SIBLING_CANDIDATES; steps++) {
    int best = -1;
    for (int l = 0; l < nl; l++) {
      if (at[l] && at[l]->key <= a->root->order) at[l] = NULL;
      if (at[l] && (best < 0 || at[l]->key > at[best]->key)) best = l;
    }
    if (best < 0) break;
    Group *b = at[best]->g;
    at[best] = tree_below(f, roots[best], at[best]->key);
    f->pc->steps++;
    if (b == prev || b->dead || b->has_contraction || !same_shape(a->loop, b->loop)) continue;
    prev = b;
    bool shares = false, dependent = false;
    for (int i = 0; i < a->nparams && !shares; i++)
      shares = find_param(b, a->params[i].v) && cost_tiled_bytes(a->params[i].v->type) >= cost_tiled_bytes(a->loop) / 2;
    for (int i = 0; i < deps.len && !dependent; i++) dependent = find(deps.items[i]) == b;
    Param params[FUSION_MAX_PARAMS];
    int n;
    if (!shares || dependent || a->size + b->size > FUSION_MAX_OPS || !merged_params(f, a, b, params, &n)) continue;
    merge_into(f, a, b, params, n);
    break;
  }
out:
  vec_free(&deps);
}

static void merge_siblings(Fuser *f) {
  for (int i = f->groups.len - 1; i >= 0; i--) {
    Group *g = f->groups.items[i];
    if (g->has_contraction) continue;
    for (int k = 0; k < g->nparams; k++) add_reader(f, g->params[k].v, g);
  }
  for (int i = 0; i < f->groups.len; i++) {
    Group *a = f->groups.items[i];
    if (!a->dead && !a->has_contraction) merge_sibling(f, a);
  }
}

/* ------------------------------------------------------------------ */
/* Building the tpu.fusion op. */

static int by_order(const void *x, const void *y) {
  const Op *a = *(const Op *const *)x, *b = *(const Op *const *)y;
  return a->order < b->order ? -1 : a->order > b->order;
}

/* Values g reads from outside, in the order of its parts' members, then
 * of their clones, operand by operand. */
static int final_params(const Fuser *f, Group *g, Value **params) {
  int n = 0;
  for (int pass = 0; pass < 2; pass++)
    for (Group *part = g; part; part = part->next_part) {
      const PtrVec *v = pass == 0 ? &part->ops : &part->clones;
      for (int i = 0; i < v->len; i++) {
        const Op *op = v->items[i];
        for (int k = 0; k < op->noperands; k++) {
          Value *x = op->operands[k];
          f->pc->steps++;
          if (x->def && in_group(f, g, x->def)) continue;
          bool seen = false;
          for (int j = 0; j < n && !seen; j++) seen = params[j] == x;
          if (seen) continue;
          if (n == FUSION_MAX_PARAMS) die("fusion group exceeds its operand bound");
          params[n++] = x;
        }
      }
    }
  return n;
}

static void build_fusion(Fuser *f, Group *g) {
  Context *c = f->pc->c;
  /* Clones first (they only read params), then members in block order. */
  PtrVec all = {0};
  for (Group *part = g; part; part = part->next_part)
    for (int i = 0; i < part->clones.len; i++) vec_push(&all, part->clones.items[i]);
  for (Group *part = g; part; part = part->next_part)
    for (int i = 0; i < part->ops.len; i++) vec_push(&all, part->ops.items[i]);
  qsort(all.items, (size_t)all.len, sizeof(void *), by_order);
  Value *params[FUSION_MAX_PARAMS];
  int np = final_params(f, g, params);
  /* Outputs: member results used outside the group (the root's always). */
  PtrVec outs = {0};
  for (int i = 0; i < all.len; i++) {
    Op *op = all.items[i];
    if (group_of(f, op) != g) continue; /* clones are never outputs */
    for (int r = 0; r < op->nresults; r++) {
      bool outside = false;
      for (const Use *u = op->results[r].uses; u && !outside; u = u->next)
        outside = !in_group(f, g, u->user), f->pc->steps++;
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
  /* Nested control flow first (its blocks are separate loops); the ops
   * are numbered in the same walk (one walk: a large block misses the
   * caches on every op). */
  PtrVec ops = {0};
  for (Op *op = b->first; op; op = op->next) {
    if (!(op_info[op->kind].traits & TRAIT_ISOLATED) && (op->kind == OP_WHILE || op->kind == OP_IF || op->kind == OP_CASE))
      for (int r = 0; r < op->nregions; r++)
        for (int k = 0; k < op->regions[r].nblocks; k++) fuse_block(pc, op->regions[r].blocks[k]);
    op->order = (uint32_t)ops.len;
    vec_push(&ops, op);
  }
  Fuser f = {.pc = pc, .block = b, .nops = (uint32_t)ops.len, .ops = (Op **)ops.items};
  Arena *arena = &pc->c->arena;
  f.owner = arena_alloc(arena, sizeof(Group *) * (f.nops + 1));
  f.nuses = arena_alloc(arena, sizeof(uint32_t) * (f.nops + 1));
  f.mark = arena_alloc(arena, sizeof(uint32_t) * (f.nops + 1));
  for (Op *op = b->last; op; op = op->prev) {
    pc->steps++;
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
    if (!g->dead && g->size >= 2) build_fusion(&f, g);
  }
  for (int i = 0; i < f.groups.len; i++) {
    Group *g = f.groups.items[i];
    vec_free(&g->ops);
    vec_free(&g->clones);
    table_free(&g->clone_set, NULL);
  }
  vec_free(&f.groups);
  vec_free(&ops);
  table_free(&f.readers, NULL);
}

bool pass_fusion(PassContext *pc) {
  FOR_EACH_FUNC(pc->m, fn) fuse_block(pc, op_body(fn));
  dce_module(pc->m);
  return true;
}
