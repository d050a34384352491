// Parser fuzzer seeds: bounded dynamic shapes in both spellings, in
// argument, result and op types, with the ops dynamic-pad rewrites.
func.func @main(%a: tensor<?x4xf32, #stablehlo.bounds<8, ?>>, %b: tensor<?xi32, #stablehlo.type_extensions<bounds = [3]>>) -> (tensor<4x?xf32, #stablehlo.bounds<?, 8>>, tensor<i32>) {
  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<?x4xf32, #stablehlo.bounds<8, ?>>) -> tensor<4x?xf32, #stablehlo.bounds<?, 8>>
  %n = stablehlo.get_dimension_size %a, dim = 0 : (tensor<?x4xf32, #stablehlo.bounds<8, ?>>) -> tensor<i32>
  %s = stablehlo.set_dimension_size %a, %n, dim = 0 : (tensor<?x4xf32, #stablehlo.bounds<8, ?>>, tensor<i32>) -> tensor<?x4xf32, #stablehlo.bounds<8, ?>>
  return %t, %n : tensor<4x?xf32, #stablehlo.bounds<?, 8>>, tensor<i32>
}
// -----
func.func @bad(%a: tensor<?x?xf32, #stablehlo.bounds<3>>, %b: tensor<3xf32, #stablehlo.bounds<3>>, %c: tensor<?xf32, #stablehlo.bounds<-1>>) {
  return
}
