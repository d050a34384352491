// RUN: %tpucc -O0 --passes=quant-lower --emit=mlir %s | FileCheck %s
// RUN: %tpurun --check %s | FileCheck %s --check-prefix=RESULT
// quant-lower (docs/quantization.md): the spec's formulas on storage
// integers and the expressed type; no quantized type is left, and the
// function's quantized arguments and results are its storage integers.

// CHECK-LABEL: func.func @dequantize
// CHECK-SAME: (%arg0: tensor<2x3xi8>) -> tensor<2x3xf32>
// CHECK: %[[W:.*]] = stablehlo.convert %arg0 : (tensor<2x3xi8>) -> tensor<2x3xi32>
// CHECK: %[[ZV:.*]] = stablehlo.constant dense<[-30, 5, 0]> : tensor<3xi32>
// CHECK: %[[Z:.*]] = stablehlo.broadcast_in_dim %[[ZV]], dims = [1] : (tensor<3xi32>) -> tensor<2x3xi32>
// CHECK: %[[C:.*]] = stablehlo.subtract %[[W]], %[[Z]] : tensor<2x3xi32>
// CHECK: %[[F:.*]] = stablehlo.convert %[[C]] : (tensor<2x3xi32>) -> tensor<2x3xf32>
// CHECK: %[[SV:.*]] = stablehlo.constant dense<[1.0e-01, 5.0e-01, 2.0e+00]> : tensor<3xf32>
// CHECK: %[[S:.*]] = stablehlo.broadcast_in_dim %[[SV]], dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: stablehlo.multiply %[[F]], %[[S]] : tensor<2x3xf32>
// CHECK-NOT: quant.uniform
func.func @dequantize(%a: tensor<2x3x!quant.uniform<i8:f32:1, {0.1:-30, 0.5:5, 2.0}>>) -> tensor<2x3xf32> {
  %0 = stablehlo.uniform_dequantize %a : (tensor<2x3x!quant.uniform<i8:f32:1, {0.1:-30, 0.5:5, 2.0}>>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @quantize
// CHECK-SAME: (%arg0: tensor<4xf32>) -> tensor<4xui8>
// CHECK: %[[D:.*]] = stablehlo.divide %arg0, %{{.*}} : tensor<4xf32>
// CHECK: %[[A:.*]] = stablehlo.add %[[D]], %{{.*}} : tensor<4xf32>
// CHECK: %[[LO:.*]] = stablehlo.constant dense<0.0e+00> : tensor<f32>
// CHECK: %[[HI:.*]] = stablehlo.constant dense<2.55e+02> : tensor<f32>
// CHECK: %[[CL:.*]] = stablehlo.clamp %[[LO]], %[[A]], %[[HI]]
// CHECK: %[[R:.*]] = stablehlo.round_nearest_even %[[CL]] : tensor<4xf32>
// CHECK: stablehlo.convert %[[R]] : (tensor<4xf32>) -> tensor<4xui8>
func.func @quantize(%x: tensor<4xf32>) -> tensor<4x!quant.uniform<u8:f32, 0.25:128>> {
  %0 = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> tensor<4x!quant.uniform<u8:f32, 0.25:128>>
  func.return %0 : tensor<4x!quant.uniform<u8:f32, 0.25:128>>
}

// Data movement with equal parameters runs on the storage integers.
// CHECK-LABEL: func.func @moves
// CHECK-NEXT: stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xi8>) -> tensor<3x2xi8>
// CHECK-NEXT: stablehlo.reshape %{{.*}} : (tensor<3x2xi8>) -> tensor<6xi8>
// CHECK-NEXT: func.return
func.func @moves(%a: tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<6x!quant.uniform<i8:f32, 0.5:1>> {
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<3x2x!quant.uniform<i8:f32, 0.5:1>>
  %1 = stablehlo.reshape %0 : (tensor<3x2x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<6x!quant.uniform<i8:f32, 0.5:1>>
  func.return %1 : tensor<6x!quant.uniform<i8:f32, 0.5:1>>
}

// The integer path: power-of-two scales, K * 131 * 128 < 2^24.
// CHECK-LABEL: func.func @dot_int
// CHECK: stablehlo.dot_general %{{.*}}, %{{.*}}, contracting_dims = [1] x [0] : (tensor<2x4xi32>, tensor<4x3xi32>) -> tensor<2x3xi32>
// CHECK: stablehlo.convert %{{.*}} : (tensor<2x3xi32>) -> tensor<2x3xf32>
// CHECK: stablehlo.constant dense<1.25e-01> : tensor<2x3xf32>
func.func @dot_int(%a: tensor<2x4x!quant.uniform<i8:f32, 0.5:3>>, %b: tensor<4x3x!quant.uniform<i8:f32, 0.25>>) -> tensor<2x3x!quant.uniform<i8:f32, 1.0>> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x4x!quant.uniform<i8:f32, 0.5:3>>, tensor<4x3x!quant.uniform<i8:f32, 0.25>>) -> tensor<2x3x!quant.uniform<i8:f32, 1.0>>
  func.return %0 : tensor<2x3x!quant.uniform<i8:f32, 1.0>>
}

// A scale that is not a power of two: dequantize, f32 dot, quantize.
// CHECK-LABEL: func.func @dot_float
// CHECK: stablehlo.dot_general %{{.*}}, %{{.*}}, contracting_dims = [1] x [0] : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
func.func @dot_float(%a: tensor<2x4x!quant.uniform<i8:f32, 0.3:3>>, %b: tensor<4x3x!quant.uniform<i8:f32, 0.25>>) -> tensor<2x3x!quant.uniform<i8:f32, 1.0>> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x4x!quant.uniform<i8:f32, 0.3:3>>, tensor<4x3x!quant.uniform<i8:f32, 0.25>>) -> tensor<2x3x!quant.uniform<i8:f32, 1.0>>
  func.return %0 : tensor<2x3x!quant.uniform<i8:f32, 1.0>>
}

// The testdata generator's check: custom_call @check.eq.
// CHECK-LABEL: func.func @main
// CHECK: check.expect_almost_eq %{{.*}}, %{{.*}}, tolerance = 1.0e-04 : tensor<2xf32>
// CHECK-NOT: custom_call
// RESULT: PASS
// RESULT: checks: 1 passed, 0 failed
func.func @main() -> tensor<2xf32> {
  %x = stablehlo.constant dense<[4.0, 15.0]> : tensor<2xf32>
  %q = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32:0, {0.1:-30, 0.5:-20}>>
  %d = stablehlo.uniform_dequantize %q : (tensor<2x!quant.uniform<i8:f32:0, {0.1:-30, 0.5:-20}>>) -> tensor<2xf32>
  %c = stablehlo.custom_call @check.eq(%d, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<i1>
  func.return %d : tensor<2xf32>
}
