// RUN: %verify-diagnostics %s
// RUN: %verify-diagnostics %s -O0
// passes/sharding.c, run before every pipeline and by --verify-only: every
// sharding annotation is read and fitted to its value; a malformed one, or
// one that does not fit, is a located error naming the value.  Tiled
// shardings are accepted (SPMD partitioning runs them).  The exhaustive
// lists of refusals are verifier/sharding_gspmd.mlir, sharding_sdy.mlir,
// sharding_calls.mlir and sharding_ops.mlir.

// Accepted: tiled GSPMD shardings on arguments, results and ops.
module attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"},
                         %arg1: tensor<4x4x4xf32> {mhlo.sharding = "{devices=[1,2,2]0,1,2,3}"})
      -> (tensor<4x2xf32> {mhlo.sharding = "{devices=[2,2]<=[2,2]T(1,0)}"}, tensor<4x2xf32> {mhlo.sharding = "{replicated}"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{devices=[4,1]<=[4]}"} : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %sum = stablehlo.add %0, %arg0 {mhlo.sharding = "{devices=[2,2]<=[2,2]T(1,0)}"} : tensor<4x2xf32>
    %1:2 = "stablehlo.optimization_barrier"(%sum, %0) {mhlo.sharding = "{{replicated}, {devices=[2,1,2]<=[4] last_tile_dims={manual}}}"} : (tensor<4x2xf32>, tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>)
    return %1#0, %1#1 : tensor<4x2xf32>, tensor<4x2xf32>
  }
}

// -----

// Accepted: whole values, and the identity annotations on them.
module attributes {mhlo.num_partitions = 2 : i32} {
  func.func public @main(%a: tensor<4x2xf32> {mhlo.sharding = "{devices=[1,1]<=[1]}"},
                         %b: tensor<4x2xf32> {mhlo.sharding = "{devices=[1,1,2]<=[2] last_tile_dim_replicate}"},
                         %d: tensor<4x2xf32> {mhlo.sharding = "{maximal device=1}"},
                         %e: tensor<4x2xf32> {mhlo.sharding = "{manual}"},
                         %f: tensor<4x2xf32> {mhlo.sharding = "{replicated metadata={op_name=\"x\"}}"})
      -> (tensor<4x2xf32> {mhlo.sharding = "{replicated}"}) {
    %0 = stablehlo.custom_call @Sharding(%a) {mhlo.sharding = "{unknown}"} : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %1 = stablehlo.custom_call @MoveToHost(%0) : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %2 = stablehlo.custom_call @MoveToDevice(%1) : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %3 = stablehlo.custom_call @annotate_device_placement(%2) {has_side_effect = true, mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %4 = stablehlo.custom_call @LayoutConstraint(%3) : (tensor<4x2xf32>) -> tensor<4x2xf32>
    return %4 : tensor<4x2xf32>
  }
}

// -----

// Every error is reported, each naming its value.
module attributes {mhlo.num_partitions = 2 : i32} {
  // expected-error @+2 {{mhlo.sharding = "{devices=[4,1]<=[4]}" on %arg0 of @main does not fit its type 'tensor<4x2xf32>': it spreads over 4 devices but the program has 2 partitions}}
  // expected-error @+1 {{malformed mhlo.sharding on result #1 of @main: "{devices=[1,2]<=[2]": missing '}'}}
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) -> (tensor<4x2xf32> {mhlo.sharding = "{replicated}"}, tensor<4x2xf32> {mhlo.sharding = "{devices=[1,2]<=[2]"}) {
    // expected-error @+1 {{malformed mhlo.sharding on %sum: "{replicatd}": expected replicated, maximal, manual, unknown or devices= at 'replicatd}'}}
    %sum = stablehlo.add %arg0, %arg0 {mhlo.sharding = "{replicatd}"} : tensor<4x2xf32>
    return %sum, %arg0 : tensor<4x2xf32>, tensor<4x2xf32>
  }
}

// -----

// Shardy: tiled shardings accepted, pretty form as JAX prints it.
module @jit_f attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["a"=2, "b"=2]>
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {"b"}]>}) -> (tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"b", "a"}, {}]>}) {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"b", "a"}, {}]> : tensor<4x2xf32>
    %1 = stablehlo.add %0, %0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"a":(1)2, ?}, {?}]>]>} : tensor<4x2xf32>
    return %1 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 2 : i32} {
  // expected-error @+1 {{sdy.mesh @mesh has 4 devices but the module has mhlo.num_partitions = 2}}
  sdy.mesh @mesh = <["a"=2, "b"=2]>
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {"b"}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 2 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  // expected-error @+1 {{malformed sdy.sharding on %arg0 of @main: #sdy.sharding<@mesh, [{"y"}, {}]>: unknown axis "y" (not in the mesh)}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>}) -> tensor<4x2xf32> {
    // expected-error @+1 {{malformed sharding on %0: #sdy.sharding<@nowhere, [{}, {}]>: unknown mesh @nowhere (no sdy.mesh of that name)}}
    %0 = sdy.sharding_constraint %arg0 <@nowhere, [{}, {}]> : tensor<4x2xf32>
    return %0 : tensor<4x2xf32>
  }
}
