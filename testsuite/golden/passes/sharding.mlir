// RUN: %verify-diagnostics %s
// RUN: %verify-diagnostics %s -O0
// passes/sharding.c: until tpucc partitions programs (the SPMD issue), a
// sharding that tiles a value over several devices is refused with the
// first such value and the reason, never run unpartitioned.  Shardings that
// keep every value whole are accepted.

module attributes {mhlo.num_partitions = 2 : i32} {
  // expected-error @+1 {{sharded value %arg0 of @main (mhlo.sharding = "{devices=[2,1]<=[2]}") is tiled over 2 devices; it needs SPMD partitioning, which tpucc does not do yet}}
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}) -> (tensor<4x2xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}) {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

// Only the first sharded value is named: here the second argument.
module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{sharded value %arg1 of @main (mhlo.sharding = "{devices=[1,2,2]0,1,2,3}") is tiled over 4 devices}}
  func.func public @main(%arg0: tensor<4xf32> {mhlo.sharding = "{replicated}"}, %arg1: tensor<4x4x4xf32> {mhlo.sharding = "{devices=[1,2,2]0,1,2,3}"}) -> tensor<4xf32> {
    return %arg0 : tensor<4xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 2 : i32} {
  // expected-error @+1 {{sharded value result #1 of @main (mhlo.sharding = "{devices=[1,2]<=[2]}") is tiled over 2 devices}}
  func.func public @main(%arg0: tensor<4x2xf32>) -> (tensor<4x2xf32> {mhlo.sharding = "{replicated}"}, tensor<4x2xf32> {mhlo.sharding = "{devices=[1,2]<=[2]}"}) {
    return %arg0, %arg0 : tensor<4x2xf32>, tensor<4x2xf32>
  }
}

// -----

// The custom_call @Sharding that JAX emits, and any op's mhlo.sharding.
func.func @main(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{sharded value %0 (mhlo.sharding = "{devices=[2,1]<=[2]}") is tiled over 2 devices}}
  %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{devices=[2,1]<=[2]}"} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @main(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{sharded value %sum (mhlo.sharding = "{devices=[2,2]<=[2,2]T(1,0)}") is tiled over 4 devices}}
  %sum = stablehlo.add %arg0, %arg0 {mhlo.sharding = "{devices=[2,2]<=[2,2]T(1,0)}"} : tensor<4x2xf32>
  return %sum : tensor<4x2xf32>
}

// -----

// Tuple shardings: refused when any element is tiled.
func.func @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{sharded value %0 (mhlo.sharding = "{{replicated}, {devices=[2]<=[2]}}") is tiled over 2 devices}}
  %0:2 = "stablehlo.optimization_barrier"(%arg0, %arg0) {mhlo.sharding = "{{replicated}, {devices=[2]<=[2]}}"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Tiled data dims with the rest replicated, or in manual subgroups.
func.func @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"}) -> tensor<4x2xf32> {
  // expected-error @-1 {{sharded value %arg0 of @main (mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}") is tiled over 2 devices}}
  return %arg0 : tensor<4x2xf32>
}

// -----

func.func @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{devices=[1,2,2]<=[4] last_tile_dims={manual}}"}) -> tensor<4x2xf32> {
  // expected-error @-1 {{is tiled over 2 devices}}
  return %arg0 : tensor<4x2xf32>
}

// -----

// Accepted: every value whole on every device.  A [1,1] tiling, devices
// only in replication or subgroup dims, maximal, manual, tuples of these,
// metadata, and the identity annotations on them.
module attributes {mhlo.num_partitions = 2 : i32} {
  func.func public @main(%a: tensor<4x2xf32> {mhlo.sharding = "{devices=[1,1]<=[1]}"},
                         %b: tensor<4x2xf32> {mhlo.sharding = "{devices=[1,1,2]<=[2] last_tile_dim_replicate}"},
                         %c: tensor<4x2xf32> {mhlo.sharding = "{devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}"},
                         %d: tensor<4x2xf32> {mhlo.sharding = "{maximal device=1}"},
                         %e: tensor<4x2xf32> {mhlo.sharding = "{manual}"},
                         %f: tensor<4x2xf32> {mhlo.sharding = "{replicated metadata={op_name=\"x\"}}"})
      -> (tensor<4x2xf32> {mhlo.sharding = "{replicated}"}) {
    %0 = stablehlo.custom_call @Sharding(%a) {mhlo.sharding = "{{replicated}, {maximal device=0}}"} : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %1 = stablehlo.custom_call @MoveToHost(%0) : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %2 = stablehlo.custom_call @MoveToDevice(%1) : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %3 = stablehlo.custom_call @annotate_device_placement(%2) {has_side_effect = true, mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %4 = stablehlo.custom_call @LayoutConstraint(%3) : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %5 = stablehlo.add %4, %b {mhlo.sharding = "{}"} : tensor<4x2xf32>
    return %5 : tensor<4x2xf32>
  }
}

// -----

// Malformed sharding strings: located errors.
func.func @main(%arg0: tensor<4xf32> {mhlo.sharding = "{devices=[2,2]<=[2]}"}) -> tensor<4xf32> {
  // expected-error @-1 {{malformed mhlo.sharding on %arg0 of @main: "{devices=[2,2]<=[2]}": the tile dims ask for 4 devices but 2 are listed}}
  return %arg0 : tensor<4xf32>
}

// -----

func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{malformed mhlo.sharding on %0: "{replicatd}": expected replicated, maximal, manual or devices= at 'replicatd}'}}
  %0 = stablehlo.abs %arg0 {mhlo.sharding = "{replicatd}"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{malformed mhlo.sharding on %0: "{devices=[2]0,1": missing '}'}}
  %0 = stablehlo.abs %arg0 {mhlo.sharding = "{devices=[2]0,1"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{malformed mhlo.sharding on %0: "{maximal}": expected device=N}}
  %0 = stablehlo.abs %arg0 {mhlo.sharding = "{maximal}"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{malformed mhlo.sharding on %0: 3 : i32: not a string}}
  %0 = stablehlo.abs %arg0 {mhlo.sharding = 3 : i32} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Shardy: a dimension sharded over a mesh axis of size > 1 is refused.
module attributes {mhlo.num_partitions = 2 : i32} {
  "sdy.mesh"() {mesh = #sdy.mesh<["x"=2, "one"=1]>, sym_name = "mesh"} : () -> ()
  // expected-error @+1 {{sharded value %arg0 of @main (sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>) shards dimension 0 over mesh axis "x" of size 2}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 2 : i32} {
  "sdy.mesh"() {mesh = #sdy.mesh<["x"=2]>, sym_name = "mesh"} : () -> ()
  func.func public @main(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
    // expected-error @+1 {{sharded value %0 (sharding = #sdy.sharding<@mesh, [{}, {"x", ?}]>) shards dimension 1 over mesh axis "x" of size 2}}
    %0 = "sdy.sharding_constraint"(%arg0) {sharding = #sdy.sharding<@mesh, [{}, {"x", ?}]>} : (tensor<4x2xf32>) -> tensor<4x2xf32>
    return %0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 2 : i32} {
  "sdy.mesh"() {mesh = #sdy.mesh<["x"=2]>, sym_name = "mesh"} : () -> ()
  func.func public @main(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
    // expected-error @+1 {{sharded value %0 (sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{"x":(1)2}, {}]>]>) shards dimension 0 over mesh axis "x" of size 2}}
    %0:2 = "stablehlo.optimization_barrier"(%arg0, %arg0) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{"x":(1)2}, {}]>]>} : (tensor<4x2xf32>, tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>)
    return %0#1 : tensor<4x2xf32>
  }
}

// -----

func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@nowhere, [{"x"}, {}]>}) -> tensor<4x2xf32> {
  // expected-error @-1 {{malformed sdy.sharding on %arg0 of @main: #sdy.sharding<@nowhere, [{"x"}, {}]>: names a mesh with no sdy.mesh: '@nowhere, [{"x"}, {}]>'}}
  return %arg0 : tensor<4x2xf32>
}

// -----

// An sdy.sharding that is not a Shardy attribute (another dialect's).
module {
  "sdy.mesh"() {mesh = #sdy.mesh<["x"=2]>, sym_name = "mesh"} : () -> ()
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdx<@mesh, [{"x"}, {}]>}) -> tensor<4x2xf32> {
    // expected-error @-1 {{malformed sdy.sharding on %arg0 of @main: #sdx<"@mesh, [{\"x\"}, {}]">: is not a Shardy sharding (#sdy.sharding<...> or #sdy.sharding_per_value<...>)}}
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module {
  "sdy.mesh"() {mesh = #sdy.mesh<["x"=2]>, sym_name = "mesh"} : () -> ()
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>}) -> tensor<4x2xf32> {
    // expected-error @-1 {{malformed sdy.sharding on %arg0 of @main: #sdy.sharding<@mesh, [{"y"}, {}]>: uses axis "y", which its mesh does not have}}
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

// Shardy, accepted: no dimension sharded, axes of size 1, replicated= and
// inline meshes without axes.
module attributes {mhlo.num_partitions = 2 : i32} {
  "sdy.mesh"() {mesh = #sdy.mesh<["x"=2, "one"=1]>, sym_name = "mesh"} : () -> ()
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>},
                         %arg1: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"one"}, {}], replicated={"x"}>})
      -> (tensor<4x2xf32> {sdy.sharding = #sdy.sharding<mesh<[], device_ids=[0]>, [{}, {}]>}) {
    %0 = "sdy.sharding_constraint"(%arg0) {sharding = #sdy.sharding<@mesh, [{?}, {}]>} : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %1 = stablehlo.add %0, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {"one"}]>]>} : tensor<4x2xf32>
    return %1 : tensor<4x2xf32>
  }
}

// -----

// The annotation custom calls are identities: one operand, one result of
// its type; the SPMD shape changes only on one partition.
func.func @main(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{custom_call @MoveToHost is an identity on any partition count: its result type 'tensor<2x4xf32>' must be its operand type 'tensor<4x2xf32>'}}
  %0 = stablehlo.custom_call @MoveToHost(%arg0) : (tensor<4x2xf32>) -> tensor<2x4xf32>
  return %arg0 : tensor<4x2xf32>
}

// -----

func.func @main(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{custom_call @Sharding is an identity: it takes one operand and has one result, not 2 and 1}}
  %0 = stablehlo.custom_call @Sharding(%arg0, %arg0) {mhlo.sharding = "{replicated}"} : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @main(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{custom_call @SPMDFullToShardShape is an identity on one partition: its result type 'tensor<2x2xf32>' must be its operand type 'tensor<4x2xf32>'}}
  %0 = stablehlo.custom_call @SPMDFullToShardShape(%arg0) {mhlo.sharding = "{manual}"} : (tensor<4x2xf32>) -> tensor<2x2xf32>
  return %arg0 : tensor<4x2xf32>
}

// -----

module attributes {mhlo.num_partitions = 2 : i32} {
  func.func public @main(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
    // expected-error @+1 {{custom_call @SPMDFullToShardShape on 2 partitions needs SPMD partitioning, which tpucc does not do yet}}
    %0 = stablehlo.custom_call @SPMDFullToShardShape(%arg0) {mhlo.sharding = "{manual}"} : (tensor<4x2xf32>) -> tensor<2x2xf32>
    %1 = stablehlo.custom_call @SPMDShardToFullShape(%0) {mhlo.sharding = "{replicated}"} : (tensor<2x2xf32>) -> tensor<4x2xf32>
    return %1 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
    %0 = stablehlo.custom_call @SPMDFullToShardShape(%arg0) {mhlo.sharding = "{manual}"} : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %1 = stablehlo.custom_call @SPMDShardToFullShape(%0) {mhlo.sharding = "{replicated}"} : (tensor<4x2xf32>) -> tensor<4x2xf32>
    return %1 : tensor<4x2xf32>
  }
}

// -----

// Shardy's pretty form, as JAX prints it.
module @jit_f attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["a"=2, "b"=2]>
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) -> tensor<4x2xf32> {
    // expected-error @+1 {{sharded value %0 (sharding = #sdy.sharding<@mesh, [{"b", "a"}, {}]>) shards dimension 0 over mesh axis "b" of size 2; it needs SPMD partitioning, which tpucc does not do yet}}
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"b", "a"}, {}]> : tensor<4x2xf32>
    return %0 : tensor<4x2xf32>
  }
}

// -----

// The verifier: sdy ops need their attributes; a constraint keeps its type.
module {
  // expected-error @+1 {{'sdy.mesh' op requires attribute 'mesh'}}
  "sdy.mesh"() {sym_name = "m"} : () -> ()
  // expected-error @+1 {{'sdy.mesh' op requires a string attribute 'sym_name'}}
  "sdy.mesh"() {mesh = #sdy.mesh<["x"=1]>} : () -> ()
  func.func @main(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
    // expected-error @+1 {{'sdy.sharding_constraint' op expects result #0 to have the type of operand #0, but got 'tensor<2x4xf32>' and 'tensor<4x2xf32>'}}
    %0 = "sdy.sharding_constraint"(%arg0) {sharding = #sdy.sharding<@m, [{}, {}]>} : (tensor<4x2xf32>) -> tensor<2x4xf32>
    // expected-error @+1 {{'sdy.sharding_constraint' op requires attribute 'sharding'}}
    %1 = "sdy.sharding_constraint"(%arg0) : (tensor<4x2xf32>) -> tensor<4x2xf32>
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

func.func @main(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{malformed sharding on %0: 3 : i32: is not a Shardy sharding}}
  %0 = "sdy.sharding_constraint"(%arg0) {sharding = 3 : i32} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
