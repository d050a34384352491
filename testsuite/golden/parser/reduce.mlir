// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | %tpucc -O0 --emit=mlir - | FileCheck %s
// stablehlo.reduce: the "applies" short form, the "reducer" form with one
// and several inputs, and generic input that prints in either form.

// CHECK-LABEL: func.func @applies(%arg0: tensor<4x8xf32>, %arg1: tensor<f32>) -> tensor<4xf32> {
// CHECK-NEXT:    %0 = stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:    %1 = stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    func.return %0 : tensor<4xf32>
// GENERIC-LABEL: "func.func"() ({
// GENERIC-NEXT:  ^bb0(%arg0: tensor<4x8xf32>, %arg1: tensor<f32>):
// GENERIC-NEXT:    %0 = "stablehlo.reduce"(%arg0, %arg1) ({
// GENERIC-NEXT:    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// GENERIC-NEXT:      %1 = "stablehlo.add"(%arg2, %arg3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
// GENERIC-NEXT:      "stablehlo.return"(%1) : (tensor<f32>) -> ()
// GENERIC-NEXT:    }) {dimensions = dense<[1]> : tensor<1xi64>} : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
func.func @applies(%x: tensor<4x8xf32>, %z: tensor<f32>) -> tensor<4xf32> {
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = stablehlo.reduce(%x init: %z) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<4xf32>
}

// A body that is one binary op on the two arguments prints as "applies",
// whatever form it was written in.
// CHECK-LABEL: func.func @generic_to_applies
// CHECK-NEXT:    %0 = stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.multiply across dimensions = [0] : (tensor<5xi32>, tensor<i32>) -> tensor<i32>
// CHECK-NEXT:    %1 = stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.and across dimensions = [0] : (tensor<5xi32>, tensor<i32>) -> tensor<i32>
func.func @generic_to_applies(%x: tensor<5xi32>, %z: tensor<i32>) -> tensor<i32> {
  %0 = "stablehlo.reduce"(%x, %z) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %m = stablehlo.multiply %a, %b : tensor<i32>
    stablehlo.return %m : tensor<i32>
  }) {dimensions = array<i64: 0>} : (tensor<5xi32>, tensor<i32>) -> tensor<i32>
  %1 = stablehlo.reduce(%x init: %z) across dimensions = [0] : (tensor<5xi32>, tensor<i32>) -> tensor<i32>
   reducer(%a: tensor<i32>, %b: tensor<i32>) {
    %m = stablehlo.and %a, %b : tensor<i32>
    stablehlo.return %m : tensor<i32>
  }
  func.return %0 : tensor<i32>
}

// A body with more than one op keeps the reducer form; arguments swapped
// (b, a) are not the short form either.
// CHECK-LABEL: func.func @reducer
// CHECK-NEXT:    %0 = stablehlo.reduce(%arg0 init: %arg1) across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:     reducer(%arg2: tensor<f32>, %arg3: tensor<f32>) {
// CHECK-NEXT:      %1 = stablehlo.abs %arg3 : tensor<f32>
// CHECK-NEXT:      %2 = stablehlo.add %arg2, %1 : tensor<f32>
// CHECK-NEXT:      stablehlo.return %2 : tensor<f32>
// CHECK-NEXT:    }
// Values are numbered in order, region bodies included.
// CHECK-NEXT:    %3 = stablehlo.reduce(%arg0 init: %arg1) across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:     reducer(%arg4: tensor<f32>, %arg5: tensor<f32>) {
// CHECK-NEXT:      %4 = stablehlo.subtract %arg5, %arg4 : tensor<f32>
func.func @reducer(%x: tensor<4x8xf32>, %z: tensor<f32>) -> tensor<4xf32> {
  %0 = stablehlo.reduce(%x init: %z) across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
   reducer(%acc: tensor<f32>, %v: tensor<f32>) {
    %a = stablehlo.abs %v : tensor<f32>
    %s = stablehlo.add %acc, %a : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }
  %1 = stablehlo.reduce(%x init: %z) across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
   reducer(%acc: tensor<f32>, %v: tensor<f32>) {
    %s = stablehlo.subtract %v, %acc : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }
  func.return %0 : tensor<4xf32>
}

// Two inputs (argmax style): block arguments are all accumulators, then all
// elements; the reducer form pairs them per input.
// CHECK-LABEL: func.func @two_inputs
// CHECK-NEXT:    %0:2 = stablehlo.reduce(%arg0 init: %arg2), (%arg1 init: %arg3) across dimensions = [0] : (tensor<6xf32>, tensor<6xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
// CHECK-NEXT:     reducer(%arg4: tensor<f32>, %arg6: tensor<f32>) (%arg5: tensor<i32>, %arg7: tensor<i32>) {
// CHECK-NEXT:      %1 = stablehlo.maximum %arg4, %arg6 : tensor<f32>
// CHECK-NEXT:      %2 = stablehlo.maximum %arg5, %arg7 : tensor<i32>
// CHECK-NEXT:      stablehlo.return %1, %2 : tensor<f32>, tensor<i32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %0#0, %0#1 : tensor<f32>, tensor<i32>
// GENERIC-LABEL: sym_name = "reducer"
// GENERIC:         %0:2 = "stablehlo.reduce"(%arg0, %arg1, %arg2, %arg3) ({
// GENERIC-NEXT:    ^bb0(%arg4: tensor<f32>, %arg5: tensor<i32>, %arg6: tensor<f32>, %arg7: tensor<i32>):
func.func @two_inputs(%x: tensor<6xf32>, %i: tensor<6xi32>, %zx: tensor<f32>, %zi: tensor<i32>) -> (tensor<f32>, tensor<i32>) {
  %0:2 = stablehlo.reduce(%x init: %zx), (%i init: %zi) across dimensions = [0] : (tensor<6xf32>, tensor<6xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
   reducer(%a: tensor<f32>, %b: tensor<f32>) (%c: tensor<i32>, %d: tensor<i32>) {
    %m = stablehlo.maximum %a, %b : tensor<f32>
    %n = stablehlo.maximum %c, %d : tensor<i32>
    stablehlo.return %m, %n : tensor<f32>, tensor<i32>
  }
  func.return %0#0, %0#1 : tensor<f32>, tensor<i32>
}
