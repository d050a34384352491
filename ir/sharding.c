/* GSPMD sharding strings (`mhlo.sharding`) read into the tile assignment of
 * ir/sharding.h, printed back canonically, compared and checked against a
 * value's type.  Shardy's attributes are read by ir/sharding_sdy.c. */
#include "ir/sharding.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_LIST = SHARDING_MAX_RANK + 4 };

typedef struct Scan {
  Arena *a;
  const char *p, *end;
  char *why; /* SHARDING_WHY_LEN bytes: what is malformed */
} Scan;

static void sc_space(Scan *s) {
  while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\t')) s->p++;
}

static bool sc_lit(Scan *s, const char *lit) {
  sc_space(s);
  size_t n = strlen(lit);
  if ((size_t)(s->end - s->p) < n || memcmp(s->p, lit, n) != 0) return false;
  s->p += n;
  return true;
}

static bool sc_fail(Scan *s, const char *what) {
  if (!s->why[0]) snprintf(s->why, SHARDING_WHY_LEN, "%s at '%.*s'", what, (int)(s->end - s->p > 20 ? 20 : s->end - s->p), s->p);
  return false;
}

static bool sc_int(Scan *s, int64_t *v) {
  sc_space(s);
  if (s->p == s->end || !isdigit((unsigned char)*s->p)) return sc_fail(s, "expected a number");
  int64_t x = 0;
  for (; s->p < s->end && isdigit((unsigned char)*s->p); s->p++) {
    if (x > (INT64_MAX - 9) / 10) return sc_fail(s, "number too large");
    x = x * 10 + (*s->p - '0');
  }
  *v = x;
  return true;
}

/* "[a,b,...]" (open and close given), at most max elements. */
static bool sc_int_list(Scan *s, const char *open, const char *close, int64_t *v, int *n, int max) {
  *n = 0;
  if (!sc_lit(s, open)) return sc_fail(s, "expected a list");
  if (sc_lit(s, close)) return true;
  do {
    if (*n == max) return sc_fail(s, "list too long");
    if (!sc_int(s, &v[(*n)++])) return false;
  } while (sc_lit(s, ","));
  return sc_lit(s, close) || sc_fail(s, "expected ',' or the end of the list");
}

/* Skips a balanced "{...}" (metadata). */
static bool sc_skip_braces(Scan *s) {
  int depth = 0;
  for (; s->p < s->end; s->p++) {
    if (*s->p == '{') depth++;
    if (*s->p == '}' && --depth == 0) {
      s->p++;
      return true;
    }
  }
  return sc_fail(s, "unbalanced braces");
}

/* The options after a sharding's kind, up to its '}': the trailing
 * subgroup dims (replicated or manual) in *nsub, *manual when one is manual. */
static bool sc_options(Scan *s, int *nsub, bool *manual) {
  while (!sc_lit(s, "}")) {
    int64_t ignored;
    if (sc_lit(s, "last_tile_dim_replicate")) {
      *nsub = 1;
    } else if (sc_lit(s, "last_tile_dims={")) {
      *nsub = 0;
      while (!sc_lit(s, "}")) {
        if (sc_lit(s, "manual")) *manual = true;
        else if (!sc_lit(s, "replicated")) return sc_fail(s, "expected manual or replicated in last_tile_dims");
        ++*nsub;
        if (!sc_lit(s, ",") && (sc_space(s), s->p < s->end && *s->p != '}'))
          return sc_fail(s, "expected ',' or '}' in last_tile_dims");
      }
    } else if (sc_lit(s, "metadata=")) {
      sc_space(s);
      if (!sc_skip_braces(s)) return false;
    } else if (sc_lit(s, "shard_as") || sc_lit(s, "shard_like")) {
      if (!sc_int(s, &ignored)) return false;
    } else {
      return sc_fail(s, s->p < s->end ? "unexpected text" : "missing '}'");
    }
  }
  return true;
}

/* The device ids of "<=[reshape]T(perm)" in row-major order. */
static bool sc_iota(Scan *s, int64_t count, int64_t *out) {
  int64_t shape[MAX_LIST], perm[MAX_LIST];
  int n, np = 0;
  if (!sc_int_list(s, "[", "]", shape, &n, MAX_LIST)) return false;
  int64_t total = 1;
  for (int i = 0; i < n; i++) {
    if (shape[i] < 1 || total > SHARDING_MAX_DEVICES / shape[i]) return sc_fail(s, "bad iota reshape dims");
    total *= shape[i];
  }
  if (sc_lit(s, "T") && !sc_int_list(s, "(", ")", perm, &np, MAX_LIST)) return false;
  if (total != count) {
    snprintf(s->why, SHARDING_WHY_LEN, "the tile dims ask for %lld devices but the iota list has %lld", (long long)count,
             (long long)total);
    return false;
  }
  if (!np)
    for (int i = 0; i < n; i++) perm[np++] = i;
  bool seen[MAX_LIST] = {0};
  if (np != n) return sc_fail(s, "the transpose has another rank than the iota reshape");
  for (int i = 0; i < n; i++) {
    if (perm[i] < 0 || perm[i] >= n || seen[perm[i]]) return sc_fail(s, "the transpose is not a permutation");
    seen[perm[i]] = true;
  }
  /* out[j] = iota[index]: walk the transposed shape in row-major order. */
  int64_t idx[MAX_LIST] = {0}, stride[MAX_LIST];
  for (int i = n - 1, st = 1; i >= 0; st *= (int)shape[i], i--) stride[i] = st;
  for (int64_t j = 0; j < total; j++) {
    int64_t src = 0;
    for (int i = 0; i < n; i++) src += idx[i] * stride[perm[i]];
    out[j] = src;
    for (int i = n - 1; i >= 0 && ++idx[i] == shape[perm[i]]; i--) idx[i] = 0;
  }
  return true;
}

/* The devices of a tiled sharding after "devices=[dims]". */
static bool sc_device_list(Scan *s, int64_t count, int64_t *out) {
  if (sc_lit(s, "<=")) return sc_iota(s, count, out);
  int64_t n = 0, id;
  do {
    if (!sc_int(s, &id)) return false;
    if (n == count) {
      snprintf(s->why, SHARDING_WHY_LEN, "the tile dims ask for %lld devices but more are listed", (long long)count);
      return false;
    }
    out[n++] = id;
  } while (sc_lit(s, ","));
  if (n == count) return true;
  snprintf(s->why, SHARDING_WHY_LEN, "the tile dims ask for %lld devices but %lld are listed", (long long)count,
           (long long)n);
  return false;
}

/* "devices=[...]..." after its "{": a tiled (or partially manual) sharding. */
static bool sc_tiled(Scan *s, Sharding *out) {
  int64_t dims[MAX_LIST], count = 1;
  int n;
  if (!sc_int_list(s, "[", "]", dims, &n, MAX_LIST)) return false;
  if (n == 0) return sc_fail(s, "no tile dimensions");
  for (int i = 0; i < n; i++) {
    if (dims[i] < 1 || count > SHARDING_MAX_DEVICES / dims[i]) return sc_fail(s, "bad tile dimension");
    count *= dims[i];
  }
  int64_t *devices = arena_alloc(s->a, sizeof(int64_t) * (size_t)count);
  int nsub = 0;
  bool manual = false;
  if (!sc_device_list(s, count, devices) || !sc_options(s, &nsub, &manual)) return false;
  if (nsub > n) return sc_fail(s, "more subgroup dims than tile dims");
  int rank = n - nsub;
  if (rank > SHARDING_MAX_RANK) return sc_fail(s, "too many tile dimensions");
  int64_t replicas = 1;
  for (int i = rank; i < n; i++) replicas *= dims[i];
  *out = (Sharding){.kind = SHARDING_TILED, .rank = rank, .tiles = arena_dup(s->a, dims, sizeof(int64_t) * (size_t)(rank ? rank : 1)),
                    .replicas = replicas, .partial_manual = manual, .ndevices = count, .devices = devices};
  return true;
}

/* One sharding "{...}" (a tuple's elements included). */
static bool sc_sharding(Scan *s, Sharding *out, int depth) {
  if (!sc_lit(s, "{")) return sc_fail(s, "expected '{'");
  sc_space(s);
  if (s->p < s->end && (*s->p == '{' || *s->p == '}')) { /* a tuple */
    if (depth > 8) return sc_fail(s, "tuple shardings nested too deeply");
    PtrVec elems = {0};
    bool ok = true;
    if (!sc_lit(s, "}")) {
      do {
        Sharding *e = arena_alloc(s->a, sizeof *e);
        vec_push(&elems, e);
        ok = sc_sharding(s, e, depth + 1);
      } while (ok && sc_lit(s, ","));
      ok = ok && (sc_lit(s, "}") || sc_fail(s, "expected ',' or '}' in a tuple sharding"));
    }
    Sharding *flat = arena_alloc(s->a, sizeof(Sharding) * (size_t)(elems.len + 1));
    for (int i = 0; i < elems.len; i++) flat[i] = *(Sharding *)elems.items[i];
    *out = (Sharding){.kind = SHARDING_TUPLE, .nelems = elems.len, .elems = flat};
    vec_free(&elems);
    return ok;
  }
  int nsub = 0;
  bool manual = false;
  if (sc_lit(s, "replicated")) *out = (Sharding){.kind = SHARDING_REPLICATED};
  else if (sc_lit(s, "manual")) *out = (Sharding){.kind = SHARDING_MANUAL};
  else if (sc_lit(s, "unknown")) *out = (Sharding){.kind = SHARDING_UNKNOWN};
  else if (sc_lit(s, "maximal")) {
    *out = (Sharding){.kind = SHARDING_MAXIMAL};
    if (!sc_lit(s, "device=") || !sc_int(s, &out->device)) return sc_fail(s, "expected device=N");
  } else if (sc_lit(s, "devices=")) {
    return sc_tiled(s, out);
  } else {
    return sc_fail(s, "expected replicated, maximal, manual, unknown or devices=");
  }
  return sc_options(s, &nsub, &manual) && (nsub == 0 || sc_fail(s, "subgroup dims without tile dims"));
}

bool sharding_parse_gspmd(Arena *a, const char *text, size_t len, Sharding *out, char *why) {
  Scan s = {a, text, text + len, why};
  why[0] = 0;
  sc_space(&s);
  if (s.p == s.end) { /* "" is what exporters write for "no sharding given" */
    *out = (Sharding){.kind = SHARDING_UNKNOWN};
    return true;
  }
  if (!sc_sharding(&s, out, 0)) return false;
  sc_space(&s);
  return s.p == s.end || sc_fail(&s, "trailing text");
}

/* ------------------------------------------------------------------ */
/* Printing and comparing */

static bool devices_in_order(const Sharding *s) {
  for (int64_t i = 0; i < s->ndevices; i++)
    if (s->devices[i] != i) return false;
  return true;
}

static void print_one(FILE *f, const Sharding *s) {
  switch (s->kind) {
  case SHARDING_REPLICATED: fputs("{replicated}", f); return;
  case SHARDING_MANUAL: fputs("{manual}", f); return;
  case SHARDING_UNKNOWN: fputs("{unknown}", f); return;
  case SHARDING_MAXIMAL: fprintf(f, "{maximal device=%lld}", (long long)s->device); return;
  case SHARDING_TUPLE:
    fputc('{', f);
    for (int i = 0; i < s->nelems; i++) {
      if (i) fputs(", ", f);
      print_one(f, &s->elems[i]);
    }
    fputc('}', f);
    return;
  case SHARDING_TILED: break;
  }
  if (sharding_is_whole(s)) {
    fputs("{replicated}", f);
    return;
  }
  fputs("{devices=[", f);
  for (int d = 0; d < s->rank; d++) fprintf(f, "%s%lld", d ? "," : "", (long long)s->tiles[d]);
  if (s->replicas > 1 || s->partial_manual) fprintf(f, ",%lld", (long long)s->replicas);
  fputc(']', f);
  if (devices_in_order(s)) {
    fprintf(f, "<=[%lld]", (long long)s->ndevices);
  } else {
    for (int64_t i = 0; i < s->ndevices; i++) fprintf(f, "%s%lld", i ? "," : "", (long long)s->devices[i]);
  }
  if (s->partial_manual) fputs(" last_tile_dims={manual}", f);
  else if (s->replicas > 1) fputs(" last_tile_dim_replicate", f);
  fputc('}', f);
}

char *sharding_to_string(Arena *a, const Sharding *s) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) die("out of memory");
  print_one(f, s);
  fclose(f);
  char *out = arena_strndup(a, buf, len);
  free(buf);
  return out;
}

bool sharding_is_whole(const Sharding *s) {
  if (s->kind == SHARDING_REPLICATED || s->kind == SHARDING_MAXIMAL) return true;
  if (s->kind != SHARDING_TILED || s->partial_manual) return false;
  for (int d = 0; d < s->rank; d++)
    if (s->tiles[d] != 1) return false;
  return true;
}

bool sharding_equal(const Sharding *a, const Sharding *b) {
  bool wa = a->kind == SHARDING_REPLICATED || (a->kind == SHARDING_TILED && sharding_is_whole(a));
  bool wb = b->kind == SHARDING_REPLICATED || (b->kind == SHARDING_TILED && sharding_is_whole(b));
  if (wa || wb) return wa && wb;
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case SHARDING_MAXIMAL: return a->device == b->device;
  case SHARDING_TUPLE:
    if (a->nelems != b->nelems) return false;
    for (int i = 0; i < a->nelems; i++)
      if (!sharding_equal(&a->elems[i], &b->elems[i])) return false;
    return true;
  case SHARDING_TILED:
    return a->rank == b->rank && a->replicas == b->replicas && a->partial_manual == b->partial_manual &&
           a->ndevices == b->ndevices && memcmp(a->tiles, b->tiles, sizeof(int64_t) * (size_t)a->rank) == 0 &&
           memcmp(a->devices, b->devices, sizeof(int64_t) * (size_t)a->ndevices) == 0;
  default: return true;
  }
}

/* A tiled sharding's devices: each below num_devices, each once. */
static bool devices_fit(const Sharding *s, int64_t num_devices, char *why) {
  if (s->ndevices > num_devices) {
    snprintf(why, SHARDING_WHY_LEN, "it spreads over %lld devices but the program has %lld partitions",
             (long long)s->ndevices, (long long)num_devices);
    return false;
  }
  bool *seen = xcalloc((size_t)num_devices, 1);
  bool ok = true;
  for (int64_t i = 0; i < s->ndevices && ok; i++) {
    int64_t d = s->devices[i];
    if (d < 0 || d >= num_devices) {
      snprintf(why, SHARDING_WHY_LEN, "device %lld is not below the partition count %lld", (long long)d,
               (long long)num_devices);
      ok = false;
    } else if (seen[d]) {
      snprintf(why, SHARDING_WHY_LEN, "device %lld is listed twice", (long long)d);
      ok = false;
    } else {
      seen[d] = true;
    }
  }
  free(seen);
  return ok;
}

bool sharding_fits(const Sharding *s, const Type *t, int64_t num_devices, char *why) {
  why[0] = 0;
  if (s->kind == SHARDING_TUPLE) {
    int n = t->kind == TY_TUPLE ? t->ninputs : 1;
    if (s->nelems != n) {
      snprintf(why, SHARDING_WHY_LEN, "a tuple sharding of %d elements for a value of %d", s->nelems, n);
      return false;
    }
    for (int i = 0; i < n; i++)
      if (!sharding_fits(&s->elems[i], t->kind == TY_TUPLE ? t->inputs[i] : t, num_devices, why)) return false;
    return true;
  }
  if (t->kind == TY_TUPLE) {
    for (int i = 0; i < t->ninputs; i++)
      if (!sharding_fits(s, t->inputs[i], num_devices, why)) return false;
    return true;
  }
  if (t->kind == TY_TOKEN) {
    if (s->kind == SHARDING_REPLICATED || s->kind == SHARDING_MAXIMAL || sharding_is_whole(s)) return true;
    snprintf(why, SHARDING_WHY_LEN, "a token cannot be tiled");
    return false;
  }
  if (s->kind == SHARDING_MAXIMAL && (s->device < 0 || s->device >= num_devices)) {
    snprintf(why, SHARDING_WHY_LEN, "device %lld is not below the partition count %lld", (long long)s->device,
             (long long)num_devices);
    return false;
  }
  if (s->kind != SHARDING_TILED) return true;
  if (!type_is_tensor(t) || t->rank < 0) {
    snprintf(why, SHARDING_WHY_LEN, "only ranked tensors can be tiled");
    return false;
  }
  if (t->rank != s->rank) {
    snprintf(why, SHARDING_WHY_LEN, "it tiles %d dimensions but the value has rank %d", s->rank, t->rank);
    return false;
  }
  if (!type_is_static(t) && !sharding_is_whole(s)) {
    snprintf(why, SHARDING_WHY_LEN, "a dynamic shape cannot be tiled");
    return false;
  }
  return devices_fit(s, num_devices, why);
}

Sharding sharding_tiled(Arena *a, int rank, const int64_t *tiles, int64_t replicas, const int64_t *devices) {
  int64_t n = replicas;
  for (int d = 0; d < rank; d++) n *= tiles[d];
  int64_t *dev = arena_alloc(a, sizeof(int64_t) * (size_t)n);
  for (int64_t i = 0; i < n; i++) dev[i] = devices ? devices[i] : i;
  return (Sharding){.kind = SHARDING_TILED, .rank = rank,
                    .tiles = rank ? arena_dup(a, tiles, sizeof(int64_t) * (size_t)rank) : arena_alloc(a, sizeof(int64_t)),
                    .replicas = replicas, .ndevices = n, .devices = dev};
}
