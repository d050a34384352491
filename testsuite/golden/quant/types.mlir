// RUN: %tpucc -O0 --passes= --emit=mlir %s | FileCheck %s
// RUN: %tpucc -O0 --passes= --emit=mlir %s | %tpucc -O0 --passes= --emit=mlir - | FileCheck %s
// RUN: %tpucc -O0 --passes= --emit=mlir-generic %s | %tpucc -O0 --passes= --emit=mlir - | FileCheck %s
// !quant.uniform types print as MLIR prints them: scales in %e form, a
// zero point of 0 and the default storage range left out, per-axis
// parameters without spaces.  Equal types written differently are one type
// (so %a's and the result's types match).  A scale %e cannot give back
// exactly prints with the digits that do.

// CHECK-LABEL: func.func @per_tensor
// CHECK-SAME: %arg0: tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>>
// CHECK-SAME: %arg1: tensor<2x!quant.uniform<i8<-127:127>:f32, 1.000000e-01>>
// CHECK-SAME: %arg2: tensor<2x!quant.uniform<u8:f32, 3.918810451731963e-03:128>>
// CHECK-SAME: %arg3: tensor<2x!quant.uniform<ui8:f16, 2.000000e+00:255>>
// CHECK-SAME: %arg4: tensor<2x!quant.uniform<i4:bf16, 2.500000e-01:-8>>
// CHECK-SAME: %arg5: tensor<2x!quant.uniform<i16:f64, 1.000000e-03>>
// CHECK-SAME: %arg6: tensor<2x!quant.uniform<i2:f32, 1.000000e+00:1>>
// CHECK-SAME: %arg7: tensor<2x!quant.uniform<u2:f32, 1.000000e+00>>
// CHECK-SAME: %arg8: tensor<2x!quant.uniform<i32:f32, 1.000000e+00>>
// CHECK-SAME: %arg9: tensor<2x!quant.uniform<u16:f32, 1.000000e+00:65535>>
// CHECK-SAME: -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>>
func.func @per_tensor(%a: tensor<2x!quant.uniform<i8:f32, 0.5:-3>>,
                      %b: tensor<2x!quant.uniform<i8<-127:127>:f32, 1.0e-1>>,
                      %c: tensor<2x!quant.uniform<u8:f32, 0.0039188104517319626:128>>,
                      %d: tensor<2x!quant.uniform<ui8:f16, 2.0:255>>,
                      %e: tensor<2x!quant.uniform<i4<-8:7>:bf16, 0.25:-8>>,
                      %f: tensor<2x!quant.uniform<i16:f64, 1.0e-3:0>>,
                      %g: tensor<2x!quant.uniform<i2:f32, 1.0:1>>,
                      %h: tensor<2x!quant.uniform<u2:f32, 1.0>>,
                      %i: tensor<2x!quant.uniform<i32:f32, 1.0>>,
                      %j: tensor<2x!quant.uniform<u16:f32, 1.0:65535>>) -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>> {
  func.return %a : tensor<2x!quant.uniform<i8 : f32 , 0.5 : -3>>
}

// CHECK-LABEL: func.func @per_axis
// CHECK-SAME: tensor<3x2x!quant.uniform<i8:f32:1, {1.000000e-01:1,2.000000e-01:2}>>
// CHECK-SAME: tensor<4x!quant.uniform<u8<1:200>:f32:0, {1.000000e+00,2.000000e+00:3,5.000000e-01,1.250000e-01:200}>>
func.func @per_axis(%a: tensor<3x2x!quant.uniform<i8:f32:1, {0.1:1, 0.2:2}>>,
                    %b: tensor<4x!quant.uniform<u8<1:200>:f32:0, {1.0, 2.0:3, 0.5:0, 0.125:200}>>) {
  func.return
}

// The quantized constant form of StableHLO: storage values, quantized type.
// CHECK-LABEL: func.func @constant
// CHECK: "stablehlo.constant"() {value = dense<[1, 2]> : tensor<2xi8>} : () -> tensor<2x!quant.uniform<i8:f32, 2.000000e+00:15>>
// CHECK: stablehlo.uniform_quantize %{{.*}} : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 1.000000e+00>>
// CHECK: stablehlo.uniform_quantize %{{.*}} : tensor<2x!quant.uniform<i8:f32, 1.000000e+00>>
// CHECK: stablehlo.uniform_dequantize %{{.*}} : (tensor<2x!quant.uniform<i8:f32, 2.000000e+00:15>>) -> tensor<2xf32>
func.func @constant(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.constant() <{value = dense<[1, 2]> : tensor<2xi8>}> : () -> tensor<2x!quant.uniform<i8:f32, 2.000000e+00:15>>
  %1 = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 1.0>>
  %2 = stablehlo.uniform_quantize %1 : tensor<2x!quant.uniform<i8:f32, 1.0>>
  %3 = stablehlo.uniform_dequantize %0 : (tensor<2x!quant.uniform<i8:f32, 2.0:15>>) -> tensor<2xf32>
  func.return %3 : tensor<2xf32>
}
