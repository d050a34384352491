// refine-shapes: the entry's unbounded dims from --input-shape, the
// dimension variable's value substituted, shape computations folded and
// every dynamic op rewritten into its static form.
// RUN: %tpucc %s --split-input-file -O0 --emit=mlir --input-shape=i64=3 --input-shape=3x4xf32 --print-ir-after=refine-shapes 2>&1 >/dev/null | FileCheck %s

// CHECK-LABEL: IR Dump After refine-shapes
// CHECK: func.func public @main(%arg0: tensor<i64>, %arg1: tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<12xf32>, tensor<3x4xi32>, tensor<i32>)
// CHECK-DAG: stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-DAG: stablehlo.reshape %arg1 : (tensor<3x4xf32>) -> tensor<12xf32>
// CHECK-DAG: stablehlo.iota dim = 1 : tensor<3x4xi32>
// CHECK-DAG: stablehlo.constant dense<3> : tensor<i32>
// CHECK-NOT: dynamic
// CHECK: func.return
func.func public @main(%arg0: tensor<i64>, %arg1: tensor<?x4xf32>) -> (tensor<2x?x4xf32>, tensor<?xf32>, tensor<?x4xi32>, tensor<i32>) {
  %d = stablehlo.convert %arg0 : (tensor<i64>) -> tensor<i32>
  %d1 = stablehlo.reshape %d : (tensor<i32>) -> tensor<1xi32>
  %two = stablehlo.constant dense<2> : tensor<1xi32>
  %four = stablehlo.constant dense<4> : tensor<1xi32>
  %s3 = stablehlo.concatenate %two, %d1, %four, dim = 0 : (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<3xi32>
  %b = stablehlo.dynamic_broadcast_in_dim %arg1, %s3, dims = [1, 2] : (tensor<?x4xf32>, tensor<3xi32>) -> tensor<2x?x4xf32>
  %n = stablehlo.multiply %d1, %four : tensor<1xi32>
  %r = stablehlo.dynamic_reshape %arg1, %n : (tensor<?x4xf32>, tensor<1xi32>) -> tensor<?xf32>
  %s2 = stablehlo.concatenate %d1, %four, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %i = stablehlo.dynamic_iota %s2, dim = 1 : (tensor<2xi32>) -> tensor<?x4xi32>
  %g = stablehlo.get_dimension_size %arg1, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  return %b, %r, %i, %g : tensor<2x?x4xf32>, tensor<?xf32>, tensor<?x4xi32>, tensor<i32>
}

// -----

// CHECK-LABEL: IR Dump After refine-shapes
// CHECK: func.func public @main(%arg0: tensor<i64>, %arg1: tensor<3x4xf32>) -> (tensor<5x6xf32>, tensor<2x2xf32>)
// CHECK-DAG: stablehlo.pad %arg1, %{{.*}}, low = [1, 0], high = [1, 2], interior = [0, 0] : (tensor<3x4xf32>, tensor<f32>) -> tensor<5x6xf32>
// CHECK-DAG: stablehlo.slice %arg1 [1:3, 0:4:2] : (tensor<3x4xf32>) -> tensor<2x2xf32>
// CHECK-NOT: dynamic
func.func public @main(%arg0: tensor<i64>, %arg1: tensor<?x4xf32>) -> (tensor<?x6xf32>, tensor<?x2xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %lo = stablehlo.constant dense<[1, 0]> : tensor<2xi64>
  %hi = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %in = stablehlo.constant dense<0> : tensor<2xi64>
  %p = stablehlo.dynamic_pad %arg1, %zero, %lo, %hi, %in : (tensor<?x4xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x6xf32>
  %one = stablehlo.constant dense<1> : tensor<1xi64>
  %d1 = stablehlo.reshape %arg0 : (tensor<i64>) -> tensor<1xi64>
  %z = stablehlo.constant dense<0> : tensor<1xi64>
  %four = stablehlo.constant dense<4> : tensor<1xi64>
  %two = stablehlo.constant dense<2> : tensor<1xi64>
  %start = stablehlo.concatenate %one, %z, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %limit = stablehlo.concatenate %d1, %four, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %strides = stablehlo.concatenate %one, %two, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %s = stablehlo.real_dynamic_slice %arg1, %start, %limit, %strides : (tensor<?x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x2xf32>
  return %p, %s : tensor<?x6xf32>, tensor<?x2xf32>
}

// -----

// A call is refined through a specialized copy of its callee, which gets
// the dimension variable as a constant; the original callee goes.
// CHECK-LABEL: IR Dump After refine-shapes
// CHECK: func.func public @main(%arg0: tensor<i64>, %arg1: tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK: func.call @double_refined_0(%{{.*}}, %arg1) : (tensor<i64>, tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK-NOT: func.func private @double(
// CHECK: func.func private @double_refined_0(%arg0: tensor<i64>, %arg1: tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK: stablehlo.broadcast_in_dim %{{.*}}, dims = [] : (tensor<f32>) -> tensor<3x4xf32>
// CHECK: stablehlo.while
// CHECK-SAME: tensor<3x4xf32>
func.func public @main(%arg0: tensor<i64>, %arg1: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = func.call @double(%arg0, %arg1) : (tensor<i64>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
func.func private @double(%arg0: tensor<i64>, %arg1: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %d = stablehlo.reshape %arg0 : (tensor<i64>) -> tensor<1xi64>
  %four = stablehlo.constant dense<4> : tensor<1xi64>
  %s = stablehlo.concatenate %d, %four, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %two = stablehlo.constant dense<2.0> : tensor<f32>
  %t = stablehlo.dynamic_broadcast_in_dim %two, %s, dims = [] : (tensor<f32>, tensor<2xi64>) -> tensor<?x4xf32>
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %w:2 = stablehlo.while(%i = %c0, %x = %arg1) : tensor<i32>, tensor<?x4xf32>
  cond {
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %lt = stablehlo.compare LT, %i, %c1 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.add %i, %c1 : tensor<i32>
    %y = stablehlo.multiply %x, %t : tensor<?x4xf32>
    stablehlo.return %n, %y : tensor<i32>, tensor<?x4xf32>
  }
  return %w#1 : tensor<?x4xf32>
}
