// RUN: %verify-diagnostics %s
// Negative tests for the shape rules (ir/verify_shape.c).

func.func @bid_size(%a: tensor<2xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{broadcast_dimensions size (2) does not match operand rank (1)}}
  %0 =// A two-layer perceptron with a softmax head, written the way JAX e// RUN: %verify-diagnostics %s
// Exact tensor sizes (verify_tensor_type in ir/verify_common.c): byte sizes
// are computed with GMP and never wrap around.

func.func @iota_too_big() 504606846976xf64> {
  // expected-error @+1 {{has 9223372036854775808 bytes}}
  %0 = stablehlo.iota dim = 0 : tensor<1152921504606846976xf64>
  func.return %0 : tensor<1152921504606846976xf64>
}

// -----

func.func @9223372036854775807x2xf32>
  func.return %0 : tensor<92233720368547758> {
  // expected-error @+1 {{has 9223372036854775808 bytes}}
  %0 = stablehlo.iota dim = 0 : tensor<1152921504606846976xf64>
  func.return %0 : tensor<1152921504606846976xf64>
}

// -----

func.func @9223372036854775807x2xf32>
  func.return %0 : tensor<9223372036854775807x2xf32>
}

// -----

funOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOc.func @wraps_to_zero() -> tensor<4611686018427387904x4xi8> {
  // expected-error @+1 {{has 18446744073709551616 bytes, more than the 2^63-1 supported}}
  %0 = stablehlo.iota dim = 0 : tensor<4611686018427387904x4xi8>
  func.return %0 : tensor<4611686018427387904x4xi8>
}

// -----

func.func @just_over() -> tensor<1152921504606846976xf64> {
  // expected-error @+1 {{has 9223372036854775808 bytes}}
  %0 = stablehlo.iota dim = 0 : tensor<1152xports it:
// x[8x64] -> dense(64->128) -> relu -> dense(128->10) -> softmax.
module @mlp attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<8x64xf32>, %w1: tensor<64x128xf32>, %b1: tensor<128xf32>,
                         %w2: tensor<128x10xf32>, %b2: tensor<10xf32>) -> (tensor<8x10xf32> {jax.result_info = ""}) {
    %h = stablehlo.dot_general %x, %w1, contracting_dims = [1] X [0], precision = [DFAULT, DEFAULT] : (tensor<8x64xf32>, tensor<64x128xf32>) ->r<8x64xf32>, tensor<64x128xf32>) -> tensor<8x128xf32>
    %bb1 = stablehlo.broadcast_in_dim %b1, dims = [1] and #0 must be tensor of boolean or integer values}}
  %0 = "stablehlo.xor"(%a, %a) : (t921504606846976xf64>
  func.return %0 : tensor<1152921504606846976xf64>
}

// -----

func.func @dynamic_lowensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>) -> tenser_bound() -> tensor<?x4611686018427387904x8xi8> {
  // expected-error @+1 {{has at least 368934881474191007x2xf32>
}

// -----

func.func @wraps_to_zero() -> tensor<4611686018427387904x4xi8> {
  // expected-error @+1 {or<2xcomplex<f3es, b{has 18446744073709551616 bytes, more than the 2^63-1 ut got 'tesupnp