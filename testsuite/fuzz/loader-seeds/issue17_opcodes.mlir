// Loader fuzz seed: the opcodes and records issue 17 added (rng, mulhi,
// print, assert, quantized storage), one function each.
func.func @main(%p: tensor<i1>, %n: tensor<i64>, %a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %lo = stablehlo.constant dense<0.0> : tensor<f32>
  %hi = stablehlo.constant dense<1.0> : tensor<f32>
  %shape = stablehlo.constant dense<4> : tensor<1xi64>
  %r = "stablehlo.rng"(%lo, %hi, %shape) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<4xf32>
  %h = "chlo.mulhi"(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  interpreter.print %h : tensor<4xi32>
  stablehlo.custom_call @shape_assertion(%p, %n) {error_message = "n is {0}", has_side_effect = true} : (tensor<i1>, tensor<i64>) -> ()
  return %r, %h : tensor<4xf32>, tensor<4xi32>
}
