/* gather and scatter with the full StableHLO semantics: batching dimensions,
 * an implicit trailing index vector dimension, gather start indices clamped
 * so the slice fits, scatter windows that do not fit dropped whole (as XLA
 * does), and the scatter update region recognised as a vectorizable binary
 * op or an overwrite before falling back to one region call per element.
 * The data movement itself uses the copy plans of vm/kernels/shape.h. */
#include <inttypes.h>
#include <string.h>

#include "vm/kernels/shape.h"
#include "vm/parallel.h"

/* Fields of GATHER and SCATTER (vm/opcodes.def); the first six agree. */
enum { F_WINDOW, F_COLLAPSED, F_OPERAND_BATCH, F_INDICES_BATCH, F_INDEX_MAP, F_INDEX_VECTOR_DIM };
enum { G_SLICE_SIZES = 6 };
enum { S_UPDATE = 8 };

/* Gathers of at least GATHER_PARALLEL_MIN result bytes run on host threads
 * in tasks of about GATHER_TASK_BYTES. */
enum { GATHER_PARALLEL_MIN = 1 << 21, GATHER_TASK_BYTES = 1 << 18 };
/* Contiguous windows up to this size are prefetched one ahead. */
enum { PREFETCH_MAX = 1 << 14 };

/* The dimension numbers: gather names / scatter names. */
typedef struct IndexDims {
  const int64_t *window;    /* offset_dims / update_window_dims */
  const int64_t *collapsed; /* collapsed_slice_dims / inserted_window_dims */
  const int64_t *obatch;    /* operand_batching_dims / input_batching_dims */
  const int64_t *ibatch;    /* start_indices_batching_dims / scatter_indices_batching_dims */
  const int64_t *map;       /* start_index_map / scatter_dims_to_operand_dims */
  int64_t n_window, n_collapsed, n_obatch, n_ibatch, n_map;
  int64_t ivd; /* index_vector_dim */
} IndexDims;

static void read_index_dims(const VmInstr *ins, IndexDims *d) {
  d->window = vm_field_list(ins, F_WINDOW, &d->n_window);
  d->collapsed = vm_field_list(ins, F_COLLAPSED, &d->n_collapsed);
  d->obatch = vm_field_list(ins, F_OPERAND_BATCH, &d->n_obatch);
  d->ibatch = vm_field_list(ins, F_INDICES_BATCH, &d->n_ibatch);
  d->map = vm_field_list(ins, F_INDEX_MAP, &d->n_map);
  d->ivd = vm_field_int(ins, F_INDEX_VECTOR_DIM);
}

static bool contains(const int64_t *v, int64_t n, int64_t x) {
  for (int64_t i = 0; i < n; i++)
    if (v[i] == x) return true;
  return false;
}

/* The operand dimension is collapsed/inserted or a batching dimension:
 * not part of the window. */
static bool outside_window(const IndexDims *d, int64_t dim) {
  return contains(d->collapsed, d->n_collapsed, dim) || contains(d->obatch, d->n_obatch, dim);
}

/* Position, among the batch (gather) or scatter (scatter) dimensions, of
 * indices dimension idim (which is not the index vector dimension). */
static int batch_position(int64_t idim, int64_t ivd) { return (int)(idim < ivd ? idim : idim - 1); }

/* Checks the dimension numbers shared by gather (C1-C19) and scatter
 * (C2, C7-C22) against the operand, the indices and the rank of the tensor
 * holding the window dimensions (gather: result, scatter: updates). */
static bool check_index_dims(VmCheck *c, const IndexDims *d, const VmType *op, const VmType *idx, int window_rank,
                             const char *const names[6]) {
  const char *opn = vm_shape_opname(c);
  int r = op->rank, ri = idx->rank;
  if (!vm_shape_dim_list(c, names[F_WINDOW], d->window, d->n_window, window_rank, true) ||
      !vm_shape_dim_list(c, names[F_COLLAPSED], d->collapsed, d->n_collapsed, r, true) ||
      !vm_shape_dim_list(c, names[F_OPERAND_BATCH], d->obatch, d->n_obatch, r, true) ||
      !vm_shape_dim_list(c, names[F_INDEX_MAP], d->map, d->n_map, r, false))
    return false;
  for (int64_t i = 0; i < d->n_obatch; i++) {
    if (contains(d->collapsed, d->n_collapsed, d->obatch[i]))
      return vm_check_fail(c, "%s: dimension %" PRId64 " is in both %s and %s", opn, d->obatch[i], names[F_COLLAPSED],
                           names[F_OPERAND_BATCH]);
    if (contains(d->map, d->n_map, d->obatch[i]))
      return vm_check_fail(c, "%s: dimension %" PRId64 " is in both %s and %s", opn, d->obatch[i], names[F_INDEX_MAP],
                           names[F_OPERAND_BATCH]);
  }
  if (d->n_window + d->n_collapsed + d->n_obatch != r)
    return vm_check_fail(c, "%s: %s, %s and %s have %" PRId64 " entries in all, but the %s has rank %d", opn,
                         names[F_WINDOW], names[F_COLLAPSED], names[F_OPERAND_BATCH],
                         d->n_window + d->n_collapsed + d->n_obatch,
                         c->ins->opcode == VM_OP_GATHER ? "operand" : "input", r);
  if (d->ivd < 0 || d->ivd > ri)
    return vm_check_fail(c, "%s: index_vector_dim %" PRId64 " is out of range for indices of rank %d", opn, d->ivd, ri);
  int64_t vec = d->ivd < ri ? idx->dims[d->ivd] : 1;
  if (d->n_map != vec)
    return vm_check_fail(c, "%s: %s has %" PRId64 " entries but the index vector has %" PRId64, opn, names[F_INDEX_MAP],
                         d->n_map, vec);
  if (!vm_shape_dim_list(c, names[F_INDICES_BATCH], d->ibatch, d->n_ibatch, ri, false)) return false;
  if (contains(d->ibatch, d->n_ibatch, d->ivd))
    return vm_check_fail(c, "%s: %s contains index_vector_dim %" PRId64, opn, names[F_INDICES_BATCH], d->ivd);
  if (d->n_ibatch != d->n_obatch)
    return vm_check_fail(c, "%s: %s and %s have different lengths", opn, names[F_OPERAND_BATCH],
                         names[F_INDICES_BATCH]);
  for (int64_t i = 0; i < d->n_obatch; i++)
    if (op->dims[d->obatch[i]] != idx->dims[d->ibatch[i]])
      return vm_check_fail(c,
                           "%s: batching dimension %" PRId64 " (size %" PRId64 ") and indices dimension %" PRId64
                           " (size %" PRId64 ") differ",
                           opn, d->obatch[i], op->dims[d->obatch[i]], d->ibatch[i], idx->dims[d->ibatch[i]]);
  return true;
}

/* Row-major strides of a tensor type. */
static void strides_of(const VmType *t, int64_t *s) { vm_row_major_strides(t->rank, t->dims, s); }

/* ------------------------------------------------------------------ */
/* gather */

static const char *const gather_names[6] = {"offset_dims",           "collapsed_slice_dims",
                                            "operand_batching_dims", "start_indices_batching_dims",
                                            "start_index_map",       "index_vector_dim"};

bool check_gather(VmCheck *c) {
  const VmType *op = vm_check_in(c, 0), *idx = vm_check_in(c, 1), *out = vm_check_out(c, 0);
  if (!vm_shape_need_tensor(c, op, "operand") || !vm_shape_need_tensor(c, idx, "start_indices") ||
      !vm_shape_need_tensor(c, out, "result"))
    return false;
  if (!vm_elem_is_int(idx->elem)) return vm_check_fail(c, "gather: start_indices are not integers");
  if (op->elem != out->elem)
    return vm_check_fail(c, "gather: result element type %s differs from the operand's %s", vm_elem_name(out->elem),
                         vm_elem_name(op->elem));
  IndexDims d;
  read_index_dims(c->ins, &d);
  if (!check_index_dims(c, &d, op, idx, out->rank, gather_names)) return false;
  int64_t n;
  const int64_t *ss = vm_field_list(c->ins, G_SLICE_SIZES, &n);
  if (n != op->rank)
    return vm_check_fail(c, "gather: slice_sizes has %" PRId64 " entries for an operand of rank %d", n, op->rank);
  for (int i = 0; i < op->rank; i++) {
    if (ss[i] < 0 || ss[i] > op->dims[i])
      return vm_check_fail(
          c, "gather: slice size %" PRId64 " is out of bounds for operand dimension %d (size %" PRId64 ")", ss[i], i,
          op->dims[i]);
    if (outside_window(&d, i) && ss[i] > 1)
      return vm_check_fail(c, "gather: slice size of collapsed or batching dimension %d is %" PRId64 ", not <= 1", i,
                           ss[i]);
  }
  /* C22: the result shape interleaves the batch dims (indices without the
   * index vector dim) with the offset dims (the window's slice sizes). */
  int nbatch = idx->rank - (d.ivd < idx->rank ? 1 : 0);
  if (out->rank != nbatch + d.n_window)
    return vm_check_fail(c, "gather: result has rank %d, expected %" PRId64, out->rank, nbatch + d.n_window);
  int bi = 0, oi = 0;
  for (int rd = 0; rd < out->rank; rd++) {
    int64_t want;
    if (contains(d.window, d.n_window, rd)) {
      while (outside_window(&d, oi)) oi++;
      want = ss[oi++];
    } else {
      if (bi == d.ivd) bi++;
      want = idx->dims[bi++];
    }
    if (out->dims[rd] != want)
      return vm_check_fail(c, "gather: result dimension %d has size %" PRId64 ", expected %" PRId64, rd, out->dims[rd],
                           want);
  }
  if (out->count > 0 && op->count == 0)
    return vm_check_fail(c, "gather: non-empty result gathered from an empty operand");
  return true;
}

/* A gather's copies: the window plan and the batch odometer. */
typedef struct GatherRun {
  VmCopyPlan plan;
  int nb, ielem;
  int64_t n_map, vec_stride, total, per_task;
  int64_t prefetch_bytes; /* a contiguous window of at most PREFETCH_MAX bytes: its size */
  int64_t bsize[TPUB_MAX_RANK], bres[TPUB_MAX_RANK], bidx[TPUB_MAX_RANK], bop[TPUB_MAX_RANK];
  int64_t map_stride[TPUB_MAX_RANK], map_hi[TPUB_MAX_RANK];
  const void *idata, *op;
  void *res;
} GatherRun;

/* The clamped operand offset of the window at indices offset idx_off. */
static int64_t gather_src(const GatherRun *g, int64_t op_off, int64_t idx_off) {
  int64_t src = op_off;
  for (int64_t m = 0; m < g->n_map; m++) {
    int64_t v = vm_load_index(g->ielem, g->idata, idx_off + m * g->vec_stride);
    v = v < 0 ? 0 : v > g->map_hi[m] ? g->map_hi[m] : v;
    src += v * g->map_stride[m];
  }
  return src;
}

/* Batch positions [t * per_task, ...) of a gather, each one's window
 * copied from its clamped start, the next contiguous window prefetched
 * while the current one is copied (a VmTaskFn). */
static int gather_task(void *ctx, int worker, int64_t t) {
  (void)worker;
  const GatherRun *g = ctx;
  int64_t pos[TPUB_MAX_RANK], res_off = 0, idx_off = 0, op_off = 0, lin = t * g->per_task;
  int64_t count = g->total - lin < g->per_task ? g->total - lin : g->per_task;
  for (int k = g->nb - 1; k >= 0; k--) {
    pos[k] = lin % g->bsize[k];
    lin /= g->bsize[k];
    res_off += pos[k] * g->bres[k], idx_off += pos[k] * g->bidx[k], op_off += pos[k] * g->bop[k];
  }
  int64_t src = gather_src(g, op_off, idx_off);
  for (int64_t i = 0; i < count; i++) {
    int64_t res = res_off, cur = src;
    for (int k = g->nb - 1; k >= 0; k--) {
      res_off += g->bres[k], idx_off += g->bidx[k], op_off += g->bop[k];
      if (++pos[k] < g->bsize[k]) break;
      res_off -= g->bres[k] * g->bsize[k], idx_off -= g->bidx[k] * g->bsize[k], op_off -= g->bop[k] * g->bsize[k];
      pos[k] = 0;
    }
    if (i + 1 < count) {
      src = gather_src(g, op_off, idx_off);
      const char *next = (const char *)g->op + src * g->plan.esize;
      for (int64_t b = 0; b < g->prefetch_bytes; b += 64) __builtin_prefetch(next + b);
    }
    vm_copy_plan_run(&g->plan, g->res, res, g->op, cur);
  }
  return VM_OK;
}

int exec_gather(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  const VmType *op = in[0].type, *it = in[1].type, *ot = out[0].type;
  if (ot->count == 0) return VM_OK;
  IndexDims d;
  read_index_dims(ins, &d);
  int64_t n;
  const int64_t *ss = vm_field_list(ins, G_SLICE_SIZES, &n);
  int64_t op_stride[TPUB_MAX_RANK], idx_stride[TPUB_MAX_RANK], res_stride[TPUB_MAX_RANK];
  strides_of(op, op_stride);
  strides_of(it, idx_stride);
  strides_of(ot, res_stride);
  GatherRun g = {.ielem = it->elem, .idata = in[1].data, .op = in[0].data, .res = out[0].data, .n_map = d.n_map};

  /* The window: offset_dims[k] of the result walks the k-th operand
   * dimension that is neither collapsed nor batching. */
  int64_t wdims[TPUB_MAX_RANK], wsrc[TPUB_MAX_RANK], wdst[TPUB_MAX_RANK];
  int nw = 0;
  for (int od = 0; od < op->rank; od++)
    if (!outside_window(&d, od)) {
      wdims[nw] = ss[od];
      wsrc[nw] = op_stride[od];
      wdst[nw] = res_stride[d.window[nw]];
      nw++;
    }
  vm_copy_plan_init(&g.plan, vm_elem_bytes(ot->elem), nw, wdims, wsrc, wdst);
  if (g.plan.rank == 1 && g.plan.src_stride[0] == 1 && g.plan.dims[0] * g.plan.esize <= PREFETCH_MAX)
    g.prefetch_bytes = g.plan.dims[0] * g.plan.esize;

  /* The batch dimensions: result dims outside offset_dims, in order, one
   * per indices dimension other than index_vector_dim. */
  g.total = 1;
  for (int rd = 0; rd < ot->rank; rd++)
    if (!contains(d.window, d.n_window, rd)) {
      g.bsize[g.nb] = ot->dims[rd];
      g.bres[g.nb] = res_stride[rd];
      g.bidx[g.nb] = idx_stride[g.nb < d.ivd ? g.nb : g.nb + 1];
      g.bop[g.nb] = 0;
      g.total *= ot->dims[rd];
      g.nb++;
    }
  for (int64_t i = 0; i < d.n_obatch; i++) g.bop[batch_position(d.ibatch[i], d.ivd)] += op_stride[d.obatch[i]];

  /* Start index m moves along operand dim map[m], clamped so the slice fits. */
  for (int64_t m = 0; m < d.n_map; m++) {
    int64_t od = d.map[m], size = ss[od] > 0 ? ss[od] : 1;
    g.map_stride[m] = op_stride[od];
    g.map_hi[m] = op->dims[od] - size;
  }
  g.vec_stride = d.ivd < it->rank ? idx_stride[d.ivd] : 0;

  /* Large gathers: fixed groups of windows of about GATHER_TASK_BYTES on
   * host threads (the copies are disjoint in the result). */
  int64_t window_bytes = ot->nbytes / g.total;
  g.per_task = window_bytes >= GATHER_TASK_BYTES ? 1 : GATHER_TASK_BYTES / (window_bytes > 0 ? window_bytes : 1);
  int64_t ntasks = (g.total + g.per_task - 1) / g.per_task;
  if (ot->nbytes < GATHER_PARALLEL_MIN || ntasks < 2) {
    g.per_task = g.total;
    return gather_task(&g, 0, 0);
  }
  return vm_parallel_for(x, ntasks, gather_task, &g);
}

/* ------------------------------------------------------------------ */
/* scatter: validation */

static const char *const scatter_names[6] = {"update_window_dims",           "inserted_window_dims",
                                             "input_batching_dims",          "scatter_indices_batching_dims",
                                             "scatter_dims_to_operand_dims", "index_vector_dim"};

/* The update region takes (current values, updates) of the inputs' element
 * types as scalars and returns the new values with the same types. */
static bool check_update_region(VmCheck *c, int n) {
  if (!vm_check_region(c, S_UPDATE, 2 * n, NULL, n, NULL)) return false;
  const VmFunc *f = &c->prog->funcs[c->ins->fields[S_UPDATE].regions[0].func];
  if (f->n_params < (uint32_t)(2 * n) || f->n_results != (uint32_t)n)
    return vm_check_fail(c, "scatter: the update region does not take %d arguments and give %d results", 2 * n, n);
  for (int i = 0; i < 2 * n; i++) {
    const VmType *t = f->reg_types[i];
    int want = vm_check_in(c, (uint32_t)(i % n))->elem;
    if (!vm_type_is_scalar(t) || t->elem != want)
      return vm_check_fail(c, "scatter: update region argument %d is not a %s scalar", i, vm_elem_name(want));
  }
  for (int i = 0; i < n; i++) {
    const VmType *t = f->result_types[i];
    int want = vm_check_in(c, (uint32_t)i)->elem;
    if (!vm_type_is_scalar(t) || t->elem != want)
      return vm_check_fail(c, "scatter: update region result %d is not a %s scalar", i, vm_elem_name(want));
  }
  return true;
}

bool check_scatter(VmCheck *c) {
  uint32_t nin = c->ins->n_in;
  if (nin < 3 || nin % 2 == 0)
    return vm_check_fail(c, "scatter: %u operands; expected N inputs, the indices and N updates", nin);
  int n = (int)(nin - 1) / 2;
  if (c->ins->n_out != (uint32_t)n) return vm_check_fail(c, "scatter: %u results for %d inputs", c->ins->n_out, n);
  const VmType *in0 = vm_check_in(c, 0), *idx = vm_check_in(c, (uint32_t)n), *upd0 = vm_check_in(c, (uint32_t)n + 1);
  if (!vm_shape_need_tensor(c, idx, "scatter_indices")) return false;
  if (!vm_elem_is_int(idx->elem)) return vm_check_fail(c, "scatter: scatter_indices are not integers");
  for (int i = 0; i < n; i++) {
    const VmType *in = vm_check_in(c, (uint32_t)i), *upd = vm_check_in(c, (uint32_t)(n + 1 + i));
    const VmType *out = vm_check_out(c, (uint32_t)i);
    if (!vm_shape_need_tensor(c, in, "input") || !vm_shape_need_tensor(c, upd, "update") ||
        !vm_shape_need_tensor(c, out, "result"))
      return false;
    if (!vm_type_same_shape(in, in0) || !vm_type_same_shape(upd, upd0))
      return vm_check_fail(c, "scatter: inputs (or updates) have different shapes");
    if (!vm_type_equal(out, in)) return vm_check_fail(c, "scatter: result %d differs from input %d", i, i);
    if (upd->elem != in->elem)
      return vm_check_fail(c, "scatter: update %d has element type %s, input %d %s", i, vm_elem_name(upd->elem), i,
                           vm_elem_name(in->elem));
  }
  IndexDims d;
  read_index_dims(c->ins, &d);
  if (!check_index_dims(c, &d, in0, idx, upd0->rank, scatter_names)) return false;
  /* C4: the updates interleave the scatter dims (indices without the index
   * vector dim) with window dims no larger than the input's. */
  int nscatter = idx->rank - (d.ivd < idx->rank ? 1 : 0);
  if (upd0->rank != nscatter + d.n_window)
    return vm_check_fail(c, "scatter: updates have rank %d, expected %" PRId64, upd0->rank, nscatter + d.n_window);
  int si = 0, wi = 0;
  for (int ud = 0; ud < upd0->rank; ud++) {
    int64_t size = upd0->dims[ud];
    if (contains(d.window, d.n_window, ud)) {
      while (outside_window(&d, wi)) wi++;
      if (size > in0->dims[wi])
        return vm_check_fail(c,
                             "scatter: update window dimension %d (size %" PRId64
                             ") is larger than input dimension %d (size %" PRId64 ")",
                             ud, size, wi, in0->dims[wi]);
      wi++;
    } else {
      if (si == d.ivd) si++;
      if (size != idx->dims[si])
        return vm_check_fail(
            c, "scatter: update scatter dimension %d has size %" PRId64 ", but indices dimension %d has %" PRId64, ud,
            size, si, idx->dims[si]);
      si++;
    }
  }
  return check_update_region(c, n);
}

/* ------------------------------------------------------------------ */
/* scatter: combining updates into the results */

/* How the update region combines (current, update). */
enum { COMBINE_KEEP, COMBINE_OVERWRITE, COMBINE_BINARY, COMBINE_REGION };

/* KEEP when the region returns its first n arguments (the current values),
 * OVERWRITE when it returns the last n (the updates), else -1. */
static int region_returns_args(const VmExec *x, const VmRegion *r, int n) {
  const VmFunc *f = vm_region_func(x, r);
  if (!f || f->n_instrs != 1) return -1;
  const VmInstr *ret = &f->instrs[0];
  if (ret->opcode != VM_OP_RETURN || ret->n_in != (uint32_t)n) return -1;
  for (int k = 0; k < 2; k++) {
    int i = 0;
    while (i < n && ret->in[i] == (uint32_t)(k * n + i)) i++;
    if (i == n) return k == 0 ? COMBINE_KEEP : COMBINE_OVERWRITE;
  }
  return -1;
}

/* A run of the binary fast path: dst[k] = op(dst[k], src[k]). */
typedef struct BinaryRun {
  int op, elem, esize;
  char *dst;
  const char *src;
} BinaryRun;

/* Whether the fast path takes op on elem: add, mul, max, min on every
 * numeric type, and, or, xor on integers. */
static bool binary_supported(int op, int elem) {
  switch (op) {
  case VM_OP_ADD:
  case VM_OP_MULTIPLY:
  case VM_OP_MAXIMUM:
  case VM_OP_MINIMUM: return true;
  case VM_OP_AND:
  case VM_OP_OR:
  case VM_OP_XOR: return vm_elem_is_int(elem);
  default: return false;
  }
}

/* Elements a strided run combines at a time through contiguous copies. */
enum { BIN_CHUNK = 256 };

/* binary_run for a strided run: gathered into contiguous chunks, combined,
 * written back.  Apart so that its buffers cost nothing to contiguous
 * runs (often single elements). */
__attribute__((noinline)) static void binary_run_strided(const BinaryRun *b, char *d, const char *s, int64_t n,
                                                         int64_t ds, int64_t ss) {
  size_t es = (size_t)b->esize;
  _Alignas(16) char dbuf[BIN_CHUNK * 16], sbuf[BIN_CHUNK * 16];
  for (int64_t k0 = 0; k0 < n; k0 += BIN_CHUNK) {
    int64_t m = n - k0 < BIN_CHUNK ? n - k0 : BIN_CHUNK;
    for (int64_t k = 0; k < m; k++) {
      memcpy(dbuf + k * (int64_t)es, d + (k0 + k) * ds * (int64_t)es, es);
      memcpy(sbuf + k * (int64_t)es, s + (k0 + k) * ss * (int64_t)es, es);
    }
    vm_binary_apply(b->op, b->elem, dbuf, dbuf, sbuf, m);
    for (int64_t k = 0; k < m; k++) memcpy(d + (k0 + k) * ds * (int64_t)es, dbuf + k * (int64_t)es, es);
  }
}

/* One run of the fast path (a VmRunFn): dst = op(dst, src) element-wise
 * with the element-wise kernel of op (vm_binary_apply), so every element
 * type rounds and wraps as the unfused op does. */
static void binary_run(void *ctx, int64_t doff, int64_t soff, int64_t n, int64_t ds, int64_t ss) {
  const BinaryRun *b = ctx;
  char *d = b->dst + doff * b->esize;
  const char *s = b->src + soff * b->esize;
  if (ds == 1 && ss == 1)
    vm_binary_apply(b->op, b->elem, d, d, s, n);
  else
    binary_run_strided(b, d, s, n, ds, ss);
}

/* Per-input data of the region path. */
typedef struct RegionInput {
  char *dst;
  const char *src;
  int esize;
} RegionInput;

/* The slow path: the update region called on scalars for every element. */
typedef struct RegionRun {
  VmExec *x;
  const VmRegion *region;
  int n;
  VmTensor *args; /* 2n: current values, then updates */
  VmTensor *res;  /* n */
  RegionInput *inputs;
  int status;
} RegionRun;

/* One run of the region path (a VmRunFn). */
static void region_run(void *ctx, int64_t doff, int64_t soff, int64_t cnt, int64_t ds, int64_t ss) {
  RegionRun *g = ctx;
  for (int64_t k = 0; k < cnt && g->status == VM_OK; k++) {
    for (int i = 0; i < g->n; i++) {
      const RegionInput *p = &g->inputs[i];
      memcpy(g->args[i].data, p->dst + (doff + k * ds) * p->esize, (size_t)p->esize);
      memcpy(g->args[g->n + i].data, p->src + (soff + k * ss) * p->esize, (size_t)p->esize);
    }
    g->status = vm_call_region(g->x, g->region, g->args, 2 * g->n, g->res);
    if (g->status != VM_OK) return;
    for (int i = 0; i < g->n; i++) {
      const RegionInput *p = &g->inputs[i];
      memcpy(p->dst + (doff + k * ds) * p->esize, g->res[i].data, (size_t)p->esize);
    }
  }
}

/* Where a scatter writes: the window plan (updates -> input strides) and,
 * per scatter position, the bases found by scatter_window_base. */
typedef struct ScatterLayout {
  VmCopyPlan plan;
  int nscatter;
  int64_t ssize[TPUB_MAX_RANK]; /* scatter dims of the updates */
  int64_t supd[TPUB_MAX_RANK];  /* their strides in the updates */
  int64_t sidx[TPUB_MAX_RANK];  /* in the indices */
  int64_t sin[TPUB_MAX_RANK];   /* in the inputs (batching dims) */
  int64_t map_stride[TPUB_MAX_RANK], map_hi[TPUB_MAX_RANK];
  int64_t n_map, vec_stride;
} ScatterLayout;

static void scatter_layout(const VmInstr *ins, const VmType *it, const VmType *xt, const VmType *ut, ScatterLayout *l) {
  IndexDims d;
  read_index_dims(ins, &d);
  int64_t in_stride[TPUB_MAX_RANK], idx_stride[TPUB_MAX_RANK], upd_stride[TPUB_MAX_RANK];
  int64_t wsize[TPUB_MAX_RANK], wdims[TPUB_MAX_RANK], wsrc[TPUB_MAX_RANK], wdst[TPUB_MAX_RANK];
  strides_of(it, in_stride);
  strides_of(xt, idx_stride);
  strides_of(ut, upd_stride);
  /* update_window_dims[k] walks the k-th input dim that is neither inserted
   * nor batching; the others have window size 1. */
  int nw = 0;
  for (int id = 0; id < it->rank; id++) {
    wsize[id] = 1;
    if (outside_window(&d, id)) continue;
    int64_t ud = d.window[nw];
    wsize[id] = wdims[nw] = ut->dims[ud];
    wsrc[nw] = upd_stride[ud];
    wdst[nw] = in_stride[id];
    nw++;
  }
  vm_copy_plan_init(&l->plan, 1, nw, wdims, wsrc, wdst);
  int ns = 0;
  for (int ud = 0; ud < ut->rank; ud++)
    if (!contains(d.window, d.n_window, ud)) {
      l->ssize[ns] = ut->dims[ud];
      l->supd[ns] = upd_stride[ud];
      l->sidx[ns] = idx_stride[ns < d.ivd ? ns : ns + 1];
      l->sin[ns] = 0;
      ns++;
    }
  l->nscatter = ns;
  for (int64_t i = 0; i < d.n_obatch; i++) l->sin[batch_position(d.ibatch[i], d.ivd)] += in_stride[d.obatch[i]];
  l->n_map = d.n_map;
  for (int64_t m = 0; m < d.n_map; m++) {
    int64_t id = d.map[m];
    l->map_stride[m] = in_stride[id];
    l->map_hi[m] = it->dims[id] - wsize[id];
  }
  l->vec_stride = d.ivd < xt->rank ? idx_stride[d.ivd] : 0;
}

/* Input offset of the window of the scatter position whose indices start
 * at idx_off (plus the batching part in_off); false when the window does
 * not fit in the input (the update is then dropped). */
static bool scatter_window_base(const ScatterLayout *l, const VmTensor *indices, int64_t idx_off, int64_t in_off,
                                int64_t *base) {
  int elem = indices->type->elem;
  for (int64_t m = 0; m < l->n_map; m++) {
    int64_t v = vm_load_index(elem, indices->data, idx_off + m * l->vec_stride);
    if (v < 0 || v > l->map_hi[m]) return false;
    in_off += v * l->map_stride[m];
  }
  *base = in_off;
  return true;
}

/* Scratch for the region path: argument and result scalars of n inputs. */
static size_t region_scratch_bytes(int n) { return (size_t)n * (48 + 3 * sizeof(VmTensor) + sizeof(RegionInput)); }

static int region_setup(VmExec *x, const VmRegion *r, int n, const VmTensor *in, VmTensor *out, void *mem,
                        RegionRun *g) {
  const VmFunc *f = vm_region_func(x, r);
  if (!f) return vm_trap(x, "scatter: update region is missing");
  unsigned char *bufs = mem;
  g->x = x;
  g->region = r;
  g->n = n;
  g->args = (VmTensor *)(bufs + (size_t)n * 48);
  g->res = g->args + 2 * n;
  g->inputs = (RegionInput *)(g->res + n);
  g->status = VM_OK;
  for (int i = 0; i < 2 * n; i++) {
    g->args[i].type = f->reg_types[i];
    g->args[i].data = bufs + (size_t)i * 16;
  }
  for (int i = 0; i < n; i++) {
    g->res[i].type = f->result_types[i];
    g->res[i].data = bufs + (size_t)(2 * n + i) * 16;
    g->inputs[i].dst = out[i].data;
    g->inputs[i].src = in[n + 1 + i].data;
    g->inputs[i].esize = vm_elem_bytes(out[i].type->elem);
  }
  return VM_OK;
}

int exec_scatter(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  int n = (int)(ins->n_in - 1) / 2;
  for (int i = 0; i < n; i++)
    if (out[i].data != in[i].data && out[i].type->nbytes > 0)
      memcpy(out[i].data, in[i].data, (size_t)out[i].type->nbytes);
  const VmType *it = in[0].type, *xt = in[n].type, *ut = in[n + 1].type;
  if (ut->count == 0 || it->count == 0) return VM_OK;
  const VmRegion *region = &ins->fields[S_UPDATE].regions[0];
  int mode = region_returns_args(x, region, n), op = -1;
  if (mode == COMBINE_KEEP) return VM_OK;
  if (mode < 0 && n == 1) {
    op = vm_region_binary_op(x, region, it->elem, NULL);
    if (op >= 0 && binary_supported(op, it->elem)) mode = COMBINE_BINARY;
  }
  if (mode < 0) mode = COMBINE_REGION;

  ScatterLayout l;
  scatter_layout(ins, it, xt, ut, &l);
  BinaryRun bin = {op, it->elem, vm_elem_bytes(it->elem), out[0].data, in[n + 1].data};
  RegionRun reg = {0};
  void *mem = NULL;
  size_t mem_bytes = region_scratch_bytes(n);
  if (mode == COMBINE_REGION) {
    mem = vm_scratch_alloc(x, mem_bytes);
    if (!mem) return vm_trap(x, "out of memory: scatter region arguments");
    int st = region_setup(x, region, n, in, out, mem, &reg);
    if (st != VM_OK) {
      vm_scratch_free(x, mem, mem_bytes);
      return st;
    }
  }

  int64_t pos[TPUB_MAX_RANK] = {0}, upd_off = 0, idx_off = 0, in_off = 0, base;
  for (;;) {
    if (scatter_window_base(&l, &in[n], idx_off, in_off, &base)) {
      switch (mode) {
      case COMBINE_OVERWRITE:
        for (int i = 0; i < n; i++) {
          VmCopyPlan p = l.plan;
          p.esize = vm_elem_bytes(out[i].type->elem);
          vm_copy_plan_run(&p, out[i].data, base, in[n + 1 + i].data, upd_off);
        }
        break;
      case COMBINE_BINARY: vm_copy_plan_walk(&l.plan, base, upd_off, binary_run, &bin); break;
      default:
        vm_copy_plan_walk(&l.plan, base, upd_off, region_run, &reg);
        if (reg.status != VM_OK) {
          vm_scratch_free(x, mem, mem_bytes);
          return reg.status;
        }
      }
    }
    int k = l.nscatter - 1;
    for (; k >= 0; k--) {
      upd_off += l.supd[k];
      idx_off += l.sidx[k];
      in_off += l.sin[k];
      if (++pos[k] < l.ssize[k]) break;
      upd_off -= l.supd[k] * l.ssize[k];
      idx_off -= l.sidx[k] * l.ssize[k];
      in_off -= l.sin[k] * l.ssize[k];
      pos[k] = 0;
    }
    if (k < 0) break;
  }
  if (mem) vm_scratch_free(x, mem, mem_bytes);
  return VM_OK;
}
