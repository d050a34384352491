/* Internal to frontend/vhlo_legalize*.c: the rows of frontend/vhlo_ops.def
 * parsed, and the per-attribute rules written once as pairs (to StableHLO,
 * to VHLO). */
#ifndef TPUCC_VHLO_LEGALIZE_H
#define TPUCC_VHLO_LEGALIZE_H

#include "frontend/vhlo.h"

/* Attribute groups StableHLO holds as one structure (STRUCTS column). */
enum { S_CONV = 1, S_DOT = 2, S_ALG = 4, S_GATHER = 8, S_SCATTER = 16, S_CHAN = 32 };

/* Versioned constraints (CONSTRAINTS column). */
enum {
  C_SAME_ELEMENTS_0_17 = 1,     /* operand and result element types match before 0.17.0 */
  C_ONE_OPERAND = 2,            /* the single-operand form of a now variadic op */
  C_NO_REGIONS = 4,             /* no regions (composite before 1.14.0) */
  C_CUSTOM_CALL_1_3 = 8,        /* no dictionary backend_config, no typed FFI before 1.3.0 */
  C_NO_FUTURE_OPERANDS_1_17 = 16, /* no !stablehlo.future operands before 1.17.0 */
};

typedef enum VhloRule { VR_SAME, VR_I64ARR, VR_BOOLARR, VR_SYM, VR_SYMS, VR_CHAN, VR_UNIT, VR_APIVER } VhloRule;

typedef enum VhloDefault {
  VD_NONE, VD_FALSE, VD_ZERO, VD_NEG1, VD_STR, VD_ARR, VD_DICT, VD_EMPTY, VD_ONES, VD_ZEROS, VD_FALSES,
  VD_PREC, VD_NOTYPE, VD_ORIGINAL, VD_ACC, VD_NONETYPE, VD_CONFIG, VD_LAYOUTS,
} VhloDefault;

typedef struct VhloAttrSpec {
  const char *name; /* the VHLO name */
  VhloRule rule;
  VhloDefault def;
} VhloAttrSpec;

#define VHLO_MAX_ATTRS 24

/* One row of frontend/vhlo_ops.def, its attribute string parsed. */
typedef struct VhloOpRow {
  const char *name; /* "vhlo.add_v1" */
  OpKind kind;
  VhloVersion since, until;
  unsigned structs, constraints;
  int nattrs;
  VhloAttrSpec attrs[VHLO_MAX_ATTRS];
} VhloOpRow;

/* All rows, parsed into the arena (rows of one kind are adjacent, oldest
 * first). */
typedef struct VhloTable {
  int n;
  VhloOpRow *rows;
} VhloTable;
VhloTable *vhlo_table(Context *c);
/* The row named NAME, or NULL. */
const VhloOpRow *vhlo_row_by_name(const VhloTable *t, const char *name);
/* The newest row of KIND, or NULL if KIND has no VHLO op. */
const VhloOpRow *vhlo_row_current(const VhloTable *t, OpKind kind);
/* The row of KIND at version v: the newest with since <= v; NULL if every
 * row of KIND is newer than v (or KIND has none). */
const VhloOpRow *vhlo_row_at(const VhloTable *t, OpKind kind, VhloVersion v);
/* The spec of attribute NAME in row, or NULL. */
const VhloAttrSpec *vhlo_row_attr(const VhloOpRow *row, const char *name);

/* A growable list of named attributes (malloc'd items). */
typedef struct AttrList {
  NamedAttr *items;
  int n, cap;
} AttrList;
void alist_push(AttrList *l, const char *name, Attr *value);
Attr *alist_get(const AttrList *l, const char *name);
/* Sets op's attributes to l's, sorted by name, and frees l. */
void alist_install(Context *c, Op *op, AttrList *l);

/* The per-attribute rules (frontend/vhlo_legalize_rules.c). */
const char *rule_stablehlo_name(VhloRule r, const char *vhlo_name);
Attr *rule_to_stablehlo(Context *c, VhloRule r, Attr *v);
Attr *rule_to_vhlo(Context *c, VhloRule r, Attr *v);
/* tensor<Nxi64> (tensor<N/2x2xi64> when pairs) of v, a splat when its
 * elements (two or more) are all equal, as MLIR's dense attributes are. */
Attr *vhlo_i64_tensor(Context *c, int n, const int64_t *v, bool pairs);
/* Whether VHLO value v is the default d (VD_LAYOUTS: the empty array). */
bool vhlo_is_default(const Attr *v, VhloDefault d);
/* The VHLO value of default d for op (n: its spatial or window rank;
 * typed_ffi: whether the op's api_version is the typed FFI). */
Attr *vhlo_default_value(Context *c, VhloDefault d, int n, bool typed_ffi);
/* The S_* group attribute NAME belongs to among STRUCTS, or 0. */
unsigned struct_member(unsigned structs, const char *name);
/* Whether NAME is the StableHLO attribute of one of the groups of STRUCTS. */
bool struct_attr(unsigned structs, const char *name);
/* Implodes the members of each group of STRUCTS (looked up in vhlo) into
 * StableHLO's structures, appended to out; false if one is malformed. */
bool structs_to_stablehlo(Context *c, unsigned structs, const AttrList *vhlo, AttrList *out);
/* Explodes StableHLO's structures (in op) into their VHLO members,
 * appended to out; false (with a diagnostic) if one is missing. */
bool structs_to_vhlo(Context *c, const Op *op, unsigned structs, AttrList *out);
/* Generic StableHLO -> VHLO of an attribute no rule names: arrays of i64 and
 * i1 become tensors, symbols strings (recursively in arrays and
 * dictionaries). */
Attr *generic_to_vhlo(Context *c, Attr *a);

#endif
