// canonicalize folds a reduce of one integer, f32 or f64 input whose body
// is one add, multiply, maximum, minimum, and, or or xor of its arguments,
// in the VM's order (row-major, acc = op(acc, x), one rounding per step:
// 1 + 1e8 - 1e8 is 0 in f32, not 1 as a pairwise or exact sum gives); bf16
// reduces (the VM may accumulate in f32) and bodies of more than one op
// stay.  The -O0 RUN checks the same values computed by the VM (no folding).
// RUN: %tpucc --passes=canonicalize --emit=mlir %s | FileCheck %s
// RUN: %tpurun -O0 --check %s | FileCheck %s --check-prefix=EXEC --implicit-check-not=FAIL
// RUN: %tpurun --check %s | FileCheck %s --check-prefix=EXEC --implicit-check-not=FAIL
// EXEC: checks: 11 passed, 0 failed

// CHECK-LABEL: func.func @ints
// CHECK-NEXT: %0 = stablehlo.constant dense<[6, 15]> : tensor<2xi32>
// CHECK-NEXT: check.expect_eq_const %0
// CHECK-NEXT: %1 = stablehlo.constant dense<[-128, -32]> : tensor<2xi8>
// CHECK-NEXT: check.expect_eq_const %1
// CHECK-NEXT: %2 = stablehlo.constant dense<[3, 6]> : tensor<2xui8>
// CHECK-NEXT: check.expect_eq_const %2
// CHECK-NEXT: %3 = stablehlo.constant dense<[51, 250]> : tensor<2xui8>
// CHECK-NEXT: check.expect_eq_const %3
// CHECK-NEXT: %4 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
// CHECK-NEXT: check.expect_eq_const %4
// CHECK-NEXT: %5 = stablehlo.constant dense<7> : tensor<i64>
// CHECK-NEXT: check.expect_eq_const %5
// CHECK-NEXT: func.return
func.func @ints() {
  %a = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>
  check.expect_eq_const %0, dense<[6, 15]> : tensor<2xi32>
  %b = stablehlo.constant dense<[[16, 8], [-2, 6], [4, 10]]> : tensor<3x2xi8>
  %one = stablehlo.constant dense<1> : tensor<i8>
  %1 = stablehlo.reduce(%b init: %one) applies stablehlo.multiply across dimensions = [0] : (tensor<3x2xi8>, tensor<i8>) -> tensor<2xi8>
  check.expect_eq_const %1, dense<[-128, -32]> : tensor<2xi8>
  %u = stablehlo.constant dense<[[4, 200], [3, 6]]> : tensor<2x2xui8>
  %m = stablehlo.constant dense<255> : tensor<ui8>
  %2 = stablehlo.reduce(%u init: %m) applies stablehlo.minimum across dimensions = [0] : (tensor<2x2xui8>, tensor<ui8>) -> tensor<2xui8>
  check.expect_eq_const %2, dense<[3, 6]> : tensor<2xui8>
  %3 = stablehlo.reduce(%u init: %m) applies stablehlo.xor across dimensions = [1] : (tensor<2x2xui8>, tensor<ui8>) -> tensor<2xui8>
  check.expect_eq_const %3, dense<[51, 250]> : tensor<2xui8>
  %p = stablehlo.constant dense<[[true, true], [false, true]]> : tensor<2x2xi1>
  %t = stablehlo.constant dense<true> : tensor<i1>
  %4 = stablehlo.reduce(%p init: %t) applies stablehlo.and across dimensions = [1] : (tensor<2x2xi1>, tensor<i1>) -> tensor<2xi1>
  check.expect_eq_const %4, dense<[true, false]> : tensor<2xi1>
  %w = stablehlo.constant dense<[[1, 7], [3, 2]]> : tensor<2x2xi64>
  %lo = stablehlo.constant dense<-9223372036854775808> : tensor<i64>
  %5 = stablehlo.reduce(%w init: %lo) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<2x2xi64>, tensor<i64>) -> tensor<i64>
  check.expect_eq_const %5, dense<7> : tensor<i64>
  func.return
}

// CHECK-LABEL: func.func @floats
// CHECK-NEXT: %0 = stablehlo.constant dense<0.0e+00> : tensor<f32>
// CHECK-NEXT: check.expect_eq_const %0
// CHECK-NEXT: %1 = stablehlo.constant dense<[0.0e+00, 0.0e+00]> : tensor<2xf32>
// CHECK-NEXT: check.expect_eq_const %1
// CHECK-NEXT: %2 = stablehlo.constant dense<[6.0e+00, 6.000000000000001e-03]> : tensor<2xf64>
// CHECK-NEXT: check.expect_eq_const %2
// CHECK-NEXT: func.return
func.func @floats() {
  %f = stablehlo.constant dense<[1.0, 1.0e8, -1.0e8]> : tensor<3xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%f init: %z) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
  check.expect_eq_const %0, dense<0.0> : tensor<f32>
  %g = stablehlo.constant dense<[[1.0, 1.0e8], [1.0e8, 1.0], [-1.0e8, -1.0e8]]> : tensor<3x2xf32>
  %1 = stablehlo.reduce(%g init: %z) applies stablehlo.add across dimensions = [0] : (tensor<3x2xf32>, tensor<f32>) -> tensor<2xf32>
  check.expect_eq_const %1, dense<[0.0, 0.0]> : tensor<2xf32>
  %h = stablehlo.constant dense<[[1.0, 2.0, 3.0], [0.1, 0.2, 0.3]]> : tensor<2x3xf64>
  %one = stablehlo.constant dense<1.0> : tensor<f64>
  %2 = stablehlo.reduce(%h init: %one) applies stablehlo.multiply across dimensions = [1] : (tensor<2x3xf64>, tensor<f64>) -> tensor<2xf64>
  check.expect_eq_const %2, dense<[6.0, 0.006000000000000001]> : tensor<2xf64>
  func.return
}

// CHECK-LABEL: func.func @kept
// CHECK: stablehlo.reduce
// CHECK: stablehlo.reduce
func.func @kept() {
  %f = stablehlo.constant dense<[1.0, 256.0, -256.0]> : tensor<3xbf16>
  %z = stablehlo.constant dense<0.0> : tensor<bf16>
  %0 = stablehlo.reduce(%f init: %z) applies stablehlo.add across dimensions = [0] : (tensor<3xbf16>, tensor<bf16>) -> tensor<bf16>
  check.expect_eq_const %0, dense<0.0> : tensor<bf16>
  %a = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %zi = stablehlo.constant dense<0> : tensor<i32>
  %1 = stablehlo.reduce(%a init: %zi) across dimensions = [0] : (tensor<3xi32>, tensor<i32>) -> tensor<i32>
   reducer(%x: tensor<i32>, %y: tensor<i32>) {
    %s = stablehlo.add %x, %y : tensor<i32>
    %d = stablehlo.add %s, %y : tensor<i32>
    stablehlo.return %d : tensor<i32>
  }
  check.expect_eq_const %1, dense<12> : tensor<i32>
  func.return
}
