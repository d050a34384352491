/* Attribute and type encodings of the bytecode writer: VHLO's (StableHLO's
 * VhloBytecode.cpp, codes from frontend/vhlo_codes.def) for VHLO ops, and
 * the builtin dialect's (MLIR's BuiltinDialectBytecode) for the module's
 * attributes, dictionaries and locations.  Each encoder runs twice: in
 * numbering mode it only numbers the attributes and types it refers to, in
 * emitting mode it writes bytes. */
#include <stdlib.h>
#include <string.h>

#include "frontend/bc_write.h"
#include "ir/quant.h"

/* ------------------------------------------------------------------ */
/* VHLO's code tables. */

enum {
#define VHLO_ATTR(id, code, mn, since) VA_##id = code,
#include "frontend/vhlo_codes.def"
#undef VHLO_ATTR
};

enum {
#define VHLO_TYPE(id, code, since) VT_##id = code,
#include "frontend/vhlo_codes.def"
#undef VHLO_TYPE
};

static const struct {
  int code;
  const char *mnemonic, *since;
} vhlo_attrs[] = {
#define VHLO_ATTR(id, code, mn, since) {code, mn, since},
#include "frontend/vhlo_codes.def"
#undef VHLO_ATTR
};

static const struct {
  int code;
  const char *name;
  int first;
  const char *words;
} vhlo_enums[] = {
#define VHLO_ENUM(id, name, first, words) {VA_##id, name, first, words},
#include "frontend/vhlo_codes.def"
#undef VHLO_ENUM
};

static const struct {
  int code;
  ElemKind kind;
  const char *since;
} vhlo_elems[] = {
#define VHLO_ELEM_TYPE(code, kind, since) {code, ELEM_##kind, since},
#include "frontend/vhlo_codes.def"
#undef VHLO_ELEM_TYPE
};

static const struct {
  int code;
  const char *since;
} vhlo_types[] = {
#define VHLO_TYPE(id, code, since) {code, since},
#include "frontend/vhlo_codes.def"
#undef VHLO_TYPE
};

/* Whether the target version has something introduced at version since;
 * a diagnostic naming what and since when if not (numbering mode only). */
static bool since_ok(BcW *w, const char *since, const char *what) {
  VhloVersion v;
  if (!vhlo_version_parse(since, &v)) die("bad version in vhlo_codes.def: %s", since);
  if (vhlo_version_cmp(w->target, v) >= 0) return true;
  if (w->numbering)
    bcw_error(w, "%s was introduced in StableHLO %s; it cannot be written for target version %d.%d.%d", what, since,
              w->target.major, w->target.minor, w->target.patch);
  return false;
}

static const char *attr_since(int code, const char **mnemonic) {
  for (size_t i = 0; i < sizeof vhlo_attrs / sizeof vhlo_attrs[0]; i++)
    if (vhlo_attrs[i].code == code) {
      *mnemonic = vhlo_attrs[i].mnemonic;
      return vhlo_attrs[i].since;
    }
  die("vhlo attribute code %d not in vhlo_codes.def", code);
}

static const char *type_since(int code) {
  for (size_t i = 0; i < sizeof vhlo_types / sizeof vhlo_types[0]; i++)
    if (vhlo_types[i].code == code) return vhlo_types[i].since;
  die("vhlo type code %d not in vhlo_codes.def", code);
}

/* ------------------------------------------------------------------ */
/* Primitives. */

static void w_varint(BcW *w, uint64_t v) {
  if (!w->numbering) bcb_varint(w->out, v);
}
static void w_svarint(BcW *w, int64_t v) {
  if (!w->numbering) bcb_svarint(w->out, v);
}
static void w_byte(BcW *w, uint8_t v) {
  if (!w->numbering) bcb_byte(w->out, v);
}
static void w_blob(BcW *w, const void *p, size_t n) {
  if (w->numbering) return;
  bcb_varint(w->out, n);
  bcb_bytes(w->out, p, n);
}
static void w_string(BcW *w, const char *s, size_t n) {
  if (!w->numbering) bcb_varint(w->out, bcw_string(w, s, n));
}

static void w_key(BcW *w, BcKey k) {
  if (w->numbering) {
    bcw_number_attr(w, &k);
    return;
  }
  BcEnt *e = bcw_find_attr(w, &k);
  if (!e) die("bytecode writer: attribute used but not numbered");
  bcb_varint(w->out, e->number);
}
static void w_attr(BcW *w, BcDom dom, const Attr *a) { w_key(w, bcw_key_attr(dom, a)); }

static void w_type(BcW *w, BcDom dom, const Type *t) {
  if (w->numbering) {
    bcw_number_type(w, dom, t);
    return;
  }
  BcEnt *e = bcw_find_type(w, dom, t);
  if (!e) die("bytecode writer: type used but not numbered");
  bcb_varint(w->out, e->number);
}

/* An APInt of the given width: a byte up to 8 bits, else a signed varint
 * of the zero-extended value (MLIR's writeAPIntWithKnownWidth). */
static void w_apint(BcW *w, uint64_t raw, int width) {
  if (width < 64) raw &= (UINT64_C(1) << width) - 1;
  if (width <= 8)
    w_byte(w, (uint8_t)raw);
  else
    w_svarint(w, (int64_t)raw);
}

static void w_svarints(BcW *w, int n, const int64_t *v) {
  w_varint(w, (uint64_t)n);
  for (int i = 0; i < n; i++) w_svarint(w, v[i]);
}

static uint64_t double_bits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

/* ------------------------------------------------------------------ */
/* Helpers over our attributes. */

static const Attr *param(const Attr *a, const char *name) {
  for (int i = 0; i < a->u.dialect.n; i++)
    if (a->u.dialect.params[i].name && strcmp(a->u.dialect.params[i].name, name) == 0)
      return a->u.dialect.params[i].value;
  return NULL;
}

/* An integer list parameter ([1, 2], array<i64: ..>, dense<..>). */
static bool param_list(BcW *w, const Attr *a, const char *name, int *n, const int64_t **v) {
  const Attr *p = param(a, name);
  if (!p) {
    *n = 0;
    return true;
  }
  if (p->kind == ATTR_INT_LIST) {
    *n = p->u.ilist.n;
    *v = p->u.ilist.v;
    return true;
  }
  return attr_as_i64_list(p, n, v, &w->c->arena);
}

static bool param_int(const Attr *a, const char *name, int64_t *v) {
  const Attr *p = param(a, name);
  *v = 0;
  return !p || attr_as_int(p, v);
}

/* A tolerance parameter as the f64 APFloat bits VHLO writes. */
static uint64_t param_f64(const Attr *a, const char *name) {
  const Attr *p = param(a, name);
  if (!p) return 0;
  if (p->kind == ATTR_FLOAT) return double_bits(float_bits_to_double(type_elem_kind(p->type), p->u.f));
  int64_t i;
  return attr_as_int(p, &i) ? double_bits((double)i) : 0;
}

/* The VHLO enum attribute code and value of a (#stablehlo<name WORD>, or
 * #stablehlo.name<WORD>); false if a is no enum VHLO knows. */
static bool vhlo_enum(const Attr *a, int *code, uint64_t *value) {
  const char *name = NULL, *word = NULL;
  if (a->kind == ATTR_ENUM && a->u.enm.enum_name) {
    name = a->u.enm.enum_name;
    word = a->u.enm.value;
  } else if (a->kind == ATTR_DIALECT && strncmp(a->u.dialect.name, "stablehlo.", 10) == 0 && a->u.dialect.n == 1 &&
             !a->u.dialect.params[0].name && a->u.dialect.params[0].value->kind == ATTR_ENUM) {
    name = a->u.dialect.name + 10;
    word = a->u.dialect.params[0].value->u.enm.value;
  }
  if (!name || !word) return false;
  size_t wl = strlen(word);
  for (size_t i = 0; i < sizeof vhlo_enums / sizeof vhlo_enums[0]; i++) {
    if (strcmp(vhlo_enums[i].name, name) != 0) continue;
    int idx = 0;
    for (const char *s = vhlo_enums[i].words; *s; idx++) {
      const char *e = strchr(s, ' ');
      size_t l = e ? (size_t)(e - s) : strlen(s);
      if (l == wl && memcmp(s, word, l) == 0) {
        *code = vhlo_enums[i].code;
        *value = (uint64_t)(vhlo_enums[i].first + idx);
        return true;
      }
      s += l;
      while (*s == ' ') s++;
    }
  }
  return false;
}

/* ------------------------------------------------------------------ */
/* Dense data (MLIR's raw buffer: one element for a splat; i1 packed in bits, a
 * splat one byte 0x00 or 0xFF), alike for builtin and VHLO tensors. */

static void w_dense_data(BcW *w, const Attr *a) {
  const Type *t = a->type;
  ElemKind k = type_elem_kind(t);
  size_t esz = (size_t)elem_storage_bytes(k);
  int64_t n = 1;
  for (int d = 0; d < t->rank; d++) n *= t->dims[d];
  const uint8_t *p = a->u.dense.data;
  size_t nbytes = a->u.dense.nbytes;
  bool splat = a->u.dense.splat || n <= 1;
  for (size_t off = esz; !splat && off < nbytes && memcmp(p, p + off, esz) == 0;) {
    off += esz;
    if (off >= nbytes) splat = true;
  }
  if (splat && nbytes > esz) nbytes = esz;
  if (k != ELEM_I1 || t->rank < 0) {
    w_blob(w, p, nbytes);
    return;
  }
  if (w->numbering) return;
  if (splat && n > 1) {
    uint8_t b = nbytes && p[0] ? 0xFF : 0x00;
    w_blob(w, &b, 1);
    return;
  }
  size_t packed = (size_t)(n + 7) / 8;
  uint8_t *bits = xcalloc(packed ? packed : 1, 1);
  for (int64_t i = 0; i < n && (size_t)i < nbytes; i++)
    if (p[i]) bits[i / 8] |= (uint8_t)(1u << (i % 8));
  w_blob(w, bits, packed);
  free(bits);
}

/* ------------------------------------------------------------------ */
/* VHLO attributes. */

/* The code of an attribute the target version must have, or -1. */
static int vhlo_code(BcW *w, int code) {
  const char *mn;
  const char *since = attr_since(code, &mn);
  char what[96];
  snprintf(what, sizeof what, "attribute vhlo.%s", mn);
  return since_ok(w, since, what) ? code : -1;
}

/* #stablehlo.sub_axis_info<(PRE)SIZE> as a structured attribute. */
static const Attr *sub_axis_info(BcW *w, int64_t pre, int64_t size) {
  NamedAttr p[2] = {{"pre_size", attr_i64(w->c, pre)}, {"size", attr_i64(w->c, size)}};
  return attr_dialect(w->c, "stablehlo.sub_axis_info", 2, p);
}

/* axis_ref_v1: name, then 1 and the sub-axis info or 0. */
static void vhlo_axis_ref(BcW *w, const char *name, size_t len, const Attr *sub) {
  if (vhlo_code(w, VA_AXIS_REF) < 0) return;
  w_varint(w, VA_AXIS_REF);
  w_key(w, bcw_key_str(BCD_VHLO, name, len));
  w_varint(w, sub ? 1 : 0);
  if (sub) w_attr(w, BCD_VHLO, sub);
}

/* #stablehlo.axis_ref<name = "x", sub_axis_info = (1)2> kept as text. */
static void vhlo_axis_ref_text(BcW *w, const char *t) {
  const char *q = strstr(t, "name = \"");
  const char *e = q ? strchr(q + 8, '"') : NULL;
  if (!e) {
    bcw_error(w, "attribute %s cannot be written as a VHLO attribute", t);
    return;
  }
  const Attr *sub = NULL;
  const char *s = strstr(e, "sub_axis_info = (");
  if (s) {
    char *end;
    long long pre = strtoll(s + 17, &end, 10);
    if (*end != ')') {
      bcw_error(w, "attribute %s cannot be written as a VHLO attribute", t);
      return;
    }
    sub = sub_axis_info(w, pre, strtoll(end + 1, NULL, 10));
  }
  vhlo_axis_ref(w, q + 8, (size_t)(e - q - 8), sub);
}

/* The mesh-related attributes of StableHLO 1.16 on. */
static bool vhlo_mesh_attr(BcW *w, const Attr *a) {
  const char *name = a->u.dialect.name;
  int64_t x, y;
  if (strcmp(name, "stablehlo.sub_axis_info") == 0) {
    if (vhlo_code(w, VA_SUB_AXIS_INFO) < 0) return true;
    param_int(a, "pre_size", &x);
    param_int(a, "size", &y);
    w_varint(w, VA_SUB_AXIS_INFO);
    w_svarint(w, x);
    w_svarint(w, y);
    return true;
  }
  if (strcmp(name, "stablehlo.axis_ref") == 0) {
    const Attr *n = param(a, "name"), *sub = param(a, "sub_axis_info");
    if (!n || n->kind != ATTR_STRING) return false;
    vhlo_axis_ref(w, n->u.str.s, n->u.str.len, sub);
    return true;
  }
  if (strcmp(name, "stablehlo.mesh_axis") == 0) {
    const Attr *n = param(a, "name");
    if (!n || n->kind != ATTR_STRING || !param_int(a, "size", &x) || vhlo_code(w, VA_MESH_AXIS) < 0) return n != NULL;
    w_varint(w, VA_MESH_AXIS);
    w_key(w, bcw_key_str(BCD_VHLO, n->u.str.s, n->u.str.len));
    w_svarint(w, x);
    return true;
  }
  if (strcmp(name, "stablehlo.replica_group_mesh_axes") == 0) {
    const Attr *mesh = param(a, "mesh"), *axes = param(a, "axes");
    if (!mesh || !axes) return false;
    if (vhlo_code(w, VA_REPLICA_GROUP_MESH_AXES) < 0) return true;
    w_varint(w, VA_REPLICA_GROUP_MESH_AXES);
    if (mesh->kind == ATTR_SYMREF)
      w_key(w, bcw_key_str(BCD_VHLO, mesh->u.str.s, strlen(mesh->u.str.s)));
    else
      w_attr(w, BCD_VHLO, mesh);
    w_attr(w, BCD_VHLO, axes);
    return true;
  }
  return false;
}

static void vhlo_dialect_attr(BcW *w, const Attr *a) {
  const char *name = a->u.dialect.name;
  if (vhlo_mesh_attr(w, a)) return;
  if (strcmp(name, "stablehlo.bounds") == 0 || strcmp(name, "stablehlo.type_extensions") == 0) {
    if (vhlo_code(w, VA_TYPE_EXTENSIONS) < 0) return;
    int n;
    const NamedAttr *ps = a->u.dialect.params;
    w_varint(w, VA_TYPE_EXTENSIONS);
    const int64_t *list;
    if (a->u.dialect.n == 1 && ps[0].name && param_list(w, a, "bounds", &n, &list)) {
      w_svarints(w, n, list);
      return;
    }
    w_varint(w, (uint64_t)a->u.dialect.n);
    for (int i = 0; i < a->u.dialect.n; i++) {
      int64_t v = DIM_DYNAMIC;
      if (ps[i].value->kind != ATTR_ENUM) attr_as_int(ps[i].value, &v);
      w_svarint(w, v);
    }
    return;
  }
  if (strcmp(name, "stablehlo.output_operand_alias") == 0) {
    int no, nt;
    const int64_t *out, *tup;
    int64_t idx;
    if (vhlo_code(w, VA_OUTPUT_OPERAND_ALIAS) < 0) return;
    if (!param_list(w, a, "output_tuple_indices", &no, &out) || !param_int(a, "operand_index", &idx) ||
        !param_list(w, a, "operand_tuple_indices", &nt, &tup)) {
      bcw_error(w, "malformed #stablehlo.output_operand_alias");
      return;
    }
    w_varint(w, VA_OUTPUT_OPERAND_ALIAS);
    w_svarints(w, no, out);
    w_svarint(w, idx);
    w_svarints(w, nt, tup);
    return;
  }
  if (strcmp(name, "stablehlo.result_accuracy") == 0) {
    int64_t ulps;
    const Attr *mode = param(a, "mode");
    if (vhlo_code(w, VA_RESULT_ACCURACY) < 0) return;
    if (!param_int(a, "ulps", &ulps) || !mode) {
      bcw_error(w, "malformed #stablehlo.result_accuracy");
      return;
    }
    w_varint(w, VA_RESULT_ACCURACY);
    w_svarint(w, (int64_t)param_f64(a, "atol"));
    w_svarint(w, (int64_t)param_f64(a, "rtol"));
    w_svarint(w, ulps);
    w_attr(w, BCD_VHLO, mode);
    return;
  }
  int code;
  uint64_t v;
  if (vhlo_enum(a, &code, &v)) {
    if (vhlo_code(w, code) < 0) return;
    w_varint(w, (uint64_t)code);
    w_varint(w, v);
    return;
  }
  bcw_error(w, "attribute #%s cannot be written as a VHLO attribute", name);
}

static void vhlo_attr(BcW *w, const Attr *a) {
  int code;
  uint64_t v;
  switch (a->kind) {
  case ATTR_ARRAY:
    w_varint(w, VA_ARRAY);
    w_varint(w, (uint64_t)a->u.array.n);
    for (int i = 0; i < a->u.array.n; i++) w_attr(w, BCD_VHLO, a->u.array.items[i]);
    return;
  case ATTR_BOOL:
    w_varint(w, VA_BOOLEAN);
    w_varint(w, a->u.b ? 1 : 0);
    return;
  case ATTR_DICT:
    w_varint(w, VA_DICTIONARY);
    w_varint(w, (uint64_t)a->u.dict.n);
    for (int i = 0; i < a->u.dict.n; i++) {
      const char *nm = a->u.dict.items[i].name;
      w_key(w, bcw_key_str(BCD_VHLO, nm, strlen(nm)));
      w_attr(w, BCD_VHLO, a->u.dict.items[i].value);
    }
    return;
  case ATTR_FLOAT:
    w_varint(w, VA_FLOAT);
    w_type(w, BCD_VHLO, a->type);
    w_apint(w, a->u.f, elem_bits(type_elem_kind(a->type)));
    return;
  case ATTR_INT:
    w_varint(w, VA_INTEGER);
    w_type(w, BCD_VHLO, a->type);
    w_apint(w, (uint64_t)a->u.i, elem_bits(type_elem_kind(a->type)));
    return;
  case ATTR_DENSE:
    w_varint(w, VA_TENSOR);
    w_type(w, BCD_VHLO, a->type);
    w_dense_data(w, a);
    return;
  case ATTR_TYPE:
    w_varint(w, VA_TYPE);
    w_type(w, BCD_VHLO, a->type);
    return;
  case ATTR_ENUM:
    if (!vhlo_enum(a, &code, &v)) break;
    if (vhlo_code(w, code) < 0) return;
    w_varint(w, (uint64_t)code);
    w_varint(w, v);
    return;
  case ATTR_DIALECT: vhlo_dialect_attr(w, a); return;
  case ATTR_OPAQUE:
    if (strncmp(a->u.str.s, "#stablehlo.axis_ref<", 20) == 0) {
      vhlo_axis_ref_text(w, a->u.str.s);
      return;
    }
    break;
  default: break;
  }
  char *text = attr_to_string(w->c, a);
  bcw_error(w, "attribute %s cannot be written as a VHLO attribute", text);
}

/* ------------------------------------------------------------------ */
/* Builtin attributes. */

static void builtin_attr(BcW *w, const Attr *a) {
  switch (a->kind) {
  case ATTR_ARRAY:
    w_varint(w, 0);
    w_varint(w, (uint64_t)a->u.array.n);
    for (int i = 0; i < a->u.array.n; i++) w_attr(w, BCD_BUILTIN, a->u.array.items[i]);
    return;
  case ATTR_DICT:
    w_varint(w, 1);
    w_varint(w, (uint64_t)a->u.dict.n);
    for (int i = 0; i < a->u.dict.n; i++) {
      const char *nm = a->u.dict.items[i].name;
      w_key(w, bcw_key_str(BCD_BUILTIN, nm, strlen(nm)));
      w_attr(w, BCD_BUILTIN, a->u.dict.items[i].value);
    }
    return;
  case ATTR_SYMREF:
    if (!strstr(a->u.str.s, "::")) {
      w_varint(w, 4);
      w_key(w, bcw_key_str(BCD_BUILTIN, a->u.str.s, strlen(a->u.str.s)));
      return;
    }
    break;
  case ATTR_TYPE:
    w_varint(w, 6);
    w_type(w, BCD_BUILTIN, a->type);
    return;
  case ATTR_UNIT: w_varint(w, 7); return;
  case ATTR_BOOL:
    w_varint(w, 8);
    w_type(w, BCD_BUILTIN, type_elem(w->c, ELEM_I1));
    w_byte(w, a->u.b ? 1 : 0);
    return;
  case ATTR_INT:
    w_varint(w, 8);
    w_type(w, BCD_BUILTIN, a->type);
    w_apint(w, (uint64_t)a->u.i, elem_bits(type_elem_kind(a->type)));
    return;
  case ATTR_FLOAT:
    w_varint(w, 9);
    w_type(w, BCD_BUILTIN, a->type);
    w_apint(w, a->u.f, elem_bits(type_elem_kind(a->type)));
    return;
  case ATTR_DENSE:
    w_varint(w, 18);
    w_type(w, BCD_BUILTIN, a->type);
    w_dense_data(w, a);
    return;
  case ATTR_DENSE_ARRAY: {
    ElemKind k = a->u.darray.elem;
    size_t esz = (size_t)elem_storage_bytes(k);
    w_varint(w, 17);
    w_type(w, BCD_BUILTIN, type_elem(w->c, k));
    w_varint(w, (uint64_t)a->u.darray.n);
    if (w->numbering) return;
    uint8_t *raw = xcalloc((size_t)a->u.darray.n + 1, esz);
    for (int i = 0; i < a->u.darray.n; i++) {
      uint64_t bits = elem_is_float(k) ? double_to_float_bits(k, a->u.darray.floats[i]) : (uint64_t)a->u.darray.ints[i];
      memcpy(raw + (size_t)i * esz, &bits, esz);
    }
    w_blob(w, raw, (size_t)a->u.darray.n * esz);
    free(raw);
    return;
  }
  default: break;
  }
  char *text = attr_to_string(w->c, a);
  bcw_error(w, "module attribute %s cannot be written as bytecode", text);
}

/* ------------------------------------------------------------------ */
/* Other dialects' attributes and types (a mixed module's non-VHLO ops):
 * CHLO's two enums in ChloBytecode.cpp's encoding, builtin values in
 * BuiltinDialectBytecode's, anything else as MLIR assembly text, as MLIR's
 * writer falls back to for a dialect without a bytecode interface. */

/* Whether builtin element type k has a builtin encoding here. */
static bool builtin_elem_ok(ElemKind k) {
  if (elem_is_complex(k)) k = elem_complex_part(k);
  return k == ELEM_INDEX || elem_is_int(k) || k == ELEM_BF16 || k == ELEM_F16 || k == ELEM_F32 || k == ELEM_F64;
}

/* Whether t (and every type in it) has a builtin encoding here. */
static bool builtin_type_ok(const Type *t, int depth) {
  if (depth > 64) return false;
  switch (t->kind) {
  case TY_ELEM: return builtin_elem_ok(t->elem);
  case TY_TENSOR: return !t->encoding && !t->elem_opaque && builtin_elem_ok(t->elem);
  case TY_NONE: return true;
  case TY_TUPLE:
  case TY_FUNC:
    for (int i = 0; i < t->ninputs; i++)
      if (!builtin_type_ok(t->inputs[i], depth + 1)) return false;
    for (int i = 0; t->kind == TY_FUNC && i < t->nresults; i++)
      if (!builtin_type_ok(t->results[i], depth + 1)) return false;
    return true;
  default: return false;
  }
}

BcDom bcw_type_dom(BcDom dom, const Type *t) {
  return dom == BCD_BUILTIN && !builtin_type_ok(t, 0) ? BCD_TEXT : dom;
}

/* Whether a is one of CHLO's enums with a CHLO encoding (its code in *code). */
static bool chlo_enum(const Attr *a, int *code) {
  if (a->kind != ATTR_ENUM || !a->u.enm.dialect || strcmp(a->u.enm.dialect, "chlo") != 0 || !a->u.enm.enum_name)
    return false;
  *code = strcmp(a->u.enm.enum_name, "comparison_direction") == 0 ? 0
        : strcmp(a->u.enm.enum_name, "comparison_type") == 0    ? 1
                                                                : -1;
  return *code >= 0;
}

/* Whether builtin value a has a builtin encoding here (its nested
 * attributes and types are numbered on their own). */
static bool builtin_attr_ok(const Attr *a) {
  switch (a->kind) {
  case ATTR_ARRAY:
  case ATTR_DICT:
  case ATTR_TYPE:
  case ATTR_UNIT:
  case ATTR_BOOL:
  case ATTR_DENSE_ARRAY: return true;
  case ATTR_SYMREF: return !strstr(a->u.str.s, "::");
  case ATTR_INT:
  case ATTR_FLOAT: return a->type && a->type->kind == TY_ELEM && builtin_elem_ok(a->type->elem);
  case ATTR_DENSE: return a->type && a->type->kind == TY_TENSOR && builtin_type_ok(a->type, 0);
  default: return false;
  }
}

BcDom bcw_attr_dom(BcDom dom, const Attr *a) {
  int code;
  if (dom != BCD_BUILTIN) return dom;
  if (chlo_enum(a, &code)) return BCD_CHLO;
  return builtin_attr_ok(a) ? BCD_BUILTIN : BCD_TEXT;
}

/* The assembly text of a BCD_TEXT entry. */
static const char *ent_text(BcW *w, const BcEnt *e) {
  return e->is_type ? type_to_string(w->c, e->t) : attr_to_string(w->c, e->k.a);
}

const char *bcw_text_dialect(BcW *w, const BcEnt *e, size_t *len) {
  const char *s = ent_text(w, e);
  if (*s != '#' && *s != '!') {
    *len = strlen("builtin");
    return "builtin";
  }
  *len = strcspn(s + 1, ".<");
  return s + 1;
}

/* A CHLO enum: its code and value (ChloBytecode.cpp). */
static void chlo_attr(BcW *w, const Attr *a) {
  int code, vcode;
  uint64_t v;
  if (!chlo_enum(a, &code) || !vhlo_enum(a, &vcode, &v)) {
    bcw_error(w, "attribute %s cannot be written as a CHLO attribute", attr_to_string(w->c, a));
    return;
  }
  w_varint(w, (uint64_t)code);
  w_varint(w, v);
}

/* An entry as NUL-terminated assembly text. */
static void text_entry(BcW *w, const BcEnt *e) {
  if (w->numbering) return;
  const char *s = ent_text(w, e);
  bcb_bytes(w->out, s, strlen(s) + 1);
}

void bcw_encode_attr(BcW *w, const BcEnt *e) {
  const BcKey *k = &e->k;
  switch ((BcAttrClass)k->cls) {
  case BCA_STR:
    w_varint(w, k->dom == BCD_VHLO ? VA_STRING : 2);
    w_string(w, k->s, k->n);
    return;
  case BCA_OPDICT:
    w_varint(w, 1);
    w_varint(w, (uint64_t)k->nattrs);
    for (int i = 0; i < k->nattrs; i++) {
      const char *nm = k->attrs[i].name;
      w_key(w, bcw_key_str(BCD_BUILTIN, nm, strlen(nm)));
      w_attr(w, (BcDom)k->vdom, k->attrs[i].value);
    }
    return;
  case BCA_UNKNOWN_LOC: w_varint(w, 15); return;
  case BCA_ATTR:
    if (k->dom == BCD_VHLO) vhlo_attr(w, k->a);
    else if (k->dom == BCD_CHLO) chlo_attr(w, k->a);
    else if (k->dom == BCD_TEXT) text_entry(w, e);
    else builtin_attr(w, k->a);
    return;
  }
}

/* ------------------------------------------------------------------ */
/* Types. */

static void w_types(BcW *w, BcDom dom, int n, Type *const *ts) {
  w_varint(w, (uint64_t)n);
  for (int i = 0; i < n; i++) w_type(w, dom, ts[i]);
}

static const Type *tensor_elem(BcW *w, const Type *t) {
  return t->elem_opaque ? t->elem_opaque : type_elem(w->c, t->elem);
}

static void vhlo_elem(BcW *w, ElemKind k) {
  if (elem_is_complex(k)) {
    if (!since_ok(w, type_since(VT_COMPLEX), "type vhlo.complex_v1")) return;
    w_varint(w, VT_COMPLEX);
    w_type(w, BCD_VHLO, type_elem(w->c, elem_complex_part(k)));
    return;
  }
  for (size_t i = 0; i < sizeof vhlo_elems / sizeof vhlo_elems[0]; i++) {
    if (vhlo_elems[i].kind != k) continue;
    char what[64];
    snprintf(what, sizeof what, "element type %s", elem_name(k));
    if (since_ok(w, vhlo_elems[i].since, what)) w_varint(w, (uint64_t)vhlo_elems[i].code);
    return;
  }
  bcw_error(w, "element type %s has no VHLO encoding", elem_name(k));
}

/* !quant.uniform: VHLO's uniform_quantized(_per_axis)_v1. */
static void vhlo_quant(BcW *w, const QuantType *q) {
  bool per_axis = q->axis >= 0;
  int code = per_axis ? VT_UNIFORM_QUANTIZED_PER_AXIS : VT_UNIFORM_QUANTIZED;
  if (!since_ok(w, type_since(code), per_axis ? "type vhlo.uniform_quantized_per_axis_v1" : "type vhlo.uniform_quantized_v1"))
    return;
  w_varint(w, (uint64_t)code);
  w_varint(w, q->is_signed ? 1 : 0);
  w_type(w, BCD_VHLO, type_elem(w->c, q->storage));
  w_type(w, BCD_VHLO, type_elem(w->c, q->expressed));
  if (!per_axis) {
    w_svarint(w, (int64_t)double_bits(q->scales[0]));
    w_svarint(w, q->zero_points[0]);
    w_svarint(w, q->storage_min);
    w_svarint(w, q->storage_max);
    return;
  }
  w_varint(w, (uint64_t)q->axis);
  w_svarint(w, q->storage_min);
  w_svarint(w, q->storage_max);
  w_varint(w, (uint64_t)q->nscales);
  for (int i = 0; i < q->nscales; i++) w_svarint(w, (int64_t)double_bits(q->scales[i]));
  w_varint(w, (uint64_t)q->nscales);
  for (int i = 0; i < q->nscales; i++) w_svarint(w, q->zero_points[i]);
}

/* "memref<2x?xf32>": VHLO's ranked buffer. */
static void vhlo_memref(BcW *w, const char *s) {
  int64_t dims[64];
  int n = 0;
  s += strlen("memref<");
  for (;;) {
    char *end;
    if (*s == '?') {
      if (s[1] != 'x' || n == 64) break;
      dims[n++] = DIM_DYNAMIC;
      s += 2;
      continue;
    }
    long long v = strtoll(s, &end, 10);
    if (end == s || *end != 'x' || n == 64) break;
    dims[n++] = v;
    s = end + 1;
  }
  const char *close = strchr(s, '>');
  ElemKind k;
  if (!close || close[1] || !elem_from_name(s, (size_t)(close - s), &k)) {
    bcw_error(w, "buffer type memref<%s cannot be written", s);
    return;
  }
  if (!since_ok(w, type_since(VT_RANKED_BUFFER), "type vhlo.buffer_v1")) return;
  w_varint(w, VT_RANKED_BUFFER);
  w_svarints(w, n, dims);
  w_type(w, BCD_VHLO, type_elem(w->c, k));
}

static bool vhlo_type_code(BcW *w, int code, const char *what) {
  if (!since_ok(w, type_since(code), what)) return false;
  w_varint(w, (uint64_t)code);
  return true;
}

static void vhlo_type(BcW *w, const Type *t) {
  switch (t->kind) {
  case TY_ELEM: vhlo_elem(w, t->elem); return;
  case TY_TENSOR:
    if (t->rank < 0) {
      if (vhlo_type_code(w, VT_UNRANKED_TENSOR, "type vhlo.unranked_tensor_v1")) w_type(w, BCD_VHLO, tensor_elem(w, t));
      return;
    }
    if (t->encoding) {
      w_varint(w, VT_RANKED_TENSOR_ENCODED);
      w_attr(w, BCD_VHLO, t->encoding);
    } else {
      w_varint(w, VT_RANKED_TENSOR);
    }
    w_svarints(w, t->rank, t->dims);
    w_type(w, BCD_VHLO, tensor_elem(w, t));
    return;
  case TY_TUPLE:
    w_varint(w, VT_TUPLE);
    w_types(w, BCD_VHLO, t->ninputs, t->inputs);
    return;
  case TY_TOKEN: w_varint(w, VT_TOKEN); return;
  case TY_FUNC:
    w_varint(w, VT_FUNCTION);
    w_types(w, BCD_VHLO, t->ninputs, t->inputs);
    w_types(w, BCD_VHLO, t->nresults, t->results);
    return;
  case TY_NONE: vhlo_type_code(w, VT_NONE, "type vhlo.none_v1"); return;
  case TY_FUTURE:
    if (vhlo_type_code(w, VT_FUTURE, "type vhlo.future_v1")) w_types(w, BCD_VHLO, t->ninputs, t->inputs);
    return;
  case TY_OPAQUE:
    if (t->quant) {
      vhlo_quant(w, t->quant);
      return;
    }
    if (strcmp(t->text, "!shape.witness") == 0) {
      vhlo_type_code(w, VT_WITNESS, "type vhlo.witness_v1");
      return;
    }
    if (strncmp(t->text, "memref<", 7) == 0) {
      vhlo_memref(w, t->text);
      return;
    }
    bcw_error(w, "type %s cannot be written as a VHLO type", t->text);
    return;
  }
}

/* Builtin element types: integers, index and the four IEEE-like floats. */
static void builtin_elem(BcW *w, ElemKind k) {
  static const struct {
    ElemKind k;
    int code;
  } floats[] = {{ELEM_BF16, 3}, {ELEM_F16, 4}, {ELEM_F32, 5}, {ELEM_F64, 6}};
  if (k == ELEM_INDEX) {
    w_varint(w, 1);
    return;
  }
  if (elem_is_int(k)) {
    ElemClass cl = elem_class(k);
    w_varint(w, 0);
    w_varint(w, (uint64_t)elem_bits(k) << 2 | (cl == EC_SINT ? 1 : cl == EC_UINT ? 2 : 0));
    return;
  }
  if (elem_is_complex(k)) {
    w_varint(w, 9);
    w_type(w, BCD_BUILTIN, type_elem(w->c, elem_complex_part(k)));
    return;
  }
  for (size_t i = 0; i < sizeof floats / sizeof floats[0]; i++)
    if (floats[i].k == k) {
      w_varint(w, (uint64_t)floats[i].code);
      return;
    }
  bcw_error(w, "builtin type %s cannot be written", elem_name(k));
}

static void builtin_type(BcW *w, const Type *t) {
  switch (t->kind) {
  case TY_ELEM: builtin_elem(w, t->elem); return;
  case TY_TENSOR:
    if (t->encoding || t->elem_opaque) break;
    if (t->rank < 0) {
      w_varint(w, 18);
    } else {
      w_varint(w, 13);
      w_svarints(w, t->rank, t->dims);
    }
    w_type(w, BCD_BUILTIN, type_elem(w->c, t->elem));
    return;
  case TY_FUNC:
    w_varint(w, 2);
    w_types(w, BCD_BUILTIN, t->ninputs, t->inputs);
    w_types(w, BCD_BUILTIN, t->nresults, t->results);
    return;
  case TY_NONE: w_varint(w, 12); return;
  case TY_TUPLE:
    w_varint(w, 15);
    w_types(w, BCD_BUILTIN, t->ninputs, t->inputs);
    return;
  default: break;
  }
  bcw_error(w, "type %s in a module attribute cannot be written", type_to_string(w->c, t));
}

void bcw_encode_type(BcW *w, const BcEnt *e) {
  if (e->dom == BCD_VHLO) vhlo_type(w, e->t);
  else if (e->dom == BCD_TEXT) text_entry(w, e);
  else builtin_type(w, e->t);
}

/* ------------------------------------------------------------------ */
/* Hashing. */

static uint32_t mix(uint32_t h, uint64_t v) {
  h ^= (uint32_t)v + 0x9e3779b9u + (h << 6) + (h >> 2);
  h ^= (uint32_t)(v >> 32) + 0x9e3779b9u + (h << 6) + (h >> 2);
  return h;
}

static uint32_t hash_bytes(const void *p, size_t n, uint32_t h) {
  const uint8_t *s = p;
  for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 16777619u;
  return h;
}

static uint32_t hash_str(const char *s, uint32_t h) { return s ? hash_bytes(s, strlen(s), h) : h; }

uint32_t bcw_hash_attr(const Attr *a) {
  if (!a) return 0;
  uint32_t h = mix(2166136261u, (uint64_t)a->kind);
  h = mix(h, (uint64_t)(uintptr_t)a->type);
  switch (a->kind) {
  case ATTR_BOOL: return mix(h, a->u.b);
  case ATTR_INT: return mix(h, (uint64_t)a->u.i);
  case ATTR_FLOAT: return mix(h, a->u.f);
  case ATTR_STRING:
  case ATTR_SYMREF:
  case ATTR_OPAQUE: return hash_bytes(a->u.str.s, a->u.str.len, h);
  case ATTR_ARRAY:
    for (int i = 0; i < a->u.array.n; i++) h = mix(h, bcw_hash_attr(a->u.array.items[i]));
    return h;
  case ATTR_DICT:
    for (int i = 0; i < a->u.dict.n; i++)
      h = mix(hash_str(a->u.dict.items[i].name, h), bcw_hash_attr(a->u.dict.items[i].value));
    return h;
  case ATTR_DENSE: return hash_bytes(a->u.dense.data, a->u.dense.nbytes, mix(h, a->u.dense.splat));
  case ATTR_DENSE_ARRAY: return mix(mix(h, (uint64_t)a->u.darray.elem), (uint64_t)a->u.darray.n);
  case ATTR_DENSE_RESOURCE: return hash_str(a->u.resource.name, h);
  case ATTR_ENUM: return hash_str(a->u.enm.value, hash_str(a->u.enm.enum_name, h));
  case ATTR_DIALECT:
    h = hash_str(a->u.dialect.name, h);
    for (int i = 0; i < a->u.dialect.n; i++) h = mix(h, bcw_hash_attr(a->u.dialect.params[i].value));
    return h;
  case ATTR_INT_LIST: return hash_bytes(a->u.ilist.v, sizeof(int64_t) * (size_t)a->u.ilist.n, h);
  default: return h;
  }
}
