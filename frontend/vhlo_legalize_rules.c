/* The attribute rules of VHLO <-> StableHLO, each written once as a pair
 * (StableHLO's VhloLegalizeToStablehlo.cpp and StablehloLegalizeToVhlo.cpp):
 * how StableHLO holds an attribute (VhloRule), the defaults VHLO carries
 * (VhloDefault), and the attribute groups StableHLO holds as structures. */
#include <stdlib.h>
#include <string.h>

#include "frontend/vhlo_legalize.h"

/* ---- attribute lists ---- */

void alist_push(AttrList *l, const char *name, Attr *value) {
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 16;
    l->items = xrealloc(l->items, sizeof(NamedAttr) * (size_t)l->cap);
  }
  l->items[l->n++] = (NamedAttr){name, value};
}

Attr *alist_get(const AttrList *l, const char *name) {
  for (int i = 0; i < l->n; i++)
    if (strcmp(l->items[i].name, name) == 0) return l->items[i].value;
  return NULL;
}

static int cmp_named(const void *a, const void *b) {
  return strcmp(((const NamedAttr *)a)->name, ((const NamedAttr *)b)->name);
}

void alist_install(Context *c, Op *op, AttrList *l) {
  op->nattrs = l->n;
  op->attrs = arena_alloc(&c->arena, sizeof(NamedAttr) * (size_t)(l->n ? l->n : 1));
  if (l->n) memcpy(op->attrs, l->items, sizeof(NamedAttr) * (size_t)l->n);
  qsort(op->attrs, (size_t)op->nattrs, sizeof(NamedAttr), cmp_named);
  free(l->items);
  *l = (AttrList){0};
}

/* ---- small builders ---- */

Attr *vhlo_i64_tensor(Context *c, int n, const int64_t *v, bool pairs) {
  int64_t dims[2] = {pairs ? n / 2 : n, 2};
  Type *t = type_tensor(c, ELEM_I64, pairs ? 2 : 1, dims, NULL);
  bool splat = n >= 2;
  for (int i = 1; i < n && splat; i++) splat = v[i] == v[0];
  return attr_dense_raw(c, t, n ? (const void *)v : (const void *)"", sizeof(int64_t) * (size_t)(splat ? 1 : n),
                        splat);
}

/* tensor<Nxi1> of v, a splat when its elements (two or more) are equal,
 * as MLIR's dense attributes are. */
static Attr *i1_tensor(Context *c, int n, const bool *v) {
  int64_t dim = n;
  bool splat = n >= 2;
  for (int i = 1; i < n && splat; i++) splat = v[i] == v[0];
  uint8_t *bytes = arena_alloc(&c->arena, (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) bytes[i] = v[i];
  return attr_dense_raw(c, type_tensor(c, ELEM_I1, 1, &dim, NULL), bytes, (size_t)(splat ? 1 : n), splat);
}

/* The n elements of a dense integer attribute (NULL if it is not one). */
static int64_t *dense_ints(Context *c, const Attr *a, int *n) {
  if (!a || a->kind != ATTR_DENSE) return NULL;
  int64_t count = dense_num_elements(a);
  if (count < 0 || count > (1 << 24)) return NULL;
  int64_t *v = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(count ? count : 1));
  for (int64_t i = 0; i < count; i++) v[i] = dense_get_int(a, a->u.dense.splat ? 0 : i);
  *n = (int)count;
  return v;
}

static char *strz(Context *c, const char *s, size_t len) { return arena_strndup(&c->arena, s, len); }

/* VHLO's enums (vhlo_codes.def): name, first value, enumerants. */
static const struct {
  const char *name;
  int first;
  const char *words;
} vhlo_enums[] = {
#define VHLO_ENUM(id, name, first, words) {name, first, words},
#include "frontend/vhlo_codes.def"
#undef VHLO_ENUM
};

/* Enumerant IDX of VHLO enum NAME (its value when VALUE is NULL: returns
 * its index, else -1) or the index of enumerant VALUE (-1 if unknown);
 * *word gets the enumerant found. */
static int enum_lookup(const char *name, const char *value, int64_t idx, const char **word, size_t *wlen) {
  size_t vl = value ? strlen(value) : 0;
  for (size_t e = 0; e < sizeof vhlo_enums / sizeof vhlo_enums[0]; e++) {
    if (strcmp(vhlo_enums[e].name, name) != 0) continue;
    int i = vhlo_enums[e].first;
    for (const char *w = vhlo_enums[e].words; *w; i++) {
      size_t wl = strcspn(w, " ");
      if (value ? wl == vl && memcmp(w, value, vl) == 0 : i == idx) {
        *word = w;
        *wlen = wl;
        return i;
      }
      w += wl;
      w += *w == ' ';
    }
  }
  return -1;
}

static int enum_index(const char *name, const char *value) {
  const char *w;
  size_t wl;
  return enum_lookup(name, value, 0, &w, &wl);
}

/* Enumerant number IDX of VHLO enum NAME as a StableHLO enum attribute,
 * or NULL. */
static Attr *enum_at(Context *c, const char *name, int64_t idx) {
  const char *w;
  size_t wl;
  return enum_lookup(name, NULL, idx, &w, &wl) < 0 ? NULL : attr_enum(c, "stablehlo", name, strz(c, w, wl));
}

/* ---- per-attribute rules ---- */

const char *rule_stablehlo_name(VhloRule r, const char *vhlo_name) {
  return r == VR_CHAN ? "channel_handle" : vhlo_name;
}

static Attr *channel_handle(Context *c, int64_t handle, int64_t type) {
  NamedAttr p[2] = {{"handle", attr_i64(c, handle)}, {"type", attr_i64(c, type)}};
  return attr_dialect(c, "stablehlo.channel_handle", 2, p);
}

Attr *rule_to_stablehlo(Context *c, VhloRule r, Attr *v) {
  int n;
  int64_t *ints;
  switch (r) {
  case VR_SAME: return v;
  case VR_I64ARR:
    ints = dense_ints(c, v, &n);
    return ints ? attr_dense_i64_array(c, n, ints) : v;
  case VR_BOOLARR: {
    ints = dense_ints(c, v, &n);
    if (!ints) return v;
    bool *b = arena_alloc(&c->arena, (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) b[i] = ints[i] != 0;
    return attr_dense_bool_array(c, n, b);
  }
  case VR_SYM: return v->kind == ATTR_STRING ? attr_symref(c, strz(c, v->u.str.s, v->u.str.len)) : v;
  case VR_SYMS: {
    if (v->kind != ATTR_ARRAY) return v;
    Attr **items = arena_alloc(&c->arena, sizeof(Attr *) * (size_t)(v->u.array.n + 1));
    for (int i = 0; i < v->u.array.n; i++) items[i] = rule_to_stablehlo(c, VR_SYM, v->u.array.items[i]);
    return attr_array(c, v->u.array.n, items);
  }
  case VR_CHAN: return v->kind == ATTR_INT ? channel_handle(c, v->u.i, 0) : NULL;
  case VR_UNIT: return v->kind == ATTR_BOOL ? (v->u.b ? attr_unit(c) : NULL) : NULL;
  case VR_APIVER: {
    if (v->kind != ATTR_ENUM) return NULL;
    int i = enum_index("custom_call_api_version", v->u.enm.value);
    return i < 0 ? NULL : attr_int(c, type_elem(c, ELEM_I32), i);
  }
  }
  return v;
}

Attr *rule_to_vhlo(Context *c, VhloRule r, Attr *v) {
  int n;
  const int64_t *ints;
  switch (r) {
  case VR_SAME: return generic_to_vhlo(c, v);
  case VR_I64ARR:
    if (v->kind == ATTR_DENSE) return v;
    return attr_as_i64_list(v, &n, &ints, &c->arena) ? vhlo_i64_tensor(c, n, ints, false) : NULL;
  case VR_BOOLARR: {
    bool *b;
    if (v->kind == ATTR_DENSE) return v;
    return attr_as_bool_list(v, &n, &b, &c->arena) ? i1_tensor(c, n, b) : NULL;
  }
  case VR_SYM: return v->kind == ATTR_SYMREF ? attr_string(c, v->u.str.s, v->u.str.len) : v;
  case VR_SYMS: return generic_to_vhlo(c, v);
  case VR_CHAN: {
    const Attr *h = v->kind == ATTR_DIALECT ? dialect_param(v, "handle") : NULL;
    return h && h->kind == ATTR_INT ? attr_i64(c, h->u.i) : NULL;
  }
  case VR_UNIT: return attr_bool(c, true);
  case VR_APIVER: return v->kind == ATTR_INT ? enum_at(c, "custom_call_api_version", v->u.i) : NULL;
  }
  return v;
}

Attr *generic_to_vhlo(Context *c, Attr *a) {
  switch (a->kind) {
  case ATTR_SYMREF: return attr_string(c, a->u.str.s, a->u.str.len);
  case ATTR_DENSE_ARRAY:
    if (a->u.darray.elem == ELEM_I1) return rule_to_vhlo(c, VR_BOOLARR, a);
    if (a->u.darray.elem == ELEM_I64) return rule_to_vhlo(c, VR_I64ARR, a);
    return a;
  case ATTR_ARRAY: {
    Attr **items = arena_alloc(&c->arena, sizeof(Attr *) * (size_t)(a->u.array.n + 1));
    bool changed = false;
    for (int i = 0; i < a->u.array.n; i++) {
      items[i] = generic_to_vhlo(c, a->u.array.items[i]);
      changed |= items[i] != a->u.array.items[i];
    }
    return changed ? attr_array(c, a->u.array.n, items) : a;
  }
  case ATTR_DICT: {
    NamedAttr *items = arena_alloc(&c->arena, sizeof(NamedAttr) * (size_t)(a->u.dict.n + 1));
    bool changed = false;
    for (int i = 0; i < a->u.dict.n; i++) {
      items[i] = (NamedAttr){a->u.dict.items[i].name, generic_to_vhlo(c, a->u.dict.items[i].value)};
      changed |= items[i].value != a->u.dict.items[i].value;
    }
    return changed ? attr_dict(c, a->u.dict.n, items) : a;
  }
  default: return a;
  }
}

/* ---- defaults ---- */

/* Whether every element of dense integer attribute v is x (and it has one). */
static bool dense_all(const Attr *v, int64_t x) {
  if (!v || v->kind != ATTR_DENSE) return false;
  int64_t n = dense_num_elements(v);
  if (n < 1) return false;
  for (int64_t i = 0; i < (v->u.dense.splat ? 1 : n); i++)
    if (dense_get_int(v, i) != x) return false;
  return true;
}

static bool float_zero(const Attr *a) {
  return !a || (a->kind == ATTR_FLOAT && float_bits_to_double(a->type->elem, a->u.f) == 0.0);
}

/* #stablehlo.result_accuracy<atol = 0, rtol = 0, ulps = 0, mode = DEFAULT>? */
static bool accuracy_default(const Attr *v) {
  if (!v || v->kind != ATTR_DIALECT || strcmp(v->u.dialect.name, "stablehlo.result_accuracy") != 0) return false;
  const Attr *ulps = dialect_param(v, "ulps"), *mode = dialect_param(v, "mode");
  if (!float_zero(dialect_param(v, "atol")) || !float_zero(dialect_param(v, "rtol"))) return false;
  if (ulps && (ulps->kind != ATTR_INT || ulps->u.i != 0)) return false;
  if (mode && mode->kind == ATTR_DIALECT && mode->u.dialect.n == 1) mode = mode->u.dialect.params[0].value;
  return !mode || (mode->kind == ATTR_ENUM && strcmp(mode->u.enm.value, "DEFAULT") == 0);
}

bool vhlo_is_default(const Attr *v, VhloDefault d) {
  if (!v) return false;
  switch (d) {
  case VD_NONE: return false;
  case VD_FALSE: return v->kind == ATTR_BOOL && !v->u.b;
  case VD_ZERO: return v->kind == ATTR_INT && v->u.i == 0;
  case VD_NEG1: return v->kind == ATTR_INT && v->u.i == -1;
  case VD_STR: return v->kind == ATTR_STRING && v->u.str.len == 0;
  case VD_ARR:
  case VD_LAYOUTS: return v->kind == ATTR_ARRAY && v->u.array.n == 0;
  case VD_DICT: return v->kind == ATTR_DICT && v->u.dict.n == 0;
  case VD_EMPTY: return v->kind == ATTR_DENSE && dense_num_elements(v) == 0;
  case VD_ONES: return dense_all(v, 1);
  case VD_ZEROS:
  case VD_FALSES: return dense_all(v, 0);
  case VD_PREC:
    if (v->kind != ATTR_ARRAY) return false;
    for (int i = 0; i < v->u.array.n; i++) {
      const char *e = attr_enum_value(v->u.array.items[i]);
      if (!e || strcmp(e, "DEFAULT") != 0) return false;
    }
    return true;
  case VD_NOTYPE: return v->kind == ATTR_ENUM && strcmp(v->u.enm.value, "NOTYPE") == 0;
  case VD_ORIGINAL: return v->kind == ATTR_ENUM && strcmp(v->u.enm.value, "API_VERSION_ORIGINAL") == 0;
  case VD_ACC: return accuracy_default(v);
  case VD_NONETYPE: return v->kind == ATTR_TYPE && v->type && v->type->kind == TY_NONE;
  case VD_CONFIG:
    return (v->kind == ATTR_STRING && v->u.str.len == 0) || (v->kind == ATTR_DICT && v->u.dict.n == 0);
  }
  return false;
}

static Attr *default_accuracy(Context *c) {
  Attr *mode_word = attr_enum(c, NULL, NULL, "DEFAULT");
  NamedAttr mp[1] = {{NULL, mode_word}};
  Type *f64 = type_elem(c, ELEM_F64);
  NamedAttr p[4] = {{"atol", attr_float_bits(c, f64, 0)},
                    {"rtol", attr_float_bits(c, f64, 0)},
                    {"ulps", attr_i64(c, 0)},
                    {"mode", attr_dialect(c, "stablehlo.result_accuracy_mode", 1, mp)}};
  return attr_dialect(c, "stablehlo.result_accuracy", 4, p);
}

Attr *vhlo_default_value(Context *c, VhloDefault d, int n, bool typed_ffi) {
  if (n < 0) n = 0;
  switch (d) {
  case VD_NONE: return NULL;
  case VD_FALSE: return attr_bool(c, false);
  case VD_ZERO: return attr_i64(c, 0);
  case VD_NEG1: return attr_i64(c, -1);
  case VD_STR: return attr_string(c, "", 0);
  case VD_ARR:
  case VD_LAYOUTS: return attr_array(c, 0, NULL);
  case VD_DICT: return attr_dict(c, 0, NULL);
  case VD_EMPTY: return vhlo_i64_tensor(c, 0, NULL, false);
  case VD_ONES:
  case VD_ZEROS: {
    int count = d == VD_ZEROS ? 2 * n : n;
    int64_t *v = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(count ? count : 1));
    for (int i = 0; i < count; i++) v[i] = d == VD_ONES;
    return vhlo_i64_tensor(c, count, v, d == VD_ZEROS);
  }
  case VD_FALSES: return i1_tensor(c, n, arena_alloc(&c->arena, (size_t)(n ? n : 1)));
  case VD_PREC: {
    Attr *items[2] = {attr_enum(c, "stablehlo", "precision", "DEFAULT"),
                      attr_enum(c, "stablehlo", "precision", "DEFAULT")};
    return attr_array(c, 2, items);
  }
  case VD_NOTYPE: return attr_enum(c, "stablehlo", "comparison_type", "NOTYPE");
  case VD_ORIGINAL: return attr_enum(c, "stablehlo", "custom_call_api_version", "API_VERSION_ORIGINAL");
  case VD_ACC: return default_accuracy(c);
  case VD_NONETYPE: return attr_type(c, type_none(c));
  case VD_CONFIG: return typed_ffi ? attr_dict(c, 0, NULL) : attr_string(c, "", 0);
  }
  return NULL;
}
