// The partial products of a contraction are added only between partitions
// holding the same piece of the result: here the lhs's replication order
// pairs partitions that hold different columns of the rhs, so the dot runs
// on the result's layout instead.  A float iota along a tiled dim counts in
// integers and is rounded once (bf16 cannot hold 257: 256, as unpartitioned).
// RUN: %tpucc --passes=sharding-propagation,spmd-partition,canonicalize,cse,dce --verify-each --emit=mlir %s | FileCheck %s
// RUN: %python %S/../../spmd/compare_partitioned.py --tpurun=%tpurun %s
// CHECK: stablehlo.dot_general {{.*}} : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
// CHECK-NOT: "stablehlo.all_reduce"
// CHECK: stablehlo.add {{.*}} : tensor<4x257xi32>
// CHECK: stablehlo.convert {{.*}} : (tensor<4x257xi32>) -> tensor<4x257xbf16>
module @rev1 attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4x8xf32> {mhlo.sharding = "{devices=[1,2,2]0,1,3,2 last_tile_dim_replicate}"}, %w: tensor<8x6xf32> {mhlo.sharding = "{devices=[2,2]0,1,2,3}"}) -> (tensor<4x6xf32>, tensor<4x514xf32>) {
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
    %1 = stablehlo.iota dim = 1 : tensor<4x514xbf16>
    %2 = stablehlo.custom_call @Sharding(%1) {mhlo.sharding = "{devices=[1,2,2]<=[4] last_tile_dim_replicate}"} : (tensor<4x514xbf16>) -> tensor<4x514xbf16>
    %3 = stablehlo.convert %2 : (tensor<4x514xbf16>) -> tensor<4x514xf32>
    return %0, %3 : tensor<4x6xf32>, tensor<4x514xf32>
  }
}
