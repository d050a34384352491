// stablehlo.set_dimension_size: parsed, verified and printed back in both
// forms (the dimension attribute, the bounded result type).
// RUN: %tpucc --emit=mlir %s -o - | FileCheck %s
// RUN: %tpucc --emit=mlir-generic %s -o - | FileCheck %s --check-prefix=GENERIC
// CHECK: stablehlo.set_dimension_size %arg0, %arg1, dim = 0 {{.*}}: (tensor<4xf32>, tensor<i32>) -> tensor<?xf32, #stablehlo.bounds<4>>
// GENERIC: "stablehlo.set_dimension_size"(%arg0, %arg1) {dimension = 0 : i64{{.*}}} : (tensor<4xf32>, tensor<i32>) -> tensor<?xf32, #stablehlo.bounds<4>>
func.func @main(%x: tensor<4xf32>, %n: tensor<i32>) -> tensor<?xf32, #stablehlo.bounds<4>> {
  %0 = stablehlo.set_dimension_size %x, %n, dim = 0 : (tensor<4xf32>, tensor<i32>) -> tensor<?xf32, #stablehlo.bounds<4>>
  func.return %0 : tensor<?xf32, #stablehlo.bounds<4>>
}
