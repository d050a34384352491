/* The end of a slice run in an MPI job: every process sends what its chips
 * did (status, error, check statistics, HBM high-water mark, modeled
 * timeline, results) to every other, so each holds the whole slice's
 * outcome and results, as one process would (vm_slice_run). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/chips/fabric.h"

void buf_put(Buf *b, const void *data, size_t n) {
  if (b->failed) return;
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 256;
    while (cap < b->len + n) cap *= 2;
    unsigned char *p = realloc(b->p, cap);
    if (!p) {
      b->failed = true;
      return;
    }
    b->p = p, b->cap = cap;
  }
  if (n) memcpy(b->p + b->len, data, n);
  b->len += n;
}

void buf_i64(Buf *b, int64_t v) { buf_put(b, &v, sizeof v); }

void buf_pad64(Buf *b) {
  static const unsigned char zero[64];
  buf_put(b, zero, (64 - b->len % 64) % 64);
}

int64_t rd_i64(Rd *r) {
  int64_t v;
  memcpy(&v, rd_bytes(r, sizeof v), sizeof v);
  return v;
}

const void *rd_bytes(Rd *r, size_t n) {
  if (n > r->len || r->at > r->len - n) die("a packet of %zu bytes is short (%zu more at %zu)", r->len, n, r->at);
  const void *p = r->p + r->at;
  r->at += n;
  return p;
}

void rd_pad64(Rd *r) { r->at += (64 - r->at % 64) % 64; }

/* A value's bytes, in its type's order (tuples member by member). */
static void put_value(Buf *b, const VmValue *v) {
  if (v->type->kind == TPUB_TY_TENSOR) buf_put(b, v->data, (size_t)v->type->nbytes);
  for (int i = 0; v->type->kind == TPUB_TY_TUPLE && i < v->nmembers; i++) put_value(b, &v->members[i]);
}

/* The bytes put_value writes for a value of type t. */
static size_t value_bytes(const VmType *t) {
  size_t n = t->kind == TPUB_TY_TENSOR ? (size_t)t->nbytes : 0;
  for (int i = 0; t->kind == TPUB_TY_TUPLE && i < t->nmembers; i++) n += value_bytes(t->members[i]);
  return n;
}

/* A value of type t from r (as put_value wrote it). */
static void get_value(Rd *r, const VmType *t, VmValue *v) {
  memset(v, 0, sizeof *v);
  v->type = t;
  if (t->kind == TPUB_TY_TENSOR) {
    if (!(v->data = malloc((size_t)t->nbytes + 1))) die("out of host memory for a chip's results");
    if (t->nbytes) memcpy(v->data, rd_bytes(r, (size_t)t->nbytes), (size_t)t->nbytes);
  } else if (t->kind == TPUB_TY_TUPLE) {
    v->nmembers = t->nmembers;
    if (!(v->members = calloc((size_t)t->nmembers + 1, sizeof *v->members))) die("out of host memory");
    for (int i = 0; i < t->nmembers; i++) get_value(r, t->members[i], &v->members[i]);
  }
}

/* Chip c's record: outcome, statistics, timeline, results. */
static void put_chip(Buf *b, const VmSlice *s, int c, const ChipOutcome *o, const VmValue *res, uint32_t nres) {
  const VmExec *x = s->execs[c];
  size_t elen = strlen(o->error) + 1;
  VmCheckStats st = vm_check_stats(x);
  const VmTimeline *tl = vm_exec_timeline(x);
  buf_i64(b, o->rc);
  buf_i64(b, o->victim);
  buf_i64(b, (int64_t)elen);
  buf_put(b, o->error, elen);
  buf_i64(b, st.passed);
  buf_i64(b, st.failed);
  buf_i64(b, (int64_t)vm_peak_hbm_bytes(x));
  buf_put(b, &tl->clock_s, sizeof tl->clock_s);
  buf_put(b, &tl->ici_s, sizeof tl->ici_s);
  buf_put(b, &tl->dcn_s, sizeof tl->dcn_s);
  buf_put(b, &tl->exposed_s, sizeof tl->exposed_s);
  buf_i64(b, (int64_t)tl->nevents);
  buf_put(b, tl->events, sizeof *tl->events * tl->nevents);
  buf_i64(b, res ? (int64_t)nres : -1);
  for (uint32_t i = 0; res && i < nres; i++) put_value(b, &res[i]);
}

/* Reads chip c's record (of a run of fn) into out[c] and s->gathered[c];
 * *results_at: where its results start in r (0: none). */
static void get_chip(Rd *r, VmSlice *s, int c, const VmFunc *fn, ChipOutcome *out, size_t *results_at) {
  GatheredChip *g = &s->gathered[c];
  out[c].rc = (int)rd_i64(r);
  out[c].victim = rd_i64(r) != 0;
  size_t elen = (size_t)rd_i64(r);
  const char *err = rd_bytes(r, elen);
  if (elen == 0 || err[elen - 1]) die("chip %d's error is not a string", c);
  out[c].error = err;
  g->stats.passed = (int)rd_i64(r);
  g->stats.failed = (int)rd_i64(r);
  g->peak_hbm = (uint64_t)rd_i64(r);
  VmTimeline *tl = &g->timeline;
  memcpy(&tl->clock_s, rd_bytes(r, sizeof tl->clock_s), sizeof tl->clock_s);
  memcpy(&tl->ici_s, rd_bytes(r, sizeof tl->ici_s), sizeof tl->ici_s);
  memcpy(&tl->dcn_s, rd_bytes(r, sizeof tl->dcn_s), sizeof tl->dcn_s);
  memcpy(&tl->exposed_s, rd_bytes(r, sizeof tl->exposed_s), sizeof tl->exposed_s);
  size_t nev = (size_t)rd_i64(r);
  const void *ev = rd_bytes(r, sizeof *tl->events * nev);
  free(tl->events);
  tl->events = nev ? malloc(sizeof *tl->events * nev) : NULL;
  if (nev && !tl->events) die("out of host memory for chip %d's timeline", c);
  if (nev) memcpy(tl->events, ev, sizeof *tl->events * nev);
  tl->nevents = tl->cap = nev;
  int64_t nres = rd_i64(r);
  if (nres >= 0 && nres != fn->n_results) die("chip %d sent %lld results of @%s's %u", c, (long long)nres, fn->name,
                                               fn->n_results);
  *results_at = nres >= 0 ? r->at : 0;
  for (int64_t i = 0; i < nres; i++) (void)rd_bytes(r, value_bytes(fn->result_types[i]));
}

void slice_gather(VmSlice *s, const int *fns, ChipOutcome *out, VmValue *const *results) {
  VmFabric *f = s->fabric;
  const VmProgram *p = vm_exec_program(s->execs[f->lo]);
  bool all_ok = true;
  for (int c = f->lo; c < f->hi; c++) all_ok &= out[c].rc == VM_OK;
  Buf b = {0};
  for (int c = f->lo; c < f->hi; c++) {
    bool with = results && results[c] && out[c].rc == VM_OK;
    put_chip(&b, s, c, &out[c], with ? results[c] : NULL, with ? p->funcs[fns[c]].n_results : 0);
  }
  if (b.failed) die("out of host memory gathering the chips' results");
  int size = vm_mpi_size(s->mpi), rank = vm_mpi_rank(s->mpi), per = s->nchips / size;
  size_t *lens = calloc((size_t)size, sizeof *lens), *at = calloc((size_t)s->nchips, sizeof *at);
  void *all = NULL;
  if (!lens || !at) die("out of host memory gathering the chips' results");
  if (!vm_mpi_allgather_blob(s->mpi, b.p, b.len, &all, lens)) {
    fprintf(stderr, "tpurun: MPI failed gathering the chips' results; ending the job\n");
    vm_mpi_abort(s->mpi, 4);
  }
  free(b.p);
  free(s->blob);
  s->blob = all;
  size_t off = 0;
  for (int q = 0; q < size; off += lens[q], q++) {
    Rd r = {(const unsigned char *)all + off, lens[q], 0};
    if (q == rank) continue;
    for (int c = q * per; c < (q + 1) * per; c++) {
      get_chip(&r, s, c, &p->funcs[fns[c]], out, &at[c]);
      at[c] += at[c] ? off : 0;
      all_ok &= out[c].rc == VM_OK;
    }
  }
  for (int c = 0; all_ok && results && c < s->nchips; c++) {
    if (fabric_hosts(f, c) || !results[c] || !at[c]) continue;
    Rd r = {all, off, at[c]};
    const VmFunc *fn = &p->funcs[fns[c]];
    for (uint32_t i = 0; i < fn->n_results; i++) get_value(&r, fn->result_types[i], &results[c][i]);
  }
  free(lens);
  free(at);
}

void slice_gathered_free(VmSlice *s) {
  for (int c = 0; s->gathered && c < s->nchips; c++) free(s->gathered[c].timeline.events);
  free(s->gathered);
  free(s->blob);
  s->gathered = NULL;
  s->blob = NULL;
}
