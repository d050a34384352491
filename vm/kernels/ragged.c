/* chlo.ragged_dot: a dot_general whose lhs ragged dimension is split into
 * consecutive groups of the sizes in operand 2 (group_sizes).
 *
 * The mode follows from the kind of the lhs ragged dimension:
 *   1. non-contracting (m): [b,m,k] x [g,b,k,n] -> [b,m,n]; the rows of
 *      group i use rhs[i] (the rhs group dimension);
 *   2. contracting (k): [b,m,k] x [b,k,n] -> [g,b,m,n]; result i contracts
 *      only the k range of group i;
 *   3. batch (b): [b,m,k] x [b,k,n] -> [b,m,n]; a plain batched product.
 * In every mode the indices past the sum of the group sizes belong to no
 * group and give zeros (the sizes are clamped to the ragged dimension, as
 * XLA does); negative sizes count as 0.  group_sizes is [g], or in modes 1
 * and 2 may also be [lhs batch dims..., g] (one set of sizes per batch
 * element).
 *
 * Both operands are converted to the compute kind of vm/kernels/gemm.h and copied
 * into a layout where every group is a contiguous block of rows (mode 1) or
 * of the contraction (mode 2); each group is then one gemm_run. */
#include <string.h>

#include "vm/dtype.h"
#include "vm/kernels/gemm.h"
#include "vm/kernels/kernels.h"

enum {
  RD_LHS_BATCH,
  RD_RHS_BATCH,
  RD_LHS_CONTRACT,
  RD_RHS_CONTRACT,
  RD_LHS_RAGGED,
  RD_RHS_GROUP,
  RD_PRECISION,
};

enum { RD_MODE_ROWS = 1, RD_MODE_CONTRACT = 2, RD_MODE_BATCH = 3 };

/* The dimension numbers of one instruction, decoded. */
typedef struct RaggedDims {
  int64_t nb, nc;                /* batching and contracting dim counts */
  const int64_t *lb, *rb, *lc, *rc;
  int ragged;                    /* lhs ragged dim */
  int group;                     /* rhs group dim, or -1 */
  int mode;                      /* RD_MODE_* */
  int ragged_pos;                /* position of `ragged` in lb (mode 3) or lc (mode 2) */
} RaggedDims;

/* Reads the fields; counts are checked by check_ragged_dot. */
static void ragged_dims(const VmInstr *ins, RaggedDims *d) {
  int64_t n;
  d->lb = vm_field_list(ins, RD_LHS_BATCH, &d->nb);
  d->rb = vm_field_list(ins, RD_RHS_BATCH, &n);
  d->lc = vm_field_list(ins, RD_LHS_CONTRACT, &d->nc);
  d->rc = vm_field_list(ins, RD_RHS_CONTRACT, &n);
  d->ragged = (int)vm_field_list(ins, RD_LHS_RAGGED, &n)[0];
  const int64_t *g = vm_field_list(ins, RD_RHS_GROUP, &n);
  d->group = n ? (int)g[0] : -1;
  d->mode = RD_MODE_ROWS;
  d->ragged_pos = -1;
  for (int64_t i = 0; i < d->nb; i++)
    if (d->lb[i] == d->ragged) d->mode = RD_MODE_BATCH, d->ragged_pos = (int)i;
  for (int64_t i = 0; i < d->nc; i++)
    if (d->lc[i] == d->ragged) d->mode = RD_MODE_CONTRACT, d->ragged_pos = (int)i;
}

/* Checks that list[0..n) are distinct dims of a rank-`rank` tensor not yet
 * in *used (a bit set), and adds them. */
static bool check_dim_list(VmCheck *c, const char *what, const int64_t *list, int64_t n, int rank,
                           uint32_t *used) {
  for (int64_t i = 0; i < n; i++) {
    if (list[i] < 0 || list[i] >= rank)
      return vm_check_fail(c, "ragged_dot: %s dimension %lld out of range [0, %d)", what, (long long)list[i],
                           rank);
    if (*used & (1u << list[i]))
      return vm_check_fail(c, "ragged_dot: dimension %lld appears twice in the %s dimensions",
                           (long long)list[i], what);
    *used |= 1u << list[i];
  }
  return true;
}

bool check_ragged_dot(VmCheck *c) {
  const VmType *lhs = vm_check_in(c, 0), *rhs = vm_check_in(c, 1), *gs = vm_check_in(c, 2);
  const VmType *res = vm_check_out(c, 0);
  if (!vm_type_is_tensor(lhs) || !vm_type_is_tensor(rhs) || !vm_type_is_tensor(gs) || !vm_type_is_tensor(res))
    return vm_check_fail(c, "ragged_dot: operands and result must be tensors");
  int64_t nlb, nrb, nlc, nrc, nlr, nrg;
  const int64_t *lb = vm_field_list(c->ins, RD_LHS_BATCH, &nlb);
  const int64_t *rb = vm_field_list(c->ins, RD_RHS_BATCH, &nrb);
  const int64_t *lc = vm_field_list(c->ins, RD_LHS_CONTRACT, &nlc);
  const int64_t *rc = vm_field_list(c->ins, RD_RHS_CONTRACT, &nrc);
  const int64_t *lr = vm_field_list(c->ins, RD_LHS_RAGGED, &nlr);
  const int64_t *rg = vm_field_list(c->ins, RD_RHS_GROUP, &nrg);
  if (nlb != nrb)
    return vm_check_fail(c, "ragged_dot: %lld lhs batching dims but %lld rhs batching dims", (long long)nlb,
                         (long long)nrb);
  if (nlc != nrc)
    return vm_check_fail(c, "ragged_dot: %lld lhs contracting dims but %lld rhs contracting dims",
                         (long long)nlc, (long long)nrc);
  if (nlr != 1)
    return vm_check_fail(c, "ragged_dot: expected exactly one lhs ragged dimension, got %lld", (long long)nlr);
  if (nrg > 1)
    return vm_check_fail(c, "ragged_dot: expected at most one rhs group dimension, got %lld", (long long)nrg);
  uint32_t lused = 0, rused = 0;
  if (!check_dim_list(c, "lhs batching", lb, nlb, lhs->rank, &lused) ||
      !check_dim_list(c, "lhs contracting", lc, nlc, lhs->rank, &lused) ||
      !check_dim_list(c, "rhs batching", rb, nrb, rhs->rank, &rused) ||
      !check_dim_list(c, "rhs contracting", rc, nrc, rhs->rank, &rused) ||
      !check_dim_list(c, "rhs group", rg, nrg, rhs->rank, &rused))
    return false;
  if (lr[0] < 0 || lr[0] >= lhs->rank)
    return vm_check_fail(c, "ragged_dot: lhs ragged dimension %lld out of range [0, %d)", (long long)lr[0],
                         lhs->rank);
  for (int64_t i = 0; i < nlb; i++)
    if (lhs->dims[lb[i]] != rhs->dims[rb[i]])
      return vm_check_fail(c, "ragged_dot: batching dims %lld (lhs) and %lld (rhs) differ: %lld vs %lld",
                           (long long)lb[i], (long long)rb[i], (long long)lhs->dims[lb[i]],
                           (long long)rhs->dims[rb[i]]);
  for (int64_t i = 0; i < nlc; i++)
    if (lhs->dims[lc[i]] != rhs->dims[rc[i]])
      return vm_check_fail(c, "ragged_dot: contracting dims %lld (lhs) and %lld (rhs) differ: %lld vs %lld",
                           (long long)lc[i], (long long)rc[i], (long long)lhs->dims[lc[i]],
                           (long long)rhs->dims[rc[i]]);

  RaggedDims d;
  ragged_dims(c->ins, &d);
  if (d.mode == RD_MODE_ROWS && nrg != 1)
    return vm_check_fail(c, "ragged_dot: a non-contracting ragged dimension needs one rhs group dimension");
  if (d.mode != RD_MODE_ROWS && nrg != 0)
    return vm_check_fail(c, "ragged_dot: a %s ragged dimension allows no rhs group dimension",
                         d.mode == RD_MODE_BATCH ? "batch" : "contracting");

  if (!vm_elem_is_int(gs->elem) || gs->rank < 1)
    return vm_check_fail(c, "ragged_dot: group_sizes must be an integer tensor of rank >= 1");
  int64_t ngroups = gs->dims[gs->rank - 1];
  if (d.mode == RD_MODE_ROWS && ngroups != rhs->dims[d.group])
    return vm_check_fail(c, "ragged_dot: %lld group sizes but the rhs group dimension has size %lld",
                         (long long)ngroups, (long long)rhs->dims[d.group]);
  bool batched_sizes = gs->rank == nlb + 1 && d.mode != RD_MODE_BATCH;
  for (int64_t i = 0; batched_sizes && i < nlb; i++) batched_sizes = gs->dims[i] == lhs->dims[lb[i]];
  if (gs->rank != 1 && !batched_sizes)
    return vm_check_fail(c, "ragged_dot: group_sizes must have shape [g]%s",
                         d.mode == RD_MODE_BATCH ? "" : " or [lhs batch dims..., g]");

  int64_t want[TPUB_MAX_RANK * 2 + 1];
  int n = 0;
  if (d.mode == RD_MODE_CONTRACT) want[n++] = ngroups;
  for (int64_t i = 0; i < nlb; i++) want[n++] = lhs->dims[lb[i]];
  for (int k = 0; k < lhs->rank; k++)
    if (!(lused & (1u << k))) want[n++] = lhs->dims[k];
  for (int k = 0; k < rhs->rank; k++)
    if (!(rused & (1u << k))) want[n++] = rhs->dims[k];
  bool same = n == res->rank;
  for (int i = 0; same && i < n; i++) same = want[i] == res->dims[i];
  if (!same)
    return vm_check_fail(c, "ragged_dot: result shape does not match %sbatch + lhs free + rhs free dims",
                         d.mode == RD_MODE_CONTRACT ? "groups + " : "");
  if (gemm_kind_for(res->elem, lhs->elem, rhs->elem) < 0)
    return vm_check_fail(c, "ragged_dot: unsupported element types %s x %s -> %s", vm_elem_name(lhs->elem),
                         vm_elem_name(rhs->elem), vm_elem_name(res->elem));
  return true;
}

/* An operand converted to the compute kind and permuted to a given dim order. */
typedef struct Packed {
  const char *data;
  void *owned;
  size_t owned_bytes;
} Packed;

/* Converts `in` to `kind` and transposes it so that its dims appear in the
 * order order[0..rank) (a permutation), row-major and contiguous. */
static int pack_operand(VmExec *x, GemmKind kind, const VmTensor *in, const int *order, Packed *p) {
  const VmType *t = in->type;
  int es = gemm_kind_bytes(kind);
  size_t bytes = (size_t)t->count * (size_t)es;
  bool identity = true;
  for (int i = 0; i < t->rank; i++) identity = identity && order[i] == i;
  bool native = gemm_is_native(kind, t->elem);
  memset(p, 0, sizeof *p);
  if (native && identity) {
    p->data = in->data;
    return VM_OK;
  }
  const void *src = in->data;
  void *converted = NULL;
  if (!native) {
    converted = vm_scratch_alloc(x, bytes ? bytes : 1);
    if (!converted) return vm_trap(x, "out of memory: ragged_dot operand conversion (%zu bytes)", bytes);
    gemm_load(kind, t->elem, in->data, t->count, converted);
    src = converted;
  }
  if (identity) {
    p->data = converted, p->owned = converted, p->owned_bytes = bytes ? bytes : 1;
    return VM_OK;
  }
  void *copy = vm_scratch_alloc(x, bytes ? bytes : 1);
  if (!copy) {
    if (converted) vm_scratch_free(x, converted, bytes ? bytes : 1);
    return vm_trap(x, "out of memory: ragged_dot operand transpose (%zu bytes)", bytes);
  }
  int64_t strides[TPUB_MAX_RANK], sizes[TPUB_MAX_RANK], perm_strides[TPUB_MAX_RANK];
  int64_t s = 1;
  for (int k = t->rank - 1; k >= 0; k--) strides[k] = s, s *= t->dims[k];
  for (int i = 0; i < t->rank; i++) sizes[i] = t->dims[order[i]], perm_strides[i] = strides[order[i]];
  if (t->count) gemm_strided_copy(es, t->rank, sizes, perm_strides, src, copy);
  if (converted) vm_scratch_free(x, converted, bytes ? bytes : 1);
  p->data = copy, p->owned = copy, p->owned_bytes = bytes ? bytes : 1;
  return VM_OK;
}

/* Releases the scratch of a packed operand, if any. */
static void packed_free(VmExec *x, Packed *p) {
  if (p->owned) vm_scratch_free(x, p->owned, p->owned_bytes);
}

/* Appends to out the dims of 0..rank not in the bit set `used`; returns the new count. */
static int append_free(int rank, uint32_t used, int *out, int n) {
  for (int k = 0; k < rank; k++)
    if (!(used & (1u << k))) out[n++] = k;
  return n;
}

/* The bit set of the dims in list[0..n). */
static uint32_t dim_bits(const int64_t *list, int64_t n) {
  uint32_t bits = 0;
  for (int64_t i = 0; i < n; i++) bits |= 1u << list[i];
  return bits;
}

/* The clamped [start, end) ranges of the groups of batch element b along a
 * ragged dim of size `extent`: starts[i], ends[i] for i < ngroups. */
static void group_ranges(const VmTensor *gs, int64_t b, int64_t extent, int64_t *starts, int64_t *ends) {
  int64_t ngroups = gs->type->dims[gs->type->rank - 1];
  int64_t base = gs->type->rank == 1 ? 0 : b * ngroups;
  int elem = gs->type->elem;
  int64_t pos = 0;
  for (int64_t i = 0; i < ngroups; i++) {
    int64_t size = vm_load_i64(elem, gs->data, base + i);
    if (vm_elem_is_unsigned(elem) && size < 0) size = INT64_MAX; /* ui64 above INT64_MAX */
    if (size < 0) size = 0;
    if (size > extent - pos) size = extent - pos;
    starts[i] = pos;
    ends[i] = pos + size;
    pos += size;
  }
}

/* The packed operands' dim orders and the sizes of their axis groups:
 * lhs [B][M free dims][K], rhs [group][B][K][N free dims]. */
typedef struct RaggedLayout {
  int lorder[TPUB_MAX_RANK], rorder[TPUB_MAX_RANK];
  int lfree0, lfree_end; /* lhs free dims: lorder[lfree0 .. lfree_end) */
  int64_t B, M, N, K;
} RaggedLayout;

/* The layout of instruction d's operands lt (lhs) and rt (rhs). */
static void ragged_layout(const RaggedDims *d, const VmType *lt, const VmType *rt, RaggedLayout *L) {
  int nl = 0, nr = 0;
  int *lorder = L->lorder, *rorder = L->rorder;
  L->B = L->M = L->N = L->K = 1;
  uint32_t lused = dim_bits(d->lb, d->nb) | dim_bits(d->lc, d->nc);
  uint32_t rused = dim_bits(d->rb, d->nb) | dim_bits(d->rc, d->nc) | (d->group >= 0 ? 1u << d->group : 0);
  for (int64_t i = 0; i < d->nb; i++) lorder[nl++] = (int)d->lb[i], L->B *= lt->dims[d->lb[i]];
  L->lfree0 = nl;
  nl = append_free(lt->rank, lused, lorder, nl);
  L->lfree_end = nl;
  for (int i = L->lfree0; i < L->lfree_end; i++) L->M *= lt->dims[lorder[i]];
  /* Mode 2 puts the ragged contracting dim first so that a group's k range
   * is one contiguous run of the packed contraction. */
  if (d->mode == RD_MODE_CONTRACT) lorder[nl++] = d->ragged;
  for (int64_t i = 0; i < d->nc; i++) {
    L->K *= lt->dims[d->lc[i]];
    if (i != d->ragged_pos || d->mode != RD_MODE_CONTRACT) lorder[nl++] = (int)d->lc[i];
  }
  if (d->group >= 0) rorder[nr++] = d->group;
  for (int64_t i = 0; i < d->nb; i++) rorder[nr++] = (int)d->rb[i];
  if (d->mode == RD_MODE_CONTRACT) rorder[nr++] = (int)d->rc[d->ragged_pos];
  for (int64_t i = 0; i < d->nc; i++)
    if (i != d->ragged_pos || d->mode != RD_MODE_CONTRACT) rorder[nr++] = (int)d->rc[i];
  int rfree0 = nr;
  nr = append_free(rt->rank, rused, rorder, nr);
  for (int i = rfree0; i < nr; i++) L->N *= rt->dims[rorder[i]];
}

/* What the three modes' loops share. */
typedef struct RaggedRun {
  GemmWork *w;
  const RaggedDims *d;
  const RaggedLayout *L;
  const VmType *lt;
  const VmTensor *sizes; /* group_sizes */
  const char *a, *b;     /* packed operands */
  char *c;               /* accumulator */
  int es;
  int64_t ngroups, *starts, *ends;
} RaggedRun;

/* Mode 1: rows are [B][pre][ragged][post]; a group is a run of whole
 * ragged rows times its own rhs. */
static int ragged_rows(const RaggedRun *R) {
  const RaggedLayout *L = R->L;
  int64_t pre = 1, post = 1, extent = R->lt->dims[R->d->ragged], K = L->K, N = L->N;
  bool after = false;
  for (int i = L->lfree0; i < L->lfree_end; i++) {
    if (L->lorder[i] == R->d->ragged) after = true;
    else if (after) post *= R->lt->dims[L->lorder[i]];
    else pre *= R->lt->dims[L->lorder[i]];
  }
  int64_t row_elems = post * K; /* lhs elements per ragged index */
  int status = VM_OK;
  for (int64_t bi = 0; status == VM_OK && bi < L->B; bi++) {
    group_ranges(R->sizes, bi, extent, R->starts, R->ends);
    for (int64_t p = 0; status == VM_OK && p < pre; p++) {
      int64_t row0 = (bi * pre + p) * extent;
      for (int64_t g = 0; status == VM_OK && g < R->ngroups; g++) {
        int64_t rows = (R->ends[g] - R->starts[g]) * post;
        if (rows == 0) continue;
        const char *A = R->a + ((row0 + R->starts[g]) * row_elems) * R->es;
        const char *Bm = R->b + ((g * L->B + bi) * K * N) * R->es;
        char *C = R->c + ((row0 + R->starts[g]) * post * N) * R->es;
        status = gemm_run(R->w, rows, N, K, A, K, 1, Bm, N, 1, C, N);
      }
    }
  }
  return status;
}

/* Mode 2: the contraction is [ragged][rest]; a group is a run of whole
 * ragged slabs, into its own output block. */
static int ragged_contract(const RaggedRun *R) {
  const RaggedLayout *L = R->L;
  int64_t extent = R->lt->dims[R->d->ragged], rest = extent ? L->K / extent : 0, M = L->M, N = L->N, K = L->K;
  int status = VM_OK;
  for (int64_t bi = 0; status == VM_OK && bi < L->B; bi++) {
    group_ranges(R->sizes, bi, extent, R->starts, R->ends);
    for (int64_t g = 0; status == VM_OK && g < R->ngroups; g++) {
      int64_t k0 = R->starts[g] * rest, kn = (R->ends[g] - R->starts[g]) * rest;
      if (kn == 0) continue;
      const char *A = R->a + (bi * M * K + k0) * R->es;
      const char *Bm = R->b + (bi * K * N + k0 * N) * R->es;
      char *C = R->c + ((g * L->B + bi) * M * N) * R->es;
      status = gemm_run(R->w, M, N, kn, A, K, 1, Bm, N, 1, C, N);
    }
  }
  return status;
}

/* Mode 3: the ragged dim is a batch dim; batch elements whose ragged index
 * is past the groups stay zero. */
static int ragged_batch(const RaggedRun *R) {
  const RaggedDims *d = R->d;
  const RaggedLayout *L = R->L;
  int64_t extent = R->lt->dims[d->ragged], inner = 1, M = L->M, N = L->N, K = L->K;
  for (int64_t i = d->ragged_pos + 1; i < d->nb; i++) inner *= R->lt->dims[d->lb[i]];
  group_ranges(R->sizes, 0, extent, R->starts, R->ends);
  int64_t used = R->ngroups ? R->ends[R->ngroups - 1] : 0;
  int status = VM_OK;
  for (int64_t bi = 0; status == VM_OK && bi < L->B; bi++) {
    if ((bi / inner) % extent >= used) continue;
    status = gemm_run(R->w, M, N, K, R->a + bi * M * K * R->es, K, 1, R->b + bi * K * N * R->es, N, 1,
                      R->c + bi * M * N * R->es, N);
  }
  return status;
}

int exec_ragged_dot(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  const VmType *lt = in[0].type, *rt = in[1].type, *ot = out[0].type;
  RaggedDims d;
  ragged_dims(ins, &d);
  GemmKind kind = (GemmKind)gemm_kind_for(ot->elem, lt->elem, rt->elem);
  int es = gemm_kind_bytes(kind);
  int64_t ngroups = in[2].type->dims[in[2].type->rank - 1];
  RaggedLayout L;
  ragged_layout(&d, lt, rt, &L);
  if (ot->count == 0) return VM_OK;
  Packed a, b;
  int status = pack_operand(x, kind, &in[0], L.lorder, &a);
  if (status != VM_OK) return status;
  status = pack_operand(x, kind, &in[1], L.rorder, &b);
  if (status != VM_OK) {
    packed_free(x, &a);
    return status;
  }
  bool native_out = gemm_is_native(kind, ot->elem);
  size_t cbytes = (size_t)ot->count * (size_t)es;
  char *cbuf = native_out ? out[0].data : vm_scratch_alloc(x, cbytes);
  size_t range_bytes = 2 * (size_t)(ngroups ? ngroups : 1) * sizeof(int64_t);
  int64_t *starts = vm_scratch_alloc(x, range_bytes), *ends = starts ? starts + (ngroups ? ngroups : 1) : NULL;
  GemmWork w;
  gemm_work_init(&w, x, kind);
  if (!cbuf || !starts) status = vm_trap(x, "out of memory: ragged_dot accumulator (%zu bytes)", cbytes);
  else memset(cbuf, 0, cbytes);
  RaggedRun R = {&w, &d, &L, lt, &in[2], a.data, b.data, cbuf, es, ngroups, starts, ends};
  if (status == VM_OK)
    status = d.mode == RD_MODE_ROWS       ? ragged_rows(&R)
             : d.mode == RD_MODE_CONTRACT ? ragged_contract(&R)
                                          : ragged_batch(&R);
  if (status == VM_OK && !native_out) gemm_store(kind, ot->elem, cbuf, ot->count, out[0].data);
  gemm_work_free(&w);
  if (starts) vm_scratch_free(x, starts, range_bytes);
  if (!native_out && cbuf) vm_scratch_free(x, cbuf, cbytes);
  packed_free(x, &a);
  packed_free(x, &b);
  return status;
}
