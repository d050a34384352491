/* Attributes holding the default their absence means (ir/attr_defaults.def):
 * the printer leaves them out. */
#include <stdlib.h>
#include <string.h>

#include "ir/print.h"

enum { FALSE, INT, ENUM, EMPTY, ALL, ACCURACY, CHANNEL, PRECISION };

static const struct AttrDefault {
  OpKind op;
  const char *name;
  int kind;
  const char *value;
} attr_defaults[] = {
#define ATTR_DEFAULT(op, name, kind, value) {OP_##op, name, kind, value},
#include "ir/attr_defaults.def"
#undef ATTR_DEFAULT
};

/* Whether integer-valued a (an integer, or an enum numbered as one) is v. */
static bool int_is(const Attr *a, int64_t v) {
  int64_t got;
  return a && attr_as_int(a, &got) && got == v;
}

/* Whether a float- or integer-valued dialect parameter is absent or zero. */
static bool param_zero(const Attr *a) {
  return !a || (a->kind == ATTR_FLOAT && (a->u.f << 1) == 0) || int_is(a, 0);
}

static bool is_empty(const Attr *a) {
  switch (a->kind) {
  case ATTR_STRING: return a->u.str.len == 0;
  case ATTR_ARRAY: return a->u.array.n == 0;
  case ATTR_DICT: return a->u.dict.n == 0;
  case ATTR_DENSE_ARRAY: return a->u.darray.n == 0;
  case ATTR_DENSE: return dense_num_elements(a) == 0;
  default: return false;
  }
}

/* Whether every element of an integer or bool list is v. */
static bool all_elements_are(const Attr *a, int64_t v) {
  if (a->kind == ATTR_DENSE_ARRAY && a->u.darray.ints) {
    for (int i = 0; i < a->u.darray.n; i++)
      if (a->u.darray.ints[i] != v) return false;
    return true;
  }
  if (a->kind != ATTR_DENSE || !elem_is_int(a->type->elem)) return false;
  int64_t n = dense_num_elements(a);
  for (int64_t i = 0; i < n; i++)
    if (dense_get_int(a, a->u.dense.splat ? 0 : i) != v) return false;
  return n >= 0;
}

static bool default_accuracy(const Attr *a) {
  if (a->kind != ATTR_DIALECT || strcmp(a->u.dialect.name, "stablehlo.result_accuracy") != 0) return false;
  const Attr *mode = dialect_param(a, "mode");
  const char *m = mode ? attr_enum_value(mode) : "DEFAULT";
  if (!m && mode && mode->kind == ATTR_DIALECT && mode->u.dialect.n == 1) m = attr_enum_value(mode->u.dialect.params[0].value);
  return param_zero(dialect_param(a, "atol")) && param_zero(dialect_param(a, "rtol")) &&
         param_zero(dialect_param(a, "ulps")) && m && strcmp(m, "DEFAULT") == 0;
}

static bool default_precisions(const Attr *a) {
  if (a->kind != ATTR_ARRAY) return false;
  for (int j = 0; j < a->u.array.n; j++) {
    const char *v = attr_enum_value(a->u.array.items[j]);
    if (!v || strcmp(v, "DEFAULT") != 0) return false;
  }
  return true;
}

static bool holds(const struct AttrDefault *d, const Attr *a) {
  switch (d->kind) {
  case FALSE: return a->kind == ATTR_BOOL && !a->u.b;
  case INT: return int_is(a, strtoll(d->value, NULL, 10));
  case ENUM: {
    const char *v = attr_enum_value(a);
    return v && strcmp(v, d->value) == 0;
  }
  case EMPTY: return is_empty(a);
  case ALL: return all_elements_are(a, strtoll(d->value, NULL, 10));
  case ACCURACY: return default_accuracy(a);
  case CHANNEL:
    return a->kind == ATTR_DIALECT && strcmp(a->u.dialect.name, "stablehlo.channel_handle") == 0 &&
           param_zero(dialect_param(a, "handle")) && param_zero(dialect_param(a, "type"));
  case PRECISION: return default_precisions(a);
  }
  return false;
}

bool attr_is_default(OpKind k, const char *name, const Attr *a) {
  for (size_t i = 0; i < sizeof attr_defaults / sizeof attr_defaults[0]; i++)
    if (attr_defaults[i].op == k && strcmp(attr_defaults[i].name, name) == 0) return holds(&attr_defaults[i], a);
  return false;
}
