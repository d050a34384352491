/* Constant folding (see passes/fold.h): element-wise ops evaluated per
 * element (integers in GMP, floats in double with one rounding), shape ops
 * as moves of storage bytes, iota as its values, a reduce with a one-op
 * body in the VM's order.
 *
 * Where the spec leaves a result to the implementation the fold gives up,
 * so the folded program computes what the VM would: integer division by
 * zero or of INT_MIN by -1, float -> integer conversions out of range, the
 * sign of max/min of -0.0 and +0.0.  Elsewhere the results are the VM's
 * (vm/kernels/elementwise.c): boolean add is or, shifts by the width or more give
 * 0 (or the sign), NaN propagates through max/min/clamp. */
#include <gmp.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/scalar.h"
#include "passes/fold.h"

#define FOLD_MAX_RANK 16
/* Results with more elements than this print as hex (compact and exact). */
#define HEX_MIN_ELEMENTS 1024

/* ------------------------------------------------------------------ */
/* Dense attributes */

/* An attribute over data (arena memory, not copied). */
static Attr *dense_new(Context *c, Type *t, const uint8_t *data, size_t nbytes, bool splat) {
  Attr *a = arena_alloc(&c->arena, sizeof *a);
  a->kind = ATTR_DENSE;
  a->type = t;
  a->u.dense.data = data;
  a->u.dense.nbytes = nbytes;
  a->u.dense.splat = splat;
  ElemKind k = t->elem;
  int esz = elem_storage_bytes(k);
  bool byte_exact = !elem_is_int(k) || elem_bits(k) == esz * 8;
  a->u.dense.form = !splat && byte_exact && nbytes / (size_t)esz > HEX_MIN_ELEMENTS ? DENSE_HEX : DENSE_LIST;
  return a;
}

/* Every element of static type t is the esz bytes at elem. */
static Attr *dense_filled(Context *c, Type *t, const uint8_t *elem) {
  int64_t n = 0;
  type_tensor_num_elements(t, &n);
  int esz = elem_storage_bytes(t->elem);
  if (n == 0) return dense_new(c, t, arena_alloc(&c->arena, 1), 0, false);
  return dense_new(c, t, arena_dup(&c->arena, elem, (size_t)esz), (size_t)esz, n > 1);
}

Attr *fold_splat(Context *c, Type *t, uint64_t bits) {
  uint8_t b[16] = {0};
  memcpy(b, &bits, sizeof bits);
  return dense_filled(c, t, b);
}

/* Storage of element i. */
static const uint8_t *elem_at(const Attr *a, int64_t i, int esz) {
  return a->u.dense.data + (a->u.dense.splat ? 0 : (size_t)i * (size_t)esz);
}

/* The first element when all elements are equal, else NULL. */
static const uint8_t *uniform_elem(const Attr *a) {
  int64_t n = dense_num_elements(a);
  if (n <= 0) return NULL;
  int esz = elem_storage_bytes(a->type->elem);
  const uint8_t *first = a->u.dense.data;
  if (a->u.dense.splat) return first;
  for (int64_t i = 1; i < n; i++)
    if (memcmp(first, elem_at(a, i, esz), (size_t)esz) != 0) return NULL;
  return first;
}

bool fold_uniform(const Attr *a, uint64_t *bits) {
  if (!a || a->kind != ATTR_DENSE || elem_storage_bytes(a->type->elem) > 8) return false;
  const uint8_t *e = uniform_elem(a);
  if (!e) return false;
  *bits = dense_get_bits(a, 0);
  return true;
}

const Attr *fold_known_value(const Value *v) {
  if (!v || !v->def || v->def->kind != OP_CONSTANT) return NULL;
  const Attr *a = op_attr(v->def, "value");
  if (!a || a->kind != ATTR_DENSE || a->type != v->type || !type_is_static(a->type) || a->type->elem_opaque ||
      a->type->encoding)
    return NULL;
  int64_t n = dense_num_elements(a);
  size_t esz = (size_t)elem_storage_bytes(a->type->elem);
  if (n < 0 || (n > 0 && !a->u.dense.data)) return NULL;
  if (a->u.dense.splat ? (n > 0 && a->u.dense.nbytes < esz) : a->u.dense.nbytes != (size_t)n * esz) return NULL;
  return a;
}

/* ------------------------------------------------------------------ */
/* Integers */

typedef struct Scratch {
  mpz_t a, b, c, r, t;
} Scratch;

static uint64_t width_mask(int w) { return w >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1; }

/* i1 is a 1-bit unsigned number (false < true). */
static bool int_unsigned(ElemKind k) { return elem_is_unsigned(k) || k == ELEM_I1; }

/* The number held by the storage bits of an integer element, as int64 (its
 * uint64 bits for unsigned kinds). */
static int64_t int_number(ElemKind k, uint64_t bits) {
  int w = elem_bits(k);
  uint64_t u = bits & width_mask(w);
  if (!int_unsigned(k) && w < 64 && ((u >> (w - 1)) & 1)) u |= ~width_mask(w);
  return (int64_t)u;
}

/* z = v, read as uint64 bits when is_unsigned. */
static void mpz_set_number(mpz_t z, int64_t v, bool is_unsigned) {
  bool neg = !is_unsigned && v < 0;
  uint64_t mag = neg ? 0 - (uint64_t)v : (uint64_t)v;
  mpz_import(z, 1, -1, sizeof mag, 0, 0, &mag);
  if (neg) mpz_neg(z, z);
}

/* z = the number an integer element of kind k stores as bits. */
static void int_load(mpz_t z, ElemKind k, uint64_t bits) { mpz_set_number(z, int_number(k, bits), int_unsigned(k)); }

/* z wrapped to the width of k, as storage bits (sign-extended for signed
 * kinds, as the parser stores them); t is scratch. */
static uint64_t int_store(ElemKind k, const mpz_t z, mpz_t t) {
  int w = elem_bits(k);
  mpz_fdiv_r_2exp(t, z, (mp_bitcnt_t)w);
  uint64_t u = 0;
  size_t count = 0;
  mpz_export(&u, &count, -1, sizeof u, 0, 0, t);
  return (uint64_t)int_number(k, u);
}

/* An integer -> double rounded to odd beyond 53 bits, so that one more
 * rounding to a narrower format is correct (as the VM converts). */
static double int_to_double_odd(int64_t v, bool is_unsigned) {
  bool neg = !is_unsigned && v < 0;
  uint64_t m = neg ? 0 - (uint64_t)v : (uint64_t)v;
  if (m >= ((uint64_t)1 << 53)) {
    int shift = 0;
    while ((m >> shift) >= ((uint64_t)1 << 53)) shift++;
    uint64_t top = (m >> shift) | ((m & (((uint64_t)1 << shift) - 1)) != 0);
    double d = ldexp((double)top, shift);
    return neg ? -d : d;
  }
  return neg ? -(double)m : (double)m;
}

/* An integer converted to float kind fk, correctly rounded. */
static uint64_t int_to_float_bits(ElemKind fk, int64_t v, bool is_unsigned) {
  if (fk == ELEM_F64) return double_to_float_bits(fk, is_unsigned ? (double)(uint64_t)v : (double)v);
  return double_to_float_bits(fk, int_to_double_odd(v, is_unsigned));
}

/* Is a = -2^(w-1), the smallest signed number of width w? */
static bool is_int_min(const mpz_t a, int w, mpz_t t) {
  mpz_set_si(t, -1);
  mpz_mul_2exp(t, t, (mp_bitcnt_t)(w - 1));
  return mpz_cmp(a, t) == 0;
}

/* A shift of an integer of width w; b the amount. */
static void int_shift(OpKind kind, int w, const mpz_t a, const mpz_t b, mpz_t r, mpz_t t) {
  bool out_of_range = mpz_sgn(b) < 0 || mpz_cmp_ui(b, (unsigned long)w) >= 0;
  mp_bitcnt_t s = out_of_range ? 0 : (mp_bitcnt_t)mpz_get_ui(b);
  switch (kind) {
  case OP_SHIFT_LEFT:
    if (out_of_range) mpz_set_ui(r, 0);
    else mpz_mul_2exp(r, a, s);
    return;
  case OP_SHIFT_RIGHT_LOGICAL:
    if (out_of_range) {
      mpz_set_ui(r, 0);
    } else {
      mpz_fdiv_r_2exp(r, a, (mp_bitcnt_t)w);
      mpz_fdiv_q_2exp(r, r, s);
    }
    return;
  default: /* arithmetic: the bits of a as a signed number */
    mpz_fdiv_r_2exp(r, a, (mp_bitcnt_t)w);
    if (mpz_tstbit(r, (mp_bitcnt_t)(w - 1))) {
      mpz_set_ui(t, 1);
      mpz_mul_2exp(t, t, (mp_bitcnt_t)w);
      mpz_sub(r, r, t);
    }
    if (out_of_range) mpz_set_si(r, mpz_sgn(r) < 0 ? -1 : 0);
    else mpz_fdiv_q_2exp(r, r, s);
    return;
  }
}

/* One element of an integer op; in[] are storage bits. */
static bool eval_int(const FoldElemOp *e, Scratch *s, int nargs, const uint64_t *in, uint64_t *out) {
  ElemKind k = e->in;
  int w = elem_bits(k);
  bool uns = int_unsigned(k);
  mpz_ptr a = s->a, b = s->b, r = s->r, t = s->t;
  int_load(a, k, in[0]);
  if (nargs > 1) int_load(b, k, in[1]);
  switch (e->kind) {
  case OP_ADD:
    if (k == ELEM_I1) mpz_ior(r, a, b); /* boolean add is or */
    else mpz_add(r, a, b);
    break;
  case OP_SUBTRACT: mpz_sub(r, a, b); break;
  case OP_MULTIPLY: mpz_mul(r, a, b); break;
  case OP_DIVIDE:
  case OP_REMAINDER:
    if (mpz_sgn(b) == 0 || (!uns && mpz_cmp_si(b, -1) == 0 && is_int_min(a, w, t))) return false;
    if (e->kind == OP_DIVIDE) mpz_tdiv_q(r, a, b);
    else mpz_tdiv_r(r, a, b);
    break;
  case OP_AND: mpz_and(r, a, b); break;
  case OP_OR: mpz_ior(r, a, b); break;
  case OP_XOR: mpz_xor(r, a, b); break;
  case OP_NOT: mpz_com(r, a); break;
  case OP_NEGATE: mpz_neg(r, a); break;
  case OP_ABS: mpz_abs(r, a); break;
  case OP_SIGN: mpz_set_si(r, mpz_sgn(a)); break;
  case OP_MAXIMUM: mpz_set(r, mpz_cmp(a, b) >= 0 ? a : b); break;
  case OP_MINIMUM: mpz_set(r, mpz_cmp(a, b) <= 0 ? a : b); break;
  case OP_CLAMP: /* (min, operand, max) */
    int_load(s->c, k, in[2]);
    mpz_set(r, mpz_cmp(b, a) >= 0 ? b : a);
    if (mpz_cmp(r, s->c) > 0) mpz_set(r, s->c);
    break;
  case OP_SHIFT_LEFT:
  case OP_SHIFT_RIGHT_LOGICAL:
  case OP_SHIFT_RIGHT_ARITHMETIC: int_shift(e->kind, w, a, b, r, t); break;
  case OP_POPCNT:
    mpz_fdiv_r_2exp(t, a, (mp_bitcnt_t)w);
    mpz_set_ui(r, (unsigned long)mpz_popcount(t));
    break;
  case OP_COUNT_LEADING_ZEROS:
    mpz_fdiv_r_2exp(t, a, (mp_bitcnt_t)w);
    mpz_set_ui(r, mpz_sgn(t) == 0 ? (unsigned long)w : (unsigned long)w - mpz_sizeinbase(t, 2));
    break;
  case OP_COMPARE: *out = scalar_direction_holds(e->direction, mpz_cmp(a, b)); return true;
  case OP_CONVERT:
    if (elem_is_float(e->out)) {
      *out = int_to_float_bits(e->out, int_number(k, in[0]), uns);
      return true;
    }
    if (e->out == ELEM_I1 || e->out == ELEM_UI1) { /* any-to-boolean: nonzero is true */
      *out = mpz_sgn(a) != 0;
      return true;
    }
    *out = int_store(e->out, a, t);
    return true;
  default: return false;
  }
  *out = int_store(e->out, r, t);
  return true;
}

/* ------------------------------------------------------------------ */
/* Floats */

/* The kinds whose arithmetic folds: everything double holds exactly and
 * whose encoding the VM shares (not tf32, not the exponent-only e8m0). */
static bool float_foldable(ElemKind k) {
  return elem_is_float(k) && k != ELEM_TF32 && k != ELEM_F8E8M0FNU;
}

/* XLA's NaN-propagating max/min as the VM computes them; false for -0.0
 * against +0.0, whose result the spec does not fix. */
static bool float_max_min(double x, double y, bool is_max, double *r) {
  if (x == 0 && y == 0 && signbit(x) != signbit(y)) return false;
  *r = is_max ? SCALAR_MAX(x, y) : SCALAR_MIN(x, y);
  return true;
}

/* Key whose signed order is the IEEE totalOrder of an encoding. */
static int64_t total_order_key(ElemKind k, uint64_t bits) {
  int w = elem_bits(k);
  int64_t mag = (int64_t)(bits & width_mask(w - 1));
  return ((bits >> (w - 1)) & 1) ? ~mag : mag;
}

/* One element of a float op; in[] are storage bits. */
static bool eval_float(const FoldElemOp *e, Scratch *s, int nargs, const uint64_t *in, uint64_t *out) {
  ElemKind k = e->in;
  double x = float_bits_to_double(k, in[0]), y = nargs > 1 ? float_bits_to_double(k, in[1]) : 0, r;
  switch (e->kind) {
  case OP_ADD: r = x + y; break;
  case OP_SUBTRACT: r = x - y; break;
  case OP_MULTIPLY: r = x * y; break;
  case OP_DIVIDE: r = x / y; break;
  case OP_REMAINDER: r = fmod(x, y); break; /* exact */
  case OP_NEGATE: r = -x; break;
  case OP_ABS: r = fabs(x); break;
  case OP_SQRT: r = sqrt(x); break;
  case OP_FLOOR: r = floor(x); break;
  case OP_CEIL: r = ceil(x); break;
  case OP_ROUND_NEAREST_EVEN: r = nearbyint(x); break;
  case OP_ROUND_NEAREST_AFZ: r = round(x); break;
  case OP_SIGN: r = x > 0 ? 1.0 : x < 0 ? -1.0 : x; break;
  case OP_MAXIMUM:
  case OP_MINIMUM:
    if (!float_max_min(x, y, e->kind == OP_MAXIMUM, &r)) return false;
    break;
  case OP_CLAMP: { /* (min, operand, max): max(operand, min), then min(., max) */
    double hi = float_bits_to_double(k, in[2]), t;
    if (!float_max_min(y, x, true, &t) || !float_max_min(t, hi, false, &r)) return false;
    break;
  }
  case OP_IS_FINITE: *out = isfinite(x) != 0; return true;
  case OP_COMPARE:
    if (e->total) {
      int64_t kx = total_order_key(k, in[0]), ky = total_order_key(k, in[1]);
      *out = scalar_direction_holds(e->direction, (kx > ky) - (kx < ky));
    } else if (isnan(x) || isnan(y)) {
      *out = e->direction == 1;
    } else {
      *out = scalar_direction_holds(e->direction, (x > y) - (x < y));
    }
    return true;
  case OP_CONVERT: {
    ElemKind o = e->out;
    if (elem_is_float(o)) {
      *out = double_to_float_bits(o, x);
      return true;
    }
    if (o == ELEM_I1 || o == ELEM_UI1) { /* any-to-boolean: nonzero (and NaN) is true */
      *out = x != 0;
      return true;
    }
    if (!isfinite(x)) return false;
    double t = trunc(x);
    int w = elem_bits(o);
    if (int_unsigned(o) ? (t < 0 || t >= ldexp(1.0, w)) : (t < -ldexp(1.0, w - 1) || t >= ldexp(1.0, w - 1)))
      return false; /* out of range: implementation-defined */
    mpz_set_d(s->r, t);
    *out = int_store(o, s->r, s->t);
    return true;
  }
  default: return false;
  }
  *out = double_to_float_bits(e->out, r);
  return true;
}

/* ------------------------------------------------------------------ */
/* Element-wise ops */

static bool elem_foldable(ElemKind k) { return elem_is_int(k) || float_foldable(k); }

/* The element-wise description of op (an op whose FOLD column is
 * elementwise); false when its element types do not fold. */
static bool elem_op_of(const Op *op, FoldElemOp *e) {
  if (op->noperands < 1 || op->nresults != 1) return false;
  int data = op->kind == OP_SELECT || op->kind == OP_CLAMP ? 1 : 0;
  if (data >= op->noperands) return false;
  const Type *in = op->operands[data]->type, *res = op->results[0].type;
  if (!type_is_tensor(in) || in->elem_opaque || res->elem_opaque) return false;
  *e = (FoldElemOp){.kind = op->kind, .in = in->elem, .out = res->elem};
  if (op->kind == OP_SELECT) return elem_storage_bytes(e->out) <= 8 && e->in == e->out;
  if (!elem_foldable(e->in) || !elem_foldable(e->out)) return false;
  if (op->kind == OP_COMPARE) {
    static const char *const dirs[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
    const char *d = attr_enum_value(op_attr(op, "comparison_direction"));
    const char *ct = attr_enum_value(op_attr(op, "compare_type"));
    e->direction = -1;
    for (int i = 0; d && i < 6; i++)
      if (strcmp(d, dirs[i]) == 0) e->direction = i;
    e->total = ct && strcmp(ct, "TOTALORDER") == 0;
    return e->direction >= 0 && e->out == ELEM_I1;
  }
  if (op->kind == OP_IS_FINITE) return elem_is_float(e->in) && e->out == ELEM_I1;
  return op->kind == OP_CONVERT || e->in == e->out;
}

/* One element of any folded element-wise op; false: leave the op alone. */
static bool eval_elem(const FoldElemOp *e, Scratch *s, int nargs, const uint64_t *in, uint64_t *out) {
  if (e->kind == OP_SELECT) {
    *out = (in[0] & 1) ? in[1] : in[2];
    return true;
  }
  if (elem_is_int(e->in)) return eval_int(e, s, nargs, in, out);
  return eval_float(e, s, nargs, in, out);
}

bool fold_int_scalar(const FoldElemOp *e, int nargs, const int64_t *args, int64_t *result) {
  if (nargs < 1 || nargs > 3 || !elem_is_int(e->in) || !elem_foldable(e->out)) return false;
  uint64_t in[3] = {0};
  for (int i = 0; i < nargs; i++) in[i] = (uint64_t)args[i];
  Scratch s;
  mpz_inits(s.a, s.b, s.c, s.r, s.t, NULL);
  uint64_t out = 0;
  bool ok = eval_elem(e, &s, nargs, in, &out);
  mpz_clears(s.a, s.b, s.c, s.r, s.t, NULL);
  if (ok) *result = elem_is_int(e->out) ? int_number(e->out, out) : (int64_t)out;
  return ok;
}

/* May operand i have one element while the result has many?  (select's
 * predicate, clamp's bounds: scalars broadcast.) */
static bool scalar_operand_ok(const Op *op, int i) {
  return (op->kind == OP_SELECT && i == 0) || (op->kind == OP_CLAMP && i != 1);
}

/* Every operand of op is a known constant of a rank the folders handle. */
static bool known_operands(const Op *op, const Attr *const *vals) {
  if (op->noperands == 0) return false;
  for (int i = 0; i < op->noperands; i++)
    if (!vals[i] || vals[i]->type->rank > FOLD_MAX_RANK) return false;
  return true;
}

/* An element-wise op over constants, element by element (once when every
 * operand is a splat). */
static Attr *fold_elementwise(Context *c, const Op *op, const Attr *const *vals, Type *rt, int64_t n) {
  FoldElemOp e;
  if (!known_operands(op, vals) || !elem_op_of(op, &e) || op->noperands > 3) return NULL;
  int nargs = op->noperands;
  bool uniform = true, one[3];
  for (int i = 0; i < nargs; i++) {
    if (!vals[i] || vals[i]->type->elem != op->operands[i]->type->elem) return NULL;
    int64_t m = dense_num_elements(vals[i]);
    if (m != n && !(m == 1 && scalar_operand_ok(op, i))) return NULL;
    one[i] = vals[i]->u.dense.splat || m == 1;
    uniform = uniform && one[i];
  }
  if (n == 0) return dense_new(c, rt, arena_alloc(&c->arena, 1), 0, false);
  if (!uniform && n > FOLD_MAX_ELEMENTS) return NULL;
  Scratch s;
  mpz_inits(s.a, s.b, s.c, s.r, s.t, NULL);
  uint64_t in[3] = {0}, out = 0, first = 0;
  int esz = elem_storage_bytes(rt->elem);
  int64_t count = uniform ? 1 : n;
  uint8_t *buf = malloc((size_t)(count * esz));
  bool ok = buf != NULL, same = true;
  for (int64_t i = 0; ok && i < count; i++) {
    for (int j = 0; j < nargs; j++)
      in[j] = dense_get_bits(vals[j], one[j] ? 0 : i);
    ok = eval_elem(&e, &s, nargs, in, &out);
    if (i == 0) first = out;
    else same = same && out == first;
    memcpy(buf + i * esz, &out, (size_t)esz);
  }
  mpz_clears(s.a, s.b, s.c, s.r, s.t, NULL);
  Attr *a = NULL;
  if (ok && (uniform || same)) a = fold_splat(c, rt, first);
  else if (ok) a = dense_new(c, rt, arena_dup(&c->arena, buf, (size_t)(n * esz)), (size_t)(n * esz), false);
  free(buf);
  return a;
}

/* ------------------------------------------------------------------ */
/* Shape ops */

/* Elements between neighbours along each dimension (row-major). */
static void row_major_strides(const Type *t, int64_t *strides) {
  int64_t s = 1;
  for (int d = t->rank - 1; d >= 0; d--) {
    strides[d] = s;
    s *= t->dims[d];
  }
}

/* The result of type rt whose element at index idx is the element of src
 * at linear position base + sum(coef[d] * idx[d]). */
static Attr *affine_gather(Context *c, Type *rt, int64_t n, const Attr *src, int64_t base, const int64_t *coef) {
  int esz = elem_storage_bytes(rt->elem);
  uint8_t *buf = arena_alloc(&c->arena, (size_t)(n * esz) + 1);
  int64_t idx[FOLD_MAX_RANK] = {0}, pos = base;
  for (int64_t i = 0; i < n; i++) {
    memcpy(buf + i * esz, elem_at(src, pos, esz), (size_t)esz);
    for (int d = rt->rank - 1; d >= 0; d--) {
      pos += coef[d];
      if (++idx[d] < rt->dims[d]) break;
      pos -= coef[d] * idx[d];
      idx[d] = 0;
    }
  }
  return dense_new(c, rt, buf, (size_t)(n * esz), false);
}

/* An i64 list attribute of op with exactly `want` entries. */
static const int64_t *list_attr(Context *c, const Op *op, const char *name, int want) {
  int n;
  const int64_t *v;
  if (!attr_as_i64_list(op_attr(op, name), &n, &v, &c->arena) || n != want) return NULL;
  return v;
}

/* pad: edge (possibly negative) and interior padding with the scalar
 * operand 1. */
static Attr *fold_pad(Context *c, const Op *op, const Attr *const *vals, Type *rt, int64_t n) {
  if (!known_operands(op, vals) || op->noperands != 2 || vals[0]->type->elem != rt->elem ||
      vals[1]->type->elem != rt->elem || vals[0]->type->rank != rt->rank)
    return NULL;
  const Attr *src = vals[0], *pv = vals[1];
  const Type *t = src->type;
  int r = t->rank;
  const int64_t *lo = list_attr(c, op, "edge_padding_low", r), *hi = list_attr(c, op, "edge_padding_high", r),
                *in = list_attr(c, op, "interior_padding", r);
  if (!lo || !hi || !in || dense_num_elements(pv) != 1) return NULL;
  for (int d = 0; d < r; d++) {
    int64_t span = t->dims[d] ? t->dims[d] + (t->dims[d] - 1) * in[d] : 0;
    if (in[d] < 0 || lo[d] + span + hi[d] != rt->dims[d]) return NULL;
  }
  int esz = elem_storage_bytes(rt->elem);
  const uint8_t *u = uniform_elem(src), *p = elem_at(pv, 0, esz);
  if (u && memcmp(u, p, (size_t)esz) == 0) return dense_filled(c, rt, p);
  if (n > FOLD_MAX_ELEMENTS) return NULL;
  int64_t strides[FOLD_MAX_RANK], idx[FOLD_MAX_RANK] = {0};
  row_major_strides(t, strides);
  uint8_t *buf = arena_alloc(&c->arena, (size_t)(n * esz) + 1);
  for (int64_t i = 0; i < n; i++) {
    int64_t pos = 0;
    bool inside = true;
    for (int d = 0; d < r && inside; d++) {
      int64_t q = idx[d] - lo[d];
      inside = q >= 0 && q % (in[d] + 1) == 0 && q / (in[d] + 1) < t->dims[d];
      pos += inside ? q / (in[d] + 1) * strides[d] : 0;
    }
    memcpy(buf + i * esz, inside ? elem_at(src, pos, esz) : p, (size_t)esz);
    for (int d = r - 1; d >= 0; d--) {
      if (++idx[d] < rt->dims[d]) break;
      idx[d] = 0;
    }
  }
  return dense_new(c, rt, buf, (size_t)(n * esz), false);
}

/* concatenate: the operands' blocks along the dimension, in turn. */
static Attr *fold_concatenate(Context *c, const Op *op, const Attr *const *vals, Type *rt, int64_t n) {
  if (!known_operands(op, vals)) return NULL;
  for (int i = 0; i < op->noperands; i++)
    if (vals[i]->type->elem != rt->elem) return NULL;
  int64_t dim;
  if (!attr_as_int(op_attr(op, "dimension"), &dim) || dim < 0 || dim >= rt->rank) return NULL;
  int esz = elem_storage_bytes(rt->elem);
  const uint8_t *u = NULL;
  int64_t total = 0;
  bool uniform = true;
  for (int i = 0; i < op->noperands; i++) {
    const Type *t = vals[i]->type;
    if (t->rank != rt->rank) return NULL;
    for (int d = 0; d < t->rank; d++)
      if (d != dim && t->dims[d] != rt->dims[d]) return NULL;
    total += t->dims[dim];
    if (dense_num_elements(vals[i]) == 0) continue;
    const uint8_t *ui = uniform_elem(vals[i]);
    if (!ui || (u && memcmp(u, ui, (size_t)esz) != 0)) uniform = false;
    u = ui;
  }
  if (total != rt->dims[dim]) return NULL;
  if (uniform && u) return dense_filled(c, rt, u);
  if (n > FOLD_MAX_ELEMENTS) return NULL;
  int64_t outer = 1;
  for (int d = 0; d < dim; d++) outer *= rt->dims[d];
  uint8_t *buf = arena_alloc(&c->arena, (size_t)(n * esz) + 1), *dst = buf;
  for (int64_t o = 0; o < outer; o++)
    for (int i = 0; i < op->noperands; i++) {
      int64_t m = dense_num_elements(vals[i]), block = outer ? m / outer : 0;
      for (int64_t j = 0; j < block; j++, dst += esz) memcpy(dst, elem_at(vals[i], o * block + j, esz), (size_t)esz);
    }
  return dense_new(c, rt, buf, (size_t)(n * esz), false);
}

/* iota: each element's index along the dimension, in the element type. */
static Attr *fold_iota(Context *c, const Op *op, const Attr *const *vals, Type *rt, int64_t n) {
  (void)vals;
  int64_t dim;
  if (op->noperands != 0) return NULL;
  ElemKind k = rt->elem;
  if (!attr_as_int(op_attr(op, "iota_dimension"), &dim) || dim < 0 || dim >= rt->rank) return NULL;
  if (!elem_foldable(k) || ((k == ELEM_I1 || k == ELEM_UI1) && rt->dims[dim] > 2)) return NULL;
  if (rt->dims[dim] <= 1) return fold_splat(c, rt, 0); /* all zeros: 0 and 0.0 have zero bits */
  if (n > FOLD_MAX_ELEMENTS) return NULL;
  int esz = elem_storage_bytes(k);
  int64_t strides[FOLD_MAX_RANK];
  row_major_strides(rt, strides);
  uint8_t *buf = arena_alloc(&c->arena, (size_t)(n * esz) + 1);
  mpz_t z, t;
  mpz_inits(z, t, NULL);
  for (int64_t i = 0; i < n; i++) {
    int64_t v = i / strides[dim] % rt->dims[dim];
    uint64_t bits;
    if (elem_is_int(k)) {
      mpz_set_number(z, v, false);
      bits = int_store(k, z, t);
    } else {
      bits = double_to_float_bits(k, (double)v);
    }
    memcpy(buf + i * esz, &bits, (size_t)esz);
  }
  mpz_clears(z, t, NULL);
  return dense_new(c, rt, buf, (size_t)(n * esz), false);
}

/* transpose, broadcast_in_dim, broadcast, slice, reverse: an affine map
 * from result indices to operand positions. */
static Attr *fold_affine(Context *c, const Op *op, const Attr *const *vals, Type *rt, int64_t n) {
  if (!known_operands(op, vals) || op->noperands != 1 || vals[0]->type->elem != rt->elem) return NULL;
  const Attr *src = vals[0];
  const Type *t = src->type;
  int r = t->rank;
  int64_t strides[FOLD_MAX_RANK], coef[FOLD_MAX_RANK] = {0}, base = 0;
  row_major_strides(t, strides);
  switch (op->kind) {
  case OP_TRANSPOSE: {
    const int64_t *perm = list_attr(c, op, "permutation", r);
    bool seen[FOLD_MAX_RANK] = {0};
    if (!perm || rt->rank != r) return NULL;
    for (int d = 0; d < r; d++) {
      if (perm[d] < 0 || perm[d] >= r || seen[perm[d]] || rt->dims[d] != t->dims[perm[d]]) return NULL;
      seen[perm[d]] = true;
      coef[d] = strides[perm[d]];
    }
    break;
  }
  case OP_BROADCAST_IN_DIM:
  case OP_BROADCAST: {
    int64_t prepend[FOLD_MAX_RANK];
    const int64_t *dims = prepend;
    if (op->kind == OP_BROADCAST_IN_DIM) dims = list_attr(c, op, "broadcast_dimensions", r);
    else
      for (int d = 0; d < r; d++) prepend[d] = rt->rank - r + d;
    if (!dims || rt->rank < r) return NULL;
    for (int d = 0; d < r; d++) {
      if (dims[d] < 0 || dims[d] >= rt->rank) return NULL;
      if (t->dims[d] != 1 && t->dims[d] != rt->dims[dims[d]]) return NULL;
      coef[dims[d]] = t->dims[d] == 1 ? 0 : strides[d];
    }
    break;
  }
  case OP_SLICE: {
    const int64_t *start = list_attr(c, op, "start_indices", r), *limit = list_attr(c, op, "limit_indices", r),
                  *step = list_attr(c, op, "strides", r);
    if (!start || !limit || rt->rank != r) return NULL;
    for (int d = 0; d < r; d++) {
      int64_t st = step ? step[d] : 1;
      if (st <= 0 || start[d] < 0 || limit[d] > t->dims[d] || start[d] > limit[d] ||
          rt->dims[d] != (limit[d] - start[d] + st - 1) / st)
        return NULL;
      base += start[d] * strides[d];
      coef[d] = st * strides[d];
    }
    break;
  }
  case OP_REVERSE: {
    int nd;
    const int64_t *dims;
    if (!attr_as_i64_list(op_attr(op, "dimensions"), &nd, &dims, &c->arena) || rt->rank != r) return NULL;
    for (int d = 0; d < r; d++) coef[d] = strides[d];
    for (int i = 0; i < nd; i++) {
      if (dims[i] < 0 || dims[i] >= r || coef[dims[i]] < 0) return NULL;
      if (t->dims[dims[i]] > 0) base += (t->dims[dims[i]] - 1) * strides[dims[i]];
      coef[dims[i]] = -coef[dims[i]];
    }
    break;
  }
  default: return NULL;
  }
  if (dense_num_elements(src) == 0) return n == 0 ? dense_new(c, rt, arena_alloc(&c->arena, 1), 0, false) : NULL;
  const uint8_t *u = uniform_elem(src);
  if (u) return dense_filled(c, rt, u);
  if (n > FOLD_MAX_ELEMENTS) return NULL;
  return affine_gather(c, rt, n, src, base, coef);
}

/* ------------------------------------------------------------------ */
/* reduce */

/* The binary op of a reducer body that is one add, multiply, maximum,
 * minimum, and, or or xor of its two arguments, returned; NULL otherwise. */
static const Op *reducer_op(const Op *op) {
  if (op->nregions != 1 || op->regions[0].nblocks != 1) return NULL;
  const Block *b = op->regions[0].blocks[0];
  const Op *f = b->first;
  if (b->nargs != 2 || !f || !f->next || f->next != b->last || f->noperands != 2 || f->nresults != 1) return NULL;
  const Op *ret = f->next;
  if (ret->kind != OP_RETURN || ret->noperands != 1 || ret->operands[0] != &f->results[0]) return NULL;
  const Value *x = f->operands[0], *y = f->operands[1], *a = &b->args[0], *bb = &b->args[1];
  if (!((x == a && y == bb) || (x == bb && y == a))) return NULL;
  switch (f->kind) {
  case OP_ADD:
  case OP_MULTIPLY:
  case OP_MAXIMUM:
  case OP_MINIMUM:
  case OP_AND:
  case OP_OR:
  case OP_XOR: return f;
  default: return NULL;
  }
}

/* The reduced dimensions of a reduce of input type t to result type rt
 * into reduced[]; false when the attribute or the shapes disagree. */
static bool reduce_dims(Context *c, const Op *op, const Type *t, const Type *rt, bool *reduced) {
  int nd;
  const int64_t *dims;
  if (!attr_as_i64_list(op_attr(op, "dimensions"), &nd, &dims, &c->arena) || rt->rank != t->rank - nd) return false;
  for (int i = 0; i < nd; i++) {
    if (dims[i] < 0 || dims[i] >= t->rank || reduced[dims[i]]) return false;
    reduced[dims[i]] = true;
  }
  for (int d = 0, k = 0; d < t->rank; d++)
    if (!reduced[d] && t->dims[d] != rt->dims[k++]) return false;
  return true;
}

/* reduce of one integer, f32 or f64 input with a one-op body, in the VM's
 * order (vm/kernels/reduce.c): each accumulator starts at the init value
 * and takes the input elements in row-major order, acc = op(acc, x), one
 * rounding per step.  bf16 and f16 are left to the VM, which may
 * accumulate their rows in f32. */
static Attr *fold_reduce(Context *c, const Op *op, const Attr *const *vals, Type *rt, int64_t n) {
  const Op *f = reducer_op(op);
  if (!f || op->noperands != 2 || !known_operands(op, vals)) return NULL;
  const Attr *src = vals[0], *init = vals[1];
  const Type *t = src->type;
  ElemKind k = t->elem;
  bool reduced[FOLD_MAX_RANK] = {false};
  if (!(elem_is_int(k) || k == ELEM_F32 || k == ELEM_F64) || !elem_foldable(k) || rt->elem != k || init->type->elem != k ||
      f->results[0].type->elem != k || dense_num_elements(init) != 1 || !reduce_dims(c, op, t, rt, reduced))
    return NULL;
  int64_t m = dense_num_elements(src);
  if (m > FOLD_MAX_ELEMENTS || n > FOLD_MAX_ELEMENTS) return NULL;
  FoldElemOp e = {.kind = f->kind, .in = k, .out = k};
  int esz = elem_storage_bytes(k);
  uint64_t *acc = malloc((size_t)(n ? n : 1) * sizeof *acc), in[2];
  if (!acc) return NULL;
  for (int64_t o = 0; o < n; o++) acc[o] = dense_get_bits(init, 0);
  int64_t idx[FOLD_MAX_RANK] = {0};
  Scratch s;
  mpz_inits(s.a, s.b, s.c, s.r, s.t, NULL);
  bool ok = true;
  for (int64_t i = 0; ok && i < m; i++) {
    int64_t o = 0;
    for (int d = 0, j = 0; d < t->rank; d++)
      if (!reduced[d]) o = o * rt->dims[j++] + idx[d];
    in[0] = acc[o], in[1] = dense_get_bits(src, i);
    ok = eval_elem(&e, &s, 2, in, &acc[o]);
    for (int d = t->rank - 1; d >= 0; d--) {
      if (++idx[d] < t->dims[d]) break;
      idx[d] = 0;
    }
  }
  mpz_clears(s.a, s.b, s.c, s.r, s.t, NULL);
  Attr *a = NULL;
  if (ok) {
    uint8_t *buf = arena_alloc(&c->arena, (size_t)(n * esz) + 1);
    for (int64_t o = 0; o < n; o++) memcpy(buf + o * esz, &acc[o], (size_t)esz);
    a = dense_new(c, rt, buf, (size_t)(n * esz), false);
  }
  free(acc);
  return a;
}

/* ------------------------------------------------------------------ */

/* reshape: the same bytes under the result type. */
static Attr *fold_reshape(Context *c, const Op *op, const Attr *const *vals, Type *rt, int64_t n) {
  if (!known_operands(op, vals)) return NULL;
  const Attr *src = vals[0];
  if (src->type->elem != rt->elem || dense_num_elements(src) != n) return NULL;
  if (src->u.dense.splat || n <= 1) return n ? dense_filled(c, rt, src->u.dense.data) : fold_splat(c, rt, 0);
  const uint8_t *u = uniform_elem(src);
  if (u) return dense_filled(c, rt, u);
  if (n > FOLD_MAX_ELEMENTS) return NULL;
  return dense_new(c, rt, src->u.dense.data, src->u.dense.nbytes, false); /* same bytes, shared */
}

/* The folder of the ops whose FOLD column is none. */
static Attr *fold_none(Context *c, const Op *op, const Attr *const *vals, Type *rt, int64_t n) {
  (void)c, (void)op, (void)vals, (void)rt, (void)n;
  return NULL;
}

/* The folder of each op: the FOLD column of ir/ops.def. */
static Attr *(*const folders[OP_COUNT])(Context *c, const Op *op, const Attr *const *vals, Type *rt, int64_t n) = {
#define OP(id, name, mino, maxo, nres, nreg, traits, elems, verify, infer, cost, fold, ...) [OP_##id] = fold_##fold,
#include "ir/ops.def"
#undef OP
};

bool fold_reads_regions(OpKind kind) { return kind == OP_REDUCE; }

Attr *fold_op(Context *c, const Op *op, const Attr *const *vals) {
  if (op->nresults != 1 || (op->nregions && !fold_reads_regions(op->kind))) return NULL;
  Type *rt = op->results[0].type;
  int64_t n;
  if (!type_is_static(rt) || rt->elem_opaque || rt->encoding || rt->rank > FOLD_MAX_RANK ||
      !type_tensor_num_elements(rt, &n))
    return NULL;
  return folders[op->kind](c, op, vals, rt, n);
}
