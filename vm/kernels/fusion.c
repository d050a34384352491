/* FUSION: the body of a tpu.fusion run as one kernel.
 *
 * A "tileable" body (made only of element-wise kernels, broadcasts and
 * reshapes of its parameters and constants, where every computed value has
 * the fusion's element count N) runs tile by tile: each body value is a
 * tile of at most TILE elements, in per-worker scratch or straight in a
 * parameter or result buffer; each element-wise instruction runs its own
 * kernel (vm/kernels/kernels.h) on rank-1 views of the tile; tiles run in
 * parallel on host threads (vm/parallel.h).  Each tile computes its
 * elements with the same code whatever the thread count, so the bits never
 * depend on it.  The plan (register locations, scratch slots, broadcast
 * index maps) is decided once per instruction and kept in vm_instr_cache.
 * Results of STREAM_MIN bytes or more are computed in slots and stored
 * around the caches.  A loop fusion may write result 0 over a dying operand
 * (INPLACE): it is written at the end of each tile.
 *
 * An input fusion (such a body followed by reduces of its values) runs the
 * same tiles and folds each into the reduces as soon as it is computed
 * (vm_reduce_fold, converting to a wider reducer type), so its producer is
 * never materialized.  An output fusion (one dot_general, mxu_dot or
 * convolution of parameters, the rest tileable) computes the contraction
 * part by part (vm/kernels/fusion_dot.c: blocks of a fixed decomposition
 * on host threads, or chunks of batch images) and runs the tiles of each
 * part while it is in cache, the register of the contraction pointing into
 * the part (LOC_DOT); the results are written once.  Any other body (with
 * captures, a broadcast of a computed value, values of other counts) is
 * called once on the whole buffers, which gives the results of unfused
 * execution. */
#include <stdlib.h>
#include <string.h>

#include "vm/kernels/fusion_dot.h"
#include "vm/kernels/shape.h"
#include "vm/parallel.h"

enum {
  TILE = 4096,          /* elements per tile: a few 16 KiB f32 buffers stay in L1/L2 */
  PARALLEL_MIN = 65536, /* fewer elements run on the calling thread only */
  MAX_VALUES = 256,     /* operands / results a FUSION may have */
  STREAM_MIN = 8 << 20, /* results of at least this many bytes bypass the caches */
};

/* Where a body register's data lives. */
enum {
  LOC_INPUT,  /* parameter `index`: in[index].data */
  LOC_CONST,  /* constant bytes of the program (data) */
  LOC_SPLAT,  /* shared tile `index`, filled with one value before the tiles run */
  LOC_SLOT,   /* per-worker scratch slot `index` */
  LOC_RESULT, /* result `index`'s buffer */
  LOC_DOT,    /* an output fusion's contraction: the block being computed */
};

typedef struct FReg {
  uint8_t loc;
  bool full;    /* count == N: seen as a tile; else whole (a scalar operand or a broadcast source) */
  bool uniform; /* every element equals the first one of uparam / udata */
  int eb;       /* element bytes */
  int32_t index;
  const void *data;  /* LOC_CONST */
  int32_t uparam;    /* uniform: parameter holding the value, or -1 for udata */
  const void *udata; /* uniform: constant bytes of the value */
} FReg;

enum { STEP_KERNEL, STEP_BCAST };

/* One instruction run per tile.  A broadcast reads its source at element
 * offset sum(idx[d] * stride[d]) over the result's dims, normalised (size-1
 * dims dropped, neighbours merged); period > 0 when the outermost dim has
 * stride 0, so a tile repeats every `period` elements. */
typedef struct FStep {
  uint8_t kind;
  int rank;
  uint32_t src;
  const VmInstr *ins;
  VmExecFn fn;
  int64_t period;
  int64_t dims[TPUB_MAX_RANK];
  int64_t stride[TPUB_MAX_RANK];
} FStep;

/* A splat tile: eb-byte value of parameter param (or data when param < 0). */
typedef struct FSplat {
  int32_t param;
  int eb;
  const void *data;
} FSplat;

/* How a FUSION runs: loop tiles, tiles folded into a reduce, tiles of the
 * blocks of a contraction, or whole. */
enum { PLAN_LOOP, PLAN_INPUT, PLAN_OUTPUT, PLAN_WHOLE };

typedef struct FusionPlan {
  int kind;
  const VmInstr *reds; /* PLAN_INPUT: the nreds reduces the tiles feed */
  uint32_t nreds;
  const VmInstr *dot; /* PLAN_OUTPUT: the contraction (dot_general, mxu_dot, convolution) */
  int64_t n, tile, ntiles;
  int64_t lens[2]; /* tile length of every tile but the last, and of the last */
  bool stream;     /* results are computed in slots and stored around the caches */
  uint32_t nregs, nsteps, nslots, nsplats, nres;
  size_t slot_bytes;
  FReg *regs;
  FStep *steps;
  FSplat *splats;
  uint32_t *res_reg; /* register yielded as result j */
  VmType *views;     /* [2][nregs]: rank-1 tile views of full registers */
} FusionPlan;

/* Kernels that work element by element on any count, never trap and never
 * touch the VmExec: safe on tile views and on worker threads. */
static bool tile_kernel(VmExecFn f) {
  return f == exec_unary || f == exec_binary || f == exec_compare || f == exec_select || f == exec_clamp ||
         f == exec_convert;
}

/* ------------------------------------------------------------------ */
/* Validator */

bool check_fusion(VmCheck *c) {
  int64_t kind = vm_field_int(c->ins, 0);
  if (kind < 0 || kind > 3) return vm_check_fail(c, "fusion: kind %lld is not 0..3", (long long)kind);
  if ((c->ins->flags & TPUB_INSTR_INPLACE) && kind != 0)
    return vm_check_fail(c, "fusion: in-place flag on a kind %lld fusion (loop fusions only)", (long long)kind);
  if (c->ins->n_in > MAX_VALUES || c->ins->n_out > MAX_VALUES)
    return vm_check_fail(c, "fusion: more than %d operands or results", MAX_VALUES);
  const VmType *args[MAX_VALUES], *res[MAX_VALUES];
  for (uint32_t i = 0; i < c->ins->n_in; i++)
    if (!vm_type_is_tensor(args[i] = vm_check_in(c, i)))
      return vm_check_fail(c, "fusion: operand %u is not a tensor", i);
  for (uint32_t i = 0; i < c->ins->n_out; i++)
    if (!vm_type_is_tensor(res[i] = vm_check_out(c, i)))
      return vm_check_fail(c, "fusion: result %u is not a tensor", i);
  return vm_check_region(c, 1, (int)c->ins->n_in, args, (int)c->ins->n_out, res);
}

/* ------------------------------------------------------------------ */
/* Plan */

/* Scratch slots of the plan being built, reference counted by the
 * registers that live in them. */
typedef struct SlotState {
  uint32_t *refs, *free_list;
  uint32_t nfree, nslots;
} SlotState;

static int32_t slot_take(SlotState *s) {
  int32_t k = s->nfree ? (int32_t)s->free_list[--s->nfree] : (int32_t)s->nslots++;
  s->refs[k] = 1;
  return k;
}

static void slot_drop(SlotState *s, int32_t k) {
  if (--s->refs[k] == 0) s->free_list[s->nfree++] = (uint32_t)k;
}

/* Normalises a broadcast_in_dim of operand type it into result type ot
 * into st; false when it is the identity (the result is the operand). */
static bool bcast_map(FStep *st, const VmType *it, const VmType *ot, const int64_t *map) {
  int64_t in_stride[TPUB_MAX_RANK], src[TPUB_MAX_RANK] = {0};
  vm_row_major_strides(it->rank, it->dims, in_stride);
  for (int i = 0; i < it->rank; i++)
    if (it->dims[i] != 1) src[map[i]] = in_stride[i];
  st->rank = 0;
  for (int d = 0; d < ot->rank; d++) {
    if (ot->dims[d] == 1) continue;
    int r = st->rank;
    if (r > 0 && st->stride[r - 1] == src[d] * ot->dims[d]) {
      st->dims[r - 1] *= ot->dims[d];
      st->stride[r - 1] = src[d];
      continue;
    }
    st->dims[r] = ot->dims[d];
    st->stride[r] = src[d];
    st->rank++;
  }
  st->period = 0;
  if (st->rank > 0 && st->stride[0] == 0) {
    st->period = 1;
    for (int d = 1; d < st->rank; d++) st->period *= st->dims[d];
  }
  return !(it->count == ot->count && (st->rank == 0 || (st->rank == 1 && st->stride[0] == 1)));
}

/* The tiling of n elements into p (tile length, count, last length). */
static void plan_tiles(FusionPlan *p, int64_t n) {
  p->n = n;
  p->tile = n < TILE ? (n > 0 ? n : 1) : TILE;
  p->ntiles = (n + p->tile - 1) / p->tile;
  p->lens[0] = p->tile;
  p->lens[1] = n - (p->ntiles > 0 ? p->ntiles - 1 : 0) * p->tile;
}

/* Element sizes and shapes of every register of fn, and the parameters'
 * places; returns the largest element size. */
static int plan_registers(FusionPlan *p, const VmFunc *fn) {
  int max_eb = 1;
  for (uint32_t k = 0; k < fn->n_regs; k++) {
    FReg *g = &p->regs[k];
    g->eb = vm_elem_bytes(fn->reg_types[k]->elem);
    g->full = fn->reg_types[k]->count == p->n;
    if (g->eb > max_eb) max_eb = g->eb;
  }
  for (uint32_t k = 0; k < fn->n_params; k++) {
    FReg *g = &p->regs[k];
    g->loc = LOC_INPUT;
    g->index = (int32_t)k;
    g->uniform = fn->reg_types[k]->count == 1;
    g->uparam = (int32_t)k;
  }
  return max_eb;
}

/* A constant: a splat tile, or the program's bytes; false when its value
 * is not in the file. */
static bool plan_constant(FusionPlan *p, const VmInstr *ins, FReg *o, const VmType *ot) {
  const VmField *f = &ins->fields[0];
  if (f->flags & (VM_CONST_ELIDED | VM_CONST_NONE)) return false;
  if ((f->flags & VM_CONST_SPLAT) && ot->count > 1) {
    o->uniform = true, o->uparam = -1, o->udata = f->data;
    o->loc = LOC_SPLAT;
    o->index = (int32_t)p->nsplats;
    p->splats[p->nsplats++] = (FSplat){-1, o->eb, f->data};
  } else {
    o->loc = LOC_CONST;
    o->data = f->data;
    o->uniform = ot->count == 1, o->uparam = -1, o->udata = f->data;
  }
  return true;
}

/* A broadcast_in_dim: a splat of a uniform source, the source itself, or a
 * STEP_BCAST reading a parameter or constant (*own_tile: o needs a tile). */
static bool plan_broadcast(FusionPlan *p, const VmFunc *fn, const VmInstr *ins, FReg *o, const VmType *ot, int alias,
                           bool *own_tile) {
  const FReg *s = &p->regs[ins->in[0]];
  FStep *st = &p->steps[p->nsteps];
  int64_t nmap;
  const int64_t *map = vm_field_list(ins, 0, &nmap);
  if (!o->full) return false;
  if (s->uniform) {
    o->loc = LOC_SPLAT;
    o->index = (int32_t)p->nsplats;
    o->uniform = true, o->uparam = s->uparam, o->udata = s->udata;
    p->splats[p->nsplats++] = (FSplat){s->uparam, o->eb, s->udata};
  } else if ((s->loc != LOC_INPUT && s->loc != LOC_CONST) || (s->loc == LOC_INPUT && s->index == alias)) {
    return false; /* a computed value: its other tiles are not at hand; or overwritten */
  } else if (!bcast_map(st, fn->reg_types[ins->in[0]], ot, map)) {
    *o = *s;
    o->full = true;
  } else {
    st->kind = STEP_BCAST;
    st->ins = ins;
    st->src = ins->in[0];
    p->nsteps++;
    *own_tile = true;
  }
  return true;
}

/* An element-wise kernel as a STEP_KERNEL, in place where the interpreter
 * would run it in place (*own_tile: o needs a tile of its own). */
static bool plan_kernel(FusionPlan *p, const VmFunc *fn, SlotState *ss, const VmInstr *ins, FReg *o,
                        const int32_t *yielded, bool *own_tile) {
  bool ok = o->full;
  for (uint32_t k = 0; k < ins->n_in && ok; k++) {
    const FReg *a = &p->regs[ins->in[k]];
    /* select's predicate and clamp's bounds may be scalars */
    bool scalar_ok = (ins->opcode == VM_OP_SELECT && k == 0) || (ins->opcode == VM_OP_CLAMP && k != 1);
    ok = a->full || (scalar_ok && fn->reg_types[ins->in[k]]->rank == 0 && (a->loc == LOC_INPUT || a->loc == LOC_CONST));
  }
  FStep *st = &p->steps[p->nsteps++];
  st->kind = STEP_KERNEL;
  st->ins = ins;
  st->fn = vm_exec_table[ins->opcode];
  *own_tile = true;
  /* In place, as the interpreter would: into the slot of an operand that
   * dies here and that nothing else holds. */
  if (ok && yielded[ins->out[0]] < 0 && (ins->flags & TPUB_INSTR_INPLACE)) {
    uint32_t a = ins->in[ins->flags & 0xff];
    bool dies = false;
    for (uint32_t k = 0; k < ins->n_kill; k++) dies |= ins->kill[k] == a;
    if (dies && p->regs[a].loc == LOC_SLOT && ss->refs[p->regs[a].index] == 1) {
      o->loc = LOC_SLOT;
      o->index = p->regs[a].index;
      ss->refs[o->index]++;
      *own_tile = false;
    }
  }
  return ok;
}

/* Plans body instruction ins: where its result lives and which step
 * computes it; then frees the slots of the registers it kills.  False when
 * it cannot run tile by tile. */
static bool plan_instr(FusionPlan *p, const VmFunc *fn, SlotState *ss, const VmInstr *ins, const int32_t *yielded,
                       int alias) {
  if (ins->n_out != 1) return false;
  FReg *o = &p->regs[ins->out[0]];
  const VmType *ot = fn->reg_types[ins->out[0]];
  bool ok, own_tile = false; /* o needs a slot or its result buffer */
  if (ins == p->dot) {
    ok = o->full;
    o->loc = LOC_DOT;
  } else if (ins->opcode == VM_OP_CONSTANT) {
    ok = plan_constant(p, ins, o, ot);
  } else if (ins->opcode == VM_OP_RESHAPE) {
    bool full = o->full;
    *o = p->regs[ins->in[0]];
    o->full = full;
    if (o->loc == LOC_SLOT) ss->refs[o->index]++;
    ok = true;
  } else if (ins->opcode == VM_OP_BROADCAST_IN_DIM) {
    ok = plan_broadcast(p, fn, ins, o, ot, alias, &own_tile);
  } else if (tile_kernel(vm_exec_table[ins->opcode])) {
    ok = plan_kernel(p, fn, ss, ins, o, yielded, &own_tile);
  } else {
    ok = false;
  }
  if (!ok) return false;
  if (own_tile) {
    if (yielded[ins->out[0]] >= 0) {
      o->loc = LOC_RESULT;
      o->index = yielded[ins->out[0]];
    } else {
      o->loc = LOC_SLOT;
      o->index = slot_take(ss);
    }
  }
  for (uint32_t k = 0; k < ins->n_kill; k++) {
    const FReg *g = &p->regs[ins->kill[k]];
    if (g->loc == LOC_SLOT) slot_drop(ss, g->index);
  }
  return true;
}

/* The rank-1 views of every register over a whole tile and the last one. */
static void plan_views(FusionPlan *p, const VmFunc *fn) {
  for (int k = 0; k < 2; k++)
    for (uint32_t g = 0; g < fn->n_regs; g++) {
      const VmType *t = fn->reg_types[g];
      p->views[k * fn->n_regs + g] = (VmType){.kind = TPUB_TY_TENSOR,
                                              .elem = t->elem,
                                              .rank = 1,
                                              .dims = &p->lens[k],
                                              .count = p->lens[k],
                                              .nbytes = p->lens[k] * p->regs[g].eb};
    }
}

/* Decides how to run the first `end` instructions of body fn tile by tile,
 * computing registers yield[0..nyield) (into the results when to_results);
 * false when they cannot be.  alias >= 0: result 0 may be parameter
 * alias's buffer (an in-place FUSION), so it is written only at the end of
 * each tile, and nothing may read that parameter outside its tile. */
static bool plan_body(FusionPlan *p, const VmFunc *fn, SlotState *ss, uint32_t end, const uint32_t *yield,
                      uint32_t nyield, bool to_results, int alias) {
  if (nyield == 0) return false;
  int64_t n = fn->reg_types[yield[0]]->count;
  for (uint32_t j = 0; j < nyield; j++)
    if (fn->reg_types[yield[j]]->count != n) return false;
  for (uint32_t k = 0; k < fn->n_regs; k++)
    if (!vm_type_is_tensor(fn->reg_types[k])) return false;
  plan_tiles(p, n);
  /* The first result each register is yielded as, or -1. */
  int32_t *yielded = calloc(fn->n_regs + 1, sizeof(int32_t));
  if (!yielded) return false;
  for (uint32_t k = 0; k < fn->n_regs; k++) yielded[k] = -1;
  for (uint32_t j = nyield; to_results && j-- > (alias >= 0 ? 1u : 0u);) yielded[yield[j]] = (int32_t)j;
  int max_eb = plan_registers(p, fn);
  bool ok = true;
  for (uint32_t i = 0; i < end && ok; i++) ok = plan_instr(p, fn, ss, &fn->instrs[i], yielded, alias);
  for (uint32_t j = 0; ok && j < nyield; j++) {
    p->res_reg[j] = yield[j];
    ok = p->regs[yield[j]].full;
  }
  free(yielded);
  if (!ok) return false;
  p->nres = nyield;
  p->nslots = ss->nslots;
  p->slot_bytes = ((size_t)p->tile * (size_t)max_eb + 63) & ~(size_t)63;
  plan_views(p, fn);
  return true;
}

/* Whether instruction `first` or a later one before `end` writes reg. */
static bool written_in(const VmFunc *fn, uint32_t first, uint32_t end, uint32_t reg) {
  for (uint32_t i = first; i < end; i++)
    for (uint32_t j = 0; j < fn->instrs[i].n_out; j++)
      if (fn->instrs[i].out[j] == reg) return true;
  return false;
}

/* An input fusion's body: tileable producers, then reduces of their
 * values (init values from parameters or constants; nothing from another
 * reduce) whose results, in order, are the body's; false for any other
 * body. */
static bool plan_input(FusionPlan *p, const VmFunc *fn, SlotState *ss) {
  const VmInstr *ret = &fn->instrs[fn->n_instrs - 1];
  uint32_t end = fn->n_instrs - 1, nyield = 0, nres = 0;
  while (end > 0 && fn->instrs[end - 1].opcode == VM_OP_REDUCE) end--;
  uint32_t nreds = fn->n_instrs - 1 - end;
  uint32_t *yield = malloc(sizeof(uint32_t) * (fn->n_regs + 1));
  bool ok = nreds > 0 && yield;
  for (uint32_t k = 0; ok && k < nreds; k++) {
    const VmInstr *red = &fn->instrs[end + k];
    for (uint32_t j = 0; ok && j < red->n_out; j++, nres++) {
      ok = nres < ret->n_in && ret->in[nres] == red->out[j] && nyield < fn->n_regs &&
           !written_in(fn, end, end + k, red->in[j]) && !written_in(fn, end, end + k, red->in[red->n_out + j]);
      if (ok) yield[nyield++] = red->in[j];
    }
    ok = ok && vm_reduce_foldable(red);
  }
  ok = ok && nres == ret->n_in && plan_body(p, fn, ss, end, yield, nyield, false, -1);
  free(yield);
  for (uint32_t k = 0; ok && k < nreds; k++) {
    const VmInstr *red = &fn->instrs[end + k];
    for (uint32_t j = 0; ok && j < red->n_out; j++) {
      const FReg *g = &p->regs[red->in[red->n_out + j]];
      ok = !g->full && (g->loc == LOC_INPUT || g->loc == LOC_CONST);
    }
  }
  p->reds = &fn->instrs[end];
  p->nreds = nreds;
  return ok;
}

/* A loop fusion's body; results of STREAM_MIN bytes or more are computed
 * in slots and stored around the caches at the end of each tile. */
static bool plan_loop(FusionPlan *p, const VmFunc *fn, SlotState *ss, int alias) {
  const VmInstr *ret = &fn->instrs[fn->n_instrs - 1];
  int64_t bytes = 0;
  for (uint32_t j = 0; j < ret->n_in; j++) bytes += fn->reg_types[ret->in[j]]->nbytes;
  p->stream = bytes >= STREAM_MIN;
  return plan_body(p, fn, ss, fn->n_instrs - 1, ret->in, ret->n_in, !p->stream, alias);
}

/* Whether body fn holds a contraction (dot_general, mxu_dot,
 * convolution); p->dot is set when it is the only one, of parameters, of
 * element types the block-wise run takes. */
static bool find_contraction(FusionPlan *p, const VmFunc *fn) {
  int found = 0;
  const VmInstr *dot = NULL;
  for (uint32_t i = 0; i + 1 < fn->n_instrs; i++) {
    const VmInstr *ins = &fn->instrs[i];
    if (ins->opcode == VM_OP_DOT_GENERAL || ins->opcode == VM_OP_MXU_DOT || ins->opcode == VM_OP_CONVOLUTION)
      found++, dot = ins;
  }
  if (found != 1 || dot->n_in != 2 || dot->in[0] >= fn->n_params || dot->in[1] >= fn->n_params) return found > 0;
  const VmType *lt = fn->reg_types[dot->in[0]], *rt = fn->reg_types[dot->in[1]], *ot = fn->reg_types[dot->out[0]];
  if (dot->opcode == VM_OP_CONVOLUTION || fusion_dot_supported(dot, lt, rt, ot)) p->dot = dot;
  return true;
}

/* An output fusion's body (find_contraction found p->dot): every other
 * instruction tileable, computed per block of the contraction. */
static bool plan_output(FusionPlan *p, const VmFunc *fn, SlotState *ss) {
  const VmInstr *ret = &fn->instrs[fn->n_instrs - 1];
  return p->dot && plan_body(p, fn, ss, fn->n_instrs - 1, ret->in, ret->n_in, true, -1);
}

/* A plan in one malloc'ed block (vm_instr_cache frees it), or NULL when
 * out of memory.  alias: as plan_body. */
static FusionPlan *plan_build(const VmFunc *fn, const VmRegion *r, int64_t kind, int alias) {
  size_t nr = fn->n_regs + 1, ni = fn->n_instrs + 1;
  size_t size = sizeof(FusionPlan) + nr * sizeof(FReg) + ni * sizeof(FStep) + ni * sizeof(FSplat) +
                (fn->n_results + 1) * sizeof(uint32_t) + 2 * nr * sizeof(VmType) + 64;
  char *b = calloc(1, size);
  uint32_t *slot_mem = calloc(2 * nr, sizeof(uint32_t));
  if (!b || !slot_mem) {
    free(b);
    free(slot_mem);
    return NULL;
  }
  FusionPlan *p = (FusionPlan *)b;
  char *q = b + sizeof(FusionPlan);
  /* The arrays follow the header, each aligned for its type. */
#define TAKE(field, type, count)                                                         \
  do {                                                                                   \
    q = (char *)(((uintptr_t)q + _Alignof(type) - 1) & ~(uintptr_t)(_Alignof(type) - 1)); \
    p->field = (type *)q;                                                                \
    q += (count) * sizeof(type);                                                         \
  } while (0)
  TAKE(regs, FReg, nr);
  TAKE(steps, FStep, ni);
  TAKE(splats, FSplat, ni);
  TAKE(res_reg, uint32_t, fn->n_results + 1);
  TAKE(views, VmType, 2 * nr);
#undef TAKE
  p->nregs = fn->n_regs;
  SlotState ss = {.refs = slot_mem, .free_list = slot_mem + nr};
  p->kind = PLAN_WHOLE;
  /* One attempt at most: a failed one leaves its state behind. */
  bool contraction = !r->ncaps && kind != 1 && find_contraction(p, fn);
  if (!r->ncaps && kind == 1 && plan_input(p, fn, &ss)) p->kind = PLAN_INPUT;
  else if (contraction && plan_output(p, fn, &ss)) p->kind = PLAN_OUTPUT;
  else if (!r->ncaps && kind != 1 && !contraction && plan_loop(p, fn, &ss, alias)) p->kind = PLAN_LOOP;
  free(slot_mem);
  return p;
}

/* ------------------------------------------------------------------ */
/* Tiles */

typedef struct TileRun {
  const FusionPlan *p;
  VmExec *x;
  const VmFunc *fn;
  const VmTensor *in;
  const VmTensor *out;
  char *splat_mem; /* nsplats tiles */
  char *work;      /* per worker: nslots slots, then nregs pointers (input: and nregs views) */
  size_t work_bytes;
  VmReduceFold **folds; /* input fusions: the reduces the tiles are folded into */
  int64_t per_task;   /* input fusions: elements per task */
  bool *fold_trapped; /* input fusions: the reduce's body trapped (one worker only) */
} TileRun;

/* Copies n elements of eb bytes from src, step stride, to contiguous dst. */
static void copy_strided(char *dst, const char *src, int64_t stride, int64_t n, int eb) {
#define STRIDED(T)                                                             \
  {                                                                            \
    T *d = (T *)dst;                                                           \
    const T *s = (const T *)src;                                               \
    for (int64_t k = 0; k < n; k++) memcpy(&d[k], &s[k * stride], sizeof(T));  \
    return;                                                                    \
  }
  switch (eb) {
  case 1: STRIDED(uint8_t)
  case 2: STRIDED(uint16_t)
  case 4: STRIDED(uint32_t)
  case 8: STRIDED(uint64_t)
  default:
    for (int64_t k = 0; k < n; k++) memcpy(dst + k * eb, src + k * stride * eb, (size_t)eb);
    return;
  }
#undef STRIDED
}

/* Writes elements [s, s + m) of the broadcast of src into dst by walking
 * the result index (an odometer over the normalised dims). */
static void bcast_walk(const FStep *st, const char *src, char *dst, int64_t s, int64_t m, int eb) {
  if (st->rank == 0) {
    vm_fill_elems(dst, eb, m, src);
    return;
  }
  int64_t idx[TPUB_MAX_RANK], off = 0, rem = s;
  for (int d = st->rank - 1; d >= 0; d--) {
    idx[d] = rem % st->dims[d];
    rem /= st->dims[d];
    off += idx[d] * st->stride[d];
  }
  const int in = st->rank - 1;
  const int64_t is = st->stride[in];
  while (m > 0) {
    int64_t run = st->dims[in] - idx[in] < m ? st->dims[in] - idx[in] : m;
    if (is == 1) memcpy(dst, src + off * eb, (size_t)(run * eb));
    else if (is == 0) vm_fill_elems(dst, eb, run, src + off * eb);
    else copy_strided(dst, src + off * eb, is, run, eb);
    dst += run * eb;
    m -= run;
    idx[in] += run;
    off += run * is;
    for (int d = in; d > 0 && idx[d] == st->dims[d]; d--) {
      off += st->stride[d - 1] - idx[d] * st->stride[d];
      idx[d] = 0;
      idx[d - 1]++;
    }
  }
}

/* Elements [s, s + m) of a broadcast; a periodic tile is written once per
 * period and then copied in doubling blocks. */
static void bcast_fill(const FStep *st, const char *src, char *dst, int64_t s, int64_t m, int eb) {
  int64_t first = st->period > 0 && st->period < m ? st->period : m;
  bcast_walk(st, src, dst, s, first, eb);
  for (int64_t done = first; done < m;) {
    int64_t c = done < m - done ? done : m - done;
    memcpy(dst + done * eb, dst, (size_t)(c * eb));
    done += c;
  }
}

/* Where register g's data starts for the tile at element s (whole-value
 * start for registers that are not full); dot: the contraction's tile. */
static void *reg_data(const TileRun *R, const FReg *g, int64_t s, char *slots, void *dot) {
  int64_t off = g->full ? s * g->eb : 0;
  switch (g->loc) {
  case LOC_INPUT: return (char *)R->in[g->index].data + off;
  case LOC_CONST: return (char *)g->data + off;
  case LOC_SPLAT: return R->splat_mem + (size_t)g->index * R->p->slot_bytes;
  case LOC_SLOT: return slots + (size_t)g->index * R->p->slot_bytes;
  case LOC_DOT: return dot;
  default: return (char *)R->out[g->index].data + off;
  }
}

/* Computes the body's steps for elements [s, s + len) (views: the rank-1
 * tile types of the full registers); ptr[g] is where register g's data of
 * the tile is. */
static int run_steps(const TileRun *R, char *slots, void **ptr, const VmType *views, int64_t s, int64_t len,
                     void *dot) {
  const FusionPlan *p = R->p;
  for (uint32_t g = 0; g < p->nregs; g++) ptr[g] = reg_data(R, &p->regs[g], s, slots, dot);
  for (uint32_t k = 0; k < p->nsteps; k++) {
    const FStep *st = &p->steps[k];
    const VmInstr *ins = st->ins;
    uint32_t o = ins->out[0];
    if (st->kind == STEP_BCAST) {
      bcast_fill(st, reg_data(R, &p->regs[st->src], 0, slots, dot), ptr[o], s, len, p->regs[o].eb);
      continue;
    }
    VmTensor tin[3], tout = {&views[o], ptr[o]};
    for (uint32_t a = 0; a < ins->n_in && a < 3; a++) {
      uint32_t g = ins->in[a];
      tin[a] = (VmTensor){p->regs[g].full ? &views[g] : R->fn->reg_types[g], ptr[g]};
    }
    if (st->fn(R->x, ins, tin, &tout) != VM_OK) return VM_TRAP;
  }
  return VM_OK;
}

/* Writes the results of the tile at element s (ptr: as run_steps left it)
 * that are not computed in place. */
static void store_results(const TileRun *R, void *const *ptr, int64_t s, int64_t len) {
  const FusionPlan *p = R->p;
  /* Result 0 last: it may be written over a parameter another result reads. */
  for (uint32_t j = p->nres; j-- > 0;) {
    uint32_t g = p->res_reg[j];
    char *dst = (char *)R->out[j].data + s * p->regs[g].eb;
    if (ptr[g] == dst) continue;
    if (p->stream) vm_stream_copy(dst, ptr[g], (size_t)(len * p->regs[g].eb));
    else memcpy(dst, ptr[g], (size_t)(len * p->regs[g].eb));
  }
  if (p->stream) vm_stream_fence();
}

/* The rank-1 views of len elements in the work area of a worker whose
 * slots are at `slots` (run_input_task and the output fusions' layout:
 * slots, nregs pointers, nregs views, the length). */
static const VmType *worker_views(const TileRun *R, char *slots, int64_t len) {
  const FusionPlan *p = R->p;
  VmType *views = (VmType *)(slots + (size_t)p->nslots * p->slot_bytes + (size_t)p->nregs * sizeof(void *));
  int64_t *cell = (int64_t *)(views + p->nregs);
  *cell = len;
  for (uint32_t g = 0; g < p->nregs; g++) {
    views[g] = p->views[g];
    views[g].dims = cell;
    views[g].count = len;
    views[g].nbytes = len * p->regs[g].eb;
  }
  return views;
}

/* Work bytes per worker of worker_views' layout. */
static size_t view_work_bytes(const FusionPlan *p) {
  return ((size_t)p->nslots * p->slot_bytes + (size_t)p->nregs * (sizeof(void *) + sizeof(VmType)) + sizeof(int64_t) +
          63) &
         ~(size_t)63;
}

/* Runs tile t of a loop fusion on the scratch of `worker` (a VmTaskFn). */
static int run_tile(void *ctx, int worker, int64_t t) {
  const TileRun *R = ctx;
  const FusionPlan *p = R->p;
  const int64_t s = t * p->tile;
  const bool last = t == p->ntiles - 1;
  const int64_t len = p->lens[last];
  char *slots = R->work + (size_t)worker * R->work_bytes;
  void **ptr = (void **)(slots + (size_t)p->nslots * p->slot_bytes);
  if (run_steps(R, slots, ptr, p->views + (last ? p->nregs : 0), s, len, NULL) != VM_OK) return VM_TRAP;
  store_results(R, ptr, s, len);
  return VM_OK;
}

/* Scratch for R (splat tiles, then `workers` work areas of R->work_bytes),
 * the splat tiles filled; NULL after a trap. */
static char *tiles_alloc(VmExec *x, TileRun *R, int workers, size_t *total) {
  const FusionPlan *p = R->p;
  size_t splat_bytes = (size_t)p->nsplats * p->slot_bytes;
  *total = splat_bytes + (size_t)workers * R->work_bytes;
  char *mem = vm_tile_alloc(x, *total);
  if (!mem) {
    vm_trap(x, "out of memory: %zu bytes of fusion tiles", *total);
    return NULL;
  }
  R->splat_mem = mem;
  R->work = mem + splat_bytes;
  for (uint32_t k = 0; k < p->nsplats; k++) {
    const FSplat *sp = &p->splats[k];
    const void *v = sp->param >= 0 ? R->in[sp->param].data : sp->data;
    vm_fill_elems(R->splat_mem + (size_t)k * p->slot_bytes, sp->eb, p->tile, v);
  }
  return mem;
}

/* Runs ntasks tasks of fn, on host threads when workers > 1. */
static int run_tasks(VmExec *x, int workers, int64_t ntasks, VmTaskFn fn, void *ctx) {
  if (workers > 1) return vm_parallel_for(x, ntasks, fn, ctx);
  int rc = VM_OK;
  for (int64_t t = 0; t < ntasks && rc == VM_OK; t++) rc = fn(ctx, 0, t);
  return rc;
}

static int run_tiled(VmExec *x, const FusionPlan *p, const VmFunc *fn, const VmTensor *in, const VmTensor *out) {
  if (p->n == 0) return VM_OK;
  int workers = p->n >= PARALLEL_MIN ? vm_parallel_workers(x, p->ntiles) : 1;
  TileRun R = {.p = p, .x = x, .fn = fn, .in = in, .out = out};
  R.work_bytes = ((size_t)p->nslots * p->slot_bytes + (size_t)p->nregs * sizeof(void *) + 63) & ~(size_t)63;
  size_t total;
  char *mem = tiles_alloc(x, &R, workers, &total);
  if (!mem) return VM_TRAP;
  int rc = run_tasks(x, workers, p->ntiles, run_tile, &R);
  vm_tile_free(x, mem, total);
  return rc == VM_OK ? VM_OK : vm_trap(x, "fusion: a tile kernel failed");
}

/* Task t of an input fusion: its elements tile by tile, each tile folded
 * into the reduce as soon as it is computed (a VmTaskFn). */
static int run_input_task(void *ctx, int worker, int64_t t) {
  const TileRun *R = ctx;
  const FusionPlan *p = R->p;
  char *slots = R->work + (size_t)worker * R->work_bytes;
  void **ptr = (void **)(slots + (size_t)p->nslots * p->slot_bytes);
  int64_t end = (t + 1) * R->per_task < p->n ? (t + 1) * R->per_task : p->n, len;
  for (int64_t s = t * R->per_task; s < end; s += len) {
    len = end - s < p->tile ? end - s : p->tile;
    if (run_steps(R, slots, ptr, worker_views(R, slots, len), s, len, NULL) != VM_OK) return VM_TRAP;
    /* The products are the reduces' inputs, in order. */
    for (uint32_t k = 0, j = 0; k < p->nreds; j += p->reds[k].n_out, k++) {
      const void *data[MAX_VALUES];
      for (uint32_t i = 0; i < p->reds[k].n_out; i++) data[i] = ptr[p->res_reg[j + i]];
      if (vm_reduce_fold(R->folds[k], data, s, len) != VM_OK) return *R->fold_trapped = true, VM_TRAP;
    }
  }
  return VM_OK;
}

/* Begins the folds of the input fusion R runs (traps when out of
 * memory); returns the block of the folds (vm_reduce_fold_block), -1 after
 * a trap. */
static int64_t folds_begin(TileRun *R, const VmFunc *fn, VmTensor *out) {
  const FusionPlan *p = R->p;
  int64_t block = 1;
  for (uint32_t k = 0; k < p->nreds; k++) {
    const VmInstr *red = &p->reds[k];
    VmTensor init[MAX_VALUES];
    const VmType *types[MAX_VALUES];
    for (uint32_t j = 0; j < red->n_out; j++) {
      uint32_t g = red->in[red->n_out + j];
      init[j] = (VmTensor){fn->reg_types[g], reg_data(R, &p->regs[g], 0, NULL, NULL)};
      types[j] = fn->reg_types[red->in[j]];
    }
    if (!(R->folds[k] = vm_reduce_fold_begin(R->x, red, types, init, out))) return -1;
    out += red->n_out;
    /* Blocks are suffix products of the dims: the largest is a multiple of the others. */
    int64_t b = vm_reduce_fold_block(R->folds[k], p->n);
    if (b > block) block = b;
  }
  return block;
}

/* An input fusion: the reduces fold the producer's tiles, never the whole
 * producer.  Tasks are blocks of the input whose results are disjoint
 * (vm_reduce_fold_block), so they may run on host threads; within a task
 * the tiles are folded in row-major order, as exec_reduce folds. */
static int run_input(VmExec *x, const FusionPlan *p, const VmFunc *fn, const VmTensor *in, VmTensor *out) {
  bool fold_trapped = false;
  VmReduceFold *folds[MAX_VALUES] = {NULL};
  TileRun R = {.p = p, .x = x, .fn = fn, .in = in, .out = out, .folds = folds, .fold_trapped = &fold_trapped};
  int64_t block = folds_begin(&R, fn, out);
  int rc = block < 0 ? VM_TRAP : VM_OK;
  if (rc == VM_OK && p->n > 0) {
    R.per_task = block >= p->tile ? block : (p->tile / block) * block;
    int64_t ntasks = (p->n + R.per_task - 1) / R.per_task;
    int workers = block < p->n && p->n >= PARALLEL_MIN ? vm_parallel_workers(x, ntasks) : 1;
    R.work_bytes = view_work_bytes(p);
    size_t total;
    char *mem = tiles_alloc(x, &R, workers, &total);
    rc = mem ? run_tasks(x, workers, ntasks, run_input_task, &R) : VM_TRAP;
    if (mem) vm_tile_free(x, mem, total);
    if (mem && rc != VM_OK && !fold_trapped) rc = vm_trap(x, "fusion: a tile kernel failed");
  }
  for (uint32_t k = 0; k < p->nreds && folds[k]; k++) vm_reduce_fold_end(folds[k], rc == VM_OK);
  return rc;
}

/* The epilogue of an output fusion over one part of the contraction's
 * result: rows x cols elements at dot (row r at dot + r * ld elements),
 * which are the result's elements first + r * row + c. */
static int run_epilogue(const TileRun *R, int worker, const char *dot, int64_t ld, int64_t first, int64_t row,
                        int64_t rows, int64_t cols) {
  const FusionPlan *p = R->p;
  char *slots = R->work + (size_t)worker * R->work_bytes;
  void **ptr = (void **)(slots + (size_t)p->nslots * p->slot_bytes);
  size_t eb = (size_t)p->regs[p->dot->out[0]].eb;
  if (cols == row && ld == cols) cols *= rows, rows = 1; /* whole rows: one contiguous run */
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < cols; c += p->tile) {
      int64_t len = cols - c < p->tile ? cols - c : p->tile, s = first + r * row + c;
      void *at = (void *)(dot + (size_t)(r * ld + c) * eb);
      if (run_steps(R, slots, ptr, worker_views(R, slots, len), s, len, at) != VM_OK) return VM_TRAP;
      store_results(R, ptr, s, len);
    }
  return VM_OK;
}

/* A block of the contraction (a FusionBlockFn): its epilogue. */
static int dot_block(void *ctx, int worker, const void *block, int64_t ld, int64_t first, int64_t row, int64_t rows,
                     int64_t cols) {
  return run_epilogue(ctx, worker, block, ld, first, row, rows, cols);
}

/* An output fusion's run: the tiles' state and the contraction. */
typedef struct OutputRun {
  TileRun R;
  FusionDot d;
  const char *chunk; /* convolution: the chunk's images */
  int64_t chunk_first, chunk_n;
} OutputRun;

/* Task t of a dot output fusion (a VmTaskFn). */
static int dot_task(void *ctx, int worker, int64_t t) {
  OutputRun *o = ctx;
  return fusion_dot_task(&o->d, worker, t, dot_block, &o->R);
}

/* Tile t of a convolution chunk's epilogue (a VmTaskFn). */
static int conv_task(void *ctx, int worker, int64_t t) {
  const OutputRun *o = ctx;
  int64_t s = t * o->R.p->tile, len = o->chunk_n - s < o->R.p->tile ? o->chunk_n - s : o->R.p->tile;
  size_t eb = (size_t)o->R.p->regs[o->R.p->dot->out[0]].eb;
  return run_epilogue(&o->R, worker, o->chunk + (size_t)s * eb, len, o->chunk_first + s, len, 1, len);
}

/* A convolution output fusion: chunks of whole images (fusion_conv_chunk)
 * computed in turn, each one's epilogue run tile by tile on up to
 * `workers` host threads while the chunk is in cache. */
static int run_conv(VmExec *x, OutputRun *o, const VmTensor *args, const VmType *ot, int workers) {
  const FusionPlan *p = o->R.p;
  int64_t per = fusion_conv_chunk(p->dot, args[0].type, ot), batch = ot->dims[0];
  if (ot->count == 0) return VM_OK;
  int64_t image = ot->count / batch;
  size_t bytes = (size_t)(per * image) * (size_t)p->regs[p->dot->out[0]].eb + 1;
  char *chunk = vm_scratch_alloc(x, bytes);
  if (!chunk) return vm_trap(x, "out of memory: convolution chunk (%zu bytes)", bytes);
  int rc = VM_OK;
  for (int64_t b = 0; b < batch && rc == VM_OK; b += per) {
    int64_t count = batch - b < per ? batch - b : per;
    rc = fusion_conv_images(x, p->dot, args, ot, b, count, chunk);
    o->chunk = chunk, o->chunk_first = b * image, o->chunk_n = count * image;
    int64_t ntiles = (o->chunk_n + p->tile - 1) / p->tile;
    if (rc == VM_OK && run_tasks(x, o->chunk_n >= PARALLEL_MIN ? workers : 1, ntiles, conv_task, o) != VM_OK)
      rc = vm_trap(x, "fusion: a tile kernel failed");
  }
  vm_scratch_free(x, chunk, bytes);
  return rc;
}

/* An output fusion: the contraction block by block (or chunk by chunk),
 * the epilogue applied to each part as soon as it is computed, the results
 * written once; the contraction's result is never materialized whole. */
static int run_output(VmExec *x, const FusionPlan *p, const VmFunc *fn, const VmTensor *in, VmTensor *out) {
  if (p->n == 0) return VM_OK;
  const VmInstr *dot = p->dot;
  const VmTensor args[2] = {in[dot->in[0]], in[dot->in[1]]};
  const VmType *ot = fn->reg_types[dot->out[0]];
  OutputRun o = {.R = {.p = p, .x = x, .fn = fn, .in = in, .out = out}};
  bool conv = dot->opcode == VM_OP_CONVOLUTION;
  /* Scratch for every worker vm_parallel_for may start. */
  int workers = vm_parallel_workers(x, INT64_MAX);
  if (conv && p->n < PARALLEL_MIN) workers = 1;
  o.R.work_bytes = view_work_bytes(p);
  size_t total;
  char *mem = tiles_alloc(x, &o.R, workers, &total);
  if (!mem) return VM_TRAP;
  int rc;
  if (conv) {
    rc = run_conv(x, &o, args, ot, workers);
  } else {
    rc = fusion_dot_begin(&o.d, x, dot, args, ot, workers);
    if (rc == VM_OK && run_tasks(x, fusion_dot_workers(&o.d), fusion_dot_ntasks(&o.d), dot_task, &o) != VM_OK)
      rc = vm_trap(x, "fusion: a block of the contraction failed");
    fusion_dot_end(&o.d);
  }
  vm_tile_free(x, mem, total);
  return rc;
}

int exec_fusion(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  const VmRegion *r = &ins->fields[1].regions[0];
  const VmFunc *fn = vm_region_func(x, r);
  void **slot = vm_instr_cache(x);
  int alias = ins->flags & TPUB_INSTR_INPLACE ? (int)(ins->flags & 0xff) : -1;
  if (!slot || (!*slot && !(*slot = plan_build(fn, r, vm_field_int(ins, 0), alias))))
    return vm_trap(x, "out of host memory planning a fusion");
  const FusionPlan *p = *slot;
  if (p->kind == PLAN_LOOP) return run_tiled(x, p, fn, in, out);
  if (p->kind == PLAN_INPUT) return run_input(x, p, fn, in, out);
  if (p->kind == PLAN_OUTPUT) return run_output(x, p, fn, in, out);
  VmTensor res[MAX_VALUES];
  for (uint32_t j = 0; j < ins->n_out; j++) res[j] = out[j];
  return vm_call_region(x, r, in, (int)ins->n_in, res);
}
