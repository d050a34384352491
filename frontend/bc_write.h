/* Internals of the MLIR bytecode writer (frontend/bc_write*.c): byte
 * buffers with MLIR's varint encodings, and the numbering of dialects, op
 * names, attributes, types and values in the order MLIR's IRNumbering
 * gives them, so that the output can match StableHLO's byte for byte. */
#ifndef TPUCC_BC_WRITE_H
#define TPUCC_BC_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "frontend/bc_format.h"
#include "frontend/vhlo.h"

/* A growable byte buffer; align is the alignment its start needs. */
typedef struct BcBuf {
  uint8_t *data;
  size_t len, cap;
  unsigned align;
} BcBuf;

/* FNV-1a of n bytes at p, continuing from h (2166136261 to start). */
uint32_t bcw_fnv(const void *p, size_t n, uint32_t h);

void bcb_byte(BcBuf *b, uint8_t v);
void bcb_bytes(BcBuf *b, const void *p, size_t n);
void bcb_varint(BcBuf *b, uint64_t v);
void bcb_svarint(BcBuf *b, int64_t v);
void bcb_varint_flag(BcBuf *b, uint64_t v, bool flag);
void bcb_align(BcBuf *b, unsigned align);
/* Appends body as a section with the given code (and frees body). */
void bcb_section(BcBuf *b, int code, BcBuf *body);
void bcb_free(BcBuf *b);

/* Which dialect an attribute or type is encoded by: builtin, VHLO, CHLO
 * (its two enums), or none (BCD_TEXT: MLIR assembly text, grouped under
 * the dialect its spelling names). */
typedef enum BcDom { BCD_BUILTIN, BCD_VHLO, BCD_CHLO, BCD_TEXT } BcDom;

/* What an attribute entry stands for. */
typedef enum BcAttrClass {
  BCA_ATTR,        /* an Attr of our IR, encoded in dom */
  BCA_STR,         /* a string attribute (builtin StringAttr or vhlo string_v1) */
  BCA_OPDICT,      /* an op's attribute dictionary (builtin DictionaryAttr) */
  BCA_UNKNOWN_LOC, /* loc(unknown) */
} BcAttrClass;

typedef struct BcKey {
  uint8_t cls, dom, vdom; /* vdom: the domain of an OPDICT's values */
  const Attr *a;
  const char *s;
  size_t n;
  int nattrs;
  const NamedAttr *attrs;
} BcKey;

/* One numbered attribute or type. */
typedef struct BcEnt {
  bool is_type;
  uint8_t dom; /* BcDom */
  BcKey k;
  const Type *t;
  int dialect; /* dialect number */
  uint32_t refs, number, hash;
} BcEnt;

typedef struct BcOpName {
  const char *name; /* full name */
  size_t dlen;      /* length of the dialect prefix */
  int dialect;
  uint32_t refs, number;
} BcOpName;

/* An open-addressing map from pointers to numbers. */
typedef struct BcPtrMap {
  const void **keys;
  uint32_t *vals;
  size_t cap, count;
} BcPtrMap;

/* The string section being built: strings in insertion order. */
typedef struct BcStrings {
  const char **s;
  size_t *n;
  size_t count, cap;
  uint32_t *slots; /* index + 1, 0 empty */
  size_t nslots;
} BcStrings;

typedef struct BcW {
  Context *c;
  const struct VhloTable *vhlo_ops; /* frontend/vhlo_ops.def: which attributes are inherent */
  VhloVersion target;
  int fmt;
  bool failed;
  const Op *cur_op; /* for diagnostics */
  /* Dialects in numbering order. */
  const char *dialects[32];
  size_t dialect_len[32];
  int ndialects;
  BcOpName **opnames;
  int nopnames, capopnames;
  BcEnt **attrs, **types;
  int nattrs, capattrs, ntypes, captypes;
  BcEnt **slots; /* hash table over attrs and types */
  size_t nslots, nents;
  BcPtrMap values, ops, isolated;
  uint32_t next_value;
  BcStrings strings;
  /* Encoder state: numbering (no bytes) or emitting into out. */
  bool numbering;
  BcBuf *out;
  int depth;
} BcW;

/* Pointer maps (bc_write_num.c). */
void bcw_map_put(BcPtrMap *m, const void *k, uint32_t v);
bool bcw_map_get(const BcPtrMap *m, const void *k, uint32_t *v);
void bcw_map_free(BcPtrMap *m);

/* Numbering tables (bc_write_num.c). */
BcEnt *bcw_number_attr(BcW *w, const BcKey *k);
BcEnt *bcw_number_type(BcW *w, BcDom dom, const Type *t);
BcEnt *bcw_find_attr(BcW *w, const BcKey *k);
BcEnt *bcw_find_type(BcW *w, BcDom dom, const Type *t);
size_t bcw_string(BcW *w, const char *s, size_t n);
int bcw_dialect(BcW *w, const char *name, size_t len);
/* A key for attribute a in domain dom (strings become BCA_STR). */
BcKey bcw_key_attr(BcDom dom, const Attr *a);
BcKey bcw_key_str(BcDom dom, const char *s, size_t n);
void bcw_error(BcW *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Encoders (bc_write_attrs.c): the custom encoding of an entry, through
 * the w_* primitives below, which number nested entries in numbering mode
 * and emit bytes otherwise. */
void bcw_encode_attr(BcW *w, const BcEnt *e);
void bcw_encode_type(BcW *w, const BcEnt *e);
/* The domain attribute a (or type t) is written in when its value is in
 * dom: a builtin value without a builtin (or CHLO) encoding is text. */
BcDom bcw_attr_dom(BcDom dom, const Attr *a);
BcDom bcw_type_dom(BcDom dom, const Type *t);
/* The dialect a BCD_TEXT entry's spelling names (its length in *len). */
const char *bcw_text_dialect(BcW *w, const BcEnt *e, size_t *len);
/* Hash of an attribute's contents. */
uint32_t bcw_hash_attr(const Attr *a);

#endif
