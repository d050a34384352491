/* Hardware lint (pass "hw-lint"): a warning where a contraction's shape
 * wastes the MXU.  The MXU multiplies (mxu x mxu) weight tiles, so the
 * contraction size K and the output columns N are padded to the MXU size;
 * a dot_general or convolution whose K or N fills less than
 * HW_LINT_MIN_FILL of the padded size, and that is big enough to matter
 * (HW_LINT_MIN_FLOPS), gets a warning at its location (N only a note
 * when K was already reported).  Contractions the
 * cost model keeps on the vector unit are not linted.  Identical
 * contractions (same shapes and dimension numbers: every layer of a
 * transformer) are reported once, with a note counting the others. */
#include <math.h>

#include <string.h>

#include "ir/table.h"
#include "passes/cost.h"
#include "passes/pass.h"
#include "passes/walk.h"

#define HW_LINT_MIN_FILL 0.75
#define HW_LINT_MIN_FLOPS 1e6

/* Short name of a contraction for the message. */
static const char *lint_name(const Op *op) {
  switch (op->kind) {
  case OP_DOT: return "dot";
  case OP_DOT_GENERAL: return "dot_general";
  case OP_CHLO_RAGGED_DOT: return "ragged_dot";
  default: return "convolution";
  }
}

/* Reports (a warning, or a note after the warning of the same op) when
 * dimension size d (K or N) fills the MXU badly; true if it did. */
static bool lint_dim(PassContext *pc, const Op *op, Severity sev, const char *what, double d, bool attention) {
  int mxu = pc->target->mxu;
  double padded = ceil(d / mxu) * mxu, fill = d / padded;
  if (d <= 0 || fill >= HW_LINT_MIN_FILL) return false;
  if (attention)
    diag_report(pc->c, op->loc, sev,
                "%s %s %.0f fills %.0f%% of the %dx%d MXU (attention head dimension %.0f; %.0f would fill it)",
                lint_name(op), what, d, floor(100 * fill), mxu, mxu, d, padded);
  else
    diag_report(pc->c, op->loc, sev, "%s %s %.0f fills %.0f%% of the %dx%d MXU (a multiple of %d would fill it)",
                lint_name(op), what, d, floor(100 * fill), mxu, mxu, mxu);
  return true;
}

/* What makes two contractions the same for the lint: kind, operand and
 * result types, and the dimension-number attributes (as text). */
static const char *lint_key(PassContext *pc, const Op *op) {
  const Attr *d = op_attr(op, op->kind == OP_CONVOLUTION ? "dimension_numbers" : "dot_dimension_numbers");
  return arena_printf(&pc->c->arena, "%d %p %p %p %s", (int)op->kind, (void *)op->operands[0]->type,
                      (void *)op->operands[1]->type, (void *)op->results[0].type,
                      d ? attr_to_string(pc->c, d) : "");
}

typedef struct LintGroup {
  const Op *first;
  int count;
} LintGroup;

static void collect_block(PassContext *pc, const Block *b, Table *seen, PtrVec *order) {
  for (const Op *op = b->first; op; op = op->next) {
    for (int r = 0; r < op->nregions; r++)
      for (int k = 0; k < op->regions[r].nblocks; k++) collect_block(pc, op->regions[r].blocks[k], seen, order);
    GemmShape g;
    if (!cost_gemm_shape(op, &g) || !cost_runs_on_mxu(op) || 2 * g.b * g.m * g.n * g.k < HW_LINT_MIN_FLOPS) continue;
    const char *key = lint_key(pc, op);
    void **slot = table_put(seen, key, strlen(key) + 1);
    if (!*slot) {
      LintGroup *lg = arena_alloc(&pc->c->arena, sizeof *lg);
      lg->first = op;
      *slot = lg;
      vec_push(order, lg);
    }
    ((LintGroup *)*slot)->count++;
  }
}

static void lint_op(PassContext *pc, const Op *op, int copies) {
  GemmShape g;
  cost_gemm_shape(op, &g);
  /* In attention, the contraction of a batched dot over a power-of-two
   * size is the head dimension (the other one runs over the sequence). */
  bool head = g.batched && g.k == exp2(round(log2(g.k)));
  bool conv = op->kind == OP_CONVOLUTION || op->kind == OP_DYNAMIC_CONV;
  bool warned = lint_dim(pc, op, SEV_WARNING, "contracting dimension", g.k, head);
  warned |= lint_dim(pc, op, warned ? SEV_NOTE : SEV_WARNING,
                     conv ? "output feature dimension" : "rhs free dimension", g.n, false);
  if (warned && copies > 1)
    diag_report(pc->c, op->loc, SEV_NOTE, "%d more %s ops of the same shapes are not reported again", copies - 1,
                lint_name(op));
}

bool pass_hw_lint(PassContext *pc) {
  Table seen = {0};
  PtrVec order = {0};
  FOR_EACH_FUNC(pc->m, f) collect_block(pc, op_body(f), &seen, &order);
  for (int i = 0; i < order.len; i++) {
    const LintGroup *lg = order.items[i];
    lint_op(pc, lg->first, lg->count);
  }
  vec_free(&order);
  table_free(&seen, NULL);
  return true;
}
