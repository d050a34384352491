// An infeed that no interpreter.run_parallel queue feeds is a runtime
// error: tpurun exits 4 (tpurun has no host infeed).
// RUN: %tpurun --check %s 2>%t.err; test $? -eq 4
// RUN: FileCheck %s < %t.err
// CHECK: error: 'stablehlo.infeed' op stablehlo.infeed ran without an infeed queue
func.func @main() {
  %t = stablehlo.after_all : !stablehlo.token
  %a:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
  check.expect_eq_const %a#0, dense<[5, 6]> : tensor<2xi64>
  func.return
}
