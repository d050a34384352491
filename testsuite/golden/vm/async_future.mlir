// stablehlo.async_start / async_done: a collective body becomes the
// collective-overlap pass's tpu.async_start / tpu.async_done pair (the VM
// starts it on the ICI, the done waits); a slice body runs in place of the
// start.  The values are those of the op run synchronously.
// RUN: %tpurun -O0 --check %s | FileCheck %s
// RUN: %tpurun -O2 --check %s | FileCheck %s
// RUN: %tpucc -O1 --emit=mlir %s | FileCheck %s --check-prefix=IR
// RUN: %tpucc -O0 --emit=asm %s | FileCheck %s --check-prefix=ASM
// CHECK: checks: 4 passed, 0 failed
// ASM: all_gather {{.*}} async
// ASM-NEXT: constant
// ASM-NEXT: async_done
// IR: tpu.async_start
// IR: stablehlo.all_gather
// IR: tpu.yield
// IR: tpu.async_done
// IR-NOT: stablehlo.async_
func.func @gather(%x: tensor<2xf32>) -> tensor<4xf32> {
  %f = "stablehlo.async_start"(%x) ({
  ^bb0(%a: tensor<2xf32>):
    %g = "stablehlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<4xf32>
    "stablehlo.return"(%g) : (tensor<4xf32>) -> ()
  }) : (tensor<2xf32>) -> !stablehlo.future<tensor<4xf32>>
  %one = stablehlo.constant dense<1.0> : tensor<4xf32>
  %r = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>
  %s = stablehlo.add %r, %one : tensor<4xf32>
  func.return %s : tensor<4xf32>
}
func.func @main() {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = stablehlo.constant dense<[3.0, 4.0]> : tensor<2xf32>
  %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@gather], [@gather]]} : (tensor<2xf32>, tensor<2xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  check.expect_eq_const %r#0, dense<[2.0, 3.0, 4.0, 5.0]> : tensor<4xf32>
  check.expect_eq_const %r#1, dense<[2.0, 3.0, 4.0, 5.0]> : tensor<4xf32>
  %x = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %f = "stablehlo.async_start"(%x) ({
  ^bb0(%v: tensor<4xi32>):
    %s = stablehlo.slice %v [1:3] : (tensor<4xi32>) -> tensor<2xi32>
    "stablehlo.return"(%s, %v) : (tensor<2xi32>, tensor<4xi32>) -> ()
  }) : (tensor<4xi32>) -> !stablehlo.future<tensor<2xi32>, tensor<4xi32>>
  %d:2 = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<2xi32>, tensor<4xi32>>) -> (tensor<2xi32>, tensor<4xi32>)
  check.expect_eq_const %d#0, dense<[2, 3]> : tensor<2xi32>
  check.expect_eq_const %d#1, dense<[1, 2, 3, 4]> : tensor<4xi32>
  func.return
}
