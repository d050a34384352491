// Control flow: the loop-carried activation stays row-sharded through the
// while; the weight the body reads is gathered once, before the loop; the
// branches of the if return the same layout.
// RUN: %tpucc --passes=sharding-propagation,spmd-partition,canonicalize,cse,dce --verify-each --emit=mlir %s | FileCheck %s
// RUN: %python %S/../../spmd/compare_partitioned.py --tpurun=%tpurun %s
// CHECK: "stablehlo.all_gather"(%arg1)
// CHECK: stablehlo.while({{.*}}) : tensor<i32>, tensor<2x6xf32>
// CHECK-NOT: all_gather
// CHECK: stablehlo.dot_general {{.*}} -> tensor<2x6xf32>
// CHECK: "stablehlo.if"
// CHECK: -> tensor<2x6xf32>
module @t4 attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<8x6xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, %w: tensor<6x6xf32> {mhlo.sharding = "{devices=[1,4]<=[4]}"}, %p: tensor<i1>) -> (tensor<8x6xf32>, tensor<8x6xf32>) {
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %c0, %h = %x) : tensor<i32>, tensor<8x6xf32>
     cond {
      %c3 = stablehlo.constant dense<3> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %c3 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %d = stablehlo.dot_general %h, %w, contracting_dims = [1] x [0] : (tensor<8x6xf32>, tensor<6x6xf32>) -> tensor<8x6xf32>
      %t = stablehlo.tanh %d : tensor<8x6xf32>
      %c1 = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %i, %c1 : tensor<i32>
      stablehlo.return %n, %t : tensor<i32>, tensor<8x6xf32>
    }
    %s = "stablehlo.if"(%p) ({
      %e = stablehlo.exponential %r#1 : tensor<8x6xf32>
      stablehlo.return %e : tensor<8x6xf32>
    }, {
      %e = stablehlo.negate %x : tensor<8x6xf32>
      stablehlo.return %e : tensor<8x6xf32>
    }) : (tensor<i1>) -> tensor<8x6xf32>
    return %r#1, %s : tensor<8x6xf32>, tensor<8x6xf32>
  }
}
