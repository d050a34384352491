/* The compilation cache's keys (stable under formatting, sensitive to
 * everything that changes the output) and entries (round trip, corruption
 * is a miss that removes the entry, eviction keeps the bound). */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/cache.h"
#include "testsuite/unit/unit_tests.h"

static const char base_text[] =
    "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %c = stablehlo.constant dense<2.0> : tensor<4xf32>\n"
    "  %0 = stablehlo.multiply %x, %c : tensor<4xf32>\n"
    "  return %0 : tensor<4xf32>\n"
    "}\n";

static const CacheKeyOptions base_opts = {"0.2.0", "v5e", "-O2"};

static CacheKey key_of(const char *text, const CacheKeyOptions *o) {
  Parsed *p = parse_text(text);
  assert_non_null(p->m);
  assert_true(verify_module(p->c, p->m));
  CacheKeyInfo info;
  cache_key_of_module(p->c, p->m, o, &info);
  parsed_free(p);
  return info.key;
}

static bool same(CacheKey a, CacheKey b) { return a.hi == b.hi && a.lo == b.lo; }

/* Whitespace, SSA names and locations do not change the key. */
static void test_key_stable(void **state) {
  (void)state;
  CacheKey k = key_of(base_text, &base_opts);
  const char *variants[] = {
      "func.func @main(%arg: tensor<4xf32>) -> tensor<4xf32> {\n"
      "  %two = stablehlo.constant dense<2.0> : tensor<4xf32>\n"
      "  %prod = stablehlo.multiply %arg, %two : tensor<4xf32>\n"
      "  return %prod : tensor<4xf32>\n"
      "}\n",
      "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n\n\n"
      "      %c = stablehlo.constant    dense<2.0> : tensor<4xf32>   // a comment\n"
      "  %0 = stablehlo.multiply %x,%c : tensor<4xf32> loc(\"model.py\":3:4)\n"
      "  return %0 : tensor<4xf32> loc(unknown)\n"
      "}\n",
      "module {\n"
      "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
      "  %c = \"stablehlo.constant\"() {value = dense<2.0> : tensor<4xf32>} : () -> tensor<4xf32>\n"
      "  %0 = \"stablehlo.multiply\"(%x, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n"
      "  \"func.return\"(%0) : (tensor<4xf32>) -> ()\n"
      "}\n}\n",
  };
  for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) assert_true(same(k, key_of(variants[i], &base_opts)));
}

/* A constant, a shape, an op, an attribute, an option, the target or the
 * compiler version each change the key. */
static void test_key_sensitive(void **state) {
  (void)state;
  CacheKey k = key_of(base_text, &base_opts);
  const char *changed[] = {
      "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
      "  %c = stablehlo.constant dense<3.0> : tensor<4xf32>\n"
      "  %0 = stablehlo.multiply %x, %c : tensor<4xf32>\n"
      "  return %0 : tensor<4xf32>\n}\n",
      "func.func @main(%x: tensor<5xf32>) -> tensor<5xf32> {\n"
      "  %c = stablehlo.constant dense<2.0> : tensor<5xf32>\n"
      "  %0 = stablehlo.multiply %x, %c : tensor<5xf32>\n"
      "  return %0 : tensor<5xf32>\n}\n",
      "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
      "  %c = stablehlo.constant dense<2.0> : tensor<4xf32>\n"
      "  %0 = stablehlo.add %x, %c : tensor<4xf32>\n"
      "  return %0 : tensor<4xf32>\n}\n",
      "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
      "  %c = stablehlo.constant dense<2.0> : tensor<4xf32>\n"
      "  %0 = stablehlo.multiply %x, %c {mhlo.frontend_attributes = {a = \"b\"}} : tensor<4xf32>\n"
      "  return %0 : tensor<4xf32>\n}\n",
  };
  for (size_t i = 0; i < sizeof changed / sizeof changed[0]; i++) assert_false(same(k, key_of(changed[i], &base_opts)));
  CacheKeyOptions o = base_opts;
  o.options = "-O1";
  assert_false(same(k, key_of(base_text, &o)));
  o = base_opts, o.target = "v6e";
  assert_false(same(k, key_of(base_text, &o)));
  o = base_opts, o.compiler_version = "0.2.1";
  assert_false(same(k, key_of(base_text, &o)));
  /* The raw-bytes key depends on the bytes and the options too. */
  CacheKey r = cache_key_of_bytes(base_text, sizeof base_text - 1, &base_opts);
  assert_true(same(r, cache_key_of_bytes(base_text, sizeof base_text - 1, &base_opts)));
  assert_false(same(r, cache_key_of_bytes(base_text, sizeof base_text - 2, &base_opts)));
  assert_false(same(r, cache_key_of_bytes(base_text, sizeof base_text - 1, &o)));
}

static char *temp_dir(void) {
  char *d = strdup("/tmp/tpucc-cache-test-XXXXXX");
  assert_non_null(mkdtemp(d));
  return d;
}

static void remove_dir(const char *d) {
  DIR *dd = opendir(d);
  struct dirent *e;
  while (dd && (e = readdir(dd))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", d, e->d_name);
    unlink(path);
  }
  if (dd) closedir(dd);
  rmdir(d);
}

/* A cache in a fresh directory whose warnings go to a temporary file. */
typedef struct TestCache {
  char *dir;
  FILE *warn;
  Cache *ca;
} TestCache;

static TestCache test_cache_open(void) {
  TestCache t = {.dir = temp_dir(), .warn = tmpfile()};
  assert_non_null(t.warn);
  t.ca = cache_open(t.dir, 1 << 20, "test", t.warn);
  assert_non_null(t.ca);
  return t;
}

static void test_cache_close(TestCache *t) {
  fclose(t->warn);
  cache_close(t->ca);
  remove_dir(t->dir);
  free(t->dir);
}

/* The warning lines so far that contain needle. */
static int warnings_with(const TestCache *t, const char *needle) {
  rewind(t->warn);
  char line[512];
  int n = 0;
  while (fgets(line, sizeof line, t->warn)) n += strstr(line, needle) != NULL;
  return n;
}

/* An entry round-trips; every corruption of it is a miss that removes it. */
static void test_entries(void **state) {
  (void)state;
  TestCache t = test_cache_open();
  Cache *ca = t.ca;
  const char *dir = t.dir;
  CacheKey k = {1, 2};
  uint8_t payload[300];
  for (int i = 0; i < 300; i++) payload[i] = (uint8_t)(i * 7);
  uint8_t *img;
  size_t n;
  assert_false(cache_get(ca, k, &img, &n));
  cache_put(ca, k, NULL, payload, sizeof payload);
  assert_true(cache_get(ca, k, &img, &n));
  assert_int_equal(n, sizeof payload);
  assert_memory_equal(img, payload, n);
  free(img);
  char path[4200], hex[33];
  cache_key_hex(k, hex);
  snprintf(path, sizeof path, "%s/%s.tpuc", dir, hex);
  /* truncate, flip a header byte, flip a payload byte, garbage, empty */
  for (int kind = 0; kind < 5; kind++) {
    cache_put(ca, k, NULL, payload, sizeof payload);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    if (kind == 0) assert_int_equal(ftruncate(fileno(f), 100), 0);
    if (kind == 1 || kind == 2) {
      fseek(f, kind == 1 ? 20 : 200, SEEK_SET);
      fputc(0x5a, f);
    }
    if (kind == 3) {
      fseek(f, 0, SEEK_SET);
      for (int i = 0; i < 364; i++) fputc('x', f);
    }
    if (kind == 4) assert_int_equal(ftruncate(fileno(f), 0), 0);
    fclose(f);
    assert_false(cache_get(ca, k, &img, &n));
    struct stat st;
    assert_int_not_equal(stat(path, &st), 0); /* removed */
  }
  assert_int_equal(warnings_with(&t, "corrupt"), 5); /* every case warned */
  test_cache_close(&t);
}

/* copy_file SRC DST: DST's bytes become SRC's. */
static void copy_file(const char *src, const char *dst) {
  FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
  assert_non_null(in);
  assert_non_null(out);
  int ch;
  while ((ch = fgetc(in)) != EOF) fputc(ch, out);
  fclose(in);
  fclose(out);
}

/* Copies key a's file (suffix) over key b's; their paths into from, to. */
static void swap_in(const char *dir, CacheKey a, CacheKey b, const char *suffix, char from[4200], char to[4200]) {
  char hex_a[33], hex_b[33];
  cache_key_hex(a, hex_a);
  cache_key_hex(b, hex_b);
  snprintf(from, 4200, "%s/%s%s", dir, hex_a, suffix);
  snprintf(to, 4200, "%s/%s%s", dir, hex_b, suffix);
  copy_file(from, to);
}

/* An alias or an entry copied over another key's file is a warned,
 * removed miss: each proves the key it was looked up by. */
static void test_swapped_files(void **state) {
  (void)state;
  TestCache t = test_cache_open();
  Cache *ca = t.ca;
  const char *dir = t.dir;
  CacheKey key_a = {1, 10}, key_b = {2, 20}, raw_a = {3, 30}, raw_b = {4, 40};
  uint8_t prog_a[100], prog_b[100];
  memset(prog_a, 'a', sizeof prog_a);
  memset(prog_b, 'b', sizeof prog_b);
  cache_put(ca, key_a, &raw_a, prog_a, sizeof prog_a);
  cache_put(ca, key_b, &raw_b, prog_b, sizeof prog_b);
  uint8_t *img;
  size_t n;
  assert_true(cache_get_alias(ca, raw_b, &img, &n));
  assert_memory_equal(img, prog_b, sizeof prog_b);
  free(img);
  char from[4200], to[4200];
  /* A's alias over B's: B's lookup must not find A's program. */
  swap_in(dir, raw_a, raw_b, ".alias", from, to);
  assert_false(cache_get_alias(ca, raw_b, &img, &n));
  struct stat st;
  assert_int_not_equal(stat(to, &st), 0);
  assert_int_equal(stat(from, &st), 0);
  /* A's entry over B's: B's lookup misses and the impostor is removed. */
  swap_in(dir, key_a, key_b, ".tpuc", from, to);
  assert_false(cache_get(ca, key_b, &img, &n));
  assert_int_not_equal(stat(to, &st), 0);
  assert_true(cache_get(ca, key_a, &img, &n));
  assert_memory_equal(img, prog_a, sizeof prog_a);
  free(img);
  assert_int_equal(warnings_with(&t, "belongs to another input"), 1);
  assert_int_equal(warnings_with(&t, "holds another key"), 1);
  test_cache_close(&t);
}

/* Least recently used first, down to the bound. */
static void test_eviction(void **state) {
  (void)state;
  char *dir = temp_dir();
  uint8_t payload[1000] = {0};
  /* Room for two entries of 64 + 1000 bytes. */
  Cache *ca = cache_open(dir, 2 * 1064 + 100, "test", stderr);
  assert_non_null(ca);
  CacheKey a = {0, 1}, b = {0, 2}, c = {0, 3};
  cache_put(ca, a, NULL, payload, sizeof payload);
  usleep(20000);
  cache_put(ca, b, NULL, payload, sizeof payload);
  usleep(20000);
  uint8_t *img;
  size_t n;
  assert_true(cache_get(ca, a, &img, &n)); /* a is now more recent than b */
  free(img);
  usleep(20000);
  cache_put(ca, c, NULL, payload, sizeof payload);
  assert_true(cache_has(ca, a));
  assert_false(cache_has(ca, b));
  assert_true(cache_has(ca, c));
  cache_close(ca);
  remove_dir(dir);
  free(dir);
}

int run_cache_tests(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_key_stable),
      cmocka_unit_test(test_key_sensitive),
      cmocka_unit_test(test_entries),
      cmocka_unit_test(test_swapped_files),
      cmocka_unit_test(test_eviction),
  };
  return cmocka_run_group_tests_name("cache", tests, NULL, NULL);
}
