/* Shardings (ir/sharding.h): GSPMD strings (ir/sharding.c) and Shardy
 * attributes (ir/sharding_sdy.c) read into the tile assignment, with their
 * refusals; the two readers agree on equal layouts. */
#include "ir/sharding.h"
#include "testsuite/unit/unit_tests.h"

/* The module the Shardy tests read their meshes from. */
static const char *const MESHES = "module {\n"
                                  "  sdy.mesh @mesh = <[\"x\"=2, \"y\"=4]>\n"
                                  "  sdy.mesh @m4 = <[\"x\"=4]>\n"
                                  "  sdy.mesh @m6 = <[\"x\"=6]>\n"
                                  "  sdy.mesh @ids = <[\"x\"=2, \"y\"=2], device_ids=[3, 2, 1, 0]>\n"
                                  "  sdy.mesh @empty = <[]>\n"
                                  "  sdy.mesh @max = <[], device_ids=[3]>\n"
                                  "  sdy.mesh @bad = <[\"x\"=2], device_ids=[0, 0]>\n"
                                  "}\n";

/* Reads text against MESHES; fails the test when refused. */
static Sharding sdy(const char *text) {
  if (!cur) cur = parse_text(MESHES);
  assert_non_null(cur->m);
  Sharding s;
  char why[SHARDING_WHY_LEN];
  if (!sharding_parse_sdy(&cur->c->arena, cur->m, text, &s, why)) fail_msg("%s refused: %s", text, why);
  return s;
}

/* Text must be refused with a reason containing msg. */
static void sdy_refused(const char *text, const char *msg) {
  if (!cur) cur = parse_text(MESHES);
  Sharding s;
  char why[SHARDING_WHY_LEN];
  if (sharding_parse_sdy(&cur->c->arena, cur->m, text, &s, why)) fail_msg("%s was accepted", text);
  assert_contains(why, msg);
}

/* s is TILED with the given tiles, replicas and devices. */
static void assert_tiled(const Sharding *s, int rank, const int64_t *tiles, int64_t replicas, const int64_t *devices) {
  assert_int_equal(s->kind, SHARDING_TILED);
  assert_int_equal(s->rank, rank);
  for (int d = 0; d < rank; d++) assert_int_equal(s->tiles[d], tiles[d]);
  assert_int_equal(s->replicas, replicas);
  int64_t n = replicas;
  for (int d = 0; d < rank; d++) n *= tiles[d];
  assert_int_equal(s->ndevices, n);
  for (int64_t i = 0; i < n; i++) assert_int_equal(s->devices[i], devices[i]);
}

static const int64_t IOTA8[] = {0, 1, 2, 3, 4, 5, 6, 7};

static void test_sdy_mesh_order(void **state) {
  (void)state;
  Sharding s = sdy("#sdy.sharding<@mesh, [{\"x\"}, {\"y\"}]>");
  assert_tiled(&s, 2, (int64_t[]){2, 4}, 1, IOTA8);
  /* Priorities and closed/open dims do not change the layout. */
  s = sdy("#sdy.sharding<@mesh, [{\"x\"}p0, {\"y\", ?}p1]>");
  assert_tiled(&s, 2, (int64_t[]){2, 4}, 1, IOTA8);
}

static void test_sdy_transposed_axes(void **state) {
  (void)state;
  /* dim 0 over y, dim 1 over x: devices transposed to [y, x]. */
  Sharding s = sdy("#sdy.sharding<@mesh, [{\"y\"}, {\"x\"}]>");
  assert_tiled(&s, 2, (int64_t[]){4, 2}, 1, (int64_t[]){0, 4, 1, 5, 2, 6, 3, 7});
  /* Both axes on one dim, minor first. */
  s = sdy("#sdy.sharding<@mesh, [{\"y\", \"x\"}, {}]>");
  assert_tiled(&s, 2, (int64_t[]){8, 1}, 1, (int64_t[]){0, 4, 1, 5, 2, 6, 3, 7});
}

static void test_sdy_replicated_axes(void **state) {
  (void)state;
  /* The unused axis x counts the replicas, last. */
  Sharding s = sdy("#sdy.sharding<@mesh, [{\"y\"}, {}]>");
  assert_tiled(&s, 2, (int64_t[]){4, 1}, 2, (int64_t[]){0, 4, 1, 5, 2, 6, 3, 7});
  s = sdy("#sdy.sharding<@mesh, [{\"x\", ?}, {?}], replicated={\"y\"}>");
  assert_tiled(&s, 2, (int64_t[]){2, 1}, 4, IOTA8);
  s = sdy("#sdy.sharding<@mesh, [{}, {}], replicated={\"x\"}, unreduced={\"y\"}>");
  assert_int_equal(s.kind, SHARDING_REPLICATED);
  assert_int_equal(s.rank, 2);
  s = sdy("#sdy.sharding<@empty, [{}]>");
  assert_int_equal(s.kind, SHARDING_REPLICATED);
}

static void test_sdy_sub_axes(void **state) {
  (void)state;
  /* x=4 cut into "x":(1)2 (major) and "x":(2)2 (minor). */
  Sharding s = sdy("#sdy.sharding<@m4, [{\"x\":(2)2}, {\"x\":(1)2}]>");
  assert_tiled(&s, 2, (int64_t[]){2, 2}, 1, (int64_t[]){0, 2, 1, 3});
  s = sdy("#sdy.sharding<@m4, [{\"x\":(1)2}, {}]>");
  assert_tiled(&s, 2, (int64_t[]){2, 1}, 2, (int64_t[]){0, 1, 2, 3});
  s = sdy("#sdy.sharding<@m4, [{\"x\":(2)2}, {}]>");
  assert_tiled(&s, 2, (int64_t[]){2, 1}, 2, (int64_t[]){0, 2, 1, 3});
  /* x=6 cut at 2: "x":(1)2 then "x":(2)3. */
  s = sdy("#sdy.sharding<@m6, [{\"x\":(2)3}]>");
  assert_tiled(&s, 1, (int64_t[]){3}, 2, (int64_t[]){0, 3, 1, 4, 2, 5});
}

static void test_sdy_device_ids(void **state) {
  (void)state;
  Sharding s = sdy("#sdy.sharding<@ids, [{\"x\"}, {\"y\"}]>");
  assert_tiled(&s, 2, (int64_t[]){2, 2}, 1, (int64_t[]){3, 2, 1, 0});
  s = sdy("#sdy.sharding<@ids, [{\"y\"}, {}]>");
  assert_tiled(&s, 2, (int64_t[]){2, 1}, 2, (int64_t[]){3, 1, 2, 0});
  s = sdy("#sdy.sharding<mesh<[\"a\"=2, \"b\"=2], device_ids=[1, 0, 3, 2]>, [{\"b\"}]>");
  assert_tiled(&s, 1, (int64_t[]){2}, 2, (int64_t[]){1, 3, 0, 2});
}

static void test_sdy_maximal_and_inline(void **state) {
  (void)state;
  Sharding s = sdy("#sdy.sharding<@max, [{}, {}]>");
  assert_int_equal(s.kind, SHARDING_MAXIMAL);
  assert_int_equal(s.device, 3);
  s = sdy("#sdy.sharding<mesh<[], device_ids=[1]>, []>");
  assert_int_equal(s.kind, SHARDING_MAXIMAL);
  assert_int_equal(s.device, 1);
  s = sdy("#sdy.sharding<mesh<[\"a\"=2]>, [{\"a\"}]>");
  assert_tiled(&s, 1, (int64_t[]){2}, 1, IOTA8);
}

static void test_sdy_per_value(void **state) {
  (void)state;
  Sharding s = sdy("#sdy.sharding_per_value<[<@mesh, [{\"x\"}]>, <@mesh, []>, <@max, [{}]>]>");
  assert_int_equal(s.kind, SHARDING_TUPLE);
  assert_int_equal(s.nelems, 3);
  assert_tiled(&s.elems[0], 1, (int64_t[]){2}, 4, IOTA8);
  assert_int_equal(s.elems[1].kind, SHARDING_REPLICATED);
  assert_int_equal(s.elems[2].kind, SHARDING_MAXIMAL);
  s = sdy("#sdy.sharding_per_value<[]>");
  assert_int_equal(s.kind, SHARDING_TUPLE);
  assert_int_equal(s.nelems, 0);
}

static void test_sdy_refusals(void **state) {
  (void)state;
  sdy_refused("#sdy.sharding<@nowhere, [{}]>", "unknown mesh @nowhere");
  sdy_refused("#sdy.sharding<@mesh, [{\"z\"}]>", "unknown axis \"z\"");
  sdy_refused("#sdy.sharding<@mesh, [{\"x\"}, {\"x\"}]>", "axis \"x\" is used twice");
  sdy_refused("#sdy.sharding<@mesh, [{\"x\"}], replicated={\"x\"}>", "axis \"x\" is used twice");
  sdy_refused("#sdy.sharding<@m4, [{\"x\":(1)3}]>", "does not divide axis \"x\" of size 4");
  sdy_refused("#sdy.sharding<@m4, [{\"x\":(1)2}, {\"x\"}]>", "axis \"x\" is used twice");
  sdy_refused("#sdy.sharding<@m4, [{\"x\"}, {\"x\":(1)2}]>", "axis \"x\" is used twice (overlapping sub-axes)");
  sdy_refused("#sdy.sharding<@m6, [{\"x\":(1)2}, {\"x\":(1)3}]>", "overlap without nesting");
  sdy_refused("#sdy.sharding<@bad, [{}]>", "device_ids lists device 0 twice");
  sdy_refused("#sdy.sharding<mesh<[\"a\"=2], device_ids=[0]>, [{}]>", "the mesh has 2 devices but device_ids lists 1");
  sdy_refused("#sdy.sharding<mesh<[\"a\"=2, \"a\"=2]>, [{}]>", "named twice");
  sdy_refused("#sdy.sharding<@mesh, [{\"x\"}]", "expected '>' closing the sharding");
  sdy_refused("#sdy.sharding<@mesh, [{\"x\"}]> junk", "unexpected text after the sharding");
  sdy_refused("#sdy.sharding<@mesh [{\"x\"}]>", "expected ',' after the mesh");
  sdy_refused("#sdy.sharding<@mesh, [{\"x\" \"y\"}]>", "expected ',' or '}' in a dimension sharding");
  sdy_refused("#sdy.sharding<@mesh, [{\"x}]>", "unterminated axis name");
  sdy_refused("#sdy.sharding<@mesh, [{x}]>", "expected a quoted axis name");
  sdy_refused("#sdy.sharding<@mesh, [{}], bogus={}>", "expected replicated= or unreduced=");
  sdy_refused("#sdy.sharding<mesh<[\"a\"=0]>, [{}]>", "has size 0");
  sdy_refused("#sdy.shardingx<@mesh, []>", "expected '<' of a sharding");
  sdy_refused("{devices=[2]<=[2]}", "not a Shardy sharding");
  sdy_refused("#sdy.sharding_per_value<[<@mesh, [{}]>, <@nowhere, []>]>", "unknown mesh @nowhere");
  sdy_refused("#sdy.sharding<@mesh, [{\"x\":(1)99999999999999999999}]>", "number too large");
}

static void test_sdy_manual_shape(void **state) {
  (void)state;
  if (!cur) cur = parse_text(MESHES);
  char why[SHARDING_WHY_LEN];
  int64_t out[2];
  const char *text = "#sdy.sharding_per_value<[<@mesh, [{\"x\"}, {\"y\"}]>, <@mesh, [{\"y\", \"x\"}, {}]>]>";
  assert_true(sharding_sdy_manual_shape(&cur->c->arena, cur->m, text, 0, "{\"x\"}", 2, (int64_t[]){8, 8}, out, why));
  assert_int_equal(out[0], 4);
  assert_int_equal(out[1], 8);
  assert_true(
      sharding_sdy_manual_shape(&cur->c->arena, cur->m, text, 1, "#sdy<manual_axes{\"x\", \"y\"}>", 2, (int64_t[]){16, 3}, out, why));
  assert_int_equal(out[0], 2);
  assert_int_equal(out[1], 3);
  assert_false(sharding_sdy_manual_shape(&cur->c->arena, cur->m, text, 0, "{\"y\"}", 2, (int64_t[]){8, 6}, out, why));
  assert_contains(why, "dimension 1 of size 6 is not a multiple of its 4 manual shards");
  assert_false(sharding_sdy_manual_shape(&cur->c->arena, cur->m, text, 0, "{\"q\"}", 2, (int64_t[]){8, 8}, out, why));
  assert_contains(why, "manual axis \"q\" is not in the mesh");
  assert_false(sharding_sdy_manual_shape(&cur->c->arena, cur->m, text, 0, "{}", 3, (int64_t[]){8, 8, 8}, out, why));
  assert_contains(why, "sharding #0 has 2 dimensions for a value of rank 3");
}


static void test_sdy_mesh_reader(void **state) {
  (void)state;
  if (!cur) cur = parse_text(MESHES);
  char why[SHARDING_WHY_LEN];
  int naxes;
  int64_t n, device;
  assert_true(sharding_sdy_mesh(&cur->c->arena, "#sdy.mesh<[\"x\"=2, \"y\"=4]>", &naxes, &n, &device, why));
  assert_int_equal(naxes, 2);
  assert_int_equal(n, 8);
  assert_int_equal(device, -1);
  assert_true(sharding_sdy_mesh(&cur->c->arena, "#sdy.mesh<[], device_ids=[5]>", &naxes, &n, &device, why));
  assert_int_equal(naxes, 0);
  assert_int_equal(n, 1);
  assert_int_equal(device, 5);
  assert_true(sharding_sdy_mesh(&cur->c->arena, "#sdy.mesh<[]>", &naxes, &n, &device, why));
  assert_int_equal(device, -1);
  assert_false(sharding_sdy_mesh(&cur->c->arena, "#sdy.mesh<[\"x\"=2]> x", &naxes, &n, &device, why));
  assert_contains(why, "unexpected text after the mesh");
  assert_false(sharding_sdy_mesh(&cur->c->arena, "#sdy.sharding<@m, []>", &naxes, &n, &device, why));
  assert_contains(why, "not a #sdy.mesh");
  assert_false(sharding_sdy_mesh(&cur->c->arena, "#sdy.mesh<[\"x\"=4096, \"y\"=2]>", &naxes, &n, &device, why));
  assert_contains(why, "a mesh of more than 4096 devices");
}

/* ------------------------------------------------------------- GSPMD */

/* Reads a GSPMD string; fails the test when refused. */
static Sharding gspmd(const char *text) {
  if (!cur) cur = parse_text(MESHES);
  Sharding s;
  char why[SHARDING_WHY_LEN];
  if (!sharding_parse_gspmd(&cur->c->arena, text, strlen(text), &s, why)) fail_msg("%s refused: %s", text, why);
  return s;
}

static void gspmd_refused(const char *text, const char *msg) {
  if (!cur) cur = parse_text(MESHES);
  Sharding s;
  char why[SHARDING_WHY_LEN];
  if (sharding_parse_gspmd(&cur->c->arena, text, strlen(text), &s, why)) fail_msg("%s was accepted", text);
  assert_contains(why, msg);
}

static void test_gspmd_iota_and_lists(void **state) {
  (void)state;
  Sharding s = gspmd("{devices=[2,4]<=[8]}");
  assert_tiled(&s, 2, (int64_t[]){2, 4}, 1, IOTA8);
  s = gspmd("{devices=[2,2]<=[2,2]T(1,0)}");
  assert_tiled(&s, 2, (int64_t[]){2, 2}, 1, (int64_t[]){0, 2, 1, 3});
  s = gspmd("{devices=[4,1]<=[2,2]T(1,0)}");
  assert_tiled(&s, 2, (int64_t[]){4, 1}, 1, (int64_t[]){0, 2, 1, 3});
  s = gspmd("{devices=[2,1]1,0}");
  assert_tiled(&s, 2, (int64_t[]){2, 1}, 1, (int64_t[]){1, 0});
  s = gspmd("{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  assert_tiled(&s, 2, (int64_t[]){2, 1}, 2, (int64_t[]){0, 1, 2, 3});
  assert_false(s.partial_manual);
  s = gspmd("{devices=[2,1,2]3,2,1,0 last_tile_dims={manual}}");
  assert_tiled(&s, 2, (int64_t[]){2, 1}, 2, (int64_t[]){3, 2, 1, 0});
  assert_true(s.partial_manual);
  s = gspmd("{devices=[1,2,2,2]<=[8] last_tile_dims={manual, replicated}}");
  assert_tiled(&s, 2, (int64_t[]){1, 2}, 4, IOTA8);
}

static void test_gspmd_kinds(void **state) {
  (void)state;
  assert_int_equal(gspmd("{replicated}").kind, SHARDING_REPLICATED);
  assert_int_equal(gspmd("{manual}").kind, SHARDING_MANUAL);
  assert_int_equal(gspmd("{unknown}").kind, SHARDING_UNKNOWN);
  Sharding s = gspmd("{maximal device=3 metadata={op_name=\"f\"}}");
  assert_int_equal(s.kind, SHARDING_MAXIMAL);
  assert_int_equal(s.device, 3);
  s = gspmd("{{replicated}, {devices=[2]<=[2]}, {maximal device=1}}");
  assert_int_equal(s.kind, SHARDING_TUPLE);
  assert_int_equal(s.nelems, 3);
  assert_tiled(&s.elems[1], 1, (int64_t[]){2}, 1, IOTA8);
  /* A tiling into one piece is whole: equal to {replicated}. */
  s = gspmd("{devices=[1,1,4]<=[4] last_tile_dim_replicate}");
  assert_true(sharding_is_whole(&s));
  Sharding r = gspmd("{replicated}");
  assert_true(sharding_equal(&s, &r));
}

static void test_gspmd_refusals(void **state) {
  (void)state;
  gspmd_refused("{replicatd}", "expected replicated, maximal, manual, unknown or devices=");
  gspmd_refused("{devices=[2,2]<=[3]}", "the tile dims ask for 4 devices");
  gspmd_refused("{devices=[2,2]0,1,2}", "the tile dims ask for 4 devices but 3 are listed");
  gspmd_refused("{devices=[2,2]<=[2,2]T(0,0)}", "not a permutation");
  gspmd_refused("{maximal}", "expected device=N");
  gspmd_refused("{replicated} x", "trailing text");
}

static void test_gspmd_fits(void **state) {
  (void)state;
  if (!cur) cur = parse_text(MESHES);
  Context *c = cur->c;
  char why[SHARDING_WHY_LEN];
  Type *t = type_tensor(c, ELEM_F32, 2, (int64_t[]){4, 2}, NULL);
  Sharding s = gspmd("{devices=[2,2]<=[4]}");
  assert_true(sharding_fits(&s, t, 4, why));
  assert_false(sharding_fits(&s, t, 2, why));
  s = gspmd("{devices=[2]<=[2]}");
  assert_false(sharding_fits(&s, t, 4, why));
  assert_contains(why, "rank 2");
  assert_false(sharding_fits(&s, type_token(c), 2, why));
  Type *dyn = type_tensor(c, ELEM_F32, 1, (int64_t[]){DIM_DYNAMIC}, NULL);
  assert_false(sharding_fits(&s, dyn, 2, why));
  assert_contains(why, "dynamic");
}

/* GSPMD and Shardy spellings of one layout read equal. */
static void test_gspmd_equals_sdy(void **state) {
  (void)state;
  struct {
    const char *sdy, *gspmd;
  } pairs[] = {
      {"#sdy.sharding<@mesh, [{\"x\"}, {\"y\"}]>", "{devices=[2,4]<=[8]}"},
      {"#sdy.sharding<@mesh, [{\"y\"}, {}]>", "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"},
      {"#sdy.sharding<@mesh, [{}, {\"x\"}]>", "{devices=[1,2,4]<=[8] last_tile_dim_replicate}"},
      {"#sdy.sharding<@ids, [{\"x\"}, {\"y\"}]>", "{devices=[2,2]3,2,1,0}"},
      {"#sdy.sharding<@mesh, [{}, {}]>", "{replicated}"},
      {"#sdy.sharding<@max, [{}, {}]>", "{maximal device=3}"},
  };
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    Sharding a = sdy(pairs[i].sdy), b = gspmd(pairs[i].gspmd);
    if (!sharding_equal(&a, &b))
      fail_msg("%s reads %s, not %s", pairs[i].sdy, sharding_to_string(&cur->c->arena, &a), pairs[i].gspmd);
  }
}

int run_sharding_tests(void) {
#define T(f) cmocka_unit_test_teardown(f, parsed_teardown)
  const struct CMUnitTest tests[] = {
      T(test_sdy_mesh_order),    T(test_sdy_transposed_axes),    T(test_sdy_replicated_axes),
      T(test_sdy_sub_axes),      T(test_sdy_device_ids),         T(test_sdy_maximal_and_inline),
      T(test_sdy_per_value),     T(test_sdy_refusals),           T(test_sdy_manual_shape),
      T(test_gspmd_iota_and_lists), T(test_gspmd_kinds),         T(test_gspmd_refusals),
      T(test_gspmd_fits),        T(test_gspmd_equals_sdy),       T(test_sdy_mesh_reader),
  };
#undef T
  return cmocka_run_group_tests_name("sharding", tests, NULL, NULL);
}
