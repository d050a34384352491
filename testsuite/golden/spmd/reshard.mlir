// Resharding: a with_sharding_constraint moving the tiling from rows to
// columns is one all_to_all; iota adds the piece's offset; a sort along
// the tiled dim and a reverse of it run on the gathered value; the
// maximum over tiled rows is combined with an all_reduce of maximum.
// RUN: %tpucc --passes=sharding-propagation,spmd-partition,canonicalize,cse,dce --verify-each --emit=mlir %s | FileCheck %s
// RUN: %python %S/../../spmd/compare_partitioned.py --tpurun=%tpurun %s
// CHECK: stablehlo.constant dense<{{\[\[}}0, 0, {{.*}}]]> : tensor<2x12xi32>
// CHECK: stablehlo.constant dense<[0, 2, 4, 6]> : tensor<4xi32>
// CHECK: stablehlo.add
// CHECK: "stablehlo.all_to_all"
// CHECK-SAME: concat_dimension = 0 : i64
// CHECK-SAME: split_count = 4 : i64, split_dimension = 1 : i64
// CHECK-SAME: (tensor<2x12xi32>) -> tensor<8x3xi32>
// CHECK: "stablehlo.all_reduce"
// CHECK: stablehlo.maximum
module @t2 attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<8x12xi32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) -> (tensor<8x12xi32> {mhlo.sharding = "{devices=[1,4]<=[4]}"}, tensor<8x12xi32>, tensor<8x12xi32>, tensor<8x13xi32>, tensor<12xi32>) {
    %i = stablehlo.iota dim = 0 : tensor<8x12xi32>
    %a = stablehlo.add %x, %i : tensor<8x12xi32>
    %c = stablehlo.custom_call @Sharding(%a) {mhlo.sharding = "{devices=[1,4]<=[4]}"} : (tensor<8x12xi32>) -> tensor<8x12xi32>
    %s = "stablehlo.sort"(%a) ({
      ^bb0(%p: tensor<i32>, %q: tensor<i32>):
        %lt = stablehlo.compare LT, %p, %q : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %lt : tensor<i1>
    }) {dimension = 1 : i64} : (tensor<8x12xi32>) -> tensor<8x12xi32>
    %rv = stablehlo.reverse %a, dims = [0] : tensor<8x12xi32>
    %k = stablehlo.constant dense<7> : tensor<8x1xi32>
    %cc = stablehlo.concatenate %a, %k, dim = 1 : (tensor<8x12xi32>, tensor<8x1xi32>) -> tensor<8x13xi32>
    %z = stablehlo.constant dense<0> : tensor<i32>
    %m = stablehlo.reduce(%x init: %z) applies stablehlo.maximum across dimensions = [0] : (tensor<8x12xi32>, tensor<i32>) -> tensor<12xi32>
    return %c, %s, %rv, %cc, %m : tensor<8x12xi32>, tensor<8x12xi32>, tensor<8x12xi32>, tensor<8x13xi32>, tensor<12xi32>
  }
}
