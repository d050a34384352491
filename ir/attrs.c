/* Attribute construction, equality, and typed views. */
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

static Attr *new_attr(Context *c, AttrKind k) {
  Attr *a = arena_alloc(&c->arena, sizeof(Attr));
  a->kind = k;
  return a;
}

Attr *attr_unit(Context *c) { return new_attr(c, ATTR_UNIT); }

Attr *attr_bool(Context *c, bool b) {
  Attr *a = new_attr(c, ATTR_BOOL);
  a->u.b = b;
  return a;
}

Attr *attr_int(Context *c, Type *t, int64_t v) {
  Attr *a = new_attr(c, ATTR_INT);
  a->type = t;
  a->u.i = v;
  return a;
}

Attr *attr_i64(Context *c, int64_t v) { return attr_int(c, type_elem(c, ELEM_I64), v); }

Attr *attr_float_bits(Context *c, Type *t, uint64_t bits) {
  Attr *a = new_attr(c, ATTR_FLOAT);
  a->type = t;
  a->u.f = bits;
  return a;
}

Attr *attr_string(Context *c, const char *s, size_t len) {
  Attr *a = new_attr(c, ATTR_STRING);
  a->u.str.s = arena_strndup(&c->arena, s, len);
  a->u.str.len = len;
  return a;
}

Attr *attr_symref(Context *c, const char *name) {
  Attr *a = new_attr(c, ATTR_SYMREF);
  a->u.str.s = arena_strdup(&c->arena, name);
  a->u.str.len = strlen(name);
  return a;
}

Attr *attr_type(Context *c, Type *t) {
  Attr *a = new_attr(c, ATTR_TYPE);
  a->type = t;
  return a;
}

Attr *attr_array(Context *c, int n, Attr **items) {
  Attr *a = new_attr(c, ATTR_ARRAY);
  a->u.array.n = n;
  a->u.array.items = n ? arena_dup(&c->arena, items, sizeof(Attr *) * (size_t)n) : NULL;
  return a;
}

static int cmp_named(const void *x, const void *y) {
  return strcmp(((const NamedAttr *)x)->name, ((const NamedAttr *)y)->name);
}

Attr *attr_dict(Context *c, int n, NamedAttr *items) {
  Attr *a = new_attr(c, ATTR_DICT);
  a->u.dict.n = n;
  if (n) {
    NamedAttr *copy = arena_dup(&c->arena, items, sizeof(NamedAttr) * (size_t)n);
    qsort(copy, (size_t)n, sizeof(NamedAttr), cmp_named);
    a->u.dict.items = copy;
  }
  return a;
}

Attr *attr_dense_raw(Context *c, Type *t, const void *data, size_t nbytes, bool splat) {
  Attr *a = arena_alloc(&c->arena, sizeof *a);
  a->kind = ATTR_DENSE;
  a->type = t;
  a->u.dense.data = arena_dup(&c->arena, data, nbytes ? nbytes : 1);
  a->u.dense.nbytes = nbytes;
  a->u.dense.splat = splat;
  a->u.dense.form = DENSE_LIST;
  return a;
}

Attr *attr_dense_i64_array(Context *c, int n, const int64_t *v) {
  Attr *a = new_attr(c, ATTR_DENSE_ARRAY);
  a->u.darray.elem = ELEM_I64;
  a->u.darray.n = n;
  a->u.darray.ints = arena_dup(&c->arena, v, sizeof(int64_t) * (size_t)n);
  return a;
}

Attr *attr_dense_bool_array(Context *c, int n, const bool *v) {
  Attr *a = new_attr(c, ATTR_DENSE_ARRAY);
  a->u.darray.elem = ELEM_I1;
  a->u.darray.n = n;
  int64_t *ints = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) ints[i] = v[i];
  a->u.darray.ints = ints;
  return a;
}

Attr *attr_enum(Context *c, const char *dialect, const char *enum_name, const char *value) {
  Attr *a = new_attr(c, ATTR_ENUM);
  a->u.enm.dialect = dialect ? arena_strdup(&c->arena, dialect) : NULL;
  a->u.enm.enum_name = enum_name ? arena_strdup(&c->arena, enum_name) : NULL;
  a->u.enm.value = arena_strdup(&c->arena, value);
  return a;
}

Attr *attr_int_list(Context *c, int n, const int64_t *v) {
  Attr *a = new_attr(c, ATTR_INT_LIST);
  a->u.ilist.n = n;
  a->u.ilist.v = n ? arena_dup(&c->arena, v, sizeof(int64_t) * (size_t)n) : NULL;
  return a;
}

Attr *attr_dialect(Context *c, const char *name, int n, const NamedAttr *params) {
  Attr *a = new_attr(c, ATTR_DIALECT);
  a->u.dialect.name = arena_strdup(&c->arena, name);
  a->u.dialect.n = n;
  a->u.dialect.params = arena_alloc(&c->arena, sizeof(NamedAttr) * (size_t)(n ? n : 1));
  if (n) memcpy(a->u.dialect.params, params, sizeof(NamedAttr) * (size_t)n);
  return a;
}

Attr *attr_conv_dims(Context *c, const ConvDims *d) {
  Attr *a = new_attr(c, ATTR_CONV_DIMS);
  size_t bytes = sizeof(int64_t) * (size_t)d->nspatial;
  a->u.conv = *d;
  if (bytes) {
    a->u.conv.input_spatial = arena_dup(&c->arena, d->input_spatial, bytes);
    a->u.conv.kernel_spatial = arena_dup(&c->arena, d->kernel_spatial, bytes);
    a->u.conv.output_spatial = arena_dup(&c->arena, d->output_spatial, bytes);
  } else {
    a->u.conv.input_spatial = a->u.conv.kernel_spatial = a->u.conv.output_spatial = NULL;
  }
  return a;
}

Attr *attr_opaque(Context *c, const char *text, size_t len) {
  Attr *a = new_attr(c, ATTR_OPAQUE);
  a->u.str.s = arena_strndup(&c->arena, text, len);
  a->u.str.len = len;
  return a;
}

static bool str_eq(const char *a, const char *b) {
  if (!a || !b) return a == b;
  return strcmp(a, b) == 0;
}

static bool i64s_eq(int n, const int64_t *a, const int64_t *b) {
  return n == 0 || memcmp(a, b, sizeof(int64_t) * (size_t)n) == 0;
}

bool attr_equal(const Attr *a, const Attr *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || a->type != b->type) return false;
  switch (a->kind) {
  case ATTR_UNIT: return true;
  case ATTR_BOOL: return a->u.b == b->u.b;
  case ATTR_INT: return a->u.i == b->u.i;
  case ATTR_FLOAT: return a->u.f == b->u.f;
  case ATTR_TYPE: return true;
  case ATTR_STRING:
  case ATTR_SYMREF:
  case ATTR_OPAQUE:
    return a->u.str.len == b->u.str.len && memcmp(a->u.str.s, b->u.str.s, a->u.str.len) == 0;
  case ATTR_ARRAY:
    if (a->u.array.n != b->u.array.n) return false;
    for (int i = 0; i < a->u.array.n; i++)
      if (!attr_equal(a->u.array.items[i], b->u.array.items[i])) return false;
    return true;
  case ATTR_DICT:
    if (a->u.dict.n != b->u.dict.n) return false;
    for (int i = 0; i < a->u.dict.n; i++)
      if (!str_eq(a->u.dict.items[i].name, b->u.dict.items[i].name) ||
          !attr_equal(a->u.dict.items[i].value, b->u.dict.items[i].value))
        return false;
    return true;
  case ATTR_DENSE:
    return a->u.dense.splat == b->u.dense.splat && a->u.dense.nbytes == b->u.dense.nbytes &&
           memcmp(a->u.dense.data, b->u.dense.data, a->u.dense.nbytes) == 0;
  case ATTR_DENSE_ARRAY:
    if (a->u.darray.elem != b->u.darray.elem || a->u.darray.n != b->u.darray.n) return false;
    if (a->u.darray.ints) return i64s_eq(a->u.darray.n, a->u.darray.ints, b->u.darray.ints);
    return a->u.darray.n == 0 ||
           memcmp(a->u.darray.floats, b->u.darray.floats, sizeof(double) * (size_t)a->u.darray.n) == 0;
  case ATTR_DENSE_RESOURCE: return str_eq(a->u.resource.name, b->u.resource.name);
  case ATTR_ENUM:
    return str_eq(a->u.enm.dialect, b->u.enm.dialect) && str_eq(a->u.enm.enum_name, b->u.enm.enum_name) &&
           str_eq(a->u.enm.value, b->u.enm.value);
  case ATTR_DIALECT:
    if (!str_eq(a->u.dialect.name, b->u.dialect.name) || a->u.dialect.n != b->u.dialect.n) return false;
    for (int i = 0; i < a->u.dialect.n; i++)
      if (!str_eq(a->u.dialect.params[i].name, b->u.dialect.params[i].name) ||
          !attr_equal(a->u.dialect.params[i].value, b->u.dialect.params[i].value))
        return false;
    return true;
  case ATTR_CONV_DIMS: {
    const ConvDims *x = &a->u.conv, *y = &b->u.conv;
    return x->input_batch == y->input_batch && x->input_feature == y->input_feature &&
           x->nspatial == y->nspatial && x->kernel_input_feature == y->kernel_input_feature &&
           x->kernel_output_feature == y->kernel_output_feature && x->output_batch == y->output_batch &&
           x->output_feature == y->output_feature && i64s_eq(x->nspatial, x->input_spatial, y->input_spatial) &&
           i64s_eq(x->nspatial, x->kernel_spatial, y->kernel_spatial) &&
           i64s_eq(x->nspatial, x->output_spatial, y->output_spatial);
  }
  case ATTR_INT_LIST: return a->u.ilist.n == b->u.ilist.n && i64s_eq(a->u.ilist.n, a->u.ilist.v, b->u.ilist.v);
  }
  return false;
}

int64_t dense_num_elements(const Attr *a) {
  int64_t n;
  if (!a || !a->type || !type_tensor_num_elements(a->type, &n)) return -1;
  return n;
}

uint64_t dense_get_bits(const Attr *a, int64_t i) {
  int sz = elem_storage_bytes(a->type->elem);
  const uint8_t *p = a->u.dense.data + (a->u.dense.splat ? 0 : (size_t)i * (size_t)sz);
  uint64_t v = 0;
  memcpy(&v, p, sz > 8 ? 8 : (size_t)sz);
  return v;
}

int64_t dense_get_int(const Attr *a, int64_t i) {
  ElemKind k = a->type->elem;
  uint64_t bits = dense_get_bits(a, i);
  int sz = elem_storage_bytes(k) * 8;
  if (sz >= 64) return (int64_t)bits;
  if (elem_is_unsigned(k) || k == ELEM_I1) return (int64_t)(bits & ((1ull << sz) - 1));
  return (int64_t)(bits << (64 - sz)) >> (64 - sz);
}

bool attr_as_i64_list(const Attr *a, int *n, const int64_t **v, Arena *scratch) {
  if (!a) return false;
  switch (a->kind) {
  case ATTR_DENSE_ARRAY:
    if (!elem_is_int(a->u.darray.elem)) return false;
    *n = a->u.darray.n;
    *v = a->u.darray.ints;
    return true;
  case ATTR_INT_LIST:
    *n = a->u.ilist.n;
    *v = a->u.ilist.v;
    return true;
  case ATTR_DENSE: {
    if (!elem_is_int(a->type->elem) || a->type->rank > 1) return false;
    int64_t cnt = dense_num_elements(a);
    if (cnt < 0 || cnt > (1 << 24)) return false;
    int64_t *out = arena_alloc(scratch, sizeof(int64_t) * (size_t)(cnt ? cnt : 1));
    for (int64_t i = 0; i < cnt; i++) out[i] = dense_get_int(a, i);
    *n = (int)cnt;
    *v = out;
    return true;
  }
  case ATTR_ARRAY: {
    int64_t *out = arena_alloc(scratch, sizeof(int64_t) * (size_t)(a->u.array.n ? a->u.array.n : 1));
    for (int i = 0; i < a->u.array.n; i++)
      if (a->u.array.items[i]->kind != ATTR_INT) return false;
      else out[i] = a->u.array.items[i]->u.i;
    *n = a->u.array.n;
    *v = out;
    return true;
  }
  default: return false;
  }
}

bool attr_as_bool_list(const Attr *a, int *n, bool **v, Arena *scratch) {
  if (!a) return false;
  if (a->kind == ATTR_DENSE_ARRAY && a->u.darray.elem == ELEM_I1) {
    bool *out = arena_alloc(scratch, (size_t)a->u.darray.n + 1);
    for (int i = 0; i < a->u.darray.n; i++) out[i] = a->u.darray.ints[i] != 0;
    *n = a->u.darray.n;
    *v = out;
    return true;
  }
  if (a->kind == ATTR_DENSE && a->type->elem == ELEM_I1 && a->type->rank == 1) {
    int64_t cnt = dense_num_elements(a);
    if (cnt < 0 || cnt > (1 << 24)) return false;
    bool *out = arena_alloc(scratch, (size_t)cnt + 1);
    for (int64_t i = 0; i < cnt; i++) out[i] = dense_get_int(a, i) != 0;
    *n = (int)cnt;
    *v = out;
    return true;
  }
  return false;
}

bool attr_as_int(const Attr *a, int64_t *v) {
  if (!a || a->kind != ATTR_INT) return false;
  *v = a->u.i;
  return true;
}

const char *attr_enum_value(const Attr *a) { return a && a->kind == ATTR_ENUM ? a->u.enm.value : NULL; }

const Attr *dialect_param(const Attr *a, const char *key) {
  if (!a || a->kind != ATTR_DIALECT) return NULL;
  for (int i = 0; i < a->u.dialect.n; i++)
    if (a->u.dialect.params[i].name && strcmp(a->u.dialect.params[i].name, key) == 0)
      return a->u.dialect.params[i].value;
  return NULL;
}
