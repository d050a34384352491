// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | %tpucc -O0 --emit=mlir - | FileCheck %s
// Modules, functions and calls: names, visibility, argument and result
// attributes, function attributes, declarations, short op names.

// CHECK:       module @jit_fn attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
// GENERIC:     "builtin.module"() ({
module @jit_fn attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32, jax.uses_shape_polymorphism = false} {
  // CHECK-NEXT:  func.func public @main(%arg0: tensor<2xf32> {jax.arg_info = "x", mhlo.sharding = "{replicated}"}, %arg1: tensor<i32>) -> (tensor<2xf32> {jax.result_info = ""}) {
  // CHECK-NEXT:    %0 = func.call @helper(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
  // CHECK-NEXT:    %1:2 = func.call @two(%0, %arg1) : (tensor<2xf32>, tensor<i32>) -> (tensor<2xf32>, tensor<i32>)
  // CHECK-NEXT:    func.call @nothing() : () -> ()
  // CHECK-NEXT:    func.return %1#0 : tensor<2xf32>
  // CHECK-NEXT:  }
  // GENERIC:       %0 = "func.call"(%arg0) {callee = @helper} : (tensor<2xf32>) -> tensor<2xf32>
  // GENERIC-NEXT:  %1:2 = "func.call"(%0, %arg1) {callee = @two} : (tensor<2xf32>, tensor<i32>) -> (tensor<2xf32>, tensor<i32>)
  // GENERIC-NEXT:  "func.call"() {callee = @nothing} : () -> ()
  // GENERIC-NEXT:  "func.return"(%1#0) : (tensor<2xf32>) -> ()
  // GENERIC-NEXT: }) {arg_attrs = [{jax.arg_info = "x", mhlo.sharding = "{replicated}"}, {}], function_type = (tensor<2xf32>, tensor<i32>) -> tensor<2xf32>, res_attrs = [{jax.result_info = ""}], sym_name = "main", sym_visibility = "public"} : () -> ()
  func.func public @main(%x: tensor<2xf32> {mhlo.sharding = "{replicated}", jax.arg_info = "x"}, %i: tensor<i32>) -> (tensor<2xf32> {jax.result_info = ""}) {
    %0 = call @helper(%x) : (tensor<2xf32>) -> tensor<2xf32>
    %1:2 = func.call @two(%0, %i) : (tensor<2xf32>, tensor<i32>) -> (tensor<2xf32>, tensor<i32>)
    call @nothing() : () -> ()
    return %1#0 : tensor<2xf32>
  }
  // CHECK-NEXT:  func.func private @helper(%arg0: tensor<2xf32>) -> tensor<2xf32> attributes {llvm.emit_c_interface} {
  // CHECK-NEXT:    func.return %arg0 : tensor<2xf32>
  // GENERIC:     }) {function_type = (tensor<2xf32>) -> tensor<2xf32>, llvm.emit_c_interface, sym_name = "helper", sym_visibility = "private"} : () -> ()
  func.func private @helper(%y: tensor<2xf32>) -> tensor<2xf32> attributes {llvm.emit_c_interface} {
    return %y : tensor<2xf32>
  }
  // CHECK:       func.func @two(%arg0: tensor<2xf32>, %arg1: tensor<i32>) -> (tensor<2xf32>, tensor<i32>) {
  func.func @two(%a: tensor<2xf32>, %b: tensor<i32>) -> (tensor<2xf32>, tensor<i32>) {
    func.return %a, %b : tensor<2xf32>, tensor<i32>
  }
  // A declaration has no body; "nested" visibility is kept.
  // CHECK:       func.func private @nothing()
  // CHECK-NEXT:  func.func nested @inner() {
  // GENERIC:     }) {function_type = () -> (), sym_name = "nothing", sym_visibility = "private"} : () -> ()
  func.func private @nothing()
  func.func nested @inner() {
    func.return
  }
}
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// CHECK-NEXT: }
// GENERIC:    }) {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32, sym_name = "jit_fn"} : () -> ()
