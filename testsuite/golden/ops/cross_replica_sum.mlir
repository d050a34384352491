// stablehlo.cross-replica-sum (deprecated; generic form only): the sum over
// each replica group, run on two replicas and on one.
// RUN: %tpurun --replicas=2 --check %s | FileCheck %s --implicit-check-not=FAIL
// RUN: %tpucc --emit=mlir %s -o - | FileCheck %s --check-prefix=IR
// CHECK: checks: 2 passed, 0 failed
// IR: "stablehlo.cross-replica-sum"(%{{.*}}) {replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>
func.func @main() {
  %x0 = stablehlo.constant dense<[1.5, -2.0]> : tensor<2xf32>
  %x = stablehlo.optimization_barrier %x0 : tensor<2xf32>
  %0 = "stablehlo.cross-replica-sum"(%x) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  check.expect_eq_const %0, dense<[3.0, -4.0]> : tensor<2xf32>
  func.return
}
