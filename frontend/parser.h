/* The StableHLO / MLIR text front end. */
#ifndef TPUCC_PARSER_H
#define TPUCC_PARSER_H

#include "ir/ir.h"

/* Parse text[start, end) of file (whose first line is first_line) into a
 * module.  Returns NULL after reporting diagnostics if the text is invalid.
 * Bytes that start with MLIR bytecode's magic number are read as a
 * portable artifact (frontend/bytecode.h) instead. */
Module *parse_module(Context *c, const SourceFile *file, const char *start, const char *end, uint32_t first_line);

/* A chunk of a file split on lines that are exactly "// -----". */
typedef struct SourceChunk {
  const char *start, *end;
  uint32_t first_line;
} SourceChunk;

/* Split file text into chunks; returns the count, *out is malloc'd. */
int split_input_file(const SourceFile *file, SourceChunk **out);

/* The programs of file: its chunks with --split-input-file (split), else
 * the whole text as one; the count, *out malloc'd. */
int source_chunks(const SourceFile *file, bool split, SourceChunk **out);

/* One attribute or type in MLIR syntax, the whole of s[0, n) (loc: where
 * s came from, for diagnostics); NULL after a diagnostic.  The bytecode
 * reader's assembly-format entries and StableHLO attributes built from
 * their spelling. */
Attr *parse_attribute_text(Context *c, const char *s, size_t n, Loc loc);
Type *parse_type_text(Context *c, const char *s, size_t n, Loc loc);

#endif
