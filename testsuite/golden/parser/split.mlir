// RUN: %tpucc -O0 --emit=mlir --split-input-file %s | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir --split-input-file --emit=mlir-generic %s | FileCheck %s --check-prefix=GENERIC
// Each '// -----' chunk is its own module; the outputs are joined by the
// same separator.  The same names may be reused in every chunk.

// CHECK-LABEL: module {
// CHECK-NEXT:    func.func @first(%arg0: tensor<f32>) -> tensor<f32> {
// CHECK-NEXT:      %0 = stablehlo.abs %arg0 : tensor<f32>
// CHECK-NEXT:      func.return %0 : tensor<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  // -----
// GENERIC:       sym_name = "first"
// GENERIC:       // -----
func.func @first(%x: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.abs %x : tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

// CHECK-NEXT:  module @second {
// CHECK-NEXT:    func.func @first(%arg0: tensor<i32>) -> tensor<i32> {
// CHECK-NEXT:      %0 = stablehlo.negate %arg0 : tensor<i32>
// CHECK:       // -----
// GENERIC:       sym_name = "first"
// GENERIC:       sym_name = "second"
// GENERIC:       // -----
module @second {
  func.func @first(%x: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.negate %x : tensor<i32>
    func.return %0 : tensor<i32>
  }
}

// -----
// An empty chunk is an empty module.
// CHECK-NEXT:  module {
// CHECK-NEXT:  }
// CHECK-NEXT:  // -----
// CHECK-NEXT:  module {
// CHECK-NEXT:    func.func @last() {
// CHECK-NEXT:      func.return
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NOT:   // -----
// GENERIC:       "builtin.module"() ({
// GENERIC-NEXT:  ^bb0:
// GENERIC-NEXT:  }) : () -> ()

// -----
func.func @last() {
  func.return
}
