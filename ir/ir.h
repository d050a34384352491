/* The tpucc IR: types, attributes, operations, regions, blocks and values.
 *
 * Everything lives in one Context (see ctx_new): the arena that owns all IR
 * memory, the tables that intern types, and the diagnostic engine.  There is
 * no other mutable global state.  The IR mirrors MLIR's structure: a module is
 * an op with one region, a func.func is an op with one region, and every op
 * has operands (values), results (values), named attributes and regions. */
#ifndef TPUCC_IR_H
#define TPUCC_IR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ------------------------------------------------------------------ */
/* Internal bugs (never user errors): print the C file and line, exit 70. */
_Noreturn void die_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define die(...) die_at(__FILE__, __LINE__, __VA_ARGS__)

/* Exit codes shared by the tools (DESIGN.md section 4). */
enum {
  EXIT_OK = 0,
  EXIT_CHECK_FAILED = 1,
  EXIT_USAGE = 1,
  EXIT_REJECTED = 2,
  EXIT_BAD_FILE = 3,
  EXIT_RUNTIME = 4,
  EXIT_INTERNAL = 70,
};

/* ------------------------------------------------------------------ */
/* Arena: bump allocation in chunks, freed in bulk. */
typedef struct ArenaChunk ArenaChunk;
typedef struct Arena {
  ArenaChunk *head;
  size_t bytes_allocated; /* sum of chunk sizes, for statistics */
} Arena;

void *arena_alloc(Arena *a, size_t n); /* zeroed, 16-byte aligned */
/* realloc for the compiler's growable buffers: never NULL; out of memory
 * ends the process with a message and EXIT_INTERNAL. */
void *xrealloc(void *p, size_t n);
void *xcalloc(size_t n, size_t size); /* zeroed; the same on failure */
void *arena_dup(Arena *a, const void *p, size_t n);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
char *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void arena_free_all(Arena *a);

/* A growable array of pointers allocated with malloc (used while building;
 * freed with vec_free). */
typedef struct PtrVec {
  void **items;
  int len, cap;
} PtrVec;
void vec_push(PtrVec *v, void *item);
void vec_free(PtrVec *v);

/* ------------------------------------------------------------------ */
/* Element types.  X(ENUM, "mlir spelling", bit width, class)
 * Classes: INT signless integer, UINT unsigned, SINT explicitly signed,
 * FLOAT, COMPLEX (width is the whole complex value), INDEX. */
#define ELEM_TYPES(X)                                   \
  X(I1, "i1", 1, INT)                                   \
  X(I2, "i2", 2, INT)                                   \
  X(I4, "i4", 4, INT)                                   \
  X(I8, "i8", 8, INT)                                   \
  X(I16, "i16", 16, INT)                                \
  X(I32, "i32", 32, INT)                                \
  X(I64, "i64", 64, INT)                                \
  X(UI1, "ui1", 1, UINT)                                \
  X(UI2, "ui2", 2, UINT)                                \
  X(UI4, "ui4", 4, UINT)                                \
  X(UI8, "ui8", 8, UINT)                                \
  X(UI16, "ui16", 16, UINT)                             \
  X(UI32, "ui32", 32, UINT)                             \
  X(UI64, "ui64", 64, UINT)                             \
  X(SI2, "si2", 2, SINT)                                \
  X(SI4, "si4", 4, SINT)                                \
  X(SI8, "si8", 8, SINT)                                \
  X(SI16, "si16", 16, SINT)                             \
  X(SI32, "si32", 32, SINT)                             \
  X(SI64, "si64", 64, SINT)                             \
  X(F4E2M1FN, "f4E2M1FN", 4, FLOAT)                     \
  X(F6E2M3FN, "f6E2M3FN", 6, FLOAT)                     \
  X(F6E3M2FN, "f6E3M2FN", 6, FLOAT)                     \
  X(F8E3M4, "f8E3M4", 8, FLOAT)                         \
  X(F8E4M3, "f8E4M3", 8, FLOAT)                         \
  X(F8E4M3FN, "f8E4M3FN", 8, FLOAT)                     \
  X(F8E4M3FNUZ, "f8E4M3FNUZ", 8, FLOAT)                 \
  X(F8E4M3B11FNUZ, "f8E4M3B11FNUZ", 8, FLOAT)           \
  X(F8E5M2, "f8E5M2", 8, FLOAT)                         \
  X(F8E5M2FNUZ, "f8E5M2FNUZ", 8, FLOAT)                 \
  X(F8E8M0FNU, "f8E8M0FNU", 8, FLOAT)                   \
  X(BF16, "bf16", 16, FLOAT)                            \
  X(F16, "f16", 16, FLOAT)                              \
  X(TF32, "tf32", 32, FLOAT)                            \
  X(F32, "f32", 32, FLOAT)                              \
  X(F64, "f64", 64, FLOAT)                              \
  X(C64, "complex<f32>", 64, COMPLEX)                   \
  X(C128, "complex<f64>", 128, COMPLEX)                 \
  X(INDEX, "index", 64, INDEX)

typedef enum ElemKind {
#define X(e, s, b, c) ELEM_##e,
  ELEM_TYPES(X)
#undef X
  ELEM_COUNT
} ElemKind;

typedef enum ElemClass { EC_INT, EC_UINT, EC_SINT, EC_FLOAT, EC_COMPLEX, EC_INDEX } ElemClass;

const char *elem_name(ElemKind k);
int elem_bits(ElemKind k);
ElemClass elem_class(ElemKind k);
bool elem_is_int(ElemKind k);   /* signless, signed or unsigned integer (incl. i1) */
bool elem_is_float(ElemKind k); /* any floating-point kind */
bool elem_is_complex(ElemKind k);
bool elem_is_unsigned(ElemKind k);
int elem_storage_bytes(ElemKind k); /* bytes per element in host layout */
ElemKind elem_complex_part(ElemKind k); /* C64 -> F32, C128 -> F64 */
bool elem_from_name(const char *s, size_t n, ElemKind *out);

/* Minifloat formats: conversions between the bit pattern of a float kind
 * and double (exact for every kind narrower than f64), round to nearest even. */
double float_bits_to_double(ElemKind k, uint64_t bits);
uint64_t double_to_float_bits(ElemKind k, double v);
double elem_float_max(ElemKind k); /* largest finite value of a float kind */
bool elem_float_saturates(ElemKind k); /* overflow clamps to the max (no inf, no NaN) */

/* ------------------------------------------------------------------ */
/* Types (interned: compare with ==). */
typedef enum TypeKind {
  TY_ELEM,   /* a scalar element type used on its own (i32, f32, index) */
  TY_TENSOR, /* ranked or unranked tensor */
  TY_TUPLE,
  TY_TOKEN,  /* !stablehlo.token */
  TY_FUNC,   /* (inputs) -> results */
  TY_NONE,   /* none */
  TY_OPAQUE, /* any other !dialect.type<...>, kept as text */
  TY_FUTURE, /* !stablehlo.future<tensor, ...>: ninputs / inputs as a tuple's */
} TypeKind;

#define DIM_DYNAMIC INT64_MIN

typedef struct Attr Attr;
typedef struct Type Type;
struct Type {
  TypeKind kind;
  ElemKind elem;          /* TY_ELEM, TY_TENSOR (unless elem_opaque) */
  Type *elem_opaque;      /* TY_TENSOR with a non-builtin element (quant: see ir/quant.h) */
  int rank;               /* TY_TENSOR; -1 for unranked tensor<*x..> */
  const int64_t *dims;    /* TY_TENSOR; DIM_DYNAMIC for '?' */
  Attr *encoding;         /* TY_TENSOR encoding, e.g. #stablehlo.bounds */
  int ninputs;            /* TY_TUPLE, TY_FUTURE elements, TY_FUNC inputs */
  Type *const *inputs;
  int nresults; /* TY_FUNC */
  Type *const *results;
  const char *text; /* TY_OPAQUE spelling including '!' */
  const struct QuantType *quant; /* TY_OPAQUE !quant.uniform: its parsed descriptor (ir/quant.h) */
  uint32_t hash;
  Type *next_in_bucket;
};

typedef struct Context Context;

Type *type_elem(Context *c, ElemKind k);
/* Whether ranked tensor types a and b have the same rank and dims (their
 * element types and encodings aside). */
bool type_same_dims(const Type *a, const Type *b);
Type *type_tensor(Context *c, ElemKind k, int rank, const int64_t *dims, Attr *encoding);
Type *type_tensor_opaque_elem(Context *c, Type *elem, int rank, const int64_t *dims, Attr *encoding);
Type *type_tuple(Context *c, int n, Type *const *elems);
Type *type_token(Context *c);
Type *type_future(Context *c, int n, Type *const *elems);
Type *type_none(Context *c);
Type *type_func(Context *c, int nin, Type *const *in, int nout, Type *const *out);
Type *type_opaque(Context *c, const char *text, size_t len);
Type *type_scalar_tensor(Context *c, ElemKind k); /* tensor<k> */
bool type_is_tensor(const Type *t);
bool type_is_static(const Type *t);      /* ranked tensor with no dynamic dims */
bool type_tensor_num_elements(const Type *t, int64_t *out); /* false on overflow / dynamic */
ElemKind type_elem_kind(const Type *t);  /* for tensors and element types */
/* Bounded dynamism (docs/dynamic-shapes.md): a tensor whose encoding is
 * #stablehlo.bounds<...> or #stablehlo.type_extensions<bounds = [...]>
 * (n: its number of bounds, which the parser checked equals the rank). */
bool type_has_bounds(const Type *t, int *n);
/* Dim d's size when static, its bound when a bounded '?', DIM_DYNAMIC when
 * an unbounded '?'. */
int64_t type_dim_bound(const Type *t, int d);
/* t's element type with the given dims, and a #stablehlo.bounds encoding
 * giving bounds[d] to each '?' dim d (none when no '?' has a bound). */
/* The #stablehlo.bounds<...> spelling of a #stablehlo.type_extensions<bounds
 * = [...]> encoding (the same type: one interned form); enc otherwise. */
Attr *type_bounds_canonical(Context *c, Attr *enc);
/* Highest tensor rank tpucc accepts (text and bytecode alike). */
enum { TYPE_MAX_RANK = 64 };
/* Why a ranked tensor of these dims and encoding is invalid (rank above
 * TYPE_MAX_RANK, a negative static dim, bounds as StableHLO's verifyBounds
 * checks them), or NULL when it is valid. */
const char *type_shape_check(Context *c, int rank, const int64_t *dims, const Attr *encoding);
Type *type_with_bounds(Context *c, const Type *t, const int64_t *dims, const int64_t *bounds);

/* ------------------------------------------------------------------ */
/* Attributes. */
typedef enum AttrKind {
  ATTR_UNIT,
  ATTR_BOOL,
  ATTR_INT,            /* integer with a type (default i64) */
  ATTR_FLOAT,          /* float bits with a float type */
  ATTR_STRING,
  ATTR_TYPE,           /* a type used as attribute */
  ATTR_SYMREF,         /* @name (nested refs @a::@b kept in the text) */
  ATTR_ARRAY,          /* [a, b, ...] */
  ATTR_DICT,           /* {k = v, ...} */
  ATTR_DENSE,          /* dense<...> : tensor<...> */
  ATTR_DENSE_ARRAY,    /* array<i64: 1, 2> */
  ATTR_DENSE_RESOURCE, /* dense_resource<name> : tensor<...> */
  ATTR_ENUM,           /* #stablehlo<comparison_direction LT>, or a bare keyword */
  ATTR_DIALECT,        /* #dialect.name<key = value, ...> */
  ATTR_CONV_DIMS,      /* #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]> */
  ATTR_INT_LIST,       /* [1, ?, 3] inside dialect attributes */
  ATTR_OPAQUE,         /* any other attribute, kept as its source text */
} AttrKind;

typedef struct NamedAttr {
  const char *name;
  Attr *value;
} NamedAttr;

/* Convolution dimension numbers. */
typedef struct ConvDims {
  int64_t input_batch, input_feature;
  int nspatial;
  const int64_t *input_spatial;
  int64_t kernel_input_feature, kernel_output_feature;
  const int64_t *kernel_spatial;
  int64_t output_batch, output_feature;
  const int64_t *output_spatial;
} ConvDims;

/* How a dense literal was written, so printing keeps its form. */
typedef enum DenseForm { DENSE_LIST, DENSE_HEX } DenseForm;

struct Attr {
  AttrKind kind;
  Type *type; /* INT, FLOAT, TYPE (the type itself), DENSE, DENSE_RESOURCE */
  union {
    bool b;
    int64_t i;  /* INT: value, sign- or zero-extended per type */
    uint64_t f; /* FLOAT: bit pattern in the float kind */
    struct {
      const char *s;
      size_t len;
    } str; /* STRING (unescaped bytes), SYMREF (name), OPAQUE (text) */
    struct {
      int n;
      Attr **items;
    } array;
    struct {
      int n;
      NamedAttr *items; /* sorted by name */
    } dict;
    struct {
      const uint8_t *data; /* host layout, elem_storage_bytes each */
      size_t nbytes;
      bool splat;          /* data holds one element */
      DenseForm form;
    } dense;
    struct {
      ElemKind elem;
      int n;
      const int64_t *ints;  /* integer kinds */
      const double *floats; /* float kinds */
    } darray;
    struct {
      const char *name;
    } resource;
    struct {
      const char *dialect;   /* "stablehlo"; NULL for a bare keyword */
      const char *enum_name; /* "comparison_direction"; NULL for a bare keyword */
      const char *value;     /* "LT" */
    } enm;
    struct {
      const char *name; /* "stablehlo.gather" (dialect.mnemonic) */
      int n;
      NamedAttr *params; /* in source order; name NULL for positional */
    } dialect;
    ConvDims conv;
    struct {
      int n;
      const int64_t *v; /* DIM_DYNAMIC for '?' */
    } ilist;
  } u;
};

Attr *attr_unit(Context *c);
Attr *attr_bool(Context *c, bool b);
Attr *attr_int(Context *c, Type *t, int64_t v);
Attr *attr_i64(Context *c, int64_t v);
Attr *attr_float_bits(Context *c, Type *t, uint64_t bits);
Attr *attr_string(Context *c, const char *s, size_t len);
Attr *attr_symref(Context *c, const char *name);
Attr *attr_type(Context *c, Type *t);
Attr *attr_array(Context *c, int n, Attr **items);
Attr *attr_dict(Context *c, int n, NamedAttr *items); /* sorts a copy */
Attr *attr_dense_i64_array(Context *c, int n, const int64_t *v);
/* A dense<...> of tensor type t over nbytes of host-layout data (copied);
 * splat: one element stands for all. */
Attr *attr_dense_raw(Context *c, Type *t, const void *data, size_t nbytes, bool splat);
Attr *attr_dense_bool_array(Context *c, int n, const bool *v);
Attr *attr_enum(Context *c, const char *dialect, const char *enum_name, const char *value);
Attr *attr_int_list(Context *c, int n, const int64_t *v);
Attr *attr_dialect(Context *c, const char *name, int n, const NamedAttr *params); /* copies params */
Attr *attr_conv_dims(Context *c, const ConvDims *d);                               /* copies the lists */
Attr *attr_opaque(Context *c, const char *text, size_t len);
bool attr_equal(const Attr *a, const Attr *b);

/* Typed views used by the verifier and later stages.  They accept both the
 * modern encodings (array<i64: ...>) and the older ones (dense<..> :
 * tensor<Nxi64>, [1, 2] arrays of integers). */
bool attr_as_i64_list(const Attr *a, int *n, const int64_t **v, Arena *scratch);
bool attr_as_bool_list(const Attr *a, int *n, bool **v, Arena *scratch);
bool attr_as_int(const Attr *a, int64_t *v);
const char *attr_enum_value(const Attr *a); /* "LT" for an enum, else NULL */
const Attr *dialect_param(const Attr *a, const char *key); /* NULL if absent */
int64_t dense_num_elements(const Attr *a); /* -1 if the type is not static */

/* Dense element access (host layout). */
int64_t dense_get_int(const Attr *a, int64_t i);   /* sign/zero extended */
uint64_t dense_get_bits(const Attr *a, int64_t i); /* raw bits of element i */

/* ------------------------------------------------------------------ */
/* Source files and locations. */
typedef struct SourceFile {
  const char *name;
  const char *text;
  size_t len;
} SourceFile;

typedef struct Loc {
  const SourceFile *file; /* NULL: unknown location */
  uint32_t line, col;     /* 1-based */
} Loc;

/* ------------------------------------------------------------------ */
/* Operation kinds, from the op table (ops.def). */
typedef enum OpKind {
#define OP(id, name, ...) OP_##id,
#include "ir/ops.def"
#undef OP
  OP_COUNT
} OpKind;

/* Static facts about an op kind, from its row of ir/ops.def.  The
 * pretty-syntax format string is a small language described in
 * ir/syntax.h. */
typedef struct OpInfo {
  const char *name;    /* "stablehlo.add" */
  size_t name_len;
  const char *format;  /* pretty syntax; NULL: printed and parsed generically */
  int min_operands;    /* -1 for no check */
  int max_operands;    /* -1 for variadic */
  int num_results;     /* -1 for variadic */
  int num_regions;
  unsigned traits;     /* TRAIT_* */
  unsigned elems;      /* EM_* classes of a same_type op's operands and results */
} OpInfo;

/* Op traits. */
enum {
  TRAIT_ELEMENTWISE = 1u << 0,   /* element-wise over same-shaped operands */
  TRAIT_TERMINATOR = 1u << 1,    /* ends a block */
  TRAIT_SIDE_EFFECT = 1u << 2,   /* must not be removed */
  TRAIT_ISOLATED = 1u << 3,      /* regions cannot see outer values */
  TRAIT_SYMBOL = 1u << 4,        /* defines a symbol (func.func) */
  TRAIT_SAME_TYPE = 1u << 5,     /* operands and results share one type */
  TRAIT_CHLO = 1u << 6,          /* CHLO op, decomposed later */
  TRAIT_COMMUTATIVE = 1u << 7,
  TRAIT_CONTRACTION = 1u << 8,   /* a contraction (dot, convolution): runs on the MXU */
  TRAIT_COLLECTIVE = 1u << 9,    /* a collective over a process group (ICI traffic) */
  TRAIT_BROADCASTING = 1u << 10, /* element-wise once its operands are broadcast to the result's shape */
  TRAIT_EXPAND = 1u << 11,       /* no VM kernel: the expand pass rewrites it (its DECOMPOSE) at every -O level */
};

/* Element classes, as a mask (OpInfo.elems, the verifier's operand rules). */
enum {
  EM_BOOL = 1u << 0,    /* i1 */
  EM_SINT = 1u << 1,    /* signless or signed integers (not i1) */
  EM_UINT = 1u << 2,    /* unsigned integers */
  EM_FLOAT = 1u << 3,
  EM_COMPLEX = 1u << 4,
  EM_INT = EM_SINT | EM_UINT,
  EM_ANY = EM_BOOL | EM_INT | EM_FLOAT | EM_COMPLEX,
};

extern const OpInfo op_info[OP_COUNT];
OpKind op_kind_from_name(const char *name, size_t len); /* OP_UNKNOWN if none */

/* ------------------------------------------------------------------ */
/* Values, ops, blocks, regions. */
typedef struct Op Op;
typedef struct Block Block;
typedef struct Region Region;
typedef struct Value Value;
typedef struct Use Use;

struct Use {
  Op *user;
  int operand_index;
  Use *next;
  Use **pprev; /* the link that points at this use (O(1) removal) */
};

struct Value {
  Type *type;
  Op *def;      /* defining op; NULL for a block argument */
  Block *block; /* owning block for a block argument */
  int index;    /* result number or argument number */
  Use *uses;
  const char *name_hint; /* source name, for diagnostics */
};

struct Op {
  OpKind kind;
  const char *name; /* op name (table name, or the unknown op's name) */
  Loc loc;
  const char *srcloc; /* text of a trailing loc(...) if any */
  int noperands;
  Value **operands;
  Use *operand_uses; /* noperands slots: operand i's use of its value */
  int nresults;
  Value *results;
  int nattrs;
  NamedAttr *attrs; /* sorted by name */
  int nregions;
  Region *regions;
  Block *parent;
  Op *prev, *next;
  uint32_t order; /* position in the parent block, as last numbered (verifier) */
};

struct Block {
  int nargs;
  Value *args;
  Op *first, *last;
  Region *parent;
  Loc loc;
};

struct Region {
  int nblocks;
  Block **blocks;
  Op *parent;
};

/* A module: the builtin.module op plus resources named by dense_resource. */
typedef struct Resource {
  const char *name;
  const uint8_t *data; /* NULL when not present (e.g. __elided__) */
  size_t nbytes;
  const char *hex; /* original hex text, for printing */
} Resource;

typedef struct Module {
  Op *op; /* OP_MODULE */
  int nresources;
  Resource *resources;
  const SourceFile *file;
} Module;

Op *op_create(Context *c, OpKind kind, const char *name, Loc loc, int noperands, Value **operands,
              int nresults, Type **result_types, int nattrs, NamedAttr *attrs, int nregions);
void op_append(Block *b, Op *op);
void op_set_operand(Context *c, Op *op, int i, Value *v);
/* Unlinks operand i's use from its value's use list in O(1) (the operand
 * itself stays; op_set_operand and op_erase call it). */
void op_remove_use(Op *op, int i);
Block *block_create(Context *c, Region *parent, int nargs, Type **arg_types);
void region_add_block(Context *c, Region *r, Block *b);
const Attr *op_attr(const Op *op, const char *name); /* NULL if absent */
/* A tpu.fusion of kind "loop" whose result 0 may be written over a dying
 * operand of its type (as an element-wise op's): not when its body
 * broadcasts a parameter of that type, since the broadcast reads positions
 * outside the tile being written.  The back end's INPLACE flag and
 * buffer-assign's reuse both follow it. */
bool loop_fusion_writes_in_place(const Op *fusion);
/* The size a stablehlo.get_dimension_size returns when its dimension is
 * static (and fits its i32 result); false for a dynamic one.  Canonicalize
 * folds it and the back end lowers it to a constant by this one rule. */
bool static_dimension_size(const Op *op, int32_t *size);

/* JAX's annotation custom calls (ir/annotations.def). */
typedef struct Annotation {
  const char *target;   /* call_target_name */
  bool spmd_only;       /* an identity only on one partition */
  const char *meaning;
} Annotation;
/* The annotation op is a custom_call of, or NULL. */
const Annotation *custom_call_annotation(const Op *op);
void op_set_attr(Context *c, Op *op, const char *name, Attr *value);
Block *op_body(const Op *op); /* first block of region 0, or NULL */
const char *op_symbol_name(const Op *op); /* sym_name of a func/module */
Op *module_lookup_func(const Module *m, const char *name);

/* ------------------------------------------------------------------ */
/* Rewriting (ir/rewrite.c): what passes use to change the IR.  Use lists
 * stay exact. */
bool op_results_unused(const Op *op);
void value_replace_all_uses(Context *c, Value *from, Value *to);
void op_unlink(Op *op);                    /* detach from its block (uses kept) */
void op_insert_before(Op *before, Op *op); /* op must be detached */
void op_insert_after(Op *after, Op *op);
void op_erase(Op *op); /* unlink and drop its uses; its results must be unused */
/* An op with one result (or none when result_type is NULL), not inserted. */
Op *op_build(Context *c, OpKind kind, Loc loc, int noperands, Value **operands, Type *result_type, int nattrs,
             NamedAttr *attrs);
/* op_build of one op inserted before `at`, with at's location (and its
 * source loc text); returns its result. */
Value *op_build_before(Context *c, Op *at, OpKind kind, int noperands, Value **operands, Type *result_type,
                       int nattrs, NamedAttr *attrs);

/* Value -> value map (open addressing, arena memory) for cloning. */
typedef struct ValueMapEntry {
  const Value *from;
  Value *to;
} ValueMapEntry;
typedef struct ValueMap {
  ValueMapEntry *entries;
  size_t cap, count;
} ValueMap;
void value_map_put(Context *c, ValueMap *m, const Value *from, Value *to);
Value *value_map_get(const ValueMap *m, const Value *from); /* NULL if absent */
/* Deep copies; operands found in m are replaced, new values are added to m. */
Op *op_clone(Context *c, const Op *op, ValueMap *m);
void region_clone_into(Context *c, const Region *from, Region *to, ValueMap *m);

/* ------------------------------------------------------------------ */
/* Diagnostics. */
typedef enum Severity { SEV_ERROR, SEV_WARNING, SEV_NOTE, SEV_REMARK } Severity;

typedef struct DiagEngine {
  FILE *out;         /* where diagnostics are printed (default stderr) */
  int max_errors;    /* stop reporting after this many errors (0 = 20) */
  int nerrors;
  int nwarnings;
  bool suppressed;   /* max_errors reached: further errors only counted */
  bool show_source;  /* print the source line and caret (default true) */
  bool quiet;        /* count but do not print (speculative parsing) */
  bool bad_input;    /* the input file itself is corrupt (bytecode): exit 3, not 2 */
} DiagEngine;

void diag_report(Context *c, Loc loc, Severity sev, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diag_vreport(Context *c, Loc loc, Severity sev, const char *fmt, va_list ap);
/* An error about an op: "'stablehlo.add' op <message>" at the op's location. */
void op_error(Context *c, const Op *op, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void op_note(Context *c, const Op *op, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------------ */
/* The context: the one owner of all compiler state. */
typedef struct TypeTable {
  Type **buckets;
  uint32_t nbuckets, count;
} TypeTable;

typedef struct InferSink InferSink; /* ir/verify_ops.h */

struct Context {
  Arena arena;      /* all IR memory */
  TypeTable types;  /* interned types */
  Type *elem_types[ELEM_COUNT];
  DiagEngine diag;
  InferSink *infer; /* set while ir/infer.c runs a type rule to collect shapes */
};

Context *ctx_new(void);
void ctx_free(Context *c);

/* ------------------------------------------------------------------ */
/* Printer.  Output goes to a FILE*; print_module_string gives a malloc'd string. */
typedef struct PrintOptions {
  bool generic;     /* MLIR generic op form for every op */
  bool locations;   /* print loc(...) where known */
} PrintOptions;

void print_module(Context *c, const Module *m, FILE *out, const PrintOptions *opts);
char *print_module_string(Context *c, const Module *m, const PrintOptions *opts);
void print_type(FILE *out, const Type *t);
void print_attr(FILE *out, const Attr *a, bool generic);
char *type_to_string(Context *c, const Type *t); /* arena string */
char *attr_to_string(Context *c, const Attr *a);

/* ------------------------------------------------------------------ */
/* Result-type inference (ir/infer.c), by the INFER column of ir/ops.def:
 * the types StableHLO's type inference gives op's results, from its
 * operands' types, its attributes and its regions (op->results are
 * ignored, so it may have none).  Writes at most MAX_OUT interned types to
 * OUT and returns how many; -1 after a located diagnostic (an op whose
 * result types the user must give, or inconsistent operands). */
int infer_result_types(Context *c, const Op *op, Type **out, int max_out);
/* Whether ops of kind K have inference (INFER is not none). */
bool op_has_inference(OpKind k);

/* ------------------------------------------------------------------ */
/* Verifier: reports every problem through the diagnostic engine and returns
 * false if any error was found. */
bool verify_module(Context *c, Module *m);

#endif
