/* What the tpucc and tpurun drivers share: reading input files and the
 * compile pipeline from StableHLO text to a .tpub image. */
#ifndef TOOLS_DRIVER_H
#define TOOLS_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "cache/cache.h"
#include "frontend/parser.h"
#include "passes/pass.h"

#define TPUCC_VERSION "0.2.0"

/* Reads a whole file (or stdin for "-"); NULL after printing
 * "<tool>: cannot open ..." on failure. */
char *driver_read_file(const char *tool, const char *path, size_t *len);

typedef struct CompileOptions {
  const char *target; /* preset name, default "v5e" */
  int opt_level;      /* 0..2 */
  int max_errors;     /* diagnostics limit, 0: default */
  bool explicit_passes; /* --passes given: `passes` replaces the -O pipeline */
  Pipeline passes;
  PassOptions pass_opts; /* --verify-each, --print-ir-after*, --time-passes */
  /* The compilation cache (--cache-dir, --no-cache, --cache-max-size). */
  const char *cache_dir;
  bool no_cache;
  uint64_t cache_max_bytes; /* default 1 GiB */
} CompileOptions;

/* Defaults: v5e, -O2. */
void driver_compile_defaults(CompileOptions *o);

/* Prints "<tool>: <fmt with arg>" and the --help hint; returns exit code 1. */
int driver_usage_error(const char *tool, const char *fmt, const char *arg);

/* Parses an option both drivers share (-O0/-O1/-O2, --target=NAME,
 * --passes=LIST and the pass instrumentation) into o.
 * Returns 1 if taken, 0 if not one of them, -1 after a usage error. */
int driver_compile_option(const char *tool, const char *arg, CompileOptions *o);

/* Help text of the shared options. */
extern const char driver_compile_help[];

/* Runs the optimization pipeline of o over a verified module; false after
 * diagnostics.  pc (may be NULL) receives the analyses' results. */
bool driver_optimize(Context *c, Module *m, const CompileOptions *o, PassContext *pc);

/* Back-end options of o: its target, and the COSTS section from the cost
 * model (passes/cost.h) of that target. */
BackendOptions driver_backend_options(const CompileOptions *o);

/* Lowers an optimized module to a .tpub image (malloc'ed) and checks that
 * tpurun's loader accepts it, so nothing unloadable is ever written or
 * cached (the verifier refuses what the loader would; a refusal here is a
 * compiler bug, reported on stderr).  False after diagnostics. */
bool driver_lower(Context *c, Module *m, const CompileOptions *o, uint8_t **out, size_t *outlen);

/* The key options of o: compiler version, target, output-changing options
 * ("-O2", or the explicit pass list), into buf. */
CacheKeyOptions driver_cache_key_options(const CompileOptions *o, char *buf, size_t n);

/* Optimizes and lowers a verified module in memory, through the cache when
 * cache is non-NULL (a hit skips the passes and the back end): the entry
 * point for later runtime modes.  raw: the key of the source bytes (NULL
 * if unknown), stored as an alias.  metrics (may be NULL) counts compiles.
 * Returns 0, or 2 after diagnostics. */
int driver_compile_module(Context *c, Module *m, const CompileOptions *o, Cache *cache, const CacheKey *raw,
                          CacheMetrics *metrics, uint8_t **out, size_t *outlen);

/* Parses, verifies, optimizes and lowers one chunk of file to a .tpub image
 * (malloc'ed), through the cache when non-NULL: the chunk's raw bytes are
 * looked up first (no parsing on a hit), then its canonical IR.  Diagnostics go to stderr.  Returns 0, or 2 when the
 * program is rejected. */
int driver_compile(const SourceFile *file, const SourceChunk *chunk, const CompileOptions *o, Cache *cache,
                   CacheMetrics *metrics, uint8_t **out, size_t *outlen);

#endif
