// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s
// Locations (inline, aliases defined before and after use, fused, unknown) are read and dropped.
// CHECK-LABEL: module @m {
// CHECK: %0 = stablehlo.add %arg0, %arg0 : tensor<f32>
// CHECK-NEXT: %1 = stablehlo.multiply %0, %0 : tensor<f32>
// CHECK-NEXT: func.return %1 : tensor<f32>
#loc1 = loc("x.py":3:4)
#loc2 = loc("jit(f)/add"(#loc1))
module @m {
  func.func @f(%a: tensor<f32> loc("x.py":1:1)) -> tensor<f32> {
    %0 = stablehlo.add %a, %a : tensor<f32> loc(#loc2)
    %1 = "stablehlo.multiply"(%0, %0) : (tensor<f32>, tensor<f32>) -> tensor<f32> loc(fused[#loc1, "y"])
    return %1 : tensor<f32> loc(unknown)
  } loc(#loc1)
} loc(#loc)
#loc = loc(unknown)
