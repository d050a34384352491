// torch_index_select expands to a gather (the expand pass, every -O level).
// RUN: %tpurun -O0 --check %s | FileCheck %s
// RUN: %tpurun -O2 --check %s | FileCheck %s
// CHECK: checks: 2 passed, 0 failed
func.func @main() {
  %x = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %i = stablehlo.constant dense<[2, 0, 2, 1]> : tensor<4xi32>
  %0 = "stablehlo.torch_index_select"(%x, %i) {dim = 1 : i64, batch_dims = 0 : i64} : (tensor<2x3xi32>, tensor<4xi32>) -> tensor<2x4xi32>
  check.expect_eq_const %0, dense<[[3, 1, 3, 2], [6, 4, 6, 5]]> : tensor<2x4xi32>
  // batch_dims = 1: row b picks from row b of x with index row b.
  %j = stablehlo.constant dense<[[2, 2], [0, 1]]> : tensor<2x2xi32>
  %1 = "stablehlo.torch_index_select"(%x, %j) {dim = 1 : i64, batch_dims = 1 : i64} : (tensor<2x3xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %1, dense<[[3, 3], [4, 5]]> : tensor<2x2xi32>
  func.return
}
