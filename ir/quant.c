/* Uniform quantized element types: parsing, canonical spelling, checks. */
#include "ir/quant.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define QUANT_PREFIX "!quant.uniform<"
#define QUANT_MAX_SCALES 1000000

typedef struct QCursor {
  const char *s, *end, *p;
  char *err;
  size_t errn;
  bool failed;
} QCursor;

static bool qfail(QCursor *c, const char *msg) {
  if (!c->failed) snprintf(c->err, c->errn, "%s", msg);
  c->failed = true;
  return false;
}

static void qspace(QCursor *c) {
  while (c->p < c->end && isspace((unsigned char)*c->p)) c->p++;
}

static bool qaccept(QCursor *c, char ch) {
  qspace(c);
  if (c->p < c->end && *c->p == ch) {
    c->p++;
    return true;
  }
  return false;
}

static bool qexpect(QCursor *c, char ch) {
  if (qaccept(c, ch)) return true;
  char msg[48];
  snprintf(msg, sizeof msg, "expected '%c' in quantized type", ch);
  return qfail(c, msg);
}

static bool qint(QCursor *c, int64_t *v) {
  qspace(c);
  const char *q = c->p;
  if (q < c->end && (*q == '-' || *q == '+')) q++;
  if (q >= c->end || !isdigit((unsigned char)*q)) return qfail(c, "expected integer in quantized type");
  char buf[32];
  size_t n = 0;
  for (q = c->p; q < c->end && n + 1 < sizeof buf && (isdigit((unsigned char)*q) || (q == c->p && (*q == '-' || *q == '+')));
       q++)
    buf[n++] = *q;
  buf[n] = 0;
  errno = 0;
  long long x = strtoll(buf, NULL, 10);
  if (errno == ERANGE) return qfail(c, "integer out of range in quantized type");
  *v = x;
  c->p = q;
  return true;
}

static bool qdouble(QCursor *c, double *v) {
  qspace(c);
  char buf[64];
  size_t n = 0;
  const char *q = c->p;
  while (q < c->end && n + 1 < sizeof buf && (isalnum((unsigned char)*q) || *q == '.' || *q == '-' || *q == '+')) {
    if ((*q == '-' || *q == '+') && n > 0 && buf[n - 1] != 'e' && buf[n - 1] != 'E') break;
    buf[n++] = *q++;
  }
  buf[n] = 0;
  char *e;
  *v = strtod(buf, &e);
  if (n == 0 || *e || !(isdigit((unsigned char)buf[0]) || buf[0] == '-' || buf[0] == '+' || buf[0] == '.'))
    return qfail(c, "expected floating point scale in quantized type");
  c->p = q;
  return true;
}

void quant_storage_range(int bits, bool is_signed, int64_t *min, int64_t *max) {
  if (is_signed) {
    *min = -(int64_t)(UINT64_C(1) << (bits - 1));
    *max = (int64_t)(UINT64_C(1) << (bits - 1)) - 1;
  } else {
    *min = 0;
    *max = (int64_t)(UINT64_C(1) << bits) - 1;
  }
}

/* STORAGE[<MIN:MAX>] */
static bool parse_storage(QCursor *c, QuantType *q) {
  qspace(c);
  const char *w = c->p;
  while (c->p < c->end && isalnum((unsigned char)*c->p)) c->p++;
  size_t n = (size_t)(c->p - w), pl = 0;
  while (pl < n && pl < 2 && isalpha((unsigned char)w[pl])) pl++;
  bool ok = (pl == 1 && (w[0] == 'i' || w[0] == 'u')) || (pl == 2 && (w[0] == 's' || w[0] == 'u') && w[1] == 'i');
  if (!ok || pl == n) {
    c->p = w;
    return qfail(c, "illegal storage type prefix (expected iN, siN, uN or uiN)");
  }
  int bits = 0;
  for (size_t i = pl; i < n; i++) {
    if (!isdigit((unsigned char)w[i]) || bits > 1000) return qfail(c, "illegal storage type prefix");
    bits = bits * 10 + (w[i] - '0');
  }
  if (bits < 1 || bits > 32) {
    c->p = w;
    return qfail(c, "illegal storage type size (1 to 32 bits)");
  }
  memcpy(q->prefix, w, pl);
  q->prefix[pl] = 0;
  q->bits = bits;
  q->is_signed = w[0] != 'u';
  static const ElemKind sk[] = {ELEM_I1, ELEM_I2, ELEM_I4, ELEM_I8, ELEM_I16, ELEM_I32};
  static const ElemKind uk[] = {ELEM_UI1, ELEM_UI2, ELEM_UI4, ELEM_UI8, ELEM_UI16, ELEM_UI32};
  int idx = bits <= 1 ? 0 : bits <= 2 ? 1 : bits <= 4 ? 2 : bits <= 8 ? 3 : bits <= 16 ? 4 : 5;
  q->storage = q->is_signed ? sk[idx] : uk[idx];
  quant_storage_range(bits, q->is_signed, &q->storage_min, &q->storage_max);
  if (qaccept(c, '<')) {
    const char *at = c->p;
    int64_t mn, mx;
    if (!qint(c, &mn) || !qexpect(c, ':') || !qint(c, &mx) || !qexpect(c, '>')) return false;
    if (mn < q->storage_min || mx > q->storage_max || mn >= mx) {
      c->p = at;
      return qfail(c, "illegal storage min and storage max (must lie within the storage type, min < max)");
    }
    q->storage_min = mn;
    q->storage_max = mx;
  }
  return true;
}

/* One SCALE[:ZERO_POINT]. */
static bool parse_param(QCursor *c, const QuantType *q, double *scale, int64_t *zp) {
  const char *at = (qspace(c), c->p);
  if (!qdouble(c, scale)) return false;
  double lo = q->expressed == ELEM_F64 ? 4.9406564584124654e-324 : float_bits_to_double(q->expressed, 1);
  double hi = elem_float_max(q->expressed);
  if (!(*scale >= lo && *scale <= hi)) {
    c->p = at;
    char msg[96];
    snprintf(msg, sizeof msg, "scale %e out of expressed type range", *scale);
    return qfail(c, msg);
  }
  *zp = 0;
  if (qaccept(c, ':')) return qint(c, zp);
  return true;
}

static bool parse_params(QCursor *c, Arena *a, QuantType *q) {
  bool braced = qaccept(c, '{');
  if (q->axis >= 0 && !braced) return qfail(c, "expected '{' before per-axis quantization parameters");
  if (q->axis < 0 && braced) return qfail(c, "per-tensor quantization takes one scale, not a list");
  size_t cap = 4;
  double *s = xrealloc(NULL, cap * sizeof *s);
  int64_t *z = xrealloc(NULL, cap * sizeof *z);
  int n = 0;
  bool ok = true;
  do {
    if ((size_t)n == cap) {
      cap *= 2;
      s = xrealloc(s, cap * sizeof *s);
      z = xrealloc(z, cap * sizeof *z);
    }
    ok = n < QUANT_MAX_SCALES && parse_param(c, q, &s[n], &z[n]);
    n++;
  } while (ok && braced && qaccept(c, ','));
  if (ok && braced) ok = qexpect(c, '}');
  if (ok) {
    q->nscales = n;
    q->scales = arena_dup(a, s, (size_t)n * sizeof *s);
    q->zero_points = arena_dup(a, z, (size_t)n * sizeof *z);
  }
  free(s);
  free(z);
  return ok;
}

bool quant_is_uniform_text(const char *text, size_t len) {
  size_t n = sizeof QUANT_PREFIX - 1;
  return len > n && memcmp(text, QUANT_PREFIX, n) == 0;
}

bool quant_parse(Arena *a, const char *text, size_t len, QuantType *out, size_t *err_off, char *err,
                 size_t errn) {
  QCursor c = {.s = text, .end = text + len, .p = text, .err = err, .errn = errn};
  memset(out, 0, sizeof *out);
  out->axis = -1;
  bool ok = quant_is_uniform_text(text, len) || qfail(&c, "expected !quant.uniform<");
  if (ok) c.p += sizeof QUANT_PREFIX - 1;
  ok = ok && parse_storage(&c, out) && qexpect(&c, ':');
  if (ok) {
    qspace(&c);
    const char *w = c.p;
    while (c.p < c.end && isalnum((unsigned char)*c.p)) c.p++;
    ElemKind k;
    if (!elem_from_name(w, (size_t)(c.p - w), &k) || !elem_is_float(k)) {
      c.p = w;
      ok = qfail(&c, "expressed type of a quantized type must be a floating point type");
    } else {
      out->expressed = k;
    }
  }
  if (ok && qaccept(&c, ':')) {
    const char *at = c.p;
    int64_t axis;
    ok = qint(&c, &axis);
    if (ok && (axis < 0 || axis > INT32_MAX)) {
      char msg[64];
      snprintf(msg, sizeof msg, "illegal quantized dimension: %lld", (long long)axis);
      c.p = at;
      ok = qfail(&c, msg);
    }
    if (ok) out->axis = (int)axis;
  }
  ok = ok && qexpect(&c, ',') && parse_params(&c, a, out) && qexpect(&c, '>');
  if (ok && (qspace(&c), c.p != c.end)) ok = qfail(&c, "unexpected text after quantized type");
  if (!ok) *err_off = (size_t)(c.p - text);
  return ok;
}

/* A scale in MLIR's %e form when that reads back exactly, else %.17g. */
static void format_scale(char *buf, size_t n, double v) {
  snprintf(buf, n, "%e", v);
  if (strtod(buf, NULL) == v) return;
  for (int prec = 9; prec <= 17; prec++) {
    snprintf(buf, n, "%.*e", prec - 1, v);
    if (strtod(buf, NULL) == v) return;
  }
}

char *quant_format(Arena *a, const QuantType *q) {
  size_t cap = 96 + (size_t)q->nscales * 48;
  char *buf = xrealloc(NULL, cap);
  size_t n = (size_t)snprintf(buf, cap, "%s%s%d", QUANT_PREFIX, q->prefix, q->bits);
  int64_t mn, mx;
  quant_storage_range(q->bits, q->is_signed, &mn, &mx);
  if (mn != q->storage_min || mx != q->storage_max)
    n += (size_t)snprintf(buf + n, cap - n, "<%lld:%lld>", (long long)q->storage_min, (long long)q->storage_max);
  n += (size_t)snprintf(buf + n, cap - n, ":%s", elem_name(q->expressed));
  if (q->axis >= 0) n += (size_t)snprintf(buf + n, cap - n, ":%d", q->axis);
  n += (size_t)snprintf(buf + n, cap - n, ", %s", q->axis >= 0 ? "{" : "");
  for (int i = 0; i < q->nscales; i++) {
    char s[40];
    format_scale(s, sizeof s, q->scales[i]);
    n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? "," : "", s);
    if (q->zero_points[i]) n += (size_t)snprintf(buf + n, cap - n, ":%lld", (long long)q->zero_points[i]);
  }
  snprintf(buf + n, cap - n, "%s>", q->axis >= 0 ? "}" : "");
  char *r = arena_strdup(a, buf);
  free(buf);
  return r;
}

static const unsigned char op_flags[OP_COUNT] = {
#define QUANT(id, flags, rule) [OP_##id] = (flags),
#include "ir/quant.def"
#undef QUANT
};

unsigned quant_op_flags(OpKind k) { return k < OP_COUNT ? op_flags[k] : 0; }

const QuantType *type_quant(const Type *t) {
  if (!t) return NULL;
  if (t->kind == TY_TENSOR && t->elem_opaque) t = t->elem_opaque;
  return t->kind == TY_OPAQUE ? t->quant : NULL;
}

bool type_is_quant(const Type *t) { return type_quant(t) != NULL; }

bool type_is_per_axis(const Type *t) {
  const QuantType *q = type_quant(t);
  return q && q->axis >= 0;
}

bool type_contains_quant(const Type *t) {
  if (type_is_quant(t)) return true;
  if (t->kind != TY_TUPLE && t->kind != TY_FUNC) return false;
  for (int i = 0; i < t->ninputs; i++)
    if (type_contains_quant(t->inputs[i])) return true;
  for (int i = 0; i < t->nresults; i++)
    if (type_contains_quant(t->results[i])) return true;
  return false;
}

Type *type_with_elem(Context *c, const Type *t, ElemKind e) {
  if (t->kind != TY_TENSOR) return type_elem(c, e);
  return type_tensor(c, e, t->rank, t->dims, t->encoding);
}

Type *type_quant_storage(Context *c, Type *t) {
  if (t->kind == TY_TUPLE || t->kind == TY_FUNC) {
    int n = t->ninputs + t->nresults;
    Type **v = arena_alloc(&c->arena, sizeof(Type *) * (size_t)(n ? n : 1));
    bool changed = false;
    for (int i = 0; i < n; i++) {
      Type *x = i < t->ninputs ? t->inputs[i] : t->results[i - t->ninputs];
      v[i] = type_quant_storage(c, x);
      changed |= v[i] != x;
    }
    if (!changed) return t;
    return t->kind == TY_TUPLE ? type_tuple(c, n, v) : type_func(c, t->ninputs, v, t->nresults, v + t->ninputs);
  }
  const QuantType *q = type_quant(t);
  return q ? type_with_elem(c, t, q->storage) : t;
}

const char *quant_check_tensor(const Type *t) {
  const QuantType *q = type_quant(t);
  if (!q) return NULL;
  if (q->prefix[0] == 's') return "quantized storage type must be signless (iN) or unsigned (uN, uiN), not siN";
  if (q->bits != 2 && q->bits != 4 && q->bits != 8 && q->bits != 16 && q->bits != 32)
    return "quantized storage type must be 2, 4, 8, 16 or 32 bits wide";
  for (int i = 0; i < q->nscales; i++)
    if (q->zero_points[i] < q->storage_min || q->zero_points[i] > q->storage_max)
      return "quantized zero point outside [storage_min, storage_max]";
  if (q->axis >= 0 && t->kind == TY_TENSOR && t->rank >= 0) {
    if (q->axis >= t->rank) return "quantization dimension must be less than the tensor's rank";
    if (t->dims[q->axis] != DIM_DYNAMIC && t->dims[q->axis] != q->nscales)
      return "number of per-axis scales must equal the size of the quantized dimension";
  }
  return NULL;
}
