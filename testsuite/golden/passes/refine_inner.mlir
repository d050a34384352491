// A program with static arguments whose inner shapes come from a
// dimension variable is refined too; shape operands that contradict a
// written result type are a located error.
// RUN: %tpurun %s --input=i64=4 --input=4xf32=1 | FileCheck %s
// RUN: %not %tpurun %s --input=i64=5 --input=4xf32=1 2>&1 | FileCheck %s --check-prefix=BAD
// CHECK: result[0]: 4xf32=1 2 3 4
// BAD: refine_inner.mlir:11:8: error: 'stablehlo.dynamic_reshape' op its shape operands give tensor<5xf32>, but its result type is tensor<4xf32>
func.func @main(%n: tensor<i64>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %s = stablehlo.reshape %n : (tensor<i64>) -> tensor<1xi64>
  %i = stablehlo.dynamic_iota %s, dim = 0 : (tensor<1xi64>) -> tensor<?xf32>
  %r = stablehlo.dynamic_reshape %i, %s : (tensor<?xf32>, tensor<1xi64>) -> tensor<4xf32>
  %y = stablehlo.add %x, %r : tensor<4xf32>
  return %y : tensor<4xf32>
}
