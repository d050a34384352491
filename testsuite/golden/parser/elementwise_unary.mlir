// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: %tpucc -O0 --emit=mlir %s | %tpucc -O0 --emit=mlir - | FileCheck %s
// Every element-wise unary op of ir/ops.def, in pretty and generic form.

// CHECK-LABEL: func.func @float_unary(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    %0 = stablehlo.abs %arg0 : tensor<2x3xf32>
// CHECK-NEXT:    %1 = stablehlo.cbrt %0 : tensor<2x3xf32>
// CHECK-NEXT:    %2 = stablehlo.ceil %1 : tensor<2x3xf32>
// CHECK-NEXT:    %3 = stablehlo.cosine %2 : tensor<2x3xf32>
// CHECK-NEXT:    %4 = stablehlo.exponential %3 : tensor<2x3xf32>
// CHECK-NEXT:    %5 = stablehlo.exponential_minus_one %4 : tensor<2x3xf32>
// CHECK-NEXT:    %6 = stablehlo.floor %5 : tensor<2x3xf32>
// CHECK-NEXT:    %7 = stablehlo.log %6 : tensor<2x3xf32>
// CHECK-NEXT:    %8 = stablehlo.log_plus_one %7 : tensor<2x3xf32>
// CHECK-NEXT:    %9 = stablehlo.logistic %8 : tensor<2x3xf32>
// CHECK-NEXT:    %10 = stablehlo.negate %9 : tensor<2x3xf32>
// CHECK-NEXT:    %11 = stablehlo.round_nearest_afz %10 : tensor<2x3xf32>
// CHECK-NEXT:    %12 = stablehlo.round_nearest_even %11 : tensor<2x3xf32>
// CHECK-NEXT:    %13 = stablehlo.rsqrt %12 : tensor<2x3xf32>
// CHECK-NEXT:    %14 = stablehlo.sign %13 : tensor<2x3xf32>
// CHECK-NEXT:    %15 = stablehlo.sine %14 : tensor<2x3xf32>
// CHECK-NEXT:    %16 = stablehlo.sqrt %15 : tensor<2x3xf32>
// CHECK-NEXT:    %17 = stablehlo.tan %16 : tensor<2x3xf32>
// CHECK-NEXT:    %18 = stablehlo.tanh %17 : tensor<2x3xf32>
// CHECK-NEXT:    func.return %18 : tensor<2x3xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() ({
// GENERIC:         %0 = "stablehlo.abs"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC:         %18 = "stablehlo.tanh"(%17) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:    "func.return"(%18) : (tensor<2x3xf32>) -> ()
// GENERIC-NEXT:  }) {function_type = (tensor<2x3xf32>) -> tensor<2x3xf32>, sym_name = "float_unary"} : () -> ()
func.func @float_unary(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.abs %x : tensor<2x3xf32>
  %1 = stablehlo.cbrt %0 : tensor<2x3xf32>
  %2 = stablehlo.ceil %1 : tensor<2x3xf32>
  %3 = stablehlo.cosine %2 : tensor<2x3xf32>
  %4 = stablehlo.exponential %3 : tensor<2x3xf32>
  %5 = stablehlo.exponential_minus_one %4 : tensor<2x3xf32>
  %6 = stablehlo.floor %5 : tensor<2x3xf32>
  %7 = stablehlo.log %6 : tensor<2x3xf32>
  %8 = stablehlo.log_plus_one %7 : tensor<2x3xf32>
  %9 = stablehlo.logistic %8 : tensor<2x3xf32>
  %10 = stablehlo.negate %9 : tensor<2x3xf32>
  %11 = stablehlo.round_nearest_afz %10 : tensor<2x3xf32>
  %12 = stablehlo.round_nearest_even %11 : tensor<2x3xf32>
  %13 = stablehlo.rsqrt %12 : tensor<2x3xf32>
  %14 = stablehlo.sign %13 : tensor<2x3xf32>
  %15 = stablehlo.sine %14 : tensor<2x3xf32>
  %16 = stablehlo.sqrt %15 : tensor<2x3xf32>
  %17 = stablehlo.tan %16 : tensor<2x3xf32>
  %18 = stablehlo.tanh %17 : tensor<2x3xf32>
  func.return %18 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @int_unary(%arg0: tensor<4xi32>, %arg1: tensor<4xi1>) -> tensor<4xi32> {
// CHECK-NEXT:    %0 = stablehlo.count_leading_zeros %arg0 : tensor<4xi32>
// CHECK-NEXT:    %1 = stablehlo.popcnt %0 : tensor<4xi32>
// CHECK-NEXT:    %2 = stablehlo.not %1 : tensor<4xi32>
// CHECK-NEXT:    %3 = stablehlo.not %arg1 : tensor<4xi1>
// CHECK-NEXT:    %4 = stablehlo.abs %2 : tensor<4xi32>
// CHECK-NEXT:    %5 = stablehlo.negate %4 : tensor<4xi32>
// CHECK-NEXT:    %6 = stablehlo.sign %5 : tensor<4xi32>
// CHECK-NEXT:    func.return %6 : tensor<4xi32>
func.func @int_unary(%x: tensor<4xi32>, %p: tensor<4xi1>) -> tensor<4xi32> {
  %0 = stablehlo.count_leading_zeros %x : tensor<4xi32>
  %1 = stablehlo.popcnt %0 : tensor<4xi32>
  %2 = stablehlo.not %1 : tensor<4xi32>
  %3 = stablehlo.not %p : tensor<4xi1>
  %4 = stablehlo.abs %2 : tensor<4xi32>
  %5 = stablehlo.negate %4 : tensor<4xi32>
  %6 = stablehlo.sign %5 : tensor<4xi32>
  func.return %6 : tensor<4xi32>
}

// Ops whose result type differs from the operand type print a function type.
// CHECK-LABEL: func.func @type_changing
// CHECK-NEXT:    %0 = stablehlo.convert %arg0 : (tensor<4xi32>) -> tensor<4xf32>
// CHECK-NEXT:    %1 = stablehlo.is_finite %0 : (tensor<4xf32>) -> tensor<4xi1>
// CHECK-NEXT:    %2 = stablehlo.real %arg1 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
// CHECK-NEXT:    %3 = stablehlo.imag %arg1 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
// CHECK-NEXT:    %4 = stablehlo.abs %arg1 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
// CHECK-NEXT:    %5 = stablehlo.convert %arg2 : (tensor<4xbf16>) -> tensor<4xf32>
// CHECK-NEXT:    %6 = stablehlo.exponential %arg1 : tensor<4xcomplex<f32>>
// GENERIC-LABEL: sym_name = "int_unary"
// GENERIC:         %0 = "stablehlo.convert"(%arg0) : (tensor<4xi32>) -> tensor<4xf32>
// GENERIC-NEXT:    %1 = "stablehlo.is_finite"(%0) : (tensor<4xf32>) -> tensor<4xi1>
func.func @type_changing(%x: tensor<4xi32>, %c: tensor<4xcomplex<f32>>, %h: tensor<4xbf16>) -> tensor<4xi1> {
  %0 = stablehlo.convert %x : (tensor<4xi32>) -> tensor<4xf32>
  %1 = stablehlo.is_finite %0 : (tensor<4xf32>) -> tensor<4xi1>
  %2 = stablehlo.real %c : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %3 = stablehlo.imag %c : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %4 = stablehlo.abs %c : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %5 = "stablehlo.convert"(%h) : (tensor<4xbf16>) -> tensor<4xf32>
  %6 = "stablehlo.exponential"(%c) : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  func.return %1 : tensor<4xi1>
}

// A function type with equal types is accepted and printed short.
// CHECK-LABEL: func.func @fn_type_same
// CHECK-NEXT:    %0 = stablehlo.sqrt %arg0 : tensor<?xf64>
// CHECK-NEXT:    %1 = stablehlo.floor %0 {some.tag = "t"} : tensor<?xf64>
func.func @fn_type_same(%x: tensor<?xf64>) -> tensor<?xf64> {
  %0 = stablehlo.sqrt %x : (tensor<?xf64>) -> tensor<?xf64>
  %1 = stablehlo.floor %0 {some.tag = "t"} : tensor<?xf64>
  func.return %1 : tensor<?xf64>
}
