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

/* Part of every cache key: bump it when the compiler accepts, refuses or
 * emits something differently, so no entry of an older build is served
 * (0.2.1: sharded programs and bad dense_resource blobs are refused). */
#define TPUCC_VERSION "0.2.1"

/* Reads a whole file (or stdin for "-") of at most max bytes; NULL after
 * printing "<tool>: cannot open ...", or "<tool>: PATH: input larger than
 * max bytes ...", on failure. */
char *driver_read_file(const char *tool, const char *path, uint64_t max, size_t *len);

typedef struct CompileOptions {
  const char *target; /* preset name, default "v5e" */
  int opt_level;      /* 0..2 */
  int max_errors;     /* --max-errors: diagnostics limit (default 20) */
  bool explicit_passes; /* --passes given: `passes` replaces the -O pipeline */
  Pipeline passes;
  PassOptions pass_opts; /* --verify-each, --print-ir-after*, --time-passes */
  /* The compilation cache (--cache-dir, --no-cache, --cache-max-size). */
  const char *cache_dir;
  bool no_cache;
  uint64_t cache_max_bytes; /* default 1 GiB */
  uint64_t max_input_bytes; /* --max-input-size, default 2 GiB */
} CompileOptions;

/* Defaults: v5e, -O2. */
void driver_compile_defaults(CompileOptions *o);

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
