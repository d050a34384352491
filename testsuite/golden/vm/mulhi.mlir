// chlo.mulhi: the high half of the double-width product (the MULHI kernel).
// RUN: %tpurun -O0 --check %s | FileCheck %s
// RUN: %tpurun -O2 --check %s | FileCheck %s
// CHECK: checks: 5 passed, 0 failed
func.func @main() {
  %a = stablehlo.constant dense<[9223372036854775807, -9223372036854775808, -1, 3037000500]> : tensor<4xi64>
  %0 = chlo.mulhi %a, %a : tensor<4xi64>, tensor<4xi64> -> tensor<4xi64>
  check.expect_eq_const %0, dense<[4611686018427387903, 4611686018427387904, 0, 0]> : tensor<4xi64>
  %u = stablehlo.constant dense<[18446744073709551615, 4294967296]> : tensor<2xui64>
  %1 = chlo.mulhi %u, %u : tensor<2xui64>, tensor<2xui64> -> tensor<2xui64>
  check.expect_eq_const %1, dense<[18446744073709551614, 1]> : tensor<2xui64>
  %b = stablehlo.constant dense<[-2147483648, 65536, -7]> : tensor<3xi32>
  %2 = chlo.mulhi %b, %b : tensor<3xi32>, tensor<3xi32> -> tensor<3xi32>
  check.expect_eq_const %2, dense<[1073741824, 1, 0]> : tensor<3xi32>
  %c = stablehlo.constant dense<[7, -8, 5]> : tensor<3xi4>
  %d = stablehlo.constant dense<[7, 7, -3]> : tensor<3xi4>
  %3 = chlo.mulhi %c, %d : tensor<3xi4>, tensor<3xi4> -> tensor<3xi4>
  check.expect_eq_const %3, dense<[3, -4, -1]> : tensor<3xi4>
  %4 = "chlo.mulhi"(%b, %b) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  check.expect_eq %4, %2 : tensor<3xi32>
  func.return
}
