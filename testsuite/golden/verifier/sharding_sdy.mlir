// RUN: %verify-diagnostics %s
// Every malformed Shardy sharding, and every one that does not fit its
// value or the module's mhlo.num_partitions, is a located error naming the
// value (ir/sharding_sdy.c reads them, passes/sharding.c checks them).

// Syntax, at each position.
module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{malformed sdy.sharding on %arg0 of @main: #sdy.sharding<@mesh [{"x"}, {}]>: expected ',' after the mesh}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh [{"x"}, {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{expected '[' of the dimension shardings}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, {"x"}, {}>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{expected ',' or ']' in the dimension shardings}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"} {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{expected ',' or '}' in a dimension sharding}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x" "y"}, {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{expected a quoted axis name}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{x}, {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{empty axis name}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{""}, {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{expected '{' of a dimension sharding}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, ["x", {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{expected '{' of an axis list}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}], replicated="y">}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{expected '>' closing the sharding}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}], replicated={"y"} {}>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{expected replicated= or unreduced=}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}], bogus={"y"}>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{expected a number}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}p, {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{expected ')' of a sub-axis at '}, {}]>'}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x":(1}, {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{expected '(' of a sub-axis}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x":1)2}, {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{expected ',' or ']' in the mesh axes}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<mesh<["a"=2>, [{}, {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{expected '=' after an axis name}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<mesh<["a"]>, [{}, {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{expected device_ids}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<mesh<["a"=2], ids=[0]>, [{}, {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{expected @mesh or mesh<...>}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<3, [{}, {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{sdy.sharding on %arg0 of @main must be a #sdy.sharding<...>, not #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

// Names it does not know, axes used twice, sub-axes that do not divide.
module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{unknown mesh @nowhere (no sdy.mesh of that name)}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@nowhere, [{}, {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{unknown axis "z" (not in the mesh)}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"z"}, {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{axis "x" is used twice}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"x"}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{axis "x" is used twice}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}], replicated={"x"}>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{sub-axis "x":(1)3 does not divide axis "x" of size 2}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x":(1)3}, {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{the sub-axes of "a" overlap without nesting (2 and 3)}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<mesh<["a"=6]>, [{"a":(1)2}, {"a":(1)3}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{malformed sdy.sharding on %arg0 of @main: #sdy.sharding<mesh<["a"=4]>, [{"a":(1)2}, {"a"}]>: axis "a" is used twice}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<mesh<["a"=4]>, [{"a":(1)2}, {"a"}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

// Inline meshes that are not meshes.
module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{mesh axis "a" is named twice}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<mesh<["a"=2, "a"=2]>, [{}, {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{mesh axis "a" has size 0}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<mesh<["a"=0]>, [{}, {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{the mesh has 2 devices but device_ids lists 1}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<mesh<["a"=2], device_ids=[0]>, [{}, {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{device_ids lists device 1 twice}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<mesh<["a"=2], device_ids=[1, 1]>, [{}, {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{device_ids names device 2 of a mesh of 2 devices}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<mesh<["a"=2], device_ids=[0, 2]>, [{}, {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{a mesh without axes has one device id, not 2}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<mesh<[], device_ids=[0, 1]>, [{}, {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

// Shardings that do not fit the value or the partitions.
module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{sdy.sharding = #sdy.sharding<@mesh, [{"x"}]> on %arg0 of @main does not fit its type 'tensor<4x2xf32>': it tiles 1 dimensions but the value has rank 2}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{it shards 3 dimensions but the value has rank 2}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{it spreads over 8 devices but the program has 4 partitions}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<mesh<["a"=8]>, [{"a"}, {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  // expected-error @+1 {{device 4 is not below the partition count 4}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<mesh<[], device_ids=[4]>, [{}, {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}
// -----

// On ops: one sharding per result.
module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
    // expected-error @+1 {{sdy.sharding on %0: #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]> has 1 shardings for 2 results}}
    %0:2 = "stablehlo.optimization_barrier"(%arg0, %arg0) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : (tensor<4x2xf32>, tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>)
    // expected-error @+1 {{sdy.sharding on %1 must be a #sdy.sharding_per_value<[...]> (one per result), not #sdy.sharding<@mesh, [{"x"}, {}]>}}
    %1 = stablehlo.abs %arg0 {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>} : tensor<4x2xf32>
    // expected-error @+1 {{sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}]>]> on %2 does not fit its type 'tensor<4x2xf32>': it tiles 1 dimensions but the value has rank 2}}
    %2 = stablehlo.abs %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}]>]>} : tensor<4x2xf32>
    // expected-error @+1 {{malformed sharding on %3: #sdy.sharding<@mesh, [{"q"}, {}]>: unknown axis "q" (not in the mesh)}}
    %3 = sdy.sharding_constraint %arg0 <@mesh, [{"q"}, {}]> : tensor<4x2xf32>
    // expected-error @+1 {{sharding = #sdy.sharding<@mesh, [{"x"}, {}, {}]> on %4 does not fit its type 'tensor<4x2xf32>': it tiles 3 dimensions but the value has rank 2}}
    %4 = sdy.reshard %arg0 <@mesh, [{"x"}, {}, {}]> : tensor<4x2xf32>
    // expected-error @+1 {{malformed sharding on %5: 3 : i32: not a Shardy sharding}}
    %5 = "sdy.sharding_constraint"(%arg0) {sharding = 3 : i32} : (tensor<4x2xf32>) -> tensor<4x2xf32>
    // expected-error @+1 {{malformed sdy.sharding on %6: #sdx<"@mesh, [{\"x\"}, {}]">: not a Shardy sharding}}
    %6 = stablehlo.abs %arg0 {sdy.sharding = #sdx<@mesh, [{"x"}, {}]>} : tensor<4x2xf32>
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

// A mesh of axes has mhlo.num_partitions devices; a maximal mesh names one
// of them.
module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{sdy.mesh @mesh has 8 devices but the module has mhlo.num_partitions = 4}}
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  // expected-error @+1 {{sdy.mesh @one names device 5, not below mhlo.num_partitions = 4}}
  sdy.mesh @one = <[], device_ids=[5]>
  // expected-error @+1 {{malformed sdy.mesh @bad: #sdy.mesh<["x"=2, "x"=2]>: mesh axis "x" is named twice}}
  sdy.mesh @bad = <["x"=2, "x"=2]>
  // expected-error @+1 {{malformed sdy.mesh @ids: #sdy.mesh<["x"=4], device_ids=[0, 1, 2]>: the mesh has 4 devices but device_ids lists 3}}
  sdy.mesh @ids = <["x"=4], device_ids=[0, 1, 2]>
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

// Accepted: every form, GSPMD and Shardy mixed in one module.
module attributes {mhlo.num_partitions = 8 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  sdy.mesh @ids = <["a"=4, "b"=2], device_ids=[7, 6, 5, 4, 3, 2, 1, 0]>
  sdy.mesh @empty = <[]>
  sdy.mesh @max = <[], device_ids=[3]>
  func.func public @main(%a: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>},
                         %b: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y", "x"}, {?}]>},
                         %c: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", ?}p0, {}], replicated={"y"}>},
                         %d: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y":(1)2}, {"y":(2)2}]>},
                         %e: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@ids, [{"b"}, {"a"}]>},
                         %f: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@empty, [{}, {}]>},
                         %g: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@max, [{}, {}]>},
                         %h: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<mesh<["z"=8]>, [{}, {"z"}]>},
                         %i: tensor<8x8xf32> {mhlo.sharding = "{devices=[2,4]<=[8]}"},
                         %j: tensor<8x8xf32> {mhlo.sharding = "{devices=[2,1,4]<=[2,4]T(1,0) last_tile_dim_replicate}"},
                         %k: tensor<8x8xf32> {mhlo.sharding = "{devices=[2,2,2]7,6,5,4,3,2,1,0 last_tile_dims={manual}}"},
                         %l: tensor<8x8xf32> {mhlo.sharding = "{maximal device=7}"},
                         %m: !stablehlo.token {mhlo.sharding = "{replicated}"},
                         %n: tensor<?x8xf32> {mhlo.sharding = "{devices=[1,1,8]<=[8] last_tile_dim_replicate}"},
                         %o: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}], unreduced={"x"}>})
      -> (tensor<8x8xf32> {mhlo.sharding = "{replicated}"}) {
    %0 = sdy.sharding_constraint %a <@mesh, [{"x"}, {}]> : tensor<8x8xf32>
    %1 = sdy.reshard %0 <@mesh, [{}, {"x"}]> : tensor<8x8xf32>
    %2:2 = "stablehlo.optimization_barrier"(%1, %b) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>, <@mesh, [{}, {}]>]>} : (tensor<8x8xf32>, tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>)
    %3:2 = "stablehlo.optimization_barrier"(%2#0, %2#1) {mhlo.sharding = "{{replicated}, {devices=[8,1]<=[8]}}"} : (tensor<8x8xf32>, tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>)
    %4 = stablehlo.add %3#0, %3#1 {mhlo.sharding = "{devices=[2,4]<=[8] metadata={op_name=\"add\"}}"} : tensor<8x8xf32>
    return %4 : tensor<8x8xf32>
  }
}
