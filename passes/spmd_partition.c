/* spmd-partition: a program on global shapes, every value of which
 * sharding-propagation gave a layout, becomes the program each partition
 * runs on its pieces (docs/spmd.md).  Ops are rewritten one by one in
 * order (passes/spmd_rules.c); when an op needs an operand in another
 * layout than the one it has, part_reshard moves the data:
 *
 *   - the same pieces: nothing;
 *   - a finer tiling of the same pieces: a local dynamic_slice at the
 *     partition's offset (zero padding first for uneven pieces);
 *   - one dim's tiling moved to another dim: all_to_all;
 *   - otherwise: all_gather of each dim whose tiling does not nest in the
 *     wanted one (slicing off the padding of uneven pieces), then the
 *     local slice.
 *
 * The function's arguments and results keep their layouts, recorded as
 * tpu.global_shape / tpu.shard_tiles / tpu.shard_devices for tpurun
 * (docs/chips.md), and the module is marked tpu.spmd_partitioned. */
#include <stdlib.h>
#include <string.h>

#include "passes/spmd_part.h"

/* Every partition holds the same tile coordinates in a and b. */
static bool same_data(const Spmd *s, const Sharding *a, const Sharding *b) {
  if (a->rank != b->rank || memcmp(a->tiles, b->tiles, sizeof(int64_t) * (size_t)a->rank) != 0) return false;
  if (layout_is_replicated(a)) return true;
  const int64_t *ca = layout_coords(s, a), *cb = layout_coords(s, b);
  for (int64_t p = 0; p < s->n; p++)
    if (memcmp(ca + p * (a->rank + 1), cb + p * (b->rank + 1), sizeof(int64_t) * (size_t)a->rank) != 0) return false;
  return true;
}

/* to's pieces along d lie inside cur's on every partition, at offsets a
 * local slice can take (cur untiled there, or both even). */
static bool nests(const Spmd *s, const Sharding *cur, const Sharding *to, int d, int64_t global) {
  int64_t tc = cur->tiles[d], tt = to->tiles[d];
  if (tc == 1) return true;
  if (tt % tc != 0 || (tt != tc && global % tt != 0)) return false;
  const int64_t *cc = layout_coords(s, cur), *ct = layout_coords(s, to);
  for (int64_t p = 0; p < s->n; p++)
    if (ct[p * (to->rank + 1) + d] / (tt / tc) != cc[p * (cur->rank + 1) + d]) return false;
  return true;
}

/* x (layout cur) cut down to the nested pieces of `to`. */
static Value *refine(Part *P, Value *x, const Sharding *cur, const Sharding *to, const Type *g) {
  int k = g->rank;
  int64_t padded[SHARDING_MAX_RANK + 1], sizes[SHARDING_MAX_RANK + 1];
  Value *starts[SHARDING_MAX_RANK + 1];
  bool any = false;
  for (int d = 0; d < k; d++) {
    padded[d] = x->type->dims[d];
    sizes[d] = layout_local_dim(to, d, g->dims[d]);
    if (to->tiles[d] != cur->tiles[d]) {
      any = true;
      if (cur->tiles[d] == 1) padded[d] = sizes[d] * to->tiles[d];
    }
  }
  if (!any) return x;
  x = part_pad_to(P, x, padded);
  for (int d = 0; d < k; d++) {
    int32_t zero = 0;
    starts[d] = to->tiles[d] == cur->tiles[d] ? part_splat(P, type_scalar_tensor(P->s->c, ELEM_I32), &zero)
                                              : part_offset(P, to, d, g->dims[d], cur->tiles[d] > 1 ? cur : NULL);
  }
  return part_dynamic_slice(P, x, starts, sizes);
}

/* x (layout cur) with dim d gathered whole; *cur updated. */
static Value *gather_dim(Part *P, Value *x, const Sharding **cur, int d, const Type *g) {
  bool vary[SHARDING_MAX_RANK + 1] = {0};
  vary[d] = true;
  int64_t *ids = xcalloc((size_t)P->s->n, sizeof(int64_t));
  int64_t size = part_groups(P, *cur, vary, ids);
  x = part_all_gather(P, x, d, size, ids);
  free(ids);
  if (x->type->dims[d] != g->dims[d]) {
    int64_t limit[SHARDING_MAX_RANK + 1];
    memcpy(limit, x->type->dims, sizeof(int64_t) * (size_t)g->rank);
    limit[d] = g->dims[d];
    x = part_slice(P, x, limit);
  }
  *cur = layout_untile(P->s, *cur, d);
  return x;
}

/* The tiling of dim a moved to dim b with one all_to_all, when from and
 * to differ only there, evenly; NULL otherwise. */
static Value *try_all_to_all(Part *P, Value *x, const Sharding *from, const Sharding *to, const Type *g) {
  int k = g->rank, a = -1, b = -1;
  for (int d = 0; d < k; d++) {
    if (from->tiles[d] == to->tiles[d]) continue;
    if (from->tiles[d] > 1 && to->tiles[d] == 1 && a < 0) a = d;
    else if (from->tiles[d] == 1 && to->tiles[d] > 1 && b < 0) b = d;
    else return NULL;
  }
  if (a < 0 || b < 0) return NULL;
  int64_t m = from->tiles[a];
  if (to->tiles[b] != m || g->dims[a] % m || g->dims[b] % m) return NULL;
  const int64_t *cf = layout_coords(P->s, from), *ct = layout_coords(P->s, to);
  for (int64_t p = 0; p < P->s->n; p++) {
    const int64_t *f = cf + p * (k + 1), *t = ct + p * (k + 1);
    if (t[b] != f[a]) return NULL;
    for (int d = 0; d < k; d++)
      if (d != a && d != b && t[d] != f[d]) return NULL;
  }
  bool vary[SHARDING_MAX_RANK + 1] = {0};
  vary[a] = true;
  int64_t *ids = xcalloc((size_t)P->s->n, sizeof(int64_t));
  int64_t size = part_groups(P, from, vary, ids);
  Value *y = part_all_to_all(P, x, b, a, size, ids);
  free(ids);
  return y;
}

bool part_same_data(const Part *P, const Sharding *a, const Sharding *b) { return same_data(P->s, a, b); }

int64_t part_reshard_bytes(const Part *P, const Sharding *from, const Sharding *to, const Type *g) {
  if (same_data(P->s, from, to)) return 0;
  bool local = true;
  for (int d = 0; d < g->rank && local; d++) local = nests(P->s, from, to, d, g->dims[d]);
  if (local) return 0;
  int64_t n = 0;
  type_tensor_num_elements(g, &n);
  return n * elem_storage_bytes(type_elem_kind(g));
}

Value *part_reshard(Part *P, Value *x, const Sharding *from, const Sharding *to, const Type *g) {
  P->s->pc->steps++;
  if (same_data(P->s, from, to)) return x;
  Value *y = try_all_to_all(P, x, from, to, g);
  if (y) return y;
  const Sharding *cur = from;
  for (int d = 0; d < g->rank; d++)
    if (cur->tiles[d] > 1 && !nests(P->s, cur, to, d, g->dims[d])) x = gather_dim(P, x, &cur, d, g);
  return refine(P, x, cur, to, g);
}

/* The op enclosing P->at (or P->at itself) that sits in the block
 * defining v: where a reshard of v dominates every later use. */
static Op *home_of(const Part *P, const Value *v) {
  const Block *home = v->def ? v->def->parent : v->block;
  Op *at = P->at;
  while (at && at->parent != home) {
    const Region *r = at->parent ? at->parent->parent : NULL;
    at = r ? r->parent : NULL;
  }
  return at ? at : P->at;
}

Value *part_operand_as(Part *P, const Value *old, const Sharding *l) {
  const Local *lo = part_get(P, old);
  if (!lo) die("spmd-partition: an operand was not partitioned before its use");
  if (!lo->l || lo->manual || !l) return lo->v;
  if (same_data(P->s, lo->l, l)) return lo->v;
  if (lo->alt_l && same_data(P->s, lo->alt_l, l)) return lo->alt_v;
  Op *at = P->at;
  Loc loc = P->loc;
  P->at = home_of(P, lo->v);
  Value *v = part_reshard(P, lo->v, lo->l, l, lo->global);
  P->at = at;
  P->loc = loc;
  part_remember(P, old, l, v);
  return v;
}

/* ------------------------------------------------------------------ */
/* Functions */

/* The tpu.* attributes tpurun reads for argument/result i (side 0/1). */
static void record_layout(Part *P, Op *func, int side, int i, const Sharding *l, const Type *g) {
  Spmd *s = P->s;
  if (!l || layout_is_replicated(l)) {
    if (l) spmd_set_func_sharding(s, func, side, i, l);
    return;
  }
  int64_t tiles[SHARDING_MAX_RANK + 2];
  memcpy(tiles, l->tiles, sizeof(int64_t) * (size_t)l->rank);
  tiles[l->rank] = l->replicas;
  spmd_set_func_sharding(s, func, side, i, l);
  spmd_set_func_attr(s, func, side, i, "tpu.global_shape", attr_dense_i64_array(s->c, g->rank, g->dims));
  spmd_set_func_attr(s, func, side, i, "tpu.shard_tiles", attr_dense_i64_array(s->c, l->rank + 1, tiles));
  spmd_set_func_attr(s, func, side, i, "tpu.shard_devices", attr_dense_i64_array(s->c, (int)l->ndevices, l->devices));
}

/* The layout of %arg i of func (stated, else replicated); NULL after a
 * diagnostic. */
static const Sharding *arg_layout(Part *P, Op *func, int i, const Type *t) {
  const Sharding *stated = spmd_func_sharding(P->s, func, 0, i);
  const Sharding *l = layout_full(P->s, stated, t->rank);
  if (stated && stated->kind == SHARDING_TILED && stated->partial_manual) {
    op_error(P->s->c, func, "%%arg%d is partially manual (last_tile_dims={manual}); tpucc partitions fully manual "
             "shard_map bodies only", i);
    return NULL;
  }
  if (stated && !l && stated->kind == SHARDING_TILED) {
    op_error(P->s->c, func, "the sharding of %%arg%d covers %lld devices, not the program's %lld partitions", i,
             (long long)stated->ndevices, (long long)P->s->n);
    return NULL;
  }
  return l ? l : layout_replicated(P->s, t->rank);
}

/* The function's type from its new arguments and return. */
static void retype_func(Part *P, Op *func, Block *b) {
  Context *c = P->s->c;
  const Op *ret = b->last;
  Type **in = arena_alloc(&c->arena, sizeof(Type *) * (size_t)(b->nargs + 1));
  Type **out = arena_alloc(&c->arena, sizeof(Type *) * (size_t)(ret->noperands + 1));
  for (int i = 0; i < b->nargs; i++) in[i] = b->args[i].type;
  for (int i = 0; i < ret->noperands; i++) out[i] = ret->operands[i]->type;
  op_set_attr(c, func, "function_type", attr_type(c, type_func(c, b->nargs, in, ret->noperands, out)));
}

/* The block's terminator: each operand in rets[i] (NULL: its own layout);
 * manual values may leave only a manual region. */
static bool part_terminator(Part *P, Op *ret, const Sharding *const *rets, bool manual_ok) {
  Value **vals = arena_alloc(&P->s->c->arena, sizeof(Value *) * (size_t)(ret->noperands + 1));
  for (int i = 0; i < ret->noperands; i++) {
    const Local *lo = part_get(P, ret->operands[i]);
    if (lo->manual && !manual_ok) {
      op_error(P->s->c, ret, "operand #%d is a manual (per-device) value; return it through "
               "custom_call @SPMDShardToFullShape", i);
      return false;
    }
    vals[i] = part_operand_as(P, ret->operands[i], rets && rets[i] ? rets[i] : lo->l);
  }
  Op *n = op_create(P->s->c, ret->kind, ret->name, ret->loc, ret->noperands, vals, 0, NULL, 0, NULL, 0);
  op_insert_before(ret, n);
  return true;
}

bool part_block(Part *P, Block *b, const Sharding *const *args, const bool *manual, const Sharding *const *rets) {
  Block *outer = P->block;
  Op *outer_at = P->at;
  Loc outer_loc = P->loc;
  P->block = b;
  PtrVec old = {0};
  for (Op *op = b->first; op; op = op->next) vec_push(&old, op);
  Value *nargs = arena_alloc(&P->s->c->arena, sizeof(Value) * (size_t)(b->nargs + 1));
  bool any_manual = false;
  for (int i = 0; i < b->nargs; i++) {
    Value *a = &b->args[i];
    const Sharding *l = args ? args[i] : NULL;
    nargs[i] = (Value){.type = l ? layout_local_type(P->s, l, a->type) : a->type, .block = b, .index = i,
                       .name_hint = a->name_hint};
    part_put(P, a, &nargs[i], l, manual && manual[i]);
    any_manual = any_manual || (manual && manual[i]);
  }
  bool ok = true;
  for (int i = 0; i < old.len && ok; i++) {
    Op *op = old.items[i];
    P->at = op;
    P->loc = op->loc;
    bool term = op == b->last && (op_info[op->kind].traits & TRAIT_TERMINATOR);
    ok = term ? part_terminator(P, op, rets, any_manual) : part_op(P, op);
  }
  if (ok) {
    for (int i = old.len - 1; i >= 0; i--) op_erase(old.items[i]);
    b->args = nargs;
  }
  vec_free(&old);
  P->block = outer;
  P->at = outer_at;
  P->loc = outer_loc;
  return ok;
}

static bool partition_func(Spmd *s, Op *func) {
  Block *b = op_body(func);
  if (!b || !b->last || b->last->kind != OP_FUNC_RETURN) return true;
  Part P = {.s = s, .block = b, .func_block = b, .at = b->first, .locals = {.size = sizeof(Local)}};
  const Op *ret = b->last;
  int nret = ret->noperands;
  const Sharding **args = arena_alloc(&s->c->arena, sizeof(Sharding *) * (size_t)(b->nargs + 1));
  const Sharding **rets = arena_alloc(&s->c->arena, sizeof(Sharding *) * (size_t)(nret + 1));
  const Value **returned = arena_alloc(&s->c->arena, sizeof(Value *) * (size_t)(nret + 1));
  const Type **globals = arena_alloc(&s->c->arena, sizeof(Type *) * (size_t)(b->nargs + 1));
  bool ok = true;
  for (int i = 0; i < b->nargs && ok; i++) {
    const Type *t = globals[i] = b->args[i].type;
    if (type_is_tensor(t) && t->rank >= 0) ok = (args[i] = arg_layout(&P, func, i, t)) != NULL;
  }
  for (int i = 0; i < nret; i++) {
    returned[i] = ret->operands[i];
    const Type *t = returned[i]->type;
    if (type_is_tensor(t) && t->rank >= 0) rets[i] = layout_full(s, spmd_func_sharding(s, func, 1, i), t->rank);
  }
  ok = ok && part_block(&P, b, args, NULL, rets);
  if (ok) {
    for (int i = 0; i < b->nargs; i++) record_layout(&P, func, 0, i, args[i], globals[i]);
    for (int i = 0; i < nret; i++) {
      const Local *lo = part_get(&P, returned[i]);
      record_layout(&P, func, 1, i, rets[i] ? rets[i] : lo->l, lo->global);
    }
    retype_func(&P, func, b);
  }
  ptr_table_free(&P.locals);
  return ok;
}

/* The axis sizes > 1 of a Shardy mesh attribute's text ("x"=2, "y"=4). */
static int sdy_mesh_axes(const char *text, int64_t *axes) {
  int n = 0;
  for (const char *q = strstr(text, "\"="); q && n < 4; q = strstr(q + 2, "\"=")) {
    int64_t size = strtoll(q + 2, NULL, 10);
    if (size > 1) axes[n++] = size;
  }
  return n;
}

/* The device mesh tpurun places the chips on by default (tpu.mesh): the
 * module's Shardy mesh, else the first argument tiled in device order
 * over two or three mesh axes (its tile counts, then its replication). */
static void record_mesh(Spmd *s, const Op *func) {
  int64_t axes[SHARDING_MAX_RANK + 2];
  int n = 0;
  for (const Op *op = op_body(s->m->op)->first; op && !n; op = op->next) {
    const Attr *mesh = op->kind == OP_SDY_MESH ? op_attr(op, "mesh") : NULL;
    if (mesh) n = sdy_mesh_axes(attr_to_string(s->c, mesh), axes);
  }
  const Attr *list = func ? op_attr(func, "arg_attrs") : NULL;
  for (int i = 0; !n && list && list->kind == ATTR_ARRAY && i < list->u.array.n; i++) {
    const Sharding *l = spmd_func_sharding(s, func, 0, i);
    if (!l || l->kind != SHARDING_TILED || l->ndevices != s->n) continue;
    bool iota = true;
    for (int64_t j = 0; j < l->ndevices; j++) iota = iota && l->devices[j] == j;
    int m = 0;
    for (int d = 0; d < l->rank; d++)
      if (l->tiles[d] > 1) axes[m++] = l->tiles[d];
    if (l->replicas > 1) axes[m++] = l->replicas;
    if (iota && m >= 2 && m <= 3) n = m;
  }
  int64_t product = 1;
  for (int i = 0; i < n; i++) product *= axes[i];
  if (n >= 2 && n <= 3 && product == s->n)
    op_set_attr(s->c, s->m->op, "tpu.mesh", attr_dense_i64_array(s->c, n, axes));
}

bool pass_spmd_partition(PassContext *pc) {
  if (!spmd_wanted(pc->m)) return true;
  Spmd s = spmd_begin(pc);
  bool ok = true;
  const Op *first = NULL;
  for (Op *op = op_body(pc->m->op)->first; op && ok; op = op->next)
    if (op->kind == OP_FUNC && !spmd_is_private(op)) {
      if (!first) first = op;
      ok = partition_func(&s, op);
    }
  if (ok && s.replicas == 1) record_mesh(&s, first);
  spmd_end(&s);
  if (ok) {
    op_set_attr(pc->c, pc->m->op, "tpu.spmd_partitioned", attr_unit(pc->c));
    pc->spmd_partitions = s.n;
  }
  return ok;
}
