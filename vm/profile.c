/* Host-time profile of the entry function per top-level op, printed beside
 * the modeled TPU cost (see vm/profile.h). */
#include "vm/profile.h"

#include <stdlib.h>
#include <string.h>

VmProfile *vm_profile_new(const VmProgram *p) {
  VmProfile *pr = calloc(1, sizeof *pr);
  if (!pr) return NULL;
  pr->prog = p;
  pr->func = -1;
  pr->nkeys = p->n_locs + 1;
  pr->host_s = calloc(pr->nkeys, sizeof *pr->host_s);
  pr->count = calloc(pr->nkeys, sizeof *pr->count);
  pr->loc = calloc(pr->nkeys, sizeof *pr->loc);
  if (!pr->host_s || !pr->count || !pr->loc) {
    vm_profile_free(pr);
    return NULL;
  }
  return pr;
}

void vm_profile_free(VmProfile *pr) {
  if (!pr) return;
  free(pr->host_s);
  free(pr->count);
  free(pr->loc);
  free(pr);
}

void vm_profile_reset(VmProfile *pr, int fn) {
  pr->func = fn;
  memset(pr->host_s, 0, sizeof *pr->host_s * pr->nkeys);
  memset(pr->count, 0, sizeof *pr->count * pr->nkeys);
}

/* The row an instruction's time goes to: its op id with COSTS, else its
 * own location. */
static uint32_t key_of(const VmProfile *pr, uint32_t loc) {
  return pr->prog->costs ? pr->prog->costs[loc].op : loc + 1;
}

void vm_profile_add(VmProfile *pr, uint32_t loc, double seconds) {
  uint32_t k = key_of(pr, loc);
  if (pr->count[k]++ == 0) pr->loc[k] = pr->prog->costs ? pr->prog->costs[loc].op_loc : loc;
  pr->host_s[k] += seconds;
}

typedef struct Row {
  double host_s;
  uint32_t key;
} Row;

/* Rows by host time, largest first; ties by key (deterministic order). */
static int by_host_time(const void *a, const void *b) {
  const Row *x = a, *y = b;
  if (x->host_s != y->host_s) return x->host_s > y->host_s ? -1 : 1;
  return x->key < y->key ? -1 : x->key > y->key;
}

static const char *bound_name(unsigned b) {
  static const char *const names[TPUB_BOUND_COUNT] = {"-", "MXU", "VPU", "HBM", "ICI", "issue"};
  return b < TPUB_BOUND_COUNT ? names[b] : "?";
}

void vm_profile_print(const VmProfile *pr, FILE *out) {
  const VmProgram *p = pr->prog;
  Row *rows = malloc(sizeof *rows * pr->nkeys);
  uint32_t n = 0;
  if (!rows) {
    fprintf(out, "profile: out of host memory\n");
    return;
  }
  for (uint32_t k = 0; k < pr->nkeys; k++)
    if (pr->count[k]) rows[n++] = (Row){pr->host_s[k], k};
  qsort(rows, n, sizeof *rows, by_host_time);
  const char *fname = pr->func >= 0 ? p->funcs[pr->func].name : "?";
  fprintf(out, "profile of @%s: host time of %u ops, modeled cost on %s%s\n", fname, n, p->target[0] ? p->target : "?",
          p->costs ? "" : " (no COSTS section: modeled columns '-')");
  fprintf(out, "  host ms   model us  bound  MXU%%    GFLOP    HBM MB  op (location)\n");
  double host = 0, model = 0, flops = 0, hbm = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t k = rows[i].key;
    const VmLoc *l = &p->locs[pr->loc[k]];
    host += pr->host_s[k];
    fprintf(out, "%9.3f ", pr->host_s[k] * 1e3);
    if (p->costs) {
      const VmCost *c = &p->costs[pr->loc[k]];
      model += c->modeled_s;
      flops += c->flops;
      hbm += c->hbm_bytes;
      fprintf(out, "%10.3f  %-5s %5.1f %8.3f %9.3f", c->modeled_s * 1e6, bound_name(c->bound), c->mxu_util * 100.0,
              c->flops * 1e-9, c->hbm_bytes * 1e-6);
    } else {
      fprintf(out, "%10s  %-5s %5s %8s %9s", "-", "-", "-", "-", "-");
    }
    fprintf(out, "  %s (%s:%u:%u)\n", l->op[0] ? l->op : "?", l->file[0] ? l->file : "<unknown>", l->line, l->col);
  }
  fprintf(out, "%9.3f ", host * 1e3);
  if (p->costs)
    fprintf(out, "%10.3f  %-5s %5s %8.3f %9.3f", model * 1e6, "", "", flops * 1e-9, hbm * 1e-6);
  else
    fprintf(out, "%10s  %-5s %5s %8s %9s", "-", "", "", "-", "-");
  fprintf(out, "  total\n");
  free(rows);
}
