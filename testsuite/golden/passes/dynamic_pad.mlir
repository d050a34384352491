// RUN: %tpucc --passes=dynamic-pad --print-ir-after=dynamic-pad --emit=tpub -o /dev/null %s 2>&1 | FileCheck %s

// A bounded dim becomes its bound; its size is one more parameter and result.
// CHECK-LABEL: func.func @main(%arg0: tensor<8x4xf32>, %arg1: tensor<i32>) -> (tensor<4xf32>, tensor<8x4xf32>, tensor<i32>, tensor<i32>)
// CHECK-SAME: tpu.dynamic_args = array<i64: 0, 0, 8, 1>, tpu.dynamic_results = array<i64: 1, 0, 8, 3>
// The reduce reads the padding as the init value.
// CHECK: %[[IOTA:.*]] = stablehlo.iota dim = 0 : tensor<8x4xi32>
// CHECK: %[[SIZE:.*]] = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<i32>) -> tensor<8x4xi32>
// CHECK: %[[KEEP:.*]] = stablehlo.compare LT, %[[IOTA]], %[[SIZE]]
// CHECK: %[[M:.*]] = stablehlo.select %[[KEEP]], %arg0,
// CHECK: stablehlo.reduce(%[[M]] init:
// get_dimension_size is the size parameter.
// CHECK: func.return %{{.*}}, %arg0, %arg1, %arg1 : tensor<4xf32>, tensor<8x4xf32>, tensor<i32>, tensor<i32>
func.func @main(%a: tensor<?x4xf32, #stablehlo.bounds<8, ?>>) -> (tensor<4xf32>, tensor<?x4xf32, #stablehlo.bounds<8, ?>>, tensor<i32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %1 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<?x4xf32, #stablehlo.bounds<8, ?>>, tensor<f32>) -> tensor<4xf32>
  %2 = stablehlo.get_dimension_size %a, dim = 0 : (tensor<?x4xf32, #stablehlo.bounds<8, ?>>) -> tensor<i32>
  return %1, %a, %2 : tensor<4xf32>, tensor<?x4xf32, #stablehlo.bounds<8, ?>>, tensor<i32>
}
