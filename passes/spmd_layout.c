/* The full tiled form of shardings (passes/spmd.h): normalizing, per-
 * partition coordinates, and building layouts back from coordinates, which
 * is how every dim map, transpose and fold of the SPMD passes is done. */
#include <stdlib.h>
#include <string.h>

#include "passes/spmd.h"

/* Interned layouts: equal layouts share one entry, so each one's
 * coordinates are computed once, and a pass over 100,000 ops on thousands
 * of partitions holds only the distinct layouts. */
typedef struct LayoutEntry {
  const Sharding *l;
  int64_t *coords; /* NULL until asked for */
  uint64_t hash;
} LayoutEntry;

struct LayoutTable {
  LayoutEntry *slots;
  size_t cap, count;
};

static uint64_t layout_hash(const Sharding *l) {
  uint64_t h = 1469598103934665603ull ^ (uint64_t)l->rank ^ ((uint64_t)l->replicas << 20);
  for (int d = 0; d < l->rank; d++) h = (h ^ (uint64_t)l->tiles[d]) * 1099511628211ull;
  for (int64_t i = 0; i < l->ndevices; i++) h = (h ^ (uint64_t)l->devices[i]) * 1099511628211ull;
  return h;
}

static bool layout_same(const Sharding *a, const Sharding *b) {
  return a->rank == b->rank && a->replicas == b->replicas && a->ndevices == b->ndevices &&
         memcmp(a->tiles, b->tiles, sizeof(int64_t) * (size_t)a->rank) == 0 &&
         memcmp(a->devices, b->devices, sizeof(int64_t) * (size_t)a->ndevices) == 0;
}

/* l's entry, added (with an arena copy of l when copy) if new. */
static LayoutEntry *entry_of(const Spmd *s, const Sharding *l, bool copy) {
  struct LayoutTable *t = s->layouts;
  if ((t->count + 1) * 2 > t->cap) {
    LayoutEntry *old = t->slots;
    size_t n = t->cap;
    t->cap = n ? n * 2 : 64;
    t->slots = xcalloc(t->cap, sizeof(LayoutEntry));
    for (size_t i = 0; i < n; i++) {
      if (!old[i].l) continue;
      size_t j = old[i].hash & (t->cap - 1);
      while (t->slots[j].l) j = (j + 1) & (t->cap - 1);
      t->slots[j] = old[i];
    }
    free(old);
  }
  uint64_t h = layout_hash(l);
  size_t j = h & (t->cap - 1);
  for (; t->slots[j].l; j = (j + 1) & (t->cap - 1))
    if (t->slots[j].hash == h && layout_same(t->slots[j].l, l)) return &t->slots[j];
  Sharding *keep = (Sharding *)l;
  if (copy) {
    keep = arena_alloc(&s->c->arena, sizeof *keep);
    *keep = sharding_tiled(&s->c->arena, l->rank, l->tiles, l->replicas, l->devices);
  }
  t->slots[j] = (LayoutEntry){keep, NULL, h};
  t->count++;
  return &t->slots[j];
}

/* The one copy of layout l. */
static const Sharding *intern(const Spmd *s, const Sharding *l) { return entry_of(s, l, true)->l; }

struct LayoutTable *layout_table_new(void) { return xcalloc(1, sizeof(struct LayoutTable)); }

void spmd_end(Spmd *s) {
  if (s->parsed) {
    ptr_table_free(s->parsed);
    free(s->parsed);
    s->parsed = NULL;
  }
  if (!s->layouts) return;
  free(s->layouts->slots);
  free(s->layouts);
  s->layouts = NULL;
}

const Sharding *layout_replicated(const Spmd *s, int rank) {
  int64_t tiles[SHARDING_MAX_RANK + 1], *ids = xcalloc((size_t)s->n, sizeof(int64_t));
  for (int d = 0; d < rank; d++) tiles[d] = 1;
  for (int64_t p = 0; p < s->n; p++) ids[p] = p;
  Sharding tmp = {.kind = SHARDING_TILED, .rank = rank, .tiles = tiles, .replicas = s->n, .ndevices = s->n, .devices = ids};
  const Sharding *out = intern(s, &tmp);
  free(ids);
  return out;
}

const Sharding *layout_full(const Spmd *s, const Sharding *in, int rank) {
  if (!in) return NULL;
  if (in->kind == SHARDING_REPLICATED || in->kind == SHARDING_MAXIMAL) return layout_replicated(s, rank);
  if (in->kind != SHARDING_TILED || in->partial_manual || in->ndevices != s->n || in->rank != rank) return NULL;
  return intern(s, in);
}

bool layout_is_replicated(const Sharding *l) { return sharding_is_whole(l); }

int64_t layout_pieces(const Sharding *l) {
  int64_t n = 1;
  for (int d = 0; d < l->rank; d++) n *= l->tiles[d];
  return n;
}

const int64_t *layout_coords(const Spmd *s, const Sharding *l) {
  LayoutEntry *e = entry_of(s, l, true);
  if (e->coords) return e->coords;
  int k = l->rank;
  int64_t *co = e->coords = arena_alloc(&s->c->arena, sizeof(int64_t) * (size_t)(s->n * (k + 1)));
  for (int64_t i = 0; i < l->ndevices; i++) {
    int64_t p = l->devices[i], rest = i;
    co[p * (k + 1) + k] = rest % l->replicas;
    rest /= l->replicas;
    for (int d = k - 1; d >= 0; d--) {
      co[p * (k + 1) + d] = rest % l->tiles[d];
      rest /= l->tiles[d];
    }
  }
  return co;
}

const Sharding *layout_from_coords(const Spmd *s, int k, const int64_t *tiles, const int64_t *coords) {
  int64_t pieces = 1, n = s->n;
  for (int d = 0; d < k; d++) pieces *= tiles[d];
  if (pieces < 1 || n % pieces) return NULL;
  int64_t reps = n / pieces, maxkey = 1;
  for (int64_t p = 0; p < n; p++)
    if (coords[p * (k + 1) + k] + 1 > maxkey) maxkey = coords[p * (k + 1) + k] + 1;
  /* Sort partitions by (tile, replication key, id); then each tile must
   * own exactly reps consecutive entries. */
  int64_t *key = xcalloc((size_t)n, sizeof(int64_t)), *count = xcalloc((size_t)pieces, sizeof(int64_t));
  bool ok = true;
  for (int64_t p = 0; p < n; p++) {
    int64_t lin = 0;
    for (int d = 0; d < k; d++) lin = lin * tiles[d] + coords[p * (k + 1) + d];
    count[lin]++;
    key[p] = (lin * maxkey + coords[p * (k + 1) + k]) * n + p;
  }
  for (int64_t t = 0; t < pieces; t++) ok = ok && count[t] == reps;
  const Sharding *out = NULL;
  if (ok) {
    qsort(key, (size_t)n, sizeof(int64_t), spmd_cmp_i64);
    for (int64_t i = 0; i < n; i++) key[i] %= n;
    Sharding tmp = {.kind = SHARDING_TILED, .rank = k, .tiles = tiles, .replicas = reps, .ndevices = n, .devices = key};
    out = intern(s, &tmp);
  }
  free(key);
  free(count);
  return out;
}

const Sharding *layout_map(const Spmd *s, const Sharding *l, int k, const int64_t *map) {
  const int64_t *co = layout_coords(s, l);
  int r = l->rank;
  int64_t tiles[SHARDING_MAX_RANK + 1];
  bool used[SHARDING_MAX_RANK + 1] = {0};
  for (int e = 0; e < k; e++) {
    tiles[e] = map[e] >= 0 ? l->tiles[map[e]] : 1;
    if (map[e] >= 0) used[map[e]] = true;
  }
  int64_t *nc = xcalloc((size_t)(s->n * (k + 1)), sizeof(int64_t));
  for (int64_t p = 0; p < s->n; p++) {
    const int64_t *pc = co + p * (r + 1);
    for (int e = 0; e < k; e++) nc[p * (k + 1) + e] = map[e] >= 0 ? pc[map[e]] : 0;
    int64_t rep = 0; /* the dropped dims' coordinates, then the old replica index */
    for (int d = 0; d < r; d++)
      if (!used[d]) rep = rep * l->tiles[d] + pc[d];
    nc[p * (k + 1) + k] = rep * l->replicas + pc[r];
  }
  const Sharding *out = layout_from_coords(s, k, tiles, nc);
  free(nc);
  return out;
}

const Sharding *layout_untile(const Spmd *s, const Sharding *l, int d) {
  int64_t map[SHARDING_MAX_RANK + 1];
  for (int e = 0; e < l->rank; e++) map[e] = e == d ? -1 : e;
  return layout_map(s, l, l->rank, map);
}

int64_t layout_local_dim(const Sharding *l, int d, int64_t global) {
  int64_t t = l->tiles[d];
  return t > 1 ? (global + t - 1) / t : global;
}

Type *layout_local_type(const Spmd *s, const Sharding *l, Type *global) {
  if (!type_is_tensor(global) || global->rank <= 0 || layout_is_replicated(l)) return global;
  int64_t dims[SHARDING_MAX_RANK + 1];
  for (int d = 0; d < global->rank; d++) dims[d] = layout_local_dim(l, d, global->dims[d]);
  return global->elem_opaque ? type_tensor_opaque_elem(s->c, global->elem_opaque, global->rank, dims, global->encoding)
                             : type_tensor(s->c, global->elem, global->rank, dims, global->encoding);
}
