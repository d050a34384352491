/* Which dims of an op's result are computed pointwise from which dims of
 * its operands (passes/spmd.h): the one fact propagation and partitioning
 * both need per op.  A mapped pair may be tiled alike on result and
 * operand and the op computed on each piece; everything else must be
 * whole on every partition (or, for the reduction dims, combined after). */
#include <string.h>

#include "passes/spmd.h"

static int64_t int_attr(const Op *op, const char *name, int64_t dflt) {
  int64_t v;
  return attr_as_int(op_attr(op, name), &v) ? v : dflt;
}

const int64_t *spmd_int_list(Context *c, const Attr *a, int *n) {
  const int64_t *v = NULL;
  *n = 0;
  if (a && a->kind == ATTR_DENSE && a->type && a->type->rank == 2 && !a->type->elem_opaque &&
      elem_is_int(a->type->elem) && type_is_static(a->type)) {
    int64_t cnt = a->type->dims[0] * a->type->dims[1];
    int64_t *flat = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(cnt + 1));
    for (int64_t i = 0; i < cnt; i++) flat[i] = dense_get_int(a, i);
    *n = (int)cnt;
    return flat;
  }
  if (a && !attr_as_i64_list(a, n, &v, &c->arena)) *n = 0;
  return v;
}


static void fill(int64_t *out, int k, int64_t v) {
  for (int e = 0; e < k; e++) out[e] = v;
}

static bool in_list(int64_t d, const int64_t *v, int n) {
  for (int i = 0; i < n; i++)
    if (v[i] == d) return true;
  return false;
}

/* Identity on the dims for which keep(d) holds. */
static void identity_where(int64_t *out, int k, const bool *keep) {
  for (int e = 0; e < k; e++) out[e] = keep[e] ? e : -1;
}

/* A reshape's groups: the major non-1 dim of each group of result dims
 * maps to the major non-1 dim of the matching operand dims. */
static void reshape_map(const Type *in, const Type *out, int64_t *map) {
  fill(map, out->rank, -1);
  int i = 0, j = 0;
  while (i < in->rank && j < out->rank) {
    int i0 = i, j0 = j;
    int64_t pi = in->dims[i++], pj = out->dims[j++];
    while (pi != pj) {
      if (pi < pj && i < in->rank) pi *= in->dims[i++];
      else if (pj < pi && j < out->rank) pj *= out->dims[j++];
      else return;
    }
    int a = i0, b = j0;
    while (a < i && in->dims[a] == 1) a++;
    while (b < j && out->dims[b] == 1) b++;
    if (a < i && b < j) map[b] = a;
  }
}

/* dot_general's lists. */
static void dot_lists(Context *c, const Op *op, int side, const int64_t **batch, int *nb, const int64_t **contract,
                      int *nc) {
  const Attr *d = op_attr(op, "dot_dimension_numbers");
  *batch = spmd_int_list(c, dialect_param(d, side ? "rhs_batching_dimensions" : "lhs_batching_dimensions"), nb);
  *contract = spmd_int_list(c, dialect_param(d, side ? "rhs_contracting_dimensions" : "lhs_contracting_dimensions"), nc);
}

/* dot_general: result = batch dims, lhs free dims, rhs free dims. */
static void dot_map(Context *c, const Op *op, int side, int64_t *out) {
  const int64_t *b[2], *k[2];
  int nb[2], nk[2];
  for (int s = 0; s < 2; s++) dot_lists(c, op, s, &b[s], &nb[s], &k[s], &nk[s]);
  int rank = op->results[0].type->rank, e = 0;
  fill(out, rank, -1);
  for (int i = 0; i < nb[0]; i++, e++) out[e] = b[side][i];
  for (int s = 0; s < 2; s++) {
    const Type *t = op->operands[s]->type;
    for (int d = 0; d < t->rank; d++) {
      if (in_list(d, b[s], nb[s]) || in_list(d, k[s], nk[s])) continue;
      if (s == side && e < rank) out[e] = d;
      e++;
    }
  }
}

/* convolution: batch from the input, feature from the kernel; spatial dims
 * only where the window is one element wide with no padding or stride. */
static void conv_map(Context *c, const Op *op, int side, int64_t *out) {
  const Attr *dn = op_attr(op, "dimension_numbers");
  int rank = op->results[0].type->rank;
  fill(out, rank, -1);
  if (!dn || dn->kind != ATTR_CONV_DIMS) return;
  const ConvDims *d = &dn->u.conv;
  int64_t fgc = int_attr(op, "feature_group_count", 1), bgc = int_attr(op, "batch_group_count", 1);
  if (side == 0 && bgc == 1) out[d->output_batch] = d->input_batch;
  if (side == 1 && fgc == 1 && bgc == 1) out[d->output_feature] = d->kernel_output_feature;
  if (side != 0) return;
  int np, ns, nl, nr;
  const int64_t *pad = spmd_int_list(c, op_attr(op, "padding"), &np), *st = spmd_int_list(c, op_attr(op, "window_strides"), &ns);
  const int64_t *ld = spmd_int_list(c, op_attr(op, "lhs_dilation"), &nl), *rd = spmd_int_list(c, op_attr(op, "rhs_dilation"), &nr);
  const Type *k = op->operands[1]->type;
  for (int s = 0; s < d->nspatial; s++) {
    bool pointwise = k->dims[d->kernel_spatial[s]] == 1 && (np < 2 * (s + 1) || (pad[2 * s] == 0 && pad[2 * s + 1] == 0)) &&
                     (ns <= s || st[s] == 1) && (nl <= s || ld[s] == 1) && (nr <= s || rd[s] == 1);
    if (pointwise) out[d->output_spatial[s]] = d->input_spatial[s];
  }
}

/* The ascending positions not in list v (n entries) among 0..rank-1. */
static int complement(const int64_t *v, int n, int rank, int64_t *out) {
  int m = 0;
  for (int d = 0; d < rank; d++)
    if (!in_list(d, v, n)) out[m++] = d;
  return m;
}

/* gather: result offset dims from the operand's dims it slices whole;
 * result batch dims from the indices' batch dims (and the operand's
 * batching dims paired with them). */
static void gather_map(Context *c, const Op *op, int side, int64_t *out) {
  const Attr *dn = op_attr(op, "dimension_numbers");
  const Type *ot = op->operands[0]->type, *it = op->operands[1]->type;
  int k = op->results[0].type->rank, no, nc, nob, nib, ns;
  const int64_t *off = spmd_int_list(c, dialect_param(dn, "offset_dims"), &no);
  const int64_t *col = spmd_int_list(c, dialect_param(dn, "collapsed_slice_dims"), &nc);
  const int64_t *ob = spmd_int_list(c, dialect_param(dn, "operand_batching_dims"), &nob);
  const int64_t *ib = spmd_int_list(c, dialect_param(dn, "start_indices_batching_dims"), &nib);
  const int64_t *sizes = spmd_int_list(c, op_attr(op, "slice_sizes"), &ns);
  int64_t ivd;
  const Attr *ivda = dialect_param(dn, "index_vector_dim");
  if (!ivda || !attr_as_int(ivda, &ivd)) ivd = it->rank;
  int64_t skip[2 * SHARDING_MAX_RANK + 2], kept[SHARDING_MAX_RANK + 1], batch_pos[SHARDING_MAX_RANK + 1];
  int nskip = 0;
  for (int i = 0; i < nc; i++) skip[nskip++] = col[i];
  for (int i = 0; i < nob; i++) skip[nskip++] = ob[i];
  int nkept = complement(skip, nskip, ot->rank, kept);
  int nbatch = complement(off, no, k, batch_pos);
  for (int j = 0; j < no && j < nkept; j++)
    if (side == 0 && kept[j] < ns && sizes[kept[j]] == ot->dims[kept[j]] && off[j] < k) out[off[j]] = kept[j];
  for (int d = 0, b = 0; d < it->rank && b < nbatch; d++) {
    if (d == ivd) continue;
    if (side == 1) out[batch_pos[b]] = d;
    for (int i = 0; side == 0 && i < nib && i < nob; i++)
      if (ib[i] == d) out[batch_pos[b]] = ob[i];
    b++;
  }
}

/* scatter: result dims from the inputs' and updates' dims whose update
 * window covers them whole; the indices stay whole. */
static void scatter_map(Context *c, const Op *op, int i, int64_t *out) {
  int n = (op->noperands - 1) / 2;
  if (i == n) return;
  const Attr *dn = op_attr(op, "scatter_dimension_numbers");
  const Type *ot = op->operands[0]->type, *ut = op->operands[n + 1]->type;
  int nw, ni, nb;
  const int64_t *win = spmd_int_list(c, dialect_param(dn, "update_window_dims"), &nw);
  const int64_t *ins = spmd_int_list(c, dialect_param(dn, "inserted_window_dims"), &ni);
  const int64_t *ib = spmd_int_list(c, dialect_param(dn, "input_batching_dims"), &nb);
  int64_t skip[2 * SHARDING_MAX_RANK + 2], kept[SHARDING_MAX_RANK + 1];
  int nskip = 0;
  for (int j = 0; j < ni; j++) skip[nskip++] = ins[j];
  for (int j = 0; j < nb; j++) skip[nskip++] = ib[j];
  int nkept = complement(skip, nskip, ot->rank, kept);
  for (int j = 0; j < nw && j < nkept; j++) {
    int64_t d = kept[j], u = win[j];
    if (u < 0 || u >= ut->rank || ut->dims[u] != ot->dims[d]) continue;
    out[d] = i < n ? d : u;
  }
}

/* Dims of operand 0 that the op leaves untouched, as keep[] (slice, pad,
 * reverse, concatenate, sort, reduce_window, dynamic_slice, fft ...). */
static bool untouched_dims(Context *c, const Op *op, bool *keep) {
  const Type *t = op->operands[0]->type;
  int r = t->rank, n, m, q;
  for (int d = 0; d < r; d++) keep[d] = true;
  switch (op->kind) {
  case OP_SLICE: {
    const int64_t *st = spmd_int_list(c, op_attr(op, "start_indices"), &n), *li = spmd_int_list(c, op_attr(op, "limit_indices"), &m);
    const int64_t *sd = spmd_int_list(c, op_attr(op, "strides"), &q);
    for (int d = 0; d < r; d++) keep[d] = d < n && d < m && st[d] == 0 && li[d] == t->dims[d] && (d >= q || sd[d] == 1);
    return true;
  }
  case OP_PAD: {
    const int64_t *lo = spmd_int_list(c, op_attr(op, "edge_padding_low"), &n), *hi = spmd_int_list(c, op_attr(op, "edge_padding_high"), &m);
    const int64_t *in = spmd_int_list(c, op_attr(op, "interior_padding"), &q);
    for (int d = 0; d < r; d++) keep[d] = (d >= n || lo[d] == 0) && (d >= m || hi[d] == 0) && (d >= q || in[d] == 0);
    return true;
  }
  case OP_REVERSE: {
    const int64_t *v = spmd_int_list(c, op_attr(op, "dimensions"), &n);
    for (int d = 0; d < r; d++) keep[d] = !in_list(d, v, n);
    return true;
  }
  case OP_CONCATENATE:
  case OP_SORT: {
    int64_t dim = int_attr(op, "dimension", 0);
    if (dim < 0) dim += r;
    for (int d = 0; d < r; d++) keep[d] = d != dim;
    return true;
  }
  case OP_REDUCE_WINDOW: {
    const int64_t *w = spmd_int_list(c, op_attr(op, "window_dimensions"), &n), *s = spmd_int_list(c, op_attr(op, "window_strides"), &m);
    const int64_t *p = spmd_int_list(c, op_attr(op, "padding"), &q);
    int nb, nw;
    const int64_t *bd = spmd_int_list(c, op_attr(op, "base_dilations"), &nb), *wd = spmd_int_list(c, op_attr(op, "window_dilations"), &nw);
    for (int d = 0; d < r; d++)
      keep[d] = d < n && w[d] == 1 && (d >= m || s[d] == 1) && (q < 2 * (d + 1) || (p[2 * d] == 0 && p[2 * d + 1] == 0)) &&
                (d >= nb || bd[d] == 1) && (d >= nw || wd[d] == 1);
    return true;
  }
  case OP_DYNAMIC_SLICE: {
    const int64_t *sz = spmd_int_list(c, op_attr(op, "slice_sizes"), &n);
    for (int d = 0; d < r; d++) keep[d] = d < n && sz[d] == t->dims[d];
    return true;
  }
  case OP_DYNAMIC_UPDATE_SLICE: {
    const Type *u = op->operands[1]->type;
    for (int d = 0; d < r; d++) keep[d] = u->rank == r && u->dims[d] == t->dims[d];
    return true;
  }
  case OP_FFT: {
    spmd_int_list(c, op_attr(op, "fft_length"), &n);
    for (int d = 0; d < r; d++) keep[d] = d < r - n;
    return true;
  }
  case OP_CHOLESKY:
  case OP_TRIANGULAR_SOLVE:
    for (int d = 0; d < r; d++) keep[d] = d < r - 2;
    return true;
  default: return false;
  }
}

/* Operand i of a multi-input op whose trailing operands are scalar init
 * values (reduce, reduce_window, sort has none). */
static bool is_init_value(const Op *op, int i) {
  if (op->kind != OP_REDUCE && op->kind != OP_REDUCE_WINDOW) return false;
  return i >= op->noperands / 2;
}

static bool dim_map(Context *c, const Op *op, int i, int64_t *out) {
  const Type *rt = op->nresults ? op->results[0].type : NULL, *it = op->operands[i]->type;
  if (!rt || !type_is_static(rt) || !type_is_static(it)) return false;
  int k = rt->rank;
  bool keep[SHARDING_MAX_RANK + 1];
  if (k > SHARDING_MAX_RANK || it->rank > SHARDING_MAX_RANK) return false;
  fill(out, k, -1);
  if ((op_info[op->kind].traits & TRAIT_ELEMENTWISE) || op->kind == OP_MAP ||
      (op->kind == OP_BITCAST_CONVERT && it->rank == k) || op->kind == OP_REDUCE_PRECISION) {
    if (it->rank == k)
      for (int e = 0; e < k; e++) out[e] = e;
    return true;
  }
  switch (op->kind) {
  case OP_BROADCAST_IN_DIM: {
    int n;
    const int64_t *bd = spmd_int_list(c, op_attr(op, "broadcast_dimensions"), &n);
    for (int j = 0; j < n && j < it->rank; j++)
      if (bd[j] >= 0 && bd[j] < k && it->dims[j] == rt->dims[bd[j]]) out[bd[j]] = j;
    return true;
  }
  case OP_TRANSPOSE: {
    int n;
    const int64_t *perm = spmd_int_list(c, op_attr(op, "permutation"), &n);
    for (int e = 0; e < k && e < n; e++) out[e] = perm[e];
    return true;
  }
  case OP_RESHAPE: reshape_map(it, rt, out); return true;
  case OP_REDUCE: {
    if (is_init_value(op, i)) return true;
    int n;
    const int64_t *v = spmd_int_list(c, op_attr(op, "dimensions"), &n);
    for (int d = 0, e = 0; d < it->rank && e < k; d++)
      if (!in_list(d, v, n)) out[e++] = d;
    return true;
  }
  case OP_DOT_GENERAL:
    if (i < 2) dot_map(c, op, i, out);
    return true;
  case OP_CONVOLUTION:
    if (i < 2) conv_map(c, op, i, out);
    return true;
  case OP_DOT:
    /* [M?, K] x [K, N?]: M from the lhs, N from the rhs */
    if (i == 0 && it->rank == 2) out[0] = 0;
    if (i == 1 && it->rank == 2) out[k - 1] = 1;
    return i < 2;
  case OP_GATHER: gather_map(c, op, i, out); return true;
  case OP_SCATTER: scatter_map(c, op, i, out); return true;
  default: break;
  }
  if (is_init_value(op, i) || it->rank != k) return untouched_dims(c, op, keep);
  if (!untouched_dims(c, op, keep)) return false;
  identity_where(out, k, keep);
  return true;
}

bool spmd_dim_map(const Spmd *s, const Op *op, int operand, int64_t *out) { return dim_map(s->c, op, operand, out); }

int spmd_reduction_dims(const Spmd *s, const Op *op, int64_t *lhs, int64_t *rhs) {
  Context *c = s->c;
  int n = 0;
  if (op->kind == OP_REDUCE && op->noperands == 2) {
    int nd;
    const int64_t *v = spmd_int_list(c, op_attr(op, "dimensions"), &nd);
    for (; n < nd && n < SHARDING_MAX_RANK; n++) lhs[n] = v[n], rhs[n] = -1;
  } else if (op->kind == OP_DOT && op->noperands == 2) {
    lhs[0] = op->operands[0]->type->rank - 1;
    rhs[0] = 0;
    n = 1;
  } else if (op->kind == OP_DOT_GENERAL) {
    const int64_t *b, *k[2];
    int nb, nk[2];
    dot_lists(c, op, 0, &b, &nb, &k[0], &nk[0]);
    dot_lists(c, op, 1, &b, &nb, &k[1], &nk[1]);
    for (; n < nk[0] && n < nk[1] && n < SHARDING_MAX_RANK; n++) lhs[n] = k[0][n], rhs[n] = k[1][n];
  } else if (op->kind == OP_CONVOLUTION && int_attr(op, "feature_group_count", 1) == 1 &&
             int_attr(op, "batch_group_count", 1) == 1) {
    const Attr *dn = op_attr(op, "dimension_numbers");
    if (dn && dn->kind == ATTR_CONV_DIMS) {
      lhs[0] = dn->u.conv.input_feature;
      rhs[0] = dn->u.conv.kernel_input_feature;
      n = 1;
    }
  }
  return n;
}
