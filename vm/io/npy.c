/* .npy files for --input=@FILE and --output=@FILE (vm/io/io.h).
 *
 * A .npy file is the magic "\x93NUMPY", a version byte pair (1.0, 2.0 or
 * 3.0), the header length (2 bytes little-endian for 1.0, else 4), a header
 * that is a Python dict literal such as
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
 * padded with spaces and a newline, then the raw elements in C order.
 *
 * Every byte of a file read here is untrusted: the header is parsed with
 * bounds checks on each character, the header length is checked against the
 * file before anything is allocated for it, and the data are only read once
 * the dtype and shape equal the parameter type, into a buffer of the
 * parameter's size.  File defects (bad magic, version, garbled header,
 * unsupported dtype, Fortran order, truncated or trailing data) are
 * VM_IO_BAD_FILE; a well-formed file whose dtype or shape differs from the
 * parameter is VM_IO_USAGE.  Element types NumPy has no dtype for are
 * held in one documented form (npy_form_of). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vm/io/io_internal.h"

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_MAX_DIMS 64
/* Largest header accepted from a stream whose size is unknown (NumPy's
 * own reader stops at 10000 bytes by default). */
#define NPY_MAX_STREAM_HEADER (16u << 20)

/* What a header says. */
typedef struct NpyHeader {
  char descr[32];  /* as written, for messages */
  char kind;       /* 'b' bool, 'i', 'u', 'f', 'c', 'V' (raw bytes) */
  int itemsize;    /* bytes */
  bool big_endian; /* byte order of the data */
  bool fortran_order;
  int rank;
  int64_t dims[NPY_MAX_DIMS];
} NpyHeader;


static bool host_is_big_endian(void) {
  const uint16_t one = 1;
  unsigned char b;
  memcpy(&b, &one, 1);
  return b == 0;
}

/* ------------------------------------------------------------------ */
/* Header parsing. */

/* Checks the magic and version in the first n bytes; on success the dict
 * starts at *dict_off and is *dict_len bytes long (not yet bounds-checked). */
static int parse_prefix(const unsigned char *p, size_t n, size_t *dict_off, size_t *dict_len, char *err,
                        size_t errlen) {
  if (n < NPY_MAGIC_LEN || memcmp(p, NPY_MAGIC, NPY_MAGIC_LEN) != 0) {
    vm_io_errf(err, errlen, "not a .npy file (bad magic)");
    return VM_IO_BAD_FILE;
  }
  if (n < NPY_MAGIC_LEN + 2) {
    vm_io_errf(err, errlen, "truncated .npy header (%zu bytes)", n);
    return VM_IO_BAD_FILE;
  }
  int major = p[6], minor = p[7];
  if (major < 1 || major > 3 || minor != 0) {
    vm_io_errf(err, errlen, "unsupported .npy format version %d.%d (1.0, 2.0 and 3.0 are supported)", major, minor);
    return VM_IO_BAD_FILE;
  }
  size_t lenbytes = major == 1 ? 2 : 4;
  if (n < 8 + lenbytes) {
    vm_io_errf(err, errlen, "truncated .npy header (%zu bytes)", n);
    return VM_IO_BAD_FILE;
  }
  uint64_t len = (uint64_t)p[8] | (uint64_t)p[9] << 8;
  if (lenbytes == 4) len |= (uint64_t)p[10] << 16 | (uint64_t)p[11] << 24;
  *dict_off = 8 + lenbytes;
  *dict_len = (size_t)len;
  return VM_IO_OK;
}

/* A cursor over the header text. */
typedef struct Cursor {
  const char *p, *end;
} Cursor;

static void skip_space(Cursor *c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static bool accept_char(Cursor *c, char ch) {
  skip_space(c);
  if (c->p < c->end && *c->p == ch) {
    c->p++;
    return true;
  }
  return false;
}

static bool accept_word(Cursor *c, const char *word) {
  skip_space(c);
  size_t n = strlen(word);
  if ((size_t)(c->end - c->p) >= n && memcmp(c->p, word, n) == 0) {
    c->p += n;
    return true;
  }
  return false;
}

/* A Python string literal without escapes ('...' or "..."), printable
 * ASCII, at most cap - 1 characters. */
static bool parse_pystring(Cursor *c, char *out, size_t cap) {
  skip_space(c);
  if (c->p >= c->end || (*c->p != '\'' && *c->p != '"')) return false;
  char quote = *c->p++;
  size_t n = 0;
  while (c->p < c->end && *c->p != quote) {
    unsigned char ch = (unsigned char)*c->p;
    if (ch < 0x20 || ch > 0x7e || ch == '\\' || n + 1 >= cap) return false;
    out[n++] = (char)ch;
    c->p++;
  }
  if (c->p >= c->end) return false;
  c->p++;
  out[n] = 0;
  return true;
}

/* A non-negative decimal integer (Python 2 files may add an L). */
static bool parse_dim(Cursor *c, int64_t *v) {
  skip_space(c);
  if (c->p >= c->end || *c->p < '0' || *c->p > '9') return false;
  int64_t x = 0;
  while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
    int digit = *c->p++ - '0';
    if (x > (INT64_MAX - digit) / 10) return false;
    x = x * 10 + digit;
  }
  if (c->p < c->end && *c->p == 'L') c->p++;
  *v = x;
  return true;
}

/* The shape tuple: "()", "(3,)", "(2, 3)" (a trailing comma is optional). */
static int parse_shape(Cursor *c, NpyHeader *h, char *err, size_t errlen) {
  if (!accept_char(c, '(')) goto bad;
  h->rank = 0;
  if (accept_char(c, ')')) return VM_IO_OK;
  for (;;) {
    int64_t d;
    if (!parse_dim(c, &d)) goto bad;
    if (h->rank == NPY_MAX_DIMS) {
      vm_io_errf(err, errlen, "shape has more than %d dimensions", NPY_MAX_DIMS);
      return VM_IO_BAD_FILE;
    }
    h->dims[h->rank++] = d;
    if (accept_char(c, ')')) return VM_IO_OK;
    if (!accept_char(c, ',')) goto bad;
    if (accept_char(c, ')')) return VM_IO_OK;
  }
bad:
  vm_io_errf(err, errlen, "malformed header: 'shape' must be a tuple of non-negative integers");
  return VM_IO_BAD_FILE;
}

/* Decodes a descr like '<f4' into kind, size and byte order.  '|' and '='
 * (and no order character) mean the host's order. */
static bool decode_descr(NpyHeader *h) {
  const char *d = h->descr;
  char order = '=';
  if (*d == '<' || *d == '>' || *d == '|' || *d == '=') order = *d++;
  char kind = *d++;
  if (!kind || !*d || strlen(d) > 2) return false;
  int size = 0;
  for (; *d; d++) {
    if (*d < '0' || *d > '9') return false;
    size = size * 10 + (*d - '0');
  }
  bool ok;
  switch (kind) {
  case 'b':
    ok = size == 1;
    break;
  case 'i':
  case 'u':
    ok = size == 1 || size == 2 || size == 4 || size == 8;
    break;
  case 'f':
    ok = size == 2 || size == 4 || size == 8;
    break;
  case 'c':
    ok = size == 8 || size == 16;
    break;
  case 'V':
    ok = size == 2; /* ml_dtypes' bfloat16 */
    break;
  default:
    ok = false;
    break;
  }
  if (!ok) return false;
  h->kind = kind;
  h->itemsize = size;
  h->big_endian = order == '>' || ((order == '=' || order == '|') && host_is_big_endian());
  return true;
}

/* Parses the dict text [p, p + len). */
static int parse_dict(const char *p, size_t len, NpyHeader *h, char *err, size_t errlen) {
  Cursor c = {p, p + len};
  bool have_descr = false, have_fortran = false, have_shape = false;
  memset(h, 0, sizeof *h);
  if (!accept_char(&c, '{')) {
    vm_io_errf(err, errlen, "malformed header: expected a dict");
    return VM_IO_BAD_FILE;
  }
  while (!accept_char(&c, '}')) {
    char key[32];
    if (!parse_pystring(&c, key, sizeof key)) {
      vm_io_errf(err, errlen, "malformed header: expected a quoted key or '}'");
      return VM_IO_BAD_FILE;
    }
    if (!accept_char(&c, ':')) {
      vm_io_errf(err, errlen, "malformed header: expected ':' after '%s'", key);
      return VM_IO_BAD_FILE;
    }
    bool *seen;
    if (strcmp(key, "descr") == 0) seen = &have_descr;
    else if (strcmp(key, "fortran_order") == 0) seen = &have_fortran;
    else if (strcmp(key, "shape") == 0) seen = &have_shape;
    else {
      vm_io_errf(err, errlen, "malformed header: unexpected key '%s'", key);
      return VM_IO_BAD_FILE;
    }
    if (*seen) {
      vm_io_errf(err, errlen, "malformed header: duplicate key '%s'", key);
      return VM_IO_BAD_FILE;
    }
    *seen = true;
    if (seen == &have_descr) {
      skip_space(&c);
      if (c.p < c.end && *c.p == '[') {
        vm_io_errf(err, errlen, "unsupported dtype: structured arrays are not supported");
        return VM_IO_BAD_FILE;
      }
      if (!parse_pystring(&c, h->descr, sizeof h->descr)) {
        vm_io_errf(err, errlen, "malformed header: 'descr' must be a dtype string such as '<f4'");
        return VM_IO_BAD_FILE;
      }
      if (!decode_descr(h)) {
        vm_io_errf(err, errlen, "unsupported dtype '%s'", h->descr);
        return VM_IO_BAD_FILE;
      }
    } else if (seen == &have_fortran) {
      if (accept_word(&c, "True")) h->fortran_order = true;
      else if (accept_word(&c, "False")) h->fortran_order = false;
      else {
        vm_io_errf(err, errlen, "malformed header: 'fortran_order' must be True or False");
        return VM_IO_BAD_FILE;
      }
    } else {
      int rc = parse_shape(&c, h, err, errlen);
      if (rc) return rc;
    }
    if (accept_char(&c, '}')) break;
    if (!accept_char(&c, ',')) {
      vm_io_errf(err, errlen, "malformed header: expected ',' or '}' in the dict");
      return VM_IO_BAD_FILE;
    }
  }
  skip_space(&c);
  if (c.p != c.end) {
    vm_io_errf(err, errlen, "malformed header: unexpected text after the dict");
    return VM_IO_BAD_FILE;
  }
  const char *missing = !have_descr ? "descr" : !have_fortran ? "fortran_order" : !have_shape ? "shape" : NULL;
  if (missing) {
    vm_io_errf(err, errlen, "malformed header: no '%s' key", missing);
    return VM_IO_BAD_FILE;
  }
  return VM_IO_OK;
}

/* ------------------------------------------------------------------ */
/* Matching a header with the parameter type. */

/* How an element type is held in .npy.  NumPy has no dtype of its own for
 * bf16, tf32, the f8/f6/f4 minifloats or the sub-byte integers, so they go
 * in one documented form NumPy loads: minifloats as their bit patterns in
 * unsigned integers of their storage width ('<u2' for bf16, '|u1' for f8,
 * f6 and f4, '<u4' for tf32), sub-byte integers as their values in int8 or
 * uint8.  Reading takes the same form back (bf16 also from ml_dtypes'
 * 'V2'); values outside the type are refused. */
typedef struct NpyForm {
  char kind;    /* NumPy kind: b i u f c */
  int size;     /* item size in bytes */
  bool as_bits; /* minifloat bit patterns in an unsigned integer */
} NpyForm;

static NpyForm npy_form_of(int elem) {
  NpyForm f = {.size = vm_elem_bytes(elem)};
  switch (vm_elem_class(elem)) {
  case TPUB_CLASS_INT: f.kind = elem == TPUB_I1 ? 'b' : 'i'; break;
  case TPUB_CLASS_UINT: f.kind = 'u'; break;
  case TPUB_CLASS_COMPLEX: f.kind = 'c'; break;
  default: {
    bool native = elem == TPUB_F16 || elem == TPUB_F32 || elem == TPUB_F64;
    f.kind = native ? 'f' : 'u';
    f.as_bits = !native;
  }
  }
  return f;
}

/* True when the n elements at data are values of elem (sub-byte integers
 * in range, minifloat patterns within their width); else the first bad
 * index in *bad. */
static bool values_fit(int elem, const unsigned char *data, int64_t n, int64_t *bad) {
  int bits = vm_elem_class(elem) == TPUB_CLASS_FLOAT ? vm_io_float_width(elem) : vm_elem_bits(elem);
  if (elem == TPUB_TF32)
    for (int64_t i = 0; i < n; i++) {
      uint32_t u;
      memcpy(&u, data + 4 * i, 4);
      if (u >> bits) return *bad = i, false;
    }
  if (vm_elem_bytes(elem) != 1 || bits >= 8 || elem == TPUB_I1) return true;
  bool is_signed = vm_elem_class(elem) == TPUB_CLASS_INT;
  int lo = is_signed ? -(1 << (bits - 1)) : 0, hi = is_signed ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
  for (int64_t i = 0; i < n; i++) {
    int v = is_signed ? (int)(signed char)data[i] : (int)data[i];
    if (v < lo || v > hi) {
      *bad = i;
      return false;
    }
  }
  return true;
}

/* The header's shape as text: "(2, 3)", "(3,)", "()". */
static void format_shape(char *buf, size_t n, const int64_t *dims, int rank) {
  size_t len = 0;
  buf[0] = 0;
  len += (size_t)snprintf(buf, n, "(");
  for (int d = 0; d < rank && len < n; d++)
    len += (size_t)snprintf(buf + len, n - len, "%s%" PRId64, d ? ", " : "", dims[d]);
  if (len < n) snprintf(buf + len, n - len, rank == 1 ? ",)" : ")");
}

/* Checks a parsed header against the parameter type. */
static int match_type(const NpyHeader *h, const VmType *type, char *err, size_t errlen) {
  char tybuf[512], shape[512];
  vm_io_format_type(tybuf, sizeof tybuf, type);
  int rank = h->rank;
  format_shape(shape, sizeof shape, h->dims, rank);
  /* Element count, refusing shapes whose byte size overflows. */
  uint64_t count = 1, limit = (uint64_t)INT64_MAX / 16;
  bool overflow = false;
  for (int d = 0; d < rank; d++) {
    uint64_t dim = (uint64_t)h->dims[d];
    if (dim != 0 && count > limit / dim) overflow = true;
    else count *= dim;
  }
  if (overflow) {
    vm_io_errf(err, errlen, "shape %s has too many elements", shape);
    return VM_IO_BAD_FILE;
  }
  /* With at most one dimension > 1, C and Fortran order agree. */
  int long_dims = 0;
  for (int d = 0; d < rank; d++) long_dims += h->dims[d] > 1;
  if (h->fortran_order && long_dims > 1) {
    vm_io_errf(err, errlen, "Fortran-order arrays are not supported (save a C-order array, e.g. "
                      "np.ascontiguousarray(x))");
    return VM_IO_BAD_FILE;
  }
  if (type->kind != TPUB_TY_TENSOR) {
    vm_io_errf(err, errlen, "a parameter of type %s cannot be read from .npy", tybuf);
    return VM_IO_USAGE;
  }
  NpyForm form = npy_form_of(type->elem);
  bool ml_dtypes_bf16 = type->elem == TPUB_BF16 && h->kind == 'V';
  if (!ml_dtypes_bf16 && (form.kind != h->kind || form.size != h->itemsize)) {
    vm_io_errf(err, errlen, "dtype '%s' does not match the parameter type %s (expected '%c%d'%s)", h->descr, tybuf,
         form.kind, form.size, form.as_bits ? ": its bit patterns" : "");
    return VM_IO_USAGE;
  }
  bool same = rank == type->rank;
  for (int d = 0; same && d < rank; d++) same = h->dims[d] == type->dims[d];
  if (!same) {
    vm_io_errf(err, errlen, "shape %s does not match the parameter type %s", shape, tybuf);
    return VM_IO_USAGE;
  }
  return VM_IO_OK;
}

/* Brings n elements read from the file to the canonical host form: byte
 * order, and bools as 0 or 1. */
static void fix_data(const NpyHeader *h, unsigned char *data, int64_t n) {
  if (h->kind == 'b') {
    for (int64_t i = 0; i < n; i++) data[i] = data[i] != 0;
    return;
  }
  int unit = h->kind == 'c' ? h->itemsize / 2 : h->itemsize;
  if (unit == 1 || h->big_endian == host_is_big_endian()) return;
  int64_t units = n * (h->itemsize / unit);
  for (int64_t i = 0; i < units; i++) {
    unsigned char *p = data + i * unit;
    for (int a = 0, b = unit - 1; a < b; a++, b--) {
      unsigned char t = p[a];
      p[a] = p[b];
      p[b] = t;
    }
  }
}

static int size_mismatch(uint64_t have, const VmType *type, char *err, size_t errlen) {
  char tybuf[512];
  vm_io_format_type(tybuf, sizeof tybuf, type);
  if (have < (uint64_t)type->nbytes)
    vm_io_errf(err, errlen, "truncated data: %" PRIu64 " bytes where %s needs %" PRId64, have, tybuf, type->nbytes);
  else
    vm_io_errf(err, errlen, "%" PRIu64 " bytes of trailing data after the %" PRId64 " bytes of %s",
         have - (uint64_t)type->nbytes, type->nbytes, tybuf);
  return VM_IO_BAD_FILE;
}

/* VM_IO_OK when the data read are values of the type; else frees data. */
static int check_values(const VmType *type, unsigned char *data, char *err, size_t errlen) {
  int64_t bad;
  if (values_fit(type->elem, data, type->count, &bad)) return VM_IO_OK;
  vm_io_errf(err, errlen, "element %" PRId64 " is not a value of %s (%s)", bad, vm_elem_name(type->elem),
       vm_elem_class(type->elem) == TPUB_CLASS_FLOAT ? "a bit pattern wider than the type" : "out of range");
  free(data);
  return VM_IO_BAD_FILE;
}

static int out_of_memory(const VmType *type, char *err, size_t errlen) {
  vm_io_errf(err, errlen, "out of memory (%" PRId64 " bytes)", type->nbytes);
  return VM_IO_USAGE;
}

/* ------------------------------------------------------------------ */
/* Reading. */

int vm_npy_parse(const void *bytes, size_t n, const VmType *type, VmValue *out, char *err, size_t errlen) {
  const unsigned char *p = bytes;
  memset(out, 0, sizeof *out);
  size_t dict_off, dict_len;
  int rc = parse_prefix(p, n, &dict_off, &dict_len, err, errlen);
  if (rc) return rc;
  if (dict_len > n - dict_off) {
    vm_io_errf(err, errlen, "header length %zu goes beyond the end of the file (%zu bytes)", dict_len, n);
    return VM_IO_BAD_FILE;
  }
  NpyHeader h;
  if ((rc = parse_dict((const char *)p + dict_off, dict_len, &h, err, errlen))) return rc;
  if ((rc = match_type(&h, type, err, errlen))) return rc;
  size_t data_off = dict_off + dict_len;
  if (n - data_off != (uint64_t)type->nbytes) return size_mismatch(n - data_off, type, err, errlen);
  unsigned char *data = malloc(type->nbytes ? (size_t)type->nbytes : 1);
  if (!data) return out_of_memory(type, err, errlen);
  memcpy(data, p + data_off, (size_t)type->nbytes);
  fix_data(&h, data, type->count);
  if ((rc = check_values(type, data, err, errlen))) return rc;
  out->type = type;
  out->data = data;
  return VM_IO_OK;
}

/* vm_npy_read on an open file; err without the path. */
static int read_file(FILE *f, const VmType *type, VmValue *out, char *err, size_t errlen) {
  struct stat st;
  bool sized = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
  uint64_t file_size = sized ? (uint64_t)st.st_size : 0;
  unsigned char prefix[12];
  size_t got = fread(prefix, 1, sizeof prefix, f);
  if (ferror(f)) {
    vm_io_errf(err, errlen, "cannot read: %s", strerror(errno));
    return VM_IO_BAD_FILE;
  }
  size_t dict_off, dict_len;
  int rc = parse_prefix(prefix, got, &dict_off, &dict_len, err, errlen);
  if (rc) return rc;
  if ((sized && dict_len > file_size - dict_off) || (!sized && dict_len > NPY_MAX_STREAM_HEADER)) {
    if (sized)
      vm_io_errf(err, errlen, "header length %zu goes beyond the end of the file (%" PRIu64 " bytes)", dict_len,
           file_size);
    else
      vm_io_errf(err, errlen, "header length %zu is too large", dict_len);
    return VM_IO_BAD_FILE;
  }
  char *dict = malloc(dict_len ? dict_len : 1);
  if (!dict) return out_of_memory(type, err, errlen);
  size_t have = got - dict_off; /* bytes of the dict already in prefix */
  if (have > dict_len) have = dict_len;
  memcpy(dict, prefix + dict_off, have);
  size_t rest = fread(dict + have, 1, dict_len - have, f);
  /* A version 1.0 header shorter than 2 bytes left data bytes in prefix. */
  size_t data_in_prefix = got - dict_off - have;
  NpyHeader h;
  if (have + rest != dict_len) {
    vm_io_errf(err, errlen, "header length %zu goes beyond the end of the file", dict_len);
    rc = VM_IO_BAD_FILE;
  } else {
    rc = parse_dict(dict, dict_len, &h, err, errlen);
  }
  free(dict);
  if (rc) return rc;
  if ((rc = match_type(&h, type, err, errlen))) return rc;
  uint64_t want = (uint64_t)type->nbytes;
  if (sized && file_size - dict_off - dict_len != want)
    return size_mismatch(file_size - dict_off - dict_len, type, err, errlen);
  unsigned char *data = malloc(want ? (size_t)want : 1);
  if (!data) return out_of_memory(type, err, errlen);
  size_t first = data_in_prefix < want ? data_in_prefix : (size_t)want;
  memcpy(data, prefix + dict_off + have, first);
  size_t n = first + fread(data + first, 1, (size_t)want - first, f);
  if (n != want || data_in_prefix > want || fgetc(f) != EOF) {
    free(data);
    if (n != want) return size_mismatch(n, type, err, errlen);
    vm_io_errf(err, errlen, "trailing data after the %" PRIu64 " bytes of the array", want);
    return VM_IO_BAD_FILE;
  }
  fix_data(&h, data, type->count);
  if ((rc = check_values(type, data, err, errlen))) return rc;
  out->type = type;
  out->data = data;
  return VM_IO_OK;
}

int vm_npy_read(const char *path, const VmType *type, VmValue *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f) {
    vm_io_errf(err, errlen, "cannot open %s: %s", path, strerror(errno));
    return VM_IO_BAD_FILE;
  }
  char reason[768];
  reason[0] = 0;
  int rc = read_file(f, type, out, reason, sizeof reason);
  if (!rc && ferror(f)) {
    free(out->data);
    memset(out, 0, sizeof *out);
    snprintf(reason, sizeof reason, "read error");
    rc = VM_IO_BAD_FILE;
  }
  fclose(f);
  if (rc) vm_io_errf(err, errlen, "%s: %s", path, reason);
  return rc;
}

int vm_npy_shape(const char *path, int *rank, int64_t *dims, int max, char *err, size_t errlen) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    vm_io_errf(err, errlen, "cannot open %s: %s", path, strerror(errno));
    return VM_IO_BAD_FILE;
  }
  unsigned char prefix[12];
  size_t got = fread(prefix, 1, sizeof prefix, f), dict_off, dict_len;
  char reason[512];
  int rc = parse_prefix(prefix, got, &dict_off, &dict_len, reason, sizeof reason);
  char *dict = rc || dict_len > NPY_MAX_STREAM_HEADER ? NULL : malloc(dict_len + 1);
  if (!rc && (!dict || got < dict_off)) {
    snprintf(reason, sizeof reason, "header length %zu is too large", dict_len);
    rc = VM_IO_BAD_FILE;
  }
  NpyHeader h;
  if (!rc) {
    size_t have = got - dict_off < dict_len ? got - dict_off : dict_len;
    memcpy(dict, prefix + dict_off, have);
    if (have + fread(dict + have, 1, dict_len - have, f) != dict_len) {
      snprintf(reason, sizeof reason, "header length %zu goes beyond the end of the file", dict_len);
      rc = VM_IO_BAD_FILE;
    } else {
      rc = parse_dict(dict, dict_len, &h, reason, sizeof reason);
    }
  }
  free(dict);
  fclose(f);
  if (!rc && h.rank > max) {
    snprintf(reason, sizeof reason, "rank %d is more than %d", h.rank, max);
    rc = VM_IO_USAGE;
  }
  if (rc) {
    vm_io_errf(err, errlen, "%s: %s", path, reason);
    return rc;
  }
  *rank = h.rank;
  for (int d = 0; d < h.rank; d++) dims[d] = h.dims[d];
  return VM_IO_OK;
}

/* ------------------------------------------------------------------ */
/* Writing. */

int vm_npy_writable(const VmType *t, const char *path, char *note, size_t notelen, char *err, size_t errlen) {
  char tybuf[512];
  vm_io_format_type(tybuf, sizeof tybuf, t);
  if (note && notelen) note[0] = 0;
  if (!t || t->kind != TPUB_TY_TENSOR) {
    vm_io_errf(err, errlen, "%s: a value of type %s cannot be written to .npy; print it with --output=- instead", path,
         tybuf);
    return VM_IO_USAGE;
  }
  if (t->rank > TPUB_MAX_RANK) {
    vm_io_errf(err, errlen, "%s: rank %d is too deep", path, t->rank);
    return VM_IO_USAGE;
  }
  NpyForm form = npy_form_of(t->elem);
  if (note && form.as_bits)
    snprintf(note, notelen, "%s holds the %s bit patterns as uint%d (NumPy has no %s dtype)", path,
             vm_elem_name(t->elem), 8 * form.size, vm_elem_name(t->elem));
  else if (note && vm_elem_bits(t->elem) < 8 && t->elem != TPUB_I1)
    snprintf(note, notelen, "%s holds the %s values as %s8", path, vm_elem_name(t->elem),
             form.kind == 'u' ? "uint" : "int");
  return VM_IO_OK;
}

int vm_npy_write(const char *path, const VmValue *v, char *err, size_t errlen) {
  const VmType *t = v->type;
  int rc = vm_npy_writable(t, path, NULL, 0, err, errlen);
  if (rc) return rc;
  NpyForm form = npy_form_of(t->elem);
  char kind = form.kind;
  int size = form.size;
  char order = size == 1 ? '|' : host_is_big_endian() ? '>' : '<';
  char shape[TPUB_MAX_RANK * 24 + 8];
  format_shape(shape, sizeof shape, t->dims, t->rank);
  char dict[sizeof shape + 128];
  int len = snprintf(dict, sizeof dict, "{'descr': '%c%c%d', 'fortran_order': False, 'shape': %s, }", order,
                     kind, size, shape);
  /* Pad with spaces and a newline so the data start on a 64-byte boundary. */
  size_t prefix = 10, total = prefix + (size_t)len + 1;
  size_t padded = (total + 63) / 64 * 64;
  size_t dict_len = padded - prefix;
  unsigned char head[12 + sizeof dict + 64];
  memcpy(head, NPY_MAGIC, NPY_MAGIC_LEN);
  head[6] = 1;
  head[7] = 0;
  head[8] = (unsigned char)(dict_len & 0xff);
  head[9] = (unsigned char)(dict_len >> 8);
  memcpy(head + prefix, dict, (size_t)len);
  memset(head + prefix + len, ' ', dict_len - (size_t)len - 1);
  head[padded - 1] = '\n';
  FILE *f = fopen(path, "wb");
  if (!f) {
    vm_io_errf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return VM_IO_BAD_FILE;
  }
  bool ok = fwrite(head, 1, padded, f) == padded;
  if (ok && t->nbytes > 0) ok = fwrite(v->data, 1, (size_t)t->nbytes, f) == (size_t)t->nbytes;
  int saved = errno;
  if (fclose(f) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  if (!ok) {
    vm_io_errf(err, errlen, "cannot write %s: %s", path, strerror(saved));
    return VM_IO_BAD_FILE;
  }
  return VM_IO_OK;
}
