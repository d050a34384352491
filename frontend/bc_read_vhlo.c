/* MLIR bytecode reader: VHLO's attribute and type encodings (StableHLO's
 * VhloBytecode.cpp; codes from frontend/vhlo_codes.def) and CHLO's
 * (ChloBytecode.cpp), decoded into the VHLO form of frontend/vhlo.h. */
#include <stdio.h>
#include <string.h>

#include "frontend/bc_read.h"
#include "frontend/parser.h"
#include "ir/quant.h"

enum {
#define VHLO_ATTR(ID, code, mnemonic, since) VA_##ID = code,
#include "frontend/vhlo_codes.def"
#undef VHLO_ATTR
#define VHLO_TYPE(ID, code, since) VT_##ID = code,
#include "frontend/vhlo_codes.def"
#undef VHLO_TYPE
};

typedef struct EnumRow {
  int code;
  const char *name;
  int first;
  const char *words;
} EnumRow;

static const EnumRow enum_rows[] = {
#define VHLO_ENUM(ID, name, first, words) {VA_##ID, name, first, words},
#include "frontend/vhlo_codes.def"
#undef VHLO_ENUM
};

static const EnumRow *enum_row(int code) {
  for (size_t i = 0; i < sizeof enum_rows / sizeof enum_rows[0]; i++)
    if (enum_rows[i].code == code) return &enum_rows[i];
  return NULL;
}

/* Enumerant v of row e (an arena string), NULL if out of range. */
static const char *enum_word(BcFile *b, const EnumRow *e, uint64_t v) {
  if (v < (uint64_t)e->first) return NULL;
  uint64_t k = v - (uint64_t)e->first;
  const char *s = e->words;
  while (k-- > 0) {
    s = strchr(s, ' ');
    if (!s) return NULL;
    s++;
  }
  size_t n = strcspn(s, " ");
  return arena_strndup(&b->c->arena, s, n);
}

/* An enum attribute: its value as a varint. */
static Attr *enum_attr(BcFile *b, BcCur *r, const char *dialect, const EnumRow *e) {
  uint64_t v;
  size_t at = r->pos;
  if (!bc_varint(b, r, &v)) return NULL;
  const char *w = enum_word(b, e, v);
  if (!w) {
    r->pos = at;
    bc_corrupt(b, r, "value %llu out of range for enum %s", (unsigned long long)v, e->name);
    return NULL;
  }
  return attr_enum(b->c, dialect, e->name, w);
}

/* The StableHLO attribute spelled by text (as the text parser builds it). */
static Attr *from_text(BcFile *b, BcCur *r, const char *text) {
  DiagEngine saved = b->c->diag;
  b->c->diag.quiet = true;
  Attr *a = parse_attribute_text(b->c, text, strlen(text), (Loc){b->diag_file, 0, 0});
  b->c->diag = saved;
  if (!a) bc_refuse(b, "cannot build the attribute '%s' (at byte offset %zu)", text, r->pos);
  return a;
}

/* "[1, 2, ?]" from a signed varint list. */
static char *dims_text(BcFile *b, BcCur *r, bool question) {
  uint64_t n;
  if (!bc_count(b, r, 1, &n)) return NULL;
  char *s = arena_alloc(&b->c->arena, 24 * (size_t)n + 3), *o = s;
  *o++ = '[';
  for (uint64_t i = 0; i < n; i++) {
    int64_t v;
    if (!bc_svarint(b, r, &v)) return NULL;
    if (question && v == DIM_DYNAMIC) o += sprintf(o, "%s?", i ? ", " : "");
    else o += sprintf(o, "%s%lld", i ? ", " : "", (long long)v);
  }
  strcpy(o, "]");
  return s;
}

/* attr's text without its "#stablehlo.NAME<" prefix and ">" suffix (how a
 * typed attribute parameter prints), else its whole text. */
static const char *stripped(BcFile *b, BcCur *r, const Attr *a, const char *name) {
  const char *t = bc_attr_text(b, r, a);
  if (!t) return NULL;
  size_t pn = strlen(name), n = strlen(t);
  if (strncmp(t, "#stablehlo.", 11) == 0 && strncmp(t + 11, name, pn) == 0 && t[11 + pn] == '<' && t[n - 1] == '>')
    return arena_strndup(&b->c->arena, t + 12 + pn, n - 13 - pn);
  return t;
}

static Attr *output_operand_alias(BcFile *b, BcCur *r) {
  char *out = dims_text(b, r, false);
  int64_t operand;
  if (!out || !bc_svarint(b, r, &operand)) return NULL;
  char *in = dims_text(b, r, false);
  if (!in) return NULL;
  return from_text(b, r, arena_printf(&b->c->arena,
                                      "#stablehlo.output_operand_alias<output_tuple_indices = %s, operand_index = %lld, "
                                      "operand_tuple_indices = %s>",
                                      out, (long long)operand, in));
}


static Attr *result_accuracy(BcFile *b, BcCur *r) {
  double atol, rtol;
  int64_t ulps;
  if (!bc_double(b, r, &atol) || !bc_double(b, r, &rtol) || !bc_svarint(b, r, &ulps)) return NULL;
  Attr *mode = bc_attr(b, r);
  if (!mode) return NULL;
  if (mode->kind != ATTR_ENUM || strcmp(mode->u.enm.enum_name, "result_accuracy_mode") != 0) {
    bc_corrupt(b, r, "result accuracy mode is not a result_accuracy_mode");
    return NULL;
  }
  return from_text(b, r, arena_printf(&b->c->arena,
                                      "#stablehlo.result_accuracy<atol = %.17e, rtol = %.17e, ulps = %lld, mode = "
                                      "#stablehlo.result_accuracy_mode<%s>>",
                                      atol, rtol, (long long)ulps, mode->u.enm.value));
}

/* A string_v1 operand of a mesh attribute, as a quoted string. */
static const char *name_text(BcFile *b, BcCur *r) {
  Attr *a = bc_attr(b, r);
  if (!a) return NULL;
  if (a->kind != ATTR_STRING) {
    bc_corrupt(b, r, "expected a string_v1 name");
    return NULL;
  }
  return bc_attr_text(b, r, a);
}

/* mesh_v1: axes (mesh_axis_v1 array), optional device ids. */
static Attr *mesh_v1(BcFile *b, BcCur *r) {
  Attr *axes = bc_attr(b, r);
  uint64_t idx;
  bool has_ids;
  BcCur ref = *r;
  if (!axes || !bc_varint_flag(b, r, &idx, &has_ids)) return NULL;
  if (axes->kind != ATTR_ARRAY) {
    bc_corrupt(b, r, "mesh axes are not an array");
    return NULL;
  }
  const char *ids = "";
  if (has_ids) {
    Attr *a = bc_attr_at(b, &ref, idx);
    const char *t = a ? bc_attr_text(b, r, a) : NULL;
    if (!t) return NULL;
    ids = arena_printf(&b->c->arena, ", device_ids=%s", t);
  }
  const char **parts = arena_alloc(&b->c->arena, sizeof(char *) * (size_t)(axes->u.array.n + 1));
  size_t len = strlen(ids) + 32;
  for (int i = 0; i < axes->u.array.n; i++) {
    if (!(parts[i] = stripped(b, r, axes->u.array.items[i], "mesh_axis"))) return NULL;
    len += strlen(parts[i]) + 2;
    if (len > BC_MAX_TEXT) {
      bc_corrupt(b, r, "a mesh of more than %d characters", BC_MAX_TEXT);
      return NULL;
    }
  }
  char *text = arena_alloc(&b->c->arena, len), *o = text;
  o += sprintf(o, "#stablehlo.mesh<axes=[");
  for (int i = 0; i < axes->u.array.n; i++) o += sprintf(o, "%s%s", i ? ", " : "", parts[i]);
  sprintf(o, "]%s>", ids);
  return from_text(b, r, text);
}

static Attr *mesh_attr(BcFile *b, BcCur *r, int code) {
  const char *name;
  int64_t x, y;
  switch (code) {
  case VA_SUB_AXIS_INFO:
    if (!bc_svarint(b, r, &x) || !bc_svarint(b, r, &y)) return NULL;
    return from_text(b, r, arena_printf(&b->c->arena, "#stablehlo.sub_axis_info<(%lld)%lld>", (long long)x, (long long)y));
  case VA_AXIS_REF: {
    uint64_t has_sub;
    if (!(name = name_text(b, r)) || !bc_varint(b, r, &has_sub)) return NULL;
    const char *sub = "";
    if (has_sub) {
      Attr *s = bc_attr(b, r);
      const char *t = s ? stripped(b, r, s, "sub_axis_info") : NULL;
      if (!t) return NULL;
      sub = arena_printf(&b->c->arena, ", sub_axis_info = %s", t);
    }
    return from_text(b, r, arena_printf(&b->c->arena, "#stablehlo.axis_ref<name = %s%s>", name, sub));
  }
  case VA_MESH_AXIS:
    if (!(name = name_text(b, r)) || !bc_svarint(b, r, &x)) return NULL;
    return from_text(b, r, arena_printf(&b->c->arena, "#stablehlo.mesh_axis<name = %s, size = %lld>", name, (long long)x));
  case VA_REPLICA_GROUP_MESH_AXES: {
    Attr *mesh = bc_attr(b, r), *axes = mesh ? bc_attr(b, r) : NULL;
    const char *mt = axes ? bc_attr_text(b, r, mesh) : NULL, *at = mt ? bc_attr_text(b, r, axes) : NULL;
    if (!at) return NULL;
    return from_text(b, r, arena_printf(&b->c->arena, "#stablehlo.replica_group_mesh_axes<mesh = %s%s, axes = %s>",
                                        mesh->kind == ATTR_STRING ? "@" : "", mt, at));
  }
  default: return mesh_v1(b, r);
  }
}

/* dict_v1: (name, value) attribute pairs; names are string_v1. */
static Attr *dict_v1(BcFile *b, BcCur *r) {
  uint64_t n;
  if (!bc_count(b, r, 2, &n)) return NULL;
  NamedAttr *v = arena_alloc(&b->c->arena, sizeof(NamedAttr) * (size_t)(n ? n : 1));
  for (uint64_t i = 0; i < n; i++) {
    Attr *name = bc_attr(b, r);
    if (!name || !(v[i].value = bc_attr(b, r))) return NULL;
    if (name->kind != ATTR_STRING) {
      bc_corrupt(b, r, "dictionary key is not a string");
      return NULL;
    }
    v[i].name = arena_strndup(&b->c->arena, name->u.str.s, name->u.str.len);
  }
  return attr_dict(b->c, (int)n, v);
}

Attr *bc_decode_vhlo_attr(BcFile *b, BcCur *r) {
  uint64_t code;
  size_t at = r->pos;
  if (!bc_varint(b, r, &code)) return NULL;
  const EnumRow *e = code < 1000 ? enum_row((int)code) : NULL;
  if (e) return enum_attr(b, r, "stablehlo", e);
  switch (code) {
  case VA_ARRAY: {
    int n;
    Attr **v;
    return bc_attrs(b, r, &n, &v) ? attr_array(b->c, n, v) : NULL;
  }
  case VA_BOOLEAN: {
    uint64_t v;
    if (!bc_varint(b, r, &v)) return NULL;
    if (v > 1) {
      bc_corrupt(b, r, "bool_v1 value %llu", (unsigned long long)v);
      return NULL;
    }
    return attr_bool(b->c, v);
  }
  case VA_DICTIONARY: return dict_v1(b, r);
  case VA_FLOAT: case VA_INTEGER: {
    Type *t = bc_type(b, r);
    if (!t) return NULL;
    return code == VA_FLOAT ? bc_float_attr(b, r, t) : bc_int_attr(b, r, t);
  }
  case VA_OUTPUT_OPERAND_ALIAS: return output_operand_alias(b, r);
  case VA_STRING: {
    const char *s;
    size_t n;
    return bc_string(b, r, &s, &n) ? attr_string(b->c, s, n) : NULL;
  }
  case VA_TENSOR: {
    Type *t = bc_type(b, r);
    BcCur blob;
    if (!t || !bc_blob(b, r, &blob)) return NULL;
    return bc_dense_from_blob(b, r, t, b->data + blob.pos, blob.end - blob.pos);
  }
  case VA_TYPE: {
    Type *t = bc_type(b, r);
    return t ? attr_type(b->c, t) : NULL;
  }
  case VA_TYPE_EXTENSIONS: {
    char *bounds = dims_text(b, r, true);
    if (!bounds) return NULL;
    bounds[strlen(bounds) - 1] = 0;
    return from_text(b, r, arena_printf(&b->c->arena, "#stablehlo.bounds<%s>", bounds + 1));
  }
  case VA_RESULT_ACCURACY: return result_accuracy(b, r);
  case VA_SUB_AXIS_INFO: case VA_AXIS_REF: case VA_REPLICA_GROUP_MESH_AXES: case VA_MESH_AXIS: case VA_MESH:
    return mesh_attr(b, r, (int)code);
  default:
    r->pos = at;
    bc_corrupt(b, r, "unknown vhlo attribute code %llu", (unsigned long long)code);
    return NULL;
  }
}

Attr *bc_decode_chlo_attr(BcFile *b, BcCur *r) {
  uint64_t code;
  size_t at = r->pos;
  if (!bc_varint(b, r, &code)) return NULL;
  if (code > 1) {
    r->pos = at;
    bc_corrupt(b, r, "unknown chlo attribute code %llu", (unsigned long long)code);
    return NULL;
  }
  return enum_attr(b, r, "chlo", enum_row(code == 0 ? VA_COMPARISON_DIRECTION : VA_COMPARISON_TYPE));
}

/* !quant.uniform from its VHLO encoding (per_axis: UniformQuantizedPerAxis). */
static Type *quant_type(BcFile *b, BcCur *r, bool per_axis) {
  uint64_t flags, axis = 0;
  Type *storage, *expressed;
  QuantType q = {.axis = -1, .nscales = 1};
  if (!bc_varint(b, r, &flags) || !(storage = bc_type(b, r)) || !(expressed = bc_type(b, r))) return NULL;
  double scale;
  int64_t zp = 0;
  if (per_axis) {
    uint64_t ns, nz;
    if (!bc_varint(b, r, &axis) || !bc_svarint(b, r, &q.storage_min) || !bc_svarint(b, r, &q.storage_max) ||
        !bc_count(b, r, 1, &ns))
      return NULL;
    double *sv = arena_alloc(&b->c->arena, sizeof(double) * (size_t)(ns ? ns : 1));
    for (uint64_t i = 0; i < ns; i++)
      if (!bc_double(b, r, &sv[i])) return NULL;
    if (!bc_count(b, r, 1, &nz)) return NULL;
    int64_t *zv = arena_alloc(&b->c->arena, sizeof(int64_t) * (size_t)(nz ? nz : 1));
    for (uint64_t i = 0; i < nz; i++)
      if (!bc_svarint(b, r, &zv[i])) return NULL;
    if (nz != ns || ns == 0 || axis > 1000000) {
      bc_corrupt(b, r, "per-axis quantized type with %llu scales and %llu zero points", (unsigned long long)ns, (unsigned long long)nz);
      return NULL;
    }
    q.axis = (int)axis;
    q.nscales = (int)ns;
    q.scales = sv;
    q.zero_points = zv;
  } else {
    if (!bc_double(b, r, &scale) || !bc_svarint(b, r, &zp) || !bc_svarint(b, r, &q.storage_min) ||
        !bc_svarint(b, r, &q.storage_max))
      return NULL;
    q.scales = arena_dup(&b->c->arena, &scale, sizeof scale);
    q.zero_points = arena_dup(&b->c->arena, &zp, sizeof zp);
  }
  if (storage->kind != TY_ELEM || !elem_is_int(storage->elem) || expressed->kind != TY_ELEM || !elem_is_float(expressed->elem)) {
    bc_corrupt(b, r, "quantized type with a non-integer storage or non-float expressed type");
    return NULL;
  }
  q.is_signed = flags & 1;
  q.bits = elem_bits(storage->elem);
  strcpy(q.prefix, elem_is_unsigned(storage->elem) || !q.is_signed ? "u" : "i");
  q.expressed = expressed->elem;
  const char *text = quant_format(&b->c->arena, &q);
  DiagEngine saved = b->c->diag;
  b->c->diag.quiet = true;
  Type *t = parse_type_text(b->c, text, strlen(text), (Loc){b->diag_file, 0, 0});
  b->c->diag = saved;
  if (!t) bc_refuse(b, "unsupported quantized type %s", text);
  return t;
}

static const struct {
  int code;
  ElemKind kind;
} elem_codes[] = {
#define VHLO_ELEM_TYPE(code, kind, since) {code, ELEM_##kind},
#include "frontend/vhlo_codes.def"
#undef VHLO_ELEM_TYPE
};

/* memref<2x?xf32>, the opaque spelling of !vhlo.buffer_v1. */
static Type *buffer_type(BcFile *b, BcCur *r) {
  int rank;
  int64_t *dims;
  if (!bc_shape(b, r, &rank, &dims)) return NULL;
  Type *e = bc_type(b, r);
  if (!e) return NULL;
  const char *es = type_to_string(b->c, e);
  char *text = arena_alloc(&b->c->arena, strlen(es) + 10 + 22 * (size_t)rank), *o = text;
  o += sprintf(o, "memref<");
  for (int i = 0; i < rank; i++)
    o += dims[i] == DIM_DYNAMIC ? sprintf(o, "?x") : sprintf(o, "%lldx", (long long)dims[i]);
  o += sprintf(o, "%s>", es);
  return type_opaque(b->c, text, (size_t)(o - text));
}

Type *bc_decode_vhlo_type(BcFile *b, BcCur *r) {
  uint64_t code;
  size_t at = r->pos;
  if (!bc_varint(b, r, &code)) return NULL;
  for (size_t i = 0; i < sizeof elem_codes / sizeof elem_codes[0]; i++)
    if ((uint64_t)elem_codes[i].code == code) return type_elem(b->c, elem_codes[i].kind);
  int n;
  Type **v;
  switch (code) {
  case VT_COMPLEX: {
    Type *e = bc_type(b, r);
    if (!e) return NULL;
    if (e->kind == TY_ELEM && (e->elem == ELEM_F32 || e->elem == ELEM_F64)) return type_elem(b->c, e->elem == ELEM_F32 ? ELEM_C64 : ELEM_C128);
    bc_refuse(b, "unsupported complex element type %s", type_to_string(b->c, e));
    return NULL;
  }
  case VT_FUNCTION: {
    int nout;
    Type **out;
    if (!bc_types(b, r, &n, &v) || !bc_types(b, r, &nout, &out)) return NULL;
    return type_func(b->c, n, v, nout, out);
  }
  case VT_RANKED_TENSOR: case VT_RANKED_TENSOR_ENCODED: {
    Attr *enc = NULL;
    int rank;
    int64_t *dims;
    if (code == VT_RANKED_TENSOR_ENCODED && !(enc = bc_attr(b, r))) return NULL;
    if (!bc_shape(b, r, &rank, &dims)) return NULL;
    Type *e = bc_type(b, r);
    return e ? bc_tensor(b, r, e, rank, dims, enc) : NULL;
  }
  case VT_UNRANKED_TENSOR: {
    Type *e = bc_type(b, r);
    return e ? bc_tensor(b, r, e, -1, NULL, NULL) : NULL;
  }
  case VT_TOKEN: return type_token(b->c);
  case VT_NONE: return type_none(b->c);
  case VT_WITNESS: return type_opaque(b->c, "!shape.witness", 14);
  case VT_TUPLE: return bc_types(b, r, &n, &v) ? type_tuple(b->c, n, v) : NULL;
  case VT_FUTURE: return bc_types(b, r, &n, &v) ? type_future(b->c, n, v) : NULL;
  case VT_UNIFORM_QUANTIZED: case VT_UNIFORM_QUANTIZED_PER_AXIS: return quant_type(b, r, code == VT_UNIFORM_QUANTIZED_PER_AXIS);
  case VT_RANKED_BUFFER: return buffer_type(b, r);
  default:
    r->pos = at;
    bc_corrupt(b, r, "unknown vhlo type code %llu", (unsigned long long)code);
    return NULL;
  }
}
