/* StableHLO's portable artifacts: MLIR bytecode in the VHLO dialect
 * (docs/bytecode-input.md).  Internal to frontend/; the tools see
 * frontend/bytecode.h.
 *
 * Three stages meet in the VHLO form of a module, built from our own IR:
 *   bc_read_vhlo      bytes      -> VHLO form   (frontend/bc_read*.c)
 *   vhlo_to_stablehlo VHLO form  -> StableHLO   (frontend/vhlo_legalize*.c)
 *   stablehlo_to_vhlo StableHLO  -> VHLO form   (the same files)
 *   bc_write_vhlo     VHLO form  -> bytes       (frontend/bc_write*.c)
 *
 * VHLO form:
 * - m->op is the builtin.module (OP_MODULE) with its attributes; every op
 *   inside is a VHLO op kept generically: kind OP_UNKNOWN, name the full
 *   versioned name ("vhlo.func_v1", "vhlo.add_v1", "vhlo.return_v1"), its
 *   operands, results, regions and blocks as in the artifact.  Its
 *   attributes (bytecode properties and discardable attributes alike) are
 *   its NamedAttrs; a name with no '.' is an inherent attribute (written as
 *   a property), one with a '.' a discardable one.
 * - Ops of other dialects (chlo.*, check.*, interpreter.*: a mixed module,
 *   as --allow-other-dialects writes it) keep their own kind, builtin
 *   attributes and builtin-typed values, joined to VHLO values by
 *   builtin.unrealized_conversion_cast ops (written by stablehlo_to_vhlo,
 *   removed by vhlo_to_stablehlo).
 * - Types are our interned types: !vhlo.tensor_v1<2x!vhlo.f32_v1> is
 *   tensor<2xf32>, !vhlo.complex_v1<f32> complex<f32>, tuple, token, func,
 *   none, future and !quant.uniform as the text parser builds them;
 *   !vhlo.buffer_v1 is the opaque type "memref<2xf32>", !vhlo.witness_v1
 *   "!shape.witness"; a type_extensions_v1 encoding is the
 *   #stablehlo.bounds<...> the text parser builds.
 * - Attributes of VHLO ops are VHLO attributes, held as the StableHLO
 *   attribute they convert to one to one (upstream's convertGeneric):
 *   array_v1 ATTR_ARRAY, bool_v1 ATTR_BOOL, dict_v1 ATTR_DICT, float_v1
 *   ATTR_FLOAT, integer_v1 ATTR_INT, string_v1 ATTR_STRING, tensor_v1
 *   ATTR_DENSE (list form), type_v1 ATTR_TYPE, the enums ATTR_ENUM
 *   ("stablehlo", "comparison_direction", "EQ"), and output_operand_alias,
 *   result_accuracy, sub_axis_info, axis_ref, mesh_axis, mesh and
 *   replica_group_mesh_axes the attribute the text parser builds for their
 *   #stablehlo spelling.  Attributes of other ops (the module) and
 *   locations are builtin attributes.  The op-specific conversions (dims
 *   as array<i64>, dimension-number structs, symbols, defaults elided,
 *   older op versions upgraded) are vhlo_to_stablehlo's.
 * - Locations: Op.loc (file, line, col of a FileLineColLoc; file NULL if
 *   unknown) and Op.srcloc (the loc(...) text as MLIR prints it). */
#ifndef TPUCC_VHLO_H
#define TPUCC_VHLO_H

#include <stdint.h>

#include "ir/ir.h"

/* A StableHLO / VHLO version, major.minor.patch. */
typedef struct VhloVersion {
  int major, minor, patch;
} VhloVersion;

#define VHLO_VERSION_MINIMUM ((VhloVersion){0, 9, 0})
#define VHLO_VERSION_CURRENT ((VhloVersion){1, 20, 0})

/* Parses "1.2.3"; false if s is not three dot-separated numbers. */
bool vhlo_version_parse(const char *s, VhloVersion *out);
/* Whether v is one this reader and writer support: VHLO_VERSION_MINIMUM to
 * VHLO_VERSION_CURRENT. */
bool vhlo_version_supported(VhloVersion v);
/* <0, 0, >0 as a is older, equal or newer than b. */
int vhlo_version_cmp(VhloVersion a, VhloVersion b);
/* The MLIR bytecode format version StableHLO writes for version v
 * (Version::getBytecodeVersion): 0, 1, 3, 4 or 6. */
int vhlo_bytecode_format(VhloVersion v);

/* What the reader learned about the artifact besides its ops. */
typedef struct BcInfo {
  uint64_t format_version; /* MLIR bytecode version (0..6) */
  const char *producer;    /* "StableHLO_v1.0.0" */
  VhloVersion vhlo;        /* the vhlo dialect's version record */
  bool has_vhlo_version;
} BcInfo;

/* Reads a bytecode file into VHLO form.  NULL after a located diagnostic:
 * a truncated or corrupt file sets c->diag.bad_input (exit 3) and names
 * the section and byte offset; a well-formed file this reader refuses (a
 * future version) leaves it clear (exit 2). */
Module *bc_read_vhlo(Context *c, const SourceFile *file, BcInfo *info);

/* Rewrites a module in VHLO form, in place, into the StableHLO module the
 * text parser would build for its stablehlo-translate --deserialize text;
 * false after diagnostics (an op or attribute VHLO does not know: exit 2). */
bool vhlo_to_stablehlo(Context *c, Module *m, const BcInfo *info);

/* Rewrites a StableHLO module, in place, into VHLO form at version target;
 * false after diagnostics naming each op (or attribute, type) target lacks
 * and the version that introduced it. */
bool stablehlo_to_vhlo(Context *c, Module *m, VhloVersion target);

/* Writes a module in VHLO form as bytecode for version target (malloc'd
 * *out); false after diagnostics. */
bool bc_write_vhlo(Context *c, const Module *m, VhloVersion target, uint8_t **out, size_t *len);

#endif
