// Uneven pieces (10 rows on 4 chips: 3, 3, 3, 1) on a 4x2 mesh, and an
// operand tiled on the transposed mesh with replication: the reduce over
// the tiled rows masks the padding of the last piece with its init value
// before the all_reduce; reshapes keep only even tilings.
// RUN: %tpucc --passes=sharding-propagation,spmd-partition,canonicalize,cse,dce --verify-each --emit=mlir %s | FileCheck %s
// RUN: %python %S/../../spmd/compare_partitioned.py --tpurun=%tpurun %s
// CHECK: func.func public @main(%arg0: tensor<3x3xf32>
// CHECK: stablehlo.compare LT
// CHECK: stablehlo.select {{.*}} : tensor<3x3xi1>, tensor<3x3xf32>
// CHECK-NEXT: stablehlo.reduce
// CHECK: "stablehlo.all_reduce"
// CHECK: replica_groups = dense<{{\[\[}}0, 2, 4, 6], [1, 3, 5, 7]]>
module @t1 attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<10x6xf32> {mhlo.sharding = "{devices=[4,2]<=[8]}"}, %y: tensor<6x10xf32> {mhlo.sharding = "{devices=[2,1,4]<=[2,4]T(1,0) last_tile_dim_replicate}"}) -> (tensor<10x6xf32>, tensor<6xf32>, tensor<10x3x2xf32>, tensor<60xf32>) {
    %t = stablehlo.transpose %y, dims = [1, 0] : (tensor<6x10xf32>) -> tensor<10x6xf32>
    %a = stablehlo.add %x, %t : tensor<10x6xf32>
    %e = stablehlo.exponential %a : tensor<10x6xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [0] : (tensor<10x6xf32>, tensor<f32>) -> tensor<6xf32>
    %r = stablehlo.reshape %a : (tensor<10x6xf32>) -> tensor<10x3x2xf32>
    %f = stablehlo.reshape %e : (tensor<10x6xf32>) -> tensor<60xf32>
    %b = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<6xf32>) -> tensor<10x6xf32>
    %d = stablehlo.divide %e, %b : tensor<10x6xf32>
    return %d, %s, %r, %f : tensor<10x6xf32>, tensor<6xf32>, tensor<10x3x2xf32>, tensor<60xf32>
  }
}
