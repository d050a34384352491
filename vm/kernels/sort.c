/* sort and top_k (vm/opcodes.def "reductions and ops with regions"): stable
 * merge sorts of each row, on precomputed keys when the comparator is a
 * strict order of per-element keys, else calling the comparator. */
#include <inttypes.h>
#include <string.h>

#include "vm/kernels/region.h"

/* ------------------------------------------------------------------ */
/* Stable merge sorts */

typedef struct KeyI {
  int64_t key, idx;
} KeyI;
typedef struct KeyF {
  double key;
  int64_t idx;
} KeyF;

/* Bottom-up stable merge sort of n records by LESS(a, b) ("a goes before
 * b"), with runs of 16 sorted by insertion; tmp holds n records. */
#define DEFINE_MERGE_SORT(NAME, T, LESS)                                                                               \
  static void NAME(T *v, T *tmp, int64_t n) {                                                                          \
    for (int64_t lo = 0; lo < n; lo += 16) {                                                                           \
      int64_t hi = lo + 16 < n ? lo + 16 : n;                                                                          \
      for (int64_t i = lo + 1; i < hi; i++) {                                                                          \
        T t = v[i];                                                                                                    \
        int64_t j = i;                                                                                                 \
        for (; j > lo && LESS(t, v[j - 1]); j--) v[j] = v[j - 1];                                                      \
        v[j] = t;                                                                                                      \
      }                                                                                                                \
    }                                                                                                                  \
    T *src = v, *dst = tmp;                                                                                            \
    for (int64_t w = 16; w < n; w *= 2) {                                                                              \
      for (int64_t lo = 0; lo < n; lo += 2 * w) {                                                                      \
        int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;                                   \
        int64_t i = lo, j = mid, k = lo;                                                                               \
        while (i < mid && j < hi) dst[k++] = LESS(src[j], src[i]) ? src[j++] : src[i++];                               \
        while (i < mid) dst[k++] = src[i++];                                                                           \
        while (j < hi) dst[k++] = src[j++];                                                                            \
      }                                                                                                                \
      T *t = src;                                                                                                      \
      src = dst;                                                                                                       \
      dst = t;                                                                                                         \
    }                                                                                                                  \
    if (src != v) memcpy(v, src, (size_t)n * sizeof(T));                                                               \
  }

#define LESS_ASC(a, b) ((a).key < (b).key)
#define LESS_DESC(a, b) ((a).key > (b).key)
DEFINE_MERGE_SORT(sort_keyi_asc, KeyI, LESS_ASC)
DEFINE_MERGE_SORT(sort_keyi_desc, KeyI, LESS_DESC)
DEFINE_MERGE_SORT(sort_keyf_asc, KeyF, LESS_ASC)
DEFINE_MERGE_SORT(sort_keyf_desc, KeyF, LESS_DESC)

/* Rows at least this long are radix sorted. */
#define RADIX_MIN 256

/* Stable LSD radix sort of n records by key, ascending or (desc)
 * descending: 8 bits per pass over the keys' range.  Overwrites the keys. */
static void radix_sort_keyi(KeyI *v, KeyI *tmp, int64_t n, bool desc) {
  int64_t lo = v[0].key, hi = v[0].key;
  for (int64_t i = 1; i < n; i++) {
    lo = v[i].key < lo ? v[i].key : lo;
    hi = v[i].key > hi ? v[i].key : hi;
  }
  uint64_t range = (uint64_t)hi - (uint64_t)lo;
  if (range == 0) return;
  for (int64_t i = 0; i < n; i++) /* rebased so that the order is ascending */
    v[i].key = (int64_t)(desc ? (uint64_t)hi - (uint64_t)v[i].key : (uint64_t)v[i].key - (uint64_t)lo);
  int bits = 64 - __builtin_clzll(range);
  KeyI *src = v, *dst = tmp;
  for (int shift = 0; shift < bits; shift += 8) {
    int64_t count[257] = {0};
    for (int64_t i = 0; i < n; i++) count[((uint64_t)src[i].key >> shift & 255) + 1]++;
    for (int d = 0; d < 256; d++) count[d + 1] += count[d];
    for (int64_t i = 0; i < n; i++) dst[count[(uint64_t)src[i].key >> shift & 255]++] = src[i];
    KeyI *t = src;
    src = dst;
    dst = t;
  }
  if (src != v) memcpy(v, src, (size_t)n * sizeof(KeyI));
}

/* Sorts records stably by key, ascending or (desc) descending. */
static void sort_keyi(KeyI *v, KeyI *tmp, int64_t n, bool desc) {
  if (n >= RADIX_MIN)
    radix_sort_keyi(v, tmp, n, desc);
  else if (desc)
    sort_keyi_desc(v, tmp, n);
  else
    sort_keyi_asc(v, tmp, n);
}

/* Comparator called by the generic sort: 1 when a goes before b, 0 when
 * not, a negative status on a trap. */
typedef int (*LessFn)(void *ctx, int64_t a, int64_t b);

/* The same merge sort on an index permutation with a fallible comparator. */
static int sort_perm(int64_t *v, int64_t *tmp, int64_t n, LessFn less, void *ctx) {
  for (int64_t lo = 0; lo < n; lo += 16) {
    int64_t hi = lo + 16 < n ? lo + 16 : n;
    for (int64_t i = lo + 1; i < hi; i++) {
      int64_t t = v[i], j = i;
      for (; j > lo; j--) {
        int r = less(ctx, t, v[j - 1]);
        if (r < 0) return r;
        if (!r) break;
        v[j] = v[j - 1];
      }
      v[j] = t;
    }
  }
  int64_t *src = v, *dst = tmp;
  for (int64_t w = 16; w < n; w *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * w) {
      int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int64_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        int r = less(ctx, src[j], src[i]);
        if (r < 0) return r;
        dst[k++] = r ? src[j++] : src[i++];
      }
      while (i < mid) dst[k++] = src[i++];
      while (j < hi) dst[k++] = src[j++];
    }
    int64_t *t = src;
    src = dst;
    dst = t;
  }
  if (src != v) memcpy(v, src, (size_t)n * sizeof(int64_t));
  return VM_OK;
}

/* ------------------------------------------------------------------ */
/* sort */

enum { SORT_DIM, SORT_STABLE, SORT_CMP };

bool check_sort(VmCheck *c) {
  const char *op = "sort";
  const VmInstr *ins = c->ins;
  if (ins->n_in == 0 || ins->n_out != ins->n_in) return vm_check_fail(c, "%s: expected N operands and N results", op);
  const VmType *in0 = vm_check_in(c, 0);
  if (!vm_type_is_tensor(in0) || in0->rank == 0) return vm_check_fail(c, "%s: operands must be ranked tensors", op);
  int64_t dim = vm_field_int(ins, SORT_DIM);
  if (dim < -in0->rank || dim >= in0->rank)
    return vm_check_fail(c, "%s: dimension %" PRId64 " out of range for rank %d", op, dim, in0->rank);
  if (!vm_check_region(c, SORT_CMP, (int)(2 * ins->n_in), NULL, 1, NULL) ||
      !kr_check_region_result(c, op, SORT_CMP, 0, TPUB_I1))
    return false;
  for (uint32_t i = 0; i < ins->n_in; i++) {
    const VmType *t = vm_check_in(c, i);
    if (!vm_type_is_tensor(t) || !vm_type_same_shape(t, in0))
      return vm_check_fail(c, "%s: operand %u must have the shape of operand 0", op, i);
    if (!vm_type_equal(vm_check_out(c, i), t))
      return vm_check_fail(c, "%s: result %u must have operand %u's type", op, i, i);
    if (!kr_check_region_param(c, op, SORT_CMP, (int)(2 * i), t->elem) ||
        !kr_check_region_param(c, op, SORT_CMP, (int)(2 * i + 1), t->elem))
      return false;
  }
  return true;
}

/* Context of the generic comparator: one row of every operand. */
typedef struct SortCtx {
  RegionCall rc;
  const VmTensor *in;
  uint32_t n;
  int64_t base, stride;
} SortCtx;

/* The comparator on row elements a and b (a LessFn). */
static int sort_less_region(void *ctx_, int64_t a, int64_t b) {
  SortCtx *ctx = ctx_;
  for (uint32_t i = 0; i < ctx->n; i++) {
    int eb = vm_elem_bytes(ctx->in[i].type->elem);
    char *data = ctx->in[i].data;
    ctx->rc.args[2 * i].data = data + (ctx->base + a * ctx->stride) * eb;
    ctx->rc.args[2 * i + 1].data = data + (ctx->base + b * ctx->stride) * eb;
  }
  int rcode = kr_region_call(&ctx->rc);
  if (rcode != VM_OK) return rcode < 0 ? rcode : -1;
  return *(const uint8_t *)ctx->rc.res[0].data != 0;
}

/* out[i][base + t*stride] = in[i][base + perm[t]*stride] for every operand. */
static void apply_perm(const VmTensor *in, VmTensor *out, uint32_t n, const int64_t *perm, int64_t len, int64_t base,
                       int64_t stride) {
  for (uint32_t i = 0; i < n; i++) {
    int eb = vm_elem_bytes(in[i].type->elem);
    const char *src = in[i].data;
    char *dst = out[i].data;
    for (int64_t t = 0; t < len; t++)
      copy_elem(dst + (base + t * stride) * eb, src + (base + perm[t] * stride) * eb, eb);
  }
}

/* Points the comparator's arguments (a_i, b_i both) at element t of a row. */
static void point_args_at(SortCtx *ctx, int64_t t) {
  for (uint32_t i = 0; i < ctx->n; i++) {
    int eb = vm_elem_bytes(ctx->in[i].type->elem);
    char *p = (char *)ctx->in[i].data + (ctx->base + t * ctx->stride) * eb;
    ctx->rc.args[2 * i].data = p;
    ctx->rc.args[2 * i + 1].data = p;
  }
}

/* Sort keys of one row: operand 0's elements under the compare's order, or
 * the comparator's key function evaluated per element. */
static void sort_row_keys(SortCtx *ctx, int kind, const KeyFunction *kfn, int64_t len, int64_t *ikeys, double *fkeys) {
  if (!kfn) {
    kr_load_keys(kind, ctx->in[0].type->elem, ctx->in[0].data, ctx->base, ctx->stride, len, ikeys, fkeys);
    return;
  }
  for (int64_t t = 0; t < len; t++) {
    uint64_t bits;
    point_args_at(ctx, t);
    kr_mini_run(&ctx->rc.prog, ctx->rc.args, NULL, kfn->reg, &bits);
    if (kind == KEYS_F64)
      fkeys[t] = vm_float_bits_to_f64(kfn->elem, bits);
    else
      ikeys[t] = kr_bits_key_i64(kfn->elem, bits);
  }
}

/* Sorts each row along dim: keyed (radix or merge sort) when the comparator
 * is a strict order of per-element keys, else a merge sort calling it. */
/* Scratch of a sort: the permutation, and the keys of keyed sorting. */
typedef struct SortBufs {
  int64_t *perm, *tmp, *ikeys;
  KeyI *ki, *ki_tmp;
  KeyF *kf, *kf_tmp;
  double *fkeys;
} SortBufs;

/* The permutation that sorts the row at ctx->base into b->perm: by keys
 * of kind (integer keys, or IEEE order on f64 keys, which without NaNs is
 * the total order with -0 = +0), else calling the comparator. */
static int sort_row(SortCtx *ctx, int kind, const KeyFunction *kfn, int dir, int64_t len, SortBufs *b) {
  bool nan = false;
  if (kind == KEYS_F64) {
    sort_row_keys(ctx, kind, kfn, len, NULL, b->fkeys);
    for (int64_t i = 0; i < len && !nan; i++) {
      double d = b->fkeys[i] + 0.0;
      uint64_t bits;
      memcpy(&bits, &d, 8);
      nan = d != d;
      b->ikeys[i] = kr_bits_key_i64(TPUB_F64, bits);
    }
  } else if (kind == KEYS_I64) {
    sort_row_keys(ctx, kind, kfn, len, b->ikeys, NULL);
  }
  if (kind != KEYS_NONE && !nan) {
    for (int64_t i = 0; i < len; i++) b->ki[i] = (KeyI){b->ikeys[i], i};
    sort_keyi(b->ki, b->ki_tmp, len, dir == DIR_GT);
    for (int64_t i = 0; i < len; i++) b->perm[i] = b->ki[i].idx;
  } else if (kind == KEYS_F64) {
    for (int64_t i = 0; i < len; i++) b->kf[i] = (KeyF){b->fkeys[i], i};
    if (dir == DIR_LT)
      sort_keyf_asc(b->kf, b->kf_tmp, len);
    else
      sort_keyf_desc(b->kf, b->kf_tmp, len);
    for (int64_t i = 0; i < len; i++) b->perm[i] = b->kf[i].idx;
  } else {
    for (int64_t i = 0; i < len; i++) b->perm[i] = i;
    return sort_perm(b->perm, b->tmp, len, sort_less_region, ctx);
  }
  return VM_OK;
}

int exec_sort(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  const VmType *t = in[0].type;
  uint32_t n = ins->n_in;
  if (t->count == 0) return VM_OK;
  int64_t dim = vm_field_int(ins, SORT_DIM);
  if (dim < 0) dim += t->rank;
  int64_t len = t->dims[dim], stride = 1;
  for (int d = (int)dim + 1; d < t->rank; d++) stride *= t->dims[d];
  int64_t rows = t->count / len;
  const VmRegion *r = &ins->fields[SORT_CMP].regions[0];
  Scratch s = {.x = x};
  SortCtx ctx = {.in = in, .n = n, .stride = stride};
  if (!kr_region_call_init(&ctx.rc, &s, x, r)) return kr_scratch_fail(&s, "sort");
  /* Keyed sorting when the comparator is a strict order on per-element keys. */
  int dir = 0, cmp_type = 0, kind = KEYS_NONE;
  KeyFunction kf_store, *kfn = NULL;
  if (kr_region_simple_compare(x, r, &dir, &cmp_type)) {
    kind = kr_key_kind(t->elem, cmp_type);
  } else if (ctx.rc.mini && kr_comparator_key_function(ctx.rc.fn, &ctx.rc.prog, &kf_store)) {
    kfn = &kf_store;
    dir = kfn->dir;
    kind = kr_key_kind(kfn->elem, kfn->cmp_type);
  }
  if (dir != DIR_LT && dir != DIR_GT) kind = KEYS_NONE;
  SortBufs b = {0};
  b.perm = kr_scratch_get(&s, len, sizeof(int64_t));
  b.tmp = kr_scratch_get(&s, len, sizeof(int64_t));
  bool ok = b.perm && b.tmp;
  if (ok && kind != KEYS_NONE) {
    b.ki = kr_scratch_get(&s, len, sizeof(KeyI));
    b.ki_tmp = kr_scratch_get(&s, len, sizeof(KeyI));
    b.ikeys = kr_scratch_get(&s, len, sizeof(int64_t));
    ok = b.ki && b.ki_tmp && b.ikeys;
  }
  if (ok && kind == KEYS_F64) {
    b.kf = kr_scratch_get(&s, len, sizeof(KeyF));
    b.kf_tmp = kr_scratch_get(&s, len, sizeof(KeyF));
    b.fkeys = kr_scratch_get(&s, len, sizeof(double));
    ok = b.kf && b.kf_tmp && b.fkeys;
  }
  if (!ok) return kr_scratch_fail(&s, "sort");
  for (int64_t row = 0; row < rows; row++) {
    ctx.base = row / stride * len * stride + row % stride;
    int rcode = sort_row(&ctx, kind, kfn, dir, len, &b);
    if (rcode != VM_OK) {
      kr_scratch_release(&s);
      return rcode;
    }
    apply_perm(in, out, n, b.perm, len, ctx.base, stride);
  }
  kr_scratch_release(&s);
  return VM_OK;
}

/* ------------------------------------------------------------------ */
/* top_k */

bool check_top_k(VmCheck *c) {
  const char *op = "top_k";
  const VmType *t = vm_check_in(c, 0);
  if (!vm_type_is_tensor(t) || t->rank == 0) return vm_check_fail(c, "%s: operand must be a ranked tensor", op);
  if (vm_elem_class(t->elem) == TPUB_CLASS_COMPLEX) return vm_check_fail(c, "%s: complex operands are unordered", op);
  int64_t k = vm_field_int(c->ins, 0), last = t->dims[t->rank - 1];
  if (k < 0 || k > last)
    return vm_check_fail(c, "%s: k = %" PRId64 " out of range for a last dimension of %" PRId64, op, k, last);
  int64_t dims[TPUB_MAX_RANK];
  memcpy(dims, t->dims, sizeof(int64_t) * (size_t)t->rank);
  dims[t->rank - 1] = k;
  return kr_check_result_shape(c, op, 0, t->elem, t->rank, dims) &&
         kr_check_result_shape(c, op, 1, TPUB_I32, t->rank, dims);
}

/* The k largest keys of a row (ties: lower index first) by insertion into a
 * sorted top list; for small k. */
static void top_k_insertion(const int64_t *keys, int64_t len, int64_t k, KeyI *top) {
  int64_t have = 0;
  for (int64_t i = 0; i < len; i++) {
    int64_t key = keys[i];
    if (have == k && key <= top[k - 1].key) continue;
    int64_t j = have < k ? have++ : k - 1;
    for (; j > 0 && top[j - 1].key < key; j--) top[j] = top[j - 1];
    top[j] = (KeyI){key, i};
  }
}

/* Per row: the k largest in total order (NaN above +inf), lower index first
 * among equals. */
int exec_top_k(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  const VmType *t = in->type;
  int64_t k = vm_field_int(ins, 0), len = t->dims[t->rank - 1];
  if (k == 0 || t->count == 0) return VM_OK;
  int64_t rows = t->count / len;
  int elem = t->elem, eb = vm_elem_bytes(elem);
  bool small = k <= 32;
  Scratch s = {.x = x};
  int64_t *keys = kr_scratch_get(&s, len, sizeof(int64_t));
  KeyI *v = kr_scratch_get(&s, small ? k : len, sizeof(KeyI)), *tmp = small ? v : kr_scratch_get(&s, len, sizeof(KeyI));
  if (!keys || !v || !tmp) return kr_scratch_fail(&s, "top_k");
  const char *src = in->data;
  char *values = out[0].data;
  int32_t *indices = out[1].data;
  for (int64_t row = 0; row < rows; row++) {
    kr_load_keys(KEYS_I64, elem, src, row * len, 1, len, keys, NULL);
    if (small) {
      top_k_insertion(keys, len, k, v);
    } else {
      for (int64_t i = 0; i < len; i++) v[i] = (KeyI){keys[i], i};
      sort_keyi(v, tmp, len, true);
    }
    for (int64_t j = 0; j < k; j++) {
      copy_elem(values + (row * k + j) * eb, src + (row * len + v[j].idx) * eb, eb);
      indices[row * k + j] = (int32_t)v[j].idx;
    }
  }
  kr_scratch_release(&s);
  return VM_OK;
}
