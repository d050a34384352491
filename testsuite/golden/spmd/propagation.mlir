// sharding-propagation: every value gets a layout from the annotations,
// through each op family's dim map, forward (operands to result) and
// backward (result to operands); where operands disagree the operand with
// the most bytes wins (docs/spmd.md).
// RUN: %tpucc --split-input-file --passes=sharding-propagation --verify-each --emit=mlir %s | FileCheck %s

// Element-wise ops, broadcast and transpose carry the tiling; an argument
// without a sharding takes its user's.
// CHECK-LABEL: module @elementwise
// CHECK: func.func public @main(%arg0: tensor<8x4xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, %arg1: tensor<8x4xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, %arg2: tensor<4xf32> {mhlo.sharding = "{replicated}"})
// CHECK-NEXT: stablehlo.add %arg0, %arg1 {mhlo.sharding = "{devices=[4,1]<=[4]}"}
// CHECK-NEXT: stablehlo.broadcast_in_dim %arg2, dims = [1] {mhlo.sharding = "{devices=[4,1]<=[4]}"}
// CHECK-NEXT: stablehlo.multiply {{.*}} {mhlo.sharding = "{devices=[4,1]<=[4]}"}
// CHECK-NEXT: stablehlo.transpose {{.*}} {mhlo.sharding = "{devices=[1,4]<=[4]}"}
module @elementwise attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%x: tensor<8x4xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, %y: tensor<8x4xf32>, %b: tensor<4xf32>) -> tensor<4x8xf32> {
    %0 = stablehlo.add %x, %y : tensor<8x4xf32>
    %1 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<4xf32>) -> tensor<8x4xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<8x4xf32>
    %3 = stablehlo.transpose %2, dims = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>
    return %3 : tensor<4x8xf32>
  }
}

// -----
// reshape keeps a tiling on the major dim of a group of dims; reduce keeps
// the tiling of the dims it does not reduce.
// CHECK-LABEL: module @reshape_reduce
// CHECK: stablehlo.reshape %arg0 {mhlo.sharding = "{devices=[2,1,1]<=[2]}"}
// CHECK: stablehlo.reshape %arg0 {mhlo.sharding = "{devices=[2]<=[2]}"}
// CHECK: applies stablehlo.add across dimensions = [1] {mhlo.sharding = "{devices=[2]<=[2]}"}
module @reshape_reduce attributes {mhlo.num_partitions = 2 : i32} {
  func.func public @main(%x: tensor<8x6xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}) -> (tensor<8x3x2xf32>, tensor<48xf32>, tensor<8xf32>) {
    %0 = stablehlo.reshape %x : (tensor<8x6xf32>) -> tensor<8x3x2xf32>
    %1 = stablehlo.reshape %x : (tensor<8x6xf32>) -> tensor<48xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %2 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<8x6xf32>, tensor<f32>) -> tensor<8xf32>
    return %0, %1, %2 : tensor<8x3x2xf32>, tensor<48xf32>, tensor<8xf32>
  }
}

// -----
// dot_general: batch and free dims carry their operands' tilings (here both
// operands' at once); a result whose operands are tiled only along the
// contracting dims takes its user's layout (the FSDP gradient below becomes
// the weight's layout, so the partitioner can reduce_scatter it).
// CHECK-LABEL: module @dot
// CHECK: stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] {mhlo.sharding = "{devices=[2,2]<=[4]}"}
// CHECK: stablehlo.dot_general %arg0, %arg2, contracting_dims = [0] x [0] {mhlo.sharding = "{devices=[4,1]<=[4]}"}
module @dot attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%x: tensor<8x16xf32> {mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"}, %w: tensor<16x12xf32> {mhlo.sharding = "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}"}, %g: tensor<8x12xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, %v: tensor<16x12xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) -> (tensor<8x12xf32>, tensor<16x12xf32>) {
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x12xf32>) -> tensor<8x12xf32>
    %1 = stablehlo.dot_general %x, %g, contracting_dims = [0] x [0] : (tensor<8x16xf32>, tensor<8x12xf32>) -> tensor<16x12xf32>
    %2 = stablehlo.subtract %v, %1 : tensor<16x12xf32>
    return %0, %2 : tensor<8x12xf32>, tensor<16x12xf32>
  }
}

// -----
// Conflicts: the operand with the most bytes wins (the i1 predicate tiled
// along dim 1 loses to the f32 operand tiled along dim 0, though it comes
// first); with equal bytes the first operand wins.
// CHECK-LABEL: module @conflict
// CHECK: stablehlo.select %arg0, %arg1, %arg2 {mhlo.sharding = "{devices=[4,1]<=[4]}"}
// CHECK: stablehlo.add %arg1, %arg2 {mhlo.sharding = "{devices=[4,1]<=[4]}"}
// CHECK: stablehlo.add %arg2, %arg1 {mhlo.sharding = "{devices=[1,4]<=[4]}"}
module @conflict attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%p: tensor<8x8xi1> {mhlo.sharding = "{devices=[1,4]<=[4]}"}, %a: tensor<8x8xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, %b: tensor<8x8xf32> {mhlo.sharding = "{devices=[1,4]<=[4]}"}) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
    %0 = stablehlo.select %p, %a, %b : tensor<8x8xi1>, tensor<8x8xf32>
    %1 = stablehlo.add %a, %b : tensor<8x8xf32>
    %2 = stablehlo.add %b, %a : tensor<8x8xf32>
    return %0, %1, %2 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  }
}

// -----
// Annotations are fixed: custom_call @Sharding (with_sharding_constraint)
// pins its result; the value before it takes the constraint backward.
// CHECK-LABEL: module @constraint
// CHECK: stablehlo.exponential %arg0 {mhlo.sharding = "{devices=[1,2]<=[2]}"}
// CHECK: stablehlo.custom_call @Sharding({{.*}}) {mhlo.sharding = "{devices=[1,2]<=[2]}"}
// CHECK: stablehlo.negate {{.*}} {mhlo.sharding = "{devices=[1,2]<=[2]}"}
module @constraint attributes {mhlo.num_partitions = 2 : i32} {
  func.func public @main(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %0 = stablehlo.exponential %x : tensor<4x4xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {mhlo.sharding = "{devices=[1,2]<=[2]}"} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %2 = stablehlo.negate %1 : tensor<4x4xf32>
    return %2 : tensor<4x4xf32>
  }
}

// -----
// Gather: the indices' batch dims carry their tiling to the result, the
// table's whole-slice dims to the offset dims.
// CHECK-LABEL: module @gather
// CHECK: "stablehlo.gather"{{.*}}mhlo.sharding = "{devices=[2,2]<=[4]}"
module @gather attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%tab: tensor<10x8xf32> {mhlo.sharding = "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}"}, %ids: tensor<6x1xi32> {mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"}) -> tensor<6x8xf32> {
    %0 = "stablehlo.gather"(%tab, %ids) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 8>} : (tensor<10x8xf32>, tensor<6x1xi32>) -> tensor<6x8xf32>
    return %0 : tensor<6x8xf32>
  }
}

// -----
// while: the loop-carried values, the body's arguments and its results keep
// the initial values' layouts; if: the results take the branches'.
// CHECK-LABEL: module @control
// CHECK: stablehlo.while{{.*}} attributes {mhlo.sharding = "{{[{][{]}}replicated}, {devices=[2,1]<=[2]}}"}
// CHECK: stablehlo.tanh {{.*}} {mhlo.sharding = "{devices=[2,1]<=[2]}"}
// CHECK: "stablehlo.if"
// CHECK: stablehlo.exponential {{.*}} {mhlo.sharding = "{devices=[2,1]<=[2]}"}
// CHECK: }) {mhlo.sharding = "{devices=[2,1]<=[2]}"}
module @control attributes {mhlo.num_partitions = 2 : i32} {
  func.func public @main(%x: tensor<4x4xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}, %p: tensor<i1>) -> tensor<4x4xf32> {
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %c0, %h = %x) : tensor<i32>, tensor<4x4xf32>
     cond {
      %c3 = stablehlo.constant dense<3> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %c3 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %t = stablehlo.tanh %h : tensor<4x4xf32>
      %c1 = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %i, %c1 : tensor<i32>
      stablehlo.return %n, %t : tensor<i32>, tensor<4x4xf32>
    }
    %s = "stablehlo.if"(%p) ({
      %e = stablehlo.exponential %r#1 : tensor<4x4xf32>
      stablehlo.return %e : tensor<4x4xf32>
    }, {
      stablehlo.return %x : tensor<4x4xf32>
    }) : (tensor<i1>) -> tensor<4x4xf32>
    return %s : tensor<4x4xf32>
  }
}
