/* What the tpucc and tpurun drivers share: reading input files and the
 * compile pipeline from StableHLO text to a .tpub image. */
#ifndef TOOLS_DRIVER_H
#define TOOLS_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "frontend/parser.h"

#define TPUCC_VERSION "0.2.0"

/* Reads a whole file (or stdin for "-"); NULL after printing
 * "<tool>: cannot open ..." on failure. */
char *driver_read_file(const char *tool, const char *path, size_t *len);

typedef struct CompileOptions {
  const char *target; /* preset name, default "v5e" */
  int opt_level;      /* 0..2 */
  int max_errors;     /* diagnostics limit, 0: default */
} CompileOptions;

/* Is name a target preset of DESIGN.md §2? */
int driver_target_known(const char *name);

/* Parses, verifies and lowers one chunk of file to a .tpub image
 * (malloc'ed).  Diagnostics go to stderr.  Returns 0, or 2 when the
 * program is rejected. */
int driver_compile(const SourceFile *file, const SourceChunk *chunk, const CompileOptions *o, uint8_t **out,
                   size_t *outlen);

#endif
