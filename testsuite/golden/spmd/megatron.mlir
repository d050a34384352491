// Megatron tensor parallelism: x replicated, W1 column-sharded, W2
// row-sharded: the first dot is local, the second sums its partial
// products with one all_reduce over the four chips.
// RUN: %tpucc --passes=sharding-propagation,spmd-partition,canonicalize,cse,dce --verify-each --emit=mlir %s | FileCheck %s
// RUN: %python %S/../../spmd/compare_partitioned.py --tpurun=%tpurun %s
// CHECK: func.func public @main(%arg0: tensor<8x16xf32> {mhlo.sharding = "{replicated}"}, %arg1: tensor<16x8xf32> {{.*}}tpu.global_shape = array<i64: 16, 32>{{.*}}, %arg2: tensor<8x16xf32>
// CHECK-NOT: all_gather
// CHECK: stablehlo.dot_general %arg0, %arg1{{.*}} -> tensor<8x8xf32>
// CHECK: stablehlo.dot_general {{.*}} -> tensor<8x16xf32>
// CHECK-NEXT: "stablehlo.all_reduce"
// CHECK: replica_groups = dense<{{\[\[}}0, 1, 2, 3]]>
// CHECK-NOT: all_gather
module @jit_mlp attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<8x16xf32> {mhlo.sharding = "{replicated}"}, %w1: tensor<16x32xf32> {mhlo.sharding = "{devices=[1,4]<=[4]}"}, %w2: tensor<32x16xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) -> (tensor<8x16xf32> {jax.result_info = "", mhlo.sharding = "{replicated}"}) {
    %h = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %z = stablehlo.constant dense<0.0> : tensor<8x32xf32>
    %r = stablehlo.maximum %h, %z : tensor<8x32xf32>
    %y = stablehlo.dot_general %r, %w2, contracting_dims = [1] x [0] : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
    return %y : tensor<8x16xf32>
  }
}
