/* mxu_dot: a dot_general the compiler tiled for the MXU (tpu.mxu_tile,
 * tpu.mxu_pad).  The TPU runs it tile by tile on zero-padded operands;
 * the padding adds zero terms and the tiles (K is never split) only
 * change the modeled time, so the host runs the real product through
 * dot_general's engine (gemm_batched: output tiles on host threads, cut
 * by the shape alone): the same bits as dot_general for any thread
 * count. */
#include "vm/kernels/gemm.h"
#include "vm/kernels/kernels.h"

/* Field indices (vm/opcodes.def): dot_general's five, then tile and pad. */
enum { MXU_LHS_BATCH, MXU_RHS_BATCH, MXU_LHS_CONTRACT, MXU_RHS_CONTRACT, MXU_PRECISION, MXU_TILE, MXU_PAD };

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

/* The tile and padding only matter to the cost model: padding adds zero
 * terms, and the host computes the real product as dot_general does, so
 * the results are dot_general's bits. */
int exec_mxu_dot(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  return gemm_dot_run(x, ins, in, out, true);
}
