/* Reductions and ops with region bodies (vm/opcodes.def "reductions and ops
 * with regions"): reduce, reduce_window, select_and_scatter and map; sort
 * and top_k are in vm/kernels/sort.c.  Each op has a fast path for the bodies that
 * matter in practice (one add/mul/max/min/and/or/xor reducer, a compare
 * selector, one element-wise map instruction) running the element-wise
 * kernels (vm_binary_apply) or typed folds, and a
 * generic path calling the region per element on scalars (through the
 * scalar evaluator of vm/kernels/region.c when the body allows), so every body
 * and element type works. */
#include <inttypes.h>
#include <string.h>

#include "common/scalar.h"
#include "vm/kernels/region.h"
#include "vm/opinfo.h"

/* Attribute values (window sizes, strides, dilations, padding) beyond this
 * are refused, which keeps all shape arithmetic far from overflow. */
#define ATTR_LIMIT ((int64_t)1 << 40)
/* Elements converted to f32 at a time on the bf16/f16 fast paths. */
#define CHUNK 1024
/* A fold of promoted inputs (an input fusion's tiles) converts them in
 * chunks of this many bytes on the stack, for at most this many values. */
#define FOLD_CONV_BYTES 16384
#define FOLD_MAX_VALUES 256

/* ------------------------------------------------------------------ */
/* Small helpers */

static void row_major_strides(int rank, const int64_t *dims, int64_t *strides) {
  int64_t s = 1;
  for (int d = rank - 1; d >= 0; d--) {
    strides[d] = s;
    s *= dims[d];
  }
}

/* Writes n copies of the element at value. */
static void fill_elems(void *dst, const void *value, int64_t n, int bytes) {
  char *d = dst;
  switch (bytes) {
  case 1: memset(d, *(const uint8_t *)value, (size_t)n); return;
  case 2: {
    uint16_t v, *p = dst;
    memcpy(&v, value, 2);
    for (int64_t i = 0; i < n; i++) p[i] = v;
    return;
  }
  case 4: {
    uint32_t v, *p = dst;
    memcpy(&v, value, 4);
    for (int64_t i = 0; i < n; i++) p[i] = v;
    return;
  }
  case 8: {
    uint64_t v, *p = dst;
    memcpy(&v, value, 8);
    for (int64_t i = 0; i < n; i++) p[i] = v;
    return;
  }
  default:
    for (int64_t i = 0; i < n; i++) memcpy(d + i * bytes, value, (size_t)bytes);
    return;
  }
}

/* List field f has exactly n entries, each in [lo, hi]. */
static bool check_list(VmCheck *c, const char *op, int f, const char *name, int64_t n, int64_t lo, int64_t hi) {
  int64_t len;
  const int64_t *v = vm_field_list(c->ins, f, &len);
  if (len != n) return vm_check_fail(c, "%s: %s has %" PRId64 " entries, expected %" PRId64, op, name, len, n);
  for (int64_t i = 0; i < n; i++)
    if (v[i] < lo || v[i] > hi)
      return vm_check_fail(c, "%s: %s[%" PRId64 "] = %" PRId64 " is out of range [%" PRId64 ", %" PRId64 "]", op, name,
                           i, v[i], lo, hi);
  return true;
}

/* ------------------------------------------------------------------ */
/* The fast paths of a reducer that is one binary opcode.  Element-wise
 * combinations (acc[j] = op(acc[j], x[j])) run the element-wise kernel,
 * vm_binary_apply.  Folds of many elements into one accumulator, in order,
 * have no element-wise loop: a FoldOps holds typed loops for those three
 * access patterns, generated from the table below.  For bf16/f16 their
 * values are f32 and every step rounds back to the narrow type, as XLA's
 * per-op bf16/f16 arithmetic (and vm_binary_apply) do. */

typedef struct FoldOps {
  /* *acc = op(...op(*acc, x[0])..., x[n-1]) */
  void (*run)(void *acc, const void *x, int64_t n);
  /* *acc folded with x[off[k]] for k < n, in order */
  void (*gather)(void *acc, const void *x, const int64_t *off, int64_t n);
  /* acc[off[k]] = op(acc[off[k]], x[k]) for k < n with off[k] >= 0, in order */
  void (*scatter)(void *acc, const void *x, const int64_t *off, int64_t n);
} FoldOps;

/* f rounded to the nearest f16, kept in f32. */
static inline float round_to_f16(float f) { return vm_f16_to_f32(vm_f32_to_f16(f)); }

/* The combinations, as the element-wise kernels compute them: integers
 * wrap (16-bit products in unsigned int), max/min are XLA's
 * (common/scalar.h; on i1 the folds use or/and). */
#define COMBINE_ADD(a, b) ((a) + (b))
#define COMBINE_MUL(a, b) ((a) * (b))
#define COMBINE_MUL16(a, b) ((uint16_t)((uint32_t)(a) * (uint32_t)(b)))
#define COMBINE_AND(a, b) ((a) & (b))
#define COMBINE_OR(a, b) ((a) | (b))
#define COMBINE_XOR(a, b) ((a) ^ (b))
#define COMBINE_ADD_BF16(a, b) scalar_round_bf16((a) + (b))
#define COMBINE_MUL_BF16(a, b) scalar_round_bf16((a) * (b))
#define COMBINE_ADD_F16(a, b) round_to_f16((a) + (b))
#define COMBINE_MUL_F16(a, b) round_to_f16((a) * (b))

#define DEFINE_FOLD(NAME, T, OP)                                                                                       \
  static void run_##NAME(void *acc_, const void *x_, int64_t n) {                                                      \
    const T *restrict x = x_;                                                                                          \
    T a = *(T *)acc_;                                                                                                  \
    for (int64_t j = 0; j < n; j++) a = OP(a, x[j]);                                                                   \
    *(T *)acc_ = a;                                                                                                    \
  }                                                                                                                    \
  static void gather_##NAME(void *acc_, const void *x_, const int64_t *off, int64_t n) {                               \
    const T *restrict x = x_;                                                                                          \
    T a = *(T *)acc_;                                                                                                  \
    for (int64_t j = 0; j < n; j++) a = OP(a, x[off[j]]);                                                              \
    *(T *)acc_ = a;                                                                                                    \
  }                                                                                                                    \
  static void scatter_##NAME(void *acc_, const void *x_, const int64_t *off, int64_t n) {                              \
    T *restrict acc = acc_;                                                                                            \
    const T *restrict x = x_;                                                                                          \
    for (int64_t j = 0; j < n; j++)                                                                                    \
      if (off[j] >= 0) acc[off[j]] = OP(acc[off[j]], x[j]);                                                            \
  }                                                                                                                    \
  static const FoldOps fold_##NAME = {run_##NAME, gather_##NAME, scatter_##NAME};

/* The table: every typed fold, (name, C type, combination). */
#define DEFINE_UINT_FOLDS(BITS, MUL)                                                                                   \
  DEFINE_FOLD(add_u##BITS, uint##BITS##_t, COMBINE_ADD)                                                                \
  DEFINE_FOLD(mul_u##BITS, uint##BITS##_t, MUL)                                                                        \
  DEFINE_FOLD(and_u##BITS, uint##BITS##_t, COMBINE_AND)                                                                \
  DEFINE_FOLD(or_u##BITS, uint##BITS##_t, COMBINE_OR)                                                                  \
  DEFINE_FOLD(xor_u##BITS, uint##BITS##_t, COMBINE_XOR)                                                                \
  DEFINE_FOLD(max_u##BITS, uint##BITS##_t, SCALAR_MAX)                                                                 \
  DEFINE_FOLD(min_u##BITS, uint##BITS##_t, SCALAR_MIN)                                                                 \
  DEFINE_FOLD(max_s##BITS, int##BITS##_t, SCALAR_MAX)                                                                  \
  DEFINE_FOLD(min_s##BITS, int##BITS##_t, SCALAR_MIN)

DEFINE_UINT_FOLDS(8, COMBINE_MUL)
DEFINE_UINT_FOLDS(16, COMBINE_MUL16)
DEFINE_UINT_FOLDS(32, COMBINE_MUL)
DEFINE_UINT_FOLDS(64, COMBINE_MUL)
DEFINE_FOLD(add_f32, float, COMBINE_ADD)
DEFINE_FOLD(mul_f32, float, COMBINE_MUL)
DEFINE_FOLD(max_f32, float, SCALAR_MAX)
DEFINE_FOLD(min_f32, float, SCALAR_MIN)
DEFINE_FOLD(add_f64, double, COMBINE_ADD)
DEFINE_FOLD(mul_f64, double, COMBINE_MUL)
DEFINE_FOLD(max_f64, double, SCALAR_MAX)
DEFINE_FOLD(min_f64, double, SCALAR_MIN)
DEFINE_FOLD(add_bf16, float, COMBINE_ADD_BF16)
DEFINE_FOLD(mul_bf16, float, COMBINE_MUL_BF16)
DEFINE_FOLD(add_f16, float, COMBINE_ADD_F16)
DEFINE_FOLD(mul_f16, float, COMBINE_MUL_F16)

/* bf16 and f16 fast paths compute in f32. */
static bool computes_in_f32(int elem) { return elem == TPUB_BF16 || elem == TPUB_F16; }

/* Bytes of one element in the fast paths' compute representation. */
static int compute_bytes(int elem) { return computes_in_f32(elem) ? 4 : vm_elem_bytes(elem); }

#define PICK_INT(BITS, SIGNED)                                                                                         \
  switch (opcode) {                                                                                                    \
  case VM_OP_ADD: return &fold_add_u##BITS;                                                                            \
  case VM_OP_MULTIPLY: return &fold_mul_u##BITS;                                                                       \
  case VM_OP_AND: return &fold_and_u##BITS;                                                                            \
  case VM_OP_OR: return &fold_or_u##BITS;                                                                              \
  case VM_OP_XOR: return &fold_xor_u##BITS;                                                                            \
  case VM_OP_MAXIMUM: return SIGNED ? &fold_max_s##BITS : &fold_max_u##BITS;                                           \
  case VM_OP_MINIMUM: return SIGNED ? &fold_min_s##BITS : &fold_min_u##BITS;                                           \
  default: return NULL;                                                                                                \
  }

/* The typed kernels of binary opcode `opcode` on elem, or NULL when the
 * combination has no fast path (complex, i2/i4, minifloats...). */
static const FoldOps *fold_ops_for(int elem, int opcode) {
  switch (elem) {
  case TPUB_I1:
  case TPUB_U1:
    switch (opcode) {
    case VM_OP_AND:
    case VM_OP_MULTIPLY:
    case VM_OP_MINIMUM: return &fold_and_u8;
    case VM_OP_OR:
    case VM_OP_MAXIMUM: return &fold_or_u8;
    /* i1 add is or (the spec's boolean add); ui1 wraps, as vm_binary_apply */
    case VM_OP_ADD: return elem == TPUB_I1 ? &fold_or_u8 : &fold_xor_u8;
    case VM_OP_XOR: return &fold_xor_u8;
    default: return NULL;
    }
  case TPUB_I8: PICK_INT(8, true)
  case TPUB_U8: PICK_INT(8, false)
  case TPUB_I16: PICK_INT(16, true)
  case TPUB_U16: PICK_INT(16, false)
  case TPUB_I32: PICK_INT(32, true)
  case TPUB_U32: PICK_INT(32, false)
  case TPUB_I64: PICK_INT(64, true)
  case TPUB_U64: PICK_INT(64, false)
  case TPUB_F32:
  case TPUB_F64: {
    bool f32 = elem == TPUB_F32;
    switch (opcode) {
    case VM_OP_ADD: return f32 ? &fold_add_f32 : &fold_add_f64;
    case VM_OP_MULTIPLY: return f32 ? &fold_mul_f32 : &fold_mul_f64;
    case VM_OP_MAXIMUM: return f32 ? &fold_max_f32 : &fold_max_f64;
    case VM_OP_MINIMUM: return f32 ? &fold_min_f32 : &fold_min_f64;
    default: return NULL;
    }
  }
  case TPUB_BF16:
  case TPUB_F16: {
    bool bf = elem == TPUB_BF16;
    switch (opcode) {
    case VM_OP_ADD: return bf ? &fold_add_bf16 : &fold_add_f16;
    case VM_OP_MULTIPLY: return bf ? &fold_mul_bf16 : &fold_mul_f16;
    case VM_OP_MAXIMUM: return &fold_max_f32;
    case VM_OP_MINIMUM: return &fold_min_f32;
    default: return NULL;
    }
  }
  default: return NULL;
  }
}

/* The typed folds for a reducer region (its opcode in *opcode unless
 * opcode is NULL), or NULL when it has no fast path. */
static const FoldOps *region_fold_ops(const VmExec *x, const VmRegion *r, int elem, int *opcode) {
  int op = vm_region_binary_op(x, r, elem, NULL);
  if (opcode) *opcode = op;
  return op < 0 ? NULL : fold_ops_for(elem, op);
}

/* One element (the init value) in the compute representation: f32 when
 * wide, else the element itself. */
static void to_compute(bool wide, int elem, const void *src, void *dst) {
  if (wide) {
    float f;
    vm_to_f32(elem, src, 0, 1, &f);
    memcpy(dst, &f, 4);
  } else {
    copy_elem(dst, src, vm_elem_bytes(elem));
  }
}

/* ------------------------------------------------------------------ */
/* Reducer bodies (reduce, reduce_window) */

/* The spec's is_promotable: a reducer over element type `to` may take
 * inputs of element type `from` (same kind, no narrower). */
static bool promotable(int from, int to) {
  if (from == to) return true;
  if (from == TPUB_I1 || to == TPUB_I1) return false;
  int cf = vm_elem_class(from), ct = vm_elem_class(to);
  bool int_from = cf == TPUB_CLASS_INT || cf == TPUB_CLASS_UINT, int_to = ct == TPUB_CLASS_INT || ct == TPUB_CLASS_UINT;
  if (!(int_from && int_to) && cf != ct) return false;
  return vm_elem_bits(from) <= vm_elem_bits(to);
}

/* Checks the inputs, init values, results and reducer region f of a
 * reduction of N = n_out inputs: (acc_0..acc_N-1, x_0..x_N-1) -> acc_0..
 * acc_N-1 over element types E_i promotable from the inputs'; result i is a
 * tensor<out_dims x E_i>. */
static bool check_reducer(VmCheck *c, const char *op, int f, int out_rank, const int64_t *out_dims) {
  uint32_t n = c->ins->n_out;
  const VmType *in0 = vm_check_in(c, 0);
  if (!vm_check_region(c, f, (int)(2 * n), NULL, (int)n, NULL)) return false;
  const VmFunc *fn = &c->prog->funcs[c->ins->fields[f].regions[0].func];
  for (uint32_t i = 0; i < n; i++) {
    const VmType *in = vm_check_in(c, i), *init = vm_check_in(c, n + i), *acc = fn->reg_types[i];
    if (!vm_type_is_tensor(in) || !vm_type_same_shape(in, in0))
      return vm_check_fail(c, "%s: input %u must have the shape of input 0", op, i);
    if (!kr_is_scalar_of(init, in->elem))
      return vm_check_fail(c, "%s: init value %u must be tensor<%s>", op, i, vm_elem_name(in->elem));
    if (!vm_type_is_tensor(acc) || !promotable(in->elem, acc->elem))
      return vm_check_fail(c, "%s: region argument %u must have an element type promotable from %s", op, i,
                           vm_elem_name(in->elem));
    int e = acc->elem;
    if (!kr_check_region_param(c, op, f, (int)i, e) || !kr_check_region_param(c, op, f, (int)(n + i), e) ||
        !kr_check_region_result(c, op, f, (int)i, e) || !kr_check_result_shape(c, op, i, e, out_rank, out_dims))
      return false;
  }
  return true;
}

/* Converts n elements of a promotable pair of element types. */
static void promote_elems(int from, const void *src, int to, void *dst, int64_t n) {
  if (vm_elem_class(from) == TPUB_CLASS_COMPLEX) {
    for (int64_t i = 0; i < 2 * n; i++) { /* complex<f32> -> complex<f64> */
      double v = from == TPUB_C64 ? ((const float *)src)[i] : ((const double *)src)[i];
      if (to == TPUB_C64)
        ((float *)dst)[i] = (float)v;
      else
        ((double *)dst)[i] = v;
    }
    return;
  }
  bool ints = vm_elem_is_int(from);
  int64_t ibuf[256];
  double fbuf[256];
  for (int64_t i0 = 0; i0 < n; i0 += 256) {
    int64_t k = n - i0 < 256 ? n - i0 : 256;
    if (ints) {
      vm_to_i64(from, src, i0, k, ibuf);
      vm_from_i64(to, dst, i0, k, ibuf);
    } else {
      vm_to_f64(from, src, i0, k, fbuf);
      vm_from_f64(to, dst, i0, k, fbuf);
    }
  }
}

/* The operands (N inputs, N init values) of a reduction whose body works
 * on wider element types, converted to them: *ops is `in` itself when no
 * conversion is needed, else copies in s. */
static bool promote_operands(Scratch *s, const VmInstr *ins, const VmRegion *body, const VmTensor *in,
                             const VmTensor **ops) {
  uint32_t n = ins->n_out;
  const VmFunc *fn = vm_region_func(s->x, body);
  *ops = in;
  bool same = true;
  for (uint32_t i = 0; i < n; i++) same = same && fn->reg_types[i]->elem == in[i].type->elem;
  if (same) return true;
  VmTensor *conv = kr_scratch_get(s, 2 * n, sizeof(VmTensor));
  VmType *types = kr_scratch_get(s, n, sizeof(VmType));
  if (!conv || !types) return false;
  for (uint32_t i = 0; i < n; i++) {
    const VmType *acc = fn->reg_types[i];
    conv[i] = in[i];
    conv[n + i] = in[n + i];
    if (acc->elem == in[i].type->elem) continue;
    types[i] = *in[i].type;
    types[i].elem = acc->elem;
    types[i].nbytes = types[i].count * vm_elem_bytes(acc->elem);
    conv[i].type = &types[i];
    conv[i].data = kr_scratch_get(s, types[i].count, (size_t)vm_elem_bytes(acc->elem));
    conv[n + i].type = acc;
    conv[n + i].data = kr_scratch_get(s, 1, 16);
    if (!conv[i].data || !conv[n + i].data) return false;
    promote_elems(in[i].type->elem, in[i].data, acc->elem, conv[i].data, types[i].count);
    promote_elems(in[i].type->elem, in[n + i].data, acc->elem, conv[n + i].data, 1);
  }
  *ops = conv;
  return true;
}

/* ------------------------------------------------------------------ */
/* reduce */

/* The input's dimensions with size-1 ones dropped and neighbours of the
 * same kind (kept / reduced) merged, with strides into the result. */
typedef struct Merged {
  int n;
  int64_t size[TPUB_MAX_RANK];
  bool reduced[TPUB_MAX_RANK];
  int64_t out_stride[TPUB_MAX_RANK];
} Merged;

/* Builds the merged view of input type t given its reduced dimensions. */
static void merge_reduce_dims(const VmType *t, const bool *reduced, Merged *m) {
  m->n = 0;
  for (int d = 0; d < t->rank; d++) {
    if (t->dims[d] == 1) continue;
    if (m->n > 0 && m->reduced[m->n - 1] == reduced[d]) {
      m->size[m->n - 1] *= t->dims[d];
    } else {
      m->size[m->n] = t->dims[d];
      m->reduced[m->n++] = reduced[d];
    }
  }
  if (m->n == 0) {
    m->size[0] = 1;
    m->reduced[m->n++] = false;
  }
  int64_t s = 1;
  for (int k = m->n - 1; k >= 0; k--) {
    m->out_stride[k] = m->reduced[k] ? 0 : s;
    if (!m->reduced[k]) s *= m->size[k];
  }
}

bool check_reduce(VmCheck *c) {
  const char *op = "reduce";
  const VmInstr *ins = c->ins;
  if (ins->n_out == 0 || ins->n_in != 2 * ins->n_out)
    return vm_check_fail(c, "%s: expected N inputs, N init values and N results", op);
  const VmType *in0 = vm_check_in(c, 0);
  if (!vm_type_is_tensor(in0)) return vm_check_fail(c, "%s: operand 0 is not a tensor", op);
  int64_t nd;
  const int64_t *dims = vm_field_list(ins, 0, &nd);
  bool reduced[TPUB_MAX_RANK] = {false};
  if (nd > in0->rank) return vm_check_fail(c, "%s: more dimensions than the rank", op);
  for (int64_t k = 0; k < nd; k++) {
    if (dims[k] < 0 || dims[k] >= in0->rank)
      return vm_check_fail(c, "%s: dimension %" PRId64 " out of range for rank %d", op, dims[k], in0->rank);
    if (reduced[dims[k]]) return vm_check_fail(c, "%s: dimension %" PRId64 " repeated", op, dims[k]);
    reduced[dims[k]] = true;
  }
  int64_t out_dims[TPUB_MAX_RANK];
  int out_rank = 0;
  for (int d = 0; d < in0->rank; d++)
    if (!reduced[d]) out_dims[out_rank++] = in0->dims[d];
  return check_reducer(c, op, 1, out_rank, out_dims);
}

/* A reduce folded over row-major ranges of its inputs: exec_reduce folds
 * one range, all of it; an input fusion folds each tile of its producer
 * as it is computed (vm/kernels/fusion.c).  Every input element is folded into
 * its accumulator in row-major order, so the split never changes a bit. */
struct VmReduceFold {
  VmExec *x;
  const VmInstr *ins;
  const FoldOps *ops; /* N = 1 with a recognised reducer; NULL: the region per element */
  int opcode;         /* fast path: the reducer's opcode */
  bool wide;          /* fast path: rows of bf16/f16 folded into f32 accumulators */
  Merged m;
  int elem;      /* the body's element type of input 0 */
  int *from;     /* N input element types where some is promoted to the body's; else NULL */
  char *acc;     /* fast path: accumulators, out->data or f32 when wide */
  VmTensor *out; /* N results */
  int *bytes;    /* generic path: element bytes of each value */
  RegionCall rc;
  Scratch s;
};

/* The merged view of reduce instruction ins over input type t. */
static void reduce_merged(const VmInstr *ins, const VmType *t, Merged *m) {
  int64_t nd;
  const int64_t *dims = vm_field_list(ins, 0, &nd);
  bool reduced[TPUB_MAX_RANK] = {false};
  for (int64_t k = 0; k < nd; k++) reduced[dims[k]] = true;
  merge_reduce_dims(t, reduced, m);
}

/* The accumulator offset of input row r (rows of the innermost merged dim). */
static int64_t row_out_off(const Merged *m, int64_t r) {
  int64_t off = 0;
  for (int d = m->n - 2; d >= 0; d--) {
    off += (r % m->size[d]) * m->out_stride[d];
    r /= m->size[d];
  }
  return off;
}

/* Fast path: elements [s, s + len) of the input (data at element s).  A
 * row of a reduced inner dimension folds into one accumulator (typed fold);
 * a row of a kept one combines element-wise with its accumulators. */
static void fold_fast(const VmReduceFold *f, const char *data, int64_t s, int64_t len) {
  const Merged *m = &f->m;
  int esz = vm_elem_bytes(f->elem), csz = f->wide ? 4 : esz;
  bool inner_reduced = m->reduced[m->n - 1];
  int64_t inner = m->size[m->n - 1], r = s / inner, c = s % inner;
  float buf[CHUNK];
  for (; len > 0; r++, c = 0) {
    int64_t run = inner - c < len ? inner - c : len;
    char *acc = f->acc + (row_out_off(m, r) + (inner_reduced ? 0 : c)) * csz;
    if (!inner_reduced) {
      vm_binary_apply(f->opcode, f->elem, acc, acc, data, run);
    } else if (!f->wide) {
      f->ops->run(acc, data, run);
    } else {
      for (int64_t c0 = 0; c0 < run; c0 += CHUNK) {
        int64_t n = run - c0 < CHUNK ? run - c0 : CHUNK;
        vm_to_f32(f->elem, data, c0, n, buf);
        f->ops->run(acc, buf, n);
      }
    }
    data += run * esz;
    len -= run;
  }
}

/* Generic path: the region per input element of [s, s + len). */
static int fold_generic(VmReduceFold *f, const void *const *data, int64_t s, int64_t len) {
  const Merged *m = &f->m;
  uint32_t n = f->ins->n_out;
  RegionCall *rc = &f->rc;
  int64_t idx[TPUB_MAX_RANK], out_off = 0, rem = s;
  for (int d = m->n - 1; d >= 0; d--) {
    idx[d] = rem % m->size[d];
    rem /= m->size[d];
    out_off += idx[d] * m->out_stride[d];
  }
  for (int64_t e = 0; e < len; e++) {
    for (uint32_t i = 0; i < n; i++) {
      rc->args[i].data = (char *)f->out[i].data + out_off * f->bytes[i];
      rc->args[n + i].data = (char *)data[i] + e * f->bytes[i];
    }
    if (rc->mini) {
      /* The evaluator reads every argument before writing a result. */
      for (uint32_t i = 0; i < n; i++) rc->res[i].data = rc->args[i].data;
      kr_mini_run(&rc->prog, rc->args, rc->res, 0, NULL);
    } else {
      int rcode = kr_region_call(rc);
      if (rcode != VM_OK) return rcode;
      for (uint32_t i = 0; i < n; i++) copy_elem(rc->args[i].data, rc->res[i].data, f->bytes[i]);
    }
    for (int d = m->n - 1; d >= 0; d--) {
      out_off += m->out_stride[d];
      if (++idx[d] < m->size[d]) break;
      out_off -= m->out_stride[d] * m->size[d];
      idx[d] = 0;
    }
  }
  return VM_OK;
}

bool vm_reduce_foldable(const VmInstr *ins) {
  const VmRegion *body = &ins->fields[1].regions[0];
  return !body->ncaps && ins->n_out <= FOLD_MAX_VALUES;
}

/* The init values of a fold whose inputs are promoted, converted to the
 * body's types (in f->s); init itself otherwise.  NULL when out of memory. */
static const VmTensor *promoted_init(VmReduceFold *f, const VmFunc *body, const VmTensor *init) {
  if (!f->from) return init;
  uint32_t n = f->ins->n_out;
  VmTensor *conv = kr_scratch_get(&f->s, n, sizeof(VmTensor));
  for (uint32_t i = 0; conv && i < n; i++) {
    conv[i] = (VmTensor){body->reg_types[i], kr_scratch_get(&f->s, 1, 16)};
    if (!conv[i].data) return NULL;
    promote_elems(f->from[i], init[i].data, body->reg_types[i]->elem, conv[i].data, 1);
  }
  return conv;
}

VmReduceFold *vm_reduce_fold_begin(VmExec *x, const VmInstr *ins, const VmType *const *in_types, const VmTensor *init,
                                   VmTensor *out) {
  VmReduceFold *f = vm_scratch_alloc(x, sizeof *f);
  if (!f) {
    vm_trap(x, "out of memory: reduce scratch");
    return NULL;
  }
  const VmRegion *body = &ins->fields[1].regions[0];
  const VmFunc *fn = vm_region_func(x, body);
  *f = (VmReduceFold){.x = x, .ins = ins, .elem = fn->reg_types[0]->elem, .out = out, .s = {.x = x}};
  reduce_merged(ins, in_types[0], &f->m);
  uint32_t n = ins->n_out;
  bool ok = true;
  for (uint32_t i = 0; i < n && !f->from; i++)
    if (in_types[i]->elem != fn->reg_types[i]->elem && (ok = (f->from = kr_scratch_get(&f->s, n, sizeof(int)))))
      for (uint32_t j = 0; j < n; j++) f->from[j] = in_types[j]->elem;
  init = ok ? promoted_init(f, fn, init) : NULL;
  ok = init != NULL;
  f->ops = ok && n == 1 ? region_fold_ops(x, body, f->elem, &f->opcode) : NULL;
  int64_t out_count = out[0].type->count;
  if (ok && f->ops) {
    f->wide = computes_in_f32(f->elem) && f->m.reduced[f->m.n - 1];
    int csz = f->wide ? 4 : vm_elem_bytes(f->elem);
    f->acc = f->wide ? kr_scratch_get(&f->s, out_count, 4) : out->data;
    char init_c[16];
    to_compute(f->wide, f->elem, init->data, init_c);
    if ((ok = f->acc != NULL)) fill_elems(f->acc, init_c, out_count, csz);
  } else if (ok) {
    f->bytes = kr_scratch_get(&f->s, n, sizeof(int));
    ok = f->bytes && kr_region_call_init(&f->rc, &f->s, x, body);
    for (uint32_t i = 0; ok && i < n; i++) {
      f->bytes[i] = vm_elem_bytes(out[i].type->elem);
      fill_elems(out[i].data, init[i].data, out_count, f->bytes[i]);
    }
  }
  if (!ok) {
    kr_scratch_fail(&f->s, "reduce");
    vm_scratch_free(x, f, sizeof *f);
    return NULL;
  }
  return f;
}

int64_t vm_reduce_fold_block(const VmReduceFold *f, int64_t in_count) {
  if (!f->ops || f->m.reduced[0] || in_count == 0) return in_count;
  return in_count / f->m.size[0];
}

/* Folds [s, s + len) of inputs that need no conversion. */
static int fold_range(VmReduceFold *f, const void *const *data, int64_t s, int64_t len) {
  if (f->ops) {
    fold_fast(f, data[0], s, len);
    return VM_OK;
  }
  return fold_generic(f, data, s, len);
}

int vm_reduce_fold(VmReduceFold *f, const void *const *data, int64_t s, int64_t len) {
  if (len <= 0) return VM_OK;
  if (!f->from) return fold_range(f, data, s, len);
  /* Promoted inputs: converted a chunk at a time on this thread's stack
   * (folds may run on several threads at once). */
  uint32_t n = f->ins->n_out;
  const VmFunc *fn = vm_region_func(f->x, &f->ins->fields[1].regions[0]);
  _Alignas(16) char conv[FOLD_CONV_BYTES];
  const void *chunk[FOLD_MAX_VALUES];
  int64_t step = FOLD_CONV_BYTES / (16 * (int64_t)n);
  for (int64_t i0 = 0; i0 < len; i0 += step) {
    int64_t k = len - i0 < step ? len - i0 : step;
    for (uint32_t i = 0; i < n; i++) {
      int to = fn->reg_types[i]->elem;
      const char *src = (const char *)data[i] + i0 * vm_elem_bytes(f->from[i]);
      chunk[i] = src;
      if (f->from[i] == to) continue;
      char *dst = conv + (size_t)i * (size_t)step * 16;
      promote_elems(f->from[i], src, to, dst, k);
      chunk[i] = dst;
    }
    int rc = fold_range(f, chunk, s + i0, k);
    if (rc != VM_OK) return rc;
  }
  return VM_OK;
}

void vm_reduce_fold_end(VmReduceFold *f, bool ok) {
  if (ok && f->wide)
    vm_from_f32(f->elem, f->out->data, 0, f->out->type->count, (const float *)f->acc);
  kr_scratch_release(&f->s);
  vm_scratch_free(f->x, f, sizeof *f);
}

/* Folds the inputs whole; a body wider than the inputs converts them a
 * chunk at a time as it folds (only a reduce of more values than a fold
 * converts on its stack is promoted into a whole copy first). */
int exec_reduce(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  const VmRegion *body = &ins->fields[1].regions[0];
  Scratch s = {.x = x};
  const VmTensor *ops_in = in;
  if (ins->n_out > FOLD_MAX_VALUES && !promote_operands(&s, ins, body, in, &ops_in)) return kr_scratch_fail(&s, "reduce");
  uint32_t n = ins->n_out;
  const VmType **types = kr_scratch_get(&s, n, sizeof(VmType *));
  for (uint32_t i = 0; types && i < n; i++) types[i] = ops_in[i].type;
  VmReduceFold *f = types ? vm_reduce_fold_begin(x, ins, types, &ops_in[n], out) : NULL;
  const void **data = kr_scratch_get(&s, n, sizeof(void *));
  int rcode = VM_TRAP;
  if (!data) rcode = vm_trap(x, "out of memory: reduce scratch");
  if (f && data) {
    for (uint32_t i = 0; i < n; i++) data[i] = ops_in[i].data;
    rcode = vm_reduce_fold(f, data, 0, ops_in[0].type->count);
  }
  if (f) vm_reduce_fold_end(f, rcode == VM_OK);
  kr_scratch_release(&s);
  return rcode;
}

/* ------------------------------------------------------------------ */
/* Windows (reduce_window, select_and_scatter) */

/* One dimension of a windowed op: input size, window size, stride,
 * base and window dilation, low padding, number of windows, input stride. */
typedef struct WinDim {
  int64_t in, win, stride, base_dil, win_dil, pad_lo, out, in_stride;
} WinDim;

/* Number of windows of one dimension, or -1 when the sizes overflow. */
static int64_t window_count(int64_t in, int64_t win, int64_t stride, int64_t base_dil, int64_t win_dil, int64_t lo,
                            int64_t hi) {
  int64_t dilated = 0, padded, dilated_win;
  if (in > 0 && (__builtin_mul_overflow(in - 1, base_dil, &dilated) || __builtin_add_overflow(dilated, 1, &dilated)))
    return -1;
  if (__builtin_add_overflow(dilated, lo, &padded) || __builtin_add_overflow(padded, hi, &padded)) return -1;
  if (__builtin_mul_overflow(win - 1, win_dil, &dilated_win)) return -1;
  dilated_win += 1;
  if (padded < dilated_win) return 0;
  return (padded - dilated_win) / stride + 1;
}

/* The input elements (index * in_stride) that window o of dimension w
 * reads, in window order; returns their count.  dst may be NULL. */
static int64_t dim_taps(const WinDim *w, int64_t o, int64_t *dst) {
  if (w->in == 0) return 0;
  int64_t n = 0;
  int64_t start = o * w->stride - w->pad_lo; /* base-dilated coordinate of tap 0 */
  int64_t end = start + (w->win - 1) * w->win_dil;
  int64_t last = (w->in - 1) * w->base_dil;
  if (end < 0 || start > last) return 0;
  int64_t kmin = 0;
  if (start > 0) {
    kmin = start / w->base_dil;
    if (kmin * w->base_dil < start) kmin++;
  }
  int64_t kmax = end / w->base_dil;
  if (kmax > w->in - 1) kmax = w->in - 1;
  if (kmax < kmin) return 0;
  if (kmax - kmin < w->win) {
    /* Walk the input elements the window spans. */
    for (int64_t k = kmin; k <= kmax; k++) {
      int64_t t = k * w->base_dil - start;
      if (t % w->win_dil) continue;
      if (dst) dst[n] = k * w->in_stride;
      n++;
    }
  } else {
    /* Walk the window taps. */
    for (int64_t t = 0; t < w->win; t++) {
      int64_t q = start + t * w->win_dil;
      if (q < 0) continue;
      if (q > last) break;
      if (q % w->base_dil) continue;
      if (dst) dst[n] = q / w->base_dil * w->in_stride;
      n++;
    }
  }
  return n;
}

/* Per dimension and window position, the list of input offsets it reads. */
typedef struct WinPlan {
  int rank;
  const int64_t *start[TPUB_MAX_RANK]; /* out + 1 entries: taps[start[o] .. start[o+1]) */
  const int64_t *taps[TPUB_MAX_RANK];
  int64_t max_taps; /* most input elements one window reads */
} WinPlan;

/* Tabulates the taps of every window position of every dimension. */
static bool win_plan_build(Scratch *s, int rank, const WinDim *wd, WinPlan *p) {
  p->rank = rank;
  p->max_taps = 1;
  for (int d = 0; d < rank; d++) {
    int64_t total = 0, most = 0;
    for (int64_t o = 0; o < wd[d].out; o++) {
      int64_t c = dim_taps(&wd[d], o, NULL);
      total += c;
      if (c > most) most = c;
    }
    int64_t *start = kr_scratch_get(s, wd[d].out + 1 + total, sizeof(int64_t)), *taps = start + wd[d].out + 1;
    if (!start) return false;
    start[0] = 0;
    for (int64_t o = 0; o < wd[d].out; o++) start[o + 1] = start[o] + dim_taps(&wd[d], o, taps + start[o]);
    p->start[d] = start;
    p->taps[d] = taps;
    p->max_taps *= most; /* <= the input's element count */
  }
  return true;
}

/* Appends the offsets of window o from dimension d on, base included. */
static void win_collect_dim(const WinPlan *p, const int64_t *o, int d, int64_t base, int64_t *offs, int64_t *n) {
  const int64_t *t = p->taps[d] + p->start[d][o[d]], *end = p->taps[d] + p->start[d][o[d] + 1];
  if (d == p->rank - 1) {
    for (; t < end; t++) offs[(*n)++] = base + *t;
    return;
  }
  for (; t < end; t++) win_collect_dim(p, o, d + 1, base + *t, offs, n);
}

/* The input offsets window o reads, in row-major window order. */
static int64_t win_collect(const WinPlan *p, const int64_t *o, int64_t *offs) {
  if (p->rank == 0) {
    offs[0] = 0;
    return 1;
  }
  int64_t n = 0;
  win_collect_dim(p, o, 0, 0, offs, &n);
  return n;
}

/* Advances a row-major multi-index over dims. */
static inline void next_index(int rank, const int64_t *dims, int64_t *idx) {
  for (int d = rank - 1; d >= 0; d--) {
    if (++idx[d] < dims[d]) return;
    idx[d] = 0;
  }
}

/* ------------------------------------------------------------------ */
/* reduce_window */

enum { RW_WINDOW, RW_STRIDES, RW_BASE_DIL, RW_WIN_DIL, RW_PADDING, RW_BODY };

bool check_reduce_window(VmCheck *c) {
  const char *op = "reduce_window";
  const VmInstr *ins = c->ins;
  if (ins->n_out == 0 || ins->n_in != 2 * ins->n_out)
    return vm_check_fail(c, "%s: expected N inputs, N init values and N results", op);
  const VmType *in0 = vm_check_in(c, 0);
  if (!vm_type_is_tensor(in0)) return vm_check_fail(c, "%s: operand 0 is not a tensor", op);
  int rank = in0->rank;
  if (!check_list(c, op, RW_WINDOW, "window_dimensions", rank, 1, ATTR_LIMIT) ||
      !check_list(c, op, RW_STRIDES, "window_strides", rank, 1, ATTR_LIMIT) ||
      !check_list(c, op, RW_BASE_DIL, "base_dilations", rank, 1, ATTR_LIMIT) ||
      !check_list(c, op, RW_WIN_DIL, "window_dilations", rank, 1, ATTR_LIMIT) ||
      !check_list(c, op, RW_PADDING, "padding", 2 * (int64_t)rank, -ATTR_LIMIT, ATTR_LIMIT))
    return false;
  int64_t k;
  const int64_t *win = vm_field_list(ins, RW_WINDOW, &k), *str = vm_field_list(ins, RW_STRIDES, &k),
                *bd = vm_field_list(ins, RW_BASE_DIL, &k), *wdl = vm_field_list(ins, RW_WIN_DIL, &k),
                *pad = vm_field_list(ins, RW_PADDING, &k);
  int64_t out_dims[TPUB_MAX_RANK];
  for (int d = 0; d < rank; d++) {
    out_dims[d] = window_count(in0->dims[d], win[d], str[d], bd[d], wdl[d], pad[2 * d], pad[2 * d + 1]);
    if (out_dims[d] < 0) return vm_check_fail(c, "%s: padded size of dimension %d overflows", op, d);
  }
  return check_reducer(c, op, RW_BODY, rank, out_dims);
}

/* N = 1 with a recognised reducer: a typed gather per window. */
static int reduce_window_fast(const FoldOps *ops, const WinPlan *plan, Scratch *s, const VmTensor *in,
                              const VmTensor *init, VmTensor *out) {
  int elem = in->type->elem, csz = compute_bytes(elem);
  const VmType *ot = out->type;
  int64_t out_count = ot->count;
  const void *src = in->data;
  char *acc = out->data;
  int64_t *offs = kr_scratch_get(s, plan->max_taps, sizeof(int64_t));
  if (!offs) return kr_scratch_fail(s, "reduce_window");
  if (computes_in_f32(elem)) {
    float *wide = kr_scratch_get(s, in->type->count, 4);
    acc = kr_scratch_get(s, out_count, 4);
    if (!wide || !acc) return kr_scratch_fail(s, "reduce_window");
    vm_to_f32(elem, in->data, 0, in->type->count, wide);
    src = wide;
  }
  char init_c[16];
  to_compute(computes_in_f32(elem), elem, init->data, init_c);
  int64_t o[TPUB_MAX_RANK] = {0};
  for (int64_t e = 0; e < out_count; e++) {
    char *a = acc + e * csz;
    copy_elem(a, init_c, csz);
    ops->gather(a, src, offs, win_collect(plan, o, offs));
    next_index(ot->rank, ot->dims, o);
  }
  if (computes_in_f32(elem)) vm_from_f32(elem, out->data, 0, out_count, (const float *)acc);
  kr_scratch_release(s);
  return VM_OK;
}

/* Any N and body: the region per window element. */
static int reduce_window_generic(VmExec *x, const VmInstr *ins, const WinPlan *plan, Scratch *s, const VmTensor *in,
                                 VmTensor *out) {
  uint32_t n = ins->n_out;
  const VmType *ot = out[0].type;
  RegionCall rc;
  int64_t *offs = kr_scratch_get(s, plan->max_taps, sizeof(int64_t));
  if (!offs || !kr_region_call_init(&rc, s, x, &ins->fields[RW_BODY].regions[0]))
    return kr_scratch_fail(s, "reduce_window");
  int64_t o[TPUB_MAX_RANK] = {0};
  for (int64_t e = 0; e < ot->count; e++) {
    for (uint32_t i = 0; i < n; i++) {
      int b = vm_elem_bytes(out[i].type->elem);
      copy_elem((char *)out[i].data + e * b, in[n + i].data, b);
    }
    int64_t taps = win_collect(plan, o, offs);
    for (int64_t t = 0; t < taps; t++) {
      for (uint32_t i = 0; i < n; i++) {
        int b = vm_elem_bytes(out[i].type->elem);
        rc.args[i].data = (char *)out[i].data + e * b;
        rc.args[n + i].data = (char *)in[i].data + offs[t] * b;
      }
      int rcode = kr_region_call(&rc);
      if (rcode != VM_OK) {
        kr_scratch_release(s);
        return rcode;
      }
      for (uint32_t i = 0; i < n; i++) {
        int b = vm_elem_bytes(out[i].type->elem);
        copy_elem((char *)out[i].data + e * b, rc.res[i].data, b);
      }
    }
    next_index(ot->rank, ot->dims, o);
  }
  kr_scratch_release(s);
  return VM_OK;
}

/* A reduce_window that is an inclusive scan along one dimension d (cumsum,
 * cumprod, cummax... as JAX emits them): a window covering the dimension
 * with stride 1, no dilation and padding (W-1, 0), the identity on the other
 * dimensions.  Output i then folds init with x[0..i] in order, so one pass
 * carrying the fold computes exactly the same combinations.  Padding
 * (0, W-1) is the reverse scan.  Returns d, or -1. */
static int scan_dimension(const VmInstr *ins, const VmType *it, bool *reverse) {
  int64_t k;
  const int64_t *win = vm_field_list(ins, RW_WINDOW, &k), *str = vm_field_list(ins, RW_STRIDES, &k),
                *bd = vm_field_list(ins, RW_BASE_DIL, &k), *wdl = vm_field_list(ins, RW_WIN_DIL, &k),
                *pad = vm_field_list(ins, RW_PADDING, &k);
  int scan = -1;
  for (int d = 0; d < it->rank; d++) {
    if (str[d] != 1 || bd[d] != 1 || wdl[d] != 1) return -1;
    if (win[d] == 1 && pad[2 * d] == 0 && pad[2 * d + 1] == 0) continue;
    if (scan >= 0 || win[d] < it->dims[d]) return -1;
    if (pad[2 * d] == win[d] - 1 && pad[2 * d + 1] == 0)
      *reverse = false;
    else if (pad[2 * d] == 0 && pad[2 * d + 1] == win[d] - 1)
      *reverse = true;
    else
      return -1;
    scan = d;
  }
  return scan;
}

/* The inclusive scan with a reducer that is one binary opcode, a row of
 * the scanned dimension at a time with the element-wise kernel; reverse
 * only for exactly associative and commutative ops (integers, logic), where
 * folding from the end gives the same result. */
static void reduce_window_scan_fast(int opcode, int d, bool reverse, const VmTensor *in, const VmTensor *init,
                                    VmTensor *out) {
  const VmType *t = in->type;
  int elem = t->elem, b = vm_elem_bytes(elem);
  int64_t n = t->dims[d], inner = 1;
  for (int k = d + 1; k < t->rank; k++) inner *= t->dims[k];
  int64_t outer = t->count / (n * inner);
  const char *src = in->data;
  char *acc = out->data;
  for (int64_t o = 0; o < outer; o++) {
    for (int64_t step = 0; step < n; step++) {
      int64_t i = reverse ? n - 1 - step : step, prev = reverse ? i + 1 : i - 1;
      char *row = acc + (o * n + i) * inner * b;
      const char *before = row;
      if (step == 0)
        fill_elems(row, init->data, inner, b);
      else
        before = acc + (o * n + prev) * inner * b;
      vm_binary_apply(opcode, elem, row, before, src + (o * n + i) * inner * b, inner);
    }
  }
}

/* The inclusive scan (forward) with any body: one region call per element. */
static int reduce_window_scan_generic(VmExec *x, const VmInstr *ins, int d, const VmTensor *in, VmTensor *out) {
  uint32_t nops = ins->n_out;
  const VmType *t = in[0].type;
  int64_t n = t->dims[d], inner = 1;
  for (int k = d + 1; k < t->rank; k++) inner *= t->dims[k];
  Scratch s = {.x = x};
  RegionCall rc;
  int *bytes = kr_scratch_get(&s, nops, sizeof(int));
  if (!bytes || !kr_region_call_init(&rc, &s, x, &ins->fields[RW_BODY].regions[0]))
    return kr_scratch_fail(&s, "reduce_window");
  for (uint32_t j = 0; j < nops; j++) bytes[j] = vm_elem_bytes(out[j].type->elem);
  for (int64_t e = 0; e < t->count; e++) {
    int64_t i = e / inner % n; /* position along d; the previous one is e - inner */
    for (uint32_t j = 0; j < nops; j++) {
      rc.args[j].data = i == 0 ? in[nops + j].data : (char *)out[j].data + (e - inner) * bytes[j];
      rc.args[nops + j].data = (char *)in[j].data + e * bytes[j];
    }
    int rcode = kr_region_call(&rc);
    if (rcode != VM_OK) {
      kr_scratch_release(&s);
      return rcode;
    }
    for (uint32_t j = 0; j < nops; j++) copy_elem((char *)out[j].data + e * bytes[j], rc.res[j].data, bytes[j]);
  }
  kr_scratch_release(&s);
  return VM_OK;
}

/* Scans in one pass; other windows through the tap tables. */
int exec_reduce_window(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  uint32_t n = ins->n_out;
  const VmRegion *body = &ins->fields[RW_BODY].regions[0];
  const VmType *it = in[0].type, *ot = out[0].type;
  if (ot->count == 0) return VM_OK;
  Scratch s = {.x = x};
  const VmTensor *ops_in;
  if (!promote_operands(&s, ins, body, in, &ops_in)) return kr_scratch_fail(&s, "reduce_window");
  if (it->count == 0) {
    for (uint32_t i = 0; i < n; i++)
      fill_elems(out[i].data, ops_in[n + i].data, ot->count, vm_elem_bytes(out[i].type->elem));
    kr_scratch_release(&s);
    return VM_OK;
  }
  int opcode = -1;
  const FoldOps *ops = n == 1 ? region_fold_ops(x, body, ot->elem, &opcode) : NULL;
  bool reverse = false;
  int scan = scan_dimension(ins, it, &reverse);
  if (scan >= 0 && ops && (!reverse || vm_elem_is_int(ot->elem))) {
    reduce_window_scan_fast(opcode, scan, reverse, &ops_in[0], &ops_in[1], &out[0]);
    kr_scratch_release(&s);
    return VM_OK;
  }
  if (scan >= 0 && !reverse && !ops) {
    int rcode = reduce_window_scan_generic(x, ins, scan, ops_in, out);
    kr_scratch_release(&s);
    return rcode;
  }
  int64_t k;
  const int64_t *win = vm_field_list(ins, RW_WINDOW, &k), *str = vm_field_list(ins, RW_STRIDES, &k),
                *bd = vm_field_list(ins, RW_BASE_DIL, &k), *wdl = vm_field_list(ins, RW_WIN_DIL, &k),
                *pad = vm_field_list(ins, RW_PADDING, &k);
  int64_t in_strides[TPUB_MAX_RANK];
  row_major_strides(it->rank, it->dims, in_strides);
  WinDim wd[TPUB_MAX_RANK];
  for (int d = 0; d < it->rank; d++)
    wd[d] = (WinDim){it->dims[d], win[d], str[d], bd[d], wdl[d], pad[2 * d], ot->dims[d], in_strides[d]};
  WinPlan plan;
  if (!win_plan_build(&s, it->rank, wd, &plan)) return kr_scratch_fail(&s, "reduce_window");
  if (ops) return reduce_window_fast(ops, &plan, &s, &ops_in[0], &ops_in[1], &out[0]);
  return reduce_window_generic(x, ins, &plan, &s, ops_in, out);
}

/* ------------------------------------------------------------------ */
/* select_and_scatter */

enum { SS_WINDOW, SS_STRIDES, SS_PADDING, SS_SELECT, SS_SCATTER };

bool check_select_and_scatter(VmCheck *c) {
  const char *op = "select_and_scatter";
  const VmType *operand = vm_check_in(c, 0), *source = vm_check_in(c, 1), *init = vm_check_in(c, 2);
  if (!vm_type_is_tensor(operand) || !vm_type_is_tensor(source))
    return vm_check_fail(c, "%s: operand and source must be tensors", op);
  int rank = operand->rank, elem = operand->elem;
  if (source->elem != elem) return vm_check_fail(c, "%s: source must have the operand's element type", op);
  if (!kr_is_scalar_of(init, elem))
    return vm_check_fail(c, "%s: init value must be tensor<%s>", op, vm_elem_name(elem));
  if (!check_list(c, op, SS_WINDOW, "window_dimensions", rank, 1, ATTR_LIMIT) ||
      !check_list(c, op, SS_STRIDES, "window_strides", rank, 1, ATTR_LIMIT) ||
      !check_list(c, op, SS_PADDING, "padding", 2 * (int64_t)rank, -ATTR_LIMIT, ATTR_LIMIT))
    return false;
  int64_t k;
  const int64_t *win = vm_field_list(c->ins, SS_WINDOW, &k), *str = vm_field_list(c->ins, SS_STRIDES, &k),
                *pad = vm_field_list(c->ins, SS_PADDING, &k);
  for (int d = 0; d < rank; d++) {
    int64_t windows = window_count(operand->dims[d], win[d], str[d], 1, 1, pad[2 * d], pad[2 * d + 1]);
    if (windows < 0) return vm_check_fail(c, "%s: padded size of dimension %d overflows", op, d);
    if (source->dims[d] != windows)
      return vm_check_fail(c, "%s: source dimension %d is %" PRId64 ", the number of windows is %" PRId64, op, d,
                           source->dims[d], windows);
  }
  if (!vm_check_region(c, SS_SELECT, 2, NULL, 1, NULL) || !kr_check_region_param(c, op, SS_SELECT, 0, elem) ||
      !kr_check_region_param(c, op, SS_SELECT, 1, elem) || !kr_check_region_result(c, op, SS_SELECT, 0, TPUB_I1))
    return false;
  /* The scatter region may work on a type promotable from the operand's. */
  if (!vm_check_region(c, SS_SCATTER, 2, NULL, 1, NULL)) return false;
  const VmType *acc = c->prog->funcs[c->ins->fields[SS_SCATTER].regions[0].func].reg_types[0];
  if (!vm_type_is_tensor(acc) || !promotable(elem, acc->elem))
    return vm_check_fail(c, "%s: scatter region must work on an element type promotable from %s", op,
                         vm_elem_name(elem));
  int e = acc->elem;
  return kr_check_region_param(c, op, SS_SCATTER, 0, e) && kr_check_region_param(c, op, SS_SCATTER, 1, e) &&
         kr_check_region_result(c, op, SS_SCATTER, 0, e) && kr_check_result_shape(c, op, 0, e, rank, operand->dims);
}

/* For each source element, the operand offset its window selects (-1 when
 * the window holds only padding): the first element of the window, replaced
 * by each later one for which select(selected, candidate) is false. */
static int select_in_windows(VmExec *x, const VmInstr *ins, const WinPlan *plan, Scratch *s, const VmTensor *operand,
                             const VmType *source, int64_t *sel) {
  int64_t *offs = kr_scratch_get(s, plan->max_taps, sizeof(int64_t));
  if (!offs) return kr_scratch_fail(s, "select_and_scatter");
  const VmRegion *r = &ins->fields[SS_SELECT].regions[0];
  int elem = operand->type->elem, dir = 0, cmp_type = 0;
  int kind = kr_region_simple_compare(x, r, &dir, &cmp_type) ? kr_key_kind(elem, cmp_type) : KEYS_NONE;
  int64_t *ikeys = NULL;
  double *fkeys = NULL;
  RegionCall rc;
  bool ok;
  if (kind == KEYS_I64) {
    ok = (ikeys = kr_scratch_get(s, operand->type->count, sizeof(int64_t))) != NULL;
  } else if (kind == KEYS_F64) {
    ok = (fkeys = kr_scratch_get(s, operand->type->count, sizeof(double))) != NULL;
  } else {
    ok = kr_region_call_init(&rc, s, x, r);
  }
  if (!ok) return kr_scratch_fail(s, "select_and_scatter");
  if (kind != KEYS_NONE) kr_load_keys(kind, elem, operand->data, 0, 1, operand->type->count, ikeys, fkeys);
  int b = vm_elem_bytes(elem);
  int64_t o[TPUB_MAX_RANK] = {0};
  for (int64_t e = 0; e < source->count; e++) {
    int64_t taps = win_collect(plan, o, offs);
    int64_t best = taps > 0 ? offs[0] : -1;
    for (int64_t t = 1; t < taps; t++) {
      int64_t cand = offs[t];
      bool keep;
      if (kind == KEYS_I64) {
        keep = SCALAR_COMPARE(dir, ikeys[best], ikeys[cand]);
      } else if (kind == KEYS_F64) {
        keep = SCALAR_COMPARE(dir, fkeys[best], fkeys[cand]);
      } else {
        rc.args[0].data = (char *)operand->data + best * b;
        rc.args[1].data = (char *)operand->data + cand * b;
        int rcode = kr_region_call(&rc);
        if (rcode != VM_OK) {
          kr_scratch_release(s);
          return rcode;
        }
        keep = *(const uint8_t *)rc.res[0].data != 0;
      }
      if (!keep) best = cand;
    }
    sel[e] = best;
    next_index(source->rank, source->dims, o);
  }
  return VM_OK;
}

/* Selects one operand element per window, then scatters the source in
 * source order (row-major) into the result initialised with init. */
int exec_select_and_scatter(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  const VmType *ot = in[0].type, *st = in[1].type;
  int elem = out->type->elem, b = vm_elem_bytes(elem); /* the scatter region's type */
  if (ot->count == 0) return VM_OK;
  Scratch s = {.x = x};
  const void *source = in[1].data;
  if (elem != ot->elem) { /* promoted: init and source converted to the result type */
    char init[16];
    promote_elems(ot->elem, in[2].data, elem, init, 1);
    fill_elems(out->data, init, ot->count, b);
    void *conv = kr_scratch_get(&s, st->count, (size_t)b);
    if (!conv) return kr_scratch_fail(&s, "select_and_scatter");
    promote_elems(ot->elem, in[1].data, elem, conv, st->count);
    source = conv;
  } else {
    fill_elems(out->data, in[2].data, ot->count, b);
  }
  if (st->count == 0) {
    kr_scratch_release(&s);
    return VM_OK;
  }
  int64_t k;
  const int64_t *win = vm_field_list(ins, SS_WINDOW, &k), *str = vm_field_list(ins, SS_STRIDES, &k),
                *pad = vm_field_list(ins, SS_PADDING, &k);
  int64_t strides[TPUB_MAX_RANK];
  row_major_strides(ot->rank, ot->dims, strides);
  WinDim wd[TPUB_MAX_RANK];
  for (int d = 0; d < ot->rank; d++)
    wd[d] = (WinDim){ot->dims[d], win[d], str[d], 1, 1, pad[2 * d], st->dims[d], strides[d]};
  WinPlan plan;
  int64_t *sel = kr_scratch_get(&s, st->count, sizeof(int64_t));
  if (!sel || !win_plan_build(&s, ot->rank, wd, &plan)) return kr_scratch_fail(&s, "select_and_scatter");
  int rcode = select_in_windows(x, ins, &plan, &s, &in[0], st, sel);
  if (rcode != VM_OK) return rcode; /* scratch released */
  const VmRegion *scatter = &ins->fields[SS_SCATTER].regions[0];
  const FoldOps *ops = region_fold_ops(x, scatter, elem, NULL);
  if (ops && !computes_in_f32(elem)) {
    ops->scatter(out->data, source, sel, st->count);
  } else if (ops) {
    float *acc = kr_scratch_get(&s, ot->count, 4), *src = kr_scratch_get(&s, st->count, 4);
    if (!acc || !src) return kr_scratch_fail(&s, "select_and_scatter");
    vm_to_f32(elem, out->data, 0, ot->count, acc);
    vm_to_f32(elem, source, 0, st->count, src);
    ops->scatter(acc, src, sel, st->count);
    vm_from_f32(elem, out->data, 0, ot->count, acc);
  } else {
    RegionCall rc;
    if (!kr_region_call_init(&rc, &s, x, scatter)) return kr_scratch_fail(&s, "select_and_scatter");
    for (int64_t e = 0; e < st->count; e++) {
      if (sel[e] < 0) continue;
      char *dst = (char *)out->data + sel[e] * b;
      rc.args[0].data = dst;
      rc.args[1].data = (char *)source + e * b;
      rcode = kr_region_call(&rc);
      if (rcode != VM_OK) break;
      copy_elem(dst, rc.res[0].data, b);
    }
  }
  kr_scratch_release(&s);
  return rcode;
}

/* ------------------------------------------------------------------ */
/* map */

bool check_map(VmCheck *c) {
  const char *op = "map";
  const VmInstr *ins = c->ins;
  if (ins->n_in == 0) return vm_check_fail(c, "%s: needs at least one operand", op);
  const VmType *ot = vm_check_out(c, 0);
  if (!vm_type_is_tensor(ot)) return vm_check_fail(c, "%s: result is not a tensor", op);
  int64_t nd;
  const int64_t *dims = vm_field_list(ins, 0, &nd);
  if (nd != ot->rank) return vm_check_fail(c, "%s: dimensions must be 0..rank-1", op);
  for (int64_t d = 0; d < nd; d++)
    if (dims[d] != d) return vm_check_fail(c, "%s: dimensions must be 0..rank-1", op);
  if (!vm_check_region(c, 1, (int)ins->n_in, NULL, 1, NULL) || !kr_check_region_result(c, op, 1, 0, ot->elem))
    return false;
  for (uint32_t i = 0; i < ins->n_in; i++) {
    const VmType *t = vm_check_in(c, i);
    if (!vm_type_is_tensor(t) || !vm_type_same_shape(t, ot))
      return vm_check_fail(c, "%s: operand %u must have the result's shape", op, i);
    if (!kr_check_region_param(c, op, 1, (int)i, t->elem)) return false;
  }
  return true;
}

/* The body's instruction when region r is `return op(arg0, ..., argN-1)`
 * for one element-wise opcode applied to the arguments in order, else NULL. */
static const VmInstr *region_single_elementwise(const VmExec *x, const VmRegion *r, uint32_t nargs) {
  if (r->ncaps) return NULL;
  const VmFunc *fn = vm_region_func(x, r);
  if (fn->n_instrs != 2 || fn->n_results != 1) return NULL;
  const VmInstr *op = &fn->instrs[0], *ret = &fn->instrs[1];
  if (op->opcode >= VM_OP_COUNT) return NULL;
  bool elementwise = (vm_op_rows[op->opcode].flags & VMF_ELEMENTWISE) || op->opcode == VM_OP_COMPARE;
  if (!elementwise || op->n_in != nargs || op->n_out != 1) return NULL;
  for (uint32_t k = 0; k < nargs; k++)
    if (op->in[k] != k) return NULL;
  if (ret->opcode != VM_OP_RETURN || ret->n_in != 1 || ret->in[0] != op->out[0]) return NULL;
  return op;
}

/* A one-instruction element-wise body runs its own kernel on the whole
 * tensors; any other body is called per element. */
int exec_map(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  uint32_t n = ins->n_in;
  int64_t count = out->type->count;
  if (count == 0) return VM_OK;
  const VmRegion *r = &ins->fields[1].regions[0];
  const VmInstr *body = region_single_elementwise(x, r, n);
  if (body) {
    VmInstr whole = *body;
    whole.flags = 0;
    return vm_exec_table[body->opcode](x, &whole, in, out);
  }
  Scratch s = {.x = x};
  RegionCall rc;
  if (!kr_region_call_init(&rc, &s, x, r)) return kr_scratch_fail(&s, "map");
  int ob = vm_elem_bytes(out->type->elem);
  int rcode = VM_OK;
  for (int64_t e = 0; e < count && rcode == VM_OK; e++) {
    for (uint32_t i = 0; i < n; i++) rc.args[i].data = (char *)in[i].data + e * vm_elem_bytes(in[i].type->elem);
    rc.res[0].data = (char *)out->data + e * ob;
    rcode = kr_region_call(&rc);
  }
  kr_scratch_release(&s);
  return rcode;
}
