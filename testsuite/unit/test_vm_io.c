/* Host values of tpurun (vm/io/io.h): input specs and printing (round trips,
 * errors), .npy reading and writing (round trips, hostile files), seeded
 * random data and the comparisons of the check ops. */
#include <math.h>
#include <unistd.h>

#include "testsuite/unit/unit_tests.h"
#include "vm/dtype.h"
#include "vm/io/io_internal.h"

int run_vm_io_tests(void);

/* ------------------------------------------------------------------ */
/* Helpers. */

/* A tensor type over caller-owned dims. */
static VmType tensor_type(int elem, int rank, const int64_t *dims) {
  VmType t = {.kind = TPUB_TY_TENSOR, .elem = (uint8_t)elem, .rank = rank, .dims = dims, .count = 1};
  for (int d = 0; d < rank; d++) t.count *= dims[d];
  t.nbytes = t.count * vm_elem_bytes(elem);
  return t;
}

/* vm_print_value as a malloc'ed string. */
static char *print_string(const VmValue *v) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  vm_print_value(f, v);
  fclose(f);
  return text;
}

/* Parses spec for type t, asserting success. */
static VmValue parse_ok(const char *spec, const VmType *t) {
  VmValue v;
  char err[512];
  int rc = vm_parse_input(spec, t, 0, &v, err, sizeof err);
  if (rc != VM_IO_OK) fail_msg("'%s' refused: %s", spec, err);
  return v;
}

/* Parses spec as parameter `index`, asserting failure with status want and
 * an error containing needle. */
static void parse_fails(const char *spec, const VmType *t, int index, int want, const char *needle) {
  VmValue v;
  char err[512] = "";
  int rc = vm_parse_input(spec, t, index, &v, err, sizeof err);
  if (rc != want) fail_msg("'%s': status %d, want %d (%s)", spec, rc, want, err);
  assert_null(v.data);
  assert_contains(err, needle);
}

/* Prints data of type t and asserts the text. */
static void expect_print(const VmType *t, const void *data, const char *want) {
  VmValue v = {.type = t, .data = (void *)data};
  char *text = print_string(&v);
  if (strcmp(text, want) != 0) fail_msg("printed '%s', want '%s'", text, want);
  free(text);
}

/* Prints v, parses the text back, and asserts the same bytes (NaNs: any
 * NaN of the element type). */
static void expect_round_trip(const VmType *t, const void *data) {
  VmValue v = {.type = t, .data = (void *)data};
  char *text = print_string(&v);
  VmValue back = parse_ok(text, t);
  int elem = t->elem;
  bool is_float = vm_elem_class(elem) == TPUB_CLASS_FLOAT;
  for (int64_t i = 0; i < t->count; i++) {
    size_t esize = (size_t)vm_elem_bytes(elem);
    const unsigned char *a = (const unsigned char *)data + i * (int64_t)esize;
    const unsigned char *b = (const unsigned char *)back.data + i * (int64_t)esize;
    if (memcmp(a, b, esize) == 0) continue;
    if (is_float && isnan(vm_load_f64(elem, data, i)) && isnan(vm_load_f64(elem, back.data, i))) continue;
    char e_text[VM_ELEM_TEXT_MAX];
    vm_io_format_element(e_text, elem, data, i);
    fail_msg("%s element %lld (%s, bits 0x%llx) read back as 0x%llx", vm_elem_name(elem), (long long)i, e_text,
             (unsigned long long)vm_load_bits(elem, data, i),
             (unsigned long long)vm_load_bits(elem, back.data, i));
  }
  free(back.data);
  free(text);
}

/* A fresh temporary file name (the file exists, empty). */
static void temp_path(char path[64]) {
  strcpy(path, "/tmp/tpu_vm_io_XXXXXX");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
}

static void write_bytes(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(p, 1, n, f), n);
  fclose(f);
}

/* A .npy image: magic, version major.0, dict padded to 64 bytes (or
 * unpadded when pad is false), then data_len bytes of data. */
static unsigned char *make_npy(int major, const char *dict, bool pad, const void *data, size_t data_len,
                               size_t *n) {
  size_t prefix = major == 1 ? 10 : 12, len = strlen(dict);
  size_t dict_len = pad ? ((prefix + len + 1 + 63) / 64 * 64 - prefix) : len;
  unsigned char *p = malloc(prefix + dict_len + data_len + 1);
  memcpy(p, "\x93NUMPY", 6);
  p[6] = (unsigned char)major;
  p[7] = 0;
  for (size_t k = 0; k < prefix - 8; k++) p[8 + k] = (unsigned char)(dict_len >> (8 * k));
  memcpy(p + prefix, dict, len);
  if (pad) {
    memset(p + prefix + len, ' ', dict_len - len - 1);
    p[prefix + dict_len - 1] = '\n';
  }
  if (data_len) memcpy(p + prefix + dict_len, data, data_len);
  *n = prefix + dict_len + data_len;
  return p;
}

/* Both readers (in memory and from a file) on the same bytes: the status
 * must be want and the reason must contain needle. */
static void npy_expect(const void *bytes, size_t n, const VmType *t, int want, const char *needle) {
  VmValue v;
  char err[768] = "";
  int rc = vm_npy_parse(bytes, n, t, &v, err, sizeof err);
  if (rc != want) fail_msg("vm_npy_parse: status %d, want %d (%s)", rc, want, err);
  if (needle) assert_contains(err, needle);
  if (rc == VM_IO_OK) free(v.data);
  else assert_null(v.data);
  char path[64];
  temp_path(path);
  write_bytes(path, bytes, n);
  err[0] = 0;
  rc = vm_npy_read(path, t, &v, err, sizeof err);
  unlink(path);
  if (rc != want) fail_msg("vm_npy_read: status %d, want %d (%s)", rc, want, err);
  if (needle) assert_contains(err, needle);
  if (rc == VM_IO_OK) free(v.data);
  else assert_null(v.data);
}

/* ------------------------------------------------------------------ */
/* Printing. */

static void test_print_formats(void **state) {
  (void)state;
  int64_t d22[] = {2, 2}, d3[] = {3}, d222[] = {2, 2, 2}, d2[] = {2}, d02[] = {0, 2}, d20[] = {2, 0};
  VmType t = tensor_type(TPUB_F32, 2, d22);
  float f4[] = {1, 2, 3, 4};
  expect_print(&t, f4, "2x2xf32=[1 2][3 4]");
  t = tensor_type(TPUB_I32, 1, d3);
  int32_t i3[] = {1, -2, 3};
  expect_print(&t, i3, "3xi32=1 -2 3");
  t = tensor_type(TPUB_F32, 0, NULL);
  float scalar = 1.5f;
  expect_print(&t, &scalar, "f32=1.5");
  t = tensor_type(TPUB_I8, 3, d222);
  int8_t i8[] = {1, 2, 3, 4, 5, 6, 7, 8};
  expect_print(&t, i8, "2x2x2xi8=[[1 2][3 4]][[5 6][7 8]]");
  t = tensor_type(TPUB_I1, 1, d3);
  uint8_t b3[] = {1, 0, 1};
  expect_print(&t, b3, "3xi1=true false true");
  t = tensor_type(TPUB_C64, 1, d2);
  float c2[] = {1, 2, 3, -4};
  expect_print(&t, c2, "2xcomplex<f32>=(1,2) (3,-4)");
  t = tensor_type(TPUB_U64, 1, d2);
  uint64_t u2[] = {0, UINT64_MAX};
  expect_print(&t, u2, "2xui64=0 18446744073709551615");
  t = tensor_type(TPUB_I64, 1, d2);
  int64_t s2[] = {INT64_MIN, INT64_MAX};
  expect_print(&t, s2, "2xi64=-9223372036854775808 9223372036854775807");
  t = tensor_type(TPUB_I4, 1, d2);
  int8_t i4[] = {-8, 7};
  expect_print(&t, i4, "2xi4=-8 7");
  t = tensor_type(TPUB_F32, 1, d3);
  float fs[] = {0.1f, -0.0f, 1.0f / 3.0f};
  expect_print(&t, fs, "3xf32=0.1 -0 0.33333334");
  float specials[] = {INFINITY, -INFINITY, NAN};
  expect_print(&t, specials, "3xf32=inf -inf nan");
  t = tensor_type(TPUB_F64, 1, d2);
  double f64[] = {0.1, 1e300};
  expect_print(&t, f64, "2xf64=0.1 1e+300");
  t = tensor_type(TPUB_F16, 1, d3);
  uint16_t h3[] = {0x2E66, 0x3C00, 0x7BFF}; /* 0.1, 1, 65504 */
  expect_print(&t, h3, "3xf16=0.1 1 65504");
  t = tensor_type(TPUB_BF16, 1, d2);
  uint16_t bf[] = {0x3DCD, 0x4049}; /* 0.1, 3.140625 */
  expect_print(&t, bf, "2xbf16=0.1 3.14");
  t = tensor_type(TPUB_F32, 2, d02);
  expect_print(&t, f4, "0x2xf32=");
  t = tensor_type(TPUB_F32, 2, d20);
  expect_print(&t, f4, "2x0xf32=");
}

static void test_print_type_and_tuple(void **state) {
  (void)state;
  int64_t d23[] = {2, 3};
  VmType a = tensor_type(TPUB_C128, 2, d23), b = tensor_type(TPUB_U8, 0, NULL);
  const VmType *members[] = {&a, &b};
  VmType tuple = {.kind = TPUB_TY_TUPLE, .nmembers = 2, .members = members};
  char buf[128];
  vm_io_format_type(buf, sizeof buf, &tuple);
  assert_string_equal(buf, "tuple<2x3xcomplex<f64>, ui8>");
  vm_io_format_type(buf, 8, &tuple);
  assert_string_equal(buf, "tuple<2");
  int64_t d1[] = {1};
  VmType c = tensor_type(TPUB_F32, 1, d1);
  float one = 1;
  uint8_t seven = 7;
  VmValue m[] = {{.type = &c, .data = &one}, {.type = &b, .data = &seven}};
  const VmType *cm[] = {&c, &b};
  VmType ct = {.kind = TPUB_TY_TUPLE, .nmembers = 2, .members = cm};
  VmValue v = {.type = &ct, .nmembers = 2, .members = m};
  char *text = print_string(&v);
  assert_string_equal(text, "(1xf32=1, ui8=7)");
  free(text);
}

/* ------------------------------------------------------------------ */
/* Round trips. */

static void test_round_trip_random(void **state) {
  (void)state;
  static const int elems[] = {TPUB_F32, TPUB_F64, TPUB_F16, TPUB_BF16, TPUB_TF32, TPUB_F8E4M3FN, TPUB_F8E5M2,
                              TPUB_F8E4M3FNUZ, TPUB_F8E8M0FNU, TPUB_F4E2M1FN, TPUB_F6E3M2FN, TPUB_I1, TPUB_I2,
                              TPUB_I4, TPUB_I8, TPUB_I16, TPUB_I32, TPUB_I64, TPUB_U1, TPUB_U4, TPUB_U8,
                              TPUB_U16, TPUB_U32, TPUB_U64, TPUB_C64, TPUB_C128};
  int64_t dims[][3] = {{3, 4, 5}, {7, 1, 1}, {2, 0, 3}};
  int ranks[] = {3, 1, 3};
  for (size_t e = 0; e < sizeof elems / sizeof elems[0]; e++)
    for (int k = 0; k < 3; k++) {
      VmType t = tensor_type(elems[e], ranks[k], dims[k]);
      unsigned char data[60 * 16];
      vm_fill_random(elems[e], data, t.count, 1000 + e);
      expect_round_trip(&t, data);
    }
  VmType scalar = tensor_type(TPUB_F64, 0, NULL);
  double pi = M_PI;
  expect_round_trip(&scalar, &pi);
}

/* Every bit pattern of a 16- or 8-bit float type prints and reads back. */
static void exhaustive_round_trip(int elem) {
  int bits = vm_elem_bytes(elem) * 8;
  int64_t n = (int64_t)1 << bits;
  int64_t dims[] = {n};
  VmType t = tensor_type(elem, 1, dims);
  unsigned char *data = malloc((size_t)t.nbytes);
  for (int64_t i = 0; i < n; i++) {
    uint64_t b = (uint64_t)i & (bits == 8 ? (1u << vm_io_float_width(elem)) - 1 : 0xffff);
    vm_store_bits(elem, data, i, b);
  }
  expect_round_trip(&t, data);
  free(data);
}

static void test_round_trip_exhaustive(void **state) {
  (void)state;
  static const int elems[] = {TPUB_F16,        TPUB_BF16,      TPUB_F8E3M4,    TPUB_F8E4M3,
                              TPUB_F8E4M3FN,   TPUB_F8E4M3FNUZ, TPUB_F8E4M3B11FNUZ, TPUB_F8E5M2,
                              TPUB_F8E5M2FNUZ, TPUB_F8E8M0FNU, TPUB_F4E2M1FN,  TPUB_F6E2M3FN,
                              TPUB_F6E3M2FN};
  for (size_t e = 0; e < sizeof elems / sizeof elems[0]; e++) exhaustive_round_trip(elems[e]);
}

/* Random f32 and f64 bit patterns, subnormals and extremes included. */
static void test_round_trip_f32_f64_bits(void **state) {
  (void)state;
  enum { N = 20000 };
  int64_t dims[] = {N};
  VmType t32 = tensor_type(TPUB_F32, 1, dims), t64 = tensor_type(TPUB_F64, 1, dims);
  uint32_t *a = malloc(N * sizeof *a);
  uint64_t *b = malloc(N * sizeof *b);
  uint64_t x = 12345;
  for (int i = 0; i < N; i++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    a[i] = (uint32_t)(x >> 32);
    b[i] = x ^ (x << 29);
  }
  a[0] = 1;          /* smallest subnormal */
  a[1] = 0x7f7fffff; /* largest finite */
  a[2] = 0x80000000; /* -0 */
  b[0] = 1;
  b[1] = 0x7fefffffffffffffull;
  expect_round_trip(&t32, a);
  expect_round_trip(&t64, b);
  free(a);
  free(b);
}

/* ------------------------------------------------------------------ */
/* Parsing. */

static void test_parse_forms(void **state) {
  (void)state;
  int64_t d22[] = {2, 2}, d3[] = {3}, d4[] = {4}, d2[] = {2};
  VmType t = tensor_type(TPUB_I32, 2, d22);
  const char *specs[] = {"2x2xi32=[[1 2][3 4]]", "2x2xi32=1,2,3,4", "2x2xi32=[1 2][3 4]",
                         "2x2xi32= 1, 2 ,\n3\t4 ", "2x2xi32=[1,2],[3,4]", "2x2xi32=0x1 2 +3 4"};
  for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
    VmValue v = parse_ok(specs[k], &t);
    int32_t want[] = {1, 2, 3, 4};
    assert_memory_equal(v.data, want, sizeof want);
    assert_ptr_equal(v.type, &t);
    free(v.data);
  }
  VmType tf = tensor_type(TPUB_F32, 1, d4);
  VmValue v = parse_ok("4xf32=2.5", &tf);
  float splat[] = {2.5f, 2.5f, 2.5f, 2.5f};
  assert_memory_equal(v.data, splat, sizeof splat);
  free(v.data);
  v = parse_ok("4xf32=[-1.5e-3]", &tf);
  assert_true(((float *)v.data)[3] == -1.5e-3f);
  free(v.data);
  VmType tb = tensor_type(TPUB_I1, 1, d3);
  v = parse_ok("3xi1=true,false,1", &tb);
  uint8_t bools[] = {1, 0, 1};
  assert_memory_equal(v.data, bools, 3);
  free(v.data);
  VmType tc = tensor_type(TPUB_C64, 1, d2);
  v = parse_ok("2xcomplex<f32>=(1,2) 3", &tc);
  float cs[] = {1, 2, 3, 0};
  assert_memory_equal(v.data, cs, sizeof cs);
  free(v.data);
  v = parse_ok("2xcomplex<f32>=[( 1.5 , -2 ),(nan,inf)]", &tc);
  assert_true(((float *)v.data)[1] == -2 && isnan(((float *)v.data)[2]) && isinf(((float *)v.data)[3]));
  free(v.data);
  /* Bit patterns keep NaN payloads; hex floats are values. */
  VmType ts = tensor_type(TPUB_F32, 0, NULL);
  v = parse_ok("f32=0x7fc00001", &ts);
  assert_int_equal(vm_load_bits(TPUB_F32, v.data, 0), 0x7fc00001);
  free(v.data);
  v = parse_ok("f32=0x1.8p1", &ts);
  assert_true(*(float *)v.data == 3.0f);
  free(v.data);
  VmType th = tensor_type(TPUB_F16, 0, NULL);
  v = parse_ok("f16=0x3c00", &th);
  assert_int_equal(*(uint16_t *)v.data, 0x3c00);
  free(v.data);
  v = parse_ok("f16=1e6", &th); /* overflows to inf in f16 */
  assert_int_equal(*(uint16_t *)v.data, 0x7c00);
  free(v.data);
  VmType tu = tensor_type(TPUB_U8, 1, d2);
  v = parse_ok("2xui8=255 0xff", &tu);
  assert_int_equal(((uint8_t *)v.data)[0], 255);
  assert_int_equal(((uint8_t *)v.data)[1], 255);
  free(v.data);
  VmType ti8 = tensor_type(TPUB_I8, 1, d2);
  v = parse_ok("2xi8=-128 127", &ti8);
  assert_int_equal(((int8_t *)v.data)[0], -128);
  free(v.data);
  VmType ti4 = tensor_type(TPUB_I4, 1, d2);
  v = parse_ok("2xi4=-8 7", &ti4);
  assert_int_equal(((int8_t *)v.data)[0], -8);
  free(v.data);
  VmType u64 = tensor_type(TPUB_U64, 1, d2);
  v = parse_ok("2xui64=18446744073709551615 0", &u64);
  assert_true(((uint64_t *)v.data)[0] == UINT64_MAX);
  free(v.data);
  VmType i64 = tensor_type(TPUB_I64, 1, d2);
  v = parse_ok("2xi64=-9223372036854775808 9223372036854775807", &i64);
  assert_true(((int64_t *)v.data)[0] == INT64_MIN && ((int64_t *)v.data)[1] == INT64_MAX);
  free(v.data);
  int64_t d0[] = {0};
  VmType empty = tensor_type(TPUB_F32, 1, d0);
  v = parse_ok("0xf32=", &empty);
  assert_non_null(v.data);
  free(v.data);
}

static void test_parse_random(void **state) {
  (void)state;
  int64_t d[] = {64};
  VmType t = tensor_type(TPUB_F32, 1, d);
  VmValue a, b, c, e;
  char err[256];
  assert_int_equal(vm_parse_input("random", &t, 0, &a, err, sizeof err), VM_IO_OK);
  assert_int_equal(vm_parse_input("random:0", &t, 0, &b, err, sizeof err), VM_IO_OK);
  assert_int_equal(vm_parse_input("random", &t, 1, &c, err, sizeof err), VM_IO_OK);
  assert_int_equal(vm_parse_input("random:7", &t, 0, &e, err, sizeof err), VM_IO_OK);
  assert_memory_equal(a.data, b.data, (size_t)t.nbytes);
  assert_memory_not_equal(a.data, c.data, (size_t)t.nbytes);
  assert_memory_not_equal(a.data, e.data, (size_t)t.nbytes);
  free(a.data);
  free(b.data);
  free(c.data);
  free(e.data);
  parse_fails("random:x", &t, 2, VM_IO_USAGE, "input 2: bad seed");
  parse_fails("random:-1", &t, 2, VM_IO_USAGE, "bad seed");
  parse_fails("random:", &t, 2, VM_IO_USAGE, "bad seed");
}

static void test_parse_errors(void **state) {
  (void)state;
  int64_t d23[] = {2, 3}, d2[] = {2};
  VmType t = tensor_type(TPUB_F32, 2, d23);
  parse_fails("3x2xf32=1", &t, 1, VM_IO_USAGE, "input 1: expected 2x3xf32, got 3x2xf32");
  parse_fails("2x3xf64=1", &t, 0, VM_IO_USAGE, "expected 2x3xf32, got 2x3xf64");
  parse_fails("6xf32=1", &t, 0, VM_IO_USAGE, "expected 2x3xf32, got 6xf32");
  parse_fails("2x3xfloat32=1", &t, 0, VM_IO_USAGE, "unknown element type 'float32'");
  parse_fails("2x3x=1", &t, 0, VM_IO_USAGE, "unknown element type ''");
  parse_fails("2y3xf32=1", &t, 0, VM_IO_USAGE, "bad type '2y3xf32'");
  parse_fails("99999999999999999999xf32=1", &t, 0, VM_IO_USAGE, "bad type");
  parse_fails("2x3xf32=1 2 3 4", &t, 0, VM_IO_USAGE, "expected 6 values for 2x3xf32 (or 1 to splat), got 4");
  parse_fails("2x3xf32=", &t, 0, VM_IO_USAGE, "got 0");
  parse_fails("2x3xf32=1 2 3 4 5 6 7", &t, 0, VM_IO_USAGE, "got 7");
  parse_fails("2x3xf32=abc", &t, 0, VM_IO_USAGE, "cannot parse 'abc' as f32");
  parse_fails("2x3xf32=1.5.5", &t, 0, VM_IO_USAGE, "cannot parse '1.5.5'");
  parse_fails("2x3xf32=[1 2", &t, 0, VM_IO_USAGE, "unbalanced brackets");
  parse_fails("2x3xf32=1]", &t, 0, VM_IO_USAGE, "unexpected ']'");
  parse_fails("2x3xf32=(1,2)", &t, 0, VM_IO_USAGE, "complex values need a complex type");
  parse_fails("2x3xf32=1 ) 2", &t, 0, VM_IO_USAGE, "unexpected ')'");
  parse_fails("2x3xf32=0x1ffffffff", &t, 0, VM_IO_USAGE, "is too wide for f32");
  parse_fails("1,2,3", &t, 0, VM_IO_USAGE, "expected TYPE=VALUES");
  VmType i8 = tensor_type(TPUB_I8, 1, d2);
  parse_fails("2xi8=300 1", &i8, 0, VM_IO_USAGE, "value 300 out of range for i8");
  parse_fails("2xi8=-129", &i8, 0, VM_IO_USAGE, "value -129 out of range for i8");
  parse_fails("2xi8=1.5", &i8, 0, VM_IO_USAGE, "cannot parse '1.5' as i8");
  parse_fails("2xi8=true", &i8, 0, VM_IO_USAGE, "cannot parse 'true' as i8");
  VmType u8 = tensor_type(TPUB_U8, 1, d2);
  parse_fails("2xui8=-1", &u8, 0, VM_IO_USAGE, "value -1 out of range for ui8");
  parse_fails("2xui8=256", &u8, 0, VM_IO_USAGE, "value 256 out of range for ui8");
  VmType u64 = tensor_type(TPUB_U64, 1, d2);
  parse_fails("2xui64=18446744073709551616", &u64, 0, VM_IO_USAGE, "out of range for ui64");
  VmType i4 = tensor_type(TPUB_I4, 1, d2);
  parse_fails("2xi4=8", &i4, 0, VM_IO_USAGE, "value 8 out of range for i4");
  VmType i1 = tensor_type(TPUB_I1, 1, d2);
  parse_fails("2xi1=2", &i1, 0, VM_IO_USAGE, "value 2 out of range for i1");
  parse_fails("2xi1=yes", &i1, 0, VM_IO_USAGE, "cannot parse 'yes' as i1");
  VmType c64 = tensor_type(TPUB_C64, 1, d2);
  parse_fails("2xcomplex<f32>=(1,2", &c64, 0, VM_IO_USAGE, "expected ')'");
  parse_fails("2xcomplex<f32>=(1,x)", &c64, 0, VM_IO_USAGE, "cannot parse 'x' as f32");
  VmType h = tensor_type(TPUB_F16, 0, NULL);
  parse_fails("f16=0x10000", &h, 0, VM_IO_USAGE, "bit pattern '0x10000' is too wide for f16");
  parse_fails("@/tmp", &h, 3, VM_IO_BAD_FILE, "input 3: /tmp: cannot read: Is a directory");
  parse_fails("@/nonexistent/dir/x.npy", &h, 3, VM_IO_BAD_FILE, "input 3: cannot open /nonexistent/dir/x.npy: No such file");
  VmType tuple = {.kind = TPUB_TY_TUPLE, .nmembers = 0};
  parse_fails("f32=1", &tuple, 0, VM_IO_USAGE, "cannot be given on the command line");
  /* Long garbage is quoted truncated. */
  char long_spec[300] = "2x3xf32=";
  memset(long_spec + 8, 'z', 200);
  long_spec[208] = 0;
  parse_fails(long_spec, &t, 0, VM_IO_USAGE, "zzz...' as f32");
}

/* ------------------------------------------------------------------ */
/* Random data. */

static void test_fill_random(void **state) {
  (void)state;
  enum { N = 4096 };
  static unsigned char data[N * 16];
  /* Golden values: the generator must not change across platforms. */
  vm_fill_random(TPUB_F32, data, 4, 0);
  char *text;
  int64_t d4[] = {4};
  VmType t4 = tensor_type(TPUB_F32, 1, d4);
  VmValue v = {.type = &t4, .data = data};
  text = print_string(&v);
  static const char *golden_f32 = "4xf32=0.20252597 0.49554813 -0.7939601 -0.16682196";
  if (strcmp(text, golden_f32) != 0) fail_msg("random f32 changed: %s", text);
  free(text);
  VmType i4 = tensor_type(TPUB_I32, 1, d4);
  vm_fill_random(TPUB_I32, data, 4, 0);
  v.type = &i4;
  text = print_string(&v);
  static const char *golden_i32 = "4xi32=2 4 -7 -1";
  if (strcmp(text, golden_i32) != 0) fail_msg("random i32 changed: %s", text);
  free(text);
  static const struct {
    int elem;
    double lo, hi; /* inclusive */
  } ranges[] = {
      {TPUB_F32, -1, 0x1.fffffep-1}, {TPUB_F64, -1, 0x1.fffffffffffffp-1}, {TPUB_F16, -1, 0x1.ffcp-1},
      {TPUB_BF16, -1, 0x1.fcp-1},    {TPUB_F8E4M3FN, -1, 0.9375},          {TPUB_F4E2M1FN, -1, 0.5},
      {TPUB_F8E8M0FNU, 0x1p-7, 1},   {TPUB_I1, 0, 1},                      {TPUB_I2, -2, 1},
      {TPUB_I4, -8, 7},              {TPUB_I8, -8, 8},                     {TPUB_I64, -8, 8},
      {TPUB_U1, 0, 1},               {TPUB_U4, 0, 15},                     {TPUB_U32, 0, 16},
      {TPUB_U64, 0, 16},
  };
  for (size_t k = 0; k < sizeof ranges / sizeof ranges[0]; k++) {
    int elem = ranges[k].elem;
    vm_fill_random(elem, data, N, 42);
    double lo = INFINITY, hi = -INFINITY;
    for (int64_t i = 0; i < N; i++) {
      double x = vm_load_f64(elem, data, i);
      if (vm_elem_class(elem) != TPUB_CLASS_FLOAT) {
        x = (double)vm_load_i64(elem, data, i);
        /* Canonical storage: re-wrapping changes nothing. */
        assert_true(vm_wrap_int(elem, (int64_t)x) == (int64_t)x);
      }
      if (!(x >= ranges[k].lo && x <= ranges[k].hi))
        fail_msg("%s: random value %g outside [%g, %g]", vm_elem_name(elem), x, ranges[k].lo, ranges[k].hi);
      lo = fmin(lo, x);
      hi = fmax(hi, x);
    }
    /* With 4096 draws both ends of small ranges are reached. */
    if (vm_elem_class(elem) != TPUB_CLASS_FLOAT) {
      assert_true(lo == ranges[k].lo);
      assert_true(hi == ranges[k].hi);
    } else {
      assert_true(lo < -0.9 || elem == TPUB_F8E8M0FNU);
      assert_true(hi > 0.4);
    }
  }
  vm_fill_random(TPUB_C64, data, N, 1);
  for (int64_t i = 0; i < 2 * N; i++) assert_true(fabsf(((float *)data)[i]) <= 1);
  assert_true(((float *)data)[1] != 0);
}

/* ------------------------------------------------------------------ */
/* .npy files. */

static void test_npy_round_trip(void **state) {
  (void)state;
  static const struct {
    int elem;
    const char *descr;
  } cases[] = {
      {TPUB_I1, "'|b1'"},  {TPUB_I8, "'|i1'"},  {TPUB_I16, "'<i2'"}, {TPUB_I32, "'<i4'"},   {TPUB_I64, "'<i8'"},
      {TPUB_U8, "'|u1'"},  {TPUB_U16, "'<u2'"}, {TPUB_U32, "'<u4'"}, {TPUB_U64, "'<u8'"},   {TPUB_F16, "'<f2'"},
      {TPUB_F32, "'<f4'"}, {TPUB_F64, "'<f8'"}, {TPUB_C64, "'<c8'"}, {TPUB_C128, "'<c16'"},
  };
  int64_t shapes[][3] = {{2, 3, 4}, {5}, {0}};
  int ranks[] = {3, 1, 0};
  const char *shape_text[] = {"'shape': (2, 3, 4), }", "'shape': (5,), }", "'shape': (), }"};
  char path[64];
  temp_path(path);
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    for (int s = 0; s < 3; s++) {
      VmType t = tensor_type(cases[c].elem, ranks[s], shapes[s]);
      unsigned char data[24 * 16];
      vm_fill_random(cases[c].elem, data, t.count, 7 + c);
      VmValue v = {.type = &t, .data = data};
      char err[512];
      if (vm_npy_write(path, &v, err, sizeof err) != VM_IO_OK) fail_msg("write: %s", err);
      /* The header is what NumPy writes. */
      FILE *f = fopen(path, "rb");
      unsigned char head[128];
      size_t n = fread(head, 1, sizeof head, f);
      fclose(f);
      assert_true(n >= 64);
      assert_memory_equal(head, "\x93NUMPY\x01\x00", 8);
      size_t hlen = head[8] | (size_t)head[9] << 8;
      assert_int_equal((10 + hlen) % 64, 0);
      assert_int_equal(head[10 + hlen - 1], '\n');
      char dict[128];
      memcpy(dict, head + 10, hlen < 127 ? hlen : 127);
      dict[hlen < 127 ? hlen : 127] = 0;
      assert_contains(dict, cases[c].descr);
      assert_contains(dict, "'fortran_order': False");
      assert_contains(dict, shape_text[s]);
      VmValue back;
      if (vm_npy_read(path, &t, &back, err, sizeof err) != VM_IO_OK) fail_msg("read: %s", err);
      assert_ptr_equal(back.type, &t);
      assert_memory_equal(back.data, data, (size_t)t.nbytes);
      free(back.data);
      /* Through the --input spec too. */
      char spec[80];
      snprintf(spec, sizeof spec, "@%s", path);
      VmValue in = parse_ok(spec, &t);
      assert_memory_equal(in.data, data, (size_t)t.nbytes);
      free(in.data);
    }
  unlink(path);
}

/* Types NumPy has no dtype for go in one form: minifloat bit patterns as
 * unsigned integers of their width, sub-byte integers as int8/uint8; they
 * read back bit for bit, and values outside the type are refused. */
static void test_npy_minifloat_forms(void **state) {
  (void)state;
  int64_t d[] = {2};
  static const struct {
    int elem;
    const char *descr;
    uint32_t a, b; /* two elements of the type */
  } cases[] = {
      {TPUB_BF16, "'<u2'", 0x3f80, 0xc000},  {TPUB_F8E4M3FN, "'|u1'", 0x38, 0xfe}, {TPUB_F4E2M1FN, "'|u1'", 0x2, 0xf},
      {TPUB_F6E3M2FN, "'|u1'", 0x3f, 0x1},   {TPUB_TF32, "'<u4'", 0x7ffff, 0x1},   {TPUB_I4, "'|i1'", 0xf8, 7},
      {TPUB_I2, "'|i1'", 0xfe, 1},           {TPUB_U4, "'|u1'", 15, 0},
  };
  char path[64];
  temp_path(path);
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    VmType t = tensor_type(cases[k].elem, 1, d);
    unsigned char data[16] = {0};
    int w = vm_elem_bytes(cases[k].elem);
    memcpy(data, &cases[k].a, (size_t)w);
    memcpy(data + w, &cases[k].b, (size_t)w);
    VmValue v = {.type = &t, .data = data};
    char err[512], note[512];
    assert_int_equal(vm_npy_writable(&t, path, note, sizeof note, err, sizeof err), VM_IO_OK);
    assert_contains(note, vm_elem_name(cases[k].elem));
    assert_int_equal(vm_npy_write(path, &v, err, sizeof err), VM_IO_OK);
    FILE *f = fopen(path, "rb");
    char head[128] = {0};
    assert_true(fread(head, 1, sizeof head - 1, f) > 0);
    fclose(f);
    assert_non_null(strstr(head + 10, cases[k].descr));
    VmValue back;
    assert_int_equal(vm_npy_read(path, &t, &back, err, sizeof err), VM_IO_OK);
    assert_memory_equal(back.data, data, (size_t)(2 * w));
    free(back.data);
    /* A value outside the type: a sign-extended sub-byte integer too
     * large, or a minifloat pattern wider than the type. */
    if (cases[k].elem == TPUB_BF16 || cases[k].elem == TPUB_F8E4M3FN) continue;
    data[w - 1] = cases[k].elem == TPUB_TF32 ? 0xff : 0x40;
    assert_int_equal(vm_npy_write(path, &v, err, sizeof err), VM_IO_OK);
    assert_int_equal(vm_npy_read(path, &t, &back, err, sizeof err), VM_IO_BAD_FILE);
    assert_contains(err, "element 0 is not a value of");
  }
  /* Native dtypes need no note. */
  VmType f32 = tensor_type(TPUB_F32, 1, d);
  char err[512], note[512];
  assert_int_equal(vm_npy_writable(&f32, path, note, sizeof note, err, sizeof err), VM_IO_OK);
  assert_string_equal(note, "");
  uint32_t x[2] = {0};
  VmValue v = {.type = &(VmType){.kind = TPUB_TY_TOKEN}, .data = x};
  assert_int_equal(vm_npy_write(path, &v, err, sizeof err), VM_IO_USAGE);
  assert_contains(err, "cannot be written to .npy; print it with --output=- instead");
  unlink(path);
  v.type = &f32;
  assert_int_equal(vm_npy_write("/nonexistent/dir/out.npy", &v, err, sizeof err), VM_IO_BAD_FILE);
  assert_contains(err, "cannot write /nonexistent/dir/out.npy");
}

/* Files other tools write: big-endian data, version 2.0 and 3.0, bools
 * other than 0/1, ml_dtypes' bfloat16, 1-D Fortran order, odd spacing. */
static void test_npy_read_variants(void **state) {
  (void)state;
  int64_t d2[] = {2}, d23[] = {2, 3}, d31[] = {3, 1};
  VmType t = tensor_type(TPUB_I32, 1, d2);
  unsigned char be[] = {0, 0, 1, 2, 0xff, 0xff, 0xff, 0xfe};
  size_t n;
  unsigned char *p = make_npy(1, "{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }", true, be, 8, &n);
  VmValue v;
  char err[512];
  assert_int_equal(vm_npy_parse(p, n, &t, &v, err, sizeof err), VM_IO_OK);
  assert_int_equal(((int32_t *)v.data)[0], 0x102);
  assert_int_equal(((int32_t *)v.data)[1], -2);
  free(v.data);
  free(p);
  float f[2] = {1.5f, -2};
  for (int major = 2; major <= 3; major++) {
    VmType tf = tensor_type(TPUB_F32, 1, d2);
    p = make_npy(major, "{\"shape\":(2,),\"fortran_order\":False,\"descr\":\"<f4\"}", false, f, 8, &n);
    assert_int_equal(vm_npy_parse(p, n, &tf, &v, err, sizeof err), VM_IO_OK);
    assert_memory_equal(v.data, f, 8);
    free(v.data);
    free(p);
  }
  VmType tb = tensor_type(TPUB_I1, 1, d2);
  unsigned char bools[] = {0, 7};
  p = make_npy(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (2L,), }", true, bools, 2, &n);
  assert_int_equal(vm_npy_parse(p, n, &tb, &v, err, sizeof err), VM_IO_OK);
  assert_int_equal(((uint8_t *)v.data)[1], 1);
  free(v.data);
  free(p);
  VmType tbf = tensor_type(TPUB_BF16, 1, d2);
  uint16_t bf[] = {0x3f80, 0xc000};
  p = make_npy(1, "{'descr': '<V2', 'fortran_order': False, 'shape': (2,), }", true, bf, 4, &n);
  assert_int_equal(vm_npy_parse(p, n, &tbf, &v, err, sizeof err), VM_IO_OK);
  assert_memory_equal(v.data, bf, 4);
  free(v.data);
  free(p);
  VmType t31 = tensor_type(TPUB_F32, 2, d31);
  float f3[] = {1, 2, 3};
  p = make_npy(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (3, 1), }", true, f3, 12, &n);
  assert_int_equal(vm_npy_parse(p, n, &t31, &v, err, sizeof err), VM_IO_OK);
  free(v.data);
  free(p);
  /* Shape and dtype mismatches name both sides. */
  VmType t23 = tensor_type(TPUB_F32, 2, d23);
  float f6[6] = {0};
  p = make_npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", true, f6, 24, &n);
  npy_expect(p, n, &t23, VM_IO_USAGE, "shape (3, 2) does not match the parameter type 2x3xf32");
  free(p);
  p = make_npy(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", true, f6, 24, &n);
  npy_expect(p, n, &t23, VM_IO_USAGE, "dtype '<i4' does not match the parameter type 2x3xf32");
  free(p);
  VmType t4 = tensor_type(TPUB_I4, 1, d2);
  p = make_npy(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }", true, f6, 2, &n);
  npy_expect(p, n, &t4, VM_IO_USAGE, "dtype '|u1' does not match the parameter type 2xi4 (expected 'i1')");
  free(p);
}

/* Hostile headers: each is refused as a bad file, by both readers. */
static void test_npy_hostile(void **state) {
  (void)state;
  int64_t d23[] = {2, 3};
  VmType t = tensor_type(TPUB_F32, 2, d23);
  float data[6] = {1, 2, 3, 4, 5, 6};
  static const struct {
    const char *dict;
    size_t data_len;
    const char *reason;
  } dicts[] = {
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 23, "truncated data: 23 bytes"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 0, "truncated data: 0 bytes"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 25, "1 bytes of trailing data"},
      {"{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", 24, "Fortran-order arrays are not supported"},
      {"{'descr': '<f4', 'fortran_order': 1, 'shape': (2, 3), }", 24, "'fortran_order' must be True or False"},
      {"{'descr': '<U4', 'fortran_order': False, 'shape': (2, 3), }", 24, "unsupported dtype '<U4'"},
      {"{'descr': '<f3', 'fortran_order': False, 'shape': (2, 3), }", 24, "unsupported dtype '<f3'"},
      {"{'descr': '<f', 'fortran_order': False, 'shape': (2, 3), }", 24, "unsupported dtype"},
      {"{'descr': '<f444', 'fortran_order': False, 'shape': (2, 3), }", 24, "unsupported dtype"},
      {"{'descr': 'O', 'fortran_order': False, 'shape': (2, 3), }", 24, "unsupported dtype"},
      {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2, 3), }", 24, "structured"},
      {"{'descr': '<f4, 'fortran_order': False, 'shape': (2, 3), }", 24, "unsupported dtype '<f4, '"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x}", 24, "expected a quoted key"},
      {"{'descr': '<f4', 'fortran_order': False}", 24, "no 'shape' key"},
      {"{'fortran_order': False, 'shape': (2, 3)}", 24, "no 'descr' key"},
      {"{'descr': '<f4', 'shape': (2, 3)}", 24, "no 'fortran_order' key"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}", 24, "duplicate key 'descr'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'extra': 1}", 24, "unexpected key 'extra'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-2, 3), }", 24, "'shape' must be a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }", 24, "'shape' must be a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2 3), }", 24, "'shape' must be a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, }", 24, "'shape' must be a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3], }", 24, "'shape' must be a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999, 3), }", 24, "'shape' must be"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", 24, "too many elements"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } xyz", 24, "unexpected text after the dict"},
      {"{'descr': '<f4' 'fortran_order': False, 'shape': (2, 3), }", 24, "expected ',' or '}'"},
      {"{'descr' '<f4', 'fortran_order': False, 'shape': (2, 3), }", 24, "expected ':'"},
      {"{descr: '<f4', 'fortran_order': False, 'shape': (2, 3), }", 24, "expected a quoted key"},
      {"['descr', '<f4']", 24, "expected a dict"},
      {"", 24, "expected a dict"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), ", 24, "expected a quoted key or '}'"},
      {"{'descr': '<\\x66\\x34', 'fortran_order': False, 'shape': (2, 3), }", 24, "malformed header"},
      {"{'desc\001r': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 24, "malformed header"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
       "1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
       "1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), }",
       24, "more than 64 dimensions"},
  };
  unsigned char bytes[32] = {0};
  memcpy(bytes, data, sizeof data);
  for (size_t k = 0; k < sizeof dicts / sizeof dicts[0]; k++) {
    size_t n;
    unsigned char *p = make_npy(1, dicts[k].dict, true, bytes, dicts[k].data_len, &n);
    npy_expect(p, n, &t, VM_IO_BAD_FILE, dicts[k].reason);
    free(p);
  }
  /* Broken prefixes. */
  const char *good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  size_t n;
  unsigned char *p = make_npy(1, good, true, data, 24, &n);
  npy_expect(p, 0, &t, VM_IO_BAD_FILE, "bad magic");
  npy_expect(p, 5, &t, VM_IO_BAD_FILE, "bad magic");
  npy_expect(p, 7, &t, VM_IO_BAD_FILE, "truncated .npy header");
  npy_expect(p, 9, &t, VM_IO_BAD_FILE, "truncated .npy header");
  npy_expect(p, 40, &t, VM_IO_BAD_FILE, "goes beyond the end of the file");
  unsigned char *q = malloc(n);
  memcpy(q, p, n);
  q[0] = 0x92;
  npy_expect(q, n, &t, VM_IO_BAD_FILE, "bad magic");
  memcpy(q, p, n);
  q[6] = 4;
  npy_expect(q, n, &t, VM_IO_BAD_FILE, "unsupported .npy format version 4.0");
  q[6] = 0;
  npy_expect(q, n, &t, VM_IO_BAD_FILE, "version 0.0");
  q[6] = 1;
  q[7] = 1;
  npy_expect(q, n, &t, VM_IO_BAD_FILE, "version 1.1");
  memcpy(q, p, n);
  q[8] = 0xff;
  q[9] = 0xff;
  npy_expect(q, n, &t, VM_IO_BAD_FILE, "header length 65535 goes beyond the end of the file");
  memcpy(q, p, n);
  q[8] = 0; /* the header shrinks into the dict: garbled */
  q[9] = 0;
  npy_expect(q, n, &t, VM_IO_BAD_FILE, "expected a dict");
  free(q);
  free(p);
  /* A version 2.0 header length of 4 GiB - 1. */
  p = make_npy(2, good, true, data, 24, &n);
  p[8] = p[9] = p[10] = p[11] = 0xff;
  npy_expect(p, n, &t, VM_IO_BAD_FILE, "header length 4294967295 goes beyond the end of the file");
  free(p);
  /* A header whose length swallows part of the data still parses the dict
   * only up to its length: here one data byte becomes trailing junk text. */
  p = make_npy(1, good, true, data, 24, &n);
  p[8]++;
  npy_expect(p, n, &t, VM_IO_BAD_FILE, "unexpected text after the dict");
  free(p);
}

/* ------------------------------------------------------------------ */
/* Comparisons. */

/* Runs vm_compare and asserts the verdict and (if given) the detail. */
static void expect_compare(int kind, double tol, int64_t min_ulp, int64_t max_ulp, const VmType *t,
                           const void *actual, const void *expected, bool want, const char *detail) {
  VmTensor a = {.type = t, .data = (void *)actual}, e = {.type = t, .data = (void *)expected};
  char buf[512] = "";
  bool ok = vm_compare(kind, tol, min_ulp, max_ulp, &a, &e, buf, sizeof buf);
  if (ok != want) fail_msg("vm_compare gave %s, want %s (%s)", ok ? "pass" : "fail", want ? "pass" : "fail", buf);
  if (detail && strcmp(buf, detail) != 0) fail_msg("detail '%s', want '%s'", buf, detail);
  if (want) assert_string_equal(buf, "");
}

static void test_compare_eq(void **state) {
  (void)state;
  int64_t d3[] = {3}, d202[] = {20, 20};
  VmType t = tensor_type(TPUB_F32, 1, d3);
  float a[] = {0.0f, NAN, 1.5f}, e[] = {-0.0f, -NAN, 1.5f};
  expect_compare(VM_CMP_EQ, 0, 0, 0, &t, a, e, true, NULL);
  float b[] = {0.0f, 1.0f, 1.5f};
  expect_compare(VM_CMP_EQ, 0, 0, 0, &t, b, e, false,
                 "1 of 3 elements differs; at [1]: expected nan, actual 1 (inf ULP)");
  float c[] = {1.0f, 2.0f, 0x1.000004p0f}, ce[] = {1.0f, 2.0f, 1.0f};
  expect_compare(VM_CMP_EQ, 0, 0, 0, &t, c, ce, false,
                 "1 of 3 elements differs; at [2]: expected 1, actual 1.0000002 (2 ULP)");
  VmType big = tensor_type(TPUB_F32, 2, d202);
  float *x = calloc(400, sizeof *x), *y = calloc(400, sizeof *y);
  for (int i = 0; i < 400; i++) x[i] = y[i] = 0.5f;
  x[3 * 20 + 1] = nextafterf(0.5f, 1);
  x[7 * 20 + 2] = nextafterf(0.5f, 0);
  expect_compare(VM_CMP_CLOSE, 0, 0, 0, &big, x, y, false,
                 "2 of 400 elements differ; worst at [3, 1]: expected 0.5, actual 0.50000006 (1 ULP > max 0)");
  /* Below 0.5 the ULP halves: 0.5 - 2^-25 is 1 ULP away as well. */
  x[3 * 20 + 1] = 0.5f;
  x[7 * 20 + 2] = 0.5f - 0x1p-24f;
  expect_compare(VM_CMP_CLOSE, 0, 0, 1, &big, x, y, false,
                 "1 of 400 elements differs; at [7, 2]: expected 0.5, actual 0.49999994 (2 ULP > max 1)");
  expect_compare(VM_CMP_CLOSE, 0, 0, 2, &big, x, y, true, NULL);
  free(x);
  free(y);
  VmType ti = tensor_type(TPUB_I32, 1, d3);
  int32_t ia[] = {1, 2, INT32_MIN}, ie[] = {1, 2, INT32_MAX};
  expect_compare(VM_CMP_EQ, 0, 0, 0, &ti, ia, ia, true, NULL);
  expect_compare(VM_CMP_EQ, 0, 0, 0, &ti, ia, ie, false,
                 "1 of 3 elements differs; at [2]: expected 2147483647, actual -2147483648");
  expect_compare(VM_CMP_ALMOST_EQ, 10, 0, 0, &ti, ia, ie, false, NULL);
  VmType tb = tensor_type(TPUB_I1, 1, d3);
  uint8_t ba[] = {1, 0, 1}, be[] = {1, 1, 1};
  expect_compare(VM_CMP_EQ, 0, 0, 0, &tb, ba, be, false,
                 "1 of 3 elements differs; at [1]: expected true, actual false");
  VmType tu = tensor_type(TPUB_U64, 1, d3);
  uint64_t ua[] = {0, 5, UINT64_MAX}, ue[] = {UINT64_MAX, 5, UINT64_MAX};
  expect_compare(VM_CMP_CLOSE, 0, 0, 3, &tu, ua, ue, false,
                 "1 of 3 elements differs; at [0]: expected 18446744073709551615, actual 0 "
                 "(18446744073709551615 apart > max 3)");
  VmType scalar = tensor_type(TPUB_F64, 0, NULL);
  double one = 1, two = 2;
  expect_compare(VM_CMP_EQ, 0, 0, 0, &scalar, &one, &two, false,
                 "1 of 1 element differs: expected 2, actual 1 (4503599627370496 ULP)");
}

static void test_compare_ulp_f16_and_small(void **state) {
  (void)state;
  int64_t d4[] = {4};
  VmType t = tensor_type(TPUB_F16, 1, d4);
  /* 1 vs next; smallest subnormals across zero; -0 vs +0; max vs inf. */
  uint16_t a[] = {0x3C01, 0x0001, 0x8000, 0x7BFF}, e[] = {0x3C00, 0x8001, 0x0000, 0x7BFF};
  expect_compare(VM_CMP_CLOSE, 0, 0, 2, &t, a, e, true, NULL);
  expect_compare(VM_CMP_CLOSE, 0, 0, 1, &t, a, e, false,
                 "1 of 4 elements differs; at [1]: expected -6e-08, actual 6e-08 (2 ULP > max 1)");
  expect_compare(VM_CMP_EQ, 0, 0, 0, &t, a, e, false,
                 "2 of 4 elements differ; worst at [1]: expected -6e-08, actual 6e-08 (2 ULP)");
  a[3] = 0x7C00;
  expect_compare(VM_CMP_CLOSE, 0, 0, 1000, &t, a, e, false,
                 "1 of 4 elements differs; at [3]: expected 65504, actual inf (inf ULP > max 1000)");
  /* min_ulp: elements must differ by at least that much. */
  uint16_t same[] = {0x3C00, 0x3C00, 0x3C00, 0x3C00};
  expect_compare(VM_CMP_CLOSE, 0, 1, 3, &t, same, same, false,
                 "4 of 4 elements differ; worst at [0]: expected 1, actual 1 (0 ULP < min 1)");
  VmType bf = tensor_type(TPUB_BF16, 1, d4);
  uint16_t ba[] = {0x3F81, 0x3F80, 0x7FC0, 0xFFC1}, bb[] = {0x3F80, 0x3F80, 0x7FC1, 0x7FC0};
  expect_compare(VM_CMP_CLOSE, 0, 0, 1, &bf, ba, bb, true, NULL);
  expect_compare(VM_CMP_CLOSE, 0, 0, 0, &bf, ba, bb, false,
                 "1 of 4 elements differs; at [0]: expected 1, actual 1.01 (1 ULP > max 0)");
  VmType f8 = tensor_type(TPUB_F8E4M3FNUZ, 1, d4);
  uint8_t fa[] = {0x80, 0x01, 0x00, 0x81}, fb[] = {0x80, 0x81, 0x00, 0x01};
  expect_compare(VM_CMP_CLOSE, 0, 0, 2, &f8, fa, fb, true, NULL);
  expect_compare(VM_CMP_EQ, 0, 0, 0, &f8, fa, fb, false, NULL);
  fa[0] = 0x00; /* NaN (0x80 in FNUZ) against a number */
  expect_compare(VM_CMP_CLOSE, 0, 0, 100, &f8, fa, fb, false,
                 "1 of 4 elements differs; at [0]: expected nan, actual 0 (inf ULP > max 100)");
}

static void test_compare_almost_eq_and_complex(void **state) {
  (void)state;
  int64_t d3[] = {3}, d2[] = {2};
  VmType t = tensor_type(TPUB_F32, 1, d3);
  float a[] = {1.0f, INFINITY, NAN}, e[] = {1.25f, INFINITY, NAN};
  expect_compare(VM_CMP_ALMOST_EQ, 0.25, 0, 0, &t, a, e, true, NULL);
  expect_compare(VM_CMP_ALMOST_EQ, 0.1, 0, 0, &t, a, e, false,
                 "1 of 3 elements differs; at [0]: expected 1.25, actual 1 (abs diff 0.25 > tolerance 0.1)");
  float b[] = {1.0f, -INFINITY, 0.0f};
  expect_compare(VM_CMP_ALMOST_EQ, 1, 0, 0, &t, b, e, false,
                 "2 of 3 elements differ; worst at [1]: expected inf, actual -inf (abs diff inf > tolerance 1)");
  VmType c = tensor_type(TPUB_C64, 1, d2);
  float ca[] = {1, 2, 3, 4}, ce[] = {1, 2.5f, 3.25f, 4};
  expect_compare(VM_CMP_ALMOST_EQ, 0.3, 0, 0, &c, ca, ce, false,
                 "1 of 2 elements differs; at [0]: expected (1,2.5), actual (1,2) (abs diff 0.5 > tolerance 0.3)");
  expect_compare(VM_CMP_ALMOST_EQ, 0.5, 0, 0, &c, ca, ce, true, NULL);
  float cb[] = {1, 2, 3, 0x1.000002p2f}, cbe[] = {0x1.000002p0f, 2, 3, 4};
  expect_compare(VM_CMP_CLOSE, 0, 0, 0, &c, cb, cbe, false,
                 "2 of 2 elements differ; worst at [0]: expected (1.0000001,2), actual (1,2) (1 ULP > max 0)");
  expect_compare(VM_CMP_CLOSE, 0, 0, 1, &c, cb, cbe, true, NULL);
  VmType z = tensor_type(TPUB_C128, 1, d2);
  double za[] = {0, -0.0, NAN, 1}, ze[] = {-0.0, 0, NAN, 1};
  expect_compare(VM_CMP_EQ, 0, 0, 0, &z, za, ze, true, NULL);
}

static void test_compare_shapes(void **state) {
  (void)state;
  int64_t d23[] = {2, 3}, d32[] = {3, 2}, d0[] = {0};
  VmType a = tensor_type(TPUB_F32, 2, d23), b = tensor_type(TPUB_F32, 2, d32), c = tensor_type(TPUB_F64, 2, d23);
  float x[6] = {0};
  double y[6] = {0};
  VmTensor ta = {&a, x}, tb = {&b, x}, tc = {&c, y};
  char buf[256];
  assert_false(vm_compare(VM_CMP_EQ, 0, 0, 0, &ta, &tb, buf, sizeof buf));
  assert_string_equal(buf, "shapes differ: actual 2x3xf32, expected 3x2xf32");
  assert_false(vm_compare(VM_CMP_EQ, 0, 0, 0, &ta, &tc, buf, sizeof buf));
  assert_string_equal(buf, "element types differ: actual 2x3xf32, expected 2x3xf64");
  VmType e = tensor_type(TPUB_F32, 1, d0);
  VmTensor te = {&e, NULL};
  assert_true(vm_compare(VM_CMP_EQ, 0, 0, 0, &te, &te, buf, sizeof buf));
  /* A short detail buffer truncates, a NULL one is allowed. */
  assert_false(vm_compare(VM_CMP_EQ, 0, 0, 0, &ta, &tb, buf, 7));
  assert_string_equal(buf, "shapes");
  assert_false(vm_compare(VM_CMP_EQ, 0, 0, 0, &ta, &tb, NULL, 0));
}

int run_vm_io_tests(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_print_formats),
      cmocka_unit_test(test_print_type_and_tuple),
      cmocka_unit_test(test_round_trip_random),
      cmocka_unit_test(test_round_trip_exhaustive),
      cmocka_unit_test(test_round_trip_f32_f64_bits),
      cmocka_unit_test(test_parse_forms),
      cmocka_unit_test(test_parse_random),
      cmocka_unit_test(test_parse_errors),
      cmocka_unit_test(test_fill_random),
      cmocka_unit_test(test_npy_round_trip),
      cmocka_unit_test(test_npy_minifloat_forms),
      cmocka_unit_test(test_npy_read_variants),
      cmocka_unit_test(test_npy_hostile),
      cmocka_unit_test(test_compare_eq),
      cmocka_unit_test(test_compare_ulp_f16_and_small),
      cmocka_unit_test(test_compare_almost_eq_and_complex),
      cmocka_unit_test(test_compare_shapes),
  };
  return cmocka_run_group_tests_name("vm_io", tests, NULL, NULL);
}
