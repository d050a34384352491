/* Windowed ops on spatially tiled values (convolution, reduce_window, pad,
 * slice): each partition fetches the rows its window needs from its
 * neighbours with collective_permute (halo exchange).
 *
 * Along one tiled dim of t pieces (input extent D, local L = ceil(D/t);
 * output extent Dout, local Lo = ceil(Dout/t)), the partition at
 * coordinate c computes output rows [c*Lo, c*Lo + Lo), which read the
 * input rows [S, S + W) with S = c*Lo*stride - lo and W = (Lo - 1)*stride
 * + window.  It holds [c*L, c*L + L); it receives the last hl rows of its
 * left neighbour's piece and the first hr rows of its right neighbour's
 * (the largest reach of any partition that holds output rows), pads pl/pr
 * zero rows at the global edges when the first/last partition reaches
 * further, and cuts its W rows out of [left, piece, right] at its offset
 * (a static slice when every partition's is the same, else a
 * dynamic_slice).  The edge partitions receive zeros; rows outside the
 * global [0, D) are then set to the op's fill (the init value of a
 * reduce_window, the padding value of a pad) where they could differ
 * from it (zeros for a convolution, which only the padding rows of
 * uneven pieces break).  The local op then runs with no padding on that
 * dim, and its result is tiled like its input there.  A window reaching
 * past a neighbour's piece falls back to the generic rules (-1). */
#include <stdlib.h>
#include <string.h>

#include "passes/spmd_part.h"

enum { MAXR = SHARDING_MAX_RANK + 1 };


static int64_t at(const int64_t *v, int n, int i, int64_t dflt) { return i < n ? v[i] : dflt; }

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* A convolution's dimension numbers, NULL when malformed. */
static void conv_dims(const Op *op, const ConvDims **out) {
  const Attr *dn = op_attr(op, "dimension_numbers");
  *out = dn && dn->kind == ATTR_CONV_DIMS ? &dn->u.conv : NULL;
}

/* Whether op's operands and results are static tensors of plain element
 * types and ranks a sharding covers. */
static bool plain_types(const Op *op) {
  for (int i = 0; i < op->noperands + op->nresults; i++) {
    const Type *t = i < op->noperands ? op->operands[i]->type : op->results[i - op->noperands].type;
    if (!type_is_tensor(t) || !type_is_static(t) || t->elem_opaque || t->rank > SHARDING_MAX_RANK) return false;
  }
  return op->nresults > 0;
}

bool spmd_halo_map(const Spmd *s, const Op *op, int operand, int64_t *out) {
  Context *c = s->c;
  if (!plain_types(op)) return false;
  int k = op->results[0].type->rank, n;
  switch (op->kind) {
  case OP_CONVOLUTION: {
    const ConvDims *d;
    conv_dims(op, &d);
    if (operand != 0 || !d || !spmd_dim_map(s, op, 0, out)) return false;
    const int64_t *ld = spmd_int_list(c, op_attr(op, "lhs_dilation"), &n);
    for (int sp = 0; sp < d->nspatial; sp++)
      if (at(ld, n, sp, 1) == 1) out[d->output_spatial[sp]] = d->input_spatial[sp];
    return true;
  }
  case OP_REDUCE_WINDOW: {
    if (operand >= op->noperands / 2) return false;
    const int64_t *bd = spmd_int_list(c, op_attr(op, "base_dilations"), &n);
    for (int e = 0; e < k; e++) out[e] = at(bd, n, e, 1) == 1 ? e : -1;
    return true;
  }
  case OP_PAD: {
    if (operand != 0) return false;
    const int64_t *in = spmd_int_list(c, op_attr(op, "interior_padding"), &n);
    for (int e = 0; e < k; e++) out[e] = at(in, n, e, 0) == 0 ? e : -1;
    return true;
  }
  case OP_SLICE:
    if (operand != 0) return false;
    for (int e = 0; e < k; e++) out[e] = e;
    return true;
  default: return false;
  }
}

/* ------------------------------------------------------------------ */
/* One windowed dim */

typedef struct Win {
  int dim;                /* the operand dim */
  int64_t t, D, L;        /* pieces, global and local extent */
  int64_t Dout, Lo;       /* the output's */
  int64_t ke, s, lo;      /* window (dilated), stride, low padding */
  int64_t W;              /* rows each partition's window reads */
  int64_t hl, hr, pl, pr; /* halo rows from the left/right neighbour; zero rows at the edges */
} Win;

/* Plans w (dim, t, D, Dout, ke, s, lo given); false when a partition
 * holding output rows needs rows of a piece beyond its neighbours'.  Rows
 * below 0 or past the last piece are not fetched: they are the zero rows
 * pl / pr, before the left halo and after the right one (so a partition
 * reaching past them needs its neighbour's whole piece). */
static bool win_plan(Win *w) {
  int64_t t = w->t, L;
  w->L = L = ceil_div(w->D, t);
  w->Lo = ceil_div(w->Dout, t);
  w->W = (w->Lo - 1) * w->s + w->ke;
  if (w->Dout < 1 || w->W < 1 || w->s < 1) return false;
  int64_t live = ceil_div(w->Dout, w->Lo); /* partitions holding output rows */
  if (live > t) live = t;
  w->hl = w->hr = w->pl = w->pr = 0;
  for (int64_t c = 0; c < live; c++) {
    int64_t S = c * w->Lo * w->s - w->lo, lh = c * L - S, rh = S + w->W - (c * L + L);
    if (c > 0 && (lh < c * L ? lh : c * L) > w->hl) w->hl = lh < c * L ? lh : c * L;
    if (c < t - 1 && (rh < (t - 1 - c) * L ? rh : (t - 1 - c) * L) > w->hr) w->hr = rh < (t - 1 - c) * L ? rh : (t - 1 - c) * L;
  }
  if (w->hl > L || w->hr > L) return false;
  for (int64_t c = 0; c < live; c++) {
    int64_t S = c * w->Lo * w->s - w->lo, lh = c * L - S, rh = S + w->W - (c * L + L);
    if (lh > w->hl && c * L > w->hl) return false; /* rows at or above 0 beyond the halo */
    if (rh > w->hr && (c + 1) * L + w->hr < t * L) return false;
    if (lh - w->hl > w->pl) w->pl = lh - w->hl;
    if (rh - w->hr > w->pr) w->pr = rh - w->hr;
  }
  return true;
}

/* ------------------------------------------------------------------ */
/* Local data movement along one dim */

/* x[a:b:stride] along d. */
static Value *slice_dim(Part *P, Value *x, int d, int64_t a, int64_t b, int64_t stride) {
  Context *c = P->s->c;
  int k = x->type->rank;
  int64_t start[MAXR] = {0}, limit[MAXR], st[MAXR], dims[MAXR];
  for (int e = 0; e < k; e++) limit[e] = dims[e] = x->type->dims[e], st[e] = 1;
  start[d] = a, limit[d] = b, st[d] = stride, dims[d] = ceil_div(b - a, stride);
  NamedAttr at3[3] = {{"limit_indices", attr_dense_i64_array(c, k, limit)},
                      {"start_indices", attr_dense_i64_array(c, k, start)},
                      {"strides", attr_dense_i64_array(c, k, st)}};
  return part_emit(P, OP_SLICE, 1, &x, part_with_dims(P, x->type, dims), 3, at3);
}

static Value *concat_dim(Part *P, int n, Value **xs, int d) {
  int64_t dims[MAXR];
  memcpy(dims, xs[0]->type->dims, sizeof(int64_t) * (size_t)xs[0]->type->rank);
  for (int i = 1; i < n; i++) dims[d] += xs[i]->type->dims[d];
  NamedAttr a = {"dimension", attr_i64(P->s->c, d)};
  return part_emit(P, OP_CONCATENATE, n, xs, part_with_dims(P, xs[0]->type, dims), 1, &a);
}

/* x with lo zero rows before and hi after along d. */
static Value *pad_dim(Part *P, Value *x, int d, int64_t lo, int64_t hi) {
  if (!lo && !hi) return x;
  Context *c = P->s->c;
  int k = x->type->rank;
  int64_t l[MAXR] = {0}, h[MAXR] = {0}, in[MAXR] = {0}, dims[MAXR];
  memcpy(dims, x->type->dims, sizeof(int64_t) * (size_t)k);
  l[d] = lo, h[d] = hi, dims[d] += lo + hi;
  Value *ops[2] = {x, part_zero_like(P, x->type->elem)};
  NamedAttr a[3] = {{"edge_padding_high", attr_dense_i64_array(c, k, h)},
                    {"edge_padding_low", attr_dense_i64_array(c, k, l)},
                    {"interior_padding", attr_dense_i64_array(c, k, in)}};
  return part_emit(P, OP_PAD, 2, ops, part_with_dims(P, x->type, dims), 3, a);
}

static Value *broadcast(Part *P, Value *scalar, Type *t) {
  NamedAttr bd = {"broadcast_dimensions", attr_dense_i64_array(P->s->c, 0, NULL)};
  return part_emit(P, OP_BROADCAST_IN_DIM, 1, &scalar, t, 1, &bd);
}

static Value *compare(Part *P, Value *a, Value *b, const char *dir) {
  Context *c = P->s->c;
  NamedAttr d = {"comparison_direction", attr_enum(c, "stablehlo", "comparison_direction", dir)};
  Value *ops[2] = {a, b};
  return part_emit(P, OP_COMPARE, 2, ops, type_tensor(c, ELEM_I1, a->type->rank, a->type->dims, NULL), 1, &d);
}

/* x with the rows along d whose global index (start, per partition, plus
 * the row) is below 0 (when low) or at or past D (when high) set to fill. */
static Value *fill_outside(Part *P, Value *x, int d, Value *start, int64_t D, bool low, bool high, Value *fill) {
  Context *c = P->s->c;
  int k = x->type->rank;
  Type *it = type_tensor(c, ELEM_I32, k, x->type->dims, NULL);
  NamedAttr ia = {"iota_dimension", attr_i64(c, d)};
  Value *sum[2] = {part_emit(P, OP_IOTA, 0, NULL, it, 1, &ia), broadcast(P, start, it)};
  Value *pos = part_emit(P, OP_ADD, 2, sum, it, 0, NULL), *keep = NULL;
  if (low) {
    int32_t zero = 0;
    keep = compare(P, pos, broadcast(P, part_splat(P, type_scalar_tensor(c, ELEM_I32), &zero), it), "GE");
  }
  if (high) {
    int32_t lim = (int32_t)D;
    Value *in = compare(P, pos, broadcast(P, part_splat(P, type_scalar_tensor(c, ELEM_I32), &lim), it), "LT");
    Value *both[2] = {keep, in};
    keep = keep ? part_emit(P, OP_AND, 2, both, in->type, 0, NULL) : in;
  }
  Value *sel[3] = {keep, x, broadcast(P, fill, x->type)};
  return part_emit(P, OP_SELECT, 3, sel, x->type, 0, NULL);
}

/* The neighbour's rows: the last hl of the left one's piece (left), or
 * the first hr of the right one's; ids: the groups along the dim. */
static Value *halo(Part *P, Value *x, const Win *w, const int64_t *ids, bool left) {
  int64_t t = w->t, ngroups = P->s->n / t, np = 0;
  int64_t *pairs = xcalloc((size_t)(2 * ngroups * t), sizeof(int64_t));
  for (int64_t g = 0; g < ngroups; g++)
    for (int64_t j = 0; j + 1 < t; j++, np++) {
      pairs[2 * np] = ids[g * t + j + (left ? 0 : 1)];
      pairs[2 * np + 1] = ids[g * t + j + (left ? 1 : 0)];
    }
  Value *send = left ? slice_dim(P, x, w->dim, w->L - w->hl, w->L, 1) : slice_dim(P, x, w->dim, 0, w->hr, 1);
  Value *r = part_collective_permute(P, send, np, pairs);
  free(pairs);
  return r;
}

/* Per partition of layout l: the offset of its window in a buffer of B
 * rows whose row 0 is global row base + c*step (c its coordinate along
 * w->dim), and the window's first global row; whether every offset is the
 * same, and whether a window holding output rows reaches below 0 / past D. */
static bool win_tables(const Spmd *s, const Sharding *l, const Win *w, int64_t base, int64_t step, int64_t B,
                       int32_t *off, int32_t *start, bool *low, bool *high) {
  const int64_t *co = layout_coords(s, l);
  int k = l->rank, d = w->dim;
  bool same = true;
  *low = *high = false;
  for (int64_t p = 0; p < s->n; p++) {
    int64_t c = co[p * (k + 1) + d], S = c * w->Lo * w->s - w->lo, o = S - (base + c * step);
    if (c * w->Lo >= w->Dout) o = -w->lo - base; /* no output rows: partition 0's offset */
    if (o < 0) o = 0;
    if (o > B - w->W) o = B - w->W;
    off[p] = (int32_t)o, start[p] = (int32_t)S;
    if (c * w->Lo < w->Dout) *low = *low || S < 0, *high = *high || S + w->W > w->D;
    same = same && off[p] == off[0];
  }
  return same;
}

/* The W rows of buf along w->dim at the offsets off[], then the rows
 * outside the global [0, D) set to fill when mask_low / mask_high. */
static Value *cut_window(Part *P, Value *buf, const Win *w, const int32_t *off, bool same, const int32_t *start,
                         Value *fill, bool mask_low, bool mask_high) {
  int d = w->dim, k = buf->type->rank;
  int64_t B = buf->type->dims[d];
  Value *win = buf;
  if (same && (off[0] || w->W != B)) {
    win = slice_dim(P, buf, d, off[0], off[0] + w->W, 1);
  } else if (!same) {
    Value *starts[MAXR];
    int64_t sizes[MAXR];
    int32_t zero = 0;
    for (int e = 0; e < k; e++) {
      sizes[e] = e == d ? w->W : buf->type->dims[e];
      starts[e] = e == d ? part_lookup(P, off) : part_splat(P, type_scalar_tensor(P->s->c, ELEM_I32), &zero);
    }
    win = part_dynamic_slice(P, buf, starts, sizes);
  }
  if (fill && (mask_low || mask_high)) win = fill_outside(P, win, d, part_lookup(P, start), w->D, mask_low, mask_high, fill);
  return win;
}

/* x (a piece of layout l) as the W rows along w->dim its partition's
 * window reads; rows outside the global [0, D) are fill (NULL: any
 * value; zero_fill: fill is zero, which the halo's edges already are). */
static Value *win_rows(Part *P, Value *x, const Sharding *l, const Win *w, Value *fill, bool zero_fill) {
  Spmd *s = P->s;
  int d = w->dim;
  bool vary[MAXR] = {0}, low, high;
  vary[d] = true;
  int64_t *ids = xcalloc((size_t)s->n, sizeof(int64_t));
  part_groups(P, l, vary, ids);
  Value *parts[3];
  int np = 0;
  if (w->hl) parts[np++] = halo(P, x, w, ids, true);
  parts[np++] = x;
  if (w->hr) parts[np++] = halo(P, x, w, ids, false);
  free(ids);
  Value *buf = pad_dim(P, np > 1 ? concat_dim(P, np, parts, d) : x, d, w->pl, w->pr);
  int32_t *off = xcalloc((size_t)s->n, sizeof(int32_t)), *start = xcalloc((size_t)s->n, sizeof(int32_t));
  bool same = win_tables(s, l, w, -w->hl - w->pl, w->L, buf->type->dims[d], off, start, &low, &high);
  bool uneven = w->D % w->t != 0;
  Value *win = cut_window(P, buf, w, off, same, start, fill, low && !zero_fill, high && (uneven || !zero_fill));
  free(off);
  free(start);
  return win;
}

/* x whole along w->dim: each partition's W rows cut out of it (zero rows
 * padded on where windows reach past the edges), no exchange; grid: the
 * layout whose coordinates along the dim place the windows. */
static Value *win_whole(Part *P, Value *x, const Sharding *grid, const Win *w, Value *fill, bool zero_fill) {
  Spmd *s = P->s;
  int64_t front = 0, back = 0;
  for (int64_t c = 0; c < w->t && c * w->Lo < w->Dout; c++) {
    int64_t S = c * w->Lo * w->s - w->lo;
    if (-S > front) front = -S;
    if (S + w->W - w->D > back) back = S + w->W - w->D;
  }
  Value *buf = pad_dim(P, x, w->dim, front, back);
  int32_t *off = xcalloc((size_t)s->n, sizeof(int32_t)), *start = xcalloc((size_t)s->n, sizeof(int32_t));
  bool low, high, same = win_tables(s, grid, w, -front, 0, buf->type->dims[w->dim], off, start, &low, &high);
  Value *win = cut_window(P, buf, w, off, same, start, fill, low && !zero_fill, high && !zero_fill);
  free(off);
  free(start);
  return win;
}

/* The old operand's W rows along each windowed dim: dims the operand
 * already holds whole are cut locally, the others exchanged (layout l). */
static Value *windows(Part *P, const Value *old, const Sharding *l, const Win *w, int nw, Value *fill, bool zero_fill) {
  const Local *lo = part_get(P, old);
  const Sharding *use = l;
  bool whole[MAXR] = {0};
  for (int j = 0; j < nw && lo && lo->l && !lo->manual; j++)
    if (lo->l->tiles[w[j].dim] == 1) {
      const Sharding *u = layout_untile(P->s, use, w[j].dim);
      if (u) use = u, whole[j] = true;
    }
  Value *x = part_operand_as(P, old, use);
  for (int j = 0; j < nw; j++)
    x = whole[j] ? win_whole(P, x, l, &w[j], fill, zero_fill) : win_rows(P, x, use, &w[j], fill, zero_fill);
  return x;
}

/* ------------------------------------------------------------------ */
/* Layouts and the rebuilt op */

/* The target of result 0 with the dims none of the n maps supplies left
 * whole. */
static const Sharding *compute_layout(Part *P, const Op *op, int n, int64_t (*maps)[MAXR]) {
  const Sharding *l = part_target(P, op, 0);
  for (int e = 0; l && e < l->rank; e++) {
    bool supplied = false;
    for (int i = 0; i < n; i++) supplied = supplied || maps[i][e] >= 0;
    if (l->tiles[e] > 1 && !supplied) l = layout_untile(P->s, l, e);
  }
  return l;
}

/* The layout of an operand of type t whose dim map[e] is result dim e. */
static const Sharding *operand_layout(Part *P, const Sharding *l, const Type *t, const int64_t *map) {
  int64_t inv[MAXR];
  for (int d = 0; d < t->rank; d++) inv[d] = -1;
  for (int e = 0; e < l->rank; e++)
    if (map[e] >= 0) inv[map[e]] = e;
  return layout_map(P->s, l, t->rank, inv);
}

/* Whether some op inside op's regions uses a value from outside them. */
static bool uses_outside(const Op *op, const ValueMap *inside) {
  for (int r = 0; r < op->nregions; r++)
    for (int j = 0; j < op->regions[r].nblocks; j++)
      for (Op *in = op->regions[r].blocks[j]->first; in; in = in->next) {
        for (int i = 0; i < in->noperands; i++)
          if (!value_map_get(inside, in->operands[i])) return true;
        if (uses_outside(in, inside)) return true;
      }
  return false;
}

/* Whether op's regions use values defined outside them. */
static bool captures(Context *c, const Op *op) {
  ValueMap inside = {0};
  part_mark_inside(c, op, &inside);
  return uses_outside(op, &inside);
}

/* op on local operands and result types, without its sharding, the
 * attributes names[i] set to values[i]. */
static Op *rebuild(Part *P, const Op *op, Value **vals, Type **types, int nrep, const char *const *names,
                   Attr *const *values) {
  Op *copy = part_clone(P, op, vals, types);
  for (int i = 0; i < nrep; i++) op_set_attr(P->s->c, copy, names[i], values[i]);
  return copy;
}

/* ------------------------------------------------------------------ */
/* The ops */

/* A convolution: its input's windowed dims exchanged, the kernel whole
 * along its spatial dims (tiled along its output features as the result). */
static int halo_conv(Part *P, Op *op) {
  Spmd *s = P->s;
  Context *c = s->c;
  const ConvDims *cd;
  int64_t maps[2][MAXR];
  conv_dims(op, &cd);
  if (op->noperands != 2 || !cd || !spmd_halo_map(s, op, 0, maps[0]) || !spmd_dim_map(s, op, 1, maps[1])) return -1;
  const Type *it = op->operands[0]->type, *kt = op->operands[1]->type, *rt = op->results[0].type;
  const Sharding *cl = compute_layout(P, op, 2, maps);
  int np, nst, nrd;
  const int64_t *pad = spmd_int_list(c, op_attr(op, "padding"), &np), *st = spmd_int_list(c, op_attr(op, "window_strides"), &nst);
  const int64_t *rd = spmd_int_list(c, op_attr(op, "rhs_dilation"), &nrd);
  int64_t newpad[2 * MAXR];
  Win w[MAXR];
  int nw = 0;
  for (int sp = 0; sp < cd->nspatial; sp++) {
    int64_t o = cd->output_spatial[sp], K = kt->dims[cd->kernel_spatial[sp]], r = at(rd, nrd, sp, 1);
    int64_t lo = at(pad, np, 2 * sp, 0), hi = at(pad, np, 2 * sp + 1, 0), stride = at(st, nst, sp, 1);
    newpad[2 * sp] = lo, newpad[2 * sp + 1] = hi;
    if (!cl || cl->tiles[o] == 1 || (K == 1 && !lo && !hi && stride == 1)) continue;
    w[nw] = (Win){.dim = (int)cd->input_spatial[sp], .t = cl->tiles[o], .D = it->dims[cd->input_spatial[sp]],
                  .Dout = rt->dims[o], .ke = (K - 1) * r + 1, .s = stride, .lo = lo};
    if (!win_plan(&w[nw++])) return -1;
    newpad[2 * sp] = newpad[2 * sp + 1] = 0;
  }
  if (!nw) return -1;
  const Sharding *in_l = operand_layout(P, cl, it, maps[0]), *k_l = operand_layout(P, cl, kt, maps[1]);
  if (!in_l || !k_l) return -1;
  Value *vals[2] = {windows(P, op->operands[0], in_l, w, nw, part_zero_like(P, it->elem), true),
                    part_operand_as(P, op->operands[1], k_l)};
  Type *lt = layout_local_type(s, cl, (Type *)rt);
  const char *name = "padding";
  Attr *pa = part_groups_attr(P, cd->nspatial, 2, newpad);
  Op *copy = rebuild(P, op, vals, &lt, 1, &name, &pa);
  part_finish(P, op, 0, &copy->results[0], cl);
  return 1;
}

/* A reduce_window (any number of inputs): the rows outside the operand
 * are each input's init value. */
static int halo_reduce_window(Part *P, Op *op) {
  Spmd *s = P->s;
  Context *c = s->c;
  int n = op->noperands / 2, k = op->results[0].type->rank;
  int64_t maps[8][MAXR];
  if (n < 1 || n > 8 || op->nresults != n || captures(c, op)) return -1;
  for (int i = 0; i < n; i++)
    if (!spmd_halo_map(s, op, i, maps[i])) return -1;
  const Sharding *cl = compute_layout(P, op, n, maps);
  int nw_, nst, nwd, np;
  const int64_t *wd = spmd_int_list(c, op_attr(op, "window_dimensions"), &nw_);
  const int64_t *st = spmd_int_list(c, op_attr(op, "window_strides"), &nst);
  const int64_t *dil = spmd_int_list(c, op_attr(op, "window_dilations"), &nwd);
  const int64_t *pad = spmd_int_list(c, op_attr(op, "padding"), &np);
  const Type *it = op->operands[0]->type, *rt = op->results[0].type;
  int64_t newpad[2 * MAXR];
  Win w[MAXR];
  int nw = 0;
  for (int d = 0; d < k; d++) {
    int64_t K = at(wd, nw_, d, 1), stride = at(st, nst, d, 1), lo = at(pad, np, 2 * d, 0), hi = at(pad, np, 2 * d + 1, 0);
    newpad[2 * d] = lo, newpad[2 * d + 1] = hi;
    if (!cl || cl->tiles[d] == 1 || (K == 1 && !lo && !hi && stride == 1)) continue;
    w[nw] = (Win){.dim = d, .t = cl->tiles[d], .D = it->dims[d], .Dout = rt->dims[d],
                  .ke = (K - 1) * at(dil, nwd, d, 1) + 1, .s = stride, .lo = lo};
    if (!win_plan(&w[nw++])) return -1;
    newpad[2 * d] = newpad[2 * d + 1] = 0;
  }
  if (!nw) return -1;
  const Sharding *in_l = operand_layout(P, cl, it, maps[0]);
  if (!in_l) return -1;
  Value **vals = arena_alloc(&c->arena, sizeof(Value *) * (size_t)(2 * n));
  Type **types = arena_alloc(&c->arena, sizeof(Type *) * (size_t)n);
  for (int i = 0; i < n; i++) {
    vals[n + i] = part_operand_as(P, op->operands[n + i], layout_replicated(s, 0));
    vals[i] = windows(P, op->operands[i], in_l, w, nw, vals[n + i], false);
    types[i] = layout_local_type(s, cl, op->results[i].type);
  }
  const char *name = "padding";
  Attr *pa = part_groups_attr(P, k, 2, newpad);
  Op *copy = rebuild(P, op, vals, types, 1, &name, &pa);
  for (int i = 0; i < n; i++) part_finish(P, op, i, &copy->results[i], cl);
  return 1;
}

/* A pad: a window of 1 row shifted by the low padding, rows outside the
 * operand the padding value; the untiled dims padded locally. */
static int halo_pad(Part *P, Op *op) {
  Spmd *s = P->s;
  Context *c = s->c;
  int64_t map[1][MAXR];
  if (op->noperands != 2 || !spmd_halo_map(s, op, 0, map[0])) return -1;
  const Type *it = op->operands[0]->type, *rt = op->results[0].type;
  int k = rt->rank, nl, nh, ni;
  const int64_t *lo = spmd_int_list(c, op_attr(op, "edge_padding_low"), &nl);
  const int64_t *hi = spmd_int_list(c, op_attr(op, "edge_padding_high"), &nh);
  const int64_t *in = spmd_int_list(c, op_attr(op, "interior_padding"), &ni);
  const Sharding *cl = compute_layout(P, op, 1, map);
  int64_t l2[MAXR], h2[MAXR];
  bool local = false;
  Win w[MAXR];
  int nw = 0;
  for (int d = 0; d < k; d++) {
    l2[d] = at(lo, nl, d, 0), h2[d] = at(hi, nh, d, 0);
    if (cl && cl->tiles[d] > 1 && (l2[d] || h2[d])) {
      w[nw] = (Win){.dim = d, .t = cl->tiles[d], .D = it->dims[d], .Dout = rt->dims[d], .ke = 1, .s = 1, .lo = l2[d]};
      if (!win_plan(&w[nw++])) return -1;
      l2[d] = h2[d] = 0;
    }
    local = local || l2[d] || h2[d] || at(in, ni, d, 0);
  }
  if (!nw) return -1;
  const Sharding *in_l = operand_layout(P, cl, it, map[0]);
  if (!in_l) return -1;
  Value *vals[2] = {NULL, part_operand_as(P, op->operands[1], layout_replicated(s, 0))};
  vals[0] = windows(P, op->operands[0], in_l, w, nw, vals[1], false);
  Value *y = vals[0];
  if (local) {
    Type *lt = layout_local_type(s, cl, (Type *)rt);
    const char *names[2] = {"edge_padding_high", "edge_padding_low"};
    Attr *values[2] = {attr_dense_i64_array(c, k, h2), attr_dense_i64_array(c, k, l2)};
    y = &rebuild(P, op, vals, &lt, 2, names, values)->results[0];
  }
  part_finish(P, op, 0, y, cl);
  return 1;
}

/* A slice: a window of 1 row shifted by -start with the slice's stride,
 * then the local strided slice. */
static int halo_slice(Part *P, Op *op) {
  Spmd *s = P->s;
  Context *c = s->c;
  int64_t map[1][MAXR];
  if (op->noperands != 1 || !spmd_halo_map(s, op, 0, map[0])) return -1;
  const Type *it = op->operands[0]->type, *rt = op->results[0].type;
  int k = rt->rank, ns, nl, nst;
  const int64_t *sti = spmd_int_list(c, op_attr(op, "start_indices"), &ns);
  const int64_t *lim = spmd_int_list(c, op_attr(op, "limit_indices"), &nl);
  const int64_t *str = spmd_int_list(c, op_attr(op, "strides"), &nst);
  const Sharding *cl = compute_layout(P, op, 1, map);
  int64_t a[MAXR], b[MAXR], st[MAXR];
  bool local = false;
  Win w[MAXR];
  int nw = 0;
  for (int d = 0; d < k; d++) {
    a[d] = at(sti, ns, d, 0), b[d] = at(lim, nl, d, it->dims[d]), st[d] = at(str, nst, d, 1);
    if (cl && cl->tiles[d] > 1) {
      if (a[d] == 0 && b[d] == it->dims[d] && st[d] == 1) {
        b[d] = ceil_div(it->dims[d], cl->tiles[d]);
        continue;
      }
      w[nw] = (Win){.dim = d, .t = cl->tiles[d], .D = it->dims[d], .Dout = rt->dims[d], .ke = 1, .s = st[d], .lo = -a[d]};
      if (!win_plan(&w[nw])) return -1;
      a[d] = 0, b[d] = w[nw++].W;
    }
    local = local || a[d] || st[d] != 1 || (cl && cl->tiles[d] == 1 && b[d] != it->dims[d]);
  }
  if (!nw) return -1;
  const Sharding *in_l = operand_layout(P, cl, it, map[0]);
  if (!in_l) return -1;
  Value *x = windows(P, op->operands[0], in_l, w, nw, NULL, false);
  if (local) {
    Type *lt = layout_local_type(s, cl, (Type *)rt);
    NamedAttr at3[3] = {{"limit_indices", attr_dense_i64_array(c, k, b)},
                        {"start_indices", attr_dense_i64_array(c, k, a)},
                        {"strides", attr_dense_i64_array(c, k, st)}};
    x = part_emit(P, OP_SLICE, 1, &x, lt, 3, at3);
  }
  part_finish(P, op, 0, x, cl);
  return 1;
}

int part_halo(Part *P, Op *op) {
  if (!plain_types(op)) return -1;
  switch (op->kind) {
  case OP_CONVOLUTION: return halo_conv(P, op);
  case OP_REDUCE_WINDOW: return halo_reduce_window(P, op);
  case OP_PAD: return halo_pad(P, op);
  case OP_SLICE: return halo_slice(P, op);
  default: return -1;
  }
}
