/* dot_general, triangular_solve and cholesky.
 *
 * dot_general is reduced to batched matrix products on strided views: an
 * operand whose batch, free and contracting dims each collapse into one
 * strided axis is used in place; otherwise it is first copied into a
 * contiguous [batch, rows, cols] layout.  The products run in the compute
 * kind of gemm.h (f32 for f32/f16/minifloats, bf16 pairs into f32, f64,
 * complex, int32 for 8-bit operands, int64 with wrap, or/and for i1) on
 * host threads (gemm_batched). */
#include <complex.h>
#include <math.h>
#include <string.h>

#include "vm/dtype.h"
#include "vm/kernels/gemm.h"
#include "vm/kernels/kernels.h"

enum {
  DOT_LHS_BATCH,
  DOT_RHS_BATCH,
  DOT_LHS_CONTRACT,
  DOT_RHS_CONTRACT,
};

/* Row-major strides, in elements, of a tensor type. */
static void row_major_strides(const VmType *t, int64_t *strides) {
  int64_t s = 1;
  for (int d = t->rank - 1; d >= 0; d--) {
    strides[d] = s;
    s *= t->dims[d];
  }
}

/* Checks that list[0..n) are distinct dims of a rank-`rank` tensor not yet
 * in *used (a bit set), and adds them. */
static bool check_dim_list(VmCheck *c, const char *what, const int64_t *list, int64_t n, int rank,
                           uint32_t *used) {
  for (int64_t i = 0; i < n; i++) {
    if (list[i] < 0 || list[i] >= rank)
      return vm_check_fail(c, "dot_general: %s dimension %lld out of range [0, %d)", what,
                           (long long)list[i], rank);
    if (*used & (1u << list[i]))
      return vm_check_fail(c, "dot_general: dimension %lld appears twice in the %s dimensions",
                           (long long)list[i], what);
    *used |= 1u << list[i];
  }
  return true;
}

bool check_dot_general(VmCheck *c) {
  const VmType *lhs = vm_check_in(c, 0), *rhs = vm_check_in(c, 1), *res = vm_check_out(c, 0);
  if (!vm_type_is_tensor(lhs) || !vm_type_is_tensor(rhs) || !vm_type_is_tensor(res))
    return vm_check_fail(c, "dot_general: operands and result must be tensors");
  int64_t nlb, nrb, nlc, nrc;
  const int64_t *lb = vm_field_list(c->ins, DOT_LHS_BATCH, &nlb);
  const int64_t *rb = vm_field_list(c->ins, DOT_RHS_BATCH, &nrb);
  const int64_t *lc = vm_field_list(c->ins, DOT_LHS_CONTRACT, &nlc);
  const int64_t *rc = vm_field_list(c->ins, DOT_RHS_CONTRACT, &nrc);
  if (nlb != nrb)
    return vm_check_fail(c, "dot_general: %lld lhs batching dims but %lld rhs batching dims",
                         (long long)nlb, (long long)nrb);
  if (nlc != nrc)
    return vm_check_fail(c, "dot_general: %lld lhs contracting dims but %lld rhs contracting dims",
                         (long long)nlc, (long long)nrc);
  uint32_t lused = 0, rused = 0;
  if (!check_dim_list(c, "lhs batching", lb, nlb, lhs->rank, &lused) ||
      !check_dim_list(c, "lhs contracting", lc, nlc, lhs->rank, &lused) ||
      !check_dim_list(c, "rhs batching", rb, nrb, rhs->rank, &rused) ||
      !check_dim_list(c, "rhs contracting", rc, nrc, rhs->rank, &rused))
    return false;
  for (int64_t i = 0; i < nlb; i++)
    if (lhs->dims[lb[i]] != rhs->dims[rb[i]])
      return vm_check_fail(c, "dot_general: batching dims %lld (lhs) and %lld (rhs) differ: %lld vs %lld",
                           (long long)lb[i], (long long)rb[i], (long long)lhs->dims[lb[i]],
                           (long long)rhs->dims[rb[i]]);
  for (int64_t i = 0; i < nlc; i++)
    if (lhs->dims[lc[i]] != rhs->dims[rc[i]])
      return vm_check_fail(c, "dot_general: contracting dims %lld (lhs) and %lld (rhs) differ: %lld vs %lld",
                           (long long)lc[i], (long long)rc[i], (long long)lhs->dims[lc[i]],
                           (long long)rhs->dims[rc[i]]);
  int64_t want[TPUB_MAX_RANK * 2];
  int n = 0;
  for (int64_t i = 0; i < nlb; i++) want[n++] = lhs->dims[lb[i]];
  for (int d = 0; d < lhs->rank; d++)
    if (!(lused & (1u << d))) want[n++] = lhs->dims[d];
  for (int d = 0; d < rhs->rank; d++)
    if (!(rused & (1u << d))) want[n++] = rhs->dims[d];
  bool same = n == res->rank;
  for (int i = 0; same && i < n; i++) same = want[i] == res->dims[i];
  if (!same)
    return vm_check_fail(c, "dot_general: result shape does not match batch + lhs free + rhs free dims");
  if (gemm_kind_for(res->elem, lhs->elem, rhs->elem) < 0)
    return vm_check_fail(c, "dot_general: unsupported element types %s x %s -> %s",
                         vm_elem_name(lhs->elem), vm_elem_name(rhs->elem), vm_elem_name(res->elem));
  return true;
}

/* Scratch of a dot: accounted HBM, or tile buffers (mxu_dot's operand
 * tiles, which the TPU holds in VMEM). */
static void *dot_alloc(VmExec *x, bool tiles, size_t n) {
  return tiles ? vm_tile_alloc(x, n) : vm_scratch_alloc(x, n);
}

static void dot_free(VmExec *x, bool tiles, void *p, size_t n) {
  if (tiles)
    vm_tile_free(x, p, n);
  else
    vm_scratch_free(x, p, n);
}

/* One operand of a batched product, as [batch][rows][cols] with strides in
 * elements of the compute kind. */
typedef struct MatView {
  const char *base;
  int64_t batch_stride, row_stride, col_stride;
  void *owned; /* scratch holding the data, or NULL */
  size_t owned_bytes;
} MatView;

/* Collapses axes (sizes, strides), outer to inner, into one strided axis;
 * false when their offsets are not a single arithmetic progression. */
static bool collapse_axes(int n, const int64_t *sizes, const int64_t *strides, int64_t *stride) {
  bool have = false;
  int64_t expect = 0;
  *stride = 0;
  for (int i = n - 1; i >= 0; i--) {
    if (sizes[i] == 1) continue;
    if (!have) {
      *stride = strides[i];
      have = true;
    } else if (strides[i] != expect) {
      return false;
    }
    expect = strides[i] * sizes[i];
  }
  return true;
}

/* Makes a view of operand t (data in the compute kind at `data`, owned
 * scratch or not) whose three axis groups are given as dim lists. */
static int make_view(VmExec *x, bool tiles, const VmType *t, const void *data, void *owned, size_t owned_bytes,
                     int es, const int *groups[3], const int ngroup[3], MatView *v) {
  int64_t strides[TPUB_MAX_RANK];
  row_major_strides(t, strides);
  int64_t sizes[3][TPUB_MAX_RANK], gstrides[3][TPUB_MAX_RANK], extent[3], axis_stride[3];
  bool ok = true;
  for (int g = 0; g < 3; g++) {
    extent[g] = 1;
    for (int i = 0; i < ngroup[g]; i++) {
      sizes[g][i] = t->dims[groups[g][i]];
      gstrides[g][i] = strides[groups[g][i]];
      extent[g] *= sizes[g][i];
    }
    ok = ok && collapse_axes(ngroup[g], sizes[g], gstrides[g], &axis_stride[g]);
  }
  memset(v, 0, sizeof *v);
  if (ok) {
    v->base = data;
    v->batch_stride = axis_stride[0];
    v->row_stride = axis_stride[1];
    v->col_stride = axis_stride[2];
    v->owned = owned;
    v->owned_bytes = owned_bytes;
    return VM_OK;
  }
  size_t bytes = (size_t)t->count * (size_t)es;
  void *copy = dot_alloc(x, tiles, bytes ? bytes : 1);
  if (!copy) {
    if (owned) dot_free(x, tiles, owned, owned_bytes);
    return vm_trap(x, "out of memory: dot_general operand transpose (%zu bytes)", bytes);
  }
  int64_t all_sizes[TPUB_MAX_RANK], all_strides[TPUB_MAX_RANK];
  int n = 0;
  for (int g = 0; g < 3; g++)
    for (int i = 0; i < ngroup[g]; i++) {
      all_sizes[n] = sizes[g][i];
      all_strides[n] = gstrides[g][i];
      n++;
    }
  gemm_strided_copy(es, n, all_sizes, all_strides, data, copy);
  if (owned) dot_free(x, tiles, owned, owned_bytes);
  v->base = copy;
  v->owned = copy;
  v->owned_bytes = bytes ? bytes : 1;
  v->batch_stride = extent[1] * extent[2];
  v->row_stride = extent[2];
  v->col_stride = 1;
  return VM_OK;
}

/* Converts operand `in` to the compute kind if needed, then builds its view. */
static int load_operand(VmExec *x, bool tiles, GemmKind kind, const VmTensor *in, const int *groups[3],
                        const int ngroup[3], MatView *v) {
  int es = gemm_kind_bytes(kind);
  const void *data = in->data;
  void *owned = NULL;
  size_t bytes = 0;
  if (!gemm_is_native(kind, in->type->elem)) {
    bytes = (size_t)in->type->count * (size_t)es;
    owned = dot_alloc(x, tiles, bytes ? bytes : 1);
    if (!owned) return vm_trap(x, "out of memory: dot_general operand conversion (%zu bytes)", bytes);
    bytes = bytes ? bytes : 1;
    gemm_load(kind, in->type->elem, in->data, in->type->count, owned);
    data = owned;
  }
  return make_view(x, tiles, in->type, data, owned, bytes, es, groups, ngroup, v);
}

int gemm_free_dims(int rank, const int64_t *a, int64_t na, const int64_t *b, int64_t nb, int *out) {
  uint32_t used = 0;
  for (int64_t i = 0; i < na; i++) used |= 1u << a[i];
  for (int64_t i = 0; i < nb; i++) used |= 1u << b[i];
  int n = 0;
  for (int d = 0; d < rank; d++)
    if (!(used & (1u << d))) out[n++] = d;
  return n;
}

int gemm_dot_run(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out, bool tiles) {
  const VmType *lt = in[0].type, *rt = in[1].type, *ot = out[0].type;
  if (ot->count == 0) return VM_OK;
  int64_t nb, nc;
  const int64_t *lb = vm_field_list(ins, DOT_LHS_BATCH, &nb);
  const int64_t *rb = vm_field_list(ins, DOT_RHS_BATCH, &nb);
  const int64_t *lc = vm_field_list(ins, DOT_LHS_CONTRACT, &nc);
  const int64_t *rc = vm_field_list(ins, DOT_RHS_CONTRACT, &nc);
  int lbatch[TPUB_MAX_RANK], rbatch[TPUB_MAX_RANK], lcon[TPUB_MAX_RANK], rcon[TPUB_MAX_RANK];
  int lfree[TPUB_MAX_RANK], rfree[TPUB_MAX_RANK];
  int64_t B = 1, K = 1;
  for (int64_t i = 0; i < nb; i++) {
    lbatch[i] = (int)lb[i], rbatch[i] = (int)rb[i];
    B *= lt->dims[lb[i]];
  }
  for (int64_t i = 0; i < nc; i++) {
    lcon[i] = (int)lc[i], rcon[i] = (int)rc[i];
    K *= lt->dims[lc[i]];
  }
  int nlf = gemm_free_dims(lt->rank, lb, nb, lc, nc, lfree);
  int nrf = gemm_free_dims(rt->rank, rb, nb, rc, nc, rfree);
  int64_t M = 1, N = 1;
  for (int i = 0; i < nlf; i++) M *= lt->dims[lfree[i]];
  for (int i = 0; i < nrf; i++) N *= rt->dims[rfree[i]];

  GemmKind kind = (GemmKind)gemm_kind_for(ot->elem, lt->elem, rt->elem);
  int es = gemm_kind_bytes(kind);
  const int *lgroups[3] = {lbatch, lfree, lcon}, *rgroups[3] = {rbatch, rcon, rfree};
  const int lng[3] = {(int)nb, nlf, (int)nc}, rng[3] = {(int)nb, (int)nc, nrf};
  MatView a, b;
  int rc_status = load_operand(x, tiles, kind, &in[0], lgroups, lng, &a);
  if (rc_status != VM_OK) return rc_status;
  rc_status = load_operand(x, tiles, kind, &in[1], rgroups, rng, &b);
  if (rc_status != VM_OK) {
    if (a.owned) dot_free(x, tiles, a.owned, a.owned_bytes);
    return rc_status;
  }
  bool native_out = gemm_is_native(kind, ot->elem);
  size_t cbytes = native_out ? 0 : (size_t)ot->count * (size_t)es;
  char *cbuf = native_out ? out[0].data : dot_alloc(x, tiles, cbytes);
  int status = VM_OK;
  if (!cbuf)
    status = vm_trap(x, "out of memory: dot_general accumulator (%zu bytes)", cbytes);
  else
    status = gemm_batched(x, kind, B, M, N, K, (GemmOperand){a.base, a.batch_stride, a.row_stride, a.col_stride},
                          (GemmOperand){b.base, b.batch_stride, b.row_stride, b.col_stride}, cbuf);
  if (status == VM_OK && !native_out) gemm_store(kind, ot->elem, cbuf, ot->count, out[0].data);
  if (!native_out && cbuf) dot_free(x, tiles, cbuf, cbytes);
  if (a.owned) dot_free(x, tiles, a.owned, a.owned_bytes);
  if (b.owned) dot_free(x, tiles, b.owned, b.owned_bytes);
  return status;
}

int exec_dot_general(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  return gemm_dot_run(x, ins, in, out, false);
}

/* ------------------------------------------------------------------ */
/* triangular_solve and cholesky.  f32/f64 triangular solves reproduce XLA's
 * algorithm and rounding; the other types are computed in double (or
 * complex double) by substitution and rounded once when stored. */

enum { TS_LEFT_SIDE, TS_LOWER, TS_UNIT_DIAGONAL, TS_TRANSPOSE_A };

/* True for the element types the factorizations accept. */
static bool linalg_elem_ok(int elem) {
  return vm_elem_is_float(elem) || vm_elem_class(elem) == TPUB_CLASS_COMPLEX;
}

bool check_triangular_solve(VmCheck *c) {
  const VmType *a = vm_check_in(c, 0), *b = vm_check_in(c, 1), *res = vm_check_out(c, 0);
  if (!vm_type_is_tensor(a) || !vm_type_is_tensor(b) || !vm_type_is_tensor(res))
    return vm_check_fail(c, "triangular_solve: operands and result must be tensors");
  if (a->elem != b->elem || !linalg_elem_ok(a->elem))
    return vm_check_fail(c, "triangular_solve: a and b must have the same float or complex element type");
  if (!vm_type_equal(b, res)) return vm_check_fail(c, "triangular_solve: result type must equal b's");
  int r = a->rank;
  if (r < 2 || b->rank != r) return vm_check_fail(c, "triangular_solve: a and b must have the same rank >= 2");
  for (int d = 0; d < r - 2; d++)
    if (a->dims[d] != b->dims[d]) return vm_check_fail(c, "triangular_solve: batch dims of a and b differ");
  int64_t left = vm_field_int(c->ins, TS_LEFT_SIDE), trans = vm_field_int(c->ins, TS_TRANSPOSE_A);
  if (a->dims[r - 1] != a->dims[r - 2]) return vm_check_fail(c, "triangular_solve: a must be square");
  if (a->dims[r - 1] != b->dims[left ? r - 2 : r - 1])
    return vm_check_fail(c, "triangular_solve: a is %lldx%lld but b's %s dim is %lld",
                         (long long)a->dims[r - 1], (long long)a->dims[r - 1], left ? "row" : "column",
                         (long long)b->dims[left ? r - 2 : r - 1]);
  if (trans < 0 || trans > 2) return vm_check_fail(c, "triangular_solve: transpose_a %lld not in 0..2", (long long)trans);
  return true;
}

/* Solves one system in place: x (rows x cols, row-major) holds b and
 * receives the solution of t x = b (left) or x t = b (right), t being an
 * m x m triangular matrix, lower or upper, already transposed/conjugated. */
#define DEFINE_TRSM(NAME, T)                                                              \
  static void NAME(const T *t, int64_t m, bool t_lower, bool unit, bool left, T *xs,      \
                   int64_t rows, int64_t cols) {                                          \
    if (left) {                                                                           \
      for (int64_t s = 0; s < m; s++) {                                                   \
        int64_t i = t_lower ? s : m - 1 - s;                                              \
        T *xi = xs + i * cols;                                                            \
        int64_t k0 = t_lower ? 0 : i + 1, k1 = t_lower ? i : m;                           \
        for (int64_t k = k0; k < k1; k++) {                                               \
          T f = t[i * m + k];                                                             \
          const T *xk = xs + k * cols;                                                    \
          for (int64_t j = 0; j < cols; j++) xi[j] -= f * xk[j];                          \
        }                                                                                 \
        if (!unit) {                                                                      \
          T d = t[i * m + i];                                                             \
          for (int64_t j = 0; j < cols; j++) xi[j] /= d;                                  \
        }                                                                                 \
      }                                                                                   \
    } else {                                                                              \
      for (int64_t r = 0; r < rows; r++) {                                                \
        T *xr = xs + r * m;                                                               \
        for (int64_t s = 0; s < m; s++) {                                                 \
          int64_t j = t_lower ? m - 1 - s : s;                                            \
          int64_t k0 = t_lower ? j + 1 : 0, k1 = t_lower ? m : j;                         \
          T acc = xr[j];                                                                  \
          for (int64_t k = k0; k < k1; k++) acc -= xr[k] * t[k * m + j];                  \
          xr[j] = unit ? acc : acc / t[j * m + j];                                        \
        }                                                                                 \
      }                                                                                   \
    }                                                                                     \
  }

DEFINE_TRSM(trsm_real, double)
DEFINE_TRSM(trsm_complex, double complex)

/* XLA's diagonal block size (TriangularSolveExpander's default). */
#define TRSM_XLA_BLOCK 128

/* Scratch elements of the XLA-compatible solver for one system. */
static int64_t trsm_xla_scratch(int64_t m, int64_t rows, int64_t cols) {
  int64_t bs = m < TRSM_XLA_BLOCK ? m : TRSM_XLA_BLOCK;
  return m * m + 3 * bs * bs + 3 * rows * cols;
}

#define XT float
#define XFMA fmaf
#define XP 8
#define XNAME(x) x##_xla_f32
#include "vm/kernels/trsm_xla.inc"
#undef XT
#undef XFMA
#undef XP
#undef XNAME

#define XT double
#define XFMA fma
#define XP 4
#define XNAME(x) x##_xla_f64
#include "vm/kernels/trsm_xla.inc"
#undef XT
#undef XFMA
#undef XP
#undef XNAME

/* f32/f64: XLA's algorithm and rounding (see trsm_xla.inc). */
static int triangular_solve_xla(VmExec *x, const VmTensor *in, VmTensor *out, bool left,
                                bool lower, bool unit, bool trans) {
  const VmType *at = in[0].type, *bt = in[1].type;
  int r = at->rank;
  int64_t m = at->dims[r - 1], rows = bt->dims[r - 2], cols = bt->dims[r - 1];
  int64_t batches = bt->count / (rows * cols);
  int es = vm_elem_bytes(bt->elem);
  size_t wbytes = (size_t)trsm_xla_scratch(m, rows, cols) * es;
  void *w = vm_scratch_alloc(x, wbytes);
  if (!w) return vm_trap(x, "out of memory: triangular_solve");
  memcpy(out[0].data, in[1].data, (size_t)bt->nbytes);
  for (int64_t bi = 0; bi < batches; bi++) {
    if (bt->elem == TPUB_F32)
      trsm_xla_f32((const float *)in[0].data + bi * m * m, (float *)out[0].data + bi * rows * cols,
                   m, rows, cols, left, lower, unit, trans, w);
    else
      trsm_xla_f64((const double *)in[0].data + bi * m * m, (double *)out[0].data + bi * rows * cols,
                   m, rows, cols, left, lower, unit, trans, w);
  }
  vm_scratch_free(x, w, wbytes);
  return VM_OK;
}

int exec_triangular_solve(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  const VmType *at = in[0].type, *bt = in[1].type;
  if (bt->count == 0) return VM_OK;
  bool left = vm_field_int(ins, TS_LEFT_SIDE) != 0, lower = vm_field_int(ins, TS_LOWER) != 0;
  bool unit = vm_field_int(ins, TS_UNIT_DIAGONAL) != 0;
  int trans = (int)vm_field_int(ins, TS_TRANSPOSE_A);
  if (at->elem == TPUB_F32 || at->elem == TPUB_F64)
    return triangular_solve_xla(x, in, out, left, lower, unit, trans != 0);
  int r = at->rank;
  int64_t m = at->dims[r - 1], rows = bt->dims[r - 2], cols = bt->dims[r - 1];
  int64_t batches = bt->count / (rows * cols);
  bool cplx = vm_elem_class(at->elem) == TPUB_CLASS_COMPLEX;
  GemmKind kind = cplx ? GK_C128 : GK_F64;
  int es = gemm_kind_bytes(kind);
  size_t xbytes = (size_t)bt->count * es, tbytes = (size_t)(m * m) * es;
  size_t abytes = (size_t)(m * m) * es;
  char *xs = vm_scratch_alloc(x, xbytes);
  char *t = vm_scratch_alloc(x, tbytes);
  char *a = vm_scratch_alloc(x, abytes);
  int status = VM_OK;
  if (!xs || !t || !a) {
    status = vm_trap(x, "out of memory: triangular_solve");
    goto done;
  }
  gemm_load(kind, bt->elem, in[1].data, bt->count, xs);
  /* op(a) is lower when a's triangle is lower xor a is transposed. */
  bool t_lower = lower != (trans != 0);
  for (int64_t bi = 0; bi < batches; bi++) {
    gemm_load(kind, at->elem, (const char *)in[0].data + (size_t)(bi * m * m) * vm_elem_bytes(at->elem),
              m * m, a);
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < m; j++) {
        /* t[i][j] = op(a)[i][j], zero outside the triangle that is read. */
        int64_t si = trans ? j : i, sj = trans ? i : j;
        bool inside = lower ? sj <= si : sj >= si;
        if (cplx) {
          double complex v = inside ? ((double complex *)a)[si * m + sj] : 0;
          ((double complex *)t)[i * m + j] = trans == 2 ? conj(v) : v;
        } else {
          ((double *)t)[i * m + j] = inside ? ((double *)a)[si * m + sj] : 0;
        }
      }
    char *xb = xs + (size_t)(bi * rows * cols) * es;
    if (cplx)
      trsm_complex((const double complex *)t, m, t_lower, unit, left, (double complex *)xb, rows, cols);
    else
      trsm_real((const double *)t, m, t_lower, unit, left, (double *)xb, rows, cols);
  }
  gemm_store(kind, bt->elem, xs, bt->count, out[0].data);
done:
  if (xs) vm_scratch_free(x, xs, xbytes);
  if (t) vm_scratch_free(x, t, tbytes);
  if (a) vm_scratch_free(x, a, abytes);
  return status;
}

bool check_cholesky(VmCheck *c) {
  const VmType *a = vm_check_in(c, 0), *res = vm_check_out(c, 0);
  if (!vm_type_is_tensor(a) || !vm_type_is_tensor(res))
    return vm_check_fail(c, "cholesky: operand and result must be tensors");
  if (!linalg_elem_ok(a->elem)) return vm_check_fail(c, "cholesky: element type must be float or complex");
  if (!vm_type_equal(a, res)) return vm_check_fail(c, "cholesky: result type must equal the operand's");
  if (a->rank < 2 || a->dims[a->rank - 1] != a->dims[a->rank - 2])
    return vm_check_fail(c, "cholesky: operand must be a batch of square matrices");
  return true;
}

/* Factors one n x n matrix in place (l holds a, read from its lower
 * triangle; receives L with zeros above); false when it is not positive
 * definite (a pivot's square root is NaN), like XLA. */
#define DEFINE_CHOLESKY(NAME, T, CONJ, REAL)                                  \
  static bool NAME(T *l, int64_t n) {                                         \
    for (int64_t j = 0; j < n; j++) {                                         \
      double d = REAL(l[j * n + j]);                                          \
      for (int64_t k = 0; k < j; k++) {                                       \
        T v = l[j * n + k];                                                   \
        d -= REAL(v * CONJ(v));                                               \
      }                                                                       \
      double piv = sqrt(d);                                                   \
      if (isnan(piv)) return false;                                           \
      l[j * n + j] = piv;                                                     \
      for (int64_t i = j + 1; i < n; i++) {                                   \
        T s = l[i * n + j];                                                   \
        for (int64_t k = 0; k < j; k++) s -= l[i * n + k] * CONJ(l[j * n + k]); \
        l[i * n + j] = s / piv;                                               \
      }                                                                       \
      for (int64_t i = 0; i < j; i++) l[i * n + j] = 0;                       \
    }                                                                         \
    return true;                                                              \
  }

static double real_part(double v) { return v; }
static double identity(double v) { return v; }
DEFINE_CHOLESKY(cholesky_real, double, identity, real_part)
DEFINE_CHOLESKY(cholesky_complex, double complex, conj, creal)

int exec_cholesky(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  const VmType *at = in[0].type;
  if (at->count == 0) return VM_OK;
  bool lower = vm_field_int(ins, 0) != 0;
  int64_t n = at->dims[at->rank - 1];
  int64_t batches = at->count / (n * n);
  bool cplx = vm_elem_class(at->elem) == TPUB_CLASS_COMPLEX;
  GemmKind kind = cplx ? GK_C128 : GK_F64;
  int es = gemm_kind_bytes(kind);
  size_t bytes = (size_t)at->count * es, mbytes = (size_t)(n * n) * es;
  char *buf = vm_scratch_alloc(x, bytes);
  char *tmp = vm_scratch_alloc(x, mbytes);
  if (!buf || !tmp) {
    if (buf) vm_scratch_free(x, buf, bytes);
    if (tmp) vm_scratch_free(x, tmp, mbytes);
    return vm_trap(x, "out of memory: cholesky");
  }
  gemm_load(kind, at->elem, in[0].data, at->count, buf);
  for (int64_t bi = 0; bi < batches; bi++) {
    char *m = buf + (size_t)(bi * n * n) * es;
    bool ok;
    if (cplx) {
      double complex *l = (double complex *)m, *u = (double complex *)tmp;
      if (!lower) /* factor a^H (the upper triangle read as lower), then U = L^H */
        for (int64_t i = 0; i < n; i++)
          for (int64_t j = 0; j < n; j++) u[i * n + j] = conj(l[j * n + i]);
      ok = cholesky_complex(lower ? l : u, n);
      if (!lower)
        for (int64_t i = 0; i < n; i++)
          for (int64_t j = 0; j < n; j++) l[i * n + j] = conj(u[j * n + i]);
      if (!ok)
        for (int64_t i = 0; i < n * n; i++) l[i] = NAN + NAN * I;
    } else {
      double *l = (double *)m, *u = (double *)tmp;
      if (!lower)
        for (int64_t i = 0; i < n; i++)
          for (int64_t j = 0; j < n; j++) u[i * n + j] = l[j * n + i];
      ok = cholesky_real(lower ? l : u, n);
      if (!lower)
        for (int64_t i = 0; i < n; i++)
          for (int64_t j = 0; j < n; j++) l[i * n + j] = u[j * n + i];
      if (!ok)
        for (int64_t i = 0; i < n * n; i++) l[i] = NAN;
    }
  }
  gemm_store(kind, at->elem, buf, at->count, out[0].data);
  vm_scratch_free(x, buf, bytes);
  vm_scratch_free(x, tmp, mbytes);
  return VM_OK;
}
