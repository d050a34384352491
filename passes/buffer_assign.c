/* Buffer assignment (pass "buffer-assign"): the liveness of every buffer
 * a function allocates in HBM, in-place reuse, and the peak of live bytes.
 *
 * Per block, ops are numbered in order; an op inside a region counts as its
 * top-level ancestor, so a value used in a region lives until that op ends.
 * Buffers (sizes in tiled layouts, cost_tiled_bytes):
 *   - function arguments live from the start to their last use, results
 *     until the end;
 *   - views (bitcast reshapes and bitcast_converts, tuples,
 *     get_tuple_element, optimization_barrier, tpu.async_done) allocate
 *     nothing and keep their operands' buffers alive;
 *   - an element-wise op (or a loop fusion) writes its result 0 over the
 *     first operand of the same type that dies at it (in place), as the
 *     back end flags it for the VM;
 *   - constants are resident for the whole program (weights), except
 *     splats, which each op that reads one materializes while it runs;
 *   - while, if and case add the peak of their bodies; a call adds the
 *     callee's peak without its arguments and results (the caller's
 *     buffers); fusion, reduce and sort bodies live on chip.
 * The program's peak is the constants plus the largest function peak.  It
 * goes to PassContext.peak_hbm_bytes; a peak above the target's HBM is an
 * error at the op where it happens, with notes naming the largest live
 * buffers.  The IR is not changed. */
#include <stdlib.h>
#include <string.h>

#include "ir/table.h"
#include "passes/cost.h"
#include "passes/pass.h"
#include "passes/walk.h"

#define BA_MAX_DEPTH 32 /* calls and regions nested deeper add nothing */

typedef struct Buf {
  const Value *v;
  double bytes; /* 0: allocates nothing (view, constant, caller's buffer) */
  int def;      /* op number of the definition; -1 for a block argument */
  int last;     /* last op number that needs it */
  int root;     /* the buffer whose memory it is (itself unless view/reuse) */
  bool view;    /* aliases all its operands (free op) */
} Buf;

typedef struct Node {
  int buf, next;
} Node;

typedef struct BlockPeak {
  double peak;  /* live bytes at the peak, constants excluded */
  int at;       /* op number of the peak (-1: on entry) */
} BlockPeak;

typedef struct BA {
  PassContext *pc;
  Table callee_peak; /* func Op* -> (double *) peak without args and results */
} BA;

/* The buffer that owns b[i]'s memory (union-find with path halving). */
static int find_root(Buf *b, int i) {
  while (b[i].root != i) {
    b[i].root = b[b[i].root].root;
    i = b[i].root;
  }
  return i;
}

/* A constant of one repeated value: materialized where it is used (as a
 * broadcast would be), not a resident weight. */
static bool is_splat_constant(const Op *o) {
  const Attr *v = op_attr(o, "value");
  return o->kind == OP_CONSTANT && v && v->kind == ATTR_DENSE && (v->u.dense.splat || dense_num_elements(v) == 1);
}

/* A free op whose results are its operands' buffers. */
static bool is_view(const Op *o) {
  switch (o->kind) {
  case OP_RESHAPE: case OP_BITCAST_CONVERT: case OP_TUPLE: case OP_GET_TUPLE_ELEMENT: case OP_OPTIMIZATION_BARRIER:
  case OP_INTERPRETER_PROBE: case OP_TPU_ASYNC_DONE:
    return cost_op_is_free(o);
  default: return false;
  }
}

/* Writes its result element by element over same-sized operands, so it
 * can write into one of them. */
static bool is_charged_elementwise(const Op *op) {
  if (op->kind == OP_TPU_FUSION) return loop_fusion_writes_in_place(op);
  return (op_info[op->kind].traits & TRAIT_ELEMENTWISE) && op->nregions == 0;
}

/* The analysis of one block: its buffers, their lifetimes after views and
 * reuse, and the live bytes at each op. */
typedef struct Live {
  const Block *blk;
  int nops;
  const Op **ops;
  Buf *bufs;
  int nbufs;
  Table index; /* Value* -> buf index + 1 */
} Live;

static int buf_of(const Live *l, const Value *v) {
  void **slot = table_get(&l->index, v, 0);
  return slot ? (int)(intptr_t)*slot - 1 : -1;
}

static void add_buf(Live *l, const Value *v, double bytes, int def, bool view) {
  int i = l->nbufs++;
  l->bufs[i] = (Buf){v, bytes, def, def, i, view};
  *table_put(&l->index, v, 0) = (void *)(intptr_t)(i + 1);
}

/* Marks every value of this block used by op (or inside its regions) as
 * needed until op number i. */
static void mark_uses(Live *l, const Op *op, int i) {
  for (int k = 0; k < op->noperands; k++) {
    int b = buf_of(l, op->operands[k]);
    if (b >= 0 && l->bufs[b].last < i) l->bufs[b].last = i;
  }
  for (int r = 0; r < op->nregions; r++)
    for (int bl = 0; bl < op->regions[r].nblocks; bl++)
      for (const Op *o = op->regions[r].blocks[bl]->first; o; o = o->next) mark_uses(l, o, i);
}

static int count_values(const Block *b, int *nops) {
  int n = b->nargs;
  *nops = 0;
  for (const Op *o = b->first; o; o = o->next) n += o->nresults, (*nops)++;
  return n;
}

/* Builds the buffers of blk with lifetimes: views extend their operands,
 * in-place reuse merges a result into a dying operand. */
static void live_build(Live *l, const Block *blk, bool charge_args, bool charge_returns) {
  memset(l, 0, sizeof *l);
  l->blk = blk;
  int nvals = count_values(blk, &l->nops);
  l->ops = xrealloc(NULL, sizeof(Op *) * (size_t)(l->nops ? l->nops : 1));
  l->bufs = xrealloc(NULL, sizeof(Buf) * (size_t)(nvals ? nvals : 1));
  for (int a = 0; a < blk->nargs; a++)
    add_buf(l, &blk->args[a], charge_args ? cost_tiled_bytes(blk->args[a].type) : 0, -1, false);
  int i = 0;
  for (const Op *o = blk->first; o; o = o->next, i++) {
    l->ops[i] = o;
    bool view = is_view(o);
    for (int r = 0; r < o->nresults; r++) {
      double bytes = view || o->kind == OP_CONSTANT ? 0 : cost_tiled_bytes(o->results[r].type);
      add_buf(l, &o->results[r], bytes, i, view);
    }
  }
  for (i = 0; i < l->nops; i++) mark_uses(l, l->ops[i], i);
  /* Views, last first: a view's lifetime extends its operands'. */
  for (int b = l->nbufs - 1; b >= 0; b--) {
    Buf *v = &l->bufs[b];
    if (!v->view) continue;
    const Op *o = v->v->def;
    int lo = 0, hi = o->noperands;
    if (o->kind == OP_OPTIMIZATION_BARRIER && v->v->index < o->noperands) lo = v->v->index, hi = lo + 1;
    for (int k = lo; k < hi; k++) {
      int s = buf_of(l, o->operands[k]);
      if (s >= 0 && l->bufs[s].last < v->last) l->bufs[s].last = v->last;
    }
    if (hi - lo == 1) {
      int s = buf_of(l, o->operands[lo]);
      if (s >= 0) v->root = s;
    }
  }
  /* In-place reuse, first to last, as the back end flags it: result 0
   * over the first dying operand of the same type (backend/lower.c). */
  for (i = 0; i < l->nops; i++) {
    const Op *o = l->ops[i];
    if (!is_charged_elementwise(o) || o->nresults == 0) continue;
    int rb = buf_of(l, &o->results[0]);
    for (int k = 0; k < o->noperands; k++) {
      int s = buf_of(l, o->operands[k]);
      if (s < 0 || o->operands[k]->type != o->results[0].type) continue;
      int root = find_root(l->bufs, s);
      Buf *src = &l->bufs[root];
      if (src->last != i || src->bytes <= 0 || src->bytes != l->bufs[rb].bytes) continue;
      src->last = l->bufs[rb].last > i ? l->bufs[rb].last : i;
      l->bufs[rb].root = root;
      l->bufs[rb].bytes = 0;
      break;
    }
  }
  /* Results handed back to the caller are the caller's buffers. */
  if (!charge_returns && l->nops && (op_info[l->ops[l->nops - 1]->kind].traits & TRAIT_TERMINATOR)) {
    const Op *t = l->ops[l->nops - 1];
    for (int k = 0; k < t->noperands; k++) {
      int s = buf_of(l, t->operands[k]);
      if (s >= 0) l->bufs[find_root(l->bufs, s)].bytes = 0;
    }
  }
}

static void live_free(Live *l) {
  free(l->ops);
  free(l->bufs);
  table_free(&l->index, NULL);
}

static double block_peak(BA *ba, const Block *b, bool charge_args, bool charge_returns, int depth, BlockPeak *out);

/* Bytes an op needs beyond its operands and results while it runs: splat
 * constants it reads, the peak of its bodies (while, if, case) or of its
 * callee. */
static double op_extra(BA *ba, const Op *op, int depth) {
  double extra = 0;
  for (int k = 0; k < op->noperands; k++)
    if (op->operands[k]->def && is_splat_constant(op->operands[k]->def)) extra += cost_tiled_bytes(op->operands[k]->type);
  if (depth >= BA_MAX_DEPTH) return extra;
  double inner = 0;
  BlockPeak bp;
  switch (op->kind) {
  case OP_WHILE: case OP_IF: case OP_CASE:
    for (int r = 0; r < op->nregions; r++)
      for (int b = 0; b < op->regions[r].nblocks; b++) {
        double p = block_peak(ba, op->regions[r].blocks[b], false, false, depth + 1, &bp);
        if (p > inner) inner = p;
      }
    return extra + inner;
  case OP_FUNC_CALL: {
    const Attr *a = op_attr(op, "callee");
    Op *f = a && a->kind == ATTR_SYMREF ? module_lookup_func(ba->pc->m, a->u.str.s) : NULL;
    if (!f || !op_body(f)) return extra;
    void **slot = table_put(&ba->callee_peak, f, 0);
    double *p = *slot;
    if (!p) {
      /* Published (as 0) before it is computed: a recursive call adds
       * nothing.  The slot moves when the table grows; p does not. */
      p = arena_alloc(&ba->pc->c->arena, sizeof(double));
      *slot = p;
      *p = block_peak(ba, op_body(f), false, false, depth + 1, &bp);
    }
    return extra + *p;
  }
  default: return extra;
  }
}

/* Peak live bytes of block b (constants excluded) and where it happens. */
static double block_peak(BA *ba, const Block *b, bool charge_args, bool charge_returns, int depth, BlockPeak *out) {
  Live l;
  live_build(&l, b, charge_args, charge_returns);
  /* Buckets of buffers by the op after which they die; slot 0 is the entry. */
  int nslots = l.nops + 1;
  int *head = xrealloc(NULL, sizeof(int) * (size_t)nslots);
  Node *nodes = xrealloc(NULL, sizeof(Node) * (size_t)(l.nbufs ? l.nbufs : 1));
  for (int s = 0; s < nslots; s++) head[s] = -1;
  double live = 0;
  for (int k = 0; k < l.nbufs; k++) {
    Buf *x = &l.bufs[k];
    nodes[k] = (Node){k, head[x->last + 1]};
    head[x->last + 1] = k;
    if (x->def < 0) live += x->bytes;
  }
  out->peak = live;
  out->at = -1;
  for (int i = -1; i < l.nops; i++) {
    if (i >= 0) {
      const Op *op = l.ops[i];
      double fresh = 0;
      for (int r = 0; r < op->nresults; r++) fresh += l.bufs[buf_of(&l, &op->results[r])].bytes;
      double candidate = live + fresh + op_extra(ba, op, depth);
      if (candidate > out->peak) out->peak = candidate, out->at = i;
      live += fresh;
    }
    for (int n = head[i + 1]; n >= 0; n = nodes[n].next) {
      Buf *x = &l.bufs[nodes[n].buf];
      if (x->root == nodes[n].buf) live -= x->bytes;
    }
  }
  free(head);
  free(nodes);
  live_free(&l);
  return out->peak;
}

/* ------------------------------------------------------------------ */
/* The error when the peak does not fit. */

typedef struct Resident {
  const Op *op; /* defining op, or the function for an argument */
  int index;    /* result or argument number */
  bool is_arg;
  const Type *type;
  double bytes;
} Resident;

static void keep_largest(Resident *top, int ntop, Resident r) {
  for (int i = 0; i < ntop; i++)
    if (r.bytes > top[i].bytes) {
      memmove(&top[i + 1], &top[i], sizeof(Resident) * (size_t)(ntop - i - 1));
      top[i] = r;
      return;
    }
}

/* The weights: every constant but splats, wherever it is. */
static double constants_in(const Block *b, Resident *top, int ntop) {
  double sum = 0;
  for (const Op *o = b->first; o; o = o->next) {
    if (o->kind == OP_CONSTANT && !is_splat_constant(o)) {
      double bytes = cost_tiled_bytes(o->results[0].type);
      sum += bytes;
      if (top) keep_largest(top, ntop, (Resident){o, 0, false, o->results[0].type, bytes});
    }
    for (int r = 0; r < o->nregions; r++)
      for (int k = 0; k < o->regions[r].nblocks; k++) sum += constants_in(o->regions[r].blocks[k], top, ntop);
  }
  return sum;
}

static void report_too_big(BA *ba, const Op *f, const BlockPeak *bp, double peak) {
  PassContext *pc = ba->pc;
  Context *c = pc->c;
  enum { NTOP = 3 };
  Resident top[NTOP] = {0};
  FOR_EACH_FUNC(pc->m, g) constants_in(op_body(g), top, NTOP);
  Live l;
  live_build(&l, op_body(f), true, true);
  for (int k = 0; k < l.nbufs; k++) {
    const Buf *x = &l.bufs[k];
    if (x->bytes <= 0 || x->def > bp->at || x->last < bp->at) continue;
    bool arg = x->def < 0;
    keep_largest(top, NTOP, (Resident){arg ? f : x->v->def, x->v->index, arg, x->v->type, x->bytes});
  }
  live_free(&l);
  const Op *at = bp->at >= 0 ? NULL : f;
  int i = 0;
  for (const Op *o = op_body(f)->first; o && !at; o = o->next, i++)
    if (i == bp->at) at = o;
  char need[32];
  cost_format_bytes(peak, need, sizeof need);
  diag_report(c, at->loc, SEV_ERROR, "program needs %s of HBM at its peak but %s has %llu GiB", need, pc->target->name,
              (unsigned long long)(pc->target->hbm_bytes >> 30));
  for (int k = 0; k < NTOP && top[k].bytes > 0; k++) {
    char size[32];
    cost_format_bytes(top[k].bytes, size, sizeof size);
    const char *ty = type_to_string(c, top[k].type);
    if (top[k].is_arg) op_note(c, top[k].op, "argument #%d (%s) is live at the peak: %s", top[k].index, ty, size);
    else if (top[k].op->kind == OP_CONSTANT) op_note(c, top[k].op, "constant (%s) is resident: %s", ty, size);
    else op_note(c, top[k].op, "result #%d (%s) is live at the peak: %s", top[k].index, ty, size);
  }
}

bool pass_buffer_assign(PassContext *pc) {
  BA ba = {.pc = pc};
  double constants = 0, best = -1;
  const Op *best_f = NULL;
  BlockPeak best_bp = {0, -1};
  FOR_EACH_FUNC(pc->m, f) {
    constants += constants_in(op_body(f), NULL, 0);
    BlockPeak bp;
    double p = block_peak(&ba, op_body(f), true, true, 0, &bp);
    if (p > best) best = p, best_f = f, best_bp = bp;
  }
  table_free(&ba.callee_peak, NULL);
  double peak = constants + (best > 0 ? best : 0);
  pc->peak_hbm_bytes = peak < 1.8e19 ? (uint64_t)peak : UINT64_MAX;
  if (best_f && peak > (double)pc->target->hbm_bytes) {
    report_too_big(&ba, best_f, &best_bp, peak);
    return false;
  }
  return true;
}
