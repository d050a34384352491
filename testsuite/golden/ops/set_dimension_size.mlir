// stablehlo.set_dimension_size: parsed, verified and printed back in both
// forms (the dimension attribute, the bounded result type), and run: the
// result keeps the first N elements, N clamped to 0..the bound (4).
// RUN: %tpucc --passes= --emit=mlir %s -o - | FileCheck %s
// RUN: %tpucc --passes= --emit=mlir-generic %s -o - | FileCheck %s --check-prefix=GENERIC
// RUN: %tpurun %s --input=4xf32=1,2,3,4 --input=i32=3 | FileCheck %s --check-prefix=THREE
// RUN: %tpurun %s --input=4xf32=1,2,3,4 --input=i32=9 | FileCheck %s --check-prefix=CLAMPED
// RUN: %tpurun %s --input=4xf32=1,2,3,4 --input=i32=-2 | FileCheck %s --check-prefix=EMPTY
// CHECK: stablehlo.set_dimension_size %arg0, %arg1, dim = 0 {{.*}}: (tensor<4xf32>, tensor<i32>) -> tensor<?xf32, #stablehlo.bounds<4>>
// GENERIC: "stablehlo.set_dimension_size"(%arg0, %arg1) {dimension = 0 : i64{{.*}}} : (tensor<4xf32>, tensor<i32>) -> tensor<?xf32, #stablehlo.bounds<4>>
// THREE: result[0]: 3xf32=1 2 3
// CLAMPED: result[0]: 4xf32=1 2 3 4
// EMPTY: result[0]: 0xf32={{$}}
func.func @main(%x: tensor<4xf32>, %n: tensor<i32>) -> tensor<?xf32, #stablehlo.bounds<4>> {
  %0 = stablehlo.set_dimension_size %x, %n, dim = 0 : (tensor<4xf32>, tensor<i32>) -> tensor<?xf32, #stablehlo.bounds<4>>
  func.return %0 : tensor<?xf32, #stablehlo.bounds<4>>
}
