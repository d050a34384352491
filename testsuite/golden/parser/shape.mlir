// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | %tpucc -O0 --emit=mlir - | FileCheck %s
// Shape ops: iota, broadcasts, reshapes, transpose, reverse, bitcast,
// dimension sizes.

// CHECK-LABEL: func.func @static_shapes
// CHECK-NEXT:    %0 = stablehlo.iota dim = 1 : tensor<2x3xi32>
// CHECK-NEXT:    %1 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %2 = stablehlo.broadcast %arg0, sizes = [4, 2] : (tensor<3xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    %3 = stablehlo.reshape %1 : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    %4 = stablehlo.transpose %1, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    %5 = stablehlo.reverse %1, dims = [0, 1] : tensor<2x3xf32>
// CHECK-NEXT:    %6 = stablehlo.bitcast_convert %arg0 : (tensor<3xf32>) -> tensor<3xi32>
// CHECK-NEXT:    %7 = stablehlo.bitcast_convert %arg0 : (tensor<3xf32>) -> tensor<3x4xui8>
// CHECK-NEXT:    %8 = stablehlo.get_dimension_size %1, dim = 1 : (tensor<2x3xf32>) -> tensor<i32>
// CHECK-NEXT:    %9 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %10 = stablehlo.reshape %arg1 : (tensor<f32>) -> tensor<1x1xf32>
// GENERIC-LABEL: "func.func"() ({
// GENERIC:         %0 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<2x3xi32>
// GENERIC-NEXT:    %1 = "stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = dense<[1]> : tensor<1xi64>} : (tensor<3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:    %2 = "stablehlo.broadcast"(%arg0) {broadcast_sizes = dense<[4, 2]> : tensor<2xi64>} : (tensor<3xf32>) -> tensor<4x2x3xf32>
// GENERIC:         %4 = "stablehlo.transpose"(%1) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
// GENERIC-NEXT:    %5 = "stablehlo.reverse"(%1) {dimensions = dense<[0, 1]> : tensor<2xi64>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC:         %8 = "stablehlo.get_dimension_size"(%1) {dimension = 1 : i64} : (tensor<2x3xf32>) -> tensor<i32>
// GENERIC-NEXT:    %9 = "stablehlo.broadcast_in_dim"(%arg1) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>) -> tensor<2x3xf32>
// GENERIC-NOT:     array<
func.func @static_shapes(%x: tensor<3xf32>, %s: tensor<f32>) -> tensor<2x3xf32> {
  %0 = stablehlo.iota dim = 1 : tensor<2x3xi32>
  %1 = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %2 = "stablehlo.broadcast"(%x) {broadcast_sizes = array<i64: 4, 2>} : (tensor<3xf32>) -> tensor<4x2x3xf32>
  %3 = stablehlo.reshape %1 : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %4 = stablehlo.transpose %1, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %5 = stablehlo.reverse %1, dims = [0, 1] : tensor<2x3xf32>
  %6 = stablehlo.bitcast_convert %x : (tensor<3xf32>) -> tensor<3xi32>
  %7 = stablehlo.bitcast_convert %x : (tensor<3xf32>) -> tensor<3x4xui8>
  %8 = stablehlo.get_dimension_size %1, dim = 1 : (tensor<2x3xf32>) -> tensor<i32>
  %9 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
  %10 = stablehlo.reshape %s : (tensor<f32>) -> tensor<1x1xf32>
  func.return %1 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @dynamic_shapes
// CHECK-NEXT:    %0 = stablehlo.dynamic_iota %arg1, dim = 0 : (tensor<2xi64>) -> tensor<?x?xf32>
// CHECK-NEXT:    %1 = stablehlo.dynamic_broadcast_in_dim %arg0, %arg1, dims = [1] : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
// CHECK-NEXT:    %2 = stablehlo.dynamic_broadcast_in_dim %arg0, %arg1, dims = [1], expanding_dimensions = [0] : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
// CHECK-NEXT:    %3 = stablehlo.dynamic_reshape %1, %arg2 : (tensor<?x?xf32>, tensor<1xi64>) -> tensor<?xf32>
// CHECK-NEXT:    %4 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?xf32>) -> tensor<i32>
// GENERIC-LABEL: sym_name = "static_shapes"
// GENERIC:         %2 = "stablehlo.dynamic_broadcast_in_dim"(%arg0, %arg1) {broadcast_dimensions = dense<[1]> : tensor<1xi64>, known_expanding_dimensions = dense<[0]> : tensor<1xi64>}
func.func @dynamic_shapes(%x: tensor<?xf32>, %shape: tensor<2xi64>, %shape1: tensor<1xi64>) -> tensor<?x?xf32> {
  %0 = stablehlo.dynamic_iota %shape, dim = 0 : (tensor<2xi64>) -> tensor<?x?xf32>
  %1 = stablehlo.dynamic_broadcast_in_dim %x, %shape, dims = [1] : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %2 = stablehlo.dynamic_broadcast_in_dim %x, %shape, dims = [1], expanding_dimensions = [0], nonexpanding_dimensions = [] : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %3 = stablehlo.dynamic_reshape %1, %shape1 : (tensor<?x?xf32>, tensor<1xi64>) -> tensor<?xf32>
  %4 = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  func.return %1 : tensor<?x?xf32>
}

// Bounded dynamic dimensions: parser/bounded.mlir (without passes, since
// dynamic-pad makes them static at every -O level).
