/* The one compile path (runtime/compile.c): tpucc, tpurun and libtpurun
 * compile StableHLO through it, so they agree on pipelines, cache keys and
 * what gets written. */
#ifndef RUNTIME_COMPILE_H
#define RUNTIME_COMPILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "backend/backend.h"
#include "cache/cache.h"
#include "frontend/parser.h"
#include "passes/pass.h"
#include "passes/refine.h"

/* Part of every cache key: bump it when the compiler accepts, refuses or
 * emits something differently, so no entry of an older build is served
 * (0.6.0: portable artifacts read and written, default-valued attributes
 * printed only when not default; 0.5.0: quantized types, bounded and refined dynamic shapes, new ops;
 * 0.4.0: sharded programs partitioned; 0.3.0: transposes folded into
 * contractions; output fusions lowered as one fusion; f32/f64 products
 * through OpenBLAS). */
#define TPUCC_VERSION "0.6.0"

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
  FILE *diag_out; /* where diagnostics go; NULL: stderr */
  /* Shape refinement (docs/shape-refinement.md): the entry function and
   * its arguments' concrete types, applied when the program has unbounded
   * dimensions (always when refine_always: tpucc --input-shape). */
  RefineSpec refine;
  bool refine_always;
  /* tpucc --slices: the module's chips form this many slices joined by
   * the DCN (common/ici.h), for the cost model; 0 or 1: one slice. */
  int slices;
} CompileOptions;

/* Defaults: v5e, -O2. */
void compile_defaults(CompileOptions *o);

/* Runs the optimization pipeline of o over a verified module; false after
 * diagnostics.  pc (may be NULL) receives the analyses' results.  With
 * o->slices > 1 the module gets tpu.num_slices (what the cost model
 * reads); a module whose chips (mhlo.num_replicas x mhlo.num_partitions)
 * it does not divide is refused. */
bool compile_optimize(Context *c, Module *m, const CompileOptions *o, PassContext *pc);

/* Runs refine-shapes over a verified module when it has unbounded
 * dimensions (refine_needed; always with o->refine_always), with
 * o->refine's argument types; *refined tells whether it ran.  False after
 * diagnostics. */
bool compile_refine(Context *c, Module *m, const CompileOptions *o, bool *refined);

/* Whether the entry function (NULL: main) of a module text has unbounded
 * dimensions, so it is compiled only once argument types are known (the
 * runtime library's deferred programs); *nparams, *nresults: its
 * signature.  False for a text that does not parse or verify (its
 * compilation reports why). */
bool compile_text_needs_shapes(const char *text, size_t len, const char *entry, int *nparams, int *nresults);

/* Back-end options of o: its target, and the COSTS section from the cost
 * model (passes/cost.h) of that target. */
BackendOptions compile_backend_options(const CompileOptions *o);

/* Lowers an optimized module to a .tpub image (malloc'ed) and checks that
 * tpurun's loader accepts it, so nothing unloadable is ever written or
 * cached (the verifier refuses what the loader would; a refusal here is a
 * compiler bug, reported on o->diag_out).  False after diagnostics. */
bool compile_lower(Context *c, Module *m, const CompileOptions *o, uint8_t **out, size_t *outlen);

/* The key options of o: compiler version, target, output-changing options
 * ("-O2", or the explicit pass list, then ",slices=S" for S > 1), into buf. */
CacheKeyOptions compile_cache_key_options(const CompileOptions *o, char *buf, size_t n);

/* Optimizes and lowers a verified module in memory, through the cache when
 * cache is non-NULL (a hit skips the passes and the back end): the entry
 * point for later runtime modes.  raw: the key of the source bytes (NULL
 * if unknown), stored as an alias.  metrics (may be NULL) counts compiles.
 * Returns 0, or 2 after diagnostics. */
int compile_module_cached(Context *c, Module *m, const CompileOptions *o, Cache *cache, const CacheKey *raw,
                          CacheMetrics *metrics, uint8_t **out, size_t *outlen);

/* Parses, verifies, optimizes and lowers one chunk of file to a .tpub image
 * (malloc'ed), through the cache when non-NULL: the chunk's raw bytes are
 * looked up first (no parsing on a hit), then its canonical IR (a program
 * refined from o->refine is keyed by its refined IR only, so each distinct
 * input signature is its own entry).  Diagnostics go to
 * o->diag_out.  Returns 0, 2 when the program is rejected, or 3 when the
 * file is a corrupt or truncated portable artifact. */
int compile_source(const SourceFile *file, const SourceChunk *chunk, const CompileOptions *o, Cache *cache,
                   CacheMetrics *metrics, uint8_t **out, size_t *outlen);

#endif
