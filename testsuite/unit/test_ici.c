/* The multislice model of common/ici.h: each collective kind's DCN stage
 * against hand-computed figures, and the hierarchical time of a group
 * across slices, while a group inside one slice (or a run of one slice)
 * costs what the single-torus ICI model gives. */
#include "common/ici.h"
#include "testsuite/unit/unit_tests.h"

#define BW 3.125e9 /* v5e's DCN share per chip */
#define ALPHA 1e-5
#define NEAR(a, b) assert_true(fabs((a) - (b)) <= 1e-12 + 1e-9 * fabs(b))

/* Two slices of a 2x2 mesh each (8 chips), v5e's ICI and DCN. */
static IciFabric two_slices(void) {
  IciFabric f = {.slices = 2, .link_bytes_per_s = 45e9, .hop_s = 1e-6, .dcn_bytes_per_s = BW, .dcn_s = ALPHA};
  ici_default_mesh(4, 2, &f.mesh);
  return f;
}

/* Every kind's formula (ici_dcn_seconds) for 1 MB, by hand. */
static void test_dcn_formulas(void **state) {
  (void)state;
  double b = 1e6;
  /* ring all-reduce of the 1/4 shard over 2 slices: 2 x (1/2 x 250 kB / BW + alpha) */
  NEAR(ici_dcn_seconds(ICI_ALL_REDUCE, b, 2, 4, BW, ALPHA), 2 * (0.5 * 250e3 / BW + ALPHA));
  NEAR(ici_dcn_seconds(ICI_ALL_REDUCE, b, 2, 4, BW, ALPHA), 1e-4);
  NEAR(ici_dcn_seconds(ICI_REDUCE_SCATTER, b, 2, 4, BW, ALPHA), 5e-5);
  NEAR(ici_dcn_seconds(ICI_ALL_GATHER, b, 2, 4, BW, ALPHA), 5e-5);
  /* 3 of 4 slices' blocks leave over the chip's NIC, 3 messages */
  NEAR(ici_dcn_seconds(ICI_ALL_TO_ALL, b, 4, 2, BW, ALPHA), 0.75 * b / BW + 3 * ALPHA);
  NEAR(ici_dcn_seconds(ICI_COLLECTIVE_BROADCAST, b, 3, 2, BW, ALPHA), b / BW + 2 * ALPHA);
  NEAR(ici_dcn_seconds(ICI_COLLECTIVE_PERMUTE, b, 2, 1, BW, ALPHA), b / BW + ALPHA);
  NEAR(ici_dcn_seconds(ICI_SEND_RECV, b, 2, 1, BW, ALPHA), b / BW + ALPHA);
  /* one slice, no DCN, or no bandwidth: nothing */
  assert_true(ici_dcn_seconds(ICI_ALL_REDUCE, b, 1, 8, BW, ALPHA) == 0);
  assert_true(ici_dcn_seconds(ICI_ALL_REDUCE, b, 2, 4, 0, ALPHA) == 0);
}

/* One slice: exactly the torus model, for every kind. */
static void test_one_slice_unchanged(void **state) {
  (void)state;
  IciFabric f = {.slices = 1, .link_bytes_per_s = 45e9, .hop_s = 1e-6, .dcn_bytes_per_s = BW, .dcn_s = ALPHA};
  ici_default_mesh(8, 2, &f.mesh);
  int group[8] = {0, 1, 2, 3, 4, 5, 6, 7}, scratch[8];
  for (int k = ICI_ALL_GATHER; k <= ICI_SEND_RECV; k++) {
    double want = ici_collective_seconds((IciCollective)k, 4e6, group, 8, &f.mesh, 45e9, 1e-6);
    IciTime t = ici_fabric_seconds((IciCollective)k, 4e6, group, 8, &f, scratch);
    assert_true(t.total_s == want && t.ici_s == want && t.dcn_s == 0);
  }
}

/* A group inside one slice of two: the ICI model on that slice's torus,
 * its chips at their local ids; a broadcast keeps its root. */
static void test_group_in_one_slice(void **state) {
  (void)state;
  IciFabric f = two_slices();
  int group[4] = {4, 5, 6, 7}, local[4] = {0, 1, 2, 3}, scratch[4];
  IciTime t = ici_fabric_seconds(ICI_ALL_REDUCE, 4e6, group, 4, &f, scratch);
  assert_true(t.dcn_s == 0);
  assert_true(t.total_s == ici_collective_seconds(ICI_ALL_REDUCE, 4e6, local, 4, &f.mesh, 45e9, 1e-6));
  /* 1 x 4 line slices: broadcasting from local 1 reaches the end 2 hops
   * away, from local 0 it would be 3. */
  int dims[1] = {4};
  ici_mesh_init(&f.mesh, 1, dims, 2);
  int bcast[4] = {5, 4, 6, 7}, from1[4] = {1, 0, 2, 3};
  t = ici_fabric_seconds(ICI_COLLECTIVE_BROADCAST, 0, bcast, 4, &f, scratch);
  NEAR(t.total_s, ici_collective_seconds(ICI_COLLECTIVE_BROADCAST, 0, from1, 4, &f.mesh, 45e9, 1e-6));
  NEAR(t.total_s, 2e-6);
}

/* All 8 chips of two 4-chip slices: the slice's ICI all-reduce plus the
 * DCN ring all-reduce of a quarter; all_to_all's ICI stage moves the
 * slice's half of the blocks. */
static void test_across_slices(void **state) {
  (void)state;
  IciFabric f = two_slices();
  int group[8] = {0, 1, 2, 3, 4, 5, 6, 7}, local[4] = {0, 1, 2, 3}, scratch[8];
  double ici = ici_collective_seconds(ICI_ALL_REDUCE, 4e6, local, 4, &f.mesh, 45e9, 1e-6);
  IciTime t = ici_fabric_seconds(ICI_ALL_REDUCE, 4e6, group, 8, &f, scratch);
  NEAR(t.ici_s, ici);
  NEAR(t.dcn_s, 2 * (0.5 * 1e6 / BW + ALPHA));
  NEAR(t.total_s, t.ici_s + t.dcn_s);
  t = ici_fabric_seconds(ICI_ALL_TO_ALL, 4e6, group, 8, &f, scratch);
  NEAR(t.ici_s, ici_collective_seconds(ICI_ALL_TO_ALL, 2e6, local, 4, &f.mesh, 45e9, 1e-6));
  NEAR(t.dcn_s, 0.5 * 4e6 / BW + ALPHA);
  /* Uneven: 1 member in slice 1 carries the whole array's shard. */
  int uneven[3] = {0, 1, 4};
  t = ici_fabric_seconds(ICI_REDUCE_SCATTER, 4e6, uneven, 3, &f, scratch);
  NEAR(t.dcn_s, 0.5 * 4e6 / BW + ALPHA);
}

/* Permute pairs side by side: inside a slice on the ICI, across on the
 * DCN; the slowest sets the time. */
static void test_pairs(void **state) {
  (void)state;
  IciFabric f = two_slices();
  int pairs[4] = {0, 1, 3, 4}, inside[2] = {0, 1}, scratch[4];
  IciTime t = ici_fabric_seconds(ICI_COLLECTIVE_PERMUTE, 1e6, pairs, 4, &f, scratch);
  NEAR(t.ici_s, ici_collective_seconds(ICI_COLLECTIVE_PERMUTE, 1e6, inside, 2, &f.mesh, 45e9, 1e-6));
  NEAR(t.dcn_s, 1e6 / BW + ALPHA);
  NEAR(t.total_s, t.dcn_s);
  int local_only[2] = {5, 6}, as_local[2] = {1, 2};
  t = ici_fabric_seconds(ICI_COLLECTIVE_PERMUTE, 1e6, local_only, 2, &f, scratch);
  assert_true(t.dcn_s == 0);
  NEAR(t.total_s, ici_collective_seconds(ICI_COLLECTIVE_PERMUTE, 1e6, as_local, 2, &f.mesh, 45e9, 1e-6));
}

int run_ici_tests(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dcn_formulas),  cmocka_unit_test(test_one_slice_unchanged),
      cmocka_unit_test(test_group_in_one_slice), cmocka_unit_test(test_across_slices),
      cmocka_unit_test(test_pairs),
  };
  return cmocka_run_group_tests_name("ici", tests, NULL, NULL);
}
