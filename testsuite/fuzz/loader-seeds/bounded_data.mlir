// Loader fuzz seed: a bounded program (DYNDIMS section: sizes of dynamic
// arguments and results).
func.func @main(%x: tensor<?x4xf32, #stablehlo.bounds<8, ?>>, %y: tensor<?x4xf32, #stablehlo.bounds<8, ?>>) -> (tensor<?x4xf32, #stablehlo.bounds<8, ?>>, tensor<4xf32>) {
  %0 = stablehlo.add %x, %y : tensor<?x4xf32, #stablehlo.bounds<8, ?>>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %1 = stablehlo.reduce(%0 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<?x4xf32, #stablehlo.bounds<8, ?>>, tensor<f32>) -> tensor<4xf32>
  return %0, %1 : tensor<?x4xf32, #stablehlo.bounds<8, ?>>, tensor<4xf32>
}
