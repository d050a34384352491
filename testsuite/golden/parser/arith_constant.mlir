// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s
// RUN: %tpurun %s | FileCheck %s --check-prefix=EXEC
// arith.constant (which upstream StableHLO tests use for tensor constants)
// reads as stablehlo.constant, in pretty and generic form; a trailing comma
// in a dialect attribute's parameters is accepted as upstream does.
// CHECK: %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
// CHECK: %1 = stablehlo.constant dense<3> : tensor<2xi32>
// CHECK: channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>
// EXEC: result[0]: 2xi32=4 5
func.func @main() -> tensor<2xi32> {
  %0 = arith.constant dense<[1, 2]> : tensor<2xi32>
  %1 = "arith.constant"() {value = dense<3> : tensor<2xi32>} : () -> tensor<2xi32>
  %2 = stablehlo.add %0, %1 : tensor<2xi32>
  %3 = "stablehlo.all_reduce"(%2) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %s = stablehlo.add %a, %b : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0,>} : (tensor<2xi32>) -> tensor<2xi32>
  func.return %3 : tensor<2xi32>
}
