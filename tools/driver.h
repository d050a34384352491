/* What the tpucc and tpurun drivers share: reading input files and the
 * compile pipeline from StableHLO text to a .tpub image. */
#ifndef TOOLS_DRIVER_H
#define TOOLS_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/compile.h"

/* Reads a whole file (or stdin for "-") of at most max bytes; NULL after
 * printing "<tool>: cannot open ...", or "<tool>: PATH: input larger than
 * max bytes ...", on failure. */
char *driver_read_file(const char *tool, const char *path, uint64_t max, size_t *len);

/* True when paths a and b name one existing file (not "-"): an output
 * that would overwrite the program it was made from is refused. */
bool driver_same_file(const char *a, const char *b);

/* Prints "<tool>: <fmt with arg>" and the --help hint; returns exit code 1. */
int driver_usage_error(const char *tool, const char *fmt, const char *arg);

/* Parses an option both drivers share (-O0/-O1/-O2, --target=NAME,
 * --passes=LIST, the pass instrumentation, --max-errors and the cache
 * options) into o.
 * Returns 1 if taken, 0 if not one of them, -1 after a usage error. */
int driver_compile_option(const char *tool, const char *arg, CompileOptions *o);

/* Help text of the shared options. */
extern const char driver_compile_help[];

#endif
