// all_reduce and cross-replica-sum over simulated chips (vm/kernels/collective.c):
// the reduction folds left in group order (a non-commutative region shows
// it), integers wrap, bf16 rounds at every step as the element-wise add,
// uneven groups padded with -1, several operands, every process-group mode,
// operands promoted to the computation's type,
// and the same bits whatever the number of host threads.
// RUN: %tpurun --check --threads=1 %s | FileCheck %s --implicit-check-not=FAIL
// RUN: %tpurun --check --threads=3 %s | FileCheck %s --implicit-check-not=FAIL
// RUN: %tpurun -O0 --check %s | FileCheck %s --implicit-check-not=FAIL
// RUN: %tpucc --emit=asm %s -o - | FileCheck %s --check-prefix=ASM
// CHECK-COUNT-30: PASS
// CHECK: checks: 30 passed, 0 failed
// ASM: all_reduce {{.*}}groups=[0, 1, 2, 3, -1, -1] group_size=3 mode=0 channel=0 body=
// ASM: r[[C:[0-9]+]] = convert r0
// ASM-NEXT: all_reduce r[[C]] groups=[0, 1] group_size=2 mode=0 channel=0
// ASM: cross_replica_sum r0 groups=[0, 3, 1, 2] group_size=2
// ASM: all_reduce {{.*}}groups=[0, 1] group_size=2 mode=2 channel=1
// ASM: all_reduce {{.*}}groups=[0, 3, 1, 2] group_size=2 mode=3 channel=5
// ASM: all_reduce {{.*}}groups=[] group_size=0 mode=0 channel=0

module @all_reduce attributes {mhlo.num_replicas = 4 : i32} {
  // Groups {0, 1, 2} and {3}: i8 sums wrap.
  func.func @sum_i8(%x : tensor<2xi8>) -> tensor<2xi8> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<i8>, %b: tensor<i8>):
        %s = stablehlo.add %a, %b : tensor<i8>
        stablehlo.return %s : tensor<i8>
    }) {replica_groups = dense<[[0, 1, 2], [3, -1, -1]]> : tensor<2x3xi64>} : (tensor<2xi8>) -> tensor<2xi8>
    return %r : tensor<2xi8>
  }
  // f(a, b) = 10 a + b folded in the group order 2, 0, 1: f(f(x2, x0), x1)
  // writes the members' values as digits.
  func.func @custom(%x : tensor<f32>) -> tensor<f32> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %ten = stablehlo.constant dense<10.0> : tensor<f32>
        %m = stablehlo.multiply %a, %ten : tensor<f32>
        %s = stablehlo.add %m, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[2, 0, 1], [3, -1, -1]]> : tensor<2x3xi64>} : (tensor<f32>) -> tensor<f32>
    return %r : tensor<f32>
  }
  // f(a, b) = 10 a - b, the operands used in the other order.
  func.func @swapped(%x : tensor<i32>) -> tensor<i32> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        %ten = stablehlo.constant dense<10> : tensor<i32>
        %m = stablehlo.multiply %ten, %a : tensor<i32>
        %s = stablehlo.subtract %m, %b : tensor<i32>
        stablehlo.return %s : tensor<i32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<i32>) -> tensor<i32>
    return %r : tensor<i32>
  }
  // Two f32 operands of 1000 and 15 elements (chunks of 256 per member)
  // and bf16, complex and i1 reductions, against element-wise ops in @main.
  func.func @data(%k : tensor<f32>) -> (tensor<1000xf32>, tensor<3x5xf32>, tensor<7xbf16>, tensor<3xcomplex<f32>>, tensor<4xi1>) {
    %i = stablehlo.iota dim = 0 : tensor<1000xf32>
    %kb = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<f32>) -> tensor<1000xf32>
    %m = stablehlo.multiply %i, %kb : tensor<1000xf32>
    %a = stablehlo.sine %m : tensor<1000xf32>
    %s = stablehlo.slice %a [0:15] : (tensor<1000xf32>) -> tensor<15xf32>
    %b = stablehlo.reshape %s : (tensor<15xf32>) -> tensor<3x5xf32>
    %t = stablehlo.slice %a [100:107] : (tensor<1000xf32>) -> tensor<7xf32>
    %c = stablehlo.convert %t : (tensor<7xf32>) -> tensor<7xbf16>
    %re = stablehlo.slice %a [200:203] : (tensor<1000xf32>) -> tensor<3xf32>
    %im = stablehlo.slice %a [300:303] : (tensor<1000xf32>) -> tensor<3xf32>
    %d = stablehlo.complex %re, %im : tensor<3xcomplex<f32>>
    %z = stablehlo.constant dense<0.0> : tensor<4xf32>
    %q = stablehlo.slice %a [50:250:50] : (tensor<1000xf32>) -> tensor<4xf32>
    %e = stablehlo.compare GT, %q, %z : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    return %a, %b, %c, %d, %e : tensor<1000xf32>, tensor<3x5xf32>, tensor<7xbf16>, tensor<3xcomplex<f32>>, tensor<4xi1>
  }
  func.func @reduce_data(%k : tensor<f32>) -> (tensor<1000xf32>, tensor<3x5xf32>, tensor<7xbf16>, tensor<3xcomplex<f32>>, tensor<4xi1>) {
    %a, %b, %c, %d, %e = func.call @data(%k) : (tensor<f32>) -> (tensor<1000xf32>, tensor<3x5xf32>, tensor<7xbf16>, tensor<3xcomplex<f32>>, tensor<4xi1>)
    %ra:2 = "stablehlo.all_reduce"(%a, %b) ({
      ^bb0(%x: tensor<f32>, %y: tensor<f32>):
        %s = stablehlo.add %x, %y : tensor<f32>
        stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<1000xf32>, tensor<3x5xf32>) -> (tensor<1000xf32>, tensor<3x5xf32>)
    %rc = "stablehlo.all_reduce"(%c) ({
      ^bb0(%x: tensor<bf16>, %y: tensor<bf16>):
        %s = stablehlo.add %x, %y : tensor<bf16>
        stablehlo.return %s : tensor<bf16>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<7xbf16>) -> tensor<7xbf16>
    %rd = "stablehlo.all_reduce"(%d) ({
      ^bb0(%x: tensor<complex<f32>>, %y: tensor<complex<f32>>):
        %s = stablehlo.multiply %x, %y : tensor<complex<f32>>
        stablehlo.return %s : tensor<complex<f32>>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<3xcomplex<f32>>) -> tensor<3xcomplex<f32>>
    %re = "stablehlo.all_reduce"(%e) ({
      ^bb0(%x: tensor<i1>, %y: tensor<i1>):
        %s = stablehlo.and %x, %y : tensor<i1>
        stablehlo.return %s : tensor<i1>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<4xi1>) -> tensor<4xi1>
    return %ra#0, %ra#1, %rc, %rd, %re : tensor<1000xf32>, tensor<3x5xf32>, tensor<7xbf16>, tensor<3xcomplex<f32>>, tensor<4xi1>
  }
  // i8 operands promoted to the computation's i32 (no wrap).
  func.func @promote(%x : tensor<3xi8>) -> tensor<3xi32> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        %s = stablehlo.add %a, %b : tensor<i32>
        stablehlo.return %s : tensor<i32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<3xi8>) -> tensor<3xi32>
    return %r : tensor<3xi32>
  }
  func.func @sum_crs(%x : tensor<3xf32>) -> tensor<3xf32> {
    %r = "stablehlo.cross-replica-sum"(%x) {replica_groups = dense<[[0, 3], [1, 2]]> : tensor<2x2xi64>} : (tensor<3xf32>) -> tensor<3xf32>
    return %r : tensor<3xf32>
  }
  // Modes on 2 replicas x 2 partitions (chip = replica * 2 + partition),
  // with f(a, b) = 10 a + b to show the group order.
  func.func @modes(%x : tensor<i32>) -> (tensor<i32>, tensor<i32>, tensor<i32>) {
    // cross_replica_and_partition: one group (0,0), (1,0), (0,1), (1,1) = chips 0, 2, 1, 3.
    %a = "stablehlo.all_reduce"(%x) ({
      ^bb0(%p: tensor<i32>, %q: tensor<i32>):
        %ten = stablehlo.constant dense<10> : tensor<i32>
        %m = stablehlo.multiply %p, %ten : tensor<i32>
        %s = stablehlo.add %m, %q : tensor<i32>
        stablehlo.return %s : tensor<i32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<i32>) -> tensor<i32>
    // flattened_ids: chips {0, 3} and {1, 2}.
    %b = "stablehlo.all_reduce"(%x) ({
      ^bb0(%p: tensor<i32>, %q: tensor<i32>):
        %ten = stablehlo.constant dense<10> : tensor<i32>
        %m = stablehlo.multiply %p, %ten : tensor<i32>
        %s = stablehlo.add %m, %q : tensor<i32>
        stablehlo.return %s : tensor<i32>
    }) {replica_groups = dense<[[0, 3], [1, 2]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>, use_global_device_ids} : (tensor<i32>) -> tensor<i32>
    // No replica_groups, no channel: every replica of the chip's partition, {0, 2} and {1, 3}.
    %c = "stablehlo.all_reduce"(%x) ({
      ^bb0(%p: tensor<i32>, %q: tensor<i32>):
        %ten = stablehlo.constant dense<10> : tensor<i32>
        %m = stablehlo.multiply %p, %ten : tensor<i32>
        %s = stablehlo.add %m, %q : tensor<i32>
        stablehlo.return %s : tensor<i32>
    }) : (tensor<i32>) -> tensor<i32>
    return %a, %b, %c : tensor<i32>, tensor<i32>, tensor<i32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[100, -128]> : tensor<2xi8>
    %b = stablehlo.constant dense<[100, 1]> : tensor<2xi8>
    %c = stablehlo.constant dense<[100, -1]> : tensor<2xi8>
    %d = stablehlo.constant dense<[5, 6]> : tensor<2xi8>
    %r:4 = "interpreter.run_parallel"(%a, %b, %c, %d) {programs = [[@sum_i8], [@sum_i8], [@sum_i8], [@sum_i8]]} : (tensor<2xi8>, tensor<2xi8>, tensor<2xi8>, tensor<2xi8>) -> (tensor<2xi8>, tensor<2xi8>, tensor<2xi8>, tensor<2xi8>)
    check.expect_eq_const %r#0, dense<[44, -128]> : tensor<2xi8>
    check.expect_eq_const %r#1, dense<[44, -128]> : tensor<2xi8>
    check.expect_eq_const %r#2, dense<[44, -128]> : tensor<2xi8>
    check.expect_eq_const %r#3, dense<[5, 6]> : tensor<2xi8>
    %f0 = stablehlo.constant dense<1.0> : tensor<f32>
    %f1 = stablehlo.constant dense<2.0> : tensor<f32>
    %f2 = stablehlo.constant dense<3.0> : tensor<f32>
    %f3 = stablehlo.constant dense<4.0> : tensor<f32>
    %s:4 = "interpreter.run_parallel"(%f0, %f1, %f2, %f3) {programs = [[@custom], [@custom], [@custom], [@custom]]} : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
    check.expect_eq_const %s#0, dense<312.0> : tensor<f32>
    check.expect_eq_const %s#1, dense<312.0> : tensor<f32>
    check.expect_eq_const %s#3, dense<4.0> : tensor<f32>
    %i0 = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.constant dense<2> : tensor<i32>
    %i2 = stablehlo.constant dense<3> : tensor<i32>
    %i3 = stablehlo.constant dense<4> : tensor<i32>
    %w:4 = "interpreter.run_parallel"(%i0, %i1, %i2, %i3) {programs = [[@swapped], [@swapped], [@swapped], [@swapped]]} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>)
    // 10 (10 (10 * 1 - 2) - 3) - 4
    check.expect_eq_const %w#2, dense<766> : tensor<i32>
    %m:12 = "interpreter.run_parallel"(%i0, %i1, %i2, %i3) {programs = [[@modes, @modes], [@modes, @modes]]} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>)
    // chip c holds c + 1: chips 0, 2, 1, 3 give the digits 1324
    check.expect_eq_const %m#0, dense<1324> : tensor<i32>
    check.expect_eq_const %m#9, dense<1324> : tensor<i32>
    check.expect_eq_const %m#1, dense<14> : tensor<i32>
    check.expect_eq_const %m#4, dense<23> : tensor<i32>
    check.expect_eq_const %m#7, dense<23> : tensor<i32>
    check.expect_eq_const %m#10, dense<14> : tensor<i32>
    check.expect_eq_const %m#2, dense<13> : tensor<i32>
    check.expect_eq_const %m#5, dense<24> : tensor<i32>
    check.expect_eq_const %m#8, dense<13> : tensor<i32>
    check.expect_eq_const %m#11, dense<24> : tensor<i32>
    // Data: the reductions against element-wise ops on each chip's data, in group order.
    %k0 = stablehlo.constant dense<0.0137> : tensor<f32>
    %k1 = stablehlo.constant dense<0.0291> : tensor<f32>
    %k2 = stablehlo.constant dense<0.0433> : tensor<f32>
    %k3 = stablehlo.constant dense<0.0517> : tensor<f32>
    %g:20 = "interpreter.run_parallel"(%k0, %k1, %k2, %k3) {programs = [[@reduce_data], [@reduce_data], [@reduce_data], [@reduce_data]]} : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<1000xf32>, tensor<3x5xf32>, tensor<7xbf16>, tensor<3xcomplex<f32>>, tensor<4xi1>, tensor<1000xf32>, tensor<3x5xf32>, tensor<7xbf16>, tensor<3xcomplex<f32>>, tensor<4xi1>, tensor<1000xf32>, tensor<3x5xf32>, tensor<7xbf16>, tensor<3xcomplex<f32>>, tensor<4xi1>, tensor<1000xf32>, tensor<3x5xf32>, tensor<7xbf16>, tensor<3xcomplex<f32>>, tensor<4xi1>)
    %a0, %b0, %c0, %d0, %e0 = func.call @data(%k0) : (tensor<f32>) -> (tensor<1000xf32>, tensor<3x5xf32>, tensor<7xbf16>, tensor<3xcomplex<f32>>, tensor<4xi1>)
    %a1, %b1, %c1, %d1, %e1 = func.call @data(%k1) : (tensor<f32>) -> (tensor<1000xf32>, tensor<3x5xf32>, tensor<7xbf16>, tensor<3xcomplex<f32>>, tensor<4xi1>)
    %a2, %b2, %c2, %d2, %e2 = func.call @data(%k2) : (tensor<f32>) -> (tensor<1000xf32>, tensor<3x5xf32>, tensor<7xbf16>, tensor<3xcomplex<f32>>, tensor<4xi1>)
    %a3, %b3, %c3, %d3, %e3 = func.call @data(%k3) : (tensor<f32>) -> (tensor<1000xf32>, tensor<3x5xf32>, tensor<7xbf16>, tensor<3xcomplex<f32>>, tensor<4xi1>)
    %sa0 = stablehlo.add %a0, %a1 : tensor<1000xf32>
    %sa1 = stablehlo.add %sa0, %a2 : tensor<1000xf32>
    %sa = stablehlo.add %sa1, %a3 : tensor<1000xf32>
    %sb0 = stablehlo.add %b0, %b1 : tensor<3x5xf32>
    %sb1 = stablehlo.add %sb0, %b2 : tensor<3x5xf32>
    %sb = stablehlo.add %sb1, %b3 : tensor<3x5xf32>
    %sc0 = stablehlo.add %c0, %c1 : tensor<7xbf16>
    %sc1 = stablehlo.add %sc0, %c2 : tensor<7xbf16>
    %sc = stablehlo.add %sc1, %c3 : tensor<7xbf16>
    %sd0 = stablehlo.multiply %d0, %d1 : tensor<3xcomplex<f32>>
    %sd1 = stablehlo.multiply %sd0, %d2 : tensor<3xcomplex<f32>>
    %sd = stablehlo.multiply %sd1, %d3 : tensor<3xcomplex<f32>>
    %se0 = stablehlo.and %e0, %e1 : tensor<4xi1>
    %se1 = stablehlo.and %se0, %e2 : tensor<4xi1>
    %se = stablehlo.and %se1, %e3 : tensor<4xi1>
    check.expect_eq %g#0, %sa : tensor<1000xf32>
    check.expect_eq %g#15, %sa : tensor<1000xf32>
    check.expect_eq %g#6, %sb : tensor<3x5xf32>
    check.expect_eq %g#12, %sc : tensor<7xbf16>
    check.expect_eq %g#3, %sd : tensor<3xcomplex<f32>>
    check.expect_eq %g#19, %se : tensor<4xi1>
    check.expect_eq_const %se, dense<[true, false, false, false]> : tensor<4xi1>
    %n0 = stablehlo.constant dense<[100, 127, -128]> : tensor<3xi8>
    %n1 = stablehlo.constant dense<[100, 1, -1]> : tensor<3xi8>
    %pr:2 = "interpreter.run_parallel"(%n0, %n1) {programs = [[@promote], [@promote]]} : (tensor<3xi8>, tensor<3xi8>) -> (tensor<3xi32>, tensor<3xi32>)
    check.expect_eq_const %pr#1, dense<[200, 128, -129]> : tensor<3xi32>
    // cross-replica-sum: groups {0, 3} and {1, 2}.
    %v0 = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
    %v1 = stablehlo.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
    %v2 = stablehlo.constant dense<[100.0, 200.0, 300.0]> : tensor<3xf32>
    %v3 = stablehlo.constant dense<[1000.0, 2000.0, 3000.0]> : tensor<3xf32>
    %x:4 = "interpreter.run_parallel"(%v0, %v1, %v2, %v3) {programs = [[@sum_crs], [@sum_crs], [@sum_crs], [@sum_crs]]} : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
    check.expect_eq_const %x#0, dense<[1001.0, 2002.0, 3003.0]> : tensor<3xf32>
    check.expect_eq_const %x#1, dense<[110.0, 220.0, 330.0]> : tensor<3xf32>
    check.expect_eq_const %x#2, dense<[110.0, 220.0, 330.0]> : tensor<3xf32>
    check.expect_eq_const %x#3, dense<[1001.0, 2002.0, 3003.0]> : tensor<3xf32>
    func.return
  }
}
