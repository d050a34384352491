/* The one run path of a program on a slice of chips (runtime/run.h). */
#include "runtime/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/io/io.h"

bool run_stack_type(StackedType *st, const VmType *t, int n) {
  st->dims = malloc(sizeof(int64_t) * ((size_t)t->rank + 1));
  if (!st->dims) return false;
  st->dims[0] = n;
  for (int d = 0; d < t->rank; d++) st->dims[d + 1] = t->dims[d];
  st->type = *t;
  st->type.rank = t->rank + 1;
  st->type.dims = st->dims;
  st->type.count = t->count * n;
  st->type.nbytes = t->nbytes * n;
  return true;
}

void run_chip_args(const VmFunc *fn, int n, const VmValue *whole, const bool *stacked, VmValue *const *args) {
  for (int k = 0; k < n; k++)
    for (uint32_t i = 0; i < fn->n_params; i++) {
      args[k][i].type = fn->reg_types[i];
      args[k][i].data = (char *)whole[i].data + (stacked[i] ? (size_t)fn->reg_types[i]->nbytes * (size_t)k : 0);
    }
}

bool run_stack_result(const VmFunc *fn, int r, VmValue *const *res, int n, StackedType *st, VmValue *out) {
  const VmType *t = fn->result_types[r];
  if (t->kind != TPUB_TY_TENSOR || !run_stack_type(st, t, n)) return false;
  void *data = malloc((size_t)st->type.nbytes + 1);
  if (!data) {
    free(st->dims);
    st->dims = NULL;
    return false;
  }
  for (int k = 0; k < n; k++)
    if (t->nbytes) memcpy((char *)data + (size_t)t->nbytes * (size_t)k, res[k][r].data, (size_t)t->nbytes);
  *out = (VmValue){.type = &st->type, .data = data};
  return true;
}

/* ------------------------------------------------------------------ */
/* Partitioned programs: global arguments and results (VmShard). */

const VmType *run_global_type(const VmFunc *fn, bool result, int i) {
  const VmShard *const *sh = result ? fn->result_shards : fn->param_shards;
  if (sh && sh[i]) return &sh[i]->global;
  return result ? fn->result_types[i] : fn->reg_types[i];
}

/* Copies one piece between global buffer g (dims gd) and per-chip buffer l
 * (dims ld), the piece starting at global offsets off: to_local fills all
 * of l (zeros past the global end), else writes l's part inside g. */
static void copy_piece(int rank, const int64_t *gd, const int64_t *ld, const int64_t *off, size_t eb, char *g,
                       char *l, bool to_local) {
  if (rank == 0) {
    if (to_local) memcpy(l, g, eb);
    else memcpy(g, l, eb);
    return;
  }
  int64_t rows = 1, idx[TPUB_MAX_RANK] = {0};
  for (int d = 0; d < rank; d++)
    if (ld[d] == 0) return;
  for (int d = 0; d + 1 < rank; d++) rows *= ld[d];
  int64_t last = ld[rank - 1], avail = gd[rank - 1] - off[rank - 1];
  int64_t run = avail < 0 ? 0 : avail < last ? avail : last;
  for (int64_t row = 0; row < rows; row++) {
    bool inside = true;
    int64_t gpos = 0; /* row-major element offset in g of the row's start */
    for (int d = 0; d < rank; d++) {
      int64_t gi = off[d] + (d + 1 < rank ? idx[d] : 0);
      if (gi >= gd[d]) inside = false;
      gpos = gpos * gd[d] + gi;
    }
    char *lrow = l + (size_t)(row * last) * eb;
    if (inside && run > 0) {
      if (to_local) memcpy(lrow, g + (size_t)gpos * eb, (size_t)run * eb);
      else memcpy(g + (size_t)gpos * eb, lrow, (size_t)run * eb);
    }
    if (to_local && (!inside || run < last)) {
      int64_t from = inside ? run : 0;
      memset(lrow + (size_t)from * eb, 0, (size_t)(last - from) * eb);
    }
    for (int d = rank - 2; d >= 0; d--) { /* next row */
      if (++idx[d] < ld[d]) break;
      idx[d] = 0;
    }
  }
}

/* The global offsets of the piece partition p holds under sh, whose
 * per-chip dims are ld. */
static void piece_offsets(const VmShard *sh, const int64_t *ld, int p, int64_t *off) {
  int64_t k = 0;
  while (k < sh->ndevices && sh->devices[k] != p) k++; /* the loader: p is there once */
  int rank = sh->global.rank;
  int64_t piece = k / sh->tiles[rank]; /* drop the replication axis */
  for (int d = rank - 1; d >= 0; d--) {
    off[d] = (piece % sh->tiles[d]) * ld[d];
    piece /= sh->tiles[d];
  }
}

bool run_spmd_args(const VmFunc *fn, int replicas, int partitions, const VmValue *whole, const bool *stacked,
                   VmValue *const *args) {
  bool ok = true;
  for (int c = 0; c < replicas * partitions; c++)
    for (uint32_t i = 0; i < fn->n_params; i++) {
      const VmShard *sh = fn->param_shards ? fn->param_shards[i] : NULL;
      const VmType *t = fn->reg_types[i];
      const VmType *gt = run_global_type(fn, false, i);
      char *g = (char *)whole[i].data + (stacked[i] ? (size_t)gt->nbytes * (size_t)(c / partitions) : 0);
      args[c][i] = (VmValue){.type = t, .data = g};
      if (!sh) continue;
      args[c][i].data = ok ? malloc((size_t)t->nbytes + 1) : NULL;
      if (!args[c][i].data) {
        ok = false;
        continue;
      }
      int64_t off[TPUB_MAX_RANK];
      piece_offsets(sh, t->dims, c % partitions, off);
      copy_piece(t->rank, gt->dims, t->dims, off, (size_t)vm_elem_bytes(t->elem), g, args[c][i].data, true);
    }
  return ok;
}

void run_spmd_args_free(const VmFunc *fn, int n, VmValue *const *args) {
  for (int c = 0; args && c < n; c++)
    for (uint32_t i = 0; args[c] && fn->param_shards && i < fn->n_params; i++)
      if (fn->param_shards[i]) {
        free(args[c][i].data);
        args[c][i].data = NULL;
      }
}

bool run_spmd_result(const VmFunc *fn, int r, VmValue *const *res, int replicas, int partitions, StackedType *st,
                     VmValue *out) {
  const VmType *t = fn->result_types[r], *gt = run_global_type(fn, true, r);
  const VmShard *sh = fn->result_shards ? fn->result_shards[r] : NULL;
  if (t->kind != TPUB_TY_TENSOR) return false;
  st->dims = NULL;
  st->type = *gt;
  if (replicas > 1 && !run_stack_type(st, gt, replicas)) return false;
  char *data = malloc((size_t)st->type.nbytes + 1);
  if (!data) {
    free(st->dims);
    st->dims = NULL;
    return false;
  }
  size_t eb = (size_t)vm_elem_bytes(t->elem);
  for (int rep = 0; rep < replicas; rep++) {
    char *g = data + (size_t)gt->nbytes * (size_t)rep;
    if (!sh) { /* a whole value: partition 0's */
      if (t->nbytes) memcpy(g, res[rep * partitions][r].data, (size_t)t->nbytes);
      continue;
    }
    /* Each piece from the first partition holding it. */
    int64_t rcount = sh->tiles[t->rank];
    for (int64_t k = 0; k < sh->ndevices; k += rcount) {
      int p = (int)sh->devices[k];
      int64_t off[TPUB_MAX_RANK];
      piece_offsets(sh, t->dims, p, off);
      copy_piece(t->rank, gt->dims, t->dims, off, eb, g, res[rep * partitions + p][r].data, false);
    }
  }
  *out = (VmValue){.type = &st->type, .data = data};
  return true;
}

/* ------------------------------------------------------------------ */
/* Bounded dynamic dims (docs/dynamic-shapes.md) */

bool run_is_size(const VmFunc *fn, bool result, uint32_t i) {
  for (uint32_t k = 0; k < fn->n_dyn; k++)
    if (fn->dyn[k].result == result && fn->dyn[k].size == i) return true;
  return false;
}

uint32_t run_user_count(const VmFunc *fn, bool result) {
  uint32_t n = result ? fn->n_results : fn->n_params;
  for (uint32_t k = 0; k < fn->n_dyn; k++) n -= fn->dyn[k].result == result;
  return n;
}

/* The dims a literal spec "2x?x..xELEM=..." states (rank -1: none). */
static int spec_dims(const char *spec, int64_t *dims, int max) {
  int rank = 0;
  const char *p = spec;
  while (*p >= '0' && *p <= '9') {
    char *end;
    long long v = strtoll(p, &end, 10);
    if (*end != 'x' || rank == max) break;
    dims[rank++] = v;
    p = end + 1;
  }
  return strchr(p, '=') ? rank : -1;
}

/* Copies the rows of a tensor of dims `from` into one of dims `to` (each
 * dim of from at most to's), row-major, elements of eb bytes. */
static void copy_region(int rank, const int64_t *from, const int64_t *to, size_t eb, const char *src, char *dst) {
  if (rank == 0) {
    memcpy(dst, src, eb);
    return;
  }
  size_t inner_from = eb, inner_to = eb;
  for (int d = 1; d < rank; d++) {
    inner_from *= (size_t)from[d];
    inner_to *= (size_t)to[d];
  }
  for (int64_t i = 0; i < from[0]; i++) copy_region(rank - 1, from + 1, to + 1, eb, src + i * inner_from, dst + i * inner_to);
}

/* Whether dim d of parameter p is a bounded dynamic dim. */
static bool param_dim_dynamic(const VmFunc *fn, uint32_t p, int d) {
  for (uint32_t k = 0; k < fn->n_dyn; k++)
    if (!fn->dyn[k].result && fn->dyn[k].index == p && fn->dyn[k].dim == (uint32_t)d) return true;
  return false;
}

/* Whether the shape dims (rank) fits parameter p: its static dims equal,
 * its dynamic dims within their bounds; else 1 with err. */
static int dims_fit(const VmFunc *fn, uint32_t p, int rank, const int64_t *dims, int index, char *err, size_t errlen) {
  const VmType *t = fn->reg_types[p];
  if (rank != t->rank) {
    snprintf(err, errlen, "input %d: rank %d, the parameter has rank %d", index, rank, t->rank);
    return 1;
  }
  for (int d = 0; d < rank; d++) {
    bool dyn = param_dim_dynamic(fn, p, d);
    if (dims[d] < 0 || dims[d] > t->dims[d] || (!dyn && dims[d] != t->dims[d])) {
      snprintf(err, errlen, "input %d: dim %d is %lld, the parameter's is %s%lld", index, d, (long long)dims[d],
               dyn ? "bounded by " : "", (long long)t->dims[d]);
      return 1;
    }
  }
  return 0;
}

int run_dyn_pad(const VmFunc *fn, uint32_t p, const VmValue *given, int index, VmValue *args, char *err, size_t errlen) {
  const VmType *t = fn->reg_types[p], *g = given->type;
  if (g->kind != TPUB_TY_TENSOR || g->elem != t->elem) {
    snprintf(err, errlen, "input %d: not a tensor of the parameter's element type", index);
    return 1;
  }
  int rc = dims_fit(fn, p, g->rank, g->dims, index, err, errlen);
  if (rc) return rc;
  args[p].type = t;
  args[p].data = calloc(1, (size_t)t->nbytes + 1);
  if (!args[p].data) {
    snprintf(err, errlen, "out of memory");
    return 70;
  }
  copy_region(g->rank, g->dims, t->dims, t->count ? (size_t)(t->nbytes / t->count) : 1, given->data, args[p].data);
  for (uint32_t k = 0; k < fn->n_dyn; k++) {
    const VmDynDim *dd = &fn->dyn[k];
    if (dd->result || dd->index != p) continue;
    args[dd->size].type = fn->reg_types[dd->size];
    args[dd->size].data = malloc(sizeof(int32_t));
    if (!args[dd->size].data) {
      snprintf(err, errlen, "out of memory");
      return 70;
    }
    *(int32_t *)args[dd->size].data = (int32_t)g->dims[dd->dim];
  }
  return 0;
}

int run_dyn_input(const VmFunc *fn, uint32_t p, const char *spec, int index, VmValue *args, char *err, size_t errlen) {
  const VmType *t = fn->reg_types[p];
  int64_t dims[TPUB_MAX_RANK + 1];
  int rank = spec[0] == '@' || strncmp(spec, "random", 6) == 0 ? -1 : spec_dims(spec, dims, TPUB_MAX_RANK);
  if (spec[0] == '@') { /* a .npy: the shape its header states */
    int rc = vm_npy_shape(spec + 1, &rank, dims, TPUB_MAX_RANK, err, errlen);
    if (rc) return rc;
  }
  if (rank < 0) { /* random: the bound */
    for (int d = 0; d < t->rank; d++) dims[d] = t->dims[d];
    rank = t->rank;
  }
  int rc = dims_fit(fn, p, rank, dims, index, err, errlen);
  if (rc) return rc;
  int64_t count = 1;
  for (int d = 0; d < rank; d++) count *= dims[d];
  VmType given = *t;
  given.dims = dims;
  given.count = count;
  given.nbytes = t->count ? t->nbytes / t->count * count : 0;
  VmValue v;
  rc = vm_parse_input(spec, &given, index, &v, err, errlen);
  if (rc) return rc;
  rc = run_dyn_pad(fn, p, &v, index, args, err, errlen);
  vm_value_free(&v);
  return rc;
}

bool run_dyn_results(const VmFunc *fn, const VmValue *res, VmValue *out) {
  uint32_t j = 0;
  for (uint32_t i = 0; i < fn->n_results; i++) {
    if (run_is_size(fn, true, i)) continue;
    const VmType *t = fn->result_types[i];
    bool dyn = false;
    for (uint32_t k = 0; k < fn->n_dyn; k++) dyn |= fn->dyn[k].result && fn->dyn[k].index == i;
    if (!dyn) {
      out[j++] = res[i];
      continue;
    }
    /* One block: the type, its dims, then the data. */
    size_t eb = t->count ? (size_t)(t->nbytes / t->count) : 1;
    char *block = calloc(1, sizeof(VmType) + sizeof(int64_t) * ((size_t)t->rank + 1) + (size_t)t->nbytes + 16);
    if (!block) return false;
    VmType *nt = (VmType *)block;
    int64_t *dims = (int64_t *)(block + sizeof(VmType));
    *nt = *t;
    int64_t count = 1;
    for (int d = 0; d < t->rank; d++) {
      dims[d] = t->dims[d];
      for (uint32_t k = 0; k < fn->n_dyn; k++) {
        const VmDynDim *dd = &fn->dyn[k];
        if (!dd->result || dd->index != i || dd->dim != (uint32_t)d) continue;
        int32_t s = *(const int32_t *)res[dd->size].data;
        dims[d] = s < 0 ? 0 : s > dd->bound ? dd->bound : s;
      }
      count *= dims[d];
    }
    nt->dims = dims;
    nt->count = count;
    nt->nbytes = (int64_t)eb * count;
    char *data = (char *)(dims + t->rank + 1);
    data += (16 - (uintptr_t)data % 16) % 16;
    /* Gather the valid region: copy_region with the roles reversed. */
    int64_t idx[TPUB_MAX_RANK + 1] = {0};
    for (int64_t e = 0; e < count; e++) {
      int64_t off = 0;
      for (int d = 0; d < t->rank; d++) off = off * t->dims[d] + idx[d];
      memcpy(data + (size_t)e * eb, (const char *)res[i].data + (size_t)off * eb, eb);
      for (int d = t->rank - 1; d >= 0 && ++idx[d] == dims[d]; d--) idx[d] = 0;
    }
    out[j++] = (VmValue){.type = nt, .data = data};
  }
  return true;
}

void run_dyn_results_free(const VmFunc *fn, VmValue *out) {
  uint32_t j = 0;
  for (uint32_t i = 0; i < fn->n_results; i++) {
    if (run_is_size(fn, true, i)) continue;
    bool dyn = false;
    for (uint32_t k = 0; k < fn->n_dyn; k++) dyn |= fn->dyn[k].result && fn->dyn[k].index == i;
    if (dyn) free((void *)out[j].type);
    j++;
  }
}
