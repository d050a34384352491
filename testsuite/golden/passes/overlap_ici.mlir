// The ICI model of collectives (common/ici.h, docs/passes.md "The ICI model")
// through `tpucc --report`: groups resolved to chips of the slice
// (mhlo.num_replicas x mhlo.num_partitions) on the target's default torus.
// RUN: %tpucc --report --verify-each --passes=buffer-assign --split-input-file %s | FileCheck %s
// RUN: %tpucc --report --verify-each --passes=buffer-assign --split-input-file --target=v4 %s | FileCheck %s --check-prefix=V4

// 8 chips on v5e sit on a 2x4 mesh without wraparound (an axis of a 2D
// torus wraps only at 16).  A 4 MiB f32 all-reduce over all 8 spans both
// axes: hops 1 + 3 = 4, both directions of 2 axes share the 7/8 of the
// array each chip moves: 2 x max(4 us, 3670016 B / 180 GB/s) + 1 us issue.
// A row of 4 spans one axis (hops 3, half the bandwidth): slower; a column
// of 2 moves half the array over 1 hop.
// CHECK-LABEL: tpucc report: {{.*}}overlap_ici.mlir on v5e
// CHECK: stablehlo.all_reduce {{.*}} 41.778 ICI
// CHECK-NEXT: stablehlo.all_reduce {{.*}} 70.905 ICI
// Permutes: chip 0 to 7 is 1 + 3 hops away; 0 <-> 1 one hop.
// CHECK-NEXT: stablehlo.collective_permute {{.*}} 5.000 ICI
// CHECK-NEXT: stablehlo.collective_permute {{.*}} 2.000 ICI
// The column pairs: one axis, 1 hop.
// CHECK-NEXT: stablehlo.all_reduce {{.*}} 47.603 ICI
// all_to_all: a byte crosses C / 4 = 1.5 hops of the longest ring on average.
// CHECK-NEXT: stablehlo.all_to_all {{.*}} 31.583 ICI
// broadcast: the whole array down both directions of 2 axes.
// CHECK-NEXT: stablehlo.collective_broadcast {{.*}} 24.302 ICI
// reduce_scatter of the 4 MiB operand and all_gather into a 4 MiB result:
// half an all-reduce each.
// CHECK-NEXT: stablehlo.reduce_scatter {{.*}} 21.389 ICI
// CHECK-NEXT: stablehlo.all_gather {{.*}} 21.389 ICI
// CHECK-NEXT: time by bound: MXU 0.000 us, VPU 0.000 us, HBM 0.000 us, ICI 265.950 us, issue 0.000 us
// Without the overlap pass every collective holds the compute stream.
// CHECK: streams: compute 0.000 us, ICI 265.950 us; total 265.950 us, of which ICI exposed 265.950 us
// On v4 the same 8 chips are a 2x2x2 cube: 3 axes of 1 hop each.
// V4-LABEL: tpucc report: {{.*}}overlap_ici.mlir on v4
// V4: stablehlo.all_reduce {{.*}} 28.185 ICI
module attributes {mhlo.num_replicas = 8 : i32} {
func.func @main(%a: tensor<1024x1024xf32>, %s: tensor<8x128xf32>, %q: tensor<128x1024xf32>) -> (tensor<1024x1024xf32>, tensor<1024x1024xf32>, tensor<1024x1024xf32>, tensor<8x128xf32>, tensor<8x128xf32>, tensor<1024x1024xf32>, tensor<1024x1024xf32>, tensor<128x1024xf32>, tensor<1024x1024xf32>) {
  %0 = "stablehlo.all_reduce"(%a) ({
    ^bb0(%p: tensor<f32>, %r: tensor<f32>):
      %t = stablehlo.add %p, %r : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %1 = "stablehlo.all_reduce"(%a) ({
    ^bb0(%p: tensor<f32>, %r: tensor<f32>):
      %t = stablehlo.add %p, %r : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>} : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %3 = "stablehlo.collective_permute"(%s) {source_target_pairs = dense<[[0, 7]]> : tensor<1x2xi64>} : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %4 = "stablehlo.collective_permute"(%s) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %2 = "stablehlo.all_reduce"(%a) ({
    ^bb0(%p: tensor<f32>, %r: tensor<f32>):
      %t = stablehlo.add %p, %r : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>} : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %5 = "stablehlo.all_to_all"(%a) {split_dimension = 1 : i64, concat_dimension = 1 : i64, split_count = 8 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %6 = "stablehlo.collective_broadcast"(%a) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %7 = "stablehlo.reduce_scatter"(%a) ({
    ^bb0(%p: tensor<f32>, %r: tensor<f32>):
      %t = stablehlo.add %p, %r : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<1024x1024xf32>) -> tensor<128x1024xf32>
  %8 = "stablehlo.all_gather"(%q) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<128x1024xf32>) -> tensor<1024x1024xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<1024x1024xf32>, tensor<1024x1024xf32>, tensor<1024x1024xf32>, tensor<8x128xf32>, tensor<8x128xf32>, tensor<1024x1024xf32>, tensor<1024x1024xf32>, tensor<128x1024xf32>, tensor<1024x1024xf32>
}
}

// -----

// 64 chips: an 8x8 mesh on v5e (no wraparound: hops 7 + 7), a 4x4x4 torus
// on v4 (every axis wraps: 2 + 2 + 2 hops, 3 axes).  An all_reduce without
// replica_groups spans every replica; a 4 KiB all_gather is latency bound.
// CHECK-LABEL: tpucc report
// CHECK: stablehlo.all_reduce {{.*}} 46.875 ICI
// CHECK-NEXT: stablehlo.all_gather {{.*}} 15.000 ICI
// V4-LABEL: tpucc report
// V4: stablehlo.all_reduce {{.*}} 31.583 ICI
// V4-NEXT: stablehlo.all_gather {{.*}} 7.000 ICI
module attributes {mhlo.num_replicas = 64 : i32} {
func.func @main(%a: tensor<1024x1024xf32>, %s: tensor<8x128xf32>) -> (tensor<1024x1024xf32>, tensor<512x128xf32>) {
  %0 = "stablehlo.all_reduce"(%a) ({
    ^bb0(%p: tensor<f32>, %r: tensor<f32>):
      %t = stablehlo.add %p, %r : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %1 = "stablehlo.all_gather"(%s) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63]]> : tensor<1x64xi64>} : (tensor<8x128xf32>) -> tensor<512x128xf32>
  return %0, %1 : tensor<1024x1024xf32>, tensor<512x128xf32>
}
}

// -----

// 256 chips: v5e's full 16x16 pod wraps both axes (8 + 8 hops); v4 puts
// them on 4x8x8, every axis a multiple of 4 and wrapping (2 + 4 + 4).
// CHECK-LABEL: tpucc report
// CHECK: stablehlo.all_gather {{.*}} 17.000 ICI
// V4-LABEL: tpucc report
// V4: stablehlo.all_gather {{.*}} 11.000 ICI
module attributes {mhlo.num_replicas = 256 : i32} {
func.func @main(%s: tensor<8x128xf32>) -> tensor<2048x128xf32> {
  %1 = "stablehlo.all_gather"(%s) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175, 176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 187, 188, 189, 190, 191, 192, 193, 194, 195, 196, 197, 198, 199, 200, 201, 202, 203, 204, 205, 206, 207, 208, 209, 210, 211, 212, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223, 224, 225, 226, 227, 228, 229, 230, 231, 232, 233, 234, 235, 236, 237, 238, 239, 240, 241, 242, 243, 244, 245, 246, 247, 248, 249, 250, 251, 252, 253, 254, 255]]> : tensor<1x256xi64>} : (tensor<8x128xf32>) -> tensor<2048x128xf32>
  return %1 : tensor<2048x128xf32>
}
}

// -----

// Partitions.  2 replicas x 4 partitions = 8 chips (chip = replica x 4 +
// partition).  flattened_ids (use_global_device_ids) name chips: all 8;
// cross_replica_and_partition with a group of 2 replicas spans them and
// every partition: all 8 again; an all_to_all with a channel is
// cross-partition: partitions 0..3 of replica 0, one row of the 2x4 mesh.
// A send names its peer by source_target_pairs: chip 0 to chip 3 (mode
// cross-partition), 3 hops.
// CHECK-LABEL: tpucc report
// CHECK: stablehlo.all_reduce {{.*}} 41.778 ICI
// CHECK-NEXT: stablehlo.all_reduce {{.*}} 41.778 ICI
// CHECK-NEXT: stablehlo.all_to_all {{.*}} 53.429 ICI
// CHECK-NEXT: stablehlo.send {{.*}} 4.000 ICI
module attributes {mhlo.num_replicas = 2 : i32, mhlo.num_partitions = 4 : i32} {
func.func @main(%a: tensor<1024x1024xf32>, %s: tensor<8x128xf32>, %tok: !stablehlo.token) -> (tensor<1024x1024xf32>, tensor<1024x1024xf32>, tensor<1024x1024xf32>, !stablehlo.token) {
  %0 = "stablehlo.all_reduce"(%a) ({
    ^bb0(%p: tensor<f32>, %r: tensor<f32>):
      %t = stablehlo.add %p, %r : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %1 = "stablehlo.all_reduce"(%a) ({
    ^bb0(%p: tensor<f32>, %r: tensor<f32>):
      %t = stablehlo.add %p, %r : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>} : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %2 = "stablehlo.all_to_all"(%a) {split_dimension = 1 : i64, concat_dimension = 1 : i64, split_count = 4 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>} : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %3 = "stablehlo.send"(%s, %tok) {source_target_pairs = dense<[[0, 3]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>} : (tensor<8x128xf32>, !stablehlo.token) -> !stablehlo.token
  return %0, %1, %2, %3 : tensor<1024x1024xf32>, tensor<1024x1024xf32>, tensor<1024x1024xf32>, !stablehlo.token
}
}

// -----

// Without mhlo.num_replicas the slice grows to hold the ids the groups
// name (8 here); a group of one chip moves nothing over the ICI (the row
// is bound by its HBM traffic).
// CHECK-LABEL: tpucc report
// CHECK: stablehlo.all_reduce {{.*}} 41.778 ICI
// CHECK-NEXT: stablehlo.all_reduce {{.*}} 11.243 HBM
func.func @main(%a: tensor<1024x1024xf32>) -> (tensor<1024x1024xf32>, tensor<1024x1024xf32>) {
  %0 = "stablehlo.all_reduce"(%a) ({
    ^bb0(%p: tensor<f32>, %r: tensor<f32>):
      %t = stablehlo.add %p, %r : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %1 = "stablehlo.all_reduce"(%a) ({
    ^bb0(%p: tensor<f32>, %r: tensor<f32>):
      %t = stablehlo.add %p, %r : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0], [1]]> : tensor<2x1xi64>} : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0, %1 : tensor<1024x1024xf32>, tensor<1024x1024xf32>
}
