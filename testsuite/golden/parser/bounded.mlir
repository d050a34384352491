// RUN: %tpucc --passes= --emit=mlir %s | FileCheck %s
// RUN: %tpucc --passes= --emit=mlir-generic %s | %tpucc --passes= --emit=mlir - | FileCheck %s
// Bounded dynamic dimensions keep their encoding through print and parse
// (the older #stablehlo.type_extensions<bounds = [...]> spelling is the same
// type, printed as #stablehlo.bounds as upstream does; docs/dynamic-shapes.md).

// CHECK-LABEL: func.func @bounded(%arg0: tensor<?x4xf32, #stablehlo.bounds<8, ?>>, %arg1: tensor<?xf32, #stablehlo.bounds<3>>)
// CHECK-NEXT:    %0 = stablehlo.abs %arg0 : tensor<?x4xf32, #stablehlo.bounds<8, ?>>
func.func @bounded(%x: tensor<?x4xf32, #stablehlo.bounds<8, ?>>, %y: tensor<?xf32, #stablehlo.type_extensions<bounds = [3]>>) -> tensor<?x4xf32, #stablehlo.bounds<8, ?>> {
  %0 = stablehlo.abs %x : tensor<?x4xf32, #stablehlo.bounds<8, ?>>
  func.return %0 : tensor<?x4xf32, #stablehlo.bounds<8, ?>>
}

// CHECK-LABEL: func.func @type_extensions
// CHECK-SAME: (%arg0: tensor<?x4xf32, #stablehlo.bounds<8, ?>>) -> tensor<?x4xf32, #stablehlo.bounds<8, ?>>
func.func @type_extensions(%a: tensor<?x4xf32, #stablehlo.type_extensions<bounds = [8, ?]>>) -> tensor<?x4xf32, #stablehlo.bounds<8, ?>> {
  func.return %a : tensor<?x4xf32, #stablehlo.type_extensions<bounds = [8, ?]>>
}
