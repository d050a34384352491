// RUN: %tpucc -O0 --emit=mlir %s | %tpucc -O0 --emit=mlir - | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | %tpucc -O0 --emit=mlir - | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir %s > %t.1 && %tpucc -O0 --emit=mlir %t.1 > %t.2 && diff %t.1 %t.2
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s > %t.g1 && %tpucc -O0 --emit=mlir --emit=mlir-generic %t.g1 > %t.g2 && diff %t.g1 %t.g2
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %t.1 > %t.g3 && diff %t.g1 %t.g3
// RUN: %tpucc -O0 --emit=mlir %t.g1 > %t.3 && diff %t.1 %t.3
// Printing is a fixed point: pretty -> pretty, generic -> generic, and the
// two forms read back to the same module.  One op of every pretty format.

// CHECK-LABEL: module @roundtrip attributes {mhlo.num_replicas = 1 : i32} {
module @roundtrip attributes {mhlo.num_replicas = 1 : i32} {
  // CHECK-LABEL: func.func @formats
  func.func @formats(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %p: tensor<2x3xi1>, %i: tensor<2x3xi32>, %w: tensor<3x4xf32>) -> tensor<2x3xf32> {
    // !same, %attrs
    // CHECK-NEXT: %0 = stablehlo.add %arg0, %arg1 {tag = "x"} : tensor<2x3xf32>
    %0 = stablehlo.add %a, %b {tag = "x"} : tensor<2x3xf32>
    // !same with a function type
    // CHECK-NEXT: %1 = stablehlo.convert %arg3 : (tensor<2x3xi32>) -> tensor<2x3xf32>
    %1 = stablehlo.convert %i : (tensor<2x3xi32>) -> tensor<2x3xf32>
    // !select
    // CHECK-NEXT: %2 = stablehlo.select %arg2, %0, %1 : tensor<2x3xi1>, tensor<2x3xf32>
    %2 = stablehlo.select %p, %0, %1 : tensor<2x3xi1>, tensor<2x3xf32>
    // $enum and an optional group
    // CHECK-NEXT: %3 = stablehlo.compare GT, %2, %arg1, FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %3 = stablehlo.compare GT, %2, %b, FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    // !complex
    // CHECK-NEXT: %4 = stablehlo.complex %arg0, %arg1 : tensor<2x3xcomplex<f32>>
    %4 = stablehlo.complex %a, %b : tensor<2x3xcomplex<f32>>
    // $i64 and !res
    // CHECK-NEXT: %5 = stablehlo.iota dim = 0 : tensor<2x3xi32>
    %5 = stablehlo.iota dim = 0 : tensor<2x3xi32>
    // $arr and !fn
    // CHECK-NEXT: %6 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %6 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    // @slice_ranges
    // CHECK-NEXT: %7 = stablehlo.slice %arg0 [0:2:2, 1:3] : (tensor<2x3xf32>) -> tensor<1x2xf32>
    %7 = stablehlo.slice %a [0:2:2, 1:3] : (tensor<2x3xf32>) -> tensor<1x2xf32>
    // @dot_dims and $prec
    // CHECK-NEXT: %8 = stablehlo.dot_general %arg0, %arg4, contracting_dims = [1] x [0], precision = [HIGH, DEFAULT] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %8 = stablehlo.dot_general %a, %w, contracting_dims = [1] x [0], precision = [HIGH, DEFAULT] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    // @rp_format
    // CHECK-NEXT: %9 = stablehlo.reduce_precision %arg0, format = e4m3 : tensor<2x3xf32>
    %9 = stablehlo.reduce_precision %a, format = e4m3 : tensor<2x3xf32>
    // !tuple, $i32
    // CHECK-NEXT: %10 = stablehlo.tuple %arg0, %arg3 : tuple<tensor<2x3xf32>, tensor<2x3xi32>>
    // CHECK-NEXT: %11 = stablehlo.get_tuple_element %10[1] : (tuple<tensor<2x3xf32>, tensor<2x3xi32>>) -> tensor<2x3xi32>
    %10 = stablehlo.tuple %a, %i : tuple<tensor<2x3xf32>, tensor<2x3xi32>>
    %11 = stablehlo.get_tuple_element %10[1] : (tuple<tensor<2x3xf32>, tensor<2x3xi32>>) -> tensor<2x3xi32>
    // !pair
    // CHECK-NEXT: %12:2 = stablehlo.optimization_barrier %arg0, %arg3 : tensor<2x3xf32>, tensor<2x3xi32>
    %12:2 = stablehlo.optimization_barrier %a, %i : tensor<2x3xf32>, tensor<2x3xi32>
    // !chlo
    // CHECK-NEXT: %13 = chlo.erf %arg0 : tensor<2x3xf32> -> tensor<2x3xf32>
    %13 = chlo.erf %a : tensor<2x3xf32> -> tensor<2x3xf32>
    // $str
    // CHECK-NEXT: %14 = interpreter.probe %arg0, probe_id = "p\"q" : tensor<2x3xf32>
    %14 = interpreter.probe %a, probe_id = "p\"q" : tensor<2x3xf32>
    // $f64, !same without results
    // CHECK-NEXT: check.expect_almost_eq %arg0, %arg1, tolerance = 1.0e-02 : tensor<2x3xf32>
    check.expect_almost_eq %a, %b, tolerance = 0.01 : tensor<2x3xf32>
    // $dense
    // CHECK-NEXT: check.expect_eq_const %arg3, dense<7> : tensor<2x3xi32>
    check.expect_eq_const %i, dense<7> : tensor<2x3xi32>
    // !ops
    // CHECK-NEXT: check.expect_close %arg0, %arg1, max_ulp_difference = 2 : tensor<2x3xf32>, tensor<2x3xf32>
    check.expect_close %a, %b, max_ulp_difference = 2 : tensor<2x3xf32>, tensor<2x3xf32>
    // $sym
    // CHECK-NEXT: %15 = func.call @identity(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %15 = func.call @identity(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    // @custom_call, @constant
    // CHECK-NEXT: %16 = stablehlo.custom_call @target(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    // CHECK-NEXT: %17 = stablehlo.constant dense<{{\[}}[1.0e+00, 2.0e+00, 3.0e+00], [4.0e+00, 5.0e+00, 6.0e+00]]> : tensor<2x3xf32>
    %16 = stablehlo.custom_call @target(%a) {api_version = 1 : i32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %17 = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
    // CHECK-NEXT: func.return %0 : tensor<2x3xf32>
    func.return %0 : tensor<2x3xf32>
  }

  // CHECK-LABEL: func.func private @identity(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
  func.func private @identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
    func.return %x : tensor<2x3xf32>
  }

  // @conv_window, $conv
  // CHECK-LABEL: func.func @conv
  // CHECK-NEXT: %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = {{\[}}[0, 1], [1, 0]], rhs_dilate = [1, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x4x5x4xf32>
  func.func @conv(%x: tensor<1x8x8x3xf32>, %k: tensor<3x3x3x4xf32>) -> tensor<1x4x5x4xf32> {
    %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = [[0, 1], [1, 0]], rhs_dilate = [1, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x4x5x4xf32>
    func.return %0 : tensor<1x4x5x4xf32>
  }

  // @reduce (both forms), @while, @scan
  // CHECK-LABEL: func.func @regions
  // CHECK-NEXT: %0 = stablehlo.constant dense<0.0e+00> : tensor<f32>
  // CHECK-NEXT: %1 = stablehlo.reduce(%arg0 init: %0) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  // CHECK-NEXT: %2 = stablehlo.reduce(%arg0 init: %0) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  // CHECK-NEXT:  reducer(%arg1: tensor<f32>, %arg2: tensor<f32>) {
  // CHECK:      %5 = stablehlo.while(%arg3 = %1) : tensor<f32>
  // CHECK-NEXT:  cond {
  // CHECK:      } do {
  // CHECK:      %8:2 = chlo.scan(%arg0) inits(%0) dimension=0 {
  func.func @regions(%x: tensor<4xf32>) -> tensor<f32> {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %m = stablehlo.reduce(%x init: %z) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
     reducer(%acc: tensor<f32>, %v: tensor<f32>) {
      %n = stablehlo.negate %v : tensor<f32>
      %r = stablehlo.maximum %acc, %n : tensor<f32>
      stablehlo.return %r : tensor<f32>
    }
    %w = stablehlo.while(%c = %s) : tensor<f32>
     cond {
      %lt = stablehlo.compare LT, %c, %m : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %n = stablehlo.add %c, %c : tensor<f32>
      stablehlo.return %n : tensor<f32>
    }
    %sc:2 = chlo.scan(%x) inits(%z) dimension=0 {
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %t, %t : tensor<f32>, tensor<f32>
    } : (tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<f32>)
    func.return %w : tensor<f32>
  }
}
