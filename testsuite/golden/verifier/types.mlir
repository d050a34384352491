// RUN: %verify-diagnostics %s
// Exact tensor sizes (verify_tensor_type in ir/verify_common.c): byte sizes
// are computed with GMP and never wrap around.

func.func @iota_too_big() -> tensor<9223372036854775807x2xf32> {
  // expected-error @+1 {{tensor type 'tensor<9223372036854775807x2xf32>' has 73786976294838206456 bytes, more than the 2^63-1 supported}}
  %0 = stablehlo.iota dim = 0 : tensor<9223372036854775807x2xf32>
  func.return %0 : tensor<9223372036854775807x2xf32>
}

// -----

func.func @wraps_to_zero() -> tensor<4611686018427387904x4xi8> {
  // expected-error @+1 {{has 18446744073709551616 bytes, more than the 2^63-1 supported}}
  %0 = stablehlo.iota dim = 0 : tensor<4611686018427387904x4xi8>
  func.return %0 : tensor<4611686018427387904x4xi8>
}

// -----

func.func @just_over() -> tensor<1152921504606846976xf64> {
  // expected-error @+1 {{has 9223372036854775808 bytes}}
  %0 = stablehlo.iota dim = 0 : tensor<1152921504606846976xf64>
  func.return %0 : tensor<1152921504606846976xf64>
}

// -----

func.func @dynamic_lower_bound() -> tensor<?x4611686018427387904x8xi8> {
  // expected-error @+1 {{has at least 36893488147419103232 bytes}}
  %0 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<?x4611686018427387904x8xi8>
  func.return %0 : tensor<?x4611686018427387904x8xi8>
}

// -----

func.func @sub_byte() -> tensor<9223372036854775807x2xi4> {
  // expected-error @+1 {{has 18446744073709551614 bytes}}
  %0 = stablehlo.iota dim = 0 : tensor<9223372036854775807x2xi4>
  func.return %0 : tensor<9223372036854775807x2xi4>
}
