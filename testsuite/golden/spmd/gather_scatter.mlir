// Gather and scatter where the indices allow: the embedding table tiled
// along its feature dim stays in place (the gather slices its own
// columns), the indices are gathered whole within each column group.
// RUN: %tpucc --passes=sharding-propagation,spmd-partition,canonicalize,cse,dce --verify-each --emit=mlir %s | FileCheck %s
// RUN: %python %S/../../spmd/compare_partitioned.py --tpurun=%tpurun %s
// CHECK: "stablehlo.all_gather"
// CHECK-SAME: replica_groups = dense<{{\[\[}}0, 2], [1, 3]]>
// CHECK: "stablehlo.gather"(%arg0
// CHECK-SAME: slice_sizes = array<i64: 1, 2>
// CHECK-SAME: -> tensor<6x2xf32>
// CHECK: "stablehlo.scatter"(%arg0
// CHECK: -> tensor<10x2xf32>
module @t3 attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%tab: tensor<10x8xf32> {mhlo.sharding = "{devices=[1,4]<=[4]}"}, %ids: tensor<6x1xi32> {mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"}, %upd: tensor<6x8xf32> {mhlo.sharding = "{devices=[1,4]<=[4]}"}) -> (tensor<6x8xf32>, tensor<10x8xf32>) {
    %c = stablehlo.constant dense<9> : tensor<6x1xi32>
    %i2 = stablehlo.and %ids, %c : tensor<6x1xi32>
    %g = "stablehlo.gather"(%tab, %i2) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 8>} : (tensor<10x8xf32>, tensor<6x1xi32>) -> tensor<6x8xf32>
    %s = "stablehlo.scatter"(%tab, %i2, %upd) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %r = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %r : tensor<f32>
    }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<10x8xf32>, tensor<6x1xi32>, tensor<6x8xf32>) -> tensor<10x8xf32>
    return %g, %s : tensor<6x8xf32>, tensor<10x8xf32>
  }
}
