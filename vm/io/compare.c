/* The comparisons of the check ops (vm_compare in vm/io/io.h).
 *
 * Floats are compared in their own type: the ULP distance of two values is
 * the distance of their encodings on a monotone integer line (sign and
 * magnitude mapped to two's complement, so -0 and +0 coincide and the
 * smallest subnormals are one ULP from zero); two NaNs are 0 apart, a NaN
 * and a number, or an infinity and anything else, infinitely far.  Complex
 * values compare their real and imaginary parts separately; the worse part
 * counts.  Integers compare exactly (VM_CMP_CLOSE: their distance counts as
 * ULPs).  The detail names the mismatch count and the worst element. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "vm/dtype.h"
#include "vm/io/io_internal.h"

#define ULP_INFINITE UINT64_MAX

/* How one element (or complex part) compares. */
typedef struct Verdict {
  bool ok;
  bool too_close; /* VM_CMP_CLOSE: below min_ulp */
  double score;   /* how bad, for picking the worst element */
  uint64_t ulp;   /* ULP or integer distance */
  double diff;    /* VM_CMP_ALMOST_EQ on floats: |actual - expected| */
} Verdict;

typedef struct Scan {
  int kind;
  double tolerance;
  uint64_t min_ulp, max_ulp;
  int64_t mismatches;
  int64_t worst; /* -1: none yet */
  Verdict worst_verdict;
} Scan;

static uint64_t abs_distance_i64(int64_t a, int64_t b) {
  return a >= b ? (uint64_t)a - (uint64_t)b : (uint64_t)b - (uint64_t)a;
}

/* Position of a float encoding on the monotone integer line. */
static int64_t monotone(int elem, uint64_t bits) {
  if (elem == TPUB_F8E8M0FNU) return (int64_t)bits; /* no sign bit */
  int width = vm_io_float_width(elem);
  uint64_t sign_bit = (uint64_t)1 << (width - 1);
  int64_t magnitude = (int64_t)(bits & (sign_bit - 1));
  return (bits & sign_bit) ? -magnitude : magnitude;
}

/* ULP distance of two real float encodings of type elem. */
static uint64_t ulp_distance(int elem, uint64_t a, uint64_t b) {
  if (a == b) return 0;
  double va = vm_float_bits_to_f64(elem, a), vb = vm_float_bits_to_f64(elem, b);
  if (isnan(va) || isnan(vb)) return isnan(va) && isnan(vb) ? 0 : ULP_INFINITE;
  if (isinf(va) || isinf(vb)) return va == vb ? 0 : ULP_INFINITE;
  return abs_distance_i64(monotone(elem, a), monotone(elem, b));
}

/* Judges a distance d (ULPs, or integer difference) by the kind. */
static Verdict judge_distance(const Scan *s, uint64_t d, bool exact) {
  Verdict v = {.ulp = d};
  if (exact || s->kind != VM_CMP_CLOSE) {
    v.ok = d == 0;
    v.score = (double)d;
  } else if (d > s->max_ulp) {
    v.score = (double)(d - s->max_ulp);
  } else if (d < s->min_ulp) {
    v.too_close = true;
    v.score = (double)(s->min_ulp - d);
  } else {
    v.ok = true;
  }
  return v;
}

/* Compares one real float part. */
static Verdict compare_float(const Scan *s, int elem, uint64_t a, uint64_t e) {
  if (s->kind != VM_CMP_ALMOST_EQ) return judge_distance(s, ulp_distance(elem, a, e), false);
  double va = vm_float_bits_to_f64(elem, a), ve = vm_float_bits_to_f64(elem, e);
  Verdict v = {.ok = true};
  if ((isnan(va) && isnan(ve)) || va == ve) return v;
  v.diff = fabs(va - ve); /* NaN against a number, or mixed infinities: inf or NaN */
  if (isnan(v.diff)) v.diff = INFINITY;
  v.ok = v.diff <= s->tolerance;
  v.score = v.diff;
  return v;
}

/* The worse of two verdicts (the first on a tie). */
static Verdict worse(Verdict a, Verdict b) {
  if (a.ok) return b;
  if (b.ok) return a;
  return b.score > a.score ? b : a;
}

static void record(Scan *s, int64_t i, Verdict v) {
  if (v.ok) return;
  s->mismatches++;
  if (s->worst < 0 || v.score > s->worst_verdict.score) {
    s->worst = i;
    s->worst_verdict = v;
  }
}

/* Compares all elements of the tensors. */
static void scan_elements(Scan *s, int elem, const void *act, const void *exp, int64_t count) {
  int cls = vm_elem_class(elem);
  if (cls == TPUB_CLASS_COMPLEX) {
    int part = vm_elem_complex_part(elem);
    for (int64_t i = 0; i < count; i++) {
      Verdict re = compare_float(s, part, vm_load_bits(part, act, 2 * i), vm_load_bits(part, exp, 2 * i));
      Verdict im =
          compare_float(s, part, vm_load_bits(part, act, 2 * i + 1), vm_load_bits(part, exp, 2 * i + 1));
      record(s, i, worse(re, im));
    }
  } else if (cls == TPUB_CLASS_FLOAT) {
    if (elem == TPUB_F32 && s->kind != VM_CMP_ALMOST_EQ) {
      const uint32_t *a = act, *e = exp;
      for (int64_t i = 0; i < count; i++)
        if (a[i] != e[i] || s->min_ulp > 0) record(s, i, judge_distance(s, ulp_distance(elem, a[i], e[i]), false));
      return;
    }
    for (int64_t i = 0; i < count; i++)
      record(s, i, compare_float(s, elem, vm_load_bits(elem, act, i), vm_load_bits(elem, exp, i)));
  } else {
    bool is_signed = cls == TPUB_CLASS_INT;
    int bytes = vm_elem_bytes(elem);
    int shift = 64 - 8 * bytes;
    for (int64_t i = 0; i < count; i++) {
      uint64_t a = vm_load_bits(elem, act, i), e = vm_load_bits(elem, exp, i);
      uint64_t d;
      if (is_signed) {
        /* Sign-extend the container. */
        int64_t sa = (int64_t)(a << shift) >> shift, se = (int64_t)(e << shift) >> shift;
        d = abs_distance_i64(sa, se);
      } else {
        d = a >= e ? a - e : e - a;
      }
      record(s, i, judge_distance(s, d, s->kind != VM_CMP_CLOSE));
    }
  }
}

/* "[2, 7]": the multi-dimensional index of flat element i. */
static void format_index(char *buf, size_t n, const VmType *t, int64_t i) {
  int64_t coord[TPUB_MAX_RANK];
  int rank = t->rank <= TPUB_MAX_RANK ? t->rank : 0;
  for (int d = rank - 1; d >= 0; d--) {
    int64_t dim = t->dims[d] > 0 ? t->dims[d] : 1;
    coord[d] = i % dim;
    i /= dim;
  }
  size_t len = (size_t)snprintf(buf, n, "[");
  for (int d = 0; d < rank && len < n; d++)
    len += (size_t)snprintf(buf + len, n - len, "%s%" PRId64, d ? ", " : "", coord[d]);
  if (len < n) snprintf(buf + len, n - len, "]");
}

/* The parenthesised reason of the worst element ("" when obvious). */
static void format_reason(char *buf, size_t n, const Scan *s, int elem) {
  const Verdict *v = &s->worst_verdict;
  bool is_int = vm_elem_class(elem) == TPUB_CLASS_INT || vm_elem_class(elem) == TPUB_CLASS_UINT;
  char ulp[32];
  if (v->ulp == ULP_INFINITE && !is_int) snprintf(ulp, sizeof ulp, "inf");
  else snprintf(ulp, sizeof ulp, "%" PRIu64, v->ulp);
  if (s->kind == VM_CMP_CLOSE) {
    const char *unit = is_int ? "apart" : "ULP";
    if (v->too_close)
      snprintf(buf, n, " (%s %s < min %" PRIu64 ")", ulp, unit, s->min_ulp);
    else
      snprintf(buf, n, " (%s %s > max %" PRIu64 ")", ulp, unit, s->max_ulp);
  } else if (is_int) {
    buf[0] = 0;
  } else if (s->kind == VM_CMP_ALMOST_EQ) {
    snprintf(buf, n, " (abs diff %.3g > tolerance %g)", v->diff, s->tolerance);
  } else {
    snprintf(buf, n, " (%s ULP)", ulp);
  }
}

bool vm_compare(int kind, double tolerance, int64_t min_ulp, int64_t max_ulp, const VmTensor *actual,
                const VmTensor *expected, char *detail, size_t detaillen) {
  char dummy[1];
  if (!detail || detaillen == 0) {
    detail = dummy;
    detaillen = sizeof dummy;
  }
  detail[0] = 0;
  const VmType *at = actual->type, *et = expected->type;
  char abuf[512], ebuf[512];
  vm_io_format_type(abuf, sizeof abuf, at);
  vm_io_format_type(ebuf, sizeof ebuf, et);
  if (!at || !et || at->kind != TPUB_TY_TENSOR || et->kind != TPUB_TY_TENSOR) {
    snprintf(detail, detaillen, "cannot compare %s with %s", abuf, ebuf);
    return false;
  }
  bool same = at->elem == et->elem && at->rank == et->rank;
  for (int d = 0; same && d < at->rank; d++) same = at->dims[d] == et->dims[d];
  if (!same) {
    snprintf(detail, detaillen, "%s differ: actual %s, expected %s",
             at->elem != et->elem ? "element types" : "shapes", abuf, ebuf);
    return false;
  }
  if (at->count <= 0) return true;
  Scan s = {
      .kind = kind,
      .tolerance = tolerance,
      .min_ulp = (uint64_t)min_ulp, /* the bits of unsigned 64-bit bounds */
      .max_ulp = (uint64_t)max_ulp,
      .worst = -1,
  };
  scan_elements(&s, at->elem, actual->data, expected->data, at->count);
  if (s.mismatches == 0) return true;
  char where[TPUB_MAX_RANK * 24 + 16], a_text[VM_ELEM_TEXT_MAX], e_text[VM_ELEM_TEXT_MAX], reason[128];
  where[0] = 0;
  if (at->rank > 0) {
    char index[TPUB_MAX_RANK * 24 + 4];
    format_index(index, sizeof index, at, s.worst);
    snprintf(where, sizeof where, "; %s %s", s.mismatches > 1 ? "worst at" : "at", index);
  }
  vm_io_format_element(a_text, at->elem, actual->data, s.worst);
  vm_io_format_element(e_text, at->elem, expected->data, s.worst);
  format_reason(reason, sizeof reason, &s, at->elem);
  snprintf(detail, detaillen, "%" PRId64 " of %" PRId64 " element%s differ%s%s: expected %s, actual %s%s",
           s.mismatches, at->count, at->count == 1 ? "" : "s", s.mismatches == 1 ? "s" : "", where, e_text,
           a_text, reason);
  return false;
}
