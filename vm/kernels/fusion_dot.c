/* Output fusions' contractions block by block (vm/kernels/fusion_dot.h). */
#include <string.h>

#include "vm/kernels/fusion_dot.h"

/* Convolution chunks hold whole images, at least this many result bytes. */
enum { CONV_CHUNK_BYTES = 1 << 20 };

/* Field indices shared by dot_general and mxu_dot (vm/opcodes.def). */
enum { F_LHS_BATCH, F_RHS_BATCH, F_LHS_CONTRACT, F_RHS_CONTRACT };
/* convolution's batch dimension fields and batch_group_count. */
enum { CV_INPUT_BATCH = 5, CV_OUTPUT_BATCH = 11, CV_BATCH_GROUP_COUNT = 15 };

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Worker w's GEMM state: at the end of its work area. */
static GemmWork *worker_gemm(const FusionDot *d, int w) {
  return (GemmWork *)(d->work + (size_t)(w + 1) * d->work_bytes - ((sizeof(GemmWork) + 63) & ~(size_t)63));
}

/* The dims of an operand in three groups (batch, rows, cols) collapsed
 * into one stride each; false when a group is not one arithmetic
 * progression of offsets. */
static bool group_strides(const VmType *t, const int *groups[3], const int ngroup[3], int64_t st[3]) {
  int64_t rs[TPUB_MAX_RANK], s = 1;
  for (int d = t->rank - 1; d >= 0; d--) rs[d] = s, s *= t->dims[d];
  for (int g = 0; g < 3; g++) {
    bool have = false;
    int64_t expect = 0;
    st[g] = 0;
    for (int i = ngroup[g] - 1; i >= 0; i--) {
      int d = groups[g][i];
      if (t->dims[d] == 1) continue;
      if (!have) st[g] = rs[d], have = true;
      else if (rs[d] != expect) return false;
      expect = rs[d] * t->dims[d];
    }
  }
  return true;
}

/* Operand `which` of d in the compute kind with its three strides: the
 * tensor itself when it is stored so, else a converted and/or reordered
 * copy (the operand, never a value of the fusion). */
static int load_operand(FusionDot *d, int which, const VmTensor *t, const int *groups[3], const int ngroup[3],
                        int64_t st[3], const char **base) {
  const void *data = t->data;
  size_t bytes = (size_t)t->type->count * (size_t)d->ces + 1;
  if (!gemm_is_native(d->kind, t->type->elem)) {
    void *conv = vm_scratch_alloc(d->x, bytes);
    if (!conv) return vm_trap(d->x, "out of memory: fusion dot operand (%zu bytes)", bytes);
    gemm_load(d->kind, t->type->elem, t->data, t->type->count, conv);
    d->owned[which] = conv, d->owned_bytes[which] = bytes;
    data = conv;
  }
  if (!group_strides(t->type, groups, ngroup, st)) {
    int64_t rs[TPUB_MAX_RANK], sizes[TPUB_MAX_RANK], strides[TPUB_MAX_RANK], ext[3] = {1, 1, 1}, s = 1;
    int n = 0;
    for (int dd = t->type->rank - 1; dd >= 0; dd--) rs[dd] = s, s *= t->type->dims[dd];
    for (int g = 0; g < 3; g++)
      for (int i = 0; i < ngroup[g]; i++, n++) {
        sizes[n] = t->type->dims[groups[g][i]];
        strides[n] = rs[groups[g][i]];
        ext[g] *= sizes[n];
      }
    void *copy = vm_scratch_alloc(d->x, bytes);
    if (!copy) return vm_trap(d->x, "out of memory: fusion dot operand (%zu bytes)", bytes);
    gemm_strided_copy(d->ces, n, sizes, strides, data, copy);
    if (d->owned[which]) vm_scratch_free(d->x, d->owned[which], d->owned_bytes[which]);
    d->owned[which] = copy, d->owned_bytes[which] = bytes;
    data = copy;
    st[0] = ext[1] * ext[2], st[1] = ext[2], st[2] = 1;
  }
  *base = data;
  return VM_OK;
}

bool fusion_dot_supported(const VmInstr *ins, const VmType *lt, const VmType *rt, const VmType *ot) {
  return (ins->opcode == VM_OP_DOT_GENERAL || ins->opcode == VM_OP_MXU_DOT) &&
         gemm_kind_for(ot->elem, lt->elem, rt->elem) >= 0;
}

/* The per-worker GEMM states and tile buffers, all in tile memory (per
 * worker, outside the accounted HBM); traps when out of memory. */
static int alloc_workers(FusionDot *d, int max_workers) {
  d->workers = max_workers < 1 ? 1 : max_workers;
  d->block_bytes = ((size_t)(d->tm * d->tn) * (size_t)d->ces + 63) & ~(size_t)63;
  size_t out_block = d->native_out ? 0 : ((size_t)(d->tm * d->tn) * (size_t)d->oes + 63) & ~(size_t)63;
  d->work_bytes = d->block_bytes + out_block + ((sizeof(GemmWork) + 63) & ~(size_t)63);
  d->total = d->work_bytes * (size_t)d->workers;
  d->work = vm_tile_alloc(d->x, d->total);
  if (!d->work) return vm_trap(d->x, "out of memory: %zu bytes of fusion dot blocks", d->total);
  for (int w = 0; w < d->workers; w++) gemm_work_init(worker_gemm(d, w), d->x, d->kind);
  d->ngw = d->workers;
  for (int w = 0; w < d->workers; w++) {
    int rc = gemm_work_reserve(worker_gemm(d, w), d->tm, d->tn, d->k);
    if (rc != VM_OK) return rc;
  }
  return VM_OK;
}

/* The operands as gemm_run reads them without copying (gemm_batched's
 * layouts), copied into tile memory otherwise. */
static int ready_operands(FusionDot *d) {
  GemmOperand a = {d->a, d->a_bs, d->a_rs, d->a_cs}, b = {d->b, d->b_bs, d->b_rs, d->b_cs};
  int rc = gemm_operand_ready(d->x, d->kind, d->batch, d->m, d->k, &a, &d->ready[0], &d->ready_bytes[0]);
  if (rc == VM_OK) rc = gemm_operand_ready(d->x, d->kind, d->batch, d->k, d->n, &b, &d->ready[1], &d->ready_bytes[1]);
  d->a = a.base, d->a_bs = a.batch_stride, d->a_rs = a.row_stride, d->a_cs = a.col_stride;
  d->b = b.base, d->b_bs = b.batch_stride, d->b_rs = b.row_stride, d->b_cs = b.col_stride;
  return rc;
}

/* Workers worth preparing: one below GEMM_TILE_FLOPS of work (as
 * gemm_batched), else up to the tasks and max. */
static int useful_workers(const FusionDot *d, int max) {
  double flops = 2.0 * (double)d->batch * (double)d->m * (double)d->n * (double)d->k;
  int64_t tasks = fusion_dot_ntasks(d);
  if (flops < GEMM_TILE_FLOPS || tasks < 2) return 1;
  return tasks < max ? (int)tasks : max;
}

int fusion_dot_begin(FusionDot *d, VmExec *x, const VmInstr *ins, const VmTensor *in, const VmType *ot,
                     int max_workers) {
  const VmType *lt = in[0].type, *rt = in[1].type;
  memset(d, 0, sizeof *d);
  d->x = x;
  int64_t nb, nc;
  const int64_t *lb = vm_field_list(ins, F_LHS_BATCH, &nb), *rb = vm_field_list(ins, F_RHS_BATCH, &nb);
  const int64_t *lc = vm_field_list(ins, F_LHS_CONTRACT, &nc), *rc = vm_field_list(ins, F_RHS_CONTRACT, &nc);
  int lbatch[TPUB_MAX_RANK], rbatch[TPUB_MAX_RANK], lcon[TPUB_MAX_RANK], rcon[TPUB_MAX_RANK];
  int lfree[TPUB_MAX_RANK], rfree[TPUB_MAX_RANK];
  d->batch = d->k = d->m = d->n = 1;
  for (int64_t i = 0; i < nb; i++) lbatch[i] = (int)lb[i], rbatch[i] = (int)rb[i], d->batch *= lt->dims[lb[i]];
  for (int64_t i = 0; i < nc; i++) lcon[i] = (int)lc[i], rcon[i] = (int)rc[i], d->k *= lt->dims[lc[i]];
  int nlf = gemm_free_dims(lt->rank, lb, nb, lc, nc, lfree), nrf = gemm_free_dims(rt->rank, rb, nb, rc, nc, rfree);
  for (int i = 0; i < nlf; i++) d->m *= lt->dims[lfree[i]];
  for (int i = 0; i < nrf; i++) d->n *= rt->dims[rfree[i]];
  d->kind = (GemmKind)gemm_kind_for(ot->elem, lt->elem, rt->elem);
  d->ces = gemm_kind_bytes(d->kind);
  d->out_elem = ot->elem;
  d->oes = vm_elem_bytes(ot->elem);
  d->native_out = gemm_is_native(d->kind, ot->elem);
  gemm_tile_shape(d->m, d->n, d->k, &d->tm, &d->tn);
  if (d->tm < 1) d->tm = 1; /* an empty product: no tasks, no division by zero */
  if (d->tn < 1) d->tn = 1;
  d->ncb = (d->n + d->tn - 1) / d->tn;
  d->nrg = (d->m + d->tm - 1) / d->tm;
  const int *lg[3] = {lbatch, lfree, lcon}, *rg[3] = {rbatch, rcon, rfree};
  const int lng[3] = {(int)nb, nlf, (int)nc}, rng[3] = {(int)nb, (int)nc, nrf};
  int64_t ls[3] = {0}, rs[3] = {0};
  int rcode = load_operand(d, 0, &in[0], lg, lng, ls, &d->a);
  if (rcode == VM_OK) rcode = load_operand(d, 1, &in[1], rg, rng, rs, &d->b);
  d->a_bs = ls[0], d->a_rs = ls[1], d->a_cs = ls[2];
  d->b_bs = rs[0], d->b_rs = rs[1], d->b_cs = rs[2];
  if (rcode == VM_OK) rcode = ready_operands(d);
  if (rcode == VM_OK) rcode = alloc_workers(d, useful_workers(d, max_workers));
  return rcode;
}

int fusion_dot_workers(const FusionDot *d) { return d->workers; }

int64_t fusion_dot_ntasks(const FusionDot *d) { return d->batch * d->nrg * d->ncb; }

int fusion_dot_task(FusionDot *d, int worker, int64_t t, FusionBlockFn fn, void *ctx) {
  int64_t cb = t % d->ncb, rg = t / d->ncb % d->nrg, bi = t / d->ncb / d->nrg;
  int64_t c0 = cb * d->tn, cols = min64(d->tn, d->n - c0);
  int64_t r0 = rg * d->tm, rows = min64(d->tm, d->m - r0);
  GemmWork *w = worker_gemm(d, worker);
  char *cblk = d->work + (size_t)worker * d->work_bytes;
  char *oblk = d->native_out ? cblk : cblk + d->block_bytes;
  size_t es = (size_t)d->ces;
  const char *a = d->a + (size_t)(bi * d->a_bs + r0 * d->a_rs) * es;
  const char *b = d->b + (size_t)(bi * d->b_bs + c0 * d->b_cs) * es;
  if (gemm_run(w, rows, cols, d->k, a, d->a_rs, d->a_cs, b, d->b_rs, d->b_cs, cblk, cols) != VM_OK) return VM_TRAP;
  if (!d->native_out) gemm_store(d->kind, d->out_elem, cblk, rows * cols, oblk);
  return fn(ctx, worker, oblk, cols, (bi * d->m + r0) * d->n + c0, d->n, rows, cols);
}

void fusion_dot_end(FusionDot *d) {
  for (int w = 0; w < d->ngw; w++) gemm_work_free(worker_gemm(d, w));
  if (d->work) vm_tile_free(d->x, d->work, d->total);
  for (int i = 0; i < 2; i++) {
    if (d->ready[i]) vm_tile_free(d->x, d->ready[i], d->ready_bytes[i]);
    if (d->owned[i]) vm_scratch_free(d->x, d->owned[i], d->owned_bytes[i]);
  }
}

int64_t fusion_conv_chunk(const VmInstr *ins, const VmType *lt, const VmType *ot) {
  int64_t batch = ot->dims[0];
  if (vm_field_int(ins, CV_INPUT_BATCH) != 0 || vm_field_int(ins, CV_OUTPUT_BATCH) != 0 ||
      vm_field_int(ins, CV_BATCH_GROUP_COUNT) != 1 || lt->dims[0] != batch || batch <= 1)
    return batch > 0 ? batch : 1;
  int64_t image = ot->nbytes / batch;
  int64_t per = image >= CONV_CHUNK_BYTES ? 1 : CONV_CHUNK_BYTES / (image > 0 ? image : 1);
  return min64(per, batch);
}

/* t with its first dimension cut to count of its n images. */
static VmType batch_slice(const VmType *t, int64_t count, int64_t *dims) {
  VmType s = *t;
  memcpy(dims, t->dims, sizeof(int64_t) * (size_t)t->rank);
  s.nbytes = t->dims[0] ? t->nbytes / t->dims[0] * count : 0;
  s.count = t->dims[0] ? t->count / t->dims[0] * count : 0;
  dims[0] = count;
  s.dims = dims;
  return s;
}

int fusion_conv_images(VmExec *x, const VmInstr *ins, const VmTensor *in, const VmType *ot, int64_t first,
                       int64_t count, void *out) {
  if (count == ot->dims[0]) {
    VmTensor res = {ot, out};
    return exec_convolution(x, ins, in, &res);
  }
  int64_t ldims[TPUB_MAX_RANK], odims[TPUB_MAX_RANK];
  VmType lt = batch_slice(in[0].type, count, ldims), rt = batch_slice(ot, count, odims);
  const char *lbase = (const char *)in[0].data + (size_t)(in[0].type->nbytes / in[0].type->dims[0] * first);
  VmTensor args[2] = {{&lt, (void *)lbase}, in[1]}, res = {&rt, out};
  return exec_convolution(x, ins, args, &res);
}
