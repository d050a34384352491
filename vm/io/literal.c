/* Host values as text: --input specs, printed results and types, and the
 * seeded random data of "random" inputs (vm/io/io.h).
 *
 * The text format follows IREE's iree-run-module, and vm_parse_input reads
 * back exactly what vm_print_value writes:
 *   TYPE=VALUES where TYPE is the dims joined by 'x', then the element type:
 *   "2x3xf32", "f32" (a scalar), "4xcomplex<f64>", "3xui8".
 *   rank 0: f32=1.5              rank 1: 3xi32=1 2 3
 *   rank 2: 2x2xf32=[1 2][3 4]   rank 3: 2x2x2xi8=[[1 2][3 4]][[5 6][7 8]]
 *   Every dimension but the outermost is bracketed; a tensor without
 *   elements prints nothing after '=' ("0x3xf32=").
 *   Elements: integers in decimal; i1 as true/false; real floats in the
 *   shortest decimal form that reads back to the same bits in their own type,
 *   with -0, inf, -inf and nan (every NaN prints as "nan": sign and payload
 *   are not kept; the parser takes bit patterns like 0x7fc00001 for those);
 *   complex as (re,im).  Tuples print as "(" members joined by ", " ")".
 * The parser is more lenient than the printer: commas or any white space
 * separate values, brackets may be omitted (they must balance), and one
 * value fills the whole tensor (splat). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "vm/dtype.h"
#include "vm/io/io_internal.h"

/* Longest token quoted back in an error message. */
#define QUOTE_MAX 40

/* ------------------------------------------------------------------ */
/* Floats. */

static bool is_hex_digit_run(const char *s, size_t len) {
  if (len == 0) return false;
  for (size_t i = 0; i < len; i++)
    if (!isxdigit((unsigned char)s[i])) return false;
  return true;
}

/* "0x" followed by hex digits only: a bit pattern, not a hex float. */
static bool is_bit_pattern(const char *text, size_t len) {
  return len > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X') &&
         is_hex_digit_run(text + 2, len - 2);
}

int vm_io_float_width(int elem) { return elem == TPUB_TF32 ? 19 : vm_elem_bits(elem); }

/* Parses the whole of text (len bytes, not NUL-terminated) as a real float
 * of type elem: decimal or hex float (strtod syntax; f32 with strtof), inf,
 * nan, or a bit pattern 0xHEX (hex digits only).  False when unparsable or
 * when the bit pattern is wider than the type. */
static bool vm_io_parse_float(int elem, const char *text, size_t len, uint64_t *bits) {
  char buf[128];
  if (len == 0 || len >= sizeof buf) return false;
  memcpy(buf, text, len);
  buf[len] = 0;
  if (is_bit_pattern(buf, len)) {
    int nbits = vm_io_float_width(elem);
    const char *digits = buf + 2;
    while (*digits == '0' && digits[1]) digits++;
    if (strlen(digits) > 16) return false;
    uint64_t b = strtoull(digits, NULL, 16);
    if (nbits < 64 && (b >> nbits) != 0) return false;
    *bits = b;
    return true;
  }
  /* strtod would skip leading white space; tokens never have any. */
  if (isspace((unsigned char)buf[0])) return false;
  char *end;
  if (elem == TPUB_F32) {
    float f = strtof(buf, &end);
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    *bits = u;
  } else {
    double d = strtod(buf, &end);
    if (elem == TPUB_F64) {
      memcpy(bits, &d, sizeof d);
    } else {
      *bits = vm_f64_to_float_bits(elem, d);
    }
  }
  return end == buf + len;
}

/* Shortest text of the real float `bits` of type elem that reads back
 * (vm_io_parse_float) to the same bits: "1.5", "-0", "inf", "nan". */
static void vm_io_format_float(char buf[VM_ELEM_TEXT_MAX], int elem, uint64_t bits) {
  double v = vm_float_bits_to_f64(elem, bits);
  if (isnan(v)) {
    strcpy(buf, "nan");
    return;
  }
  if (isinf(v)) {
    strcpy(buf, v < 0 ? "-inf" : "inf");
    return;
  }
  for (int prec = 1; prec <= 17; prec++) {
    int len = snprintf(buf, VM_ELEM_TEXT_MAX, "%.*g", prec, v);
    uint64_t back;
    if (len > 0 && vm_io_parse_float(elem, buf, (size_t)len, &back) && back == bits) {
      /* "65504" rather than "6.55e+04" when it is no longer. */
      char plain[VM_ELEM_TEXT_MAX];
      if (strchr(buf, 'e') && fabs(v) < 0x1p53 && v == nearbyint(v)) {
        int plain_len = snprintf(plain, sizeof plain, "%.0f", v);
        if (plain_len <= len && vm_io_parse_float(elem, plain, (size_t)plain_len, &back) && back == bits)
          memcpy(buf, plain, (size_t)plain_len + 1);
      }
      return;
    }
  }
  /* Only bit patterns that no value rounds to (non-canonical encodings). */
  snprintf(buf, VM_ELEM_TEXT_MAX, "%.17g", v);
}

void vm_io_format_element(char buf[VM_ELEM_TEXT_MAX], int elem, const void *data, int64_t i) {
  switch (vm_elem_class(elem)) {
  case TPUB_CLASS_COMPLEX: {
    int part = vm_elem_complex_part(elem);
    char re[VM_ELEM_TEXT_MAX], im[VM_ELEM_TEXT_MAX];
    vm_io_format_float(re, part, vm_load_bits(part, data, 2 * i));
    vm_io_format_float(im, part, vm_load_bits(part, data, 2 * i + 1));
    /* Each part is at most 24 characters ("-2.2250738585072014e-308"). */
    size_t nre = strnlen(re, 40), nim = strnlen(im, 40);
    buf[0] = '(';
    memcpy(buf + 1, re, nre);
    buf[1 + nre] = ',';
    memcpy(buf + 2 + nre, im, nim);
    buf[2 + nre + nim] = ')';
    buf[3 + nre + nim] = 0;
    break;
  }
  case TPUB_CLASS_FLOAT:
    vm_io_format_float(buf, elem, vm_load_bits(elem, data, i));
    break;
  case TPUB_CLASS_UINT:
    snprintf(buf, VM_ELEM_TEXT_MAX, "%" PRIu64, vm_load_bits(elem, data, i));
    break;
  default:
    if (elem == TPUB_I1)
      strcpy(buf, vm_load_bits(elem, data, i) ? "true" : "false");
    else
      snprintf(buf, VM_ELEM_TEXT_MAX, "%" PRId64, vm_load_i64(elem, data, i));
    break;
  }
}

/* ------------------------------------------------------------------ */
/* Types. */

/* Text sink: a FILE, or a fixed buffer that truncates. */
typedef struct Sink {
  FILE *file;
  char *buf;
  size_t cap, len;
} Sink;

static void sink_puts(Sink *s, const char *text) {
  if (s->file) {
    fputs(text, s->file);
    return;
  }
  size_t n = strlen(text);
  if (s->cap == 0) return;
  size_t room = s->cap - 1 - s->len;
  if (n > room) n = room;
  memcpy(s->buf + s->len, text, n);
  s->len += n;
  s->buf[s->len] = 0;
}

static void put_type(Sink *s, const VmType *t) {
  if (!t) {
    sink_puts(s, "?");
    return;
  }
  if (t->kind == TPUB_TY_TOKEN) {
    sink_puts(s, "token");
    return;
  }
  if (t->kind == TPUB_TY_TUPLE) {
    sink_puts(s, "tuple<");
    for (int i = 0; i < t->nmembers; i++) {
      if (i) sink_puts(s, ", ");
      put_type(s, t->members[i]);
    }
    sink_puts(s, ">");
    return;
  }
  char dim[32];
  for (int d = 0; d < t->rank; d++) {
    snprintf(dim, sizeof dim, "%" PRId64 "x", t->dims[d]);
    sink_puts(s, dim);
  }
  sink_puts(s, t->elem < TPUB_ELEM_COUNT ? vm_elem_name(t->elem) : "?");
}

void vm_print_type(FILE *out, const VmType *t) {
  Sink s = {.file = out};
  put_type(&s, t);
}

void vm_io_format_type(char *buf, size_t n, const VmType *t) {
  Sink s = {.buf = buf, .cap = n};
  if (n) buf[0] = 0;
  put_type(&s, t);
}

/* ------------------------------------------------------------------ */
/* Printing values. */

/* The elements of a tensor in the nested-bracket form described above. */
static void print_elements(FILE *out, const VmType *t, const void *data) {
  if (t->count <= 0 || !data) return;
  int rank = t->rank <= TPUB_MAX_RANK ? t->rank : 1; /* deeper: flat */
  int64_t stride[TPUB_MAX_RANK + 1];
  stride[rank] = 1;
  for (int d = rank - 1; d >= 1; d--) stride[d] = stride[d + 1] * t->dims[d];
  char buf[VM_ELEM_TEXT_MAX];
  bool closed = true;
  for (int64_t i = 0; i < t->count; i++) {
    if (!closed) fputc(' ', out);
    for (int d = 1; d < rank; d++)
      if (i % stride[d] == 0) fputc('[', out);
    vm_io_format_element(buf, t->elem, data, i);
    fputs(buf, out);
    closed = false;
    for (int d = rank - 1; d >= 1; d--)
      if ((i + 1) % stride[d] == 0) {
        fputc(']', out);
        closed = true;
      }
  }
}

void vm_print_value(FILE *out, const VmValue *v) {
  const VmType *t = v->type;
  if (!t) {
    fputs("?", out);
    return;
  }
  if (t->kind == TPUB_TY_TUPLE) {
    fputc('(', out);
    for (int i = 0; i < v->nmembers; i++) {
      if (i) fputs(", ", out);
      vm_print_value(out, &v->members[i]);
    }
    fputc(')', out);
    return;
  }
  if (t->kind == TPUB_TY_TOKEN) {
    fputs("token", out);
    return;
  }
  vm_print_type(out, t);
  fputc('=', out);
  print_elements(out, t, v->data);
}

/* ------------------------------------------------------------------ */
/* Random data. */

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static uint64_t rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* xoshiro256** (Blackman and Vigna). */
static uint64_t xoshiro_next(uint64_t s[4]) {
  uint64_t result = rotl64(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl64(s[3], 45);
  return result;
}

/* A uniform integer in [0, n), n <= 2^32 (Lemire's multiply-shift). */
static uint64_t random_below(uint64_t s[4], uint64_t n) { return ((xoshiro_next(s) >> 32) * n) >> 32; }

/* Explicit significand bits of a real float type (0 for f8E8M0FNU). */
static int mantissa_bits(int elem) {
  switch (elem) {
  case TPUB_F4E2M1FN:
    return 1;
  case TPUB_F6E2M3FN:
    return 3;
  case TPUB_F6E3M2FN:
  case TPUB_F8E5M2:
  case TPUB_F8E5M2FNUZ:
    return 2;
  case TPUB_F8E3M4:
    return 4;
  case TPUB_F8E4M3:
  case TPUB_F8E4M3FN:
  case TPUB_F8E4M3FNUZ:
  case TPUB_F8E4M3B11FNUZ:
    return 3;
  case TPUB_F8E8M0FNU:
    return 0;
  case TPUB_BF16:
    return 7;
  case TPUB_F16:
  case TPUB_TF32:
    return 10;
  case TPUB_F32:
    return 23;
  default:
    return 52;
  }
}

/* Uniform floats on the grid k * 2^-m - 1, k in [0, 2^(m+1)): every value
 * is exact in the type, so no rounding can leave [-1, 1).  f8E8M0FNU has
 * neither sign nor zero: powers of two 2^0 .. 2^-7 instead. */
static void fill_random_floats(int elem, void *data, int64_t n, uint64_t s[4]) {
  int m = mantissa_bits(elem);
  for (int64_t i = 0; i < n; i++) {
    uint64_t r = xoshiro_next(s);
    if (elem == TPUB_F8E8M0FNU) {
      vm_store_bits(elem, data, i, vm_f64_to_float_bits(elem, ldexp(1.0, -(int)(r >> 61))));
      continue;
    }
    double v = ldexp((double)(r >> (63 - m)), -m) - 1.0;
    if (elem == TPUB_F32) {
      ((float *)data)[i] = (float)v;
    } else if (elem == TPUB_F64) {
      ((double *)data)[i] = v;
    } else {
      vm_store_bits(elem, data, i, vm_f64_to_float_bits(elem, v));
    }
  }
}

void vm_fill_random(int elem, void *data, int64_t count, uint64_t seed) {
  uint64_t s[4];
  for (int k = 0; k < 4; k++) s[k] = splitmix64(&seed);
  switch (vm_elem_class(elem)) {
  case TPUB_CLASS_COMPLEX:
    fill_random_floats(vm_elem_complex_part(elem), data, 2 * count, s);
    return;
  case TPUB_CLASS_FLOAT:
    fill_random_floats(elem, data, count, s);
    return;
  default:
    break;
  }
  int bits = vm_elem_bits(elem);
  int64_t lo, hi;
  if (vm_elem_is_unsigned(elem)) {
    lo = 0;
    hi = bits >= 5 ? 16 : ((int64_t)1 << bits) - 1;
  } else if (elem == TPUB_I1) {
    lo = 0;
    hi = 1;
  } else {
    lo = bits >= 5 ? -8 : -((int64_t)1 << (bits - 1));
    hi = bits >= 5 ? 8 : ((int64_t)1 << (bits - 1)) - 1;
  }
  uint64_t span = (uint64_t)(hi - lo + 1);
  for (int64_t i = 0; i < count; i++)
    vm_store_bits(elem, data, i, (uint64_t)(lo + (int64_t)random_below(s, span)));
}

/* The seed of parameter `index` for "random:SEED": parameters differ. */
static uint64_t parameter_seed(uint64_t seed, int index) {
  uint64_t state = seed ^ ((uint64_t)(uint32_t)index * 0xD1B54A32D192ED03ull);
  return splitmix64(&state);
}

/* ------------------------------------------------------------------ */
/* Parsing input specs. */

void vm_io_errf(char *err, size_t errlen, const char *fmt, ...) {
  if (!err || errlen == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

/* A parse in progress: the target and where errors go. */
typedef struct InputParse {
  const VmType *type;
  int index;
  char *err;
  size_t errlen;
  char tybuf[512];
} InputParse;

static bool is_separator(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ','; }

static bool ends_token(char c) {
  return c == 0 || is_separator(c) || c == '[' || c == ']' || c == '(' || c == ')';
}

/* Parses TYPE text [s, end) and compares it with the parameter type. */
static int check_spec_type(InputParse *ip, const char *s, const char *end) {
  const VmType *t = ip->type;
  int spec_len = (int)(end - s);
  int64_t dims[TPUB_MAX_RANK + 1];
  int rank = 0;
  bool bad = false;
  const char *p = s;
  while (p < end && isdigit((unsigned char)*p)) {
    int64_t v = 0;
    while (p < end && isdigit((unsigned char)*p)) {
      int digit = *p++ - '0';
      if (v > (INT64_MAX - digit) / 10) bad = true;
      else v = v * 10 + digit;
    }
    if (p == end || *p != 'x') {
      bad = true;
      break;
    }
    p++;
    if (rank <= TPUB_MAX_RANK) dims[rank] = v;
    rank++;
  }
  if (bad) {
    vm_io_errf(ip->err, ip->errlen, "input %d: bad type '%.*s' (expected %s)", ip->index, spec_len, s, ip->tybuf);
    return VM_IO_USAGE;
  }
  int elem = -1;
  for (int e = 0; e < TPUB_ELEM_COUNT; e++) {
    const char *name = vm_elem_name(e);
    if (strlen(name) == (size_t)(end - p) && memcmp(name, p, (size_t)(end - p)) == 0) elem = e;
  }
  if (elem < 0) {
    vm_io_errf(ip->err, ip->errlen, "input %d: unknown element type '%.*s' in '%.*s' (expected %s)", ip->index,
         (int)(end - p), p, spec_len, s, ip->tybuf);
    return VM_IO_USAGE;
  }
  bool same = rank == t->rank && rank <= TPUB_MAX_RANK && elem == t->elem;
  for (int d = 0; same && d < rank; d++) same = dims[d] == t->dims[d];
  if (!same) {
    vm_io_errf(ip->err, ip->errlen, "input %d: expected %s, got %.*s", ip->index, ip->tybuf, spec_len, s);
    return VM_IO_USAGE;
  }
  return VM_IO_OK;
}

/* Reports token [tok, tok + len) that does not parse as the element type
 * (too_wide: a bit pattern with more bits than the type). */
static int bad_token(InputParse *ip, int elem, const char *tok, size_t len, bool too_wide) {
  int qlen = len > QUOTE_MAX ? QUOTE_MAX : (int)len;
  const char *dots = len > QUOTE_MAX ? "..." : "";
  if (too_wide)
    vm_io_errf(ip->err, ip->errlen, "input %d: bit pattern '%.*s%s' is too wide for %s", ip->index, qlen, tok, dots,
         vm_elem_name(elem));
  else
    vm_io_errf(ip->err, ip->errlen, "input %d: cannot parse '%.*s%s' as %s", ip->index, qlen, tok, dots,
         vm_elem_name(elem));
  return VM_IO_USAGE;
}

/* An integer token: optional sign, then decimal digits or 0x and hex
 * digits.  *overflow when the magnitude exceeds 2^64 - 1. */
static bool parse_int_text(const char *tok, size_t len, bool *neg, uint64_t *mag, bool *overflow) {
  size_t i = 0;
  *neg = false;
  *overflow = false;
  *mag = 0;
  if (i < len && (tok[i] == '-' || tok[i] == '+')) *neg = tok[i++] == '-';
  unsigned base = 10;
  if (len - i > 2 && tok[i] == '0' && (tok[i + 1] == 'x' || tok[i + 1] == 'X')) {
    base = 16;
    i += 2;
  }
  if (i == len) return false;
  for (; i < len; i++) {
    int c = (unsigned char)tok[i];
    unsigned digit;
    if (isdigit(c)) digit = (unsigned)(c - '0');
    else if (base == 16 && isxdigit(c)) digit = (unsigned)(tolower(c) - 'a' + 10);
    else return false;
    if (*mag > (UINT64_MAX - digit) / base) *overflow = true;
    else *mag = *mag * base + digit;
  }
  return true;
}

/* Parses one real or integer token of type elem into storage bits. */
static int parse_scalar(InputParse *ip, int elem, const char *tok, size_t len, uint64_t *bits) {
  int cls = vm_elem_class(elem);
  if (cls == TPUB_CLASS_FLOAT) {
    if (vm_io_parse_float(elem, tok, len, bits)) return VM_IO_OK;
    return bad_token(ip, elem, tok, len, is_bit_pattern(tok, len));
  }
  if (elem == TPUB_I1) {
    if ((len == 4 && memcmp(tok, "true", 4) == 0) || (len == 1 && tok[0] == '1')) {
      *bits = 1;
      return VM_IO_OK;
    }
    if ((len == 5 && memcmp(tok, "false", 5) == 0) || (len == 1 && tok[0] == '0')) {
      *bits = 0;
      return VM_IO_OK;
    }
  }
  bool neg, overflow;
  uint64_t mag;
  if (!parse_int_text(tok, len, &neg, &mag, &overflow)) return bad_token(ip, elem, tok, len, false);
  int nbits = vm_elem_bits(elem);
  bool ok;
  if (cls == TPUB_CLASS_UINT || elem == TPUB_I1) {
    uint64_t max = nbits >= 64 ? UINT64_MAX : ((uint64_t)1 << nbits) - 1;
    ok = !overflow && (mag == 0 || !neg) && mag <= max;
    *bits = mag;
  } else {
    uint64_t limit = (uint64_t)1 << (nbits - 1); /* |min|; max is limit - 1 */
    ok = !overflow && (neg ? mag <= limit : mag < limit);
    *bits = neg ? 0 - mag : mag;
  }
  if (!ok) {
    int qlen = len > QUOTE_MAX ? QUOTE_MAX : (int)len;
    vm_io_errf(ip->err, ip->errlen, "input %d: value %.*s%s out of range for %s", ip->index, qlen, tok,
         len > QUOTE_MAX ? "..." : "", vm_elem_name(elem));
    return VM_IO_USAGE;
  }
  return VM_IO_OK;
}

/* Length of the token at s. */
static size_t token_length(const char *s) {
  size_t n = 0;
  while (!ends_token(s[n])) n++;
  return n;
}

/* Reports an unexpected character at s. */
static int unexpected(InputParse *ip, const char *s, const char *why) {
  if (*s)
    vm_io_errf(ip->err, ip->errlen, "input %d: unexpected '%c' %s", ip->index, *s, why);
  else
    vm_io_errf(ip->err, ip->errlen, "input %d: unexpected end of input %s", ip->index, why);
  return VM_IO_USAGE;
}

/* Parses one element at *sp (a real, an integer, or a complex "(re,im)" or
 * plain real) into elem_bytes at out; advances *sp. */
static int parse_element(InputParse *ip, const char **sp, unsigned char *out) {
  int elem = ip->type->elem;
  const char *s = *sp;
  if (vm_elem_class(elem) == TPUB_CLASS_COMPLEX) {
    int part = vm_elem_complex_part(elem);
    uint64_t re, im = 0;
    int rc;
    if (*s == '(') {
      s++;
      while (*s == ' ' || *s == '\t') s++;
      size_t n = token_length(s);
      if ((rc = parse_scalar(ip, part, s, n, &re))) return rc;
      s += n;
      while (is_separator(*s)) s++;
      n = token_length(s);
      if ((rc = parse_scalar(ip, part, s, n, &im))) return rc;
      s += n;
      while (*s == ' ' || *s == '\t') s++;
      if (*s != ')') return unexpected(ip, s, "in a complex value (expected ')')");
      s++;
    } else {
      size_t n = token_length(s);
      if ((rc = parse_scalar(ip, part, s, n, &re))) return rc;
      s += n;
    }
    vm_store_bits(part, out, 0, re);
    vm_store_bits(part, out, 1, im);
    *sp = s;
    return VM_IO_OK;
  }
  if (*s == '(') return unexpected(ip, s, "(complex values need a complex type)");
  size_t n = token_length(s);
  if (n == 0) return unexpected(ip, s, "where a value was expected");
  uint64_t bits;
  int rc = parse_scalar(ip, elem, s, n, &bits);
  if (rc) return rc;
  vm_store_bits(elem, out, 0, bits);
  *sp = s + n;
  return VM_IO_OK;
}

/* Parses VALUES into data (type->nbytes bytes). */
static int parse_values(InputParse *ip, const char *s, unsigned char *data) {
  const VmType *t = ip->type;
  size_t esize = (size_t)vm_elem_bytes(t->elem);
  unsigned char first[16] = {0};
  int64_t n = 0;
  int depth = 0;
  for (;;) {
    while (is_separator(*s)) s++;
    if (!*s) break;
    if (*s == '[') {
      depth++;
      s++;
      continue;
    }
    if (*s == ']') {
      if (--depth < 0) return unexpected(ip, s, "(unbalanced brackets)");
      s++;
      continue;
    }
    unsigned char value[16];
    int rc = parse_element(ip, &s, value);
    if (rc) return rc;
    if (n == 0) memcpy(first, value, esize);
    if (n < t->count) memcpy(data + (size_t)n * esize, value, esize);
    n++;
  }
  if (depth != 0) {
    vm_io_errf(ip->err, ip->errlen, "input %d: unbalanced brackets: %d '[' not closed", ip->index, depth);
    return VM_IO_USAGE;
  }
  if (n == 1 && t->count != 1) {
    for (int64_t i = 0; i < t->count; i++) memcpy(data + (size_t)i * esize, first, esize);
    return VM_IO_OK;
  }
  if (n != t->count) {
    vm_io_errf(ip->err, ip->errlen, "input %d: expected %" PRId64 " values for %s (or 1 to splat), got %" PRId64,
         ip->index, t->count, ip->tybuf, n);
    return VM_IO_USAGE;
  }
  return VM_IO_OK;
}

/* Allocates out->data for the parameter type. */
static int alloc_value(InputParse *ip, VmValue *out) {
  out->type = ip->type;
  out->data = malloc(ip->type->nbytes > 0 ? (size_t)ip->type->nbytes : 1);
  if (!out->data) {
    vm_io_errf(ip->err, ip->errlen, "input %d: out of memory for %s (%" PRId64 " bytes)", ip->index, ip->tybuf,
         ip->type->nbytes);
    return VM_IO_USAGE;
  }
  return VM_IO_OK;
}

int vm_parse_input(const char *spec, const VmType *type, int index, VmValue *out, char *err,
                   size_t errlen) {
  memset(out, 0, sizeof *out);
  if (err && errlen) err[0] = 0;
  InputParse ip = {.type = type, .index = index, .err = err, .errlen = errlen};
  vm_io_format_type(ip.tybuf, sizeof ip.tybuf, type);
  if (type->kind != TPUB_TY_TENSOR) {
    vm_io_errf(err, errlen, "input %d: a parameter of type %s cannot be given on the command line", index, ip.tybuf);
    return VM_IO_USAGE;
  }
  if (spec[0] == '@') {
    char reason[1024];
    int rc = vm_npy_read(spec + 1, type, out, reason, sizeof reason);
    if (rc) vm_io_errf(err, errlen, "input %d: %s", index, reason);
    return rc;
  }
  if (strncmp(spec, "random", 6) == 0 && (spec[6] == 0 || spec[6] == ':')) {
    uint64_t seed = 0;
    if (spec[6] == ':') {
      bool neg, overflow;
      size_t len = strlen(spec + 7);
      if (!parse_int_text(spec + 7, len, &neg, &seed, &overflow) || neg || overflow || spec[7] == '+') {
        vm_io_errf(err, errlen, "input %d: bad seed in '%.*s' (expected random:N, N in 0..2^64-1)", index, QUOTE_MAX,
             spec);
        return VM_IO_USAGE;
      }
    }
    int rc = alloc_value(&ip, out);
    if (rc) return rc;
    vm_fill_random(type->elem, out->data, type->count, parameter_seed(seed, index));
    return VM_IO_OK;
  }
  const char *eq = strchr(spec, '=');
  if (!eq) {
    vm_io_errf(err, errlen, "input %d: expected TYPE=VALUES, @FILE.npy, random, random:SEED or TYPE=random[:SEED]; got '%.*s%s'", index,
         QUOTE_MAX, spec, strlen(spec) > QUOTE_MAX ? "..." : "");
    return VM_IO_USAGE;
  }
  int rc = check_spec_type(&ip, spec, eq);
  if (rc) return rc;
  if (strncmp(eq + 1, "random", 6) == 0 && (eq[7] == 0 || eq[7] == ':')) /* SHAPE=random[:SEED] */
    return vm_parse_input(eq + 1, type, index, out, err, errlen);
  if ((rc = alloc_value(&ip, out))) return rc;
  if ((rc = parse_values(&ip, eq + 1, out->data))) {
    free(out->data);
    out->data = NULL;
    out->type = NULL;
  }
  return rc;
}
