/* Printing of types and attributes in MLIR syntax.
 *
 * Two flavours: the pretty (modern MLIR) spelling, and the "generic" one used
 * by --emit=mlir-generic, which every MLIR parser since LLVM 14 reads with
 * --allow-unregistered-dialect: dense arrays become dense<..> : tensor<N x T>
 * and dialect enums are quoted (#stablehlo<"comparison_direction LT">). */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/print.h"

static void print_type_list_results(FILE *out, int n, Type *const *types);

void print_type(FILE *out, const Type *t) {
  switch (t->kind) {
  case TY_ELEM: fputs_unlocked(elem_name(t->elem), out); return;
  case TY_TENSOR:
    fputs_unlocked("tensor<", out);
    if (t->rank < 0) fputs_unlocked("*x", out);
    for (int i = 0; i < t->rank; i++) {
      if (t->dims[i] == DIM_DYNAMIC) fputs_unlocked("?x", out);
      else fprintf(out, "%" PRId64 "x", t->dims[i]);
    }
    if (t->elem_opaque) print_type(out, t->elem_opaque);
    else fputs_unlocked(elem_name(t->elem), out);
    if (t->encoding) {
      fputs_unlocked(", ", out);
      print_attr(out, t->encoding, false);
    }
    fputc_unlocked('>', out);
    return;
  case TY_TUPLE:
    fputs_unlocked("tuple<", out);
    for (int i = 0; i < t->ninputs; i++) {
      if (i) fputs_unlocked(", ", out);
      print_type(out, t->inputs[i]);
    }
    fputc_unlocked('>', out);
    return;
  case TY_TOKEN: fputs_unlocked("!stablehlo.token", out); return;
  case TY_FUTURE:
    fputs_unlocked("!stablehlo.future<", out);
    for (int i = 0; i < t->ninputs; i++) {
      if (i) fputs_unlocked(", ", out);
      print_type(out, t->inputs[i]);
    }
    fputc_unlocked('>', out);
    return;
  case TY_NONE: fputs_unlocked("none", out); return;
  case TY_OPAQUE: fputs_unlocked(t->text, out); return;
  case TY_FUNC:
    fputc_unlocked('(', out);
    for (int i = 0; i < t->ninputs; i++) {
      if (i) fputs_unlocked(", ", out);
      print_type(out, t->inputs[i]);
    }
    fputs_unlocked(") -> ", out);
    print_type_list_results(out, t->nresults, t->results);
    return;
  }
}

/* A function type's results: one type bare (unless itself a function), else in parentheses. */
static void print_type_list_results(FILE *out, int n, Type *const *types) {
  bool parens = n != 1 || types[0]->kind == TY_FUNC;
  if (parens) fputc_unlocked('(', out);
  for (int i = 0; i < n; i++) {
    if (i) fputs_unlocked(", ", out);
    print_type(out, types[i]);
  }
  if (parens) fputc_unlocked(')', out);
}

/* s as a quoted MLIR string literal, escaping what needs it. */
static void print_escaped_string(FILE *out, const char *s, size_t len) {
  fputc_unlocked('"', out);
  for (size_t i = 0; i < len; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch == '"' || ch == '\\') fprintf(out, "\\%c", ch);
    else if (ch == '\n') fputs_unlocked("\\n", out);
    else if (ch == '\t') fputs_unlocked("\\t", out);
    else if (ch >= 0x20 && ch < 0x7f) fputc_unlocked(ch, out);
    else fprintf(out, "\\%02X", ch);
  }
  fputc_unlocked('"', out);
}

static bool is_bare_identifier(const char *s) {
  if (!*s || !(isalpha((unsigned char)*s) || *s == '_')) return false;
  for (; *s; s++)
    if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '$' || *s == '.')) return false;
  return true;
}

void print_symbol(FILE *out, const char *name) {
  fputc_unlocked('@', out);
  if (is_bare_identifier(name)) fputs_unlocked(name, out);
  else print_escaped_string(out, name, strlen(name));
}

/* Shortest decimal that reads back to the same value in kind k; always
 * contains '.' or 'e' so it lexes as a float.  Non-finite values print as
 * their bit pattern in hex, as MLIR does. */
void print_float_value(FILE *out, ElemKind k, uint64_t bits) {
  double v = float_bits_to_double(k, bits);
  if (!isfinite(v)) {
    int digits = elem_storage_bytes(k) * 2;
    fprintf(out, "0x%0*" PRIX64, digits, bits);
    return;
  }
  char buf[64];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
    double back = strtod(buf, NULL);
    /* Formats without inf and NaN saturate: a candidate beyond the largest
     * finite value would read back only by clamping. */
    if (double_to_float_bits(k, back) == bits && !(elem_float_saturates(k) && fabs(back) > elem_float_max(k)))
      break;
  }
  /* buf is d.ddde[+-]XX: write it as MLIR does (1.500000e+00 style is not
   * required; keep the shortest digits but a fixed exponent form). */
  char *e = strchr(buf, 'e');
  if (e && !strchr(buf, '.')) {
    /* "1e+00" -> "1.0e+00" */
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%.*s.0%s", (int)(e - buf), buf, e);
    strcpy(buf, tmp);
  }
  fputs_unlocked(buf, out);
}

/* Print one element of a dense attribute (no brackets). */
static void print_dense_element(FILE *out, const Attr *a, int64_t i) {
  ElemKind k = a->type->elem;
  if (k == ELEM_I1) {
    fputs_unlocked(dense_get_int(a, i) ? "true" : "false", out);
  } else if (elem_is_int(k) || k == ELEM_INDEX) {
    int64_t v = dense_get_int(a, i);
    if (elem_is_unsigned(k)) fprintf(out, "%" PRIu64, (uint64_t)v);
    else fprintf(out, "%" PRId64, v);
  } else if (elem_is_float(k)) {
    print_float_value(out, k, dense_get_bits(a, i));
  } else if (elem_is_complex(k)) {
    ElemKind part = elem_complex_part(k);
    int half = elem_storage_bytes(part);
    const uint8_t *p = a->u.dense.data + (a->u.dense.splat ? 0 : (size_t)i * (size_t)half * 2);
    uint64_t re = 0, im = 0;
    memcpy(&re, p, (size_t)half);
    memcpy(&im, p + half, (size_t)half);
    fputc_unlocked('(', out);
    print_float_value(out, part, re);
    fputs_unlocked(", ", out);
    print_float_value(out, part, im);
    fputc_unlocked(')', out);
  }
}

static void print_dense_nested(FILE *out, const Attr *a, int dim, int64_t *index) {
  const Type *t = a->type;
  if (dim == t->rank) {
    print_dense_element(out, a, *index);
    (*index)++;
    return;
  }
  fputc_unlocked('[', out);
  for (int64_t i = 0; i < t->dims[dim]; i++) {
    if (i) fputs_unlocked(", ", out);
    print_dense_nested(out, a, dim + 1, index);
  }
  fputc_unlocked(']', out);
}

/* MLIR 14 packs i1 hex data in bits; the generic form writes i1 as a list. */
static void print_dense_body(FILE *out, const Attr *a, bool generic) {
  int64_t n = dense_num_elements(a);
  if (a->u.dense.splat) {
    print_dense_element(out, a, 0);
  } else if (n == 0) {
    /* dense<> */
  } else if (a->u.dense.form == DENSE_HEX && !(generic && a->type->elem == ELEM_I1)) {
    fputs_unlocked("\"0x", out);
    for (size_t i = 0; i < a->u.dense.nbytes; i++) fprintf(out, "%02X", a->u.dense.data[i]);
    fputc_unlocked('"', out);
  } else {
    int64_t index = 0;
    print_dense_nested(out, a, 0, &index);
  }
}

/* Print an attribute as a parameter of a dialect attribute: integers without
 * their type, lists as [..], keywords bare. */
static void print_dialect_param(FILE *out, const Attr *a, bool generic) {
  switch (a->kind) {
  case ATTR_INT:
    if (a->u.i == DIM_DYNAMIC) fputc_unlocked('?', out);
    else fprintf(out, "%" PRId64, a->u.i);
    return;
  case ATTR_ARRAY:
    fputc_unlocked('[', out);
    for (int i = 0; i < a->u.array.n; i++) {
      if (i) fputs_unlocked(", ", out);
      print_dialect_param(out, a->u.array.items[i], generic);
    }
    fputc_unlocked(']', out);
    return;
  case ATTR_FLOAT:
    /* A bare float in a dialect attribute reads back as f64. */
    if (a->type->kind == TY_ELEM && a->type->elem == ELEM_F64) {
      print_float_value(out, ELEM_F64, a->u.f);
      return;
    }
    print_attr(out, a, generic);
    return;
  default: print_attr(out, a, generic); return;
  }
}

/* Is this parameter one upstream leaves out when printing: a zero
 * tolerance of #stablehlo.result_accuracy? */
static bool param_omitted(const Attr *d, const NamedAttr *na) {
  if (strcmp(d->u.dialect.name, "stablehlo.result_accuracy") != 0 || !na->name) return false;
  if (strcmp(na->name, "ulps") == 0) return na->value->kind == ATTR_INT && na->value->u.i == 0;
  if (strcmp(na->name, "atol") == 0 || strcmp(na->name, "rtol") == 0)
    return na->value->kind == ATTR_FLOAT && float_bits_to_double(na->value->type->elem, na->value->u.f) == 0.0;
  return false;
}

void print_dialect_body(FILE *out, const Attr *a, bool generic) {
  fputc_unlocked('<', out);
  bool first = true;
  for (int i = 0; i < a->u.dialect.n; i++) {
    const NamedAttr *na = &a->u.dialect.params[i];
    if (param_omitted(a, na)) continue;
    if (!first) fputs_unlocked(", ", out);
    first = false;
    if (na->name) fprintf(out, "%s = ", na->name);
    print_dialect_param(out, na->value, generic);
  }
  fputc_unlocked('>', out);
}

static void print_i64s(FILE *out, int n, const int64_t *v) {
  for (int i = 0; i < n; i++) {
    if (i) fputs_unlocked(", ", out);
    if (v[i] == DIM_DYNAMIC) fputc_unlocked('?', out);
    else fprintf(out, "%" PRId64, v[i]);
  }
}

/* [b, 0, 1, f] style list: spatial dims by position, named dims by letter. */
static void print_conv_layout(FILE *out, int rank, int64_t d0, char c0, int64_t d1, char c1, int nsp,
                              const int64_t *sp) {
  fputc_unlocked('[', out);
  for (int pos = 0; pos < rank; pos++) {
    if (pos) fputs_unlocked(", ", out);
    if (pos == d0) fputc_unlocked(c0, out);
    else if (pos == d1) fputc_unlocked(c1, out);
    else {
      int found = -1;
      for (int s = 0; s < nsp; s++)
        if (sp[s] == pos) found = s;
      if (found >= 0) fprintf(out, "%d", found);
      else fputc_unlocked('?', out);
    }
  }
  fputc_unlocked(']', out);
}

void print_conv_dims(FILE *out, const ConvDims *d) {
  int rank = d->nspatial + 2;
  print_conv_layout(out, rank, d->input_batch, 'b', d->input_feature, 'f', d->nspatial, d->input_spatial);
  fputc_unlocked('x', out);
  print_conv_layout(out, rank, d->kernel_input_feature, 'i', d->kernel_output_feature, 'o', d->nspatial,
                    d->kernel_spatial);
  fputs_unlocked("->", out);
  print_conv_layout(out, rank, d->output_batch, 'b', d->output_feature, 'f', d->nspatial, d->output_spatial);
}

/* Words an enum's body may show bare in the pretty form: letters, digits,
 * '_', '.', '$', '-' and spaces (anything else, read from a quoted body,
 * would not read back). */
static bool enum_words_bare(const char *s) {
  for (; s && *s; s++)
    if (!(isalnum((unsigned char)*s) || strchr("_.$- ", *s))) return false;
  return true;
}

/* #dialect<name value>, or the body as one escaped string: always in the
 * generic form (MLIR 14's #dialect<"name value">), and in the pretty form
 * when it is not plain words. */
static void print_enum(FILE *out, const Attr *a, bool generic) {
  const char *name = a->u.enm.enum_name, *value = a->u.enm.value;
  if (!a->u.enm.dialect) {
    fputs_unlocked(value, out);
    return;
  }
  fprintf(out, "#%s<", a->u.enm.dialect);
  if (!generic && enum_words_bare(name) && enum_words_bare(value)) {
    fprintf(out, "%s%s%s", name ? name : "", name ? " " : "", value);
  } else {
    size_t nl = name ? strlen(name) + 1 : 0, vl = strlen(value);
    char *body = xrealloc(NULL, nl + vl + 1);
    if (name) memcpy(body, name, nl - 1), body[nl - 1] = ' ';
    memcpy(body + nl, value, vl + 1);
    print_escaped_string(out, body, nl + vl);
    free(body);
  }
  fputc_unlocked('>', out);
}

/* array<i64: 1, 2>, or dense<[1, 2]> : tensor<2xi64> in generic form. */
static void print_dense_array(FILE *out, const Attr *a, bool generic) {
  const char *en = elem_name(a->u.darray.elem);
  int n = a->u.darray.n;
  if (generic) fputs_unlocked("dense<", out);
  else fprintf(out, "array<%s%s", en, n ? ": " : "");
  if (generic && n) fputc_unlocked('[', out);
  for (int i = 0; i < n; i++) {
    if (i) fputs_unlocked(", ", out);
    if (a->u.darray.elem == ELEM_I1) fputs_unlocked(a->u.darray.ints[i] ? "true" : "false", out);
    else if (a->u.darray.ints) fprintf(out, "%" PRId64, a->u.darray.ints[i]);
    else print_float_value(out, a->u.darray.elem, double_to_float_bits(a->u.darray.elem, a->u.darray.floats[i]));
  }
  if (generic) fprintf(out, "%s> : tensor<%dx%s>", n ? "]" : "", n, en);
  else fputc_unlocked('>', out);
}

/* #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, or its raw
 * form in generic form (old parsers cannot balance '->' inside <...>). */
static void print_conv_attr(FILE *out, const Attr *a, bool generic) {
  fputs_unlocked("#stablehlo.conv<", out);
  if (generic) {
    const ConvDims *d = &a->u.conv;
    fprintf(out, "raw input_batch_dimension = %" PRId64 ", input_feature_dimension = %" PRId64
                 ", input_spatial_dimensions = [", d->input_batch, d->input_feature);
    print_i64s(out, d->nspatial, d->input_spatial);
    fprintf(out, "], kernel_input_feature_dimension = %" PRId64 ", kernel_output_feature_dimension = %" PRId64
                 ", kernel_spatial_dimensions = [", d->kernel_input_feature, d->kernel_output_feature);
    print_i64s(out, d->nspatial, d->kernel_spatial);
    fprintf(out, "], output_batch_dimension = %" PRId64 ", output_feature_dimension = %" PRId64
                 ", output_spatial_dimensions = [", d->output_batch, d->output_feature);
    print_i64s(out, d->nspatial, d->output_spatial);
    fputc_unlocked(']', out);
  } else {
    print_conv_dims(out, &a->u.conv);
  }
  fputc_unlocked('>', out);
}

void print_attr(FILE *out, const Attr *a, bool generic) {
  switch (a->kind) {
  case ATTR_UNIT: fputs_unlocked("unit", out); return;
  case ATTR_BOOL: fputs_unlocked(a->u.b ? "true" : "false", out); return;
  case ATTR_INT:
    if (a->type->elem == ELEM_I1 && a->type->kind == TY_ELEM) {
      fputs_unlocked(a->u.i ? "true" : "false", out);
      return;
    }
    if (elem_is_unsigned(a->type->elem)) fprintf(out, "%" PRIu64, (uint64_t)a->u.i);
    else fprintf(out, "%" PRId64, a->u.i);
    fputs_unlocked(" : ", out);
    print_type(out, a->type);
    return;
  case ATTR_FLOAT:
    print_float_value(out, a->type->elem, a->u.f);
    fputs_unlocked(" : ", out);
    print_type(out, a->type);
    return;
  case ATTR_STRING: print_escaped_string(out, a->u.str.s, a->u.str.len); return;
  case ATTR_TYPE: print_type(out, a->type); return;
  case ATTR_SYMREF: print_symbol(out, a->u.str.s); return;
  case ATTR_ARRAY:
    fputc_unlocked('[', out);
    for (int i = 0; i < a->u.array.n; i++) {
      if (i) fputs_unlocked(", ", out);
      print_attr(out, a->u.array.items[i], generic);
    }
    fputc_unlocked(']', out);
    return;
  case ATTR_DICT:
    fputc_unlocked('{', out);
    for (int i = 0; i < a->u.dict.n; i++) {
      if (i) fputs_unlocked(", ", out);
      print_attr_name(out, a->u.dict.items[i].name);
      if (a->u.dict.items[i].value->kind != ATTR_UNIT) {
        fputs_unlocked(" = ", out);
        print_attr(out, a->u.dict.items[i].value, generic);
      }
    }
    fputc_unlocked('}', out);
    return;
  case ATTR_DENSE:
    fputs_unlocked("dense<", out);
    print_dense_body(out, a, generic);
    fputs_unlocked("> : ", out);
    print_type(out, a->type);
    return;
  case ATTR_DENSE_ARRAY: print_dense_array(out, a, generic); return;
  case ATTR_DENSE_RESOURCE:
    fprintf(out, "dense_resource<%s> : ", a->u.resource.name);
    print_type(out, a->type);
    return;
  case ATTR_ENUM: print_enum(out, a, generic); return;
  case ATTR_DIALECT:
    fprintf(out, "#%s", a->u.dialect.name);
    print_dialect_body(out, a, generic);
    return;
  case ATTR_CONV_DIMS: print_conv_attr(out, a, generic); return;
  case ATTR_INT_LIST:
    fputc_unlocked('[', out);
    print_i64s(out, a->u.ilist.n, a->u.ilist.v);
    fputc_unlocked(']', out);
    return;
  case ATTR_OPAQUE: fwrite_unlocked(a->u.str.s, 1, a->u.str.len, out); return;
  }
}

void print_attr_name(FILE *out, const char *name) {
  if (is_bare_identifier(name)) fputs_unlocked(name, out);
  else print_escaped_string(out, name, strlen(name));
}

static char *to_string(Context *c, void (*fn)(FILE *, const void *, bool), const void *p) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) die("open_memstream failed");
  fn(f, p, false);
  fclose(f);
  char *s = arena_strndup(&c->arena, buf, len);
  free(buf);
  return s;
}

static void type_thunk(FILE *f, const void *p, bool g) {
  (void)g;
  print_type(f, p);
}
static void attr_thunk(FILE *f, const void *p, bool g) { print_attr(f, p, g); }

char *type_to_string(Context *c, const Type *t) { return to_string(c, type_thunk, t); }
char *attr_to_string(Context *c, const Attr *a) { return to_string(c, attr_thunk, a); }
