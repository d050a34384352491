// check.expect_close's ULP bounds are unsigned 64-bit (upstream's UI64Attr):
// 18446744073709551615 is the distance of a NaN or infinity from a finite
// value, and max_ulp_difference defaults to 1 in the generic form.
// RUN: %tpurun --check %s | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s --check-prefix=PRINT
// CHECK-COUNT-3: PASS expect_close
// CHECK: checks: 3 passed, 0 failed
// PRINT: check.expect_close %{{.*}}, max_ulp_difference = 18446744073709551615, min_ulp_difference = 18446744073709551615 : tensor<3xf32>, tensor<3xf32>
func.func @main() {
  %a = stablehlo.constant dense<[0x7FC00000, 0x7F800000, 1.0]> : tensor<3xf32>
  %b = stablehlo.constant dense<[1.0, 2.0, 0xFF800000]> : tensor<3xf32>
  check.expect_close %a, %b, max_ulp_difference = 18446744073709551615, min_ulp_difference = 18446744073709551615 : tensor<3xf32>, tensor<3xf32>
  %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %d = stablehlo.constant dense<[1.0000001, 2.0]> : tensor<2xf32>
  "check.expect_close"(%c, %d) : (tensor<2xf32>, tensor<2xf32>) -> ()
  check.expect_close %c, %c, max_ulp_difference = 0 : tensor<2xf32>, tensor<2xf32>
  func.return
}
