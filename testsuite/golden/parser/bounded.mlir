// RUN: %tpucc --passes= --emit=mlir %s | FileCheck %s
// RUN: %tpucc --passes= --emit=mlir-generic %s | %tpucc --passes= --emit=mlir - | FileCheck %s
// Bounded dynamic dimensions keep their encoding through print and parse
// (both spellings; docs/dynamic-shapes.md).

// CHECK-LABEL: func.func @bounded(%arg0: tensor<?x4xf32, #stablehlo.bounds<8, ?>>, %arg1: tensor<?xf32, #stablehlo.type_extensions<bounds = [3]>>)
// CHECK-NEXT:    %0 = stablehlo.abs %arg0 : tensor<?x4xf32, #stablehlo.bounds<8, ?>>
func.func @bounded(%x: tensor<?x4xf32, #stablehlo.bounds<8, ?>>, %y: tensor<?xf32, #stablehlo.type_extensions<bounds = [3]>>) -> tensor<?x4xf32, #stablehlo.bounds<8, ?>> {
  %0 = stablehlo.abs %x : tensor<?x4xf32, #stablehlo.bounds<8, ?>>
  func.return %0 : tensor<?x4xf32, #stablehlo.bounds<8, ?>>
}
