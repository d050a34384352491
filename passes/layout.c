/* Layout tiling (passes/passes.def "layout").
 *
 * Every tensor a function body produces is given XLA's TPU tiled layout in
 * its two minor dimensions: `tpu.tile = array<i64: 8, 128>` for 32-bit
 * elements (also 64-bit, as two words), (16,128) for 16-bit, (32,128) for
 * 8-bit and narrower.  Each dot_general and convolution is placed on the
 * MXU or, when the cost model says the padding does not pay (a matrix-vector
 * product pads 1 row to a full systolic pass), on the vector unit
 * (`tpu.unit = "vpu"`).  An MXU contraction gets its padded problem
 * (`tpu.mxu_pad = [M, N, K]`: M to the 8 sublanes, N and K to the MXU size)
 * and a tile schedule (`tpu.mxu_tile = [TM, TN, TK]`) whose operand tiles,
 * double-buffered, and f32 accumulator tile fit in half of VMEM (the other
 * half is left to the fused producers and consumers). */
#include <string.h>

#include "passes/cost.h"
#include "passes/pass.h"
#include "passes/walk.h"

static int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

/* The tile of a layout for an element width in bits. */
static int64_t tile_rows(int bits) { return bits >= 32 ? 8 : bits == 16 ? 16 : 32; }

/* VMEM bytes a schedule needs: double-buffered operand tiles plus the
 * accumulator tile. */
static int64_t schedule_bytes(int64_t tm, int64_t tn, int64_t tk, int in_bytes) {
  return 2 * (tm * tk + tk * tn) * in_bytes + tm * tn * 4;
}

/* Largest tiles (multiples of the MXU size, at most the padded sizes) that
 * fit the budget: K first (fewer accumulator passes), then the output tile,
 * which sets how often each operand is read again. */
static void choose_schedule(const Target *t, int64_t m, int64_t n, int64_t k, int in_bytes, int64_t out[3]) {
  int64_t budget = (int64_t)(t->vmem_bytes / 2), mxu = t->mxu;
  int64_t tm = m < mxu ? m : mxu, tn = mxu, tk = mxu;
  for (bool grew = true; grew;) {
    grew = false;
    if (tk * 2 <= k && schedule_bytes(tm, tn, tk * 2, in_bytes) <= budget) tk *= 2, grew = true;
    if (tm * 2 <= m && schedule_bytes(tm * 2, tn, tk, in_bytes) <= budget) tm *= 2, grew = true;
    if (tn * 2 <= n && schedule_bytes(tm, tn * 2, tk, in_bytes) <= budget) tn *= 2, grew = true;
  }
  out[0] = tm, out[1] = tn, out[2] = tk;
}

static void place_contraction(PassContext *pc, Op *op) {
  Context *c = pc->c;
  GemmShape d;
  /* f64, complex and wide integers are emulated on the vector unit anyway. */
  if (!cost_gemm_shape(op, &d) || !type_is_static(op->results[0].type) || !cost_runs_on_mxu(op)) return;
  if (d.b < 1 || d.m < 1 || d.n < 1 || d.k < 1) return; /* an empty product: nothing to place */
  const Target *t = pc->target;
  int64_t m = round_up((int64_t)d.m, TARGET_VPU_SUBLANES), n = round_up((int64_t)d.n, t->mxu),
          k = round_up((int64_t)d.k, t->mxu);
  /* The MXU pays when its padded passes beat the vector unit doing the
   * useful FLOPs alone. */
  double mxu_s = 2.0 * d.b * (double)m * (double)n * (double)k / t->bf16_flops;
  double vpu_s = 2.0 * d.b * d.m * d.n * d.k / target_vpu_ops_per_s(t);
  if (vpu_s < mxu_s) {
    op_set_attr(c, op, "tpu.unit", attr_string(c, "vpu", 3));
    return;
  }
  int in_bytes = (elem_bits(type_elem_kind(op->operands[0]->type)) + 7) / 8;
  int64_t pad[3] = {m, n, k}, tile[3];
  choose_schedule(t, m, n, k, in_bytes, tile);
  op_set_attr(c, op, "tpu.mxu_pad", attr_dense_i64_array(c, 3, pad));
  op_set_attr(c, op, "tpu.mxu_tile", attr_dense_i64_array(c, 3, tile));
}

static void lay_out_block(PassContext *pc, Block *b) {
  for (Op *op = b->first; op; op = op->next) {
    if (op->kind == OP_WHILE || op->kind == OP_IF || op->kind == OP_CASE)
      for (int r = 0; r < op->nregions; r++)
        for (int k = 0; k < op->regions[r].nblocks; k++) lay_out_block(pc, op->regions[r].blocks[k]);
    if (op->kind == OP_DOT_GENERAL || op->kind == OP_CONVOLUTION) place_contraction(pc, op);
    if (op->kind == OP_TPU_FUSION)
      for (Op *in = op_body(op)->first; in; in = in->next)
        if (in->kind == OP_DOT_GENERAL || in->kind == OP_CONVOLUTION) place_contraction(pc, in);
    if (op->nresults < 1 || op->kind == OP_CONSTANT) continue;
    const Type *r = op->results[0].type;
    if (r->kind != TY_TENSOR || r->rank < 1 || r->elem_opaque) continue;
    int64_t tile[2] = {tile_rows(elem_bits(r->elem)), TARGET_VPU_LANES};
    op_set_attr(pc->c, op, "tpu.tile", attr_dense_i64_array(pc->c, 2, tile));
  }
}

bool pass_layout(PassContext *pc) {
  FOR_EACH_FUNC(pc->m, f) lay_out_block(pc, op_body(f));
  return true;
}
