// canonicalize: get_dimension_size of a static dimension folds to a
// constant tensor<i32>; of a dynamic dimension it stays.
// RUN: %tpucc --passes=canonicalize --verify-each --emit=mlir --split-input-file %s | FileCheck %s
// RUN: sed -n '1,/^\/\/ -----$/p' %s > %t.mlir
// RUN: %tpurun -O2 %t.mlir --input=random --input=random | FileCheck %s --check-prefix=EXEC
// RUN: %tpurun -O0 %t.mlir --input=random --input=random | FileCheck %s --check-prefix=EXEC

// CHECK-LABEL: func.func @main
// CHECK-DAG: %[[D0:.*]] = stablehlo.constant dense<3> : tensor<i32>
// CHECK-DAG: %[[D1:.*]] = stablehlo.constant dense<5> : tensor<i32>
// CHECK-NOT: get_dimension_size
// CHECK: func.return %[[D0]], %[[D1]]
// EXEC: result[0]: i32=3
// EXEC: result[1]: i32=5
func.func @main(%x: tensor<3x5xf32>, %y: tensor<0x7xi8>) -> (tensor<i32>, tensor<i32>) {
  %0 = stablehlo.get_dimension_size %x, dim = 0 : (tensor<3x5xf32>) -> tensor<i32>
  %1 = stablehlo.get_dimension_size %x, dim = 1 : (tensor<3x5xf32>) -> tensor<i32>
  return %0, %1 : tensor<i32>, tensor<i32>
}

// -----

// A zero-sized dimension folds too; a dynamic one does not.
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[Z:.*]] = stablehlo.constant dense<0> : tensor<i32>
// CHECK: %[[D:.*]] = stablehlo.get_dimension_size %arg1, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
// CHECK: func.return %[[Z]], %[[D]]
func.func @dynamic(%x: tensor<0x7xi8>, %y: tensor<?x4xf32>) -> (tensor<i32>, tensor<i32>) {
  %0 = stablehlo.get_dimension_size %x, dim = 0 : (tensor<0x7xi8>) -> tensor<i32>
  %1 = stablehlo.get_dimension_size %y, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  return %0, %1 : tensor<i32>, tensor<i32>
}
