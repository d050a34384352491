/* The sharding check that runs before every pipeline (passes/pass.h):
 * tpucc does not partition programs yet (the SPMD issue), so a program
 * whose shardings tile a value over several devices is refused, with the
 * first such value and the reason, instead of running the global program
 * on every chip.  Shardings that keep whole values on every device are
 * accepted: GSPMD `{replicated}`, `{maximal device=N}`, `{manual}`, tilings
 * of one device per data dimension (`{devices=[1,1]<=[1]}`, or with the
 * devices all in replication dims), tuples of these; Shardy shardings whose
 * dimensions use no mesh axis of size > 1.  The annotation custom calls
 * (ir/annotations.def) must be identities of one operand's type, and the
 * SPMD-only ones need a single partition. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/pass.h"
#include "passes/walk.h"

enum { MAX_TILE_DIMS = 32, REASON_LEN = 256 };

/* ------------------------------------------------------------------ */
/* GSPMD strings: "{devices=[2,1]<=[2]}" and friends. */

typedef struct Scan {
  const char *p;
  char *why; /* REASON_LEN bytes: what is malformed */
} Scan;

static void sc_space(Scan *s) {
  while (*s->p == ' ') s->p++;
}

static bool sc_lit(Scan *s, const char *lit) {
  sc_space(s);
  size_t n = strlen(lit);
  if (strncmp(s->p, lit, n) != 0) return false;
  s->p += n;
  return true;
}

static bool sc_fail(Scan *s, const char *what) {
  if (!s->why[0]) snprintf(s->why, REASON_LEN, "%s at '%.20s'", what, s->p);
  return false;
}

static bool sc_int(Scan *s, int64_t *v) {
  sc_space(s);
  if (!isdigit((unsigned char)*s->p)) return sc_fail(s, "expected a number");
  int64_t x = 0;
  for (; isdigit((unsigned char)*s->p); s->p++) {
    if (x > (INT64_MAX - 9) / 10) return sc_fail(s, "number too large");
    x = x * 10 + (*s->p - '0');
  }
  *v = x;
  return true;
}

/* "[a,b,...]" (open and close given); *n elements, at most MAX_TILE_DIMS. */
static bool sc_int_list(Scan *s, const char *open, const char *close, int64_t *v, int *n) {
  *n = 0;
  if (!sc_lit(s, open)) return sc_fail(s, "expected a list");
  if (sc_lit(s, close)) return true;
  do {
    if (*n == MAX_TILE_DIMS) return sc_fail(s, "too many dimensions");
    if (!sc_int(s, &v[(*n)++])) return false;
  } while (sc_lit(s, ","));
  return sc_lit(s, close) || sc_fail(s, "expected ',' or the end of the list");
}

/* Skips a balanced "{...}" (metadata). */
static bool sc_skip_braces(Scan *s) {
  int depth = 0;
  for (; *s->p; s->p++) {
    if (*s->p == '{') depth++;
    if (*s->p == '}' && --depth == 0) {
      s->p++;
      return true;
    }
  }
  return sc_fail(s, "unbalanced braces");
}

/* The options after a sharding's kind, up to its '}': the number of
 * trailing replication / subgroup dims in *nsub. */
static bool sc_options(Scan *s, int *nsub) {
  while (!sc_lit(s, "}")) {
    int64_t ignored;
    if (sc_lit(s, "last_tile_dim_replicate")) {
      *nsub = 1;
    } else if (sc_lit(s, "last_tile_dims={")) {
      *nsub = 0;
      while (!sc_lit(s, "}")) {
        if (!(sc_lit(s, "manual") || sc_lit(s, "replicated") || sc_lit(s, "maximal")))
          return sc_fail(s, "expected manual or replicated in last_tile_dims");
        ++*nsub;
        sc_lit(s, ",");
      }
    } else if (sc_lit(s, "metadata=")) {
      sc_space(s);
      if (!sc_skip_braces(s)) return false;
    } else if (sc_lit(s, "shard_as") || sc_lit(s, "shard_like")) {
      if (!sc_int(s, &ignored)) return false;
    } else {
      return sc_fail(s, *s->p ? "unexpected text" : "missing '}'");
    }
  }
  return true;
}

/* The devices of a tiled sharding after "devices=[dims]": "<=[n..]" with
 * an optional "T(perm)", or an explicit list; false if their count is not
 * the product of the tile dims. */
static bool sc_device_list(Scan *s, int64_t product) {
  int64_t v[MAX_TILE_DIMS], count = 1;
  int n;
  if (sc_lit(s, "<=")) {
    if (!sc_int_list(s, "[", "]", v, &n)) return false;
    for (int i = 0; i < n; i++) count = v[i] > 0 && count <= INT64_MAX / v[i] ? count * v[i] : -1;
    if (sc_lit(s, "T") && !sc_int_list(s, "(", ")", v, &n)) return false;
  } else {
    int64_t id;
    count = 0;
    do {
      if (!sc_int(s, &id)) return false;
      count++;
    } while (sc_lit(s, ","));
  }
  if (count == product) return true;
  snprintf(s->why, REASON_LEN, "the tile dims ask for %lld devices but %lld are listed", (long long)product,
           (long long)count);
  return false;
}

/* One sharding "{...}" (a tuple's elements included); *tiles: the largest
 * number of pieces any value is cut into (1: kept whole everywhere). */
static bool sc_sharding(Scan *s, int64_t *tiles, int depth) {
  if (!sc_lit(s, "{")) return sc_fail(s, "expected '{'");
  sc_space(s);
  if (*s->p == '{' || *s->p == '}') { /* a tuple */
    if (depth > 8) return sc_fail(s, "tuple shardings nested too deeply");
    if (sc_lit(s, "}")) return true;
    do {
      if (!sc_sharding(s, tiles, depth + 1)) return false;
    } while (sc_lit(s, ","));
    return sc_lit(s, "}") || sc_fail(s, "expected ',' or '}' in a tuple sharding");
  }
  int nsub = 0;
  if (sc_lit(s, "replicated") || sc_lit(s, "manual") || sc_lit(s, "unknown")) return sc_options(s, &nsub);
  int64_t dev;
  if (sc_lit(s, "maximal")) {
    if (!sc_lit(s, "device=") || !sc_int(s, &dev)) return sc_fail(s, "expected device=N");
    return sc_options(s, &nsub);
  }
  if (!sc_lit(s, "devices=")) return sc_fail(s, "expected replicated, maximal, manual or devices=");
  int64_t dims[MAX_TILE_DIMS], product = 1;
  int n;
  if (!sc_int_list(s, "[", "]", dims, &n)) return false;
  for (int i = 0; i < n; i++) {
    if (dims[i] < 1 || product > INT64_MAX / dims[i]) return sc_fail(s, "bad tile dimension");
    product *= dims[i];
  }
  if (!sc_device_list(s, product) || !sc_options(s, &nsub)) return false;
  if (nsub > n) return sc_fail(s, "more replication dims than tile dims");
  int64_t data = 1;
  for (int i = 0; i < n - nsub; i++) data *= dims[i];
  if (data > *tiles) *tiles = data;
  return true;
}

/* Parses a GSPMD sharding string; false with why filled when malformed. */
static bool gspmd_tiles(const char *str, int64_t *tiles, char *why) {
  Scan s = {str, why};
  why[0] = 0;
  *tiles = 1;
  if (!sc_sharding(&s, tiles, 0)) return false;
  sc_space(&s);
  return !*s.p || sc_fail(&s, "trailing text");
}

/* ------------------------------------------------------------------ */
/* Shardy: #sdy.sharding<@mesh, [{"x"}, {}]> and #sdy.sharding_per_value. */

typedef struct Checker {
  Context *c;
  int64_t partitions;  /* mhlo.num_partitions, 1 when absent */
  int nmeshes;
  const char **mesh_names, **mesh_texts; /* sdy.mesh symbol -> its attribute text */
  bool failed;         /* one refusal is enough */
} Checker;

/* The size of axis "name" (len bytes) in the mesh text; -1 if absent. */
static int64_t mesh_axis_size(const char *mesh, const char *name, size_t len) {
  for (const char *q = mesh; (q = strchr(q, '"')); q++) {
    if (strncmp(q + 1, name, len) == 0 && q[len + 1] == '"' && q[len + 2] == '=') return strtoll(q + len + 3, NULL, 10);
    q = strchr(q + 1, '"');
    if (!q) break;
  }
  return -1;
}

/* The mesh a sharding names at p ("@name" or an inline "mesh<...>"). */
static const char *sdy_mesh_of(const Checker *k, const char *p) {
  while (*p == ' ' || *p == '<' || *p == '[') p++;
  if (*p != '@') return p; /* inline: the text itself holds the axes */
  size_t len = strcspn(p + 1, ", >");
  for (int i = 0; i < k->nmeshes; i++)
    if (strlen(k->mesh_names[i]) == len && strncmp(k->mesh_names[i], p + 1, len) == 0) return k->mesh_texts[i];
  return NULL;
}

/* Checks one "<mesh, [dims...] ...>" at p, up to its dims list's end:
 * tiled when a dimension uses an axis of size > 1. */
static bool sdy_one(const Checker *k, const char *p, const char **end, char *why) {
  const char *mesh = sdy_mesh_of(k, p);
  if (!mesh) {
    snprintf(why, REASON_LEN, "names a mesh with no sdy.mesh: '%.40s'", p);
    return false;
  }
  const char *dims = strstr(p, ", [");
  if (!dims) {
    snprintf(why, REASON_LEN, "has no dimension shardings: '%.40s'", p);
    return false;
  }
  int dim = -1, depth = 0;
  for (p = dims + 2; *p; p++) {
    if (*p == '{' && depth++ == 0) dim++;
    if (*p == '}') depth--;
    if (*p == ']' && depth == 0) break;
    if (*p != '"' || depth == 0) continue;
    size_t len = strcspn(p + 1, "\"");
    if (p[len + 1] != '"') {
      snprintf(why, REASON_LEN, "has an unterminated axis name");
      return false;
    }
    const char *sub = p[len + 2] == ':' ? strchr(p + len + 2, ')') : NULL; /* "x":(1)2 */
    int64_t size = sub ? strtoll(sub + 1, NULL, 10) : mesh_axis_size(mesh, p + 1, len);
    if (size < 0) {
      snprintf(why, REASON_LEN, "uses axis \"%.*s\", which its mesh does not have", (int)len, p + 1);
      return false;
    }
    if (size > 1) {
      snprintf(why, REASON_LEN, "shards dimension %d over mesh axis \"%.*s\" of size %lld", dim, (int)len, p + 1,
               (long long)size);
      *end = NULL;
      return true;
    }
    p += len + 1;
  }
  *end = p;
  return true;
}

/* Every sharding in the text of a #sdy attribute; false when malformed
 * (why says how); *tiled and why when one tiles a dimension. */
static bool sdy_tiles(const Checker *k, const char *text, bool *tiled, char *why) {
  why[0] = 0;
  *tiled = false;
  bool per_value = strncmp(text, "#sdy.sharding_per_value<", 24) == 0;
  const char *p = per_value || strncmp(text, "#sdy.sharding<", 14) == 0 ? strchr(text, '<') : NULL;
  if (!p) {
    snprintf(why, REASON_LEN, "is not a Shardy sharding (#sdy.sharding<...> or #sdy.sharding_per_value<...>)");
    return false;
  }
  for (p = per_value ? strchr(p + 1, '<') : p; p; p = strchr(p, '<')) {
    const char *end;
    if (!sdy_one(k, p + 1, &end, why)) return false;
    if (!end) return *tiled = true;
    if (!per_value) break;
    p = end;
  }
  return true;
}

/* ------------------------------------------------------------------ */
/* The walk */

/* Refuses the value `what` of op (its sharding attr `name`, shown as
 * text) with reason why, or as malformed. */
static void refuse(Checker *k, const Op *op, const char *what, const char *name, const char *text, bool malformed,
                   const char *why) {
  k->failed = true;
  if (malformed)
    op_error(k->c, op, "malformed %s on %s: %s: %s", name, what, text, why);
  else
    op_error(k->c, op, "sharded value %s (%s = %s) %s; it needs SPMD partitioning, which tpucc does not do yet",
             what, name, text, why);
}

/* Checks one attribute named name of a value (described by what). */
static void check_attr(Checker *k, const Op *op, const char *what, const char *name, const Attr *a) {
  char why[REASON_LEN];
  bool sdy = strcmp(name, "sdy.sharding") == 0 ||
             (strcmp(name, "sharding") == 0 && op->kind == OP_SDY_SHARDING_CONSTRAINT);
  if (strcmp(name, "mhlo.sharding") != 0 && !sdy) return;
  const char *text = attr_to_string(k->c, a);
  if (sdy) {
    bool tiled;
    if (!sdy_tiles(k, text, &tiled, why)) refuse(k, op, what, name, text, true, why);
    else if (tiled) refuse(k, op, what, name, text, false, why);
    return;
  }
  int64_t tiles;
  if (a->kind != ATTR_STRING) {
    refuse(k, op, what, name, text, true, "not a string");
  } else if (!gspmd_tiles(a->u.str.s, &tiles, why)) {
    refuse(k, op, what, name, text, true, why);
  }
}

static void check_dict(Checker *k, const Op *op, const char *what, const Attr *d) {
  if (!d || d->kind != ATTR_DICT) return;
  for (int i = 0; i < d->u.dict.n && !k->failed; i++)
    check_attr(k, op, what, d->u.dict.items[i].name, d->u.dict.items[i].value);
}

/* The annotation custom calls: identities of one value, SPMD-only ones on
 * one partition. */
static void check_annotation(Checker *k, const Op *op, const Annotation *an) {
  if (op->noperands != 1 || op->nresults != 1) {
    op_error(k->c, op, "custom_call @%s is an identity: it takes one operand and has one result, not %d and %d",
             an->target, op->noperands, op->nresults);
  } else if (!an->spmd_only && op->operands[0]->type != op->results[0].type) {
    op_error(k->c, op, "custom_call @%s is an identity on %s: its result type '%s' must be its operand type '%s'",
             an->target, an->spmd_only ? "one partition" : "any partition count",
             type_to_string(k->c, op->results[0].type), type_to_string(k->c, op->operands[0]->type));
  } else {
    return;
  }
  k->failed = true;
}

static void check_block(Checker *k, const Block *b) {
  for (const Op *op = b->first; op && !k->failed; op = op->next) {
    const Annotation *an = custom_call_annotation(op);
    if (an) check_annotation(k, op, an);
    char what[96];
    const char *hint = op->nresults ? op->results[0].name_hint : NULL;
    if (hint) snprintf(what, sizeof what, "%s%s", hint[0] == '%' ? "" : "%", hint);
    else snprintf(what, sizeof what, "the result of '%s'", op->name);
    for (int i = 0; i < op->nattrs && !k->failed; i++) check_attr(k, op, what, op->attrs[i].name, op->attrs[i].value);
    for (int r = 0; r < op->nregions && !k->failed; r++)
      for (int j = 0; j < op->regions[r].nblocks; j++) check_block(k, op->regions[r].blocks[j]);
  }
}

/* Arguments and results of a function. */
static void check_func(Checker *k, const Op *f) {
  const char *keys[] = {"arg_attrs", "res_attrs"};
  for (int side = 0; side < 2 && !k->failed; side++) {
    const Attr *list = op_attr(f, keys[side]);
    for (int i = 0; list && list->kind == ATTR_ARRAY && i < list->u.array.n && !k->failed; i++) {
      char what[160];
      if (side == 0) snprintf(what, sizeof what, "%%arg%d of @%s", i, op_symbol_name(f));
      else snprintf(what, sizeof what, "result #%d of @%s", i, op_symbol_name(f));
      check_dict(k, f, what, list->u.array.items[i]);
    }
  }
}

bool sharding_check(Context *c, Module *m) {
  Checker k = {.c = c, .partitions = 1};
  attr_as_int(op_attr(m->op, "mhlo.num_partitions"), &k.partitions);
  Block *body = op_body(m->op);
  for (const Op *op = body ? body->first : NULL; op; op = op->next)
    if (op->kind == OP_SDY_MESH) k.nmeshes++;
  k.mesh_names = arena_alloc(&c->arena, sizeof(char *) * (size_t)(k.nmeshes + 1));
  k.mesh_texts = arena_alloc(&c->arena, sizeof(char *) * (size_t)(k.nmeshes + 1));
  int n = 0;
  for (const Op *op = body ? body->first : NULL; op; op = op->next) {
    if (op->kind != OP_SDY_MESH) continue;
    const Attr *mesh = op_attr(op, "mesh");
    k.mesh_names[n] = op_symbol_name(op) ? op_symbol_name(op) : "";
    k.mesh_texts[n++] = mesh ? attr_to_string(c, mesh) : "";
  }
  for (const Op *op = body ? body->first : NULL; op && !k.failed; op = op->next) {
    if (op->kind != OP_FUNC) continue;
    check_func(&k, op);
    if (op_body(op) && !k.failed) check_block(&k, op_body(op));
  }
  return !k.failed;
}
