/* Per-op verification: dispatch, exact tensor sizes, and the helpers shared
 * by the rule files (see ir/verify_ops.h). */
#include <gmp.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ir/quant.h"
#include "ir/verify_ops.h"

/* ------------------------------------------------------------------ */
/* Dispatch. */

/* Ranks beyond this are not checked per op (the rules are quadratic in the
 * rank in places); no real program comes near it. */
enum { RULES_MAX_RANK = 1 << 14 };

static bool has_extreme_rank(const Op *op) {
  for (int i = 0; i < op->noperands + op->nresults; i++) {
    const Type *t = i < op->noperands ? vo_operand_type(op, i) : vo_result_type(op, i - op->noperands);
    if (t && t->kind == TY_TENSOR && t->rank > RULES_MAX_RANK) return true;
  }
  return false;
}

/* The rule of each op: the VERIFY column of ir/ops.def. */
static void (*const op_rules[OP_COUNT])(Context *c, Op *op) = {
#define OP(id, name, mino, maxo, nres, nreg, traits, elems, verify, ...) [OP_##id] = verify_##verify,
#include "ir/ops.def"
#undef OP
};

void verify_op_rules(Context *c, Op *op) {
  if (!op || has_extreme_rank(op)) return;
  op_rules[op->kind](c, op);
}

/* The rule of the ops with only the generic checks of ir/verifier.c. */
void verify_none(Context *c, Op *op) {
  (void)c;
  (void)op;
}

/* ------------------------------------------------------------------ */
/* Tensor types: exact element and byte counts. */

enum { TYPE_NEST_LIMIT = 64 };

static void tensor_type_rec(Context *c, Loc loc, const Type *t, int depth) {
  if (!t || depth > TYPE_NEST_LIMIT) return;
  if (t->kind == TY_TUPLE) {
    for (int i = 0; i < t->ninputs; i++) tensor_type_rec(c, loc, t->inputs[i], depth + 1);
    return;
  }
  if (t->kind != TY_TENSOR || t->rank <= 0 || !t->dims) return;
  bool bad = false, dynamic = false;
  for (int i = 0; i < t->rank; i++) {
    if (t->dims[i] == DIM_DYNAMIC) {
      dynamic = true;
    } else if (t->dims[i] < 0) {
      diag_report(c, loc, SEV_ERROR, "tensor type '%s' has negative dimension size %" PRId64,
                  vo_type_str(c, t), t->dims[i]);
      bad = true;
    }
  }
  if (bad) return;
  mpz_t n, d, limit;
  mpz_init_set_ui(n, 1);
  mpz_init(d);
  mpz_init(limit);
  for (int i = 0; i < t->rank; i++) {
    if (t->dims[i] == DIM_DYNAMIC) continue;
    mpz_set_si(d, (long)t->dims[i]);
    mpz_mul(n, n, d);
  }
  /* 2^63 - 1 */
  mpz_set_ui(limit, 1);
  mpz_mul_2exp(limit, limit, 63);
  mpz_sub_ui(limit, limit, 1);
  bool builtin = !t->elem_opaque && t->elem < ELEM_COUNT;
  if (builtin) {
    mpz_mul_ui(n, n, (unsigned long)elem_storage_bytes(t->elem));
    if (mpz_cmp(n, limit) > 0) {
      char *s = arena_alloc(&c->arena, mpz_sizeinbase(n, 10) + 2);
      mpz_get_str(s, 10, n);
      diag_report(c, loc, SEV_ERROR, "tensor type '%s' has %s%s bytes, more than the 2^63-1 supported",
                  vo_type_str(c, t), dynamic ? "at least " : "", s);
    }
  } else if (mpz_cmp(n, limit) > 0) {
    char *s = arena_alloc(&c->arena, mpz_sizeinbase(n, 10) + 2);
    mpz_get_str(s, 10, n);
    diag_report(c, loc, SEV_ERROR, "tensor type '%s' has %s%s elements, more than the 2^63-1 supported",
                vo_type_str(c, t), dynamic ? "at least " : "", s);
  }
  mpz_clear(n);
  mpz_clear(d);
  mpz_clear(limit);
}

void verify_tensor_type(Context *c, Loc loc, const Type *t) { tensor_type_rec(c, loc, t, 0); }

/* ------------------------------------------------------------------ */
/* Types. */

const Type *vo_operand_type(const Op *op, int i) {
  if (!op || i < 0 || i >= op->noperands || !op->operands || !op->operands[i]) return NULL;
  return op->operands[i]->type;
}

const Type *vo_result_type(const Op *op, int i) {
  if (!op || i < 0 || i >= op->nresults || !op->results) return NULL;
  return op->results[i].type;
}

bool vo_is_tensor(const Type *t) { return t && t->kind == TY_TENSOR; }
bool vo_is_ranked(const Type *t) { return vo_is_tensor(t) && t->rank >= 0; }
bool vo_builtin_elem(const Type *t) { return vo_is_tensor(t) && !t->elem_opaque && t->elem < ELEM_COUNT; }
int vo_rank(const Type *t) { return vo_is_ranked(t) ? t->rank : -1; }
/* Elements of a tensor with builtin element type, ELEM_COUNT otherwise. */
static ElemKind vo_elem(const Type *t) { return vo_builtin_elem(t) ? t->elem : ELEM_COUNT; }

int64_t vo_dim(const Type *t, int i) {
  if (!vo_is_ranked(t) || i < 0 || i >= t->rank || !t->dims) return DIM_DYNAMIC;
  return t->dims[i];
}

bool vo_dim_known(int64_t d) { return d != DIM_DYNAMIC; }
bool vo_dims_compatible(int64_t a, int64_t b) { return a == DIM_DYNAMIC || b == DIM_DYNAMIC || a == b; }

bool vo_shapes_compatible(const Type *a, const Type *b) {
  if (!vo_is_tensor(a) || !vo_is_tensor(b)) return true;
  if (a->rank < 0 || b->rank < 0) return true;
  if (a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (!vo_dims_compatible(a->dims[i], b->dims[i])) return false;
  return true;
}

bool vo_elems_compatible(const Type *a, const Type *b) {
  if (!vo_is_tensor(a) || !vo_is_tensor(b)) return true;
  if (a->elem_opaque || b->elem_opaque) return true;
  return a->elem == b->elem;
}

static bool types_compatible_rec(const Type *a, const Type *b, int depth) {
  if (a == b) return true;
  if (!a || !b) return true; /* missing values are reported elsewhere */
  if (depth > TYPE_NEST_LIMIT) return true;
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case TY_TENSOR: return vo_shapes_compatible(a, b) && vo_elems_compatible(a, b);
  case TY_TUPLE:
    if (a->ninputs != b->ninputs) return false;
    for (int i = 0; i < a->ninputs; i++)
      if (!types_compatible_rec(a->inputs[i], b->inputs[i], depth + 1)) return false;
    return true;
  case TY_OPAQUE: return a->text && b->text && strcmp(a->text, b->text) == 0;
  case TY_ELEM: return a->elem == b->elem;
  default: return true; /* token, none: one each */
  }
}

bool vo_types_compatible(const Type *a, const Type *b) { return types_compatible_rec(a, b, 0); }

/* ------------------------------------------------------------------ */
/* Element classes. */

unsigned vo_elem_mask(ElemKind k) {
  if (k >= ELEM_COUNT) return 0;
  if (k == ELEM_I1) return EM_BOOL;
  switch (elem_class(k)) {
  case EC_INT:
  case EC_SINT: return EM_SINT;
  case EC_UINT: return EM_UINT;
  case EC_FLOAT: return EM_FLOAT;
  case EC_COMPLEX: return EM_COMPLEX;
  case EC_INDEX: return EM_SINT; /* index behaves as a signless integer */
  }
  return 0;
}

/* "boolean or integer" */
static const char *vo_mask_desc(unsigned mask) {
  switch (mask) {
  case EM_ANY: return "any";
  case EM_BOOL: return "pred (AKA boolean or 1-bit integer)";
  case EM_INT: return "integer";
  case EM_BOOL | EM_INT: return "boolean or integer";
  case EM_SINT | EM_FLOAT | EM_COMPLEX: return "signed integer, floating-point or complex";
  case EM_SINT | EM_FLOAT: return "signed integer or floating-point";
  case EM_FLOAT: return "floating-point";
  case EM_COMPLEX: return "complex";
  case EM_FLOAT | EM_COMPLEX: return "floating-point or complex";
  case EM_INT | EM_FLOAT | EM_COMPLEX: return "integer, floating-point or complex";
  case EM_INT | EM_FLOAT: return "integer or floating-point";
  case EM_BOOL | EM_INT | EM_FLOAT: return "boolean, integer or floating-point";
  default: return "supported";
  }
}

/* ------------------------------------------------------------------ */
/* Strings. */

enum { MAX_SHOWN = 160 };

static const char *shorten(Context *c, const char *s) {
  if (!s) return "<null>";
  size_t n = strlen(s);
  if (n <= MAX_SHOWN) return s;
  return arena_printf(&c->arena, "%.*s...", MAX_SHOWN - 3, s);
}

const char *vo_type_str(Context *c, const Type *t) {
  if (!t) return "<missing>";
  return shorten(c, type_to_string(c, t));
}

const char *vo_attr_str(Context *c, const Attr *a) {
  if (!a) return "<missing>";
  return shorten(c, attr_to_string(c, a));
}

const char *vo_list_str(Context *c, int n, const int64_t *v) {
  if (n <= 0 || !v) return "[]";
  int shown = n > 24 ? 24 : n;
  size_t cap = (size_t)shown * 22 + 16;
  char *buf = arena_alloc(&c->arena, cap);
  size_t len = 0;
  buf[len++] = '[';
  for (int i = 0; i < shown; i++) {
    if (v[i] == DIM_DYNAMIC) len += (size_t)snprintf(buf + len, cap - len, "%s?", i ? ", " : "");
    else len += (size_t)snprintf(buf + len, cap - len, "%s%" PRId64, i ? ", " : "", v[i]);
  }
  snprintf(buf + len, cap - len, "%s]", shown < n ? ", ..." : "");
  return buf;
}

const char *vo_shape_str(Context *c, const Type *t) {
  if (!vo_is_tensor(t)) return "<not a tensor>";
  if (t->rank < 0) return "[*]";
  return vo_list_str(c, t->rank, t->dims);
}

const char *vo_i128_str(Context *c, __int128 v) {
  char tmp[48];
  int i = (int)sizeof tmp - 1;
  tmp[i] = 0;
  bool neg = v < 0;
  unsigned __int128 u = neg ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
  do {
    tmp[--i] = (char)('0' + (int)(u % 10));
    u /= 10;
  } while (u && i > 1);
  if (neg) tmp[--i] = '-';
  return arena_strdup(&c->arena, tmp + i);
}

/* ------------------------------------------------------------------ */
/* Operand / result checks. */

static bool check_value(Context *c, const Op *op, const char *what, int i, const Type *t, unsigned mask) {
  if (!t) return false;
  if (t->kind != TY_TENSOR) {
    op_error(c, op, "%s #%d must be tensor of %s values, but got '%s'", what, i, vo_mask_desc(mask),
             vo_type_str(c, t));
    return false;
  }
  if (!vo_builtin_elem(t)) return true;
  if (!(vo_elem_mask(t->elem) & mask)) {
    op_error(c, op, "%s #%d must be tensor of %s values, but got '%s'", what, i, vo_mask_desc(mask),
             vo_type_str(c, t));
    return false;
  }
  return true;
}

bool vo_check_operand(Context *c, const Op *op, int i, unsigned mask) {
  return check_value(c, op, "operand", i, vo_operand_type(op, i), mask);
}

bool vo_check_result(Context *c, const Op *op, int i, unsigned mask) {
  if (c->infer && !vo_result_type(op, i)) return true; /* inferring: no results yet */
  return check_value(c, op, "result", i, vo_result_type(op, i), mask);
}

bool vo_require_tensor_operand(Context *c, const Op *op, int i) { return vo_check_operand(c, op, i, EM_ANY); }
bool vo_require_tensor_result(Context *c, const Op *op, int i) { return vo_check_result(c, op, i, EM_ANY); }

/* ------------------------------------------------------------------ */
/* Attributes. */

AttrRead vo_i64_list_attr(Context *c, const Op *op, const char *name, bool required, I64List *out) {
  const Attr *a = op_attr(op, name);
  if (!a) {
    if (required) op_error(c, op, "requires attribute '%s'", name);
    return AR_ABSENT;
  }
  int n = 0;
  const int64_t *v = NULL;
  if (!attr_as_i64_list(a, &n, &v, &c->arena) || n < 0) {
    op_error(c, op, "attribute '%s' must be a 1-dimensional list of integers (array<i64: ...>), but got %s", name,
             vo_attr_str(c, a));
    return AR_BAD;
  }
  out->n = n;
  out->v = v;
  return AR_OK;
}

AttrRead vo_int_attr(Context *c, const Op *op, const char *name, bool required, int64_t *out) {
  const Attr *a = op_attr(op, name);
  if (!a) {
    if (required) op_error(c, op, "requires attribute '%s'", name);
    return AR_ABSENT;
  }
  if (!attr_as_int(a, out)) {
    op_error(c, op, "attribute '%s' must be an integer, but got %s", name, vo_attr_str(c, a));
    return AR_BAD;
  }
  return AR_OK;
}

AttrRead vo_bool_attr(Context *c, const Op *op, const char *name, bool required, bool *out) {
  const Attr *a = op_attr(op, name);
  if (!a) {
    if (required) op_error(c, op, "requires attribute '%s'", name);
    return AR_ABSENT;
  }
  if (a->kind == ATTR_BOOL) {
    *out = a->u.b;
    return AR_OK;
  }
  if (a->kind == ATTR_UNIT) { /* a bare flag: {use_global_device_ids} */
    *out = true;
    return AR_OK;
  }
  if (a->kind == ATTR_INT && a->type && a->type->kind == TY_ELEM && a->type->elem == ELEM_I1) {
    *out = a->u.i != 0;
    return AR_OK;
  }
  op_error(c, op, "attribute '%s' must be a bool (true or false), but got %s", name, vo_attr_str(c, a));
  return AR_BAD;
}

AttrRead vo_bool_list_attr(Context *c, const Op *op, const char *name, bool required, int *n, bool **v) {
  const Attr *a = op_attr(op, name);
  if (!a) {
    if (required) op_error(c, op, "requires attribute '%s'", name);
    return AR_ABSENT;
  }
  if (!attr_as_bool_list(a, n, v, &c->arena)) {
    op_error(c, op, "attribute '%s' must be a list of booleans (array<i1: ...>), but got %s", name,
             vo_attr_str(c, a));
    return AR_BAD;
  }
  return AR_OK;
}

AttrRead vo_pairs_attr(Context *c, const Op *op, const char *name, bool required, int *n, const int64_t **pairs) {
  const Attr *a = op_attr(op, name);
  if (!a) {
    if (required) op_error(c, op, "requires attribute '%s'", name);
    return AR_ABSENT;
  }
  if (a->kind == ATTR_DENSE && a->type && a->type->kind == TY_TENSOR && !a->type->elem_opaque &&
      a->type->elem < ELEM_COUNT && elem_is_int(a->type->elem) && a->type->rank == 2 && a->type->dims &&
      a->type->dims[1] == 2 && a->type->dims[0] >= 0 && a->type->dims[0] <= (1 << 20)) {
    int64_t rows = a->type->dims[0];
    int64_t *v = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(2 * rows + 1));
    for (int64_t i = 0; i < 2 * rows; i++) v[i] = dense_get_int(a, i);
    *n = (int)rows;
    *pairs = v;
    return AR_OK;
  }
  if (a->kind == ATTR_ARRAY && a->u.array.n <= (1 << 20)) {
    int rows = a->u.array.n;
    int64_t *v = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(2 * rows + 1));
    bool ok = true;
    for (int i = 0; i < rows && ok; i++) {
      int m = 0;
      const int64_t *pv = NULL;
      if (!a->u.array.items[i] || !attr_as_i64_list(a->u.array.items[i], &m, &pv, &c->arena) || m != 2) ok = false;
      else {
        v[2 * i] = pv[0];
        v[2 * i + 1] = pv[1];
      }
    }
    if (ok) {
      *n = rows;
      *pairs = v;
      return AR_OK;
    }
  }
  op_error(c, op, "attribute '%s' must be a 2-dimensional Nx2 tensor of integers, but got %s", name,
           vo_attr_str(c, a));
  return AR_BAD;
}

AttrRead vo_enum_attr(Context *c, const Op *op, const char *name, const char *enum_name,
                      const char *const *valid, bool required, const char **out) {
  const Attr *a = op_attr(op, name);
  if (!a) {
    if (required) op_error(c, op, "requires attribute '%s'", name);
    return AR_ABSENT;
  }
  const char *v = NULL;
  if (a->kind == ATTR_ENUM && a->u.enm.value &&
      (!a->u.enm.enum_name || !enum_name || strcmp(a->u.enm.enum_name, enum_name) == 0))
    v = a->u.enm.value;
  if (!v) {
    op_error(c, op, "attribute '%s' must be a %s enum, but got %s", name, enum_name, vo_attr_str(c, a));
    return AR_BAD;
  }
  for (const char *const *p = valid; *p; p++)
    if (strcmp(*p, v) == 0) {
      if (out) *out = v;
      return AR_OK;
    }
  char buf[256];
  size_t len = 0;
  buf[0] = 0;
  for (const char *const *p = valid; *p && len < sizeof buf - 40; p++)
    len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", p == valid ? "" : ", ", *p);
  op_error(c, op, "attribute '%s' has invalid %s value '%s' (expected one of %s)", name, enum_name, v, buf);
  return AR_BAD;
}

AttrRead vo_dialect_attr(Context *c, const Op *op, const char *name, const char *dialect_name, bool required,
                         const Attr **out) {
  const Attr *a = op_attr(op, name);
  if (!a) {
    if (required) op_error(c, op, "requires attribute '%s'", name);
    return AR_ABSENT;
  }
  if (a->kind != ATTR_DIALECT || !a->u.dialect.name || strcmp(a->u.dialect.name, dialect_name) != 0) {
    op_error(c, op, "attribute '%s' must be a #%s<...> attribute, but got %s", name, dialect_name,
             vo_attr_str(c, a));
    return AR_BAD;
  }
  *out = a;
  return AR_OK;
}

bool vo_dialect_list(Context *c, const Op *op, const Attr *d, const char *key, I64List *out) {
  out->n = 0;
  out->v = NULL;
  const Attr *p = dialect_param(d, key);
  if (!p) return true;
  int n = 0;
  const int64_t *v = NULL;
  if (!attr_as_i64_list(p, &n, &v, &c->arena) || n < 0) {
    op_error(c, op, "'%s' of %s must be a list of integers, but got %s", key, d->u.dialect.name,
             vo_attr_str(c, p));
    return false;
  }
  if (n > RULES_MAX_RANK) {
    op_error(c, op, "'%s' of %s has %d entries, more than the %d supported", key, d->u.dialect.name, n,
             RULES_MAX_RANK);
    return false;
  }
  for (int i = 0; i < n; i++)
    if (v[i] == DIM_DYNAMIC) {
      op_error(c, op, "'%s' of %s must not contain '?'", key, d->u.dialect.name);
      return false;
    }
  out->n = n;
  out->v = v;
  return true;
}

bool vo_dialect_int(Context *c, const Op *op, const Attr *d, const char *key, int64_t deflt, int64_t *out) {
  const Attr *p = dialect_param(d, key);
  *out = deflt;
  if (!p) return true;
  if (p->kind == ATTR_INT) {
    *out = p->u.i;
    return true;
  }
  /* [3] is accepted as well as 3 */
  int n = 0;
  const int64_t *v = NULL;
  if (attr_as_i64_list(p, &n, &v, &c->arena) && n == 1 && v[0] != DIM_DYNAMIC) {
    *out = v[0];
    return true;
  }
  op_error(c, op, "'%s' of %s must be an integer, but got %s", key, d->u.dialect.name, vo_attr_str(c, p));
  return false;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

bool vo_check_dims(Context *c, const Op *op, const char *what, const I64List *l, int64_t bound, bool unique) {
  bool ok = true;
  if (l->n > 64) { /* long lists: sort a copy instead of the quadratic scan */
    int64_t *v = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)l->n);
    memcpy(v, l->v, sizeof(int64_t) * (size_t)l->n);
    qsort(v, (size_t)l->n, sizeof(int64_t), cmp_i64);
    if (v[0] < 0 || v[l->n - 1] >= bound) {
      int64_t d = v[0] < 0 ? v[0] : v[l->n - 1];
      if (d == DIM_DYNAMIC) op_error(c, op, "%s must not contain '?'", what);
      else
        op_error(c, op, "%s contains out-of-range dimension %" PRId64 " (must be in [0, %" PRId64 "))", what, d,
                 bound);
      return false;
    }
    for (int i = 1; unique && i < l->n; i++)
      if (v[i] == v[i - 1]) {
        op_error(c, op, "%s contains duplicate dimension %" PRId64, what, v[i]);
        return false;
      }
    return true;
  }
  for (int i = 0; i < l->n; i++) {
    int64_t d = l->v[i];
    if (d < 0 || d >= bound) {
      if (d == DIM_DYNAMIC)
        op_error(c, op, "%s must not contain '?'", what);
      else
        op_error(c, op, "%s contains out-of-range dimension %" PRId64 " (must be in [0, %" PRId64 "))", what, d,
                 bound);
      ok = false;
      continue;
    }
    if (unique)
      for (int j = 0; j < i; j++)
        if (l->v[j] == d) {
          op_error(c, op, "%s contains duplicate dimension %" PRId64, what, d);
          ok = false;
          break;
        }
  }
  return ok;
}

bool vo_is_sorted(const I64List *l) {
  for (int i = 1; i < l->n; i++)
    if (l->v[i - 1] > l->v[i]) return false;
  return true;
}

bool vo_list_contains(const I64List *l, int64_t v) {
  for (int i = 0; i < l->n; i++)
    if (l->v[i] == v) return true;
  return false;
}

/* ------------------------------------------------------------------ */
/* Inference. */

bool vo_infer_shape(Context *c, int res_i, int rank, const int64_t *dims) {
  InferSink *s = c->infer;
  if (!s) return false;
  if (res_i >= 0 && res_i < s->max) {
    int64_t *d = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(rank + 1));
    if (rank > 0) memcpy(d, dims, sizeof(int64_t) * (size_t)rank);
    s->rank[res_i] = rank;
    s->dims[res_i] = d;
  }
  return true;
}

/* ------------------------------------------------------------------ */
/* Regions. */

Block *vo_region_block(const Op *op, int r) {
  if (!op || r < 0 || r >= op->nregions || !op->regions) return NULL;
  const Region *reg = &op->regions[r];
  if (reg->nblocks < 1 || !reg->blocks) return NULL;
  return reg->blocks[0];
}

const Op *vo_block_return(const Block *b) {
  if (!b || !b->last) return NULL;
  if (b->last->kind == OP_RETURN || b->last->kind == OP_FUNC_RETURN) return b->last;
  return NULL;
}

bool vo_promotable(ElemKind x, ElemKind y) {
  if (x >= ELEM_COUNT || y >= ELEM_COUNT) return true;
  if (x == y) return true;
  unsigned mx = vo_elem_mask(x), my = vo_elem_mask(y);
  if (mx == EM_BOOL || my == EM_BOOL) return mx == my;
  if ((mx & EM_INT) && (my & EM_INT)) return elem_bits(x) <= elem_bits(y);
  if (mx == EM_FLOAT && my == EM_FLOAT) return elem_bits(x) <= elem_bits(y);
  if (mx == EM_COMPLEX && my == EM_COMPLEX) return elem_bits(x) <= elem_bits(y);
  return false;
}

bool vo_check_reducer(Context *c, const Op *op, int region, const char *what, int n, const Type *const *in_types,
                      ElemKind *out_elems) {
  for (int i = 0; i < n; i++) out_elems[i] = ELEM_COUNT;
  Block *b = vo_region_block(op, region);
  if (!b) return true; /* region structure is the generic verifier's job */
  bool ok = true;
  if (b->nargs != 2 * n) {
    op_error(c, op, "%s must take %d parameters, but takes %d parameter(s)", what, 2 * n, b->nargs);
    return false;
  }
  for (int i = 0; i < 2 * n; i++) {
    const Type *t = b->args[i].type;
    if (!t) continue;
    if (t->kind != TY_TENSOR || t->rank > 0) {
      op_error(c, op, "%s parameter #%d must be a 0-dimensional tensor, but got '%s'", what, i,
               vo_type_str(c, t));
      return false; /* the others usually share the mistake */
    }
  }
  for (int i = 0; i < n; i++) {
    const Type *acc = b->args[i].type, *val = b->args[n + i].type;
    if (acc && val && !vo_types_compatible(acc, val)) {
      op_error(c, op, "%s parameters #%d and #%d must have the same type, but got '%s' and '%s'", what, i, n + i,
               vo_type_str(c, acc), vo_type_str(c, val));
      ok = false;
    }
    ElemKind e = vo_elem(acc);
    ElemKind ie = vo_elem(in_types ? in_types[i] : NULL);
    if (e < ELEM_COUNT && ie < ELEM_COUNT && !vo_promotable(ie, e)) {
      op_error(c, op,
               "element type of %s parameter #%d is expected to be promotable from the element type %s of "
               "input #%d, but got %s",
               what, i, elem_name(ie), i, elem_name(e));
      ok = false;
    }
    const QuantType *qa = type_quant(acc), *qi = type_quant(in_types ? in_types[i] : NULL);
    if (qa && qi && (qa->expressed != qi->expressed || qi->bits > qa->bits)) { /* is_promotable of quantized types */
      op_error(c, op,
               "element type of %s parameter #%d is expected to be promotable from the element type of input #%d "
               "(same expressed type, storage no narrower), but got '%s' and '%s'",
               what, i, i, vo_type_str(c, acc), vo_type_str(c, in_types[i]));
      ok = false;
    }
    out_elems[i] = e;
  }
  const Op *ret = vo_block_return(b);
  if (!ret) return ok;
  if (ret->noperands != n) {
    op_error(c, op, "%s must return %d value(s), but returns %d", what, n, ret->noperands);
    return false;
  }
  for (int i = 0; i < n; i++) {
    const Type *rt = vo_operand_type(ret, i), *acc = b->args[i].type;
    if (!rt || !acc) continue;
    if (!vo_types_compatible(rt, acc)) {
      op_error(c, op, "%s must return '%s' as value #%d (the type of parameter #%d), but returns '%s'", what,
               vo_type_str(c, acc), i, i, vo_type_str(c, rt));
      ok = false;
    }
  }
  return ok;
}

bool vo_constant_ints(Context *c, const Op *op, int i, I64List *out) {
  const Value *v = i < op->noperands ? op->operands[i] : NULL;
  const Op *d = v ? v->def : NULL;
  if (!d || d->kind != OP_CONSTANT) return false;
  const Attr *a = op_attr(d, "value");
  if (!a || a->kind != ATTR_DENSE || !a->type || a->type->kind != TY_TENSOR || a->type->rank != 1 ||
      !(elem_is_int(a->type->elem) || a->type->elem == ELEM_INDEX))
    return false;
  int64_t n = dense_num_elements(a);
  if (n < 0 || n > 4096) return false;
  int64_t *vals = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(n + 1));
  for (int64_t k = 0; k < n; k++) vals[k] = dense_get_int(a, k);
  out->n = (int)n;
  out->v = vals;
  return true;
}
