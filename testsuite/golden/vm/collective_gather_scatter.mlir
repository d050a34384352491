// all_gather, reduce_scatter and all_to_all over simulated chips
// (vm/kernels/collective.c): the members' parts in group order, several operands,
// cross_replica, cross_partition and flattened_ids groups, reductions by
// the fast path (max) and by the region (10 a + b, in group order), and
// all_to_all with split and concat dimensions equal and different.
// RUN: %tpurun --check --threads=1 %s | FileCheck %s --implicit-check-not=FAIL
// RUN: %tpurun --check --threads=4 %s | FileCheck %s --implicit-check-not=FAIL
// RUN: %tpurun -O0 --check %s | FileCheck %s --implicit-check-not=FAIL
// CHECK-COUNT-22: PASS
// CHECK: checks: 22 passed, 0 failed

module @gather_scatter {
  // 2 replicas x 2 partitions; groups of replicas 1 then 0 on each partition.
  func.func @gather2(%x : tensor<2x2xi64>, %y : tensor<1x3xbf16>) -> (tensor<2x4xi64>, tensor<1x6xbf16>, tensor<4x2xi32>) {
    %r:2 = "stablehlo.all_gather"(%x, %y) {all_gather_dim = 1 : i64, replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>} : (tensor<2x2xi64>, tensor<1x3xbf16>) -> (tensor<2x4xi64>, tensor<1x6xbf16>)
    %c = stablehlo.slice %x [0:1, 0:2] : (tensor<2x2xi64>) -> tensor<1x2xi64>
    %ci = stablehlo.convert %c : (tensor<1x2xi64>) -> tensor<1x2xi32>
    // flattened_ids: chips 3, 2, 1, 0 in that order.
    %f = "stablehlo.all_gather"(%ci) {all_gather_dim = 0 : i64, replica_groups = dense<[[3, 2, 1, 0]]> : tensor<1x4xi64>, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, use_global_device_ids} : (tensor<1x2xi32>) -> tensor<4x2xi32>
    return %r#0, %r#1, %f : tensor<2x4xi64>, tensor<1x6xbf16>, tensor<4x2xi32>
  }
  // x_c[r][j] = v + 10c, v = 8r + j, on 4 replicas.  f(a, b) = 10 a + b
  // folded in the group order 3, 1, 0, 2 gives 1000 x3 + 100 x1 + 10 x0 +
  // x2 = 1111 v + 31020; chip k gets the columns of its index in that order.
  func.func @scatter_sub(%x : tensor<2x8xi32>) -> tensor<2x2xi32> {
    %r = "stablehlo.reduce_scatter"(%x) ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        %ten = stablehlo.constant dense<10> : tensor<i32>
        %m = stablehlo.multiply %a, %ten : tensor<i32>
        %s = stablehlo.add %m, %b : tensor<i32>
        stablehlo.return %s : tensor<i32>
    }) {scatter_dimension = 1 : i64, replica_groups = dense<[[3, 1, 0, 2]]> : tensor<1x4xi64>} : (tensor<2x8xi32>) -> tensor<2x2xi32>
    return %r : tensor<2x2xi32>
  }
  // max over groups {0, 1} and {2, 3} of x_c = (c + 1) * v, v = 0..15 as
  // 2x4x2, scattered along the middle dimension.
  func.func @scatter_max(%x : tensor<2x4x2xi32>) -> tensor<2x2x2xi32> {
    %r = "stablehlo.reduce_scatter"(%x) ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        %s = stablehlo.maximum %a, %b : tensor<i32>
        stablehlo.return %s : tensor<i32>
    }) {scatter_dimension = 1 : i64, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>} : (tensor<2x4x2xi32>) -> tensor<2x2x2xi32>
    return %r : tensor<2x2x2xi32>
  }
  // The spec's example on 2 partitions (channel: cross_partition).
  func.func @a2a(%x : tensor<2x4xi64>, %y : tensor<2x4xi64>) -> (tensor<4x2xi64>, tensor<4x2xi64>) {
    %r:2 = "stablehlo.all_to_all"(%x, %y) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<2x4xi64>, tensor<2x4xi64>) -> (tensor<4x2xi64>, tensor<4x2xi64>)
    return %r#0, %r#1 : tensor<4x2xi64>, tensor<4x2xi64>
  }
  // split = concat = 0 on 3 replicas in the order 2, 0, 1.
  func.func @a2a_same(%x : tensor<3x2xi32>) -> tensor<3x2xi32> {
    %r = "stablehlo.all_to_all"(%x) {split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 3 : i64, replica_groups = dense<[[2, 0, 1]]> : tensor<1x3xi64>} : (tensor<3x2xi32>) -> tensor<3x2xi32>
    return %r : tensor<3x2xi32>
  }
  func.func @main() {
    %x0 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
    %x1 = stablehlo.constant dense<[[11, 12], [13, 14]]> : tensor<2x2xi64>
    %x2 = stablehlo.constant dense<[[21, 22], [23, 24]]> : tensor<2x2xi64>
    %x3 = stablehlo.constant dense<[[31, 32], [33, 34]]> : tensor<2x2xi64>
    %y0 = stablehlo.constant dense<[[0.0, 0.5, 0.25]]> : tensor<1x3xbf16>
    %y1 = stablehlo.constant dense<[[1.0, 1.5, 1.25]]> : tensor<1x3xbf16>
    %y2 = stablehlo.constant dense<[[2.0, 2.5, 2.25]]> : tensor<1x3xbf16>
    %y3 = stablehlo.constant dense<[[3.0, 3.5, 3.25]]> : tensor<1x3xbf16>
    %g:12 = "interpreter.run_parallel"(%x0, %y0, %x1, %y1, %x2, %y2, %x3, %y3) {programs = [[@gather2, @gather2], [@gather2, @gather2]]} : (tensor<2x2xi64>, tensor<1x3xbf16>, tensor<2x2xi64>, tensor<1x3xbf16>, tensor<2x2xi64>, tensor<1x3xbf16>, tensor<2x2xi64>, tensor<1x3xbf16>) -> (tensor<2x4xi64>, tensor<1x6xbf16>, tensor<4x2xi32>, tensor<2x4xi64>, tensor<1x6xbf16>, tensor<4x2xi32>, tensor<2x4xi64>, tensor<1x6xbf16>, tensor<4x2xi32>, tensor<2x4xi64>, tensor<1x6xbf16>, tensor<4x2xi32>)
    check.expect_eq_const %g#0, dense<[[21, 22, 1, 2], [23, 24, 3, 4]]> : tensor<2x4xi64>
    check.expect_eq_const %g#1, dense<[[2.0, 2.5, 2.25, 0.0, 0.5, 0.25]]> : tensor<1x6xbf16>
    check.expect_eq_const %g#3, dense<[[31, 32, 11, 12], [33, 34, 13, 14]]> : tensor<2x4xi64>
    check.expect_eq_const %g#4, dense<[[3.0, 3.5, 3.25, 1.0, 1.5, 1.25]]> : tensor<1x6xbf16>
    check.expect_eq_const %g#6, dense<[[21, 22, 1, 2], [23, 24, 3, 4]]> : tensor<2x4xi64>
    check.expect_eq_const %g#10, dense<[[3.0, 3.5, 3.25, 1.0, 1.5, 1.25]]> : tensor<1x6xbf16>
    check.expect_eq_const %g#2, dense<[[31, 32], [21, 22], [11, 12], [1, 2]]> : tensor<4x2xi32>
    check.expect_eq_const %g#11, dense<[[31, 32], [21, 22], [11, 12], [1, 2]]> : tensor<4x2xi32>

    %iota = stablehlo.iota dim = 0 : tensor<16xi32>
    %v = stablehlo.reshape %iota : (tensor<16xi32>) -> tensor<2x8xi32>
    %ten = stablehlo.constant dense<10> : tensor<2x8xi32>
    %s1 = stablehlo.add %v, %ten : tensor<2x8xi32>
    %s2 = stablehlo.add %s1, %ten : tensor<2x8xi32>
    %s3 = stablehlo.add %s2, %ten : tensor<2x8xi32>
    %s:4 = "interpreter.run_parallel"(%v, %s1, %s2, %s3) {programs = [[@scatter_sub], [@scatter_sub], [@scatter_sub], [@scatter_sub]]} : (tensor<2x8xi32>, tensor<2x8xi32>, tensor<2x8xi32>, tensor<2x8xi32>) -> (tensor<2x2xi32>, tensor<2x2xi32>, tensor<2x2xi32>, tensor<2x2xi32>)
    check.expect_eq_const %s#0, dense<[[35464, 36575], [44352, 45463]]> : tensor<2x2xi32>
    check.expect_eq_const %s#1, dense<[[33242, 34353], [42130, 43241]]> : tensor<2x2xi32>
    check.expect_eq_const %s#2, dense<[[37686, 38797], [46574, 47685]]> : tensor<2x2xi32>
    check.expect_eq_const %s#3, dense<[[31020, 32131], [39908, 41019]]> : tensor<2x2xi32>

    %w = stablehlo.reshape %iota : (tensor<16xi32>) -> tensor<2x4x2xi32>
    %w1 = stablehlo.add %w, %w : tensor<2x4x2xi32>
    %w2 = stablehlo.add %w1, %w : tensor<2x4x2xi32>
    %w3 = stablehlo.add %w2, %w : tensor<2x4x2xi32>
    %m:4 = "interpreter.run_parallel"(%w, %w1, %w2, %w3) {programs = [[@scatter_max], [@scatter_max], [@scatter_max], [@scatter_max]]} : (tensor<2x4x2xi32>, tensor<2x4x2xi32>, tensor<2x4x2xi32>, tensor<2x4x2xi32>) -> (tensor<2x2x2xi32>, tensor<2x2x2xi32>, tensor<2x2x2xi32>, tensor<2x2x2xi32>)
    check.expect_eq_const %m#0, dense<[[[0, 2], [4, 6]], [[16, 18], [20, 22]]]> : tensor<2x2x2xi32>
    check.expect_eq_const %m#1, dense<[[[8, 10], [12, 14]], [[24, 26], [28, 30]]]> : tensor<2x2x2xi32>
    check.expect_eq_const %m#3, dense<[[[16, 20], [24, 28]], [[48, 52], [56, 60]]]> : tensor<2x2x2xi32>

    %o10 = stablehlo.constant dense<[[1, 2, 3, 4], [5, 6, 7, 8]]> : tensor<2x4xi64>
    %o11 = stablehlo.constant dense<[[9, 10, 11, 12], [13, 14, 15, 16]]> : tensor<2x4xi64>
    %o20 = stablehlo.constant dense<[[17, 18, 19, 20], [21, 22, 23, 24]]> : tensor<2x4xi64>
    %o21 = stablehlo.constant dense<[[25, 26, 27, 28], [29, 30, 31, 32]]> : tensor<2x4xi64>
    %a:4 = "interpreter.run_parallel"(%o10, %o20, %o11, %o21) {programs = [[@a2a, @a2a]]} : (tensor<2x4xi64>, tensor<2x4xi64>, tensor<2x4xi64>, tensor<2x4xi64>) -> (tensor<4x2xi64>, tensor<4x2xi64>, tensor<4x2xi64>, tensor<4x2xi64>)
    check.expect_eq_const %a#0, dense<[[1, 2], [5, 6], [9, 10], [13, 14]]> : tensor<4x2xi64>
    check.expect_eq_const %a#1, dense<[[17, 18], [21, 22], [25, 26], [29, 30]]> : tensor<4x2xi64>
    check.expect_eq_const %a#2, dense<[[3, 4], [7, 8], [11, 12], [15, 16]]> : tensor<4x2xi64>
    check.expect_eq_const %a#3, dense<[[19, 20], [23, 24], [27, 28], [31, 32]]> : tensor<4x2xi64>

    %t0 = stablehlo.constant dense<[[0, 1], [2, 3], [4, 5]]> : tensor<3x2xi32>
    %t1 = stablehlo.constant dense<[[10, 11], [12, 13], [14, 15]]> : tensor<3x2xi32>
    %t2 = stablehlo.constant dense<[[20, 21], [22, 23], [24, 25]]> : tensor<3x2xi32>
    %t:3 = "interpreter.run_parallel"(%t0, %t1, %t2) {programs = [[@a2a_same], [@a2a_same], [@a2a_same]]} : (tensor<3x2xi32>, tensor<3x2xi32>, tensor<3x2xi32>) -> (tensor<3x2xi32>, tensor<3x2xi32>, tensor<3x2xi32>)
    check.expect_eq_const %t#0, dense<[[22, 23], [2, 3], [12, 13]]> : tensor<3x2xi32>
    check.expect_eq_const %t#1, dense<[[24, 25], [4, 5], [14, 15]]> : tensor<3x2xi32>
    check.expect_eq_const %t#2, dense<[[20, 21], [0, 1], [10, 11]]> : tensor<3x2xi32>
    func.return
  }
}
