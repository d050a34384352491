/* The pass manager: a flat list of passes over a verified module
 * (DESIGN.md §8, QBE's main.c).  Every pass leaves valid IR that prints and
 * re-parses; --verify-each runs the verifier after each one.
 *
 * A pass reports user-facing problems (a program too big for HBM, a
 * hardware lint) as diagnostics on the context and returns false on an
 * error; broken invariants are die(). */
#ifndef PASSES_PASS_H
#define PASSES_PASS_H

#include <stdbool.h>
#include <stdio.h>

#include "ir/ir.h"
#include "passes/target.h"

typedef enum PassId {
#define PASS(id, name, fn, doc) PASS_##id,
#include "passes/passes.def"
#undef PASS
  PASS_COUNT
} PassId;

typedef struct RefineSpec RefineSpec; /* passes/refine.h */

typedef struct PassContext {
  Context *c;
  Module *m;
  const Target *target;
  int opt_level;
  /* Results of analyses, for the report and the driver. */
  uint64_t peak_hbm_bytes; /* buffer-assign: peak of live buffers, all functions */
  uint64_t transposes_folded; /* transpose-fold: operands read through dims, transposes made reshapes */
  /* spmd-partition: the partitions (0: not partitioned here) and the
   * collectives it inserted, by kind (passes/spmd_part.h). */
  int64_t spmd_partitions;
  uint64_t spmd_inserted[5];
  /* Units of work the running pass counted (fusion: candidates checked,
   * operands and uses visited); --time-passes prints them, tests check
   * they grow linearly with the module. */
  uint64_t steps;
  /* refine-shapes: the entry's concrete argument types (NULL: the
   * declared ones). */
  const RefineSpec *refine;
} PassContext;

typedef bool (*PassFn)(PassContext *pc);

/* Reads every sharding annotation of the program and fits it to its value
 * (passes/sharding.c): false after a located error for each malformed or
 * misfitting one (docs/spmd.md).  pipeline_run runs it first; tpucc
 * --verify-only too. */
bool sharding_check(Context *c, Module *m);
#define PASS(id, name, fn, doc) bool fn(PassContext *pc);
#include "passes/passes.def"
#undef PASS

const char *pass_name(PassId id);
bool pass_lookup(const char *name, size_t len, PassId *out);

#define PIPELINE_MAX 64
typedef struct Pipeline {
  int n;
  PassId ids[PIPELINE_MAX];
} Pipeline;

/* The pipeline of an -O level (0..2). */
Pipeline pipeline_for_level(int opt_level);
/* Parses "a,b,c"; false with a message in err naming the unknown pass. */
bool pipeline_parse(const char *list, Pipeline *out, char *err, size_t errlen);

typedef struct PassOptions {
  bool verify_each;          /* verifier after every pass */
  bool print_after_all;      /* IR after every pass to dump_out */
  const char *print_after;   /* IR after this pass (by name) */
  bool time_passes;          /* wall time table to dump_out at the end */
  FILE *dump_out;            /* default stderr */
} PassOptions;

/* Runs the pipeline; false when a pass reported an error or --verify-each
 * found broken IR (an internal error: reported and counted as one). */
bool pipeline_run(PassContext *pc, const Pipeline *p, const PassOptions *o);

/* The --report line of passes/transpose_fold.c: transposes folded into
 * contractions and those left as copies (with the bytes they write). */
void layout_report(const PassContext *pc, FILE *out);

#endif
