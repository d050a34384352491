/* MLIR bytecode reader: the builtin dialect's attribute and type encodings
 * (mlir/lib/IR/BuiltinDialectBytecode.cpp, BuiltinDialectBytecode.td),
 * locations included, and dense element data shared with VHLO. */
#include <string.h>

#include "frontend/bc_read.h"
#include "ir/table.h"

/* Builtin attribute codes, in the order of BuiltinDialectAttributes. */
enum {
  B_ARRAY, B_DICT, B_STRING, B_STRING_TYPED, B_FLAT_SYMREF, B_SYMREF, B_TYPE, B_UNIT, B_INTEGER, B_FLOAT,
  B_CALLSITE_LOC, B_FILE_LOC, B_FUSED_LOC, B_FUSED_LOC_META, B_NAME_LOC, B_UNKNOWN_LOC, B_DENSE_RESOURCE,
  B_DENSE_ARRAY, B_DENSE, B_DENSE_STRING, B_SPARSE, B_DISTINCT,
};

/* Builtin type codes, in the order of BuiltinDialectTypes. */
enum {
  BT_INTEGER, BT_INDEX, BT_FUNCTION, BT_BF16, BT_F16, BT_F32, BT_F64, BT_F80, BT_F128, BT_COMPLEX, BT_MEMREF,
  BT_MEMREF_SPACE, BT_NONE, BT_RANKED, BT_RANKED_ENCODED, BT_TUPLE, BT_UNRANKED_MEMREF, BT_UNRANKED_MEMREF_SPACE,
  BT_UNRANKED, BT_VECTOR, BT_VECTOR_SCALABLE,
};

/* An APInt of a known bit width (up to 64): one byte up to 8 bits, else a
 * signed varint. */
static bool read_apint(BcFile *b, BcCur *r, int width, uint64_t *out) {
  if (width <= 8) {
    uint8_t v;
    if (!bc_byte(b, r, &v)) return false;
    *out = v;
  } else {
    int64_t v;
    if (!bc_svarint(b, r, &v)) return false;
    *out = (uint64_t)v;
  }
  if (width < 64) *out &= (UINT64_C(1) << width) - 1;
  return true;
}

/* The value bits of an integer attribute of kind k, extended to 64 bits as
 * attr_int expects (unsigned kinds zero-, others sign-extended). */
static int64_t extend(ElemKind k, uint64_t v) {
  int w = elem_bits(k);
  if (w >= 64 || elem_is_unsigned(k)) return (int64_t)v;
  uint64_t sign = UINT64_C(1) << (w - 1);
  return (int64_t)((v ^ sign) - sign);
}

Attr *bc_int_attr(BcFile *b, BcCur *r, Type *t) {
  if (t->kind != TY_ELEM || !(elem_is_int(t->elem) || t->elem == ELEM_INDEX)) {
    bc_corrupt(b, r, "integer attribute of a non-integer type");
    return NULL;
  }
  uint64_t v;
  if (!read_apint(b, r, elem_bits(t->elem), &v)) return NULL;
  if (t->elem == ELEM_I1) return attr_bool(b->c, v != 0);
  return attr_int(b->c, t, extend(t->elem, v));
}

Attr *bc_float_attr(BcFile *b, BcCur *r, Type *t) {
  if (t->kind != TY_ELEM || !elem_is_float(t->elem)) {
    bc_corrupt(b, r, "float attribute of a non-float type");
    return NULL;
  }
  uint64_t v;
  if (!read_apint(b, r, elem_bits(t->elem), &v)) return NULL;
  return attr_float_bits(b->c, t, v);
}

/* One double (an APFloat of IEEE double semantics). */
bool bc_double(BcFile *b, BcCur *r, double *out) {
  uint64_t v;
  if (!read_apint(b, r, 64, &v)) return false;
  memcpy(out, &v, sizeof v);
  return true;
}

Attr *bc_dense_from_blob(BcFile *b, BcCur *at, Type *t, const uint8_t *blob, size_t n) {
  int64_t count;
  if (t->kind != TY_TENSOR || t->elem_opaque || !type_tensor_num_elements(t, &count)) {
    bc_corrupt(b, at, "dense elements of a type that is not a static tensor of builtin elements");
    return NULL;
  }
  ElemKind k = t->elem;
  if (k != ELEM_I1) {
    size_t esz = (size_t)elem_storage_bytes(k);
    if (n == esz && count != 1) return attr_dense_raw(b->c, t, blob, n, true);
    if ((uint64_t)count > SIZE_MAX / esz || n != esz * (size_t)count) {
      bc_corrupt(b, at, "dense data of %zu bytes for %lld elements of %d bytes", n, (long long)count, (int)esz);
      return NULL;
    }
    return attr_dense_raw(b->c, t, blob, n, false);
  }
  size_t packed = ((size_t)count + 7) / 8;
  /* As MLIR's isValidRawBuffer: one byte of all zeros or all ones is a
   * splat, whatever the element count. */
  if (n == 1 && count > 1 && (blob[0] == 0x00 || blob[0] == 0xFF)) {
    uint8_t v = blob[0] != 0;
    return attr_dense_raw(b->c, t, &v, 1, true);
  }
  bool is_packed = n == packed && n != (size_t)count;
  if (!is_packed && n != (size_t)count) {
    bc_corrupt(b, at, "boolean data of %zu bytes for %lld elements", n, (long long)count);
    return NULL;
  }
  uint8_t *bytes = arena_alloc(&b->c->arena, (size_t)count + 1);
  for (int64_t i = 0; i < count; i++) bytes[i] = is_packed ? (blob[i / 8] >> (i % 8)) & 1 : blob[i] != 0;
  return attr_dense_raw(b->c, t, bytes, (size_t)count, false);
}

/* A blob: its size, then its bytes. */
bool bc_blob(BcFile *b, BcCur *r, BcCur *out) {
  uint64_t n;
  if (!bc_varint(b, r, &n)) return false;
  if (n > r->end - r->pos) return bc_corrupt(b, r, "blob of %llu bytes, only %zu left", (unsigned long long)n, r->end - r->pos);
  return bc_bytes(b, r, n, out);
}

/* A shape: count, then signed varints (kDynamic is INT64_MIN). */
bool bc_shape(BcFile *b, BcCur *r, int *rank, int64_t **dims) {
  uint64_t n;
  if (!bc_count(b, r, 1, &n)) return false;
  if (n > TYPE_MAX_RANK) return bc_corrupt(b, r, "tensor rank %llu is above %d", (unsigned long long)n, TYPE_MAX_RANK);
  int64_t *d = arena_alloc(&b->c->arena, sizeof(int64_t) * (size_t)(n ? n : 1));
  for (uint64_t i = 0; i < n; i++) {
    if (!bc_svarint(b, r, &d[i])) return false;
    if (d[i] < 0 && d[i] != DIM_DYNAMIC) return bc_corrupt(b, r, "negative dimension size %lld", (long long)d[i]);
  }
  *rank = (int)n;
  *dims = d;
  return true;
}

/* A tensor type of element type elem; a non-builtin element is only a
 * quantized one.  Dims and bounds the text parser refuses are corrupt. */
Type *bc_tensor(BcFile *b, BcCur *r, Type *elem, int rank, const int64_t *dims, Attr *enc) {
  const char *why = rank < 0 ? NULL : type_shape_check(b->c, rank, dims, enc);
  if (why) {
    bc_corrupt(b, r, "%s", why);
    return NULL;
  }
  if (enc) enc = type_bounds_canonical(b->c, enc);
  if (elem->kind == TY_ELEM) return type_tensor(b->c, elem->elem, rank, dims, enc);
  if (elem->kind == TY_OPAQUE && elem->quant) return type_tensor_opaque_elem(b->c, elem, rank, dims, enc);
  bc_refuse(b, "tensor of an unsupported element type %s", type_to_string(b->c, elem));
  return NULL;
}

/* A list of type references. */
bool bc_types(BcFile *b, BcCur *r, int *n, Type ***out) {
  uint64_t count;
  if (!bc_count(b, r, 1, &count)) return false;
  Type **v = arena_alloc(&b->c->arena, sizeof(Type *) * (size_t)(count ? count : 1));
  for (uint64_t i = 0; i < count; i++)
    if (!(v[i] = bc_type(b, r))) return false;
  *n = (int)count;
  *out = v;
  return true;
}

/* A list of attribute references. */
bool bc_attrs(BcFile *b, BcCur *r, int *n, Attr ***out) {
  uint64_t count;
  if (!bc_count(b, r, 1, &count)) return false;
  Attr **v = arena_alloc(&b->c->arena, sizeof(Attr *) * (size_t)(count ? count : 1));
  for (uint64_t i = 0; i < count; i++)
    if (!(v[i] = bc_attr(b, r))) return false;
  *n = (int)count;
  *out = v;
  return true;
}

static Type *integer_type(BcFile *b, BcCur *r) {
  uint64_t v;
  if (!bc_varint(b, r, &v)) return NULL;
  uint64_t width = v >> 2, sign = v & 3;
  static const char *const prefix[] = {"i", "si", "ui"};
  if (sign < 3 && width <= 64) {
    char name[8];
    snprintf(name, sizeof name, "%s%u", prefix[sign], (unsigned)width);
    ElemKind k;
    if (elem_from_name(name, strlen(name), &k)) return type_elem(b->c, k);
  }
  bc_refuse(b, "unsupported integer type of width %llu (signedness %llu)", (unsigned long long)width, (unsigned long long)sign);
  return NULL;
}

Type *bc_decode_builtin_type(BcFile *b, BcCur *r) {
  uint64_t code;
  size_t at = r->pos;
  if (!bc_varint(b, r, &code)) return NULL;
  static const ElemKind floats[] = {ELEM_BF16, ELEM_F16, ELEM_F32, ELEM_F64};
  switch (code) {
  case BT_INTEGER: return integer_type(b, r);
  case BT_INDEX: return type_elem(b->c, ELEM_INDEX);
  case BT_BF16: case BT_F16: case BT_F32: case BT_F64: return type_elem(b->c, floats[code - BT_BF16]);
  case BT_NONE: return type_none(b->c);
  case BT_FUNCTION: {
    int nin, nout;
    Type **in, **out;
    if (!bc_types(b, r, &nin, &in) || !bc_types(b, r, &nout, &out)) return NULL;
    return type_func(b->c, nin, in, nout, out);
  }
  case BT_TUPLE: {
    int n;
    Type **v;
    return bc_types(b, r, &n, &v) ? type_tuple(b->c, n, v) : NULL;
  }
  case BT_COMPLEX: {
    Type *e = bc_type(b, r);
    if (!e) return NULL;
    if (e->kind == TY_ELEM && (e->elem == ELEM_F32 || e->elem == ELEM_F64)) return type_elem(b->c, e->elem == ELEM_F32 ? ELEM_C64 : ELEM_C128);
    bc_refuse(b, "unsupported complex element type %s", type_to_string(b->c, e));
    return NULL;
  }
  case BT_RANKED: case BT_RANKED_ENCODED: {
    Attr *enc = NULL;
    int rank;
    int64_t *dims;
    if (code == BT_RANKED_ENCODED && !(enc = bc_attr(b, r))) return NULL;
    if (!bc_shape(b, r, &rank, &dims)) return NULL;
    Type *e = bc_type(b, r);
    return e ? bc_tensor(b, r, e, rank, dims, enc) : NULL;
  }
  case BT_UNRANKED: {
    Type *e = bc_type(b, r);
    return e ? bc_tensor(b, r, e, -1, NULL, NULL) : NULL;
  }
  case BT_F80: case BT_F128: case BT_MEMREF: case BT_MEMREF_SPACE: case BT_UNRANKED_MEMREF:
  case BT_UNRANKED_MEMREF_SPACE: case BT_VECTOR: case BT_VECTOR_SCALABLE:
    bc_refuse(b, "unsupported builtin type (bytecode code %llu)", (unsigned long long)code);
    return NULL;
  default:
    r->pos = at;
    bc_corrupt(b, r, "unknown builtin type code %llu", (unsigned long long)code);
    return NULL;
  }
}

/* s as an MLIR string literal (printEscapedString: \XX for a quote, a
 * backslash and non-printable bytes). */
static char *quoted(BcFile *b, const char *s, size_t n) {
  char *out = arena_alloc(&b->c->arena, 4 * n + 3), *o = out;
  *o++ = '"';
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch >= 0x20 && ch < 0x7F && ch != '"' && ch != '\\') *o++ = (char)ch;
    else o += sprintf(o, "\\%02X", ch);
  }
  *o++ = '"';
  *o = 0;
  return out;
}

/* The SourceFile of a location's file name (one per distinct name). */
static const SourceFile *loc_file(BcFile *b, const char *name, size_t n) {
  if (n == 0) name = "", n = 1; /* the empty name: key "\\0" (table keys are not empty) */
  void **slot = table_put(&b->files, name, n);
  if (!*slot) {
    SourceFile *f = arena_alloc(&b->c->arena, sizeof *f);
    f->name = arena_strndup(&b->c->arena, name, n);
    *slot = f;
  }
  return *slot;
}

char *bc_cat(BcFile *b, const char *x, const char *y, const char *z) {
  size_t nx = strlen(x), ny = strlen(y), nz = strlen(z);
  char *s = arena_alloc(&b->c->arena, nx + ny + nz + 1);
  memcpy(s, x, nx);
  memcpy(s + nx, y, ny);
  memcpy(s + nx + ny, z, nz + 1);
  return s;
}

/* False (corrupt) when a location text of len characters would exceed
 * BC_MAX_TEXT; checked before the text is built. */
static bool loc_fits(BcFile *b, const BcCur *r, size_t len) {
  if (len <= BC_MAX_TEXT) return true;
  return bc_corrupt(b, r, "a location of more than %d characters", BC_MAX_TEXT);
}

static BcLoc *new_loc(BcFile *b, const BcCur *r, const char *text, Loc loc) {
  if (!loc_fits(b, r, strlen(text))) return NULL;
  BcLoc *l = arena_alloc(&b->c->arena, sizeof *l);
  l->text = text;
  l->loc = loc;
  return l;
}

/* fused[...] or fused<metadata>[...]. */
static BcLoc *fused_loc(BcFile *b, BcCur *r, bool meta) {
  uint64_t n;
  if (!bc_count(b, r, 1, &n)) return NULL;
  BcLoc **v = arena_alloc(&b->c->arena, sizeof(BcLoc *) * (size_t)(n ? n : 1));
  size_t len = 16;
  Loc first = {0};
  for (uint64_t i = 0; i < n; i++) {
    if (!(v[i] = bc_loc(b, r))) return NULL;
    len += strlen(v[i]->text) + 2;
    if (!loc_fits(b, r, len)) return NULL;
    if (!first.file) first = v[i]->loc;
  }
  const char *mtext = "";
  if (meta) {
    Attr *m = bc_attr(b, r);
    if (!m) return NULL;
    const char *t = bc_attr_text(b, r, m);
    if (!t) return NULL;
    if (!loc_fits(b, r, len + strlen(t))) return NULL;
    mtext = arena_printf(&b->c->arena, "<%s>", t);
  }
  char *text = arena_alloc(&b->c->arena, len + strlen(mtext)), *o = text;
  o += sprintf(o, "fused%s[", mtext);
  for (uint64_t i = 0; i < n; i++) {
    size_t k = strlen(v[i]->text);
    if (i) *o++ = ',', *o++ = ' ';
    memcpy(o, v[i]->text, k);
    o += k;
  }
  strcpy(o, "]");
  return new_loc(b, r, text, first);
}

/* Bytes of a's text, roughly, stopping once past *budget. */
static void text_size(const Attr *a, size_t *used) {
  if (*used > BC_MAX_TEXT) return;
  *used += 8;
  switch (a->kind) {
  case ATTR_STRING: case ATTR_SYMREF: case ATTR_OPAQUE: *used += a->u.str.len; break;
  case ATTR_DENSE: *used += 24 * a->u.dense.nbytes; break;
  case ATTR_ARRAY: for (int i = 0; i < a->u.array.n && *used <= BC_MAX_TEXT; i++) text_size(a->u.array.items[i], used); break;
  case ATTR_DICT: for (int i = 0; i < a->u.dict.n && *used <= BC_MAX_TEXT; i++) text_size(a->u.dict.items[i].value, used); break;
  case ATTR_DIALECT: for (int i = 0; i < a->u.dialect.n && *used <= BC_MAX_TEXT; i++) text_size(a->u.dialect.params[i].value, used); break;
  default: break;
  }
}

const char *bc_attr_text(BcFile *b, BcCur *r, const Attr *a) {
  size_t used = 0;
  text_size(a, &used);
  if (used > BC_MAX_TEXT) {
    bc_corrupt(b, r, "an attribute of more than %d characters where a short one belongs", BC_MAX_TEXT);
    return NULL;
  }
  return attr_to_string(b->c, a);
}

/* The location codes; NULL after a diagnostic. */
static BcLoc *decode_loc(BcFile *b, BcCur *r, uint64_t code) {
  const char *s;
  size_t n;
  switch (code) {
  case B_UNKNOWN_LOC: return new_loc(b, r, "unknown", (Loc){0});
  case B_FILE_LOC: {
    uint64_t line, col;
    if (!bc_string_attr(b, r, &s, &n) || !bc_varint(b, r, &line) || !bc_varint(b, r, &col)) return NULL;
    Loc l = {loc_file(b, s, n), (uint32_t)line, (uint32_t)col};
    return new_loc(b, r, arena_printf(&b->c->arena, "%s:%llu:%llu", quoted(b, s, n), (unsigned long long)line, (unsigned long long)col), l);
  }
  case B_NAME_LOC: {
    if (!bc_string_attr(b, r, &s, &n)) return NULL;
    BcLoc *child = bc_loc(b, r);
    if (!child) return NULL;
    if (!loc_fits(b, r, 4 * n + strlen(child->text) + 4)) return NULL;
    if (strcmp(child->text, "unknown") == 0) return new_loc(b, r, quoted(b, s, n), child->loc);
    return new_loc(b, r, bc_cat(b, quoted(b, s, n), "(", bc_cat(b, child->text, ")", "")), child->loc);
  }
  case B_CALLSITE_LOC: {
    BcLoc *callee = bc_loc(b, r), *caller = callee ? bc_loc(b, r) : NULL;
    if (!caller || !loc_fits(b, r, strlen(callee->text) + strlen(caller->text) + 16)) return NULL;
    return new_loc(b, r, bc_cat(b, "callsite(", callee->text, bc_cat(b, " at ", caller->text, ")")),
                   callee->loc.file ? callee->loc : caller->loc);
  }
  default: return fused_loc(b, r, code == B_FUSED_LOC_META);
  }
}

/* A dictionary: (name: StringAttr, value) pairs. */
static Attr *dict_attr(BcFile *b, BcCur *r) {
  uint64_t n;
  if (!bc_count(b, r, 2, &n)) return NULL;
  NamedAttr *v = arena_alloc(&b->c->arena, sizeof(NamedAttr) * (size_t)(n ? n : 1));
  for (uint64_t i = 0; i < n; i++) {
    const char *s;
    size_t len;
    if (!bc_string_attr(b, r, &s, &len) || !(v[i].value = bc_attr(b, r))) return NULL;
    v[i].name = arena_strndup(&b->c->arena, s, len);
  }
  return attr_dict(b->c, (int)n, v);
}

/* array<T: ...>: element type, count, raw little-endian data. */
static Attr *dense_array(BcFile *b, BcCur *r) {
  Type *t = bc_type(b, r);
  uint64_t n;
  BcCur blob;
  if (!t || !bc_varint(b, r, &n) || !bc_blob(b, r, &blob)) return NULL;
  if (t->kind != TY_ELEM || !(elem_is_int(t->elem) || elem_is_float(t->elem))) {
    bc_corrupt(b, r, "dense array of a type that is not an integer or float");
    return NULL;
  }
  ElemKind k = t->elem;
  size_t esz = (size_t)elem_storage_bytes(k);
  if (n > (blob.end - blob.pos) || n * esz != blob.end - blob.pos) {
    bc_corrupt(b, r, "dense array of %llu elements with %zu bytes of data", (unsigned long long)n, blob.end - blob.pos);
    return NULL;
  }
  Attr *a = arena_alloc(&b->c->arena, sizeof *a);
  a->kind = ATTR_DENSE_ARRAY;
  a->u.darray.elem = k;
  a->u.darray.n = (int)n;
  int64_t *iv = arena_alloc(&b->c->arena, sizeof(int64_t) * (size_t)(n ? n : 1));
  double *fv = arena_alloc(&b->c->arena, sizeof(double) * (size_t)(n ? n : 1));
  for (uint64_t i = 0; i < n; i++) {
    uint64_t bits = 0;
    for (size_t j = esz; j-- > 0;) bits = (bits << 8) | b->data[blob.pos + i * esz + j];
    if (elem_is_int(k)) iv[i] = k == ELEM_I1 ? bits != 0 : extend(k, bits);
    else fv[i] = float_bits_to_double(k, bits);
  }
  if (elem_is_int(k)) a->u.darray.ints = iv;
  else a->u.darray.floats = fv;
  return a;
}

/* @root or @root::@nested... */
static Attr *symref_attr(BcFile *b, BcCur *r, bool nested) {
  const char *s;
  size_t n;
  if (!bc_string_attr(b, r, &s, &n)) return NULL;
  if (!nested) return attr_symref(b->c, arena_strndup(&b->c->arena, s, n));
  int count;
  Attr **v;
  if (!bc_attrs(b, r, &count, &v)) return NULL;
  size_t len = n;
  for (int i = 0; i < count; i++) {
    if (v[i]->kind != ATTR_SYMREF) {
      bc_corrupt(b, r, "nested symbol reference that is not a symbol");
      return NULL;
    }
    len += 3 + strlen(v[i]->u.str.s);
    if (len > BC_MAX_TEXT) {
      bc_corrupt(b, r, "a symbol reference of more than %d characters", BC_MAX_TEXT);
      return NULL;
    }
  }
  char *name = arena_alloc(&b->c->arena, len + 1), *o = name;
  memcpy(o, s, n);
  o += n;
  for (int i = 0; i < count; i++) {
    size_t k = strlen(v[i]->u.str.s);
    memcpy(o, "::@", 3);
    memcpy(o + 3, v[i]->u.str.s, k);
    o += 3 + k;
  }
  *o = 0;
  return attr_symref(b->c, name);
}

Attr *bc_decode_builtin_attr(BcFile *b, BcCur *r, BcEntry *e) {
  uint64_t code;
  size_t at = r->pos;
  if (!bc_varint(b, r, &code)) return NULL;
  const char *s;
  size_t n;
  switch (code) {
  case B_ARRAY: {
    int count;
    Attr **v;
    return bc_attrs(b, r, &count, &v) ? attr_array(b->c, count, v) : NULL;
  }
  case B_DICT: return dict_attr(b, r);
  case B_STRING: return bc_string(b, r, &s, &n) ? attr_string(b->c, s, n) : NULL;
  case B_STRING_TYPED: return bc_string(b, r, &s, &n) && bc_type(b, r) ? attr_string(b->c, s, n) : NULL;
  case B_FLAT_SYMREF: case B_SYMREF: return symref_attr(b, r, code == B_SYMREF);
  case B_TYPE: {
    Type *t = bc_type(b, r);
    return t ? attr_type(b->c, t) : NULL;
  }
  case B_UNIT: return attr_unit(b->c);
  case B_INTEGER: case B_FLOAT: {
    Type *t = bc_type(b, r);
    if (!t) return NULL;
    return code == B_INTEGER ? bc_int_attr(b, r, t) : bc_float_attr(b, r, t);
  }
  case B_CALLSITE_LOC: case B_FILE_LOC: case B_FUSED_LOC: case B_FUSED_LOC_META: case B_NAME_LOC: case B_UNKNOWN_LOC:
    e->loc = decode_loc(b, r, code);
    return NULL;
  case B_DENSE_RESOURCE: {
    Type *t = bc_type(b, r);
    uint64_t h;
    if (!t || !bc_varint(b, r, &h)) return NULL;
    if (h >= b->nresources) {
      bc_corrupt(b, r, "resource handle %llu out of range", (unsigned long long)h);
      return NULL;
    }
    Attr *a = arena_alloc(&b->c->arena, sizeof *a);
    a->kind = ATTR_DENSE_RESOURCE;
    a->type = t;
    a->u.resource.name = b->resources[h];
    return a;
  }
  case B_DENSE_ARRAY: return dense_array(b, r);
  case B_DENSE: {
    Type *t = bc_type(b, r);
    BcCur blob;
    if (!t || !bc_blob(b, r, &blob)) return NULL;
    return bc_dense_from_blob(b, r, t, b->data + blob.pos, blob.end - blob.pos);
  }
  case B_DISTINCT: return bc_attr(b, r);
  case B_DENSE_STRING: case B_SPARSE:
    bc_refuse(b, "unsupported builtin attribute (%s elements)", code == B_SPARSE ? "sparse" : "string");
    return NULL;
  default:
    r->pos = at;
    bc_corrupt(b, r, "unknown builtin attribute code %llu", (unsigned long long)code);
    return NULL;
  }
}
