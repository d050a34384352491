// A reduce over tiled rows is reduced piece by piece and combined only when
// that gives the same value: an idempotent body (maximum here, init 5) or
// an init value that is the body's identity (add from 0).  An add from 3
// would count the 3 once per piece, so its rows are gathered whole first.
// RUN: %tpucc --passes=sharding-propagation,spmd-partition,canonicalize,cse,dce --verify-each --emit=mlir %s | FileCheck %s
// RUN: %python %S/../../spmd/compare_partitioned.py --tpurun=%tpurun %s
// CHECK: "stablehlo.all_gather"(%arg0)
// CHECK: applies stablehlo.add across dimensions = [0] : (tensor<8x6xi32>, tensor<i32>)
// CHECK: applies stablehlo.maximum across dimensions = [0] : (tensor<2x6xi32>, tensor<i32>)
// CHECK-NEXT: "stablehlo.all_reduce"
// CHECK: applies stablehlo.add across dimensions = [0] : (tensor<2x6xi32>, tensor<i32>)
// CHECK-NEXT: "stablehlo.all_reduce"
module @reduce_init attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<8x6xi32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) -> (tensor<6xi32>, tensor<6xi32>, tensor<6xi32>) {
    %c3 = stablehlo.constant dense<3> : tensor<i32>
    %c5 = stablehlo.constant dense<5> : tensor<i32>
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.reduce(%x init: %c3) applies stablehlo.add across dimensions = [0] : (tensor<8x6xi32>, tensor<i32>) -> tensor<6xi32>
    %1 = stablehlo.reduce(%x init: %c5) applies stablehlo.maximum across dimensions = [0] : (tensor<8x6xi32>, tensor<i32>) -> tensor<6xi32>
    %2 = stablehlo.reduce(%x init: %c0) applies stablehlo.add across dimensions = [0] : (tensor<8x6xi32>, tensor<i32>) -> tensor<6xi32>
    return %0, %1, %2 : tensor<6xi32>, tensor<6xi32>, tensor<6xi32>
  }
}
