// Shardy: a 2x4 mesh; arguments, results, sharding_constraint, reshard and
// a manual_computation (shard_map) whose body all-reduces over "y" by hand.
// The body is inlined on the pieces; the dot contracts over "y" with an
// all_reduce; results are checked against NumPy.
// RUN: %tpucc --passes=sharding-propagation,spmd-partition,canonicalize,cse,dce --verify-each --emit=mlir %s | FileCheck %s
// RUN: %python -c "import numpy as n; r = n.random.default_rng(0); n.save('%t.x.npy', r.standard_normal((8, 16)).astype(n.float32)); n.save('%t.w.npy', r.standard_normal((16, 8)).astype(n.float32))"
// RUN: %tpurun %s --input=@%t.x.npy --input=@%t.w.npy --output=@%t.o0.npy --output=@%t.o1.npy
// RUN: %python -c "import numpy as n; x, w, o0, o1 = (n.load('%t.' + k + '.npy') for k in ('x', 'w', 'o0', 'o1')); y = 2 * x * x; s = sum(y[:, 4 * j:4 * j + 4] for j in range(4)); assert n.allclose(o0, n.tile(s, (1, 4)), rtol=1e-5) and n.allclose(o1, (x * x) @ w, rtol=1e-4, atol=1e-5)"
// CHECK: module @jit_f attributes {{{.*}}tpu.mesh = array<i64: 2, 4>, tpu.spmd_partitioned}
// CHECK: func.func public @main(%arg0: tensor<4x4xf32> {mhlo.sharding = "{devices=[2,4]<=[8]}"
// CHECK: "stablehlo.all_reduce"
// CHECK: replica_groups = dense<{{\[\[}}0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>
// CHECK: stablehlo.dot_general {{.*}} -> tensor<4x8xf32>
// CHECK-NEXT: "stablehlo.all_reduce"
// CHECK-NOT: sdy.manual_computation
module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}, %w: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>}) -> (tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, tensor<8x8xf32>) {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<8x16xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {"y"}]> : tensor<8x16xf32>
    %2 = sdy.manual_computation(%1) in_shardings=[<@mesh, [{"x"}, {"y"}]>] out_shardings=[<@mesh, [{"x"}, {"y"}]>] manual_axes={"x", "y"} (%arg1: tensor<4x4xf32>) {
      %5 = stablehlo.add %arg1, %arg1 : tensor<4x4xf32>
      %6 = "stablehlo.all_reduce"(%5) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
      }) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, use_global_device_ids} : (tensor<4x4xf32>) -> tensor<4x4xf32>
      sdy.return %6 : tensor<4x4xf32>
    } : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %3 = sdy.reshard %2 <@mesh, [{"x"}, {}]> : tensor<8x16xf32>
    %4 = stablehlo.dot_general %0, %w, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
    return %3, %4 : tensor<8x16xf32>, tensor<8x8xf32>
  }
}
