/* Shardy's shardings read into the tile-assignment form of ir/sharding.h.
 *
 *   sdy.mesh @mesh = <["x"=2, "y"=4], device_ids=[...]>
 *   #sdy.sharding<@mesh, [{"x"}, {"y":(1)2, ?}p0, {}], replicated={"w"}, unreduced={..}>
 *   #sdy.sharding_per_value<[<@mesh, [...]>, ...]>
 *
 * Each mesh axis is cut into pieces at the boundaries its sub-axes name
 * ("x":(pre)size covers the part of x from pre to pre*size, major first);
 * the mesh's devices (iota or device_ids), reshaped to the pieces, are
 * transposed to [pieces of dim 0, of dim 1, ..., the unused pieces] and
 * flattened: tiles[d] is the product of dim d's pieces and the unused
 * pieces (replicated, unreduced or unnamed axes) count the replicas. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/sharding.h"

enum {
  SDY_MAX_AXES = 32,  /* axes of one mesh */
  SDY_MAX_REFS = 64,  /* axis references of one sharding */
  SDY_MAX_PIECES = 64 /* pieces the sub-axes cut a mesh into */
};

enum { GROUP_REPLICATED = -1, GROUP_UNREDUCED = -2, UNUSED = -100 };

typedef struct SdyMesh {
  int naxes;
  const char *names[SDY_MAX_AXES];
  int lens[SDY_MAX_AXES];
  int64_t sizes[SDY_MAX_AXES];
  int64_t ndevices;   /* product of the sizes */
  const int64_t *ids; /* device_ids, NULL for iota */
  int nids;
} SdyMesh;

typedef struct SdyRef {
  int group; /* the dim, or GROUP_REPLICATED / GROUP_UNREDUCED */
  int axis;  /* index in the mesh */
  const char *name;
  int len;
  bool sub;
  int64_t pre, size; /* sub-axis "x":(pre)size */
} SdyRef;

typedef struct SdyOne {
  SdyMesh mesh;
  int rank;
  int nrefs;
  SdyRef refs[SDY_MAX_REFS];
} SdyOne;

typedef struct Sc {
  Arena *a;
  const Module *m;
  const char *p;
  char *why;
} Sc;

static void sp(Sc *s) {
  while (*s->p == ' ' || *s->p == '\n' || *s->p == '\t' || *s->p == '\r') s->p++;
}

static bool lit(Sc *s, const char *l) {
  sp(s);
  size_t n = strlen(l);
  if (strncmp(s->p, l, n) != 0) return false;
  s->p += n;
  return true;
}

/* Records the first reason (printf-style); always false. */
static bool failf(Sc *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool failf(Sc *s, const char *fmt, ...) {
  if (s->why[0]) return false;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->why, SHARDING_WHY_LEN, fmt, ap);
  va_end(ap);
  return false;
}

/* "expected X at '<text>'" */
static bool expect(Sc *s, const char *l, const char *what) {
  if (lit(s, l)) return true;
  return failf(s, "expected %s at '%.24s'", what, s->p);
}

static bool num(Sc *s, int64_t *v) {
  sp(s);
  if (*s->p < '0' || *s->p > '9') return failf(s, "expected a number at '%.24s'", s->p);
  int64_t x = 0;
  for (; *s->p >= '0' && *s->p <= '9'; s->p++) {
    if (x > (INT64_MAX - 9) / 10) return failf(s, "number too large at '%.24s'", s->p);
    x = x * 10 + (*s->p - '0');
  }
  *v = x;
  return true;
}

/* A quoted axis name; *name points into the text. */
static bool axis_name(Sc *s, const char **name, int *len) {
  sp(s);
  if (*s->p != '"') return failf(s, "expected a quoted axis name at '%.24s'", s->p);
  const char *q = s->p + 1, *end = strchr(q, '"');
  if (!end) return failf(s, "unterminated axis name at '%.24s'", s->p);
  if (end == q) return failf(s, "empty axis name");
  if (end - q > 128) return failf(s, "axis name too long");
  *name = q;
  *len = (int)(end - q);
  s->p = end + 1;
  return true;
}

static int mesh_axis(const SdyMesh *m, const char *name, int len) {
  for (int i = 0; i < m->naxes; i++)
    if (m->lens[i] == len && memcmp(m->names[i], name, (size_t)len) == 0) return i;
  return -1;
}

/* "device_ids=[..]" of a mesh: a permutation of its devices, or one id for
 * a maximal mesh (no axes). */
static bool mesh_ids(Sc *s, SdyMesh *m) {
  int64_t *ids = arena_alloc(s->a, sizeof(int64_t) * SHARDING_MAX_DEVICES);
  int n = 0;
  if (!expect(s, "=", "'=' after device_ids") || !expect(s, "[", "'[' of device_ids")) return false;
  if (!lit(s, "]")) {
    do {
      if (n == SHARDING_MAX_DEVICES) return failf(s, "too many device ids");
      if (!num(s, &ids[n++])) return false;
    } while (lit(s, ","));
    if (!expect(s, "]", "',' or ']' in device_ids")) return false;
  }
  m->ids = ids;
  m->nids = n;
  if (m->naxes == 0) {
    if (n > 1) return failf(s, "a mesh without axes has one device id, not %d", n);
    return true;
  }
  if (n != m->ndevices)
    return failf(s, "the mesh has %lld devices but device_ids lists %d", (long long)m->ndevices, n);
  bool *seen = arena_alloc(s->a, (size_t)n);
  for (int i = 0; i < n; i++) {
    if (ids[i] >= n) return failf(s, "device_ids names device %lld of a mesh of %d devices", (long long)ids[i], n);
    if (seen[ids[i]]) return failf(s, "device_ids lists device %lld twice", (long long)ids[i]);
    seen[ids[i]] = true;
  }
  return true;
}

/* A mesh body from its '<' to its '>': ["x"=2, ...] and device_ids. */
static bool parse_mesh(Sc *s, SdyMesh *m) {
  memset(m, 0, sizeof *m);
  m->ndevices = 1;
  if (!expect(s, "<", "'<' of a mesh") || !expect(s, "[", "'[' of the mesh axes")) return false;
  if (!lit(s, "]")) {
    do {
      if (m->naxes == SDY_MAX_AXES) return failf(s, "a mesh of more than %d axes", SDY_MAX_AXES);
      const char *name;
      int len;
      int64_t size;
      if (!axis_name(s, &name, &len) || !expect(s, "=", "'=' after an axis name") || !num(s, &size)) return false;
      if (size < 1) return failf(s, "mesh axis \"%.*s\" has size 0", len, name);
      if (mesh_axis(m, name, len) >= 0) return failf(s, "mesh axis \"%.*s\" is named twice", len, name);
      if (m->ndevices > SHARDING_MAX_DEVICES / size)
        return failf(s, "a mesh of more than %d devices", SHARDING_MAX_DEVICES);
      m->names[m->naxes] = name;
      m->lens[m->naxes] = len;
      m->sizes[m->naxes++] = size;
      m->ndevices *= size;
    } while (lit(s, ","));
    if (!expect(s, "]", "',' or ']' in the mesh axes")) return false;
  }
  if (lit(s, ",") && (!expect(s, "device_ids", "device_ids") || !mesh_ids(s, m))) return false;
  return expect(s, ">", "'>' closing the mesh");
}

/* The mesh of the module's sdy.mesh @name (len bytes). */
static bool lookup_mesh(Sc *s, const char *name, int len, SdyMesh *m) {
  Block *body = s->m && s->m->op ? op_body(s->m->op) : NULL;
  for (const Op *op = body ? body->first : NULL; op; op = op->next) {
    const char *sym = op->kind == OP_SDY_MESH ? op_symbol_name(op) : NULL;
    if (!sym || strlen(sym) != (size_t)len || memcmp(sym, name, (size_t)len) != 0) continue;
    const Attr *a = op_attr(op, "mesh");
    if (!a || a->kind != ATTR_OPAQUE || strncmp(a->u.str.s, "#sdy.mesh<", 10) != 0)
      return failf(s, "sdy.mesh @%.*s has no #sdy.mesh attribute", len, name);
    Sc inner = {s->a, s->m, a->u.str.s + 9, s->why};
    if (parse_mesh(&inner, m)) return true;
    char why[SHARDING_WHY_LEN];
    snprintf(why, sizeof why, "%s", s->why);
    s->why[0] = 0;
    return failf(s, "sdy.mesh @%.*s: %s", len, name, why);
  }
  return failf(s, "unknown mesh @%.*s (no sdy.mesh of that name)", len, name);
}

/* One axis reference "x" or "x":(pre)size into group. */
static bool axis_ref(Sc *s, SdyOne *o, int group) {
  if (o->nrefs == SDY_MAX_REFS) return failf(s, "too many axis references");
  SdyRef *r = &o->refs[o->nrefs];
  memset(r, 0, sizeof *r);
  r->group = group;
  if (!axis_name(s, &r->name, &r->len)) return false;
  r->axis = mesh_axis(&o->mesh, r->name, r->len);
  if (r->axis < 0) return failf(s, "unknown axis \"%.*s\" (not in the mesh)", r->len, r->name);
  int64_t n = o->mesh.sizes[r->axis];
  r->pre = 1;
  r->size = n;
  if (*s->p == ':') {
    s->p++;
    r->sub = true;
    if (!expect(s, "(", "'(' of a sub-axis") || !num(s, &r->pre) || !expect(s, ")", "')' of a sub-axis") ||
        !num(s, &r->size))
      return false;
    if (r->pre < 1 || r->size < 1 || r->pre > n || n % r->pre || (n / r->pre) % r->size)
      return failf(s, "sub-axis \"%.*s\":(%lld)%lld does not divide axis \"%.*s\" of size %lld", r->len, r->name,
                   (long long)r->pre, (long long)r->size, r->len, r->name, (long long)n);
  }
  o->nrefs++;
  return true;
}

/* "{"x", ?}p1": one dimension's axes (open and priority ignored). */
static bool dim_sharding(Sc *s, SdyOne *o, int group) {
  if (!expect(s, "{", "'{' of a dimension sharding")) return false;
  if (!lit(s, "}")) {
    do {
      if (lit(s, "?")) break;
      if (!axis_ref(s, o, group)) return false;
    } while (lit(s, ","));
    if (!expect(s, "}", "',' or '}' in a dimension sharding")) return false;
  }
  int64_t prio;
  if (*s->p == 'p' && !(s->p++, num(s, &prio))) return false;
  return true;
}

/* "{"x", "y"}" of replicated= or unreduced=. */
static bool axis_set(Sc *s, SdyOne *o, int group) {
  if (!expect(s, "{", "'{' of an axis list")) return false;
  if (lit(s, "}")) return true;
  do {
    if (!axis_ref(s, o, group)) return false;
  } while (lit(s, ","));
  return expect(s, "}", "',' or '}' in an axis list");
}

/* The mesh reference: @name or an inline mesh<...>. */
static bool mesh_ref(Sc *s, SdyMesh *m) {
  sp(s);
  if (*s->p == '@') {
    const char *name = ++s->p;
    while (*s->p && !strchr(" ,<>[]{}\"", *s->p)) s->p++;
    if (s->p == name) return failf(s, "expected a mesh name after '@'");
    return lookup_mesh(s, name, (int)(s->p - name), m);
  }
  if (lit(s, "mesh")) return parse_mesh(s, m);
  return failf(s, "expected @mesh or mesh<...> at '%.24s'", s->p);
}

/* One "<mesh, [dims], replicated={..}, unreduced={..}>". */
static bool parse_one(Sc *s, SdyOne *o) {
  memset(o, 0, sizeof *o);
  if (!expect(s, "<", "'<' of a sharding") || !mesh_ref(s, &o->mesh)) return false;
  if (!expect(s, ",", "',' after the mesh") || !expect(s, "[", "'[' of the dimension shardings")) return false;
  if (!lit(s, "]")) {
    do {
      if (o->rank == SHARDING_MAX_RANK) return failf(s, "more than %d dimensions", SHARDING_MAX_RANK);
      if (!dim_sharding(s, o, o->rank++)) return false;
    } while (lit(s, ","));
    if (!expect(s, "]", "',' or ']' in the dimension shardings")) return false;
  }
  while (lit(s, ",")) {
    if (lit(s, "replicated")) {
      if (!expect(s, "=", "'=' after replicated") || !axis_set(s, o, GROUP_REPLICATED)) return false;
    } else if (lit(s, "unreduced")) {
      if (!expect(s, "=", "'=' after unreduced") || !axis_set(s, o, GROUP_UNREDUCED)) return false;
    } else {
      return failf(s, "expected replicated= or unreduced= at '%.24s'", s->p);
    }
  }
  return expect(s, ">", "'>' closing the sharding");
}

/* Cuts each axis at the boundaries of its sub-axes: bounds[a][0..nb[a]]
 * from 1 to the axis size; false when two sub-axes do not nest. */
static bool cut_axes(Sc *s, const SdyOne *o, int64_t (*bounds)[SDY_MAX_PIECES + 1], int *nb) {
  for (int a = 0; a < o->mesh.naxes; a++) {
    int64_t *b = bounds[a], n = o->mesh.sizes[a];
    int k = 0;
    b[k++] = 1;
    if (n > 1) b[k++] = n;
    for (int i = 0; i < o->nrefs; i++) {
      const SdyRef *r = &o->refs[i];
      if (r->axis != a || !r->sub) continue;
      int64_t cuts[2] = {r->pre, r->pre * r->size};
      for (int c = 0; c < 2; c++) {
        int j = 0;
        while (j < k && b[j] < cuts[c]) j++;
        if (j < k && b[j] == cuts[c]) continue;
        if (k > SDY_MAX_PIECES) return failf(s, "too many sub-axes of \"%.*s\"", r->len, r->name);
        memmove(b + j + 1, b + j, sizeof(int64_t) * (size_t)(k - j));
        b[j] = cuts[c];
        k++;
      }
    }
    for (int j = 1; j < k; j++)
      if (b[j] % b[j - 1])
        return failf(s, "the sub-axes of \"%.*s\" overlap without nesting (%lld and %lld)", o->mesh.lens[a],
                     o->mesh.names[a], (long long)b[j - 1], (long long)b[j]);
    nb[a] = k - 1; /* pieces */
  }
  return true;
}

/* Index of boundary v in b[0..n]. */
static int bound_index(const int64_t *b, int n, int64_t v) {
  for (int j = 0; j <= n; j++)
    if (b[j] == v) return j;
  return -1;
}

/* Builds the tile assignment of o (see the file comment). */
static bool to_tiles(Sc *s, const SdyOne *o, Sharding *out) {
  int64_t(*bounds)[SDY_MAX_PIECES + 1] = arena_alloc(s->a, sizeof(int64_t) * SDY_MAX_AXES * (SDY_MAX_PIECES + 1));
  int nb[SDY_MAX_AXES], first[SDY_MAX_AXES + 1], npieces = 0;
  if (!cut_axes(s, o, bounds, nb)) return false;
  for (int a = 0; a < o->mesh.naxes; a++) {
    first[a] = npieces;
    npieces += nb[a];
    if (npieces > SDY_MAX_PIECES) return failf(s, "too many sub-axes");
  }
  int64_t psize[SDY_MAX_PIECES];
  int owner[SDY_MAX_PIECES]; /* group of the ref using each piece; UNUSED */
  for (int a = 0; a < o->mesh.naxes; a++)
    for (int j = 0; j < nb[a]; j++) {
      psize[first[a] + j] = bounds[a][j + 1] / bounds[a][j];
      owner[first[a] + j] = UNUSED;
    }
  int order[SDY_MAX_PIECES], norder = 0;
  int64_t tiles[SHARDING_MAX_RANK];
  for (int d = 0; d < o->rank; d++) tiles[d] = 1;
  for (int pass = 0; pass < 2; pass++) /* pass 0: dims in order; pass 1: replicated and unreduced */
    for (int g = 0; g < (pass ? 1 : o->rank); g++)
      for (int i = 0; i < o->nrefs; i++) {
        const SdyRef *r = &o->refs[i];
        if (pass ? r->group >= 0 : r->group != g) continue;
        const int64_t *b = bounds[r->axis];
        int j0 = bound_index(b, nb[r->axis], r->pre), j1 = bound_index(b, nb[r->axis], r->pre * r->size);
        if (r->size == 1) j0 = j1 = 0; /* an axis of size 1: no piece */
        for (int j = j0; j < j1; j++) {
          int pc = first[r->axis] + j;
          if (owner[pc] != UNUSED)
            return failf(s, "axis \"%.*s\" is used twice%s", r->len, r->name, r->sub ? " (overlapping sub-axes)" : "");
          owner[pc] = r->group;
          if (!pass) {
            order[norder++] = pc;
            tiles[g] *= psize[pc];
          }
        }
      }
  int64_t replicas = 1;
  for (int pc = 0; pc < npieces; pc++)
    if (owner[pc] < 0) { /* replicated, unreduced or unnamed */
      order[norder++] = pc;
      replicas *= psize[pc];
    }
  /* The devices, row-major over the pieces, transposed to order. */
  int64_t n = o->mesh.ndevices, stride[SDY_MAX_PIECES], idx[SDY_MAX_PIECES] = {0};
  for (int pc = npieces - 1, st = 1; pc >= 0; pc--) {
    stride[pc] = st;
    st *= (int)psize[pc];
  }
  int64_t *devs = arena_alloc(s->a, sizeof(int64_t) * (size_t)n);
  for (int64_t i = 0; i < n; i++) {
    int64_t src = 0;
    for (int k = 0; k < norder; k++) src += idx[k] * stride[order[k]];
    devs[i] = o->mesh.ids ? o->mesh.ids[src] : src;
    for (int k = norder - 1; k >= 0 && ++idx[k] == psize[order[k]]; k--) idx[k] = 0;
  }
  memset(out, 0, sizeof *out);
  out->kind = SHARDING_TILED;
  out->rank = o->rank;
  out->tiles = arena_dup(s->a, tiles, sizeof(int64_t) * (size_t)(o->rank ? o->rank : 1));
  out->replicas = replicas;
  out->ndevices = n;
  out->devices = devs;
  if (replicas == n) {
    memset(out, 0, sizeof *out);
    out->kind = SHARDING_REPLICATED;
    out->rank = o->rank; /* kept so a rank mismatch can still be told */
  }
  return true;
}

/* One sharding into out: MAXIMAL for a mesh of one explicit device and no
 * axes, REPLICATED when no dimension is cut, else TILED. */
static bool one_sharding(Sc *s, Sharding *out) {
  SdyOne *o = arena_alloc(s->a, sizeof *o);
  if (!parse_one(s, o)) return false;
  if (o->mesh.naxes == 0 && o->mesh.nids == 1) {
    memset(out, 0, sizeof *out);
    out->kind = SHARDING_MAXIMAL;
    out->device = o->mesh.ids[0];
    out->rank = o->rank;
    return true;
  }
  return to_tiles(s, o, out);
}

/* "[<..>, <..>]" of sharding_per_value: a TUPLE. */
static bool per_value(Sc *s, Sharding *out) {
  enum { MAX_VALUES = 1024 };
  Sharding *elems = arena_alloc(s->a, sizeof(Sharding) * MAX_VALUES);
  int n = 0;
  if (!expect(s, "[", "'[' of the per-value shardings")) return false;
  if (!lit(s, "]")) {
    do {
      if (n == MAX_VALUES) return failf(s, "more than %d values", MAX_VALUES);
      if (!one_sharding(s, &elems[n++])) return false;
    } while (lit(s, ","));
    if (!expect(s, "]", "',' or ']' in the per-value shardings")) return false;
  }
  memset(out, 0, sizeof *out);
  out->kind = SHARDING_TUPLE;
  out->nelems = n;
  out->elems = elems;
  return true;
}

bool sharding_parse_sdy(Arena *a, const Module *m, const char *text, Sharding *out, char *why) {
  Sc s = {a, m, text ? text : "", why};
  why[0] = 0;
  bool ok;
  if (lit(&s, "#sdy.sharding_per_value")) ok = expect(&s, "<", "'<'") && per_value(&s, out) && expect(&s, ">", "'>'");
  else if (lit(&s, "#sdy.sharding")) ok = one_sharding(&s, out);
  else if (*s.p == '[') ok = per_value(&s, out);
  else if (*s.p == '<') ok = one_sharding(&s, out);
  else return failf(&s, "not a Shardy sharding (#sdy.sharding<...> or #sdy.sharding_per_value<...>)");
  if (!ok) return false;
  sp(&s);
  return !*s.p || failf(&s, "unexpected text after the sharding: '%.24s'", s.p);
}

/* The divisor of each dimension under the manual axes (from "{"x", ..}"
 * text); false when the text is malformed. */
static bool manual_divisors(Sc *s, const SdyOne *o, const char *manual, int64_t *div) {
  for (int d = 0; d < o->rank; d++) div[d] = 1;
  Sc ms = {s->a, s->m, manual, s->why};
  if (lit(&ms, "#sdy<manual_axes")) {
    if (!expect(&ms, "{", "'{' of manual_axes")) return false;
  } else if (!expect(&ms, "{", "'{' of manual_axes")) {
    return false;
  }
  if (lit(&ms, "}")) return true;
  do {
    const char *name;
    int len;
    if (!axis_name(&ms, &name, &len)) return false;
    if (mesh_axis(&o->mesh, name, len) < 0) return failf(s, "manual axis \"%.*s\" is not in the mesh", len, name);
    for (int i = 0; i < o->nrefs; i++) {
      const SdyRef *r = &o->refs[i];
      if (r->group >= 0 && r->len == len && memcmp(r->name, name, (size_t)len) == 0) div[r->group] *= r->size;
    }
  } while (lit(&ms, ","));
  return expect(&ms, "}", "',' or '}' in manual_axes");
}

bool sharding_sdy_manual_shape(Arena *a, const Module *m, const char *text, int index, const char *manual_axes,
                               int rank, const int64_t *dims, int64_t *out, char *why) {
  Sc s = {a, m, text ? text : "", why};
  why[0] = 0;
  bool list = lit(&s, "#sdy.sharding_per_value") ? expect(&s, "<", "'<'") && expect(&s, "[", "'['") : lit(&s, "[");
  if (s.why[0]) return false;
  SdyOne *o = arena_alloc(a, sizeof *o);
  for (int i = 0; i <= index; i++) {
    if (i && !(list && expect(&s, ",", "another sharding"))) return false;
    lit(&s, "#sdy.sharding");
    if (!parse_one(&s, o)) return false;
  }
  if (o->rank != rank) return failf(&s, "sharding #%d has %d dimensions for a value of rank %d", index, o->rank, rank);
  int64_t div[SHARDING_MAX_RANK];
  if (!manual_divisors(&s, o, manual_axes ? manual_axes : "{}", div)) return false;
  for (int d = 0; d < rank; d++) {
    if (dims[d] < 0) return failf(&s, "dimension %d is dynamic", d);
    if (dims[d] % div[d])
      return failf(&s, "dimension %d of size %lld is not a multiple of its %lld manual shards", d, (long long)dims[d],
                   (long long)div[d]);
    out[d] = dims[d] / div[d];
  }
  return true;
}

bool sharding_sdy_mesh(Arena *a, const char *text, int *naxes, int64_t *ndevices, int64_t *device, char *why) {
  Sc s = {a, NULL, text ? text : "", why};
  why[0] = 0;
  SdyMesh *m = arena_alloc(a, sizeof *m);
  if (!lit(&s, "#sdy.mesh")) return failf(&s, "not a #sdy.mesh<...>");
  if (!parse_mesh(&s, m)) return false;
  sp(&s);
  if (*s.p) return failf(&s, "unexpected text after the mesh: '%.24s'", s.p);
  *naxes = m->naxes;
  *ndevices = m->ndevices;
  *device = m->naxes == 0 && m->nids == 1 ? m->ids[0] : -1;
  return true;
}
