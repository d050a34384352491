// canonicalize (any program, -O1/-O2): a dynamic op whose shape operands
// are constants and whose result type is static becomes its static form.
// RUN: %tpucc %s --passes=canonicalize --emit=mlir | FileCheck %s
// Without shapes, an unbounded program is refused naming the argument.
// RUN: %not %tpucc %S/refine_shapes.mlir --split-input-file --emit=mlir 2>&1 | FileCheck %s --check-prefix=NOSHAPE
// RUN: %not %tpurun %S/refine_shapes.mlir --split-input-file --input=i64=3 --input=random 2>&1 | FileCheck %s --check-prefix=NOSHAPE
// RUN: %not %tpucc %s --input-shape=3xq8 2>&1 | FileCheck %s --check-prefix=BADSPEC

// NOSHAPE: refine_shapes.mlir:{{[0-9]+}}:1: error: 'func.func' op argument #1 has the unbounded type tensor<?x4xf32>: give its concrete shape (tpurun --input=3x4xf32=VALUES, =random or @FILE.npy; tpucc --input-shape=3x4xf32
// BADSPEC: tpucc: --input-shape: bad shape '3xq8'

// CHECK-LABEL: func.func @main
// CHECK-NEXT: %0 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: %1 = stablehlo.reshape %arg0 : (tensor<4xf32>) -> tensor<2x2xf32>
// (the iota, static, is then folded)
// CHECK-NEXT: %2 = stablehlo.constant dense<{{\[}}[0, 0, 0, 0], [1, 1, 1, 1]]> : tensor<2x4xi32>
// CHECK-NEXT: %3 = stablehlo.constant
// CHECK-NEXT: %4 = stablehlo.pad %arg0, %3, low = [1], high = [0], interior = [1] : (tensor<4xf32>, tensor<f32>) -> tensor<8xf32>
// CHECK-NEXT: %5 = stablehlo.slice %arg0 [1:3] : (tensor<4xf32>) -> tensor<2xf32>
// CHECK-NEXT: %6 = stablehlo.dynamic_reshape %arg0, %arg1
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<2xi32>) -> (tensor<2x4xf32>, tensor<2x2xf32>, tensor<2x4xi32>, tensor<8xf32>, tensor<2xf32>, tensor<2x2xf32>) {
  %s = stablehlo.constant dense<[2, 4]> : tensor<2xi32>
  %b = stablehlo.dynamic_broadcast_in_dim %arg0, %s, dims = [1] : (tensor<4xf32>, tensor<2xi32>) -> tensor<2x4xf32>
  %t = stablehlo.constant dense<[2, 2]> : tensor<2xi32>
  %r = stablehlo.dynamic_reshape %arg0, %t : (tensor<4xf32>, tensor<2xi32>) -> tensor<2x2xf32>
  %i = stablehlo.dynamic_iota %s, dim = 0 : (tensor<2xi32>) -> tensor<2x4xi32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %lo = stablehlo.constant dense<1> : tensor<1xi32>
  %hi = stablehlo.constant dense<0> : tensor<1xi32>
  %p = stablehlo.dynamic_pad %arg0, %z, %lo, %hi, %lo : (tensor<4xf32>, tensor<f32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<8xf32>
  %st = stablehlo.constant dense<1> : tensor<1xi32>
  %li = stablehlo.constant dense<3> : tensor<1xi32>
  %sl = stablehlo.real_dynamic_slice %arg0, %st, %li, %st : (tensor<4xf32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<2xf32>
  %dr = stablehlo.dynamic_reshape %arg0, %arg1 : (tensor<4xf32>, tensor<2xi32>) -> tensor<2x2xf32>
  return %b, %r, %i, %p, %sl, %dr : tensor<2x4xf32>, tensor<2x2xf32>, tensor<2x4xi32>, tensor<8xf32>, tensor<2xf32>, tensor<2x2xf32>
}
