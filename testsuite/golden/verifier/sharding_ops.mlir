// RUN: %verify-diagnostics %s
// The verifier on Shardy's ops (ir/verify_control.c): sdy.manual_computation
// takes one sharding per operand and result, its body the operands'
// per-device types (each dim divided by the sizes of its manual axes) and
// sdy.return gives the results' per-device types; sdy.reshard is an identity.

module attributes {mhlo.num_partitions = 8 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func @main(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
    // expected-error @+1 {{'sdy.manual_computation' op expects region argument #0 to have the per-device type 'tensor<4x2xf32>' of 'tensor<8x8xf32>' over the manual axes, but got 'tensor<4x8xf32>'}}
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {"y"}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x", "y"} (%arg1: tensor<4x8xf32>) {
      sdy.return %arg1 : tensor<4x8xf32>
    } : (tensor<8x8xf32>) -> tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}

// -----

// Only the manual axes divide: "y" stays automatic here.
module attributes {mhlo.num_partitions = 8 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func @main(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
    // expected-error @+1 {{'sdy.manual_computation' op expects sdy.return value #0 to have the per-device type 'tensor<4x8xf32>' of 'tensor<8x8xf32>' over the manual axes, but got 'tensor<4x2xf32>'}}
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {"y"}]>] out_shardings=[<@mesh, [{"x"}, {"y"}]>] manual_axes={"x"} (%arg1: tensor<4x8xf32>) {
      %1 = stablehlo.slice %arg1 [0:4, 0:2] : (tensor<4x8xf32>) -> tensor<4x2xf32>
      sdy.return %1 : tensor<4x2xf32>
    } : (tensor<8x8xf32>) -> tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 8 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func @main(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
    // expected-error @+1 {{'sdy.manual_computation' op expects 1 in_shardings (one per operand), but got 2}}
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg1: tensor<4x8xf32>) {
      sdy.return %arg1 : tensor<4x8xf32>
    } : (tensor<8x8xf32>) -> tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 8 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func @main(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
    // expected-error @+1 {{'sdy.manual_computation' op expects 1 out_shardings (one per result), but got 0}}
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[] manual_axes={"x"} (%arg1: tensor<4x8xf32>) {
      sdy.return %arg1 : tensor<4x8xf32>
    } : (tensor<8x8xf32>) -> tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 8 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func @main(%arg0: tensor<8x6xf32>) -> tensor<8x6xf32> {
    // expected-error @+1 {{'sdy.manual_computation' op in_shardings #0: dimension 1 of size 6 is not a multiple of its 4 manual shards}}
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {"y"}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x", "y"} (%arg1: tensor<4x2xf32>) {
      %1 = stablehlo.constant dense<0.0> : tensor<4x6xf32>
      sdy.return %1 : tensor<4x6xf32>
    } : (tensor<8x6xf32>) -> tensor<8x6xf32>
    return %0 : tensor<8x6xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 8 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func @main(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
    // expected-error @+1 {{'sdy.manual_computation' op in_shardings #0: manual axis "z" is not in the mesh}}
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"z"} (%arg1: tensor<4x8xf32>) {
      sdy.return %arg1 : tensor<4x8xf32>
    } : (tensor<8x8xf32>) -> tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 8 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func @main(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
    // expected-error @+1 {{'sdy.manual_computation' op malformed in_shardings #sdy.sharding_per_value<[<@mesh, [{"q"}, {}]>]>: unknown axis "q" (not in the mesh)}}
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"q"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg1: tensor<4x8xf32>) {
      sdy.return %arg1 : tensor<4x8xf32>
    } : (tensor<8x8xf32>) -> tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 2 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
    // expected-error @+1 {{'sdy.manual_computation' op expects its body to end with 'sdy.return'}}
    %0 = "sdy.manual_computation"(%arg0) ({
    ^bb0(%arg1: tensor<4x8xf32>):
      stablehlo.return %arg1 : tensor<4x8xf32>
    }) {in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>, manual_axes = #sdy<manual_axes{"x"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 2 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
    // expected-error @+1 {{'sdy.manual_computation' op expects sdy.return to give 1 values (one per result), but it gives 2}}
    %0 = "sdy.manual_computation"(%arg0) ({
    ^bb0(%arg1: tensor<4x8xf32>):
      "sdy.return"(%arg1, %arg1) : (tensor<4x8xf32>, tensor<4x8xf32>) -> ()
    }) {in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>, manual_axes = #sdy<manual_axes{"x"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 2 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
    // expected-error @+1 {{'sdy.manual_computation' op expects its body to take 1 arguments (one per operand), but it takes 0}}
    %0 = "sdy.manual_computation"(%arg0) ({
      %c = stablehlo.constant dense<1.0> : tensor<4x8xf32>
      "sdy.return"(%c) : (tensor<4x8xf32>) -> ()
    }) {in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>, manual_axes = #sdy<manual_axes{"x"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 2 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
    // expected-error @+1 {{'sdy.manual_computation' op requires attribute 'manual_axes'}}
    %0 = "sdy.manual_computation"(%arg0) ({
    ^bb0(%arg1: tensor<4x8xf32>):
      "sdy.return"(%arg1) : (tensor<4x8xf32>) -> ()
    }) {in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    // expected-error @+1 {{'sdy.manual_computation' op attribute 'in_shardings' must be a #sdy.sharding_per_value<...> attribute, but got "x"}}
    %1 = "sdy.manual_computation"(%arg0) ({
    ^bb0(%arg1: tensor<4x8xf32>):
      "sdy.return"(%arg1) : (tensor<4x8xf32>) -> ()
    }) {in_shardings = "x", manual_axes = #sdy<manual_axes{"x"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}

// -----

func.func @main(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = "stablehlo.map"(%arg0) ({
  ^bb0(%a: tensor<f32>):
    // expected-error @+1 {{'sdy.return' op expects parent op 'sdy.manual_computation'}}
    "sdy.return"(%a) : (tensor<f32>) -> ()
  }) {dimensions = array<i64: 0, 1>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

module {
  sdy.mesh @mesh = <["x"=1]>
  func.func @main(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
    // expected-error @+1 {{'sdy.reshard' op expects result #0 to have the type of operand #0, but got 'tensor<2x4xf32>' and 'tensor<4x2xf32>'}}
    %0 = "sdy.reshard"(%arg0) {sharding = #sdy.sharding<@mesh, [{}, {}]>} : (tensor<4x2xf32>) -> tensor<2x4xf32>
    // expected-error @+1 {{'sdy.reshard' op requires attribute 'sharding'}}
    %1 = "sdy.reshard"(%arg0) : (tensor<4x2xf32>) -> tensor<4x2xf32>
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

// The pretty form's syntax errors.
module {
  sdy.mesh @mesh = <["x"=1]>
  func.func @main(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
    // expected-error @+1 {{expected 'out_shardings'}}
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {}]>] manual_axes={} (%arg1: tensor<4x2xf32>) {
      sdy.return %arg1 : tensor<4x2xf32>
    } : (tensor<4x2xf32>) -> tensor<4x2xf32>
    return %0 : tensor<4x2xf32>
  }
}

// -----

module {
  sdy.mesh @mesh = <["x"=1]>
  func.func @main(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
    // expected-error @+1 {{expected '['}}
    %0 = sdy.manual_computation(%arg0) in_shardings=<@mesh, [{}, {}]> out_shardings=[] manual_axes={} (%arg1: tensor<4x2xf32>) {
      sdy.return %arg1 : tensor<4x2xf32>
    } : (tensor<4x2xf32>) -> tensor<4x2xf32>
    return %0 : tensor<4x2xf32>
  }
}

// -----

module attributes {mhlo.num_partitions = 2 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
    // expected-error @+1 {{'sdy.manual_computation' op in_shardings #0: expected ',' or '}' in manual_axes}}
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={"x" "y"} (%arg1: tensor<4x2xf32>) {
      sdy.return %arg1 : tensor<4x2xf32>
    } : (tensor<4x2xf32>) -> tensor<4x2xf32>
    return %0 : tensor<4x2xf32>
  }
}

// -----

module {
  sdy.mesh @mesh = <["x"=1]>
  func.func @main(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
    // expected-error @+1 {{expected block argument}}
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={} (tensor<4x2xf32>) {
      sdy.return %arg1 : tensor<4x2xf32>
    } : (tensor<4x2xf32>) -> tensor<4x2xf32>
    return %0 : tensor<4x2xf32>
  }
}
