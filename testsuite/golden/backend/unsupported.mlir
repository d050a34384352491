// An op the single-chip back end cannot lower is an error (exit 2) with its
// location, and the program's later uses of its result do not crash the
// back end (they used to end in an internal error, exit 70).
// RUN: %tpucc --emit=asm %s 2>%t.err; test $? -eq 2
// RUN: FileCheck %s < %t.err
// CHECK: error: 'stablehlo.set_dimension_size' op 'stablehlo.set_dimension_size' is not supported by the tpurun back end
// CHECK-NOT: internal error
func.func @main(%a: tensor<4x2xf32>, %s: tensor<i32>) -> tensor<4x2xf32> {
  %0 = stablehlo.set_dimension_size %a, %s, dim = 0 : (tensor<4x2xf32>, tensor<i32>) -> tensor<4x2xf32>
  %1 = stablehlo.add %0, %0 : tensor<4x2xf32>
  return %1 : tensor<4x2xf32>
}
