// RUN: %verify-diagnostics %s
// Every malformed GSPMD mhlo.sharding, and every one that does not fit its
// value, is a located error naming the value (passes/sharding.c, run by
// --verify-only and before every pipeline).  docs/spmd.md lists the forms.

// Syntax, at each position.  (An empty string is no sharding: it reads.)
module attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = ""}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{malformed mhlo.sharding on %arg0 of @main: "replicated": expected '{'}}
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "replicated"}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{malformed mhlo.sharding on %arg0 of @main: "{replicatd}": expected replicated, maximal, manual, unknown or devices=}}
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{replicatd}"}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{malformed mhlo.sharding on %arg0 of @main: "{replicated": missing '}'}}
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{replicated"}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{malformed mhlo.sharding on %arg0 of @main: "{replicated} x": trailing text}}
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{replicated} x"}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{malformed mhlo.sharding on %arg0 of @main: "{maximal}": expected device=N}}
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{maximal}"}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{malformed mhlo.sharding on %arg0 of @main: "{maximal device=x}": expected a number at 'x}'}}
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{maximal device=x}"}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{malformed mhlo.sharding on %arg0 of @main: "{devices=2,2<=[4]}": expected a list}}
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{devices=2,2<=[4]}"}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{malformed mhlo.sharding on %arg0 of @main: "{devices=[]<=[1]}": no tile dimensions}}
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{devices=[]<=[1]}"}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{malformed mhlo.sharding on %arg0 of @main: "{devices=[2,2<=[4]}": expected ',' or the end of the list}}
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{devices=[2,2<=[4]}"}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{malformed mhlo.sharding on %arg0 of @main: "{devices=[0,2]<=[4]}": bad tile dimension}}
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{devices=[0,2]<=[4]}"}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{malformed mhlo.sharding on %arg0 of @main: "{devices=[2,2]<=[3]}": the tile dims ask for 4 devices but the iota list has 3}}
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{devices=[2,2]<=[3]}"}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{malformed mhlo.sharding on %arg0 of @main: "{devices=[2,2]<=[2,2]T(1,1)}": the transpose is not a permutation}}
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{devices=[2,2]<=[2,2]T(1,1)}"}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{malformed mhlo.sharding on %arg0 of @main: "{devices=[2,2]0,1,2}": the tile dims ask for 4 devices but 3 are listed}}
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{devices=[2,2]0,1,2}"}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{malformed mhlo.sharding on %arg0 of @main: "{devices=[2,2]<=[4] bogus}": unexpected text}}
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{devices=[2,2]<=[4] bogus}"}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{malformed mhlo.sharding on %arg0 of @main: "{devices=[2,2]<=[4] last_tile_dims={foo}}": expected manual or replicated in last_tile_dims}}
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{devices=[2,2]<=[4] last_tile_dims={foo}}"}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{malformed mhlo.sharding on %arg0 of @main: "{devices=[2,2]<=[4] metadata={op_name=": unbalanced braces}}
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{devices=[2,2]<=[4] metadata={op_name="}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{malformed mhlo.sharding on %arg0 of @main: "{{replicated}, {maximal}}": expected device=N}}
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{{replicated}, {maximal}}"}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{malformed mhlo.sharding on %arg0 of @main: "{{replicated} {replicated}}": expected ',' or '}' in a tuple sharding}}
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{{replicated} {replicated}}"}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

// Devices that do not fit mhlo.num_partitions = 4.
module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{mhlo.sharding = "{devices=[2,2]0,1,2,7}" on %arg0 of @main does not fit its type 'tensor<4x2xf32>': device 7 is not below the partition count 4}}
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{devices=[2,2]0,1,2,7}"}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{mhlo.sharding = "{devices=[2,2]0,1,2,2}" on %arg0 of @main does not fit its type 'tensor<4x2xf32>': device 2 is listed twice}}
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{devices=[2,2]0,1,2,2}"}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{mhlo.sharding = "{devices=[4,2]<=[8]}" on %arg0 of @main does not fit its type 'tensor<4x2xf32>': it spreads over 8 devices but the program has 4 partitions}}
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{devices=[4,2]<=[8]}"}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{mhlo.sharding = "{maximal device=4}" on %arg0 of @main does not fit its type 'tensor<4x2xf32>': device 4 is not below the partition count 4}}
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{maximal device=4}"}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

// Values it cannot lay out.
module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{mhlo.sharding = "{devices=[2,2]<=[4]}" on %arg0 of @main does not fit its type 'tensor<4xf32>': it tiles 2 dimensions but the value has rank 1}}
  func.func public @main(%arg0: tensor<4xf32> {mhlo.sharding = "{devices=[2,2]<=[4]}"}) -> tensor<4xf32> {
    return %arg0 : tensor<4xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}" on %arg0 of @main does not fit its type 'tensor<4x2x1xf32>': it tiles 2 dimensions but the value has rank 3}}
  func.func public @main(%arg0: tensor<4x2x1xf32> {mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"}) -> tensor<4x2x1xf32> {
    return %arg0 : tensor<4x2x1xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{mhlo.sharding = "{devices=[2]<=[2]}" on %arg0 of @main does not fit its type '!stablehlo.token': a token cannot be tiled}}
  func.func public @main(%arg0: !stablehlo.token {mhlo.sharding = "{devices=[2]<=[2]}"}) -> !stablehlo.token {
    return %arg0 : !stablehlo.token
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{mhlo.sharding = "{devices=[2,1]<=[2]}" on %arg0 of @main does not fit its type 'tensor<?x2xf32>': a dynamic shape cannot be tiled}}
  func.func public @main(%arg0: tensor<?x2xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}) -> tensor<?x2xf32> {
    return %arg0 : tensor<?x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 4 : i32} {
  // expected-error @+1 {{mhlo.sharding = "{{replicated}, {replicated}}" on %arg0 of @main does not fit its type 'tensor<4x2xf32>': a tuple sharding of 2 elements for a value of 1}}
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{{replicated}, {replicated}}"}) -> tensor<4x2xf32> {
    return %arg0 : tensor<4x2xf32>
  }
}
