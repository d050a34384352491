/* The MLIR bytecode reader's internals (frontend/bc_read*.c): one BcFile
 * per read, cursors over its sections, and the lazily decoded attribute
 * and type tables.  Facts about the format come from MLIR's
 * mlir/docs/BytecodeFormat.md and BytecodeReader.cpp. */
#ifndef TPUCC_BC_READ_H
#define TPUCC_BC_READ_H

#include "frontend/bc_format.h"
#include "frontend/vhlo.h"
#include "ir/table.h"

/* Bounds on hostile input (nesting, and the recursion of attribute and
 * type decoding). */
enum { BC_MAX_DEPTH = 128 };
/* The most nodes an attribute or type may expand to (entries are shared,
 * so a few bytes can describe an exponentially large tree). */
enum { BC_MAX_TEXT = 1 << 20 }; /* longest location or attribute text built */
#define BC_MAX_EXPANDED (UINT64_C(1) << 22)

/* A cursor over bytes [pos, end) of the file; section names the part of
 * the file it reads, for diagnostics. */
typedef struct BcCur {
  size_t pos, end;
  const char *section;
} BcCur;

typedef struct BcDialect {
  const char *name;
  bool has_version;
  BcCur version; /* the dialect's version record */
} BcDialect;

typedef struct BcOpName {
  uint32_t dialect;
  const char *name; /* "vhlo.add_v1" */
  int registered;   /* -1 unknown (before v5), 0, 1 */
  const char **prop_names; /* a VHLO op's property names, once looked up */
  int nprop_names;
} BcOpName;

/* A decoded location: its loc(...) text and innermost file:line:col. */
typedef struct BcLoc {
  const char *text; /* inside loc(...), e.g. "\"a.py\":3:4" or "unknown" */
  const char *srcloc; /* "loc(TEXT)", built on first use */
  Loc loc;
} BcLoc;

/* One attribute or type entry of the attr/type section. */
typedef struct BcEntry {
  uint32_t dialect;
  bool custom; /* dialect encoding; else null-terminated assembly text */
  uint8_t state; /* 0 not read, 1 being read (a reference cycle), 2 read */
  BcCur data;
  Attr *attr;
  Type *type;
  BcLoc *loc; /* location attributes */
  uint64_t size; /* nodes of its expanded tree */
} BcEntry;

typedef struct BcFile {
  Context *c;
  const SourceFile *file;
  const SourceFile *diag_file; /* file's name without its text: no source line under diagnostics */
  const uint8_t *data;
  size_t len;
  BcInfo *info;
  uint64_t version;
  bool failed;
  bool refused; /* a well-formed file we refuse (exit 2) */
  int depth;
  uint64_t expanded; /* nodes of the entry being decoded so far */
  BcCur sections[BC_NUM_SECTIONS];
  bool has_section[BC_NUM_SECTIONS];
  uint64_t nstrings;
  const char **strings;
  size_t *string_lens;
  uint64_t ndialects;
  BcDialect *dialects;
  int builtin, vhlo, chlo, stablehlo; /* dialect indices, -1 if absent */
  uint64_t nopnames;
  BcOpName *opnames;
  uint64_t nattrs, ntypes;
  BcEntry *attrs, *types;
  uint64_t nprops;
  size_t *prop_offsets; /* absolute offsets of each property blob */
  uint64_t nresources;
  const char **resources; /* dialect resource handles by index */
  PtrVec module_resources; /* Resource* for the module */
  Table files;             /* location file name -> its SourceFile */
} BcFile;

/* Reports "corrupt bytecode in the SECTION section at byte offset N:
 * REASON" once (later failures are consequences) and sets bad_input. */
bool bc_corrupt(BcFile *b, const BcCur *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Reports a well-formed file this reader refuses (exit 2). */
bool bc_refuse(BcFile *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Primitive reads; false after bc_corrupt. */
bool bc_byte(BcFile *b, BcCur *r, uint8_t *out);
bool bc_varint(BcFile *b, BcCur *r, uint64_t *out);
bool bc_svarint(BcFile *b, BcCur *r, int64_t *out);
bool bc_varint_flag(BcFile *b, BcCur *r, uint64_t *out, bool *flag);
bool bc_bytes(BcFile *b, BcCur *r, uint64_t n, BcCur *out);
/* A count of items of at least min_size bytes each, checked against the
 * bytes left. */
bool bc_count(BcFile *b, BcCur *r, size_t min_size, uint64_t *out);
bool bc_string(BcFile *b, BcCur *r, const char **s, size_t *len);
bool bc_section(BcFile *b, BcCur *r, uint8_t *id, BcCur *out);
/* Skips alignment padding (0xCB bytes) up to a multiple of align. */
bool bc_align(BcFile *b, BcCur *r, uint64_t align);

/* Attributes and types (bc_read_attrs.c): entry idx, decoded on first use. */
bool bc_attr_table(BcFile *b);
Attr *bc_attr(BcFile *b, BcCur *r);
/* Entry idx referenced at ref (for diagnostics). */
Attr *bc_attr_at(BcFile *b, const BcCur *ref, uint64_t idx);
Type *bc_type(BcFile *b, BcCur *r);
Type *bc_type_at(BcFile *b, const BcCur *ref, uint64_t idx);
BcLoc *bc_loc(BcFile *b, BcCur *r);
/* The concatenation x y z (arena). */
char *bc_cat(BcFile *b, const char *x, const char *y, const char *z);
/* a's text, refused (corrupt) when longer than BC_MAX_TEXT. */
const char *bc_attr_text(BcFile *b, BcCur *r, const Attr *a);
/* The string of a builtin StringAttr reference. */
bool bc_string_attr(BcFile *b, BcCur *r, const char **s, size_t *len);
/* Shared decoders (bc_read_builtin.c): lists of references, a shape
 * (signed varints, INT64_MIN dynamic), a blob, APInt / APFloat values of
 * a known type, an IEEE double, a tensor type over a decoded element. */
bool bc_attrs(BcFile *b, BcCur *r, int *n, Attr ***out);
bool bc_types(BcFile *b, BcCur *r, int *n, Type ***out);
bool bc_shape(BcFile *b, BcCur *r, int *rank, int64_t **dims);
bool bc_blob(BcFile *b, BcCur *r, BcCur *out);
Attr *bc_int_attr(BcFile *b, BcCur *r, Type *t);
Attr *bc_float_attr(BcFile *b, BcCur *r, Type *t);
bool bc_double(BcFile *b, BcCur *r, double *out);
Type *bc_tensor(BcFile *b, BcCur *r, Type *elem, int rank, const int64_t *dims, Attr *enc);
/* Builtin (bc_read_builtin.c), VHLO and CHLO (bc_read_vhlo.c) encodings. */
Attr *bc_decode_builtin_attr(BcFile *b, BcCur *r, BcEntry *e);
Type *bc_decode_builtin_type(BcFile *b, BcCur *r);
Attr *bc_decode_vhlo_attr(BcFile *b, BcCur *r);
Type *bc_decode_vhlo_type(BcFile *b, BcCur *r);
Attr *bc_decode_chlo_attr(BcFile *b, BcCur *r);
/* A dense<...> of static tensor type t over blob (MLIR's raw layout, which
 * tensor_v1 shares: i1 as bytes, packed bits or a one-byte splat). */
Attr *bc_dense_from_blob(BcFile *b, BcCur *at, Type *t, const uint8_t *blob, size_t n);

/* A use-list order read for value `index` of an op's results or a block's
 * arguments: the permutation of its uses (pairs: (from, to) entries). */
typedef struct BcUseOrder {
  uint64_t index;
  Value *value;
  bool pairs;
  uint64_t n;
  uint64_t *idx;
} BcUseOrder;

/* Use-list orders (bc_read_uselist.c): reads those of a range of nvalues
 * values (BcUseOrder* pushed on out), and, once every op is read, orders
 * every value's uses as MLIR's reader does. */
bool bc_read_use_lists(BcFile *b, BcCur *r, uint64_t nvalues, PtrVec *out);
bool bc_apply_use_lists(BcFile *b, Op *module, PtrVec *orders);

/* The IR section (bc_read_ir.c). */
Op *bc_read_ir(BcFile *b);

#endif
