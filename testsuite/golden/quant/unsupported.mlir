// RUN: %not %tpucc -O0 %s -o %t.tpub 2>&1 | FileCheck %s
// What quant-lower refuses, with a located error (docs/quantization.md).

// CHECK: unsupported.mlir:[[@LINE+2]]:8: error: 'chlo.broadcast_maximum' op is not supported by tpucc on quantized tensors of different expressed types
func.func @mixed(%a: tensor<2x!quant.uniform<i8:f16, 2.0:15>>, %b: tensor<2x!quant.uniform<i8:f32, 3.0:15>>) -> tensor<2x!quant.uniform<i8:f32, 2.0:15>> {
  %0 = "chlo.broadcast_maximum"(%a, %b) : (tensor<2x!quant.uniform<i8:f16, 2.0:15>>, tensor<2x!quant.uniform<i8:f32, 3.0:15>>) -> tensor<2x!quant.uniform<i8:f32, 2.0:15>>
  func.return %0 : tensor<2x!quant.uniform<i8:f32, 2.0:15>>
}
