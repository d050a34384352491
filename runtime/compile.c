/* The one compile path of tpucc, tpurun and libtpurun: StableHLO text or a
 * verified module through the optimization pipeline, the back end and the
 * compilation cache to a .tpub image that tpurun's loader accepts. */
#include "runtime/compile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/backend.h"
#include "ir/ir.h"
#include "passes/cost.h"
#include "vm/vm.h"

void compile_defaults(CompileOptions *o) {
  memset(o, 0, sizeof *o);
  o->target = "v5e";
  o->opt_level = 2;
  o->max_errors = 20;
  o->cache_max_bytes = 1ull << 30;
  o->max_input_bytes = 2ull << 30;
}

/* A module integer attribute, 1 when absent or not a positive integer. */
static int64_t module_count(const Module *m, const char *name) {
  const Attr *a = op_attr(m->op, name);
  int64_t v;
  return a && attr_as_int(a, &v) && v >= 1 ? v : 1;
}

/* tpu.num_slices = o->slices on m, once its chips split into that many
 * slices; false after a diagnostic. */
static bool set_slices(Context *c, Module *m, const CompileOptions *o) {
  if (o->slices <= 1) return true;
  int64_t reps = module_count(m, "mhlo.num_replicas"), parts = module_count(m, "mhlo.num_partitions");
  if ((reps * parts) % o->slices) {
    op_error(c, m->op, "--slices=%d does not divide the module's %lld chips (mhlo.num_replicas %lld x "
             "mhlo.num_partitions %lld)", o->slices, (long long)(reps * parts), (long long)reps, (long long)parts);
    return false;
  }
  op_set_attr(c, m->op, "tpu.num_slices", attr_i64(c, o->slices));
  return true;
}

bool compile_optimize(Context *c, Module *m, const CompileOptions *o, PassContext *out) {
  if (!set_slices(c, m, o)) return false;
  PassContext pc = {.c = c, .m = m, .target = target_lookup(o->target ? o->target : "v5e"),
                    .opt_level = o->opt_level};
  if (!pc.target) pc.target = target_default();
  Pipeline p = o->explicit_passes ? o->passes : pipeline_for_level(o->opt_level);
  bool ok = pipeline_run(&pc, &p, &o->pass_opts);
  if (out) *out = pc;
  return ok;
}

bool compile_refine(Context *c, Module *m, const CompileOptions *o, bool *refined) {
  int arg;
  *refined = o->refine_always || refine_needed(m, o->refine.entry, &arg);
  if (!*refined) return true;
  PassContext pc = {.c = c, .m = m, .target = target_lookup(o->target ? o->target : "v5e"),
                    .opt_level = o->opt_level, .refine = &o->refine};
  if (!pc.target) pc.target = target_default();
  Pipeline p = {.n = 1, .ids = {PASS_REFINE_SHAPES}};
  return pipeline_run(&pc, &p, &o->pass_opts);
}

bool compile_text_needs_shapes(const char *text, size_t len, const char *entry, int *nparams, int *nresults) {
  Context *c = ctx_new();
  c->diag.quiet = true;
  SourceFile file = {"program", text, len};
  Module *m = parse_module(c, &file, text, text + len, 1);
  int arg;
  bool needs = m && verify_module(c, m) && refine_needed(m, entry, &arg);
  Op *f = needs ? module_lookup_func(m, entry ? entry : "main") : NULL;
  const Attr *ft = f ? op_attr(f, "function_type") : NULL;
  if (ft) *nparams = ft->type->ninputs, *nresults = ft->type->nresults;
  ctx_free(c);
  return needs;
}

/* BackendOptions.op_cost: the cost model's figures for a top-level op on
 * the target ud. */
static bool op_cost(void *ud, const Op *op, TpubCost *out) {
  OpCost c = cost_of_op(op, ud);
  *out = (TpubCost){.flops = c.flops, .hbm_bytes = c.hbm_bytes, .modeled_s = c.time_s,
                    .mxu_util = (float)c.mxu_util};
  switch (c.bound) {
  case BOUND_NONE: out->bound = TPUB_BOUND_NONE; break;
  case BOUND_MXU: out->bound = TPUB_BOUND_MXU; break;
  case BOUND_VPU: out->bound = TPUB_BOUND_VPU; break;
  case BOUND_HBM: out->bound = TPUB_BOUND_HBM; break;
  case BOUND_ICI: out->bound = TPUB_BOUND_ICI; break;
  case BOUND_ISSUE: out->bound = TPUB_BOUND_ISSUE; break;
  }
  return true;
}

BackendOptions compile_backend_options(const CompileOptions *o) {
  const Target *t = target_lookup(o->target ? o->target : "v5e");
  return (BackendOptions){.target = t ? t->name : "v5e", .compiler_version = TPUCC_VERSION, .op_cost = op_cost,
                          .cost_ud = (void *)(t ? t : target_default())};
}

CacheKeyOptions compile_cache_key_options(const CompileOptions *o, char *buf, size_t n) {
  const Target *t = target_lookup(o->target ? o->target : "v5e");
  size_t used = 0;
  if (o->explicit_passes) {
    used += (size_t)snprintf(buf, n, "passes=");
    for (int i = 0; i < o->passes.n && used < n; i++)
      used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? "," : "", pass_name(o->passes.ids[i]));
  } else {
    used = (size_t)snprintf(buf, n, "-O%d", o->opt_level);
  }
  if (o->slices > 1 && used < n) snprintf(buf + used, n - used, ",slices=%d", o->slices);
  return (CacheKeyOptions){.compiler_version = TPUCC_VERSION, .target = t ? t->name : "v5e", .options = buf};
}

bool compile_lower(Context *c, Module *m, const CompileOptions *o, uint8_t **out, size_t *outlen) {
  BackendOptions bo = compile_backend_options(o);
  /* The ops without a VM kernel, whatever pipeline ran (-O1 and -O2 ran
   * it first already; --emit=mlir at -O0 shows the program unexpanded). */
  PassContext pc = {.c = c, .m = m, .target = target_default()};
  if (!pass_expand(&pc)) return false;
  if (!backend_compile(c, m, &bo, out, outlen)) return false;
  char err[512];
  VmProgram *p = vm_program_load(*out, *outlen, err, sizeof err);
  if (p) {
    vm_program_free(p);
    return true;
  }
  fprintf(o->diag_out ? o->diag_out : stderr, "error: the compiled program does not load in tpurun (bad bytecode: %s); nothing is written or cached\n",
          err);
  free(*out);
  *out = NULL;
  *outlen = 0;
  return false;
}

static double seconds_since(const struct timespec *t0) {
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

int compile_module_cached(Context *c, Module *m, const CompileOptions *o, Cache *cache, const CacheKey *raw,
                          CacheMetrics *metrics, uint8_t **out, size_t *outlen) {
  CacheKeyInfo key;
  if (cache) {
    char opts[512];
    CacheKeyOptions ko = compile_cache_key_options(o, opts, sizeof opts);
    cache_key_of_module(c, m, &ko, &key);
    if (cache_get(cache, key.key, out, outlen)) {
      if (raw) cache_put_alias(cache, *raw, key.key);
      return 0;
    }
  }
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  bool ok = compile_optimize(c, m, o, NULL) && compile_lower(c, m, o, out, outlen);
  if (metrics) metrics->compiles++, metrics->compile_s += seconds_since(&t0);
  if (ok && cache) cache_put(cache, key.key, raw, *out, *outlen);
  return ok ? 0 : 2;
}

int compile_source(const SourceFile *file, const SourceChunk *chunk, const CompileOptions *o, Cache *cache,
                   CacheMetrics *metrics, uint8_t **out, size_t *outlen) {
  CacheKey raw = {0};
  if (cache && !o->refine_always) {
    char opts[512];
    CacheKeyOptions ko = compile_cache_key_options(o, opts, sizeof opts);
    raw = cache_key_of_bytes(chunk->start, (size_t)(chunk->end - chunk->start), &ko);
    if (cache_get_alias(cache, raw, out, outlen)) return 0;
  }
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  Context *c = ctx_new();
  if (o->max_errors) c->diag.max_errors = o->max_errors;
  if (o->diag_out) c->diag.out = o->diag_out;
  Module *m = parse_module(c, file, chunk->start, chunk->end, chunk->first_line);
  bool refined = false;
  bool ok = m && verify_module(c, m) && compile_refine(c, m, o, &refined);
  /* Parsing, verifying and refining count as compile time too. */
  if (metrics) metrics->compile_s += seconds_since(&t0);
  /* The source bytes of a refined program do not name its shapes: no alias. */
  const CacheKey *alias = cache && !refined ? &raw : NULL;
  int rc = ok ? compile_module_cached(c, m, o, cache, alias, metrics, out, outlen) : c->diag.bad_input ? 3 : 2;
  ctx_free(c);
  return rc;
}
