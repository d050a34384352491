/* Reductions and ops with region bodies (vm/opcodes.def "reductions and ops
 * with regions"): reduce, reduce_window, select_and_scatter, sort, map and
 * top_k.  Each op has a fast path for the bodies that matter in practice (a
 * single add/mul/max/min/and/or/xor reducer, a single compare comparator, a
 * single element-wise map body) that runs typed loops, and a generic path
 * that calls the region per element on scalar tensors, so every body and
 * every element type works. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "vm/dtype.h"
#include "vm/kernels.h"
#include "vm/opinfo.h"

/* Attribute values (window sizes, strides, dilations, padding) beyond this
 * are refused, which keeps all shape arithmetic far from overflow. */
#define ATTR_LIMIT ((int64_t)1 << 40)
/* Elements converted to f32 at a time on the bf16/f16 fast paths. */
#define CHUNK 1024

/* compare directions and types of the COMPARE opcode's fields. */
enum { DIR_EQ, DIR_NE, DIR_GE, DIR_GT, DIR_LE, DIR_LT };
enum { CMP_DEFAULT, CMP_FLOAT, CMP_TOTALORDER, CMP_SIGNED, CMP_UNSIGNED };

/* ------------------------------------------------------------------ */
/* Small helpers */

static void row_major_strides(int rank, const int64_t *dims, int64_t *strides) {
  int64_t s = 1;
  for (int d = rank - 1; d >= 0; d--) {
    strides[d] = s;
    s *= dims[d];
  }
}

/* Copies one element of `bytes` bytes (1, 2, 4, 8 or 16). */
static inline void copy_elem(void *dst, const void *src, int bytes) {
  switch (bytes) {
  case 1: memcpy(dst, src, 1); break;
  case 2: memcpy(dst, src, 2); break;
  case 4: memcpy(dst, src, 4); break;
  case 8: memcpy(dst, src, 8); break;
  default: memcpy(dst, src, (size_t)bytes); break;
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

/* Up to SCRATCH_SLOTS accounted allocations released together. */
#define SCRATCH_SLOTS 64
typedef struct Scratch {
  VmExec *x;
  int n;
  void *p[SCRATCH_SLOTS];
  size_t size[SCRATCH_SLOTS];
} Scratch;

/* count * elem_size bytes of scratch (at least one byte), or NULL. */
static void *scratch_get(Scratch *s, int64_t count, size_t elem_size) {
  size_t bytes;
  if (count < 0 || s->n == SCRATCH_SLOTS || __builtin_mul_overflow((size_t)count, elem_size, &bytes)) return NULL;
  if (bytes == 0) bytes = 1;
  void *p = vm_scratch_alloc(s->x, bytes);
  if (!p) return NULL;
  s->p[s->n] = p;
  s->size[s->n++] = bytes;
  return p;
}

static void scratch_release(Scratch *s) {
  while (s->n > 0) {
    s->n--;
    vm_scratch_free(s->x, s->p[s->n], s->size[s->n]);
  }
}

static int scratch_fail(Scratch *s, const char *op) {
  scratch_release(s);
  return vm_trap(s->x, "out of memory: %s scratch", op);
}

/* The function of region field f, at check time. */
static const VmFunc *check_region_func(const VmCheck *c, int f) {
  return &c->prog->funcs[c->ins->fields[f].regions[0].func];
}

static bool is_scalar_of(const VmType *t, int elem) { return vm_type_is_scalar(t) && t->elem == elem; }

/* Explicit parameter i of region field f must be tensor<elem>. */
static bool check_region_param(VmCheck *c, const char *op, int f, int i, int elem) {
  const VmFunc *fn = check_region_func(c, f);
  if (!is_scalar_of(fn->reg_types[i], elem))
    return vm_check_fail(c, "%s: region argument %d must be tensor<%s>", op, i, vm_elem_name(elem));
  return true;
}

/* Result i of region field f must be tensor<elem>. */
static bool check_region_result(VmCheck *c, const char *op, int f, int i, int elem) {
  const VmFunc *fn = check_region_func(c, f);
  if (!is_scalar_of(fn->result_types[i], elem))
    return vm_check_fail(c, "%s: region result %d must be tensor<%s>", op, i, vm_elem_name(elem));
  return true;
}

/* List field f has exactly n entries, each in [lo, hi]. */
static bool check_list(VmCheck *c, const char *op, int f, const char *name, int64_t n, int64_t lo, int64_t hi) {
  int64_t len;
  const int64_t *v = vm_field_list(c->ins, f, &len);
  if (len != n) return vm_check_fail(c, "%s: %s has %" PRId64 " entries, expected %" PRId64, op, name, len, n);
  for (int64_t i = 0; i < n; i++)
    if (v[i] < lo || v[i] > hi)
      return vm_check_fail(c, "%s: %s[%" PRId64 "] = %" PRId64 " is out of range [%" PRId64 ", %" PRId64 "]", op,
                           name, i, v[i], lo, hi);
  return true;
}

/* Result i must be a tensor of elem with the given shape. */
static bool check_result_shape(VmCheck *c, const char *op, uint32_t i, int elem, int rank, const int64_t *dims) {
  const VmType *t = vm_check_out(c, i);
  bool ok = vm_type_is_tensor(t) && t->elem == elem && t->rank == rank;
  for (int d = 0; ok && d < rank; d++) ok = t->dims[d] == dims[d];
  if (ok) return true;
  char buf[256];
  int len = 0;
  for (int d = 0; d < rank && len < 200; d++) len += snprintf(buf + len, sizeof buf - (size_t)len, "%" PRId64 "x", dims[d]);
  if (len >= 200) len = 200;
  snprintf(buf + len, sizeof buf - (size_t)len, "%s", vm_elem_name(elem));
  return vm_check_fail(c, "%s: result %u must be tensor<%s>", op, i, buf);
}

/* ------------------------------------------------------------------ */
/* Typed fold kernels for the fast paths.  A FoldOps applies one binary op
 * in four access patterns; for bf16/f16 the values are f32 and every step
 * rounds back to the narrow type, as XLA's per-op bf16/f16 arithmetic. */

typedef struct FoldOps {
  /* acc[j] = op(acc[j], x[j]) for j < n */
  void (*vec)(void *acc, const void *x, int64_t n);
  /* *acc = op(...op(*acc, x[0])..., x[n-1]) */
  void (*run)(void *acc, const void *x, int64_t n);
  /* *acc folded with x[off[k]] for k < n, in order */
  void (*gather)(void *acc, const void *x, const int64_t *off, int64_t n);
  /* acc[off[k]] = op(acc[off[k]], x[k]) for k < n with off[k] >= 0, in order */
  void (*scatter)(void *acc, const void *x, const int64_t *off, int64_t n);
} FoldOps;

static inline float round_to_bf16(float f) {
  uint32_t u, r;
  memcpy(&u, &f, 4);
  r = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
  if ((u & 0x7fffffffu) > 0x7f800000u) r = u; /* NaN: kept, quieted on the final store */
  memcpy(&f, &r, 4);
  return f;
}

static inline float round_to_f16(float f) { return vm_f16_to_f32(vm_f32_to_f16(f)); }

#define OP_ADD(a, b) ((a) + (b))
#define OP_MUL(a, b) ((a) * (b))
#define OP_MUL16(a, b) ((uint16_t)((uint32_t)(a) * (uint32_t)(b)))
#define OP_AND(a, b) ((a) & (b))
#define OP_OR(a, b) ((a) | (b))
#define OP_XOR(a, b) ((a) ^ (b))
#define OP_IMAX(a, b) ((a) > (b) ? (a) : (b))
#define OP_IMIN(a, b) ((a) < (b) ? (a) : (b))
/* XLA's NaN-propagating max/min; the first operand wins ties (as the
 * element-wise kernels). */
#define OP_FMAX(a, b) (((a) != (a) || (a) >= (b)) ? (a) : (b))
#define OP_FMIN(a, b) (((a) != (a) || (a) <= (b)) ? (a) : (b))
#define OP_ADD_BF16(a, b) round_to_bf16((a) + (b))
#define OP_MUL_BF16(a, b) round_to_bf16((a) * (b))
#define OP_ADD_F16(a, b) round_to_f16((a) + (b))
#define OP_MUL_F16(a, b) round_to_f16((a) * (b))

#define DEFINE_FOLD(NAME, T, OP)                                                                 \
  static void vec_##NAME(void *acc_, const void *x_, int64_t n) {                                \
    T *restrict acc = acc_;                                                                      \
    const T *restrict x = x_;                                                                    \
    for (int64_t j = 0; j < n; j++) acc[j] = OP(acc[j], x[j]);                                   \
  }                                                                                              \
  static void run_##NAME(void *acc_, const void *x_, int64_t n) {                                \
    const T *restrict x = x_;                                                                    \
    T a = *(T *)acc_;                                                                            \
    for (int64_t j = 0; j < n; j++) a = OP(a, x[j]);                                             \
    *(T *)acc_ = a;                                                                              \
  }                                                                                              \
  static void gather_##NAME(void *acc_, const void *x_, const int64_t *off, int64_t n) {         \
    const T *restrict x = x_;                                                                    \
    T a = *(T *)acc_;                                                                            \
    for (int64_t j = 0; j < n; j++) a = OP(a, x[off[j]]);                                        \
    *(T *)acc_ = a;                                                                              \
  }                                                                                              \
  static void scatter_##NAME(void *acc_, const void *x_, const int64_t *off, int64_t n) {        \
    T *restrict acc = acc_;                                                                      \
    const T *restrict x = x_;                                                                    \
    for (int64_t j = 0; j < n; j++)                                                              \
      if (off[j] >= 0) acc[off[j]] = OP(acc[off[j]], x[j]);                                      \
  }                                                                                              \
  static const FoldOps fold_##NAME = {vec_##NAME, run_##NAME, gather_##NAME, scatter_##NAME};

#define DEFINE_UINT_FOLDS(BITS, MUL)                 \
  DEFINE_FOLD(add_u##BITS, uint##BITS##_t, OP_ADD)   \
  DEFINE_FOLD(mul_u##BITS, uint##BITS##_t, MUL)      \
  DEFINE_FOLD(and_u##BITS, uint##BITS##_t, OP_AND)   \
  DEFINE_FOLD(or_u##BITS, uint##BITS##_t, OP_OR)     \
  DEFINE_FOLD(xor_u##BITS, uint##BITS##_t, OP_XOR)   \
  DEFINE_FOLD(max_u##BITS, uint##BITS##_t, OP_IMAX)  \
  DEFINE_FOLD(min_u##BITS, uint##BITS##_t, OP_IMIN)  \
  DEFINE_FOLD(max_s##BITS, int##BITS##_t, OP_IMAX)   \
  DEFINE_FOLD(min_s##BITS, int##BITS##_t, OP_IMIN)

DEFINE_UINT_FOLDS(8, OP_MUL)
DEFINE_UINT_FOLDS(16, OP_MUL16)
DEFINE_UINT_FOLDS(32, OP_MUL)
DEFINE_UINT_FOLDS(64, OP_MUL)
DEFINE_FOLD(add_f32, float, OP_ADD)
DEFINE_FOLD(mul_f32, float, OP_MUL)
DEFINE_FOLD(max_f32, float, OP_FMAX)
DEFINE_FOLD(min_f32, float, OP_FMIN)
DEFINE_FOLD(add_f64, double, OP_ADD)
DEFINE_FOLD(mul_f64, double, OP_MUL)
DEFINE_FOLD(max_f64, double, OP_FMAX)
DEFINE_FOLD(min_f64, double, OP_FMIN)
DEFINE_FOLD(add_bf16, float, OP_ADD_BF16)
DEFINE_FOLD(mul_bf16, float, OP_MUL_BF16)
DEFINE_FOLD(add_f16, float, OP_ADD_F16)
DEFINE_FOLD(mul_f16, float, OP_MUL_F16)

/* bf16 and f16 fast paths compute in f32. */
static bool computes_in_f32(int elem) { return elem == TPUB_BF16 || elem == TPUB_F16; }

/* Bytes of one element in the fast paths' compute representation. */
static int compute_bytes(int elem) { return computes_in_f32(elem) ? 4 : vm_elem_bytes(elem); }

#define PICK_INT(BITS, SIGNED)                                  \
  switch (opcode) {                                             \
  case VM_OP_ADD: return &fold_add_u##BITS;                     \
  case VM_OP_MUL: return &fold_mul_u##BITS;                     \
  case VM_OP_AND: return &fold_and_u##BITS;                     \
  case VM_OP_OR: return &fold_or_u##BITS;                       \
  case VM_OP_XOR: return &fold_xor_u##BITS;                     \
  case VM_OP_MAX: return SIGNED ? &fold_max_s##BITS : &fold_max_u##BITS; \
  case VM_OP_MIN: return SIGNED ? &fold_min_s##BITS : &fold_min_u##BITS; \
  default: return NULL;                                         \
  }

/* The typed kernels of binary opcode `opcode` on elem, or NULL when the
 * combination has no fast path (complex, i2/i4, minifloats...). */
static const FoldOps *fold_ops_for(int elem, int opcode) {
  switch (elem) {
  case TPUB_I1:
  case TPUB_U1:
    switch (opcode) {
    case VM_OP_AND:
    case VM_OP_MUL:
    case VM_OP_MIN: return &fold_and_u8;
    case VM_OP_OR:
    case VM_OP_ADD:
    case VM_OP_MAX: return &fold_or_u8;
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
    case VM_OP_MUL: return f32 ? &fold_mul_f32 : &fold_mul_f64;
    case VM_OP_MAX: return f32 ? &fold_max_f32 : &fold_max_f64;
    case VM_OP_MIN: return f32 ? &fold_min_f32 : &fold_min_f64;
    default: return NULL;
    }
  }
  case TPUB_BF16:
  case TPUB_F16: {
    bool bf = elem == TPUB_BF16;
    switch (opcode) {
    case VM_OP_ADD: return bf ? &fold_add_bf16 : &fold_add_f16;
    case VM_OP_MUL: return bf ? &fold_mul_bf16 : &fold_mul_f16;
    case VM_OP_MAX: return &fold_max_f32;
    case VM_OP_MIN: return &fold_min_f32;
    default: return NULL;
    }
  }
  default: return NULL;
  }
}

/* The fast-path kernels for a reducer region, or NULL. */
static const FoldOps *region_fold_ops(const VmExec *x, const VmRegion *r, int elem) {
  int opcode = vm_region_binary_op(x, r);
  return opcode < 0 ? NULL : fold_ops_for(elem, opcode);
}

/* One element (the init value) in the compute representation. */
static void to_compute(int elem, const void *src, void *dst) {
  if (computes_in_f32(elem)) {
    float f;
    vm_to_f32(elem, src, 0, 1, &f);
    memcpy(dst, &f, 4);
  } else {
    copy_elem(dst, src, vm_elem_bytes(elem));
  }
}

/* ------------------------------------------------------------------ */
/* Comparators: recognising `return compare(arg0, arg1)` and ordering keys. */

static int swap_direction(int dir) {
  switch (dir) {
  case DIR_GE: return DIR_LE;
  case DIR_GT: return DIR_LT;
  case DIR_LE: return DIR_GE;
  case DIR_LT: return DIR_GT;
  default: return dir;
  }
}

/* True when region r is `return compare(arg0, arg1)` (either order; the
 * direction is given for (arg0, arg1)) without captures. */
static bool region_simple_compare(const VmExec *x, const VmRegion *r, int *dir, int *cmp_type) {
  if (r->ncaps) return false;
  const VmFunc *fn = vm_region_func(x, r);
  if (fn->n_instrs != 2 || fn->n_results != 1) return false;
  const VmInstr *cmp = &fn->instrs[0], *ret = &fn->instrs[1];
  if (cmp->opcode != VM_OP_COMPARE || ret->opcode != VM_OP_RETURN || ret->n_in != 1 || ret->in[0] != cmp->out[0])
    return false;
  int64_t d = vm_field_int(cmp, 0);
  if (d < DIR_EQ || d > DIR_LT) return false;
  *cmp_type = (int)vm_field_int(cmp, 1);
  if (cmp->in[0] == 0 && cmp->in[1] == 1)
    *dir = (int)d;
  else if (cmp->in[0] == 1 && cmp->in[1] == 0)
    *dir = swap_direction((int)d);
  else
    return false;
  return true;
}

/* How compare(cmp_type) on elem orders values, as keys: IEEE doubles, or
 * int64s compared as signed integers. */
enum { KEYS_NONE, KEYS_F64, KEYS_I64 };

static int key_kind(int elem, int cmp_type) {
  switch (vm_elem_class(elem)) {
  case TPUB_CLASS_FLOAT:
    if (cmp_type == CMP_DEFAULT || cmp_type == CMP_FLOAT) return KEYS_F64;
    if (cmp_type == CMP_TOTALORDER) return KEYS_I64;
    return KEYS_NONE;
  case TPUB_CLASS_INT:
    if (cmp_type == CMP_DEFAULT || cmp_type == CMP_SIGNED) return KEYS_I64;
    if (cmp_type == CMP_UNSIGNED && elem == TPUB_I1) return KEYS_I64;
    return KEYS_NONE;
  case TPUB_CLASS_UINT: return cmp_type == CMP_DEFAULT || cmp_type == CMP_UNSIGNED ? KEYS_I64 : KEYS_NONE;
  default: return KEYS_NONE;
  }
}

/* The raw storage bits of element i. */
static uint64_t load_bits(int bytes, const void *data, int64_t i) {
  const char *p = (const char *)data + i * bytes;
  switch (bytes) {
  case 1: return *(const uint8_t *)p;
  case 2: {
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
  }
  case 4: {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
  }
  default: {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
  }
  }
}

/* Key whose signed order is the IEEE totalOrder of a float encoding's bits:
 * -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN. */
static int64_t total_order_key(int elem, uint64_t bits) {
  if (elem == TPUB_F8E8M0FNU) return (int64_t)bits; /* no sign bit */
  int w = elem == TPUB_TF32 ? 19 : vm_elem_bits(elem); /* tf32: 19 bits in the low bits of 32 */
  uint64_t mag = bits & ((UINT64_C(1) << (w - 1)) - 1);
  return (bits >> (w - 1)) & 1 ? -1 - (int64_t)mag : (int64_t)mag;
}

/* The int64 key of element i: the total order for floats, the value for
 * signed ints, the value shifted into signed range for unsigned ones. */
static int64_t int_key(int elem, const void *data, int64_t i) {
  switch (vm_elem_class(elem)) {
  case TPUB_CLASS_FLOAT: return total_order_key(elem, load_bits(vm_elem_bytes(elem), data, i));
  case TPUB_CLASS_UINT: return (int64_t)((uint64_t)vm_load_i64(elem, data, i) ^ (UINT64_C(1) << 63));
  default: return vm_load_i64(elem, data, i);
  }
}

/* Keys of n elements at base + t * stride (t < n) into ikeys or fkeys. */
static void load_keys(int kind, int elem, const void *data, int64_t base, int64_t stride, int64_t n, int64_t *ikeys,
                      double *fkeys) {
  if (kind == KEYS_F64) {
    if (stride == 1)
      vm_to_f64(elem, data, base, n, fkeys);
    else
      for (int64_t t = 0; t < n; t++) fkeys[t] = vm_load_f64(elem, data, base + t * stride);
    return;
  }
  if (stride == 1 && vm_elem_class(elem) == TPUB_CLASS_INT) {
    vm_to_i64(elem, data, base, n, ikeys);
    return;
  }
  for (int64_t t = 0; t < n; t++) ikeys[t] = int_key(elem, data, base + t * stride);
}

/* compare(a, b) with direction dir on keys. */
#define KEY_COMPARE(dir, a, b)                                                                          \
  ((dir) == DIR_EQ ? (a) == (b)                                                                         \
   : (dir) == DIR_NE ? (a) != (b)                                                                       \
   : (dir) == DIR_GE ? (a) >= (b)                                                                       \
   : (dir) == DIR_GT ? (a) > (b)                                                                        \
   : (dir) == DIR_LE ? (a) <= (b)                                                                       \
                     : (a) < (b))

/* ------------------------------------------------------------------ */
/* Scalar evaluator.  Region bodies built only from constants, compare,
 * select, logic ops, integer arithmetic and f32/f64 add/sub/mul (JAX's sort
 * comparators, argmax reducers...) are compiled to a small program that
 * runs directly on scalars, without a VM call per element.  A register holds
 * its element's storage bits (little-endian, up to 16 bytes). */

#define MINI_MAX_REGS 256

#define CMP3(a, b) (((a) > (b)) - ((a) < (b)))

static int dir_holds(int dir, int cmp) {
  switch (dir) {
  case DIR_EQ: return cmp == 0;
  case DIR_NE: return cmp != 0;
  case DIR_GE: return cmp >= 0;
  case DIR_GT: return cmp > 0;
  case DIR_LE: return cmp <= 0;
  default: return cmp < 0;
  }
}

/* Value of a signed (sign-extended) integer container. */
static int64_t mini_signed(int bytes, uint64_t v) {
  switch (bytes) {
  case 1: return (int8_t)v;
  case 2: return (int16_t)v;
  case 4: return (int32_t)v;
  default: return (int64_t)v;
  }
}

static double mini_float(int elem, uint64_t v) {
  if (elem == TPUB_F32) {
    float f;
    uint32_t u = (uint32_t)v;
    memcpy(&f, &u, 4);
    return f;
  }
  if (elem == TPUB_F64) {
    double d;
    memcpy(&d, &v, 8);
    return d;
  }
  return vm_float_bits_to_f64(elem, v);
}

static inline float bits_f32(uint64_t v) {
  float f;
  uint32_t u = (uint32_t)v;
  memcpy(&f, &u, 4);
  return f;
}

static inline double bits_f64(uint64_t v) {
  double d;
  memcpy(&d, &v, 8);
  return d;
}

static inline uint64_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static inline uint64_t f64_bits(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}

/* What a compiled instruction does. */
enum MiniCode {
  MC_CONST,
  MC_SELECT,
  MC_CMP_F32,    /* IEEE compare */
  MC_CMP_F64,
  MC_CMP_FLOAT,  /* IEEE compare of another float kind, through double */
  MC_CMP_TOTAL,  /* totalOrder of a float's bits */
  MC_CMP_SIGNED, /* sign-extended containers */
  MC_CMP_UNSIGNED,
  MC_AND,
  MC_OR,
  MC_XOR,
  MC_NOT, /* xor with the value mask */
  MC_ADD,
  MC_SUB,
  MC_MUL,
  MC_MAX_S,
  MC_MIN_S,
  MC_MAX_U,
  MC_MIN_U,
  MC_ADD_F32,
  MC_SUB_F32,
  MC_MUL_F32,
  MC_ADD_F64,
  MC_SUB_F64,
  MC_MUL_F64,
  MC_WORD0, /* first 64 bits (real of complex<f64>, real of a real float) */
  MC_WORD1, /* imag of complex<f64> */
  MC_LO32,  /* real of complex<f32> */
  MC_HI32,  /* imag of complex<f32> */
  MC_ZERO,  /* imag of a real float */
  MC_RETURN
};

typedef struct MiniOp {
  uint8_t code, dir;
  uint8_t holds;      /* compares: bit c+1 set when the direction holds for CMP3 = c */
  uint8_t shift;      /* integers: 64 - bits, for sign extension of results */
  bool sign;          /* integers: signed wrap */
  int elem;           /* MC_CMP_FLOAT, MC_CMP_TOTAL */
  uint32_t a, b, c, out;
  uint64_t mask;      /* integers: value mask of the container; MC_XOR for not */
  uint64_t k[2];      /* MC_CONST */
} MiniOp;

/* A compiled body: its instructions, argument sizes and returned registers. */
typedef struct MiniProg {
  uint32_t nops, nargs, nres, ncaps; /* nargs explicit arguments, then ncaps captures */
  MiniOp *ops;
  uint8_t *arg_bytes, *res_bytes;
  uint64_t (*caps)[2]; /* the captured constants */
  const uint32_t *ret; /* nres registers */
} MiniProg;

/* Storage mask of an integer element (wider than its width for signed). */
static uint64_t int_container_mask(int elem) {
  int bytes = vm_elem_bytes(elem);
  return bytes == 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * bytes)) - 1;
}

/* Mask of an unsigned (or i1) element's value bits. */
static uint64_t int_width_mask(int elem) {
  int bits = vm_elem_bits(elem);
  return bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
}

static bool int_signed(int elem) { return vm_elem_class(elem) == TPUB_CLASS_INT && elem != TPUB_I1; }

/* Compiles one instruction; false when the evaluator cannot run it. */
static bool mini_compile_op(const VmFunc *fn, const VmInstr *ins, MiniOp *op) {
  memset(op, 0, sizeof *op);
  int in_elem = ins->n_in ? fn->reg_types[ins->in[0]]->elem : -1;
  int out_elem = ins->n_out ? fn->reg_types[ins->out[0]]->elem : -1;
  op->a = ins->n_in > 0 ? ins->in[0] : 0;
  op->b = ins->n_in > 1 ? ins->in[1] : 0;
  op->c = ins->n_in > 2 ? ins->in[2] : 0;
  op->out = ins->n_out ? ins->out[0] : 0;
  bool is_int = in_elem >= 0 && vm_elem_is_int(in_elem);
  if (is_int) {
    op->sign = int_signed(in_elem);
    op->shift = (uint8_t)(64 - vm_elem_bits(in_elem));
    op->mask = op->sign ? int_container_mask(in_elem) : int_width_mask(in_elem);
  }
  switch (ins->opcode) {
  case VM_OP_CONSTANT: {
    const VmField *f = &ins->fields[0];
    int bytes = vm_elem_bytes(out_elem);
    if (f->flags & (VM_CONST_ELIDED | VM_CONST_NONE) || f->n < bytes) return false;
    op->code = MC_CONST;
    memcpy(op->k, f->data, (size_t)bytes);
    return true;
  }
  case VM_OP_COMPARE: {
    op->dir = (uint8_t)vm_field_int(ins, 0);
    for (int c = -1; c <= 1; c++) op->holds |= (uint8_t)(dir_holds(op->dir, c) << (c + 1));
    op->elem = in_elem;
    switch (vm_elem_class(in_elem)) {
    case TPUB_CLASS_FLOAT:
      if (vm_field_int(ins, 1) == CMP_TOTALORDER)
        op->code = MC_CMP_TOTAL;
      else
        op->code = in_elem == TPUB_F32 ? MC_CMP_F32 : in_elem == TPUB_F64 ? MC_CMP_F64 : MC_CMP_FLOAT;
      return true;
    case TPUB_CLASS_COMPLEX: return false;
    default: op->code = op->sign ? MC_CMP_SIGNED : MC_CMP_UNSIGNED; return true;
    }
  }
  case VM_OP_SELECT: op->code = MC_SELECT; return true;
  case VM_OP_REAL:
  case VM_OP_IMAG: {
    bool real = ins->opcode == VM_OP_REAL;
    if (in_elem == TPUB_C64)
      op->code = real ? MC_LO32 : MC_HI32;
    else if (in_elem == TPUB_C128)
      op->code = real ? MC_WORD0 : MC_WORD1;
    else
      op->code = real ? MC_WORD0 : MC_ZERO;
    return true;
  }
  case VM_OP_NOT:
    if (!is_int) return false;
    op->code = MC_NOT;
    return true;
  case VM_OP_AND:
  case VM_OP_OR:
  case VM_OP_XOR:
  case VM_OP_MAX:
  case VM_OP_MIN:
    if (!is_int) return false;
    switch (ins->opcode) {
    case VM_OP_AND: op->code = MC_AND; break;
    case VM_OP_OR: op->code = MC_OR; break;
    case VM_OP_XOR: op->code = MC_XOR; break;
    case VM_OP_MAX: op->code = op->sign ? MC_MAX_S : MC_MAX_U; break;
    default: op->code = op->sign ? MC_MIN_S : MC_MIN_U; break;
    }
    return true;
  case VM_OP_ADD:
  case VM_OP_SUB:
  case VM_OP_MUL: {
    int k = ins->opcode == VM_OP_ADD ? 0 : ins->opcode == VM_OP_SUB ? 1 : 2;
    if (is_int && in_elem != TPUB_I1)
      op->code = (uint8_t)(MC_ADD + k);
    else if (in_elem == TPUB_F32)
      op->code = (uint8_t)(MC_ADD_F32 + k);
    else if (in_elem == TPUB_F64)
      op->code = (uint8_t)(MC_ADD_F64 + k);
    else
      return false;
    return true;
  }
  default: return false;
  }
}

/* The function whose code holds instruction site, or NULL. */
static const VmFunc *enclosing_func(const VmExec *x, const VmInstr *site) {
  const VmProgram *prog = vm_exec_program(x);
  uintptr_t at = (uintptr_t)site;
  for (uint32_t f = 0; f < prog->n_funcs; f++) {
    const VmFunc *fn = &prog->funcs[f];
    uintptr_t begin = (uintptr_t)fn->instrs;
    if (at >= begin && at < begin + fn->n_instrs * sizeof(VmInstr) && (at - begin) % sizeof(VmInstr) == 0) return fn;
  }
  return NULL;
}

/* The bits of register reg at instruction site when a constant instruction
 * set it (function bodies are straight-line code: the last write before the
 * site holds). */
static bool constant_at(const VmFunc *fn, const VmInstr *site, uint32_t reg, int bytes, uint64_t v[2]) {
  for (size_t i = (size_t)(site - fn->instrs); i-- > 0;) {
    const VmInstr *k = &fn->instrs[i];
    for (uint32_t j = 0; j < k->n_out; j++) {
      if (k->out[j] != reg) continue;
      const VmField *f = &k->fields[0];
      if (k->opcode != VM_OP_CONSTANT || f->flags & (VM_CONST_ELIDED | VM_CONST_NONE) || f->n < bytes) return false;
      v[0] = v[1] = 0;
      memcpy(v, f->data, (size_t)bytes);
      return true;
    }
  }
  return false;
}

/* Compiles region r of instruction site for mini_run; false when some
 * instruction is not supported or a capture is not a known constant. */
static bool mini_compile(const VmExec *x, const VmInstr *site, const VmRegion *r, Scratch *s, MiniProg *p) {
  const VmFunc *fn = vm_region_func(x, r);
  if (fn->n_regs > MINI_MAX_REGS || fn->n_instrs == 0 || fn->n_params < r->ncaps) return false;
  for (uint32_t i = 0; i < fn->n_regs; i++)
    if (!vm_type_is_scalar(fn->reg_types[i])) return false;
  const VmInstr *ret = &fn->instrs[fn->n_instrs - 1];
  if (ret->opcode != VM_OP_RETURN || ret->n_in != fn->n_results) return false;
  p->nops = fn->n_instrs - 1;
  p->ncaps = r->ncaps;
  p->nargs = fn->n_params - r->ncaps;
  p->nres = fn->n_results;
  p->ret = ret->in;
  p->ops = scratch_get(s, p->nops, sizeof(MiniOp));
  p->arg_bytes = scratch_get(s, p->nargs, 1);
  p->res_bytes = scratch_get(s, p->nres, 1);
  p->caps = scratch_get(s, p->ncaps, sizeof *p->caps);
  if (!p->ops || !p->arg_bytes || !p->res_bytes || !p->caps) return false;
  if (p->ncaps) {
    const VmFunc *outer = enclosing_func(x, site);
    if (!outer) return false;
    for (uint32_t i = 0; i < p->ncaps; i++) {
      int bytes = vm_elem_bytes(fn->reg_types[p->nargs + i]->elem);
      if (r->caps[i] >= outer->n_regs || !vm_type_equal(outer->reg_types[r->caps[i]], fn->reg_types[p->nargs + i]) ||
          !constant_at(outer, site, r->caps[i], bytes, p->caps[i]))
        return false;
    }
  }
  for (uint32_t k = 0; k < p->nops; k++)
    if (!mini_compile_op(fn, &fn->instrs[k], &p->ops[k])) return false;
  for (uint32_t i = 0; i < p->nargs; i++) p->arg_bytes[i] = (uint8_t)vm_elem_bytes(fn->reg_types[i]->elem);
  for (uint32_t i = 0; i < p->nres; i++) p->res_bytes[i] = (uint8_t)vm_elem_bytes(fn->reg_types[p->ret[i]]->elem);
  return true;
}

/* Wraps an integer result to its element's width and storage form. */
static inline uint64_t mini_wrap(const MiniOp *op, uint64_t v) {
  if (op->sign) return (uint64_t)((int64_t)(v << op->shift) >> op->shift) & op->mask;
  return v & op->mask;
}

/* Runs a compiled body: args[i].data are the arguments, results go to
 * res[i].data; or, when key_out is not NULL, the final bits of register
 * key_reg go to *key_out instead. */
static void mini_run(const MiniProg *p, const VmTensor *args, VmTensor *res, uint32_t key_reg, uint64_t *key_out) {
  uint64_t reg[MINI_MAX_REGS][2];
  for (uint32_t i = 0; i < p->nargs; i++) {
    const void *src = args[i].data;
    reg[i][1] = 0;
    switch (p->arg_bytes[i]) {
    case 1: reg[i][0] = *(const uint8_t *)src; break;
    case 2: {
      uint16_t v;
      memcpy(&v, src, 2);
      reg[i][0] = v;
      break;
    }
    case 4: {
      uint32_t v;
      memcpy(&v, src, 4);
      reg[i][0] = v;
      break;
    }
    case 8: memcpy(&reg[i][0], src, 8); break;
    default: memcpy(reg[i], src, 16); break;
    }
  }
  for (uint32_t i = 0; i < p->ncaps; i++) {
    reg[p->nargs + i][0] = p->caps[i][0];
    reg[p->nargs + i][1] = p->caps[i][1];
  }
  for (uint32_t k = 0; k < p->nops; k++) {
    const MiniOp *op = &p->ops[k];
    uint64_t a = reg[op->a][0], b = reg[op->b][0], r0 = 0, r1 = 0;
    switch (op->code) {
    case MC_CONST:
      r0 = op->k[0];
      r1 = op->k[1];
      break;
    case MC_SELECT: {
      const uint64_t *src = a & 1 ? reg[op->b] : reg[op->c];
      r0 = src[0];
      r1 = src[1];
      break;
    }
    case MC_CMP_F32: {
      float x = bits_f32(a), y = bits_f32(b);
      r0 = x != x || y != y ? op->dir == DIR_NE : (uint64_t)(op->holds >> (CMP3(x, y) + 1) & 1);
      break;
    }
    case MC_CMP_F64: {
      double x = bits_f64(a), y = bits_f64(b);
      r0 = x != x || y != y ? op->dir == DIR_NE : (uint64_t)(op->holds >> (CMP3(x, y) + 1) & 1);
      break;
    }
    case MC_CMP_FLOAT: {
      double x = mini_float(op->elem, a), y = mini_float(op->elem, b);
      r0 = x != x || y != y ? op->dir == DIR_NE : (uint64_t)(op->holds >> (CMP3(x, y) + 1) & 1);
      break;
    }
    case MC_CMP_TOTAL: {
      int64_t x = total_order_key(op->elem, a), y = total_order_key(op->elem, b);
      r0 = (uint64_t)(op->holds >> (CMP3(x, y) + 1) & 1);
      break;
    }
    case MC_CMP_SIGNED: {
      int64_t x = (int64_t)(a << op->shift) >> op->shift, y = (int64_t)(b << op->shift) >> op->shift;
      r0 = (uint64_t)(op->holds >> (CMP3(x, y) + 1) & 1);
      break;
    }
    case MC_CMP_UNSIGNED: r0 = (uint64_t)(op->holds >> (CMP3(a, b) + 1) & 1); break;
    case MC_AND: r0 = a & b; break;
    case MC_OR: r0 = a | b; break;
    case MC_XOR: r0 = a ^ b; break;
    case MC_NOT: r0 = a ^ op->mask; break;
    case MC_ADD: r0 = mini_wrap(op, a + b); break;
    case MC_SUB: r0 = mini_wrap(op, a - b); break;
    case MC_MUL: r0 = mini_wrap(op, a * b); break;
    case MC_MAX_S:
    case MC_MIN_S: {
      bool a_greater = (int64_t)(a << op->shift) > (int64_t)(b << op->shift);
      r0 = (op->code == MC_MAX_S) == a_greater ? a : b;
      break;
    }
    case MC_MAX_U: r0 = a > b ? a : b; break;
    case MC_MIN_U: r0 = a < b ? a : b; break;
    case MC_ADD_F32: r0 = f32_bits(bits_f32(a) + bits_f32(b)); break;
    case MC_SUB_F32: r0 = f32_bits(bits_f32(a) - bits_f32(b)); break;
    case MC_MUL_F32: r0 = f32_bits(bits_f32(a) * bits_f32(b)); break;
    case MC_ADD_F64: r0 = f64_bits(bits_f64(a) + bits_f64(b)); break;
    case MC_SUB_F64: r0 = f64_bits(bits_f64(a) - bits_f64(b)); break;
    case MC_MUL_F64: r0 = f64_bits(bits_f64(a) * bits_f64(b)); break;
    case MC_WORD0: r0 = a; break;
    case MC_WORD1: r0 = reg[op->a][1]; break;
    case MC_LO32: r0 = a & 0xffffffffu; break;
    case MC_HI32: r0 = a >> 32; break;
    default: break; /* MC_ZERO */
    }
    reg[op->out][0] = r0;
    reg[op->out][1] = r1;
  }
  if (key_out) {
    *key_out = reg[key_reg][0];
    return;
  }
  for (uint32_t i = 0; i < p->nres; i++) memcpy(res[i].data, reg[p->ret[i]], p->res_bytes[i]);
}

/* Comparators of the form `return compare(g(arg0), g(arg1))`, with g one
 * computation applied to each argument (JAX canonicalises -0 and NaN this
 * way before a TOTALORDER compare), sort by the keys g(x): computed once per
 * element, they give exactly the comparator's answers. */
typedef struct KeyFunction {
  uint32_t reg;     /* register holding g(arg0) */
  int dir;          /* compare direction for (g(a), g(b)) */
  int cmp_type;
  int elem;         /* element type of g's result */
} KeyFunction;

#define ISO_BUDGET 1024

/* The instruction defining each register (-1 for parameters and captures)
 * and which of arg0 (bit 0), arg1 (bit 1) and the other arguments (bit 2)
 * it depends on; false when a register is defined twice. */
static bool def_use_masks(const VmFunc *fn, const MiniProg *p, int32_t *def, uint8_t *deps) {
  for (uint32_t i = 0; i < fn->n_regs; i++) {
    def[i] = -2;
    deps[i] = 0;
  }
  for (uint32_t i = 0; i < fn->n_params; i++) {
    def[i] = -1;
    deps[i] = i == 0 ? 1 : i == 1 ? 2 : i < p->nargs ? 4 : 0;
  }
  for (uint32_t k = 0; k < fn->n_instrs; k++) {
    const VmInstr *ins = &fn->instrs[k];
    uint8_t m = 0;
    for (uint32_t j = 0; j < ins->n_in; j++) {
      if (def[ins->in[j]] == -2) return false;
      m |= deps[ins->in[j]];
    }
    for (uint32_t j = 0; j < ins->n_out; j++) {
      if (def[ins->out[j]] != -2) return false;
      def[ins->out[j]] = (int32_t)k;
      deps[ins->out[j]] = m;
    }
  }
  return true;
}

/* The bits of a register that holds a constant (captured or computed by a
 * constant instruction). */
static const uint64_t *register_constant(const VmFunc *fn, const MiniProg *p, const int32_t *def, uint32_t reg) {
  if (reg >= p->nargs && reg < p->nargs + p->ncaps) return p->caps[reg - p->nargs];
  if (def[reg] >= 0 && fn->instrs[def[reg]].opcode == VM_OP_CONSTANT) return p->ops[def[reg]].k;
  return NULL;
}

/* Register q computes on arg1 what register p computes on arg0. */
static bool same_computation(const VmFunc *fn, const MiniProg *mp, const int32_t *def, uint32_t p, uint32_t q,
                             int *budget) {
  if (--*budget < 0) return false;
  if (p == q) return true; /* shared, argument-free value (deps checked by the caller) */
  if (fn->reg_types[p]->elem != fn->reg_types[q]->elem) return false;
  const uint64_t *kp = register_constant(fn, mp, def, p), *kq = register_constant(fn, mp, def, q);
  if (kp || kq) return kp && kq && kp[0] == kq[0] && kp[1] == kq[1];
  if (def[p] < 0 || def[q] < 0) return p == 0 && q == 1;
  const VmInstr *a = &fn->instrs[def[p]], *b = &fn->instrs[def[q]];
  if (a->opcode != b->opcode || a->n_in != b->n_in) return false;
  if (a->opcode == VM_OP_COMPARE &&
      (vm_field_int(a, 0) != vm_field_int(b, 0) || vm_field_int(a, 1) != vm_field_int(b, 1)))
    return false;
  for (uint32_t j = 0; j < a->n_in; j++)
    if (!same_computation(fn, mp, def, a->in[j], b->in[j], budget)) return false;
  return true;
}

/* Recognises a key-function comparator in a body compiled by mini_compile. */
static bool comparator_key_function(const VmFunc *fn, const MiniProg *mp, KeyFunction *kf) {
  if (mp->nargs < 2 || fn->n_instrs < 2) return false;
  int32_t def[MINI_MAX_REGS];
  uint8_t deps[MINI_MAX_REGS];
  if (!def_use_masks(fn, mp, def, deps)) return false;
  const VmInstr *ret = &fn->instrs[fn->n_instrs - 1];
  if (ret->n_in != 1 || def[ret->in[0]] < 0) return false;
  const VmInstr *cmp = &fn->instrs[def[ret->in[0]]];
  if (cmp->opcode != VM_OP_COMPARE) return false;
  uint32_t p = cmp->in[0], q = cmp->in[1];
  int dir = (int)vm_field_int(cmp, 0);
  if (deps[p] == 2 && deps[q] == 1) {
    uint32_t t = p;
    p = q;
    q = t;
    dir = swap_direction(dir);
  }
  int budget = ISO_BUDGET;
  if (deps[p] != 1 || deps[q] != 2 || !same_computation(fn, mp, def, p, q, &budget)) return false;
  kf->reg = p;
  kf->dir = dir;
  kf->cmp_type = (int)vm_field_int(cmp, 1);
  kf->elem = fn->reg_types[p]->elem;
  return true;
}

/* The sort key of storage bits of elem, as int_key / IEEE double. */
static int64_t bits_key_i64(int elem, uint64_t bits) {
  switch (vm_elem_class(elem)) {
  case TPUB_CLASS_FLOAT: return total_order_key(elem, bits);
  case TPUB_CLASS_UINT: return (int64_t)(bits ^ (UINT64_C(1) << 63));
  default: return elem == TPUB_I1 ? (int64_t)bits : mini_signed(vm_elem_bytes(elem), bits);
  }
}

/* ------------------------------------------------------------------ */
/* Generic region calls on scalars. */

/* Scalar arguments and results of one region, reused for every call. */
typedef struct RegionCall {
  VmExec *x;
  const VmRegion *r;
  const VmFunc *fn;
  int nargs, nres;
  VmTensor *args, *res;
  char *res_store; /* 16 bytes per result */
  bool mini;       /* run by mini_run instead of the VM */
  MiniProg prog;
} RegionCall;

static bool region_call_init(RegionCall *rc, Scratch *s, VmExec *x, const VmInstr *site, const VmRegion *r) {
  rc->x = x;
  rc->r = r;
  rc->fn = vm_region_func(x, r);
  rc->nargs = (int)(rc->fn->n_params - r->ncaps);
  rc->nres = (int)rc->fn->n_results;
  rc->mini = mini_compile(x, site, r, s, &rc->prog);
  rc->args = scratch_get(s, rc->nargs, sizeof(VmTensor));
  rc->res = scratch_get(s, rc->nres, sizeof(VmTensor));
  rc->res_store = scratch_get(s, rc->nres, 16);
  if (!rc->args || !rc->res || !rc->res_store) return false;
  for (int i = 0; i < rc->nargs; i++) {
    rc->args[i].type = rc->fn->reg_types[i];
    rc->args[i].data = NULL;
  }
  for (int i = 0; i < rc->nres; i++) {
    rc->res[i].type = rc->fn->result_types[i];
    rc->res[i].data = rc->res_store + 16 * i;
  }
  return true;
}

static inline int region_call(RegionCall *rc) {
  if (rc->mini) {
    mini_run(&rc->prog, rc->args, rc->res, 0, NULL);
    return VM_OK;
  }
  return vm_call_region(rc->x, rc->r, rc->args, rc->nargs, rc->res);
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
  uint32_t n = ins->n_out;
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
  if (!vm_check_region(c, 1, (int)(2 * n), NULL, (int)n, NULL)) return false;
  for (uint32_t i = 0; i < n; i++) {
    const VmType *in = vm_check_in(c, i), *init = vm_check_in(c, n + i);
    if (!vm_type_is_tensor(in) || !vm_type_same_shape(in, in0))
      return vm_check_fail(c, "%s: input %u must have the shape of input 0", op, i);
    if (!is_scalar_of(init, in->elem))
      return vm_check_fail(c, "%s: init value %u must be tensor<%s>", op, i, vm_elem_name(in->elem));
    if (!check_result_shape(c, op, i, in->elem, out_rank, out_dims)) return false;
    if (!check_region_param(c, op, 1, (int)i, in->elem) || !check_region_param(c, op, 1, (int)(n + i), in->elem) ||
        !check_region_result(c, op, 1, (int)i, in->elem))
      return false;
  }
  return true;
}

/* N = 1 with a recognised reducer: typed loops over the merged dims. */
static int reduce_fast(VmExec *x, const FoldOps *ops, const Merged *m, const VmTensor *in, const VmTensor *init,
                       VmTensor *out) {
  int elem = in->type->elem, esz = vm_elem_bytes(elem), csz = compute_bytes(elem);
  bool wide = computes_in_f32(elem);
  int64_t out_count = out->type->count, in_count = in->type->count;
  Scratch s = {.x = x};
  char *acc = out->data;
  float *buf = NULL;
  if (wide) {
    acc = scratch_get(&s, out_count, 4);
    buf = scratch_get(&s, CHUNK, 4);
    if (!acc || !buf) return scratch_fail(&s, "reduce");
  }
  char init_c[16];
  to_compute(elem, init->data, init_c);
  fill_elems(acc, init_c, out_count, csz);
  if (in_count > 0) {
    int64_t inner = m->size[m->n - 1], rows = in_count / inner;
    bool inner_reduced = m->reduced[m->n - 1];
    int64_t idx[TPUB_MAX_RANK] = {0}, out_off = 0;
    const char *src = in->data;
    for (int64_t r = 0; r < rows; r++) {
      int64_t base = r * inner;
      if (!wide) {
        const char *row = src + base * esz;
        if (inner_reduced)
          ops->run(acc + out_off * csz, row, inner);
        else
          ops->vec(acc + out_off * csz, row, inner);
      } else {
        for (int64_t c0 = 0; c0 < inner; c0 += CHUNK) {
          int64_t len = inner - c0 < CHUNK ? inner - c0 : CHUNK;
          vm_to_f32(elem, src, base + c0, len, buf);
          if (inner_reduced)
            ops->run(acc + out_off * 4, buf, len);
          else
            ops->vec(acc + (out_off + c0) * 4, buf, len);
        }
      }
      for (int d = m->n - 2; d >= 0; d--) {
        out_off += m->out_stride[d];
        if (++idx[d] < m->size[d]) break;
        out_off -= m->out_stride[d] * m->size[d];
        idx[d] = 0;
      }
    }
  }
  if (wide) vm_from_f32(elem, out->data, 0, out_count, (const float *)acc);
  scratch_release(&s);
  return VM_OK;
}

/* Any N and body: the region per input element, in row-major order. */
static int reduce_generic(VmExec *x, const VmInstr *ins, const Merged *m, const VmTensor *in, VmTensor *out) {
  uint32_t n = ins->n_out;
  Scratch s = {.x = x};
  RegionCall rc;
  int *bytes = scratch_get(&s, n, sizeof(int));
  if (!bytes || !region_call_init(&rc, &s, x, ins, &ins->fields[1].regions[0])) return scratch_fail(&s, "reduce");
  int64_t out_count = out[0].type->count, in_count = in[0].type->count;
  for (uint32_t i = 0; i < n; i++) {
    bytes[i] = vm_elem_bytes(out[i].type->elem);
    fill_elems(out[i].data, in[n + i].data, out_count, bytes[i]);
  }
  int64_t idx[TPUB_MAX_RANK] = {0}, out_off = 0;
  for (int64_t e = 0; e < in_count; e++) {
    for (uint32_t i = 0; i < n; i++) {
      rc.args[i].data = (char *)out[i].data + out_off * bytes[i];
      rc.args[n + i].data = (char *)in[i].data + e * bytes[i];
    }
    if (rc.mini) {
      /* The evaluator reads every argument before writing a result. */
      for (uint32_t i = 0; i < n; i++) rc.res[i].data = rc.args[i].data;
      mini_run(&rc.prog, rc.args, rc.res, 0, NULL);
    } else {
      int rcode = region_call(&rc);
      if (rcode != VM_OK) {
        scratch_release(&s);
        return rcode;
      }
      for (uint32_t i = 0; i < n; i++) copy_elem(rc.args[i].data, rc.res[i].data, bytes[i]);
    }
    for (int d = m->n - 1; d >= 0; d--) {
      out_off += m->out_stride[d];
      if (++idx[d] < m->size[d]) break;
      out_off -= m->out_stride[d] * m->size[d];
      idx[d] = 0;
    }
  }
  scratch_release(&s);
  return VM_OK;
}

int exec_reduce(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  const VmType *t = in[0].type;
  int64_t nd;
  const int64_t *dims = vm_field_list(ins, 0, &nd);
  bool reduced[TPUB_MAX_RANK] = {false};
  for (int64_t k = 0; k < nd; k++) reduced[dims[k]] = true;
  Merged m;
  merge_reduce_dims(t, reduced, &m);
  if (ins->n_out == 1) {
    const FoldOps *ops = region_fold_ops(x, &ins->fields[1].regions[0], t->elem);
    if (ops) return reduce_fast(x, ops, &m, &in[0], &in[1], &out[0]);
  }
  return reduce_generic(x, ins, &m, in, out);
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
    int64_t *start = scratch_get(s, wd[d].out + 1 + total, sizeof(int64_t)), *taps = start + wd[d].out + 1;
    if (!start) return false;
    start[0] = 0;
    for (int64_t o = 0; o < wd[d].out; o++) start[o + 1] = start[o] + dim_taps(&wd[d], o, taps + start[o]);
    p->start[d] = start;
    p->taps[d] = taps;
    p->max_taps *= most; /* <= the input's element count */
  }
  return true;
}

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
  uint32_t n = ins->n_out;
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
  if (!vm_check_region(c, RW_BODY, (int)(2 * n), NULL, (int)n, NULL)) return false;
  for (uint32_t i = 0; i < n; i++) {
    const VmType *in = vm_check_in(c, i), *init = vm_check_in(c, n + i);
    if (!vm_type_is_tensor(in) || !vm_type_same_shape(in, in0))
      return vm_check_fail(c, "%s: input %u must have the shape of input 0", op, i);
    if (!is_scalar_of(init, in->elem))
      return vm_check_fail(c, "%s: init value %u must be tensor<%s>", op, i, vm_elem_name(in->elem));
    if (!check_result_shape(c, op, i, in->elem, rank, out_dims)) return false;
    if (!check_region_param(c, op, RW_BODY, (int)i, in->elem) ||
        !check_region_param(c, op, RW_BODY, (int)(n + i), in->elem) ||
        !check_region_result(c, op, RW_BODY, (int)i, in->elem))
      return false;
  }
  return true;
}

static int reduce_window_fast(const FoldOps *ops, const WinPlan *plan, Scratch *s, const VmTensor *in,
                              const VmTensor *init, VmTensor *out) {
  int elem = in->type->elem, csz = compute_bytes(elem);
  const VmType *ot = out->type;
  int64_t out_count = ot->count;
  const void *src = in->data;
  char *acc = out->data;
  int64_t *offs = scratch_get(s, plan->max_taps, sizeof(int64_t));
  if (!offs) return scratch_fail(s, "reduce_window");
  if (computes_in_f32(elem)) {
    float *wide = scratch_get(s, in->type->count, 4);
    acc = scratch_get(s, out_count, 4);
    if (!wide || !acc) return scratch_fail(s, "reduce_window");
    vm_to_f32(elem, in->data, 0, in->type->count, wide);
    src = wide;
  }
  char init_c[16];
  to_compute(elem, init->data, init_c);
  int64_t o[TPUB_MAX_RANK] = {0};
  for (int64_t e = 0; e < out_count; e++) {
    char *a = acc + e * csz;
    copy_elem(a, init_c, csz);
    ops->gather(a, src, offs, win_collect(plan, o, offs));
    next_index(ot->rank, ot->dims, o);
  }
  if (computes_in_f32(elem)) vm_from_f32(elem, out->data, 0, out_count, (const float *)acc);
  scratch_release(s);
  return VM_OK;
}

static int reduce_window_generic(VmExec *x, const VmInstr *ins, const WinPlan *plan, Scratch *s, const VmTensor *in,
                                 VmTensor *out) {
  uint32_t n = ins->n_out;
  const VmType *ot = out[0].type;
  RegionCall rc;
  int64_t *offs = scratch_get(s, plan->max_taps, sizeof(int64_t));
  if (!offs || !region_call_init(&rc, s, x, ins, &ins->fields[RW_BODY].regions[0])) return scratch_fail(s, "reduce_window");
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
      int rcode = region_call(&rc);
      if (rcode != VM_OK) {
        scratch_release(s);
        return rcode;
      }
      for (uint32_t i = 0; i < n; i++) {
        int b = vm_elem_bytes(out[i].type->elem);
        copy_elem((char *)out[i].data + e * b, rc.res[i].data, b);
      }
    }
    next_index(ot->rank, ot->dims, o);
  }
  scratch_release(s);
  return VM_OK;
}

int exec_reduce_window(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  uint32_t n = ins->n_out;
  const VmType *it = in[0].type, *ot = out[0].type;
  if (ot->count == 0) return VM_OK;
  if (it->count == 0) {
    for (uint32_t i = 0; i < n; i++) fill_elems(out[i].data, in[n + i].data, ot->count, vm_elem_bytes(it->elem));
    return VM_OK;
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
  Scratch s = {.x = x};
  WinPlan plan;
  if (!win_plan_build(&s, it->rank, wd, &plan)) return scratch_fail(&s, "reduce_window");
  if (n == 1) {
    const FoldOps *ops = region_fold_ops(x, &ins->fields[RW_BODY].regions[0], it->elem);
    if (ops) return reduce_window_fast(ops, &plan, &s, &in[0], &in[1], &out[0]);
  }
  return reduce_window_generic(x, ins, &plan, &s, in, out);
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
  if (!is_scalar_of(init, elem))
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
  if (!check_result_shape(c, op, 0, elem, rank, operand->dims)) return false;
  if (!vm_check_region(c, SS_SELECT, 2, NULL, 1, NULL) || !check_region_param(c, op, SS_SELECT, 0, elem) ||
      !check_region_param(c, op, SS_SELECT, 1, elem) || !check_region_result(c, op, SS_SELECT, 0, TPUB_I1))
    return false;
  if (!vm_check_region(c, SS_SCATTER, 2, NULL, 1, NULL) || !check_region_param(c, op, SS_SCATTER, 0, elem) ||
      !check_region_param(c, op, SS_SCATTER, 1, elem) || !check_region_result(c, op, SS_SCATTER, 0, elem))
    return false;
  return true;
}

/* For each source element, the operand offset its window selects (-1 when
 * the window holds only padding): the first element of the window, replaced
 * by each later one for which select(selected, candidate) is false. */
static int select_in_windows(VmExec *x, const VmInstr *ins, const WinPlan *plan, Scratch *s, const VmTensor *operand,
                             const VmType *source, int64_t *sel) {
  int64_t *offs = scratch_get(s, plan->max_taps, sizeof(int64_t));
  if (!offs) return scratch_fail(s, "select_and_scatter");
  const VmRegion *r = &ins->fields[SS_SELECT].regions[0];
  int elem = operand->type->elem, dir = 0, cmp_type = 0;
  int kind = region_simple_compare(x, r, &dir, &cmp_type) ? key_kind(elem, cmp_type) : KEYS_NONE;
  int64_t *ikeys = NULL;
  double *fkeys = NULL;
  RegionCall rc;
  bool ok;
  if (kind == KEYS_I64) {
    ok = (ikeys = scratch_get(s, operand->type->count, sizeof(int64_t))) != NULL;
  } else if (kind == KEYS_F64) {
    ok = (fkeys = scratch_get(s, operand->type->count, sizeof(double))) != NULL;
  } else {
    ok = region_call_init(&rc, s, x, ins, r);
  }
  if (!ok) return scratch_fail(s, "select_and_scatter");
  if (kind != KEYS_NONE) load_keys(kind, elem, operand->data, 0, 1, operand->type->count, ikeys, fkeys);
  int b = vm_elem_bytes(elem);
  int64_t o[TPUB_MAX_RANK] = {0};
  for (int64_t e = 0; e < source->count; e++) {
    int64_t taps = win_collect(plan, o, offs);
    int64_t best = taps > 0 ? offs[0] : -1;
    for (int64_t t = 1; t < taps; t++) {
      int64_t cand = offs[t];
      bool keep;
      if (kind == KEYS_I64) {
        keep = KEY_COMPARE(dir, ikeys[best], ikeys[cand]);
      } else if (kind == KEYS_F64) {
        keep = KEY_COMPARE(dir, fkeys[best], fkeys[cand]);
      } else {
        rc.args[0].data = (char *)operand->data + best * b;
        rc.args[1].data = (char *)operand->data + cand * b;
        int rcode = region_call(&rc);
        if (rcode != VM_OK) {
          scratch_release(s);
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

int exec_select_and_scatter(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  const VmType *ot = in[0].type, *st = in[1].type;
  int elem = ot->elem, b = vm_elem_bytes(elem);
  if (ot->count == 0) return VM_OK;
  fill_elems(out->data, in[2].data, ot->count, b);
  if (st->count == 0) return VM_OK;
  int64_t k;
  const int64_t *win = vm_field_list(ins, SS_WINDOW, &k), *str = vm_field_list(ins, SS_STRIDES, &k),
                *pad = vm_field_list(ins, SS_PADDING, &k);
  int64_t strides[TPUB_MAX_RANK];
  row_major_strides(ot->rank, ot->dims, strides);
  WinDim wd[TPUB_MAX_RANK];
  for (int d = 0; d < ot->rank; d++) wd[d] = (WinDim){ot->dims[d], win[d], str[d], 1, 1, pad[2 * d], st->dims[d], strides[d]};
  Scratch s = {.x = x};
  WinPlan plan;
  int64_t *sel = scratch_get(&s, st->count, sizeof(int64_t));
  if (!sel || !win_plan_build(&s, ot->rank, wd, &plan)) return scratch_fail(&s, "select_and_scatter");
  int rcode = select_in_windows(x, ins, &plan, &s, &in[0], st, sel);
  if (rcode != VM_OK) return rcode; /* scratch released */
  const VmRegion *scatter = &ins->fields[SS_SCATTER].regions[0];
  const FoldOps *ops = region_fold_ops(x, scatter, elem);
  if (ops && !computes_in_f32(elem)) {
    ops->scatter(out->data, in[1].data, sel, st->count);
  } else if (ops) {
    float *acc = scratch_get(&s, ot->count, 4), *src = scratch_get(&s, st->count, 4);
    if (!acc || !src) return scratch_fail(&s, "select_and_scatter");
    vm_to_f32(elem, out->data, 0, ot->count, acc);
    vm_to_f32(elem, in[1].data, 0, st->count, src);
    ops->scatter(acc, src, sel, st->count);
    vm_from_f32(elem, out->data, 0, ot->count, acc);
  } else {
    RegionCall rc;
    if (!region_call_init(&rc, &s, x, ins, scatter)) return scratch_fail(&s, "select_and_scatter");
    for (int64_t e = 0; e < st->count; e++) {
      if (sel[e] < 0) continue;
      char *dst = (char *)out->data + sel[e] * b;
      rc.args[0].data = dst;
      rc.args[1].data = (char *)in[1].data + e * b;
      rcode = region_call(&rc);
      if (rcode != VM_OK) break;
      copy_elem(dst, rc.res[0].data, b);
    }
  }
  scratch_release(&s);
  return rcode;
}

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
#define DEFINE_MERGE_SORT(NAME, T, LESS)                                          \
  static void NAME(T *v, T *tmp, int64_t n) {                                     \
    for (int64_t lo = 0; lo < n; lo += 16) {                                      \
      int64_t hi = lo + 16 < n ? lo + 16 : n;                                     \
      for (int64_t i = lo + 1; i < hi; i++) {                                     \
        T t = v[i];                                                               \
        int64_t j = i;                                                            \
        for (; j > lo && LESS(t, v[j - 1]); j--) v[j] = v[j - 1];                 \
        v[j] = t;                                                                 \
      }                                                                           \
    }                                                                             \
    T *src = v, *dst = tmp;                                                       \
    for (int64_t w = 16; w < n; w *= 2) {                                         \
      for (int64_t lo = 0; lo < n; lo += 2 * w) {                                 \
        int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n; \
        int64_t i = lo, j = mid, k = lo;                                          \
        while (i < mid && j < hi) dst[k++] = LESS(src[j], src[i]) ? src[j++] : src[i++]; \
        while (i < mid) dst[k++] = src[i++];                                      \
        while (j < hi) dst[k++] = src[j++];                                       \
      }                                                                           \
      T *t = src;                                                                 \
      src = dst;                                                                  \
      dst = t;                                                                    \
    }                                                                             \
    if (src != v) memcpy(v, src, (size_t)n * sizeof(T));                          \
  }

#define LESS_ASC(a, b) ((a).key < (b).key)
#define LESS_DESC(a, b) ((a).key > (b).key)
DEFINE_MERGE_SORT(sort_keyi_asc, KeyI, LESS_ASC)
DEFINE_MERGE_SORT(sort_keyi_desc, KeyI, LESS_DESC)
DEFINE_MERGE_SORT(sort_keyf_asc, KeyF, LESS_ASC)
DEFINE_MERGE_SORT(sort_keyf_desc, KeyF, LESS_DESC)

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
      !check_region_result(c, op, SORT_CMP, 0, TPUB_I1))
    return false;
  for (uint32_t i = 0; i < ins->n_in; i++) {
    const VmType *t = vm_check_in(c, i);
    if (!vm_type_is_tensor(t) || !vm_type_same_shape(t, in0))
      return vm_check_fail(c, "%s: operand %u must have the shape of operand 0", op, i);
    if (!vm_type_equal(vm_check_out(c, i), t)) return vm_check_fail(c, "%s: result %u must have operand %u's type", op, i, i);
    if (!check_region_param(c, op, SORT_CMP, (int)(2 * i), t->elem) ||
        !check_region_param(c, op, SORT_CMP, (int)(2 * i + 1), t->elem))
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

static int sort_less_region(void *ctx_, int64_t a, int64_t b) {
  SortCtx *ctx = ctx_;
  for (uint32_t i = 0; i < ctx->n; i++) {
    int eb = vm_elem_bytes(ctx->in[i].type->elem);
    char *data = ctx->in[i].data;
    ctx->rc.args[2 * i].data = data + (ctx->base + a * ctx->stride) * eb;
    ctx->rc.args[2 * i + 1].data = data + (ctx->base + b * ctx->stride) * eb;
  }
  int rcode = region_call(&ctx->rc);
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
    for (int64_t t = 0; t < len; t++) copy_elem(dst + (base + t * stride) * eb, src + (base + perm[t] * stride) * eb, eb);
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
static void sort_row_keys(SortCtx *ctx, int kind, const KeyFunction *kfn, int64_t len, int64_t *ikeys,
                          double *fkeys) {
  if (!kfn) {
    load_keys(kind, ctx->in[0].type->elem, ctx->in[0].data, ctx->base, ctx->stride, len, ikeys, fkeys);
    return;
  }
  for (int64_t t = 0; t < len; t++) {
    uint64_t bits;
    point_args_at(ctx, t);
    mini_run(&ctx->rc.prog, ctx->rc.args, NULL, kfn->reg, &bits);
    if (kind == KEYS_F64)
      fkeys[t] = mini_float(kfn->elem, bits);
    else
      ikeys[t] = bits_key_i64(kfn->elem, bits);
  }
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
  if (!region_call_init(&ctx.rc, &s, x, ins, r)) return scratch_fail(&s, "sort");
  /* Keyed sorting when the comparator is a strict order on per-element keys. */
  int dir = 0, cmp_type = 0, kind = KEYS_NONE;
  KeyFunction kf_store, *kfn = NULL;
  if (region_simple_compare(x, r, &dir, &cmp_type)) {
    kind = key_kind(t->elem, cmp_type);
  } else if (ctx.rc.mini && comparator_key_function(ctx.rc.fn, &ctx.rc.prog, &kf_store)) {
    kfn = &kf_store;
    dir = kfn->dir;
    kind = key_kind(kfn->elem, kfn->cmp_type);
  }
  if (dir != DIR_LT && dir != DIR_GT) kind = KEYS_NONE;
  int64_t *perm = scratch_get(&s, len, sizeof(int64_t)), *tmp = scratch_get(&s, len, sizeof(int64_t));
  KeyI *ki = NULL, *ki_tmp = NULL;
  KeyF *kf = NULL, *kf_tmp = NULL;
  int64_t *ikeys = NULL;
  double *fkeys = NULL;
  bool ok = perm && tmp;
  if (ok && kind == KEYS_I64) {
    ki = scratch_get(&s, len, sizeof(KeyI));
    ki_tmp = scratch_get(&s, len, sizeof(KeyI));
    ikeys = scratch_get(&s, len, sizeof(int64_t));
    ok = ki && ki_tmp && ikeys;
  } else if (ok && kind == KEYS_F64) {
    kf = scratch_get(&s, len, sizeof(KeyF));
    kf_tmp = scratch_get(&s, len, sizeof(KeyF));
    fkeys = scratch_get(&s, len, sizeof(double));
    ok = kf && kf_tmp && fkeys;
  }
  if (!ok) return scratch_fail(&s, "sort");
  for (int64_t row = 0; row < rows; row++) {
    ctx.base = row / stride * len * stride + row % stride;
    if (kind == KEYS_I64) {
      sort_row_keys(&ctx, kind, kfn, len, ikeys, NULL);
      for (int64_t i = 0; i < len; i++) ki[i] = (KeyI){ikeys[i], i};
      if (dir == DIR_LT)
        sort_keyi_asc(ki, ki_tmp, len);
      else
        sort_keyi_desc(ki, ki_tmp, len);
      for (int64_t i = 0; i < len; i++) perm[i] = ki[i].idx;
    } else if (kind == KEYS_F64) {
      sort_row_keys(&ctx, kind, kfn, len, NULL, fkeys);
      for (int64_t i = 0; i < len; i++) kf[i] = (KeyF){fkeys[i], i};
      if (dir == DIR_LT)
        sort_keyf_asc(kf, kf_tmp, len);
      else
        sort_keyf_desc(kf, kf_tmp, len);
      for (int64_t i = 0; i < len; i++) perm[i] = kf[i].idx;
    } else {
      for (int64_t i = 0; i < len; i++) perm[i] = i;
      int rcode = sort_perm(perm, tmp, len, sort_less_region, &ctx);
      if (rcode != VM_OK) {
        scratch_release(&s);
        return rcode;
      }
    }
    apply_perm(in, out, n, perm, len, ctx.base, stride);
  }
  scratch_release(&s);
  return VM_OK;
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
  if (!vm_check_region(c, 1, (int)ins->n_in, NULL, 1, NULL) || !check_region_result(c, op, 1, 0, ot->elem))
    return false;
  for (uint32_t i = 0; i < ins->n_in; i++) {
    const VmType *t = vm_check_in(c, i);
    if (!vm_type_is_tensor(t) || !vm_type_same_shape(t, ot))
      return vm_check_fail(c, "%s: operand %u must have the result's shape", op, i);
    if (!check_region_param(c, op, 1, (int)i, t->elem)) return false;
  }
  return true;
}

/* Every opcode's kernel, for running a one-instruction map body on whole
 * tensors. */
static const VmExecFn exec_by_opcode[VM_OP_COUNT] = {
#define OPC(id, name, nin, nout, fields, check, exec, flags, doc) [VM_OP_##id] = exec,
#include "vm/opcodes.def"
#undef OPC
};

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

int exec_map(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  uint32_t n = ins->n_in;
  int64_t count = out->type->count;
  if (count == 0) return VM_OK;
  const VmRegion *r = &ins->fields[1].regions[0];
  const VmInstr *body = region_single_elementwise(x, r, n);
  if (body) {
    VmInstr whole = *body;
    whole.flags = 0;
    return exec_by_opcode[body->opcode](x, &whole, in, out);
  }
  Scratch s = {.x = x};
  RegionCall rc;
  if (!region_call_init(&rc, &s, x, ins, r)) return scratch_fail(&s, "map");
  int ob = vm_elem_bytes(out->type->elem);
  int rcode = VM_OK;
  for (int64_t e = 0; e < count && rcode == VM_OK; e++) {
    for (uint32_t i = 0; i < n; i++)
      rc.args[i].data = (char *)in[i].data + e * vm_elem_bytes(in[i].type->elem);
    rc.res[0].data = (char *)out->data + e * ob;
    rcode = region_call(&rc);
  }
  scratch_release(&s);
  return rcode;
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
  return check_result_shape(c, op, 0, t->elem, t->rank, dims) && check_result_shape(c, op, 1, TPUB_I32, t->rank, dims);
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

int exec_top_k(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  const VmType *t = in->type;
  int64_t k = vm_field_int(ins, 0), len = t->dims[t->rank - 1];
  if (k == 0 || t->count == 0) return VM_OK;
  int64_t rows = t->count / len;
  int elem = t->elem, eb = vm_elem_bytes(elem);
  bool small = k <= 32;
  Scratch s = {.x = x};
  int64_t *keys = scratch_get(&s, len, sizeof(int64_t));
  KeyI *v = scratch_get(&s, small ? k : len, sizeof(KeyI)), *tmp = small ? v : scratch_get(&s, len, sizeof(KeyI));
  if (!keys || !v || !tmp) return scratch_fail(&s, "top_k");
  const char *src = in->data;
  char *values = out[0].data;
  int32_t *indices = out[1].data;
  for (int64_t row = 0; row < rows; row++) {
    load_keys(KEYS_I64, elem, src, row * len, 1, len, keys, NULL);
    if (small) {
      top_k_insertion(keys, len, k, v);
    } else {
      for (int64_t i = 0; i < len; i++) v[i] = (KeyI){keys[i], i};
      sort_keyi_desc(v, tmp, len);
    }
    for (int64_t j = 0; j < k; j++) {
      copy_elem(values + (row * k + j) * eb, src + (row * len + v[j].idx) * eb, eb);
      indices[row * k + j] = (int32_t)v[j].idx;
    }
  }
  scratch_release(&s);
  return VM_OK;
}
