// RUN: %verify-diagnostics %s
// Shardings on ops, and JAX's annotation custom calls (passes/sharding.c):
// tuple shardings give one element per result; @Sharding and the other
// hints are identities; @SPMDFullToShardShape gives the per-device shape
// under its operand's mhlo.sharding (the @Sharding feeding it, or an
// annotated argument), @SPMDShardToFullShape takes the per-device shape of
// its own (full) mhlo.sharding.

module attributes {mhlo.num_partitions = 2 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{mhlo.sharding on %0: "{{replicated}, {replicated}, {replicated}}" has 3 elements for 2 results}}
    %0:2 = "stablehlo.optimization_barrier"(%arg0, %arg0) {mhlo.sharding = "{{replicated}, {replicated}, {replicated}}"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    // expected-error @+1 {{mhlo.sharding = "{{replicated}, {devices=[2,1]<=[2]}}" on %1 (result #1) does not fit its type 'tensor<4xf32>': it tiles 2 dimensions but the value has rank 1}}
    %1:2 = "stablehlo.optimization_barrier"(%arg0, %arg0) {mhlo.sharding = "{{replicated}, {devices=[2,1]<=[2]}}"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    // expected-error @+1 {{mhlo.sharding = "{devices=[4]<=[4]}" on %2 does not fit its type 'tensor<4xf32>': it spreads over 4 devices but the program has 2 partitions}}
    %2 = stablehlo.abs %arg0 {mhlo.sharding = "{devices=[4]<=[4]}"} : tensor<4xf32>
    // expected-error @+1 {{malformed mhlo.sharding on %3: 3 : i32: not a string}}
    %3 = stablehlo.abs %arg0 {mhlo.sharding = 3 : i32} : tensor<4xf32>
    // expected-error @+2 {{custom_call @Sharding is an identity: its result type 'tensor<4x4xf32>' must be its operand type 'tensor<4xf32>'}}
    // expected-error @+1 {{mhlo.sharding = "{devices=[2]<=[2]}" on %4 does not fit its type 'tensor<4x4xf32>': it tiles 1 dimensions but the value has rank 2}}
    %4 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{devices=[2]<=[2]}"} : (tensor<4xf32>) -> tensor<4x4xf32>
    return %arg0 : tensor<4xf32>
  }
}

// -----

// The identities.
func.func @main(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{custom_call @MoveToHost is an identity: its result type 'tensor<2x4xf32>' must be its operand type 'tensor<4x2xf32>'}}
  %0 = stablehlo.custom_call @MoveToHost(%arg0) : (tensor<4x2xf32>) -> tensor<2x4xf32>
  // expected-error @+1 {{custom_call @Sharding is an identity: it takes one operand and has one result, not 2 and 1}}
  %1 = stablehlo.custom_call @Sharding(%arg0, %arg0) {mhlo.sharding = "{replicated}"} : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  // expected-error @+1 {{custom_call @Sharding is an identity: its result type 'tensor<4x4xf32>' must be its operand type 'tensor<4x2xf32>'}}
  %2 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{replicated}"} : (tensor<4x2xf32>) -> tensor<4x4xf32>
  return %arg0 : tensor<4x2xf32>
}

// -----

// shard_map as JAX exports it: accepted.
module attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%arg0: tensor<8x6xf32> {mhlo.sharding = "{devices=[2,2]<=[4]}"}) -> (tensor<8x6xf32> {mhlo.sharding = "{devices=[2,2]<=[4]}"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{devices=[2,2]<=[4]}"} : (tensor<8x6xf32>) -> tensor<8x6xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{manual}"} : (tensor<8x6xf32>) -> tensor<4x3xf32>
    %2 = stablehlo.negate %1 : tensor<4x3xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {mhlo.sharding = "{manual}"} : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {mhlo.sharding = "{devices=[2,2]<=[4]}"} : (tensor<4x3xf32>) -> tensor<8x6xf32>
    %5 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{devices=[1,2,2]<=[4] last_tile_dim_replicate}"} : (tensor<8x6xf32>) -> tensor<8x6xf32>
    %6 = stablehlo.custom_call @SPMDFullToShardShape(%5) {mhlo.sharding = "{manual}"} : (tensor<8x6xf32>) -> tensor<8x3xf32>
    %7 = stablehlo.custom_call @SPMDFullToShardShape(%arg0) {mhlo.sharding = "{manual}"} : (tensor<8x6xf32>) -> tensor<4x3xf32>
    return %4 : tensor<8x6xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%arg0: tensor<8x6xf32>) -> tensor<8x6xf32> {
    %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{devices=[2,2]<=[4]}"} : (tensor<8x6xf32>) -> tensor<8x6xf32>
    // expected-error @+1 {{custom_call @SPMDFullToShardShape: the per-device type of 'tensor<8x6xf32>' under {devices=[2,2]<=[4]} is 'tensor<4x3xf32>', but its result has type 'tensor<8x6xf32>'}}
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{manual}"} : (tensor<8x6xf32>) -> tensor<8x6xf32>
    // expected-error @+1 {{custom_call @SPMDShardToFullShape: the per-device type of 'tensor<8x6xf32>' under {devices=[4,1]<=[4]} is 'tensor<2x6xf32>', but its operand has type 'tensor<8x6xf32>'}}
    %2 = stablehlo.custom_call @SPMDShardToFullShape(%1) {mhlo.sharding = "{devices=[4,1]<=[4]}"} : (tensor<8x6xf32>) -> tensor<8x6xf32>
    // expected-error @+1 {{custom_call @SPMDFullToShardShape: its operand has no mhlo.sharding: feed it from a custom_call @Sharding (the full sharding)}}
    %3 = stablehlo.custom_call @SPMDFullToShardShape(%arg0) {mhlo.sharding = "{manual}"} : (tensor<8x6xf32>) -> tensor<4x3xf32>
    // expected-error @+1 {{custom_call @SPMDShardToFullShape: it has no mhlo.sharding (the full sharding)}}
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) : (tensor<4x3xf32>) -> tensor<8x6xf32>
    %5 = stablehlo.custom_call @Sharding(%arg0) : (tensor<8x6xf32>) -> tensor<8x6xf32>
    // expected-error @+1 {{custom_call @SPMDFullToShardShape: its operand has no mhlo.sharding: feed it from a custom_call @Sharding (the full sharding)}}
    %6 = stablehlo.custom_call @SPMDFullToShardShape(%5) {mhlo.sharding = "{manual}"} : (tensor<8x6xf32>) -> tensor<4x3xf32>
    // expected-error @+1 {{custom_call @SPMDShardToFullShape is an identity: it takes one operand and has one result, not 2 and 1}}
    %7 = stablehlo.custom_call @SPMDShardToFullShape(%3, %3) {mhlo.sharding = "{replicated}"} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<8x6xf32>
    return %arg0 : tensor<8x6xf32>
  }
}

// -----

// One partition: the SPMD calls are identities.
module attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
    %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{replicated}"} : (tensor<4x2xf32>) -> tensor<4x2xf32>
    // expected-error @+1 {{custom_call @SPMDFullToShardShape: the per-device type of 'tensor<4x2xf32>' under {replicated} is 'tensor<4x2xf32>', but its result has type 'tensor<2x2xf32>'}}
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{manual}"} : (tensor<4x2xf32>) -> tensor<2x2xf32>
    return %arg0 : tensor<4x2xf32>
  }
}
