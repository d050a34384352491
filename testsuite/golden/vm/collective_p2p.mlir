// collective_permute, collective_broadcast, collective_reduce, send and
// recv with source_target_pairs, replica_id and partition_id on simulated
// chips (vm/kernels/collective.c, vm/kernels/channel.c): chips nobody sends to get
// zeros, chips in no pair or group do not wait, a collective under an `if`
// taken by one chip only waits for its own group.
// RUN: %tpurun --check --threads=1 %s | FileCheck %s --implicit-check-not=FAIL
// RUN: %tpurun --check --threads=2 %s | FileCheck %s --implicit-check-not=FAIL
// RUN: %tpurun -O0 --check %s | FileCheck %s --implicit-check-not=FAIL
// RUN: %tpucc --emit=asm %s -o - | FileCheck %s --check-prefix=ASM
// CHECK-COUNT-28: PASS
// CHECK: checks: 28 passed, 0 failed
// ASM: collective_permute r0 pairs=[0, 1, 1, 2] mode=0 channel=0
// ASM: collective_permute r0 pairs=[1, 0] mode=1 channel=1
// ASM: send r{{[0-9]+}}, r{{[0-9]+}} pairs=[0, 1, 1, 2, 2, 0] mode=1 channel=3 host=0
// ASM: recv r{{[0-9]+}} pairs=[0, 1, 1, 2, 2, 0] mode=1 channel=3 host=0

module @p2p {
  // The spec's example: 0 -> 1 -> 2 (chip 0 gets zeros; chip 3, in no pair, too).
  func.func @permute(%x : tensor<2x2xi64>) -> tensor<2x2xi64> {
    %r = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>} : (tensor<2x2xi64>) -> tensor<2x2xi64>
    return %r : tensor<2x2xi64>
  }
  // cross_partition (channel): partition 1 -> partition 0 on each replica.
  func.func @permute_p(%x : tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
    %r = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[1, 0]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
    return %r : tensor<2xcomplex<f32>>
  }
  // The spec's example: group {2, 1}, root 2; chips 0 and 3 get zeros.
  func.func @broadcast(%x : tensor<1x2xi64>) -> tensor<1x2xi64> {
    %r = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<[[2, 1]]> : tensor<1x2xi64>} : (tensor<1x2xi64>) -> tensor<1x2xi64>
    return %r : tensor<1x2xi64>
  }
  // Groups {1, 3} and {0, 2}: the roots 1 and 0 get the sums, 3 and 2 zeros.
  func.func @creduce(%x : tensor<3xf32>) -> tensor<3xf32> {
    %r = "stablehlo.collective_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[1, 3], [0, 2]]> : tensor<2x2xi64>} : (tensor<3xf32>) -> tensor<3xf32>
    return %r : tensor<3xf32>
  }
  func.func @ids() -> (tensor<ui32>, tensor<ui32>) {
    %r = stablehlo.replica_id : tensor<ui32>
    %p = stablehlo.partition_id : tensor<ui32>
    return %r, %p : tensor<ui32>, tensor<ui32>
  }
  // Replica 0 alone runs an all_reduce of groups {0} and {1}: it completes
  // without replica 1, which never reaches it.
  func.func @diverge(%x : tensor<i32>) -> tensor<i32> {
    %r = stablehlo.replica_id : tensor<ui32>
    %z = stablehlo.constant dense<0> : tensor<ui32>
    %p = stablehlo.compare EQ, %r, %z : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
    %y = "stablehlo.if"(%p) ({
      %s = "stablehlo.all_reduce"(%x) ({
        ^bb0(%a: tensor<i32>, %b: tensor<i32>):
          %t = stablehlo.add %a, %b : tensor<i32>
          stablehlo.return %t : tensor<i32>
      }) {replica_groups = dense<[[0], [1]]> : tensor<2x1xi64>} : (tensor<i32>) -> tensor<i32>
      %d = stablehlo.add %s, %s : tensor<i32>
      stablehlo.return %d : tensor<i32>
    }, {
      stablehlo.return %x : tensor<i32>
    }) : (tensor<i1>) -> tensor<i32>
    return %y : tensor<i32>
  }
  // A ring on 3 partitions: send to the next, receive from the previous.
  func.func @ring(%x : tensor<2xi32>, %t : !stablehlo.token) -> (tensor<2xi32>, tensor<2xi32>) {
    %s = "stablehlo.send"(%x, %t) {channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, is_host_transfer = false, source_target_pairs = dense<[[0, 1], [1, 2], [2, 0]]> : tensor<3x2xi64>} : (tensor<2xi32>, !stablehlo.token) -> !stablehlo.token
    %v, %t2 = "stablehlo.recv"(%s) {channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, is_host_transfer = false, source_target_pairs = dense<[[0, 1], [1, 2], [2, 0]]> : tensor<3x2xi64>} : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
    // Only 0 -> 1 on channel 4: partitions 0 and 2 receive zeros.
    %s4 = "stablehlo.send"(%x, %t2) {channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>, is_host_transfer = false, source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xi32>, !stablehlo.token) -> !stablehlo.token
    %w, %t3 = "stablehlo.recv"(%s4) {channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>, is_host_transfer = false, source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>} : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
    return %v, %w : tensor<2xi32>, tensor<2xi32>
  }
  func.func @main() {
    %a0 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
    %a1 = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi64>
    %a2 = stablehlo.constant dense<[[9, 10], [11, 12]]> : tensor<2x2xi64>
    %a3 = stablehlo.constant dense<[[13, 14], [15, 16]]> : tensor<2x2xi64>
    %p:4 = "interpreter.run_parallel"(%a0, %a1, %a2, %a3) {programs = [[@permute], [@permute], [@permute], [@permute]]} : (tensor<2x2xi64>, tensor<2x2xi64>, tensor<2x2xi64>, tensor<2x2xi64>) -> (tensor<2x2xi64>, tensor<2x2xi64>, tensor<2x2xi64>, tensor<2x2xi64>)
    check.expect_eq_const %p#0, dense<0> : tensor<2x2xi64>
    check.expect_eq_const %p#1, dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
    check.expect_eq_const %p#2, dense<[[5, 6], [7, 8]]> : tensor<2x2xi64>
    check.expect_eq_const %p#3, dense<0> : tensor<2x2xi64>

    %c0 = stablehlo.constant dense<[(1.0, 2.0), (3.0, 4.0)]> : tensor<2xcomplex<f32>>
    %c1 = stablehlo.constant dense<[(5.0, 6.0), (7.0, 8.0)]> : tensor<2xcomplex<f32>>
    %c2 = stablehlo.constant dense<[(9.0, 10.0), (11.0, 12.0)]> : tensor<2xcomplex<f32>>
    %c3 = stablehlo.constant dense<[(13.0, 14.0), (15.0, 16.0)]> : tensor<2xcomplex<f32>>
    %q:4 = "interpreter.run_parallel"(%c0, %c1, %c2, %c3) {programs = [[@permute_p, @permute_p], [@permute_p, @permute_p]]} : (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>) -> (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>)
    check.expect_eq_const %q#0, dense<[(5.0, 6.0), (7.0, 8.0)]> : tensor<2xcomplex<f32>>
    check.expect_eq_const %q#1, dense<(0.0, 0.0)> : tensor<2xcomplex<f32>>
    check.expect_eq_const %q#2, dense<[(13.0, 14.0), (15.0, 16.0)]> : tensor<2xcomplex<f32>>
    check.expect_eq_const %q#3, dense<(0.0, 0.0)> : tensor<2xcomplex<f32>>

    %b0 = stablehlo.constant dense<[[1, 2]]> : tensor<1x2xi64>
    %b1 = stablehlo.constant dense<[[3, 4]]> : tensor<1x2xi64>
    %b2 = stablehlo.constant dense<[[5, 6]]> : tensor<1x2xi64>
    %b3 = stablehlo.constant dense<[[7, 8]]> : tensor<1x2xi64>
    %b:4 = "interpreter.run_parallel"(%b0, %b1, %b2, %b3) {programs = [[@broadcast], [@broadcast], [@broadcast], [@broadcast]]} : (tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>) -> (tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>)
    check.expect_eq_const %b#0, dense<[[0, 0]]> : tensor<1x2xi64>
    check.expect_eq_const %b#1, dense<[[5, 6]]> : tensor<1x2xi64>
    check.expect_eq_const %b#2, dense<[[5, 6]]> : tensor<1x2xi64>
    check.expect_eq_const %b#3, dense<[[0, 0]]> : tensor<1x2xi64>

    %f0 = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
    %f1 = stablehlo.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
    %f2 = stablehlo.constant dense<[100.0, 200.0, 300.0]> : tensor<3xf32>
    %f3 = stablehlo.constant dense<[1000.0, 2000.0, 3000.0]> : tensor<3xf32>
    %r:4 = "interpreter.run_parallel"(%f0, %f1, %f2, %f3) {programs = [[@creduce], [@creduce], [@creduce], [@creduce]]} : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
    check.expect_eq_const %r#0, dense<[101.0, 202.0, 303.0]> : tensor<3xf32>
    check.expect_eq_const %r#1, dense<[1010.0, 2020.0, 3030.0]> : tensor<3xf32>
    check.expect_eq_const %r#2, dense<0.0> : tensor<3xf32>
    check.expect_eq_const %r#3, dense<0.0> : tensor<3xf32>

    %i:12 = "interpreter.run_parallel"() {programs = [[@ids, @ids, @ids], [@ids, @ids, @ids]]} : () -> (tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>)
    // chip 5 = replica 1, partition 2; chip 2 = replica 0, partition 2
    check.expect_eq_const %i#10, dense<1> : tensor<ui32>
    check.expect_eq_const %i#11, dense<2> : tensor<ui32>
    check.expect_eq_const %i#4, dense<0> : tensor<ui32>
    check.expect_eq_const %i#5, dense<2> : tensor<ui32>

    %d0 = stablehlo.constant dense<21> : tensor<i32>
    %d1 = stablehlo.constant dense<5> : tensor<i32>
    %d:2 = "interpreter.run_parallel"(%d0, %d1) {programs = [[@diverge], [@diverge]]} : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
    check.expect_eq_const %d#0, dense<42> : tensor<i32>
    check.expect_eq_const %d#1, dense<5> : tensor<i32>

    %tok = stablehlo.after_all : !stablehlo.token
    %g0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
    %g1 = stablehlo.constant dense<[3, 4]> : tensor<2xi32>
    %g2 = stablehlo.constant dense<[5, 6]> : tensor<2xi32>
    %g:6 = "interpreter.run_parallel"(%g0, %tok, %g1, %tok, %g2, %tok) {programs = [[@ring, @ring, @ring]]} : (tensor<2xi32>, !stablehlo.token, tensor<2xi32>, !stablehlo.token, tensor<2xi32>, !stablehlo.token) -> (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>)
    check.expect_eq_const %g#0, dense<[5, 6]> : tensor<2xi32>
    check.expect_eq_const %g#2, dense<[1, 2]> : tensor<2xi32>
    check.expect_eq_const %g#4, dense<[3, 4]> : tensor<2xi32>
    check.expect_eq_const %g#1, dense<0> : tensor<2xi32>
    check.expect_eq_const %g#3, dense<[1, 2]> : tensor<2xi32>
    check.expect_eq_const %g#5, dense<0> : tensor<2xi32>
    func.return
  }
}
