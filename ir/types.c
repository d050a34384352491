/* Type construction and interning: structurally equal types are one object. */
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/quant.h"

static uint32_t hash_mix(uint32_t h, uint64_t v) {
  h ^= (uint32_t)v + 0x9e3779b9u + (h << 6) + (h >> 2);
  h ^= (uint32_t)(v >> 32) + 0x9e3779b9u + (h << 6) + (h >> 2);
  return h;
}

static uint32_t type_hash(const Type *t) {
  uint32_t h = hash_mix(17, (uint64_t)t->kind);
  h = hash_mix(h, (uint64_t)t->elem);
  h = hash_mix(h, (uint64_t)(uintptr_t)t->elem_opaque);
  h = hash_mix(h, (uint64_t)(int64_t)t->rank);
  for (int i = 0; i < t->rank; i++) h = hash_mix(h, (uint64_t)t->dims[i]);
  for (int i = 0; i < t->ninputs; i++) h = hash_mix(h, (uint64_t)(uintptr_t)t->inputs[i]);
  for (int i = 0; i < t->nresults; i++) h = hash_mix(h, (uint64_t)(uintptr_t)t->results[i]);
  if (t->text)
    for (const char *p = t->text; *p; p++) h = hash_mix(h, (uint64_t)(unsigned char)*p);
  return h;
}

static bool type_same(const Type *a, const Type *b) {
  if (a->kind != b->kind || a->elem != b->elem || a->elem_opaque != b->elem_opaque ||
      a->rank != b->rank || a->ninputs != b->ninputs || a->nresults != b->nresults)
    return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  for (int i = 0; i < a->ninputs; i++)
    if (a->inputs[i] != b->inputs[i]) return false;
  for (int i = 0; i < a->nresults; i++)
    if (a->results[i] != b->results[i]) return false;
  if ((a->text == NULL) != (b->text == NULL)) return false;
  if (a->text && strcmp(a->text, b->text) != 0) return false;
  if ((a->encoding == NULL) != (b->encoding == NULL)) return false;
  if (a->encoding && !attr_equal(a->encoding, b->encoding)) return false;
  return true;
}

static void table_grow(TypeTable *tt) {
  uint32_t n = tt->nbuckets ? tt->nbuckets * 2 : 256;
  Type **b = xcalloc(n, sizeof(Type *));
  for (uint32_t i = 0; i < tt->nbuckets; i++) {
    Type *t = tt->buckets[i];
    while (t) {
      Type *next = t->next_in_bucket;
      t->next_in_bucket = b[t->hash & (n - 1)];
      b[t->hash & (n - 1)] = t;
      t = next;
    }
  }
  free(tt->buckets);
  tt->buckets = b;
  tt->nbuckets = n;
}

/* Return the unique type equal to *proto, copying it into the arena if new. */
static Type *intern(Context *c, const Type *proto) {
  TypeTable *tt = &c->types;
  uint32_t h = type_hash(proto);
  if (tt->nbuckets) {
    for (Type *t = tt->buckets[h & (tt->nbuckets - 1)]; t; t = t->next_in_bucket)
      if (t->hash == h && type_same(t, proto)) return t;
  }
  if (tt->count * 2 >= tt->nbuckets) table_grow(tt);
  Type *t = arena_dup(&c->arena, proto, sizeof(Type));
  if (proto->rank > 0) t->dims = arena_dup(&c->arena, proto->dims, sizeof(int64_t) * (size_t)proto->rank);
  if (proto->ninputs)
    t->inputs = arena_dup(&c->arena, proto->inputs, sizeof(Type *) * (size_t)proto->ninputs);
  if (proto->nresults)
    t->results = arena_dup(&c->arena, proto->results, sizeof(Type *) * (size_t)proto->nresults);
  if (proto->text) t->text = arena_strdup(&c->arena, proto->text);
  t->hash = h;
  t->next_in_bucket = tt->buckets[h & (tt->nbuckets - 1)];
  tt->buckets[h & (tt->nbuckets - 1)] = t;
  tt->count++;
  return t;
}

Type *type_elem(Context *c, ElemKind k) {
  if (!c->elem_types[k]) c->elem_types[k] = intern(c, &(Type){.kind = TY_ELEM, .elem = k});
  return c->elem_types[k];
}

bool type_same_dims(const Type *a, const Type *b) {
  return a->rank == b->rank && (a->rank <= 0 || memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)a->rank) == 0);
}

Type *type_tensor(Context *c, ElemKind k, int rank, const int64_t *dims, Attr *encoding) {
  return intern(c, &(Type){.kind = TY_TENSOR, .elem = k, .rank = rank, .dims = dims, .encoding = encoding});
}

Type *type_tensor_opaque_elem(Context *c, Type *elem, int rank, const int64_t *dims, Attr *encoding) {
  return intern(c, &(Type){.kind = TY_TENSOR, .elem = ELEM_COUNT, .elem_opaque = elem, .rank = rank,
                           .dims = dims, .encoding = encoding});
}

Type *type_scalar_tensor(Context *c, ElemKind k) { return type_tensor(c, k, 0, NULL, NULL); }

Type *type_tuple(Context *c, int n, Type *const *elems) {
  return intern(c, &(Type){.kind = TY_TUPLE, .ninputs = n, .inputs = elems});
}

Type *type_token(Context *c) { return intern(c, &(Type){.kind = TY_TOKEN}); }

Type *type_future(Context *c, int n, Type *const *elems) {
  return intern(c, &(Type){.kind = TY_FUTURE, .ninputs = n, .inputs = elems});
}
Type *type_none(Context *c) { return intern(c, &(Type){.kind = TY_NONE}); }

Type *type_func(Context *c, int nin, Type *const *in, int nout, Type *const *out) {
  return intern(c, &(Type){.kind = TY_FUNC, .ninputs = nin, .inputs = in, .nresults = nout, .results = out});
}

/* Any other !dialect.type; a valid !quant.uniform keeps its parsed
 * descriptor and is interned under its canonical spelling, so equal
 * quantized types are one object however they were written. */
Type *type_opaque(Context *c, const char *text, size_t len) {
  if (quant_is_uniform_text(text, len)) {
    QuantType q;
    size_t off;
    char err[8];
    if (quant_parse(&c->arena, text, len, &q, &off, err, sizeof err)) {
      QuantType *d = arena_dup(&c->arena, &q, sizeof q);
      Type *t = intern(c, &(Type){.kind = TY_OPAQUE, .text = quant_format(&c->arena, d)});
      if (!t->quant) t->quant = d;
      return t;
    }
  }
  char *s = arena_strndup(&c->arena, text, len);
  return intern(c, &(Type){.kind = TY_OPAQUE, .text = s});
}

bool type_is_tensor(const Type *t) { return t->kind == TY_TENSOR; }

bool type_is_static(const Type *t) {
  if (t->kind != TY_TENSOR || t->rank < 0) return false;
  for (int i = 0; i < t->rank; i++)
    if (t->dims[i] == DIM_DYNAMIC) return false;
  return true;
}

bool type_tensor_num_elements(const Type *t, int64_t *out) {
  if (!type_is_static(t)) return false;
  int64_t n = 1;
  for (int i = 0; i < t->rank; i++)
    if (__builtin_mul_overflow(n, t->dims[i], &n)) return false;
  *out = n;
  return true;
}

ElemKind type_elem_kind(const Type *t) {
  if (t->kind == TY_TENSOR || t->kind == TY_ELEM) return t->elem;
  return ELEM_COUNT;
}

/* The list attribute holding the bounds of a #stablehlo.bounds<...> or
 * #stablehlo.type_extensions<bounds = [...]> encoding: its params (n
 * positional ints) or its int list; false for any other encoding. */
static bool bounds_items(const Attr *enc, int *n, const NamedAttr **params, const int64_t **list) {
  *params = NULL;
  *list = NULL;
  if (!enc || enc->kind != ATTR_DIALECT) return false;
  if (strcmp(enc->u.dialect.name, "stablehlo.bounds") == 0) {
    for (int i = 0; i < enc->u.dialect.n; i++)
      if (enc->u.dialect.params[i].name || enc->u.dialect.params[i].value->kind != ATTR_INT) return false;
    *n = enc->u.dialect.n;
    *params = enc->u.dialect.params;
    return true;
  }
  if (strcmp(enc->u.dialect.name, "stablehlo.type_extensions") != 0) return false;
  const Attr *b = dialect_param(enc, "bounds");
  if (!b || b->kind != ATTR_INT_LIST) return false;
  *n = b->u.ilist.n;
  *list = b->u.ilist.v;
  return true;
}

bool type_has_bounds(const Type *t, int *n) {
  const NamedAttr *params;
  const int64_t *list;
  return t->kind == TY_TENSOR && bounds_items(t->encoding, n, &params, &list);
}

int64_t type_dim_bound(const Type *t, int d) {
  if (t->dims[d] != DIM_DYNAMIC) return t->dims[d];
  int n;
  const NamedAttr *params;
  const int64_t *list;
  if (!bounds_items(t->encoding, &n, &params, &list) || d >= n) return DIM_DYNAMIC;
  return params ? params[d].value->u.i : list[d];
}

Attr *type_bounds_canonical(Context *c, Attr *enc) {
  int n;
  const NamedAttr *params;
  const int64_t *list;
  if (!bounds_items(enc, &n, &params, &list) || params) return enc;
  NamedAttr *p = arena_alloc(&c->arena, sizeof(NamedAttr) * (size_t)(n ? n : 1));
  for (int d = 0; d < n; d++) p[d] = (NamedAttr){NULL, attr_i64(c, list[d])};
  return attr_dialect(c, "stablehlo.bounds", n, p);
}

const char *type_shape_check(Context *c, int rank, const int64_t *dims, const Attr *encoding) {
  if (rank > TYPE_MAX_RANK) return arena_printf(&c->arena, "tensor rank %d is above %d, which is not supported", rank, TYPE_MAX_RANK);
  int64_t copy[TYPE_MAX_RANK];
  for (int d = 0; d < rank; d++) {
    if (dims[d] < 0 && dims[d] != DIM_DYNAMIC) return arena_printf(&c->arena, "negative dimension size %lld", (long long)dims[d]);
    copy[d] = dims[d];
  }
  Type probe = {.kind = TY_TENSOR, .rank = rank, .dims = copy, .encoding = (Attr *)encoding};
  int n;
  if (!encoding || !type_has_bounds(&probe, &n)) return NULL;
  if (n != rank)
    return arena_printf(&c->arena, "Bounds length is %d, expected to be equal to rank(%d) of the tensor (bounds %s)", n, rank,
                        attr_to_string(c, encoding));
  for (int d = 0; d < rank; d++) {
    copy[d] = DIM_DYNAMIC;
    int64_t b = type_dim_bound(&probe, d);
    copy[d] = dims[d];
    if (b != DIM_DYNAMIC && dims[d] != DIM_DYNAMIC)
      return arena_printf(&c->arena,
                          "Static dimension %d cannot have a bound, use ShapedType::kDynamic to indicate a missing bound (%s)", d,
                          attr_to_string(c, encoding));
    if (b != DIM_DYNAMIC && b < 0)
      return arena_printf(&c->arena, "bound of dimension %d is %lld; bounds must be non-negative", d, (long long)b);
  }
  return NULL;
}

Type *type_with_bounds(Context *c, const Type *t, const int64_t *dims, const int64_t *bounds) {
  bool any = false;
  for (int d = 0; d < t->rank; d++) any |= dims[d] == DIM_DYNAMIC && bounds[d] != DIM_DYNAMIC;
  Attr *enc = NULL;
  if (any) {
    NamedAttr *p = arena_alloc(&c->arena, sizeof(NamedAttr) * (size_t)t->rank);
    for (int d = 0; d < t->rank; d++) p[d].value = attr_i64(c, dims[d] == DIM_DYNAMIC ? bounds[d] : DIM_DYNAMIC);
    enc = attr_dialect(c, "stablehlo.bounds", t->rank, p);
  }
  int64_t *copy = arena_dup(&c->arena, dims, sizeof(int64_t) * (size_t)(t->rank ? t->rank : 1));
  if (t->elem_opaque) return type_tensor_opaque_elem(c, t->elem_opaque, t->rank, copy, enc);
  return type_tensor(c, t->elem, t->rank, copy, enc);
}
