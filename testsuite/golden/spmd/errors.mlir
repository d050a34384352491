// Shardings the partitioner cannot honour are located errors (exit 2),
// never a crash or a silently different layout.  Malformed annotations are
// the sharding check's (testsuite/golden/verifier/sharding_*.mlir).
// RUN: %not %tpucc --split-input-file --emit=mlir %s 2>&1 >/dev/null | FileCheck %s

// CHECK: errors.mlir:[[@LINE+2]]:3: error: 'func.func' op the sharding of %arg0 covers 2 devices, not the program's 4 partitions
module @fewer_devices attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%x: tensor<8x4xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}) -> tensor<8x4xf32> {
    return %x : tensor<8x4xf32>
  }
}

// -----
// CHECK: errors.mlir:[[@LINE+3]]:10: error: 'stablehlo.negate' op result #0 is partially manual (last_tile_dims={manual}); tpucc partitions fully manual shard_map bodies only
module @partial_manual attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%x: tensor<8x4xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) -> tensor<8x4xf32> {
    %0 = stablehlo.negate %x {mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dims={manual}}"} : tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
}

// -----
// The sharding check (passes/sharding.c) reports these before partitioning.
// CHECK: errors.mlir:[[@LINE+5]]:10: error: 'stablehlo.custom_call' op custom_call @SPMDFullToShardShape: the per-device type of 'tensor<8x4xf32>' under {devices=[4,1]<=[4]} is 'tensor<2x4xf32>', but its result has type 'tensor<4x4xf32>'
// CHECK: errors.mlir:[[@LINE+5]]:10: error: 'stablehlo.custom_call' op custom_call @SPMDShardToFullShape: the per-device type of 'tensor<8x4xf32>' under {devices=[4,1]<=[4]} is 'tensor<2x4xf32>', but its operand has type 'tensor<4x4xf32>'
module @bad_full_to_shard attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%x: tensor<8x4xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) -> tensor<8x4xf32> {
    %0 = stablehlo.custom_call @Sharding(%x) {mhlo.sharding = "{devices=[4,1]<=[4]}"} : (tensor<8x4xf32>) -> tensor<8x4xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{manual}"} : (tensor<8x4xf32>) -> tensor<4x4xf32>
    %2 = stablehlo.custom_call @SPMDShardToFullShape(%1) {mhlo.sharding = "{devices=[4,1]<=[4]}"} : (tensor<4x4xf32>) -> tensor<8x4xf32>
    return %2 : tensor<8x4xf32>
  }
}

// -----
// CHECK: errors.mlir:[[@LINE+4]]:5: error: 'func.return' op operand #0 is a manual (per-device) value; return it through custom_call @SPMDShardToFullShape
module @manual_escapes attributes {mhlo.num_partitions = 2 : i32} {
  func.func public @main(%x: tensor<8x4xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}) -> tensor<4x4xf32> {
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%x) {mhlo.sharding = "{manual}"} : (tensor<8x4xf32>) -> tensor<4x4xf32>
    return %1 : tensor<4x4xf32>
  }
}
