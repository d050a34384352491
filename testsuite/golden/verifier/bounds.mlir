// RUN: %verify-diagnostics %s
// Bounded dynamism (docs/dynamic-shapes.md): the bounds encoding and the
// reshape / broadcast_in_dim result rule.  Also seeds for the parser fuzzer.

func.func @ok(%a: tensor<?x4xf32, #stablehlo.bounds<8, ?>>, %b: tensor<?xf32, #stablehlo.type_extensions<bounds = [3]>>) -> tensor<4x?xf32, #stablehlo.bounds<?, 8>> {
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<?x4xf32, #stablehlo.bounds<8, ?>>) -> tensor<4x?xf32, #stablehlo.bounds<?, 8>>
  func.return %0 : tensor<4x?xf32, #stablehlo.bounds<?, 8>>
}

// -----

// expected-error @+1 {{Bounds length is 1, expected to be equal to rank(2) of the tensor}}
func.func @length(%a: tensor<?x?xf32, #stablehlo.bounds<3>>) {
  func.return
}

// -----

// expected-error @+1 {{Static dimension 0 cannot have a bound}}
func.func @static_bound(%a: tensor<3xf32, #stablehlo.bounds<3>>) {
  func.return
}

// -----

// expected-error @+1 {{bound of dimension 0 is -2; bounds must be non-negative}}
func.func @negative(%a: tensor<?xf32, #stablehlo.bounds<-2>>) {
  func.return
}

// -----

func.func @reshape_two(%a: tensor<?x?xf32, #stablehlo.bounds<4, 4>>) -> tensor<?x?xf32, #stablehlo.bounds<4, 4>> {
  // expected-error @+1 {{result #0 must be statically shaped or single bounded dimension tensor}}
  %0 = stablehlo.reshape %a : (tensor<?x?xf32, #stablehlo.bounds<4, 4>>) -> tensor<?x?xf32, #stablehlo.bounds<4, 4>>
  func.return %0 : tensor<?x?xf32, #stablehlo.bounds<4, 4>>
}
