// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | %tpucc -O0 --emit=mlir - | FileCheck %s
// tuple and get_tuple_element; tuple types in signatures, nested and empty.

// CHECK-LABEL: func.func @tuples(%arg0: tensor<2xf32>, %arg1: tensor<i32>) -> tuple<tensor<2xf32>, tuple<tensor<i32>>> {
// CHECK-NEXT:    %0 = stablehlo.tuple %arg1 : tuple<tensor<i32>>
// CHECK-NEXT:    %1 = stablehlo.tuple %arg0, %0 : tuple<tensor<2xf32>, tuple<tensor<i32>>>
// CHECK-NEXT:    %2 = stablehlo.get_tuple_element %1[1] : (tuple<tensor<2xf32>, tuple<tensor<i32>>>) -> tuple<tensor<i32>>
// CHECK-NEXT:    %3 = stablehlo.get_tuple_element %2[0] : (tuple<tensor<i32>>) -> tensor<i32>
// CHECK-NEXT:    %4 = stablehlo.tuple : tuple<>
// CHECK-NEXT:    func.return %1 : tuple<tensor<2xf32>, tuple<tensor<i32>>>
// GENERIC-LABEL: "func.func"() ({
// GENERIC:         %1 = "stablehlo.tuple"(%arg0, %0) : (tensor<2xf32>, tuple<tensor<i32>>) -> tuple<tensor<2xf32>, tuple<tensor<i32>>>
// GENERIC-NEXT:    %2 = "stablehlo.get_tuple_element"(%1) {index = 1 : i32} : (tuple<tensor<2xf32>, tuple<tensor<i32>>>) -> tuple<tensor<i32>>
// GENERIC:         %4 = "stablehlo.tuple"() : () -> tuple<>
func.func @tuples(%x: tensor<2xf32>, %i: tensor<i32>) -> tuple<tensor<2xf32>, tuple<tensor<i32>>> {
  %0 = stablehlo.tuple %i : tuple<tensor<i32>>
  %1 = stablehlo.tuple %x, %0 : tuple<tensor<2xf32>, tuple<tensor<i32>>>
  %2 = stablehlo.get_tuple_element %1[1] : (tuple<tensor<2xf32>, tuple<tensor<i32>>>) -> tuple<tensor<i32>>
  %3 = "stablehlo.get_tuple_element"(%2) {index = 0 : i32} : (tuple<tensor<i32>>) -> tensor<i32>
  %4 = stablehlo.tuple : tuple<>
  func.return %1 : tuple<tensor<2xf32>, tuple<tensor<i32>>>
}

// Tokens and tuples with tokens.
// CHECK-LABEL: func.func @tokens(%arg0: !stablehlo.token) -> tuple<!stablehlo.token, tensor<f32>> {
// CHECK-NEXT:    %0 = stablehlo.create_token : !stablehlo.token
// CHECK-NEXT:    %1 = stablehlo.after_all %arg0, %0 : !stablehlo.token
// CHECK-NEXT:    %2 = stablehlo.constant dense<1.0e+00> : tensor<f32>
// CHECK-NEXT:    %3 = stablehlo.tuple %1, %2 : tuple<!stablehlo.token, tensor<f32>>
// GENERIC:         %1 = "stablehlo.after_all"(%arg0, %0) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token
func.func @tokens(%t: !stablehlo.token) -> tuple<!stablehlo.token, tensor<f32>> {
  %0 = stablehlo.create_token : !stablehlo.token
  %1 = stablehlo.after_all %t, %0 : !stablehlo.token
  %2 = stablehlo.constant dense<1.0> : tensor<f32>
  %3 = stablehlo.tuple %1, %2 : tuple<!stablehlo.token, tensor<f32>>
  func.return %3 : tuple<!stablehlo.token, tensor<f32>>
}
