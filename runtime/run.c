/* The one run path of a program on a slice of chips (runtime/run.h). */
#include "runtime/run.h"

#include <stdlib.h>
#include <string.h>

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
