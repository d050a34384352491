/* The pass table, the pipeline of each -O level, and the instrumented
 * runner (--verify-each, --print-ir-after*, --time-passes). */
#include <string.h>
#include <time.h>

#include "passes/pass.h"

static const struct {
  const char *name;
  PassFn fn;
} passes[PASS_COUNT] = {
#define PASS(id, name, fn, doc) {name, fn},
#include "passes/passes.def"
#undef PASS
};

const char *pass_name(PassId id) { return passes[id].name; }

bool pass_lookup(const char *name, size_t len, PassId *out) {
  for (int i = 0; i < PASS_COUNT; i++)
    if (strlen(passes[i].name) == len && memcmp(passes[i].name, name, len) == 0) {
      *out = (PassId)i;
      return true;
    }
  return false;
}

Pipeline pipeline_for_level(int opt_level) {
  /* -O1 and -O2 first expand the ops the VM has no kernel for (the back
   * end's caller, runtime/compile.c, expands what is left at any level).
   * Every level then lowers quantized types (quant-lower) and makes
   * bounded dynamic dims static (dynamic-pad).
   * -O0 only partitions a sharded program and checks that the program
   * fits; -O1 cleans up; -O2 adds the
   * TPU-specific transformations (collective-overlap after the kernels
   * are formed, before buffer-assign measures the final order). */
  static const PassId o0[] = {PASS_QUANT_LOWER, PASS_DYNAMIC_PAD, PASS_SHARDING_PROPAGATION, PASS_SPMD_PARTITION, PASS_BUFFER_ASSIGN};
  static const PassId o1[] = {PASS_EXPAND, PASS_QUANT_LOWER, PASS_DYNAMIC_PAD, PASS_INLINE, PASS_CHLO_DECOMPOSE, PASS_CANONICALIZE, PASS_TRANSPOSE_FOLD,
                              PASS_CSE,    PASS_DCE,            PASS_SHARDING_PROPAGATION, PASS_SPMD_PARTITION,
                              PASS_CANONICALIZE, PASS_CSE, PASS_DCE, PASS_HW_LINT, PASS_BUFFER_ASSIGN};
  static const PassId o2[] = {PASS_EXPAND, PASS_QUANT_LOWER, PASS_DYNAMIC_PAD, PASS_INLINE, PASS_CHLO_DECOMPOSE, PASS_CANONICALIZE, PASS_TRANSPOSE_FOLD,
                              PASS_CSE,    PASS_DCE,            PASS_SHARDING_PROPAGATION, PASS_SPMD_PARTITION,
                              PASS_CANONICALIZE, PASS_CSE, PASS_DCE, PASS_FUSION, PASS_LAYOUT,
                              PASS_HW_LINT, PASS_COLLECTIVE_OVERLAP, PASS_BUFFER_ASSIGN};
  Pipeline p = {0};
  const PassId *ids = opt_level <= 0 ? o0 : opt_level == 1 ? o1 : o2;
  size_t n = opt_level <= 0 ? sizeof o0 / sizeof o0[0] : opt_level == 1 ? sizeof o1 / sizeof o1[0] : sizeof o2 / sizeof o2[0];
  for (size_t i = 0; i < n; i++) p.ids[p.n++] = ids[i];
  return p;
}

bool pipeline_parse(const char *list, Pipeline *out, char *err, size_t errlen) {
  out->n = 0;
  const char *s = list;
  while (*s) {
    const char *e = strchr(s, ',');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    PassId id;
    if (len == 0) {
      snprintf(err, errlen, "empty pass name in '%s'", list);
      return false;
    }
    if (!pass_lookup(s, len, &id)) {
      snprintf(err, errlen, "unknown pass '%.*s' (run 'tpucc --help' for the list)", (int)len, s);
      return false;
    }
    if (out->n == PIPELINE_MAX) {
      snprintf(err, errlen, "more than %d passes in --passes", PIPELINE_MAX);
      return false;
    }
    out->ids[out->n++] = id;
    s += len;
    if (*s == ',') s++;
  }
  return true;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool pipeline_run(PassContext *pc, const Pipeline *p, const PassOptions *o) {
  FILE *dump = o->dump_out ? o->dump_out : stderr;
  double seconds[PIPELINE_MAX] = {0}, total = 0;
  uint64_t steps[PIPELINE_MAX] = {0};
  bool ok = sharding_check(pc->c, pc->m);
  int ran = 0;
  for (int i = 0; i < p->n && ok; i++, ran++) {
    PassId id = p->ids[i];
    int errors_before = pc->c->diag.nerrors;
    double t0 = now_seconds();
    pc->steps = 0;
    ok = passes[id].fn(pc) && pc->c->diag.nerrors == errors_before;
    seconds[i] = now_seconds() - t0;
    steps[i] = pc->steps;
    total += seconds[i];
    if (!ok) break;
    if (o->verify_each && !verify_module(pc->c, pc->m))
      die("the IR is invalid after pass '%s' (diagnostics above)", passes[id].name);
    if (o->print_after_all || (o->print_after && strcmp(o->print_after, passes[id].name) == 0)) {
      fprintf(dump, "// -----// IR Dump After %s //----- //\n", passes[id].name);
      PrintOptions po = {0};
      print_module(pc->c, pc->m, dump, &po);
    }
  }
  if (o->time_passes) {
    fprintf(dump, "===-------------------------------------------------------------------------===\n"
                  "                         ... Pass execution timing report ...\n"
                  "===-------------------------------------------------------------------------===\n"
                  "  Total Execution Time: %.4f seconds\n\n   ----Wall Time----  ----Name----\n",
            total);
    for (int i = 0; i < ran; i++) {
      fprintf(dump, "   %.4f (%5.1f%%)  %s", seconds[i], total > 0 ? 100 * seconds[i] / total : 0.0,
              passes[p->ids[i]].name);
      if (steps[i]) fprintf(dump, " (%llu steps)", (unsigned long long)steps[i]);
      fputc('\n', dump);
    }
    fprintf(dump, "   %.4f (100.0%%)  Total\n", total);
  }
  return ok;
}
