/* MLIR bytecode input and output: StableHLO portable artifacts (.mlir.bc),
 * read into the same IR the text parser builds and written for a chosen
 * StableHLO version (docs/bytecode-input.md). */
#ifndef TPUCC_BYTECODE_H
#define TPUCC_BYTECODE_H

#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"

/* Whether data starts with MLIR bytecode's magic number "ML\xefR": the
 * input kind is told by these bytes, never by the file name. */
bool bytecode_is_mlir(const void *data, size_t len);

/* Reads a portable artifact (file->text, file->len bytes) into a StableHLO
 * module; NULL after diagnostics (c->diag.bad_input set when the file is
 * truncated or corrupt). */
Module *bytecode_read_module(Context *c, const SourceFile *file);

/* Whether s names a StableHLO version portable artifacts can be written
 * for: MAJOR.MINOR.PATCH from 0.9.0 to the current 1.20.0. */
bool bytecode_version_supported(const char *s);

/* Writes m as a portable artifact for StableHLO version "X.Y.Z" (NULL:
 * the current version) into malloc'd *out; false after diagnostics (an op
 * the version lacks, with the version that introduced it). */
bool bytecode_write_module(Context *c, Module *m, const char *version, uint8_t **out, size_t *len);

#endif
