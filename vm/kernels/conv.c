/* convolution, as im2col + matrix products (gemm.h).
 *
 * The operands are brought into canonical layouts in the compute kind:
 * input [batch][spatial...][feature], kernel [spatial...][in feature][out
 * feature] (window reversal applied), output [batch][spatial...][feature].
 * For each feature or batch group, chunks of output positions are expanded
 * into patch rows (window positions x input features, zero where the window
 * falls on padding or between dilated input elements) and multiplied by the
 * kernel matrix into the canonical output, which is finally permuted (and
 * converted) into the result. */
#include <string.h>

#include "vm/dtype.h"
#include "vm/kernels/gemm.h"
#include "vm/parallel.h"
#include "vm/kernels/kernels.h"

enum {
  CV_WINDOW_STRIDES,
  CV_PADDING,
  CV_LHS_DILATION,
  CV_RHS_DILATION,
  CV_WINDOW_REVERSAL,
  CV_INPUT_BATCH,
  CV_INPUT_FEATURE,
  CV_INPUT_SPATIAL,
  CV_KERNEL_INPUT_FEATURE,
  CV_KERNEL_OUTPUT_FEATURE,
  CV_KERNEL_SPATIAL,
  CV_OUTPUT_BATCH,
  CV_OUTPUT_FEATURE,
  CV_OUTPUT_SPATIAL,
  CV_FEATURE_GROUP_COUNT,
  CV_BATCH_GROUP_COUNT,
};

#define CV_MAX_SPATIAL (TPUB_MAX_RANK - 2)
#define CV_PAD_LIMIT ((int64_t)1 << 48) /* |padding| bound, keeps index math in range */

/* Everything EXEC needs, derived from the types and fields. */
typedef struct ConvPlan {
  int S; /* spatial dims */
  int in_dims[TPUB_MAX_RANK];  /* input dims: batch, spatial..., feature */
  int ker_dims[TPUB_MAX_RANK]; /* kernel dims: spatial..., in feature, out feature */
  int out_dims[TPUB_MAX_RANK]; /* output dims: batch, spatial..., feature */
  int64_t batch_in, feat_in, in_sp[CV_MAX_SPATIAL];
  int64_t win[CV_MAX_SPATIAL], ck, feat_out;
  int64_t batch_out, out_sp[CV_MAX_SPATIAL];
  int64_t stride[CV_MAX_SPATIAL], lo[CV_MAX_SPATIAL], ldil[CV_MAX_SPATIAL], rdil[CV_MAX_SPATIAL];
  int64_t dilated_in[CV_MAX_SPATIAL];
  bool reverse[CV_MAX_SPATIAL];
  int64_t groups; /* feature_group_count or batch_group_count, whichever is > 1 */
  bool batch_groups;
} ConvPlan;

/* Checks that dims[0..n) are distinct and in [0, rank). */
static bool distinct_dims(const int *dims, int n, int rank) {
  uint32_t used = 0;
  for (int i = 0; i < n; i++) {
    if (dims[i] < 0 || dims[i] >= rank || (used & (1u << dims[i]))) return false;
    used |= 1u << dims[i];
  }
  return true;
}

/* The plan builders below write the reason to err and return false. */
#define FAIL(...) return snprintf(err, errlen, __VA_ARGS__), false

/* The spatial attribute lists of a convolution. */
typedef struct ConvLists {
  const int64_t *strides, *padding, *ldil, *rdil, *rev, *isp, *ksp, *osp;
} ConvLists;

/* Reads the lists; each must have S entries (padding 2S). */
static bool conv_lists(const VmInstr *ins, int S, ConvLists *l, char *err, size_t errlen) {
  int64_t n;
  l->strides = vm_field_list(ins, CV_WINDOW_STRIDES, &n);
  if (n != S) FAIL("window_strides has %lld entries, expected %d", (long long)n, S);
  l->padding = vm_field_list(ins, CV_PADDING, &n);
  if (n != 2 * S) FAIL("padding has %lld entries, expected %d", (long long)n, 2 * S);
  l->ldil = vm_field_list(ins, CV_LHS_DILATION, &n);
  if (n != S) FAIL("lhs_dilation has %lld entries, expected %d", (long long)n, S);
  l->rdil = vm_field_list(ins, CV_RHS_DILATION, &n);
  if (n != S) FAIL("rhs_dilation has %lld entries, expected %d", (long long)n, S);
  l->rev = vm_field_list(ins, CV_WINDOW_REVERSAL, &n);
  if (n != S) FAIL("window_reversal has %lld entries, expected %d", (long long)n, S);
  l->isp = vm_field_list(ins, CV_INPUT_SPATIAL, &n);
  if (n != S) FAIL("input_spatial_dimensions has %lld entries, expected %d", (long long)n, S);
  l->ksp = vm_field_list(ins, CV_KERNEL_SPATIAL, &n);
  if (n != S) FAIL("kernel_spatial_dimensions has %lld entries, expected %d", (long long)n, S);
  l->osp = vm_field_list(ins, CV_OUTPUT_SPATIAL, &n);
  if (n != S) FAIL("output_spatial_dimensions has %lld entries, expected %d", (long long)n, S);
  return true;
}

/* The dimension numbers into p->in_dims, ker_dims, out_dims: each a
 * permutation of 0..N-1. */
static bool conv_dim_numbers(const VmInstr *ins, const ConvLists *l, int N, ConvPlan *p, char *err, size_t errlen) {
  int S = N - 2;
  int64_t all_in[TPUB_MAX_RANK], all_ker[TPUB_MAX_RANK], all_out[TPUB_MAX_RANK];
  all_in[0] = vm_field_int(ins, CV_INPUT_BATCH), all_in[N - 1] = vm_field_int(ins, CV_INPUT_FEATURE);
  all_out[0] = vm_field_int(ins, CV_OUTPUT_BATCH), all_out[N - 1] = vm_field_int(ins, CV_OUTPUT_FEATURE);
  all_ker[N - 2] = vm_field_int(ins, CV_KERNEL_INPUT_FEATURE);
  all_ker[N - 1] = vm_field_int(ins, CV_KERNEL_OUTPUT_FEATURE);
  for (int s = 0; s < S; s++) all_in[1 + s] = l->isp[s], all_ker[s] = l->ksp[s], all_out[1 + s] = l->osp[s];
  for (int i = 0; i < N; i++) {
    if (all_in[i] < 0 || all_in[i] >= N || all_ker[i] < 0 || all_ker[i] >= N || all_out[i] < 0 ||
        all_out[i] >= N)
      FAIL("dimension number out of range [0, %d)", N);
    p->in_dims[i] = (int)all_in[i], p->ker_dims[i] = (int)all_ker[i], p->out_dims[i] = (int)all_out[i];
  }
  if (!distinct_dims(p->in_dims, N, N)) FAIL("input dimension numbers are not distinct");
  if (!distinct_dims(p->ker_dims, N, N)) FAIL("kernel dimension numbers are not distinct");
  if (!distinct_dims(p->out_dims, N, N)) FAIL("output dimension numbers are not distinct");
  return true;
}

/* Batch and feature sizes and the feature / batch group counts. */
static bool conv_groups(const VmInstr *ins, const VmType *lhs, const VmType *rhs, const VmType *res, int N,
                        ConvPlan *p, char *err, size_t errlen) {
  int64_t fgc = vm_field_int(ins, CV_FEATURE_GROUP_COUNT), bgc = vm_field_int(ins, CV_BATCH_GROUP_COUNT);
  int ob = p->out_dims[0], ofeat = p->out_dims[N - 1];
  if (fgc < 1 || bgc < 1) FAIL("feature_group_count and batch_group_count must be positive");
  if (fgc > 1 && bgc > 1) FAIL("feature_group_count and batch_group_count cannot both exceed 1");
  p->batch_in = lhs->dims[p->in_dims[0]];
  p->feat_in = lhs->dims[p->in_dims[N - 1]];
  p->ck = rhs->dims[p->ker_dims[N - 2]];
  p->feat_out = rhs->dims[p->ker_dims[N - 1]];
  if (p->batch_in % bgc) FAIL("input batch %lld not divisible by batch_group_count %lld", (long long)p->batch_in, (long long)bgc);
  if (p->feat_in % fgc) FAIL("input features %lld not divisible by feature_group_count %lld", (long long)p->feat_in, (long long)fgc);
  if (p->ck != p->feat_in / fgc)
    FAIL("kernel input features %lld != input features %lld / feature_group_count %lld", (long long)p->ck,
         (long long)p->feat_in, (long long)fgc);
  if (p->feat_out % bgc || p->feat_out % fgc)
    FAIL("kernel output features %lld not divisible by the group counts", (long long)p->feat_out);
  p->groups = fgc > 1 ? fgc : bgc;
  p->batch_groups = bgc > 1;
  p->batch_out = p->batch_in / bgc;
  if (res->dims[ob] != p->batch_out)
    FAIL("result batch dim is %lld, expected %lld", (long long)res->dims[ob], (long long)p->batch_out);
  if (res->dims[ofeat] != p->feat_out)
    FAIL("result feature dim is %lld, expected %lld", (long long)res->dims[ofeat], (long long)p->feat_out);
  return true;
}

/* Spatial dimension s: strides, dilations, padding, reversal, and the
 * window count the result must have. */
static bool conv_spatial(const ConvLists *l, int s, const VmType *lhs, const VmType *rhs, const VmType *res,
                         ConvPlan *p, char *err, size_t errlen) {
  if (l->strides[s] < 1 || l->ldil[s] < 1 || l->rdil[s] < 1) FAIL("window strides and dilations must be positive");
  if (l->rev[s] != 0 && l->rev[s] != 1) FAIL("window_reversal entries must be 0 or 1");
  int64_t lo = l->padding[2 * s], hi = l->padding[2 * s + 1];
  if (lo < -CV_PAD_LIMIT || lo > CV_PAD_LIMIT || hi < -CV_PAD_LIMIT || hi > CV_PAD_LIMIT)
    FAIL("padding [%lld, %lld] out of the supported range", (long long)lo, (long long)hi);
  int64_t in = lhs->dims[l->isp[s]], w = rhs->dims[l->ksp[s]], dil_in = 0, dil_w = 0, padded, count;
  if (in > 0 && (__builtin_mul_overflow(in - 1, l->ldil[s], &dil_in) || dil_in > INT64_MAX / 4))
    FAIL("dilated input size overflows");
  if (in > 0) dil_in += 1;
  if (w > 0 && (__builtin_mul_overflow(w - 1, l->rdil[s], &dil_w) || dil_w > INT64_MAX / 4))
    FAIL("dilated window size overflows");
  if (w > 0) dil_w += 1;
  padded = lo + dil_in + hi;
  count = (padded <= 0 || dil_w > padded) ? 0 : (padded - dil_w) / l->strides[s] + 1;
  if (res->dims[l->osp[s]] != count)
    FAIL("result spatial dim %d is %lld, expected %lld", (int)l->osp[s], (long long)res->dims[l->osp[s]],
         (long long)count);
  p->in_sp[s] = in;
  p->win[s] = w;
  p->out_sp[s] = count;
  p->stride[s] = l->strides[s];
  p->lo[s] = lo;
  p->ldil[s] = l->ldil[s];
  p->rdil[s] = l->rdil[s];
  p->dilated_in[s] = dil_in;
  p->reverse[s] = l->rev[s] != 0;
  return true;
}

/* Builds the plan; on an invalid instruction writes the reason to err and
 * returns false (used by CHECK; EXEC rebuilds it and cannot fail). */
static bool conv_plan(const VmInstr *ins, const VmType *lhs, const VmType *rhs, const VmType *res,
                      ConvPlan *p, char *err, size_t errlen) {
  memset(p, 0, sizeof *p);
  int N = lhs->rank;
  if (N < 2 || rhs->rank != N || res->rank != N)
    FAIL("lhs, rhs and result must have the same rank >= 2 (got %d, %d, %d)", lhs->rank, rhs->rank,
         res->rank);
  int S = p->S = N - 2;
  ConvLists l;
  if (!conv_lists(ins, S, &l, err, errlen) || !conv_dim_numbers(ins, &l, N, p, err, errlen) ||
      !conv_groups(ins, lhs, rhs, res, N, p, err, errlen))
    return false;
  for (int s = 0; s < S; s++)
    if (!conv_spatial(&l, s, lhs, rhs, res, p, err, errlen)) return false;
  if (gemm_kind_for(res->elem, lhs->elem, rhs->elem) < 0)
    FAIL("unsupported element types %s x %s -> %s", vm_elem_name(lhs->elem), vm_elem_name(rhs->elem),
         vm_elem_name(res->elem));
  return true;
}
#undef FAIL

bool check_convolution(VmCheck *c) {
  const VmType *lhs = vm_check_in(c, 0), *rhs = vm_check_in(c, 1), *res = vm_check_out(c, 0);
  if (!vm_type_is_tensor(lhs) || !vm_type_is_tensor(rhs) || !vm_type_is_tensor(res))
    return vm_check_fail(c, "convolution: operands and result must be tensors");
  ConvPlan p;
  char why[200];
  if (!conv_plan(c->ins, lhs, rhs, res, &p, why, sizeof why))
    return vm_check_fail(c, "convolution: %s", why);
  return true;
}

/* Scratch buffers of one execution, freed together. */
typedef struct ConvBufs {
  VmExec *x;
  void *ptr[12];
  size_t bytes[12];
  int n;
} ConvBufs;

static void *bufs_alloc(ConvBufs *b, size_t bytes) {
  if (b->n == 12) return NULL;
  void *p = vm_scratch_alloc(b->x, bytes ? bytes : 1);
  if (p) {
    b->ptr[b->n] = p;
    b->bytes[b->n++] = bytes ? bytes : 1;
  }
  return p;
}

static void bufs_free(ConvBufs *b) {
  for (int i = 0; i < b->n; i++) vm_scratch_free(b->x, b->ptr[i], b->bytes[i]);
  b->n = 0;
}

/* Returns operand t's data in the compute kind, permuted into `order` (and
 * flipped along axes whose flip[i] is set), reusing the input when nothing
 * changes; NULL when out of memory. */
static const void *canonical_operand(ConvBufs *b, GemmKind kind, const VmTensor *t, const int *order,
                                     const bool *flip) {
  const VmType *ty = t->type;
  int es = gemm_kind_bytes(kind);
  const void *data = t->data;
  if (!gemm_is_native(kind, ty->elem)) {
    void *conv = bufs_alloc(b, (size_t)ty->count * es);
    if (!conv) return NULL;
    gemm_load(kind, ty->elem, t->data, ty->count, conv);
    data = conv;
  }
  bool identity = true;
  for (int i = 0; i < ty->rank; i++) identity = identity && order[i] == i && !flip[i];
  if (identity) return data;
  int64_t rm[TPUB_MAX_RANK], sizes[TPUB_MAX_RANK], strides[TPUB_MAX_RANK], s = 1;
  for (int d = ty->rank - 1; d >= 0; d--) rm[d] = s, s *= ty->dims[d];
  int64_t base = 0;
  for (int i = 0; i < ty->rank; i++) {
    sizes[i] = ty->dims[order[i]];
    strides[i] = rm[order[i]];
    if (flip[i] && sizes[i] > 0) {
      base += (sizes[i] - 1) * strides[i];
      strides[i] = -strides[i];
    }
  }
  void *perm = bufs_alloc(b, (size_t)ty->count * es);
  if (!perm) return NULL;
  if (ty->count) gemm_strided_copy(es, ty->rank, sizes, strides, (const char *)data + base * es, perm);
  return perm;
}

/* For output position y: tab[s][w] = offset (in elements of the canonical
 * input) of window position w along spatial dim s, or -1 when it falls on
 * padding or between dilated input elements. */
static void conv_window_tables(const ConvPlan *p, const int64_t *y, const int64_t *in_stride,
                               int64_t *const *tab) {
  for (int s = 0; s < p->S; s++)
    for (int64_t w = 0; w < p->win[s]; w++) {
      int64_t pos = y[s] * p->stride[s] + w * p->rdil[s] - p->lo[s];
      bool ok = pos >= 0 && pos < p->dilated_in[s] && pos % p->ldil[s] == 0;
      tab[s][w] = ok ? pos / p->ldil[s] * in_stride[s + 1] : -1;
    }
}

/* Fills rows [row0, row0 + nrows) of the patch matrix of group q: row
 * (n, y...) holds, for each window position w... and input feature c, the
 * canonical input at the window's position or zero. */
static void im2col_rows(const ConvPlan *p, int es, const char *in, int64_t q, int64_t row0,
                        int64_t nrows, char *a, int64_t *tabs) {
  int S = p->S;
  int64_t yprod = 1, kdim = p->ck, in_stride[CV_MAX_SPATIAL + 1];
  for (int s = 0; s < S; s++) yprod *= p->out_sp[s], kdim *= p->win[s];
  in_stride[S] = p->feat_in;
  for (int s = S - 1; s >= 0; s--) in_stride[s] = in_stride[s + 1] * p->in_sp[s];
  int64_t batch_stride = S > 0 ? in_stride[0] : p->feat_in;
  int64_t c_off = p->batch_groups ? 0 : q * p->ck;
  int64_t n_off = p->batch_groups ? q * p->batch_out : 0;
  size_t chunk = (size_t)(p->ck * es);
  int64_t *tab[CV_MAX_SPATIAL];
  int64_t tab_off = 0;
  for (int s = 0; s < S; s++) tab[s] = tabs + tab_off, tab_off += p->win[s];
  int64_t y[CV_MAX_SPATIAL];
  int64_t rest = row0 % yprod;
  int64_t nb = row0 / yprod;
  for (int s = S - 1; s >= 0; s--) y[s] = rest % p->out_sp[s], rest /= p->out_sp[s];
  for (int64_t r = 0; r < nrows; r++) {
    char *row = a + (size_t)(r * kdim) * es;
    const char *base = in + (size_t)((nb + n_off) * batch_stride + c_off) * es;
    conv_window_tables(p, y, in_stride, tab);
    int64_t w[CV_MAX_SPATIAL] = {0};
    int64_t wlast = S > 0 ? p->win[S - 1] : 1;
    int64_t outer = 1;
    for (int s = 0; s + 1 < S; s++) outer *= p->win[s];
    for (int64_t o = 0; o < outer; o++) {
      int64_t off = 0;
      bool valid = true;
      for (int s = 0; s + 1 < S; s++) {
        int64_t v = tab[s][w[s]];
        valid = valid && v >= 0;
        off += v;
      }
      for (int64_t wl = 0; wl < wlast; wl++) {
        int64_t v = S > 0 ? tab[S - 1][wl] : 0;
        if (valid && v >= 0)
          memcpy(row, base + (size_t)(off + v) * es, chunk);
        else
          memset(row, 0, chunk);
        row += chunk;
      }
      for (int s = S - 2; s >= 0; s--) {
        if (++w[s] < p->win[s]) break;
        w[s] = 0;
      }
    }
    for (int s = S - 1; s >= 0; s--) {
      if (++y[s] < p->out_sp[s]) break;
      y[s] = 0;
      if (s == 0) nb++;
    }
    if (S == 0) nb++;
  }
}

/* Grouped convolution computed directly (no patch matrix): for narrow
 * groups (depthwise convolutions) one small product per group would waste
 * most of the matrix kernel.  Each output row accumulates, over window
 * positions then input features, in[position][group feature] * kernel. */
#define DEFINE_CONV_DIRECT(NAME, T)                                                        \
  static void NAME(const ConvPlan *p, const T *in, const T *ker, T *out, int64_t *tabs,    \
                   T *acc, int64_t *fidx) {                                                \
    int S = p->S;                                                                          \
    int64_t O = p->feat_out, og = O / p->groups, ck = p->ck, yprod = 1, wprod = 1;         \
    int64_t in_stride[CV_MAX_SPATIAL + 1], y[CV_MAX_SPATIAL] = {0}, nb = 0;                \
    int64_t *tab[CV_MAX_SPATIAL], tab_off = 0;                                             \
    for (int s = 0; s < S; s++) yprod *= p->out_sp[s], wprod *= p->win[s];                 \
    in_stride[S] = p->feat_in;                                                             \
    for (int s = S - 1; s >= 0; s--) in_stride[s] = in_stride[s + 1] * p->in_sp[s];        \
    for (int s = 0; s < S; s++) tab[s] = tabs + tab_off, tab_off += p->win[s];             \
    for (int64_t o = 0; o < O; o++) fidx[o] = o / og * ck;                                 \
    for (int64_t r = 0; r < p->batch_out * yprod; r++) {                                   \
      conv_window_tables(p, y, in_stride, tab);                                            \
      for (int64_t o = 0; o < O; o++) acc[o] = 0;                                          \
      const T *base = in + nb * in_stride[0];                                              \
      int64_t w[CV_MAX_SPATIAL] = {0};                                                     \
      for (int64_t wl = 0; wl < wprod; wl++) {                                             \
        int64_t off = 0;                                                                   \
        bool valid = true;                                                                 \
        for (int s = 0; s < S; s++) {                                                      \
          valid = valid && tab[s][w[s]] >= 0;                                              \
          off += tab[s][w[s]];                                                             \
        }                                                                                  \
        if (valid) {                                                                       \
          const T *ip = base + off, *kp = ker + wl * ck * O;                               \
          if (ck == 1 && og == 1) {                                                        \
            for (int64_t o = 0; o < O; o++) acc[o] += ip[o] * kp[o];                       \
          } else {                                                                         \
            for (int64_t c = 0; c < ck; c++)                                               \
              for (int64_t o = 0; o < O; o++) acc[o] += ip[fidx[o] + c] * kp[c * O + o];   \
          }                                                                                \
        }                                                                                  \
        for (int s = S - 1; s >= 0; s--) {                                                 \
          if (++w[s] < p->win[s]) break;                                                   \
          w[s] = 0;                                                                        \
        }                                                                                  \
      }                                                                                    \
      memcpy(out + r * O, acc, sizeof(T) * (size_t)O);                                     \
      int s = S - 1;                                                                       \
      for (; s >= 0; s--) {                                                                \
        if (++y[s] < p->out_sp[s]) break;                                                  \
        y[s] = 0;                                                                          \
      }                                                                                    \
      if (s < 0) nb++;                                                                     \
    }                                                                                      \
  }

DEFINE_CONV_DIRECT(conv_direct_f32, float)
DEFINE_CONV_DIRECT(conv_direct_f64, double)

/* The im2col path: the output rows split into chunks of patches, each
 * chunk a GEMM against the group's kernel.  Chunks are independent (each
 * output element sums over the same K in the same order whatever the
 * chunk), so they run as tasks on host threads with per-worker patch
 * buffers and reserved GEMM buffers (vm/parallel.h): the same bits for any
 * thread count. */
typedef struct PatchWorker {
  GemmWork gemm;
  char *a;
  int64_t *tabs;
} PatchWorker;

typedef struct PatchRun {
  const ConvPlan *p;
  int es;
  const char *inp, *ker;
  char *outc;
  int64_t rows, og, kdim, chunk_rows, nchunks;
  PatchWorker workers[64];
} PatchRun;

static int patch_task(void *ctx, int worker, int64_t task) {
  PatchRun *r = ctx;
  PatchWorker *w = &r->workers[worker];
  int64_t q = task / r->nchunks, r0 = (task % r->nchunks) * r->chunk_rows;
  int64_t nr = r->rows - r0 < r->chunk_rows ? r->rows - r0 : r->chunk_rows;
  size_t es = (size_t)r->es;
  if (r->kdim > 0) im2col_rows(r->p, r->es, r->inp, q, r0, nr, w->a, w->tabs);
  return gemm_run(&w->gemm, nr, r->og, r->kdim, w->a, r->kdim, 1, r->ker + (size_t)(q * r->og) * es, r->p->feat_out,
                  1, r->outc + (size_t)(r0 * r->p->feat_out + q * r->og) * es, r->p->feat_out);
}

static int conv_patches(VmExec *x, const ConvPlan *p, GemmKind kind, const char *inp, const char *ker, char *outc,
                        int64_t rows, int64_t og, int64_t kdim, int64_t chunk_rows) {
  PatchRun r = {.p = p, .es = gemm_kind_bytes(kind), .inp = inp, .ker = ker, .outc = outc, .rows = rows, .og = og,
                .kdim = kdim, .chunk_rows = chunk_rows, .nchunks = (rows + chunk_rows - 1) / chunk_rows};
  int64_t ntasks = p->groups * r.nchunks, ntab = 1;
  for (int s = 0; s < p->S; s++) ntab += p->win[s];
  /* Threads pay only for real work: one worker below a few MFLOP. */
  int nworkers = 2.0 * (double)rows * (double)og * (double)kdim < 4e6 ? 1 : vm_parallel_workers(x, ntasks);
  if (nworkers > 64) nworkers = 64;
  size_t abytes = (size_t)(chunk_rows * kdim) * (size_t)r.es + 1, tbytes = (size_t)ntab * sizeof(int64_t);
  int ready = 0, status = VM_OK;
  for (; ready < nworkers; ready++) {
    PatchWorker *w = &r.workers[ready];
    gemm_work_init(&w->gemm, x, kind);
    w->a = vm_tile_alloc(x, abytes);
    w->tabs = vm_tile_alloc(x, tbytes);
    if (!w->a || !w->tabs || (status = gemm_work_reserve(&w->gemm, chunk_rows, og, kdim)) != VM_OK) {
      ready++;
      status = VM_TRAP;
      break;
    }
  }
  if (status == VM_OK) {
    if (nworkers == 1) {
      for (int64_t t = 0; t < ntasks && status == VM_OK; t++) status = patch_task(&r, 0, t);
    } else {
      status = vm_parallel_for(x, ntasks, patch_task, &r);
    }
    if (status != VM_OK) status = vm_trap(x, "internal error: a convolution chunk outgrew its reserved buffers");
  } else {
    status = vm_trap(x, "out of memory: convolution patches");
  }
  for (int i = 0; i < ready; i++) {
    PatchWorker *w = &r.workers[i];
    gemm_work_free(&w->gemm);
    if (w->a) vm_tile_free(x, w->a, abytes);
    if (w->tabs) vm_tile_free(x, w->tabs, tbytes);
  }
  return status;
}

/* Computes the output in canonical [batch][spatial...][feature] layout
 * into outc: grouped convolutions with few outputs per group directly, a
 * 1x1 window as one matrix product per group, others through patches. */
static int conv_compute(VmExec *x, const ConvPlan *p, GemmKind kind, GemmWork *w, ConvBufs *b, const char *inp,
                        const char *ker, char *outc) {
  int S = p->S, es = gemm_kind_bytes(kind);
  int64_t yprod = 1, wprod = 1, iprod = 1;
  bool pointwise = true;
  for (int s = 0; s < S; s++) {
    yprod *= p->out_sp[s], wprod *= p->win[s], iprod *= p->in_sp[s];
    pointwise = pointwise && p->win[s] == 1 && p->stride[s] == 1 && p->lo[s] == 0 && p->ldil[s] == 1 &&
                p->out_sp[s] == p->in_sp[s];
  }
  int64_t kdim = p->ck * wprod, rows = p->batch_out * yprod, og = p->feat_out / p->groups;
  bool direct = !p->batch_groups && p->groups > 1 && og < 16 && (kind == GK_F32 || kind == GK_F64);
  if (direct) {
    int64_t ntab = 1;
    for (int s = 0; s < S; s++) ntab += p->win[s];
    int64_t *tabs = bufs_alloc(b, (size_t)(ntab + p->feat_out) * sizeof(int64_t));
    void *acc = bufs_alloc(b, (size_t)p->feat_out * es);
    if (!tabs || !acc) return vm_trap(x, "out of memory: convolution buffers");
    if (kind == GK_F32)
      conv_direct_f32(p, (const float *)inp, (const float *)ker, (float *)outc, tabs, acc, tabs + ntab);
    else
      conv_direct_f64(p, (const double *)inp, (const double *)ker, (double *)outc, tabs, acc, tabs + ntab);
    return VM_OK;
  }
  if (pointwise) {
    /* 1x1 window, no stride/padding/dilation: the canonical input is the patch matrix */
    int status = VM_OK;
    for (int64_t q = 0; status == VM_OK && q < p->groups; q++) {
      const char *a = inp + (size_t)(p->batch_groups ? q * p->batch_out * iprod * p->feat_in : q * p->ck) * es;
      status = gemm_run(w, rows, og, kdim, a, p->feat_in, 1, ker + (size_t)(q * og) * es, p->feat_out, 1,
                        outc + (size_t)(q * og) * es, p->feat_out);
    }
    return status;
  }
  int64_t target = (int64_t)1 << 18; /* patch elements per chunk */
  int64_t chunk_rows = kdim > 0 ? target / kdim : rows;
  if (chunk_rows < 1) chunk_rows = 1;
  if (chunk_rows > rows) chunk_rows = rows;
  return conv_patches(x, p, kind, inp, ker, outc, rows, og, kdim, chunk_rows);
}

/* Writes the canonical output outc to the result's layout and type:
 * result dim out_dims[i] reads canonical axis i (batch, spatial 0..S-1,
 * feature). */
static int conv_store(VmExec *x, const ConvPlan *p, GemmKind kind, ConvBufs *b, const char *outc, VmTensor *out) {
  const VmType *ot = out->type;
  int S = p->S, R = S + 2, es = gemm_kind_bytes(kind);
  int64_t yprod = 1;
  for (int s = 0; s < S; s++) yprod *= p->out_sp[s];
  int64_t axis_stride[TPUB_MAX_RANK], sizes[TPUB_MAX_RANK], strides[TPUB_MAX_RANK];
  axis_stride[R - 1] = 1;
  axis_stride[S] = p->feat_out;
  for (int s = S - 1; s >= 1; s--) axis_stride[s] = axis_stride[s + 1] * p->out_sp[s];
  axis_stride[0] = yprod * p->feat_out;
  for (int i = 0; i < R; i++) {
    sizes[p->out_dims[i]] = ot->dims[p->out_dims[i]];
    strides[p->out_dims[i]] = axis_stride[i];
  }
  bool native = gemm_is_native(kind, ot->elem);
  char *dst = native ? out->data : bufs_alloc(b, (size_t)ot->count * es);
  if (!dst) return vm_trap(x, "out of memory: convolution result");
  gemm_strided_copy(es, R, sizes, strides, outc, dst);
  if (!native) gemm_store(kind, ot->elem, dst, ot->count, out->data);
  return VM_OK;
}

int exec_convolution(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  const VmType *lt = in[0].type, *rt = in[1].type, *ot = out[0].type;
  if (ot->count == 0) return VM_OK;
  ConvPlan p;
  char why[200];
  if (!conv_plan(ins, lt, rt, ot, &p, why, sizeof why)) return vm_trap(x, "convolution: %s", why);
  GemmKind kind = (GemmKind)gemm_kind_for(ot->elem, lt->elem, rt->elem);
  int es = gemm_kind_bytes(kind);
  ConvBufs b = {.x = x};
  GemmWork w;
  gemm_work_init(&w, x, kind);
  int status;
  bool no_flip[TPUB_MAX_RANK] = {false}, ker_flip[TPUB_MAX_RANK] = {false};
  for (int s = 0; s < p.S; s++) ker_flip[s] = p.reverse[s];
  const char *inp = canonical_operand(&b, kind, &in[0], p.in_dims, no_flip);
  const char *ker = inp ? canonical_operand(&b, kind, &in[1], p.ker_dims, ker_flip) : NULL;
  /* output canonical [batch][spatial...][feature]: written in place when
   * the result already has that layout and the compute kind's storage */
  bool out_identity = gemm_is_native(kind, ot->elem);
  for (int i = 0; i < p.S + 2; i++) out_identity = out_identity && p.out_dims[i] == i;
  char *outc = !ker ? NULL : out_identity ? out[0].data : bufs_alloc(&b, (size_t)ot->count * es);
  if (!outc)
    status = vm_trap(x, "out of memory: convolution operands");
  else
    status = conv_compute(x, &p, kind, &w, &b, inp, ker, outc);
  if (status == VM_OK && !out_identity) status = conv_store(x, &p, kind, &b, outc, &out[0]);
  gemm_work_free(&w);
  bufs_free(&b);
  return status;
}
