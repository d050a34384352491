// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | %tpucc -O0 --emit=mlir - | FileCheck %s
// slice, pad, concatenate and their dynamic forms.

// CHECK-LABEL: func.func @slices
// CHECK-NEXT:    %0 = stablehlo.slice %arg0 [1:3, 0:4] : (tensor<4x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %1 = stablehlo.slice %arg0 [0:4:2, 1:4:3] : (tensor<4x4xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    %2 = stablehlo.slice %arg0 [0:4, 0:4:2] : (tensor<4x4xf32>) -> tensor<4x2xf32>
// CHECK-NEXT:    %3 = stablehlo.constant dense<1> : tensor<i64>
// CHECK-NEXT:    %4 = stablehlo.dynamic_slice %arg0, %3, %3, sizes = [2, 2] : (tensor<4x4xf32>, tensor<i64>, tensor<i64>) -> tensor<2x2xf32>
// CHECK-NEXT:    %5 = stablehlo.dynamic_update_slice %arg0, %4, %3, %3 : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<i64>, tensor<i64>) -> tensor<4x4xf32>
// GENERIC-LABEL: "func.func"() ({
// GENERIC:         %0 = "stablehlo.slice"(%arg0) {limit_indices = dense<[3, 4]> : tensor<2xi64>, start_indices = dense<[1, 0]> : tensor<2xi64>, strides = dense<[1, 1]> : tensor<2xi64>} : (tensor<4x4xf32>) -> tensor<2x4xf32>
// GENERIC-NEXT:    %1 = "stablehlo.slice"(%arg0) {limit_indices = dense<[4, 4]> : tensor<2xi64>, start_indices = dense<[0, 1]> : tensor<2xi64>, strides = dense<[2, 3]> : tensor<2xi64>}
// GENERIC:         %4 = "stablehlo.dynamic_slice"(%arg0, %3, %3) {slice_sizes = dense<[2, 2]> : tensor<2xi64>}
func.func @slices(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = stablehlo.slice %x [1:3, 0:4] : (tensor<4x4xf32>) -> tensor<2x4xf32>
  %1 = stablehlo.slice %x [0:4:2, 1:4:3] : (tensor<4x4xf32>) -> tensor<2x1xf32>
  %2 = "stablehlo.slice"(%x) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 4, 4>, strides = array<i64: 1, 2>} : (tensor<4x4xf32>) -> tensor<4x2xf32>
  %i = stablehlo.constant dense<1> : tensor<i64>
  %3 = stablehlo.dynamic_slice %x, %i, %i, sizes = [2, 2] : (tensor<4x4xf32>, tensor<i64>, tensor<i64>) -> tensor<2x2xf32>
  %4 = stablehlo.dynamic_update_slice %x, %3, %i, %i : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<i64>, tensor<i64>) -> tensor<4x4xf32>
  func.return %4 : tensor<4x4xf32>
}

// CHECK-LABEL: func.func @pads
// CHECK-NEXT:    %0 = stablehlo.pad %arg0, %arg1, low = [1, 0], high = [0, 2], interior = [1, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x5xf32>
// CHECK-NEXT:    %1 = stablehlo.pad %arg0, %arg1, low = [-1, 0], high = [0, -1], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<1x2xf32>
// GENERIC-LABEL: sym_name = "slices"
// GENERIC:         %0 = "stablehlo.pad"(%arg0, %arg1) {edge_padding_high = dense<[0, 2]> : tensor<2xi64>, edge_padding_low = dense<[1, 0]> : tensor<2xi64>, interior_padding = dense<[1, 0]> : tensor<2xi64>}
func.func @pads(%x: tensor<2x3xf32>, %v: tensor<f32>) -> tensor<4x5xf32> {
  %0 = stablehlo.pad %x, %v, low = [1, 0], high = [0, 2], interior = [1, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x5xf32>
  %1 = stablehlo.pad %x, %v, low = [-1, 0], high = [0, -1], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<1x2xf32>
  func.return %0 : tensor<4x5xf32>
}

// CHECK-LABEL: func.func @concats
// CHECK-NEXT:    %0 = stablehlo.concatenate %arg0, %arg1, %arg0, dim = 0 : (tensor<1x3xi32>, tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<4x3xi32>
// CHECK-NEXT:    %1 = stablehlo.concatenate %arg0, dim = 1 : (tensor<1x3xi32>) -> tensor<1x3xi32>
// GENERIC-LABEL: sym_name = "pads"
// GENERIC:         %0 = "stablehlo.concatenate"(%arg0, %arg1, %arg0) {dimension = 0 : i64}
func.func @concats(%a: tensor<1x3xi32>, %b: tensor<2x3xi32>) -> tensor<4x3xi32> {
  %0 = stablehlo.concatenate %a, %b, %a, dim = 0 : (tensor<1x3xi32>, tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<4x3xi32>
  %1 = "stablehlo.concatenate"(%a) {dimension = 1 : i64} : (tensor<1x3xi32>) -> tensor<1x3xi32>
  func.return %0 : tensor<4x3xi32>
}

// CHECK-LABEL: func.func @dynamic_forms
// CHECK-NEXT:    %0 = stablehlo.real_dynamic_slice %arg0, %arg1, %arg1, %arg1 : (tensor<?xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
// CHECK-NEXT:    %1 = stablehlo.dynamic_pad %arg0, %arg2, %arg1, %arg1, %arg1 : (tensor<?xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
// CHECK-NEXT:    %2 = "stablehlo.torch_index_select"(%arg3, %arg4) {batch_dims = 0 : i64, dim = 0 : i64} : (tensor<5x2xf32>, tensor<3xi32>) -> tensor<3x2xf32>
func.func @dynamic_forms(%x: tensor<?xf32>, %i: tensor<1xi64>, %v: tensor<f32>, %t: tensor<5x2xf32>, %idx: tensor<3xi32>) -> tensor<?xf32> {
  %0 = stablehlo.real_dynamic_slice %x, %i, %i, %i : (tensor<?xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
  %1 = stablehlo.dynamic_pad %x, %v, %i, %i, %i : (tensor<?xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
  %2 = "stablehlo.torch_index_select"(%t, %idx) {dim = 0 : i64, batch_dims = 0 : i64} : (tensor<5x2xf32>, tensor<3xi32>) -> tensor<3x2xf32>
  func.return %0 : tensor<?xf32>
}
