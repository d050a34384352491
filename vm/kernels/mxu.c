/* mxu_dot: a dot_general the compiler tiled for the MXU (tpu.mxu_tile),
 * executed the way the TPU runs it.  The result of each batch is cut into
 * TM x TN output tiles; a tile's rhs columns and lhs rows are packed into
 * tile buffers in the compute kind of vm/kernels/gemm.h, zero-padded at the edges
 * up to the padded sizes (tpu.mxu_pad), and multiplied by the host GEMM
 * (the rhs tile stays, in the GEMM's panel layout, while the lhs rows
 * stream through it, as the MXU holds its weights).
 * K is never split (the TK of the tile only matters to the cost model), so
 * every output element is summed in the same order as by dot_general: the
 * results are the same bits.
 *
 * The host runs a tile as strips of at most MXU_STRIP_ROWS rows (the TPU's
 * tiles are sized for VMEM, often thousands of rows: too coarse to share
 * among host threads).  Strips are the independent tasks of
 * vm_parallel_for, ordered so that consecutive ones share the rhs tile a
 * worker has packed.  Each worker owns its buffers, all allocated before
 * the tasks start, and a task writes only its own output rows, so the bits
 * do not depend on the thread count. */
#include <string.h>

#include "vm/dtype.h"
#include "vm/kernels/gemm.h"
#include "vm/kernels/kernels.h"
#include "vm/parallel.h"

/* Field indices (vm/opcodes.def): dot_general's five, then tile and pad. */
enum { MXU_LHS_BATCH, MXU_RHS_BATCH, MXU_LHS_CONTRACT, MXU_RHS_CONTRACT, MXU_PRECISION, MXU_TILE, MXU_PAD };

/* Rows of a host task: two row blocks of the GEMM (vm/kernels/gemm.c GK_MC). */
#define MXU_STRIP_ROWS 240

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }


/* The batch, row (lhs free) and column (rhs free) counts and the
 * contraction length of a validated dot. */
typedef struct DotShape {
  int64_t batch, m, n, k;
  int lbatch[TPUB_MAX_RANK], rbatch[TPUB_MAX_RANK], lcon[TPUB_MAX_RANK], rcon[TPUB_MAX_RANK];
  int lfree[TPUB_MAX_RANK], rfree[TPUB_MAX_RANK];
  int nbatch, ncon, nlfree, nrfree;
} DotShape;

static void dot_shape(const VmInstr *ins, const VmType *lt, const VmType *rt, DotShape *s) {
  int64_t nb, nc;
  const int64_t *lb = vm_field_list(ins, MXU_LHS_BATCH, &nb);
  const int64_t *rb = vm_field_list(ins, MXU_RHS_BATCH, &nb);
  const int64_t *lc = vm_field_list(ins, MXU_LHS_CONTRACT, &nc);
  const int64_t *rc = vm_field_list(ins, MXU_RHS_CONTRACT, &nc);
  s->nbatch = (int)nb;
  s->ncon = (int)nc;
  s->batch = s->k = s->m = s->n = 1;
  for (int i = 0; i < s->nbatch; i++) {
    s->lbatch[i] = (int)lb[i], s->rbatch[i] = (int)rb[i];
    s->batch *= lt->dims[lb[i]];
  }
  for (int i = 0; i < s->ncon; i++) {
    s->lcon[i] = (int)lc[i], s->rcon[i] = (int)rc[i];
    s->k *= lt->dims[lc[i]];
  }
  s->nlfree = gemm_free_dims(lt->rank, lb, nb, lc, nc, s->lfree);
  s->nrfree = gemm_free_dims(rt->rank, rb, nb, rc, nc, s->rfree);
  for (int i = 0; i < s->nlfree; i++) s->m *= lt->dims[s->lfree[i]];
  for (int i = 0; i < s->nrfree; i++) s->n *= rt->dims[s->rfree[i]];
}

bool check_mxu_dot(VmCheck *c) {
  if (!check_dot_general(c)) return false;
  int64_t nt, np;
  const int64_t *tile = vm_field_list(c->ins, MXU_TILE, &nt);
  const int64_t *pad = vm_field_list(c->ins, MXU_PAD, &np);
  if (nt != 3 || np != 3)
    return vm_check_fail(c, "mxu_dot: tile and pad need 3 entries (M, N, K), got %lld and %lld", (long long)nt,
                         (long long)np);
  DotShape s;
  dot_shape(c->ins, vm_check_in(c, 0), vm_check_in(c, 1), &s);
  const int64_t real[3] = {s.m, s.n, s.k};
  static const char *const axis[3] = {"M", "N", "K"};
  for (int i = 0; i < 3; i++) {
    if (tile[i] < 1 || tile[i] > TPUB_MXU_MAX_TILE)
      return vm_check_fail(c, "mxu_dot: tile %s = %lld is not in [1, %d]", axis[i], (long long)tile[i],
                           TPUB_MXU_MAX_TILE);
    if (pad[i] < real[i] || pad[i] - real[i] > max64(tile[i], TPUB_MXU_PAD_SLACK))
      return vm_check_fail(c, "mxu_dot: padded %s = %lld for a real size of %lld (tile %lld)", axis[i],
                           (long long)pad[i], (long long)real[i], (long long)tile[i]);
  }
  return true;
}

/* Element offsets of an operand's axis group, enumerated row-major over
 * the group's dims in list order. */
static void group_offsets(const VmType *t, const int *dims, int n, int64_t *out) {
  int64_t strides[TPUB_MAX_RANK], s = 1, count = 1;
  for (int d = t->rank - 1; d >= 0; d--) {
    strides[d] = s;
    s *= t->dims[d];
  }
  for (int i = 0; i < n; i++) count *= t->dims[dims[i]];
  int64_t idx[TPUB_MAX_RANK] = {0}, off = 0;
  for (int64_t k = 0; k < count; k++) {
    out[k] = off;
    for (int i = n - 1; i >= 0; i--) {
      off += strides[dims[i]];
      if (++idx[i] < t->dims[dims[i]]) break;
      off -= strides[dims[i]] * t->dims[dims[i]];
      idx[i] = 0;
    }
  }
}

/* An operand as three offset tables: batch, rows and columns (lhs: free x
 * contracting; rhs: contracting x free). */
typedef struct MxuOperand {
  const char *data;
  int elem, es; /* storage element type and bytes */
  const int64_t *boff, *roff, *coff;
  bool ccontig; /* coff[j] == coff[0] + j: a row run is contiguous */
} MxuOperand;

/* Per-worker buffers, all allocated before the tasks run. */
typedef struct MxuWorker {
  GemmWork gemm;
  char *astrip, *btile, *bpacked, *cstrip, *stage;
  int64_t b_key; /* batch * column tiles + column tile held in bpacked, -1: none */
} MxuWorker;

typedef struct MxuRun {
  GemmKind kind;
  int es;            /* compute element bytes */
  int out_elem, oes; /* result element type and bytes */
  bool native_out;   /* the result is stored as the compute type */
  char *out;
  MxuOperand lhs, rhs;
  int64_t m, n, k, pm, pn; /* real sizes; padded rows and columns */
  int64_t tm, tn;          /* output tile */
  int64_t hs;              /* strip rows: min(MXU_STRIP_ROWS, tm) */
  int64_t row_tiles, col_tiles, strips; /* strips per row tile */
  MxuWorker *workers;
} MxuRun;

/* dst (n compute elements) = operand elements at base + coff[0..n). */
static void pack_run(const MxuRun *r, const MxuOperand *op, int64_t base, const int64_t *coff, int64_t n,
                     char *stage, char *dst) {
  if (n <= 0) return;
  if (op->ccontig) {
    gemm_load(r->kind, op->elem, op->data + (base + coff[0]) * op->es, n, dst);
    return;
  }
  const char *src = op->data + base * op->es;
#define GATHER(bytes) \
  for (int64_t j = 0; j < n; j++) memcpy(stage + j * (bytes), src + coff[j] * (bytes), (bytes))
  switch (op->es) {
  case 1: GATHER(1); break;
  case 2: GATHER(2); break;
  case 4: GATHER(4); break;
  case 8: GATHER(8); break;
  default: GATHER(16); break; /* complex<f64>, the only other size */
  }
#undef GATHER
  gemm_load(r->kind, op->elem, stage, n, dst);
}

/* Task t: strip s of row tile ti of column tile tj of batch b, ordered
 * (b, tj, ti, s) with s fastest; strips past the real rows are empty. */
static int mxu_task(void *ctx, int worker, int64_t t) {
  MxuRun *r = ctx;
  MxuWorker *w = &r->workers[worker];
  int64_t st = t % r->strips, ti = t / r->strips % r->row_tiles;
  int64_t tj = t / (r->strips * r->row_tiles) % r->col_tiles, b = t / (r->strips * r->row_tiles * r->col_tiles);
  int64_t i0 = ti * r->tm + st * r->hs, tile_end = (ti + 1) * r->tm;
  if (i0 >= r->m) return VM_OK;
  int64_t rows = min64(min64(r->hs, tile_end - i0), r->m - i0);
  int64_t run_rows = min64(min64(r->hs, tile_end - i0), r->pm - i0);
  int64_t j0 = tj * r->tn, cols = min64(r->tn, r->n - j0), run_cols = min64(r->tn, r->pn - j0);
  int es = r->es;
  /* rhs tile: K x run_cols, the columns past N zero, then packed for the
   * GEMM once for all the strips of the same column tile. */
  int64_t key = b * r->col_tiles + tj;
  if (w->b_key != key) {
    int64_t base = r->rhs.boff[b];
    for (int64_t p = 0; p < r->k; p++) {
      char *row = w->btile + p * run_cols * es;
      pack_run(r, &r->rhs, base + r->rhs.roff[p], r->rhs.coff + j0, cols, w->stage, row);
      memset(row + cols * es, 0, (size_t)((run_cols - cols) * es));
    }
    gemm_pack_b(&w->gemm, r->k, run_cols, w->btile, run_cols, 1, w->bpacked);
    w->b_key = key;
  }
  /* lhs strip: run_rows x K, the rows past M zero. */
  int64_t base = r->lhs.boff[b];
  for (int64_t i = 0; i < rows; i++)
    pack_run(r, &r->lhs, base + r->lhs.roff[i0 + i], r->lhs.coff, r->k, w->stage, w->astrip + i * r->k * es);
  memset(w->astrip + rows * r->k * es, 0, (size_t)((run_rows - rows) * r->k * es));
  /* A strip without padding and a result in the compute type is written
   * in place; the others go through cstrip. */
  char *out = r->out + ((b * r->m + i0) * r->n + j0) * r->oes;
  bool direct = r->native_out && run_rows == rows && run_cols == cols;
  int rc = gemm_run_packed(&w->gemm, run_rows, run_cols, r->k, w->astrip, r->k, 1, w->bpacked,
                           direct ? out : w->cstrip, direct ? r->n : run_cols);
  if (rc != VM_OK || direct) return rc;
  for (int64_t i = 0; i < rows; i++)
    gemm_store(r->kind, r->out_elem, w->cstrip + i * run_cols * es, cols, out + i * r->n * r->oes);
  return VM_OK;
}

/* Scratch blocks of one execution, freed together. */
typedef struct MxuScratch {
  VmExec *x;
  int n;
  void *p[16];
  size_t bytes[16];
} MxuScratch;

static void *scratch(MxuScratch *s, size_t bytes) {
  void *p = vm_tile_alloc(s->x, bytes ? bytes : 1);
  if (p) {
    s->p[s->n] = p;
    s->bytes[s->n++] = bytes ? bytes : 1;
  }
  return p;
}

static void scratch_free(MxuScratch *s) {
  while (s->n > 0) {
    s->n--;
    vm_tile_free(s->x, s->p[s->n], s->bytes[s->n]);
  }
}

/* Fills op's offset tables (from scratch) for the three axis groups. */
static bool make_operand(MxuScratch *s, const VmTensor *t, const int *groups[3], const int ngroup[3],
                         const int64_t count[3], MxuOperand *op) {
  int64_t *tab[3];
  for (int g = 0; g < 3; g++) {
    if (!(tab[g] = scratch(s, (size_t)count[g] * sizeof(int64_t)))) return false;
    group_offsets(t->type, groups[g], ngroup[g], tab[g]);
  }
  op->data = t->data;
  op->elem = t->type->elem;
  op->es = vm_elem_bytes(op->elem);
  op->boff = tab[0];
  op->roff = tab[1];
  op->coff = tab[2];
  op->ccontig = true;
  for (int64_t j = 1; j < count[2] && op->ccontig; j++) op->ccontig = tab[2][j] == tab[2][0] + j;
  return true;
}

int exec_mxu_dot(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  const VmType *ot = out[0].type;
  if (ot->count == 0) return VM_OK;
  DotShape d;
  dot_shape(ins, in[0].type, in[1].type, &d);
  int64_t nt;
  const int64_t *tile = vm_field_list(ins, MXU_TILE, &nt);
  const int64_t *pad = vm_field_list(ins, MXU_PAD, &nt);
  MxuRun r = {
      .kind = (GemmKind)gemm_kind_for(ot->elem, in[0].type->elem, in[1].type->elem),
      .out_elem = ot->elem,
      .oes = vm_elem_bytes(ot->elem),
      .out = out[0].data,
      .m = d.m,
      .n = d.n,
      .k = d.k,
      .pm = pad[0],
      .pn = pad[1],
      .tm = min64(tile[0], pad[0]),
      .tn = min64(tile[1], pad[1]),
  };
  r.es = gemm_kind_bytes(r.kind);
  r.native_out = gemm_is_native(r.kind, r.out_elem);
  r.hs = min64(MXU_STRIP_ROWS, r.tm);
  r.row_tiles = (r.m + r.tm - 1) / r.tm;
  r.col_tiles = (r.n + r.tn - 1) / r.tn;
  r.strips = (r.tm + r.hs - 1) / r.hs;
  MxuScratch s = {.x = x};
  const int *lgroups[3] = {d.lbatch, d.lfree, d.lcon}, *rgroups[3] = {d.rbatch, d.rcon, d.rfree};
  const int lng[3] = {d.nbatch, d.nlfree, d.ncon}, rng[3] = {d.nbatch, d.ncon, d.nrfree};
  const int64_t lcount[3] = {d.batch, d.m, d.k}, rcount[3] = {d.batch, d.k, d.n};
  if (!make_operand(&s, &in[0], lgroups, lng, lcount, &r.lhs) ||
      !make_operand(&s, &in[1], rgroups, rng, rcount, &r.rhs)) {
    scratch_free(&s);
    return vm_trap(x, "out of memory: mxu_dot offset tables");
  }
  int64_t ntasks = d.batch * r.col_tiles * r.row_tiles * r.strips;
  int nworkers = vm_parallel_workers(x, ntasks);
  size_t stage = (size_t)max64(r.k, r.tn) * (size_t)max64(r.lhs.es, r.rhs.es);
  GemmWork probe; /* the packed rhs size depends on the kernels chosen */
  gemm_work_init(&probe, x, r.kind);
  size_t packed = gemm_packed_b_bytes(&probe, r.k, r.tn);
  int status = VM_OK;
  r.workers = scratch(&s, sizeof(MxuWorker) * (size_t)nworkers);
  if (!r.workers) {
    scratch_free(&s);
    return vm_trap(x, "out of memory: mxu_dot workers");
  }
  int ready = 0;
  for (; ready < nworkers; ready++) {
    MxuWorker *w = &r.workers[ready];
    memset(w, 0, sizeof *w);
    w->b_key = -1;
    gemm_work_init(&w->gemm, x, r.kind);
    w->astrip = vm_tile_alloc(x, (size_t)(r.hs * r.k * r.es) + 1);
    w->btile = vm_tile_alloc(x, (size_t)(r.k * r.tn * r.es) + 1);
    w->bpacked = vm_tile_alloc(x, packed + 1);
    w->cstrip = vm_tile_alloc(x, (size_t)(r.hs * r.tn * r.es) + 1);
    w->stage = vm_tile_alloc(x, stage + 1);
    if (!w->astrip || !w->btile || !w->bpacked || !w->cstrip || !w->stage)
      status = vm_trap(x, "out of memory: mxu_dot tile buffers");
    else
      status = gemm_work_reserve(&w->gemm, r.hs, 0, r.k); /* gemm_run_packed only */
    if (status != VM_OK) {
      ready++; /* free what this worker got */
      break;
    }
  }
  if (status == VM_OK && vm_parallel_for(x, ntasks, mxu_task, &r) != VM_OK)
    status = vm_trap(x, "internal error: an MXU tile outgrew its reserved buffers");
  for (int i = 0; i < ready; i++) {
    MxuWorker *w = &r.workers[i];
    gemm_work_free(&w->gemm);
    vm_tile_free(x, w->astrip, (size_t)(r.hs * r.k * r.es) + 1);
    vm_tile_free(x, w->btile, (size_t)(r.k * r.tn * r.es) + 1);
    vm_tile_free(x, w->bpacked, packed + 1);
    vm_tile_free(x, w->cstrip, (size_t)(r.hs * r.tn * r.es) + 1);
    vm_tile_free(x, w->stage, stage + 1);
  }
  scratch_free(&s);
  return status;
}
