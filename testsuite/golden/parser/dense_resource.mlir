// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s --check-prefixes=CHECK,PRETTY
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | FileCheck %s --check-prefixes=CHECK,GENERIC
// RUN: %tpucc -O0 --emit=mlir %s | %tpucc -O0 --emit=mlir - | FileCheck %s --check-prefixes=CHECK,PRETTY
// dense_resource constants: the blob section is read (its first 4 bytes are
// the alignment) and written back after the module; __elided__ has no blob.

// PRETTY:      module @weights {
// PRETTY:      %0 = stablehlo.constant dense_resource<w0> : tensor<2xf32>
// GENERIC:     %0 = "stablehlo.constant"() {value = dense_resource<w0> : tensor<2xf32>} : () -> tensor<2xf32>
// CHECK:       dense_resource<bias> : tensor<2x2xi8>
// CHECK:       dense_resource<__elided__> : tensor<3xf32>
// CHECK:       {-#
// CHECK-NEXT:    dialect_resources: {
// CHECK-NEXT:      builtin: {
// CHECK-NEXT:        w0: "0x040000000000803F00000040",
// CHECK-NEXT:        bias: "0x0400000001020304"
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  #-}
// CHECK-NOT:   __elided__:
// GENERIC-NOT: array<
module @weights {
  func.func @main() -> tensor<2xf32> {
    %w = stablehlo.constant dense_resource<w0> : tensor<2xf32>
    %b = "stablehlo.constant"() {value = dense_resource<bias> : tensor<2x2xi8>} : () -> tensor<2x2xi8>
    %e = stablehlo.constant dense_resource<__elided__> : tensor<3xf32>
    %0 = stablehlo.add %w, %w : tensor<2xf32>
    func.return %0 : tensor<2xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      w0: "0x040000000000803F00000040",
      bias: "0x0400000001020304"
    }
  }
#-}
