// Halo exchange (passes/spmd_halo.c): convolution, reduce_window, pad and
// slice on values tiled along a windowed dim run on each partition's piece
// plus the rows its window needs from its neighbours, fetched with
// stablehlo.collective_permute; the local op has no padding on that dim.
// RUN: %tpucc --emit=mlir --split-input-file --passes=sharding-propagation,spmd-partition,canonicalize,cse,dce --verify-each %s | FileCheck %s
// Propagation keeps a spatial tiling through the windowed ops.
// RUN: %tpucc --emit=mlir --split-input-file --passes=sharding-propagation %s | FileCheck %s --check-prefix=PROP

// A 3x3 'same' convolution on rows tiled 4 ways: one row from each
// neighbour (partition 0's left and partition 3's right halo are zeros: the
// padding), a 6-row window, 4 output rows per partition.
// CHECK-LABEL: func.func public @conv_same
// CHECK-SAME: %arg0: tensor<1x4x16x4xf32>
// CHECK: %[[L:.*]] = stablehlo.slice %arg0 [0:1, 3:4, 0:16, 0:4]
// CHECK: %[[LH:.*]] = "stablehlo.collective_permute"(%[[L]]) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<{{\[}}[0, 1], [1, 2], [2, 3]]> : tensor<3x2xi64>} : (tensor<1x1x16x4xf32>) -> tensor<1x1x16x4xf32>
// CHECK: %[[R:.*]] = stablehlo.slice %arg0 [0:1, 0:1, 0:16, 0:4]
// CHECK: %[[RH:.*]] = "stablehlo.collective_permute"(%[[R]]) {{.*}}source_target_pairs = dense<{{\[}}[1, 0], [2, 1], [3, 2]]>
// CHECK: %[[W:.*]] = stablehlo.concatenate %[[LH]], %arg0, %[[RH]], dim = 1 : {{.*}} -> tensor<1x6x16x4xf32>
// CHECK: stablehlo.convolution(%[[W]], %arg1) {{.*}}pad = {{\[}}[0, 0], [1, 1]]{{.*}} -> tensor<1x4x16x8xf32>
// CHECK-NOT: all_gather
// PROP-LABEL: func.func public @conv_same
// PROP: stablehlo.convolution{{.*}}mhlo.sharding = "{devices=[1,4,1,1]<=[4]}"
// PROP: stablehlo.maximum{{.*}}mhlo.sharding = "{devices=[1,4,1,1]<=[4]}"
module @conv_same attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @conv_same(%x: tensor<1x16x16x4xf32> {mhlo.sharding = "{devices=[1,4,1,1]<=[4]}"}, %w: tensor<3x3x4x8xf32>) -> tensor<1x16x16x8xf32> {
    %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x16x16x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x16x16x8xf32>
    %z = stablehlo.constant dense<0.0> : tensor<1x16x16x8xf32>
    %1 = stablehlo.maximum %0, %z : tensor<1x16x16x8xf32>
    return %1 : tensor<1x16x16x8xf32>
  }
}

// -----
// Rows and columns tiled 2x2: rows are exchanged first, then columns of
// the extended piece (which carries the corners).
// CHECK-LABEL: func.func public @conv_2d
// CHECK: "stablehlo.collective_permute"{{.*}}source_target_pairs = dense<{{\[}}[0, 2], [1, 3]]>{{.*}} : (tensor<1x1x8x4xf32>)
// CHECK: "stablehlo.collective_permute"{{.*}}source_target_pairs = dense<{{\[}}[2, 0], [3, 1]]>{{.*}} : (tensor<1x1x8x4xf32>)
// CHECK: %[[ROWS:.*]] = stablehlo.concatenate {{.*}} dim = 1 : {{.*}} -> tensor<1x10x8x4xf32>
// CHECK: "stablehlo.collective_permute"{{.*}}source_target_pairs = dense<{{\[}}[0, 1], [2, 3]]>{{.*}} : (tensor<1x10x1x4xf32>)
// CHECK: "stablehlo.collective_permute"{{.*}}source_target_pairs = dense<{{\[}}[1, 0], [3, 2]]>{{.*}} : (tensor<1x10x1x4xf32>)
// CHECK: stablehlo.concatenate {{.*}} dim = 2 : {{.*}} -> tensor<1x10x10x4xf32>
// CHECK: stablehlo.convolution{{.*}}window = {}{{.*}} -> tensor<1x8x8x8xf32>
module @conv_2d attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @conv_2d(%x: tensor<1x16x16x4xf32> {mhlo.sharding = "{devices=[1,2,2,1]<=[4]}"}, %w: tensor<3x3x4x8xf32>) -> (tensor<1x16x16x8xf32> {mhlo.sharding = "{devices=[1,2,2,1]<=[4]}"}) {
    %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x16x16x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x16x16x8xf32>
    return %0 : tensor<1x16x16x8xf32>
  }
}

// -----
// 18 rows on 4 partitions (pieces of 5, the last with 2 padding rows): the
// window's rows at or past 18 are set to zero before the convolution.
// CHECK-LABEL: func.func public @conv_uneven
// CHECK-SAME: %arg0: tensor<1x5x16x4xf32>
// CHECK: stablehlo.exponential %arg0
// CHECK: %[[W:.*]] = stablehlo.concatenate {{.*}} -> tensor<1x7x16x4xf32>
// CHECK: stablehlo.constant dense<[-1, 4, 9, 14]> : tensor<4xi32>
// CHECK: %[[LIM:.*]] = stablehlo.constant dense<18> : tensor<1x7x16x4xi32>
// CHECK: %[[IN:.*]] = stablehlo.compare LT, %{{.*}}, %[[LIM]]
// CHECK: %[[M:.*]] = stablehlo.select %[[IN]], %[[W]], %{{.*}}
// CHECK: stablehlo.convolution(%[[M]], %arg1) {{.*}} -> tensor<1x5x16x8xf32>
module @conv_uneven attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @conv_uneven(%x: tensor<1x18x16x4xf32> {mhlo.sharding = "{devices=[1,4,1,1]<=[4]}"}, %w: tensor<3x3x4x8xf32>) -> (tensor<1x18x16x8xf32> {mhlo.sharding = "{devices=[1,4,1,1]<=[4]}"}) {
    %e = stablehlo.exponential %x : tensor<1x18x16x4xf32>
    %0 = stablehlo.convolution(%e, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x18x16x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x18x16x8xf32>
    return %0 : tensor<1x18x16x8xf32>
  }
}

// -----
// A 3x3 stride 2 max pool padded by 1: only a left halo row (from the
// previous partition); partition 0's row -1 is -inf.
// CHECK-LABEL: func.func public @maxpool
// CHECK: %[[LH:.*]] = "stablehlo.collective_permute"{{.*}}source_target_pairs = dense<{{\[}}[0, 1], [1, 2], [2, 3]]>{{.*}} : (tensor<1x1x16x4xf32>)
// CHECK-NOT: collective_permute
// CHECK: %[[W:.*]] = stablehlo.concatenate %[[LH]], %arg0, dim = 1
// CHECK: stablehlo.compare GE
// CHECK: %[[NINF:.*]] = stablehlo.constant dense<0xFF800000> : tensor<1x5x16x4xf32>
// CHECK: %[[M:.*]] = stablehlo.select %{{.*}}, %[[W]], %[[NINF]]
// CHECK: "stablehlo.reduce_window"(%[[M]], %{{.*}})
// CHECK: padding = dense<{{\[}}[0, 0], [0, 0], [1, 1], [0, 0]]>{{.*}} -> tensor<1x2x8x4xf32>
module @maxpool attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @maxpool(%x: tensor<1x16x16x4xf32> {mhlo.sharding = "{devices=[1,4,1,1]<=[4]}"}) -> tensor<1x8x8x4xf32> {
    %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%x, %init) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) {window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>, padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>} : (tensor<1x16x16x4xf32>, tensor<f32>) -> tensor<1x8x8x4xf32>
    return %0 : tensor<1x8x8x4xf32>
  }
}

// -----
// pad [3, 2] on 16 rows tiled 4 ways: 21 rows in pieces of 6; each
// partition's rows start at 6c - 3 (a dynamic_slice of [left, piece,
// right] at 0, 2, 4, 6), rows outside [0, 16) are the padding value;
// the untiled dim is padded locally.
// CHECK-LABEL: func.func public @pad
// CHECK: "stablehlo.collective_permute"{{.*}} : (tensor<1x8xf32>)
// CHECK: "stablehlo.collective_permute"{{.*}} : (tensor<3x8xf32>)
// CHECK: stablehlo.constant dense<[0, 2, 4, 6]> : tensor<4xi32>
// CHECK: %[[W:.*]] = stablehlo.dynamic_slice {{.*}} sizes = [6, 8]
// CHECK: stablehlo.constant dense<[-3, 3, 9, 15]> : tensor<4xi32>
// CHECK: %[[M:.*]] = stablehlo.select %{{.*}}, %[[W]], %{{.*}} : tensor<6x8xi1>, tensor<6x8xf32>
// CHECK: stablehlo.pad %[[M]], %{{.*}}, low = [0, 0], high = [0, 1], interior = [0, 0] : (tensor<6x8xf32>, tensor<f32>) -> tensor<6x9xf32>
// PROP-LABEL: func.func public @pad
// PROP: stablehlo.pad{{.*}}mhlo.sharding = "{devices=[4,1]<=[4]}"
module @pad attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @pad(%x: tensor<16x8xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) -> tensor<21x9xf32> {
    %v = stablehlo.constant dense<7.0> : tensor<f32>
    %0 = stablehlo.pad %x, %v, low = [3, 0], high = [2, 1], interior = [0, 0] : (tensor<16x8xf32>, tensor<f32>) -> tensor<21x9xf32>
    return %0 : tensor<21x9xf32>
  }
}

// -----
// slice [3:15] of rows tiled 4 ways: 3 rows per partition starting at
// 3c + 3, from the piece and the next partition's first 2 rows.
// CHECK-LABEL: func.func public @slice
// CHECK: "stablehlo.collective_permute"{{.*}}source_target_pairs = dense<{{\[}}[1, 0], [2, 1], [3, 2]]>{{.*}} : (tensor<2x8xf32>)
// CHECK: stablehlo.concatenate %arg0, {{.*}} -> tensor<6x8xf32>
// CHECK: stablehlo.constant dense<[3, 2, 1, 0]> : tensor<4xi32>
// CHECK: stablehlo.dynamic_slice {{.*}} sizes = [3, 8] {{.*}} -> tensor<3x8xf32>
// A window reaching past the neighbour's piece falls back to gathering.
// CHECK-LABEL: func.func public @too_far
// CHECK-NOT: collective_permute
// CHECK: stablehlo.all_gather
// PROP-LABEL: func.func public @slice
// PROP: stablehlo.slice{{.*}}mhlo.sharding = "{devices=[4,1]<=[4]}"
module @slice attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @slice(%x: tensor<16x8xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) -> tensor<12x8xf32> {
    %0 = stablehlo.slice %x [3:15, 0:8] : (tensor<16x8xf32>) -> tensor<12x8xf32>
    return %0 : tensor<12x8xf32>
  }
  func.func public @too_far(%x: tensor<16x8xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) -> tensor<4x8xf32> {
    %0 = stablehlo.slice %x [0:4, 0:8] : (tensor<16x8xf32>) -> tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
}

// -----
// An operand held whole along the windowed dim (replicated): each
// partition cuts its window out locally (zero rows padded on at the
// edges), no exchange.
// CHECK-LABEL: func.func public @whole
// CHECK-NOT: collective_permute
// CHECK: %[[P:.*]] = stablehlo.pad %arg0, %{{.*}}, low = [0, 1, 0, 0], high = [0, 1, 0, 0]
// CHECK: stablehlo.constant dense<[0, 4, 8, 12]> : tensor<4xi32>
// CHECK: %[[W:.*]] = stablehlo.dynamic_slice %[[P]], {{.*}} sizes = [1, 6, 16, 4]
// CHECK: stablehlo.convolution(%[[W]], %arg1) {{.*}} -> tensor<1x4x16x8xf32>
module @whole attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @whole(%x: tensor<1x16x16x4xf32> {mhlo.sharding = "{replicated}"}, %w: tensor<3x3x4x8xf32>) -> tensor<1x16x16x8xf32> {
    %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, mhlo.sharding = "{devices=[1,4,1,1]<=[4]}"} : (tensor<1x16x16x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x16x16x8xf32>
    return %0 : tensor<1x16x16x8xf32>
  }
}
