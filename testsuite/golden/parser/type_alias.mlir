// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s
// RUN: %tpurun %s --input=2xf32=1,2 | FileCheck %s --check-prefix=EXEC
// Type aliases (!name = type) at the top level, before or inside the module,
// as MLIR writes them; their uses print as the aliased type.
// CHECK: func.func @main(%arg0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xi1>)
// CHECK: %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>
// CHECK: %1 = stablehlo.compare  GT, %0, %arg0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
// EXEC: result[0]: 2xf32=2 4
// EXEC: result[1]: 2xi1=true true
!vec = tensor<2xf32>
!mask = tensor<2xi1>
func.func @main(%a: !vec) -> (!vec, !mask) {
  %0 = stablehlo.add %a, %a : !vec
  %1 = stablehlo.compare GT, %0, %a : (!vec, !vec) -> !mask
  return %0, %1 : !vec, !mask
}
