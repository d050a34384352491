// FSDP: batch and weight sharded on dim 0 over four chips.  The weight
// is all-gathered before the forward dot, the loss all-reduced, and the
// weight gradient (a contraction over the sharded batch) reduce-scattered
// straight into the weight's layout.
// RUN: %tpucc --passes=sharding-propagation,spmd-partition,canonicalize,cse,dce --verify-each --emit=mlir %s | FileCheck %s
// RUN: %python %S/../../spmd/compare_partitioned.py --tpurun=%tpurun %s
// CHECK: "stablehlo.all_gather"(%arg1) {all_gather_dim = 0 : i64
// CHECK-SAME: -> tensor<16x12xf32>
// CHECK: "stablehlo.all_reduce"
// CHECK: -> tensor<f32>
// CHECK: stablehlo.dot_general {{.*}} contracting_dims = [0] x [0] : (tensor<2x16xf32>, tensor<2x12xf32>) -> tensor<16x12xf32>
// CHECK-NEXT: "stablehlo.reduce_scatter"
// CHECK: scatter_dimension = 0 : i64
// CHECK-SAME: (tensor<16x12xf32>) -> tensor<4x12xf32>
module @jit_step attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<8x16xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, %w: tensor<16x12xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, %t: tensor<8x12xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) -> (tensor<16x12xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, tensor<f32> {mhlo.sharding = "{replicated}"}) {
    %h = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x12xf32>) -> tensor<8x12xf32>
    %d = stablehlo.subtract %h, %t : tensor<8x12xf32>
    %sq = stablehlo.multiply %d, %d : tensor<8x12xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %l = stablehlo.reduce(%sq init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x12xf32>, tensor<f32>) -> tensor<f32>
    %g = stablehlo.dot_general %x, %d, contracting_dims = [0] x [0] : (tensor<8x16xf32>, tensor<8x12xf32>) -> tensor<16x12xf32>
    %lr = stablehlo.constant dense<0.1> : tensor<16x12xf32>
    %s = stablehlo.multiply %g, %lr : tensor<16x12xf32>
    %nw = stablehlo.subtract %w, %s : tensor<16x12xf32>
    return %nw, %l : tensor<16x12xf32>, tensor<f32>
  }
}
