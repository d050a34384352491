// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | %tpucc -O0 --emit=mlir - | FileCheck %s
// while (pretty and generic), if, case, optimization_barrier.

// CHECK-LABEL: func.func @while_loop(%arg0: tensor<i64>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %0 = stablehlo.constant dense<0> : tensor<i64>
// CHECK-NEXT:    %1 = stablehlo.constant dense<1> : tensor<i64>
// CHECK-NEXT:    %2:2 = stablehlo.while(%arg2 = %0, %arg3 = %arg1) : tensor<i64>, tensor<4xf32>
// CHECK-NEXT:     cond {
// CHECK-NEXT:      %3 = stablehlo.compare LT, %arg2, %arg0 : (tensor<i64>, tensor<i64>) -> tensor<i1>
// CHECK-NEXT:      stablehlo.return %3 : tensor<i1>
// CHECK-NEXT:    } do {
// CHECK-NEXT:      %4 = stablehlo.add %arg2, %1 : tensor<i64>
// CHECK-NEXT:      %5 = stablehlo.multiply %arg3, %arg3 : tensor<4xf32>
// CHECK-NEXT:      stablehlo.return %4, %5 : tensor<i64>, tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %2#1 : tensor<4xf32>
// GENERIC-LABEL: "func.func"() ({
// GENERIC:         %2:2 = "stablehlo.while"(%0, %arg1) ({
// GENERIC-NEXT:    ^bb0(%arg2: tensor<i64>, %arg3: tensor<4xf32>):
// GENERIC-NEXT:      %3 = "stablehlo.compare"(%arg2, %arg0) {comparison_direction = #stablehlo<"comparison_direction LT">} : (tensor<i64>, tensor<i64>) -> tensor<i1>
// GENERIC-NEXT:      "stablehlo.return"(%3) : (tensor<i1>) -> ()
// GENERIC-NEXT:    }, {
// GENERIC-NEXT:    ^bb0(%arg4: tensor<i64>, %arg5: tensor<4xf32>):
// GENERIC:         }) : (tensor<i64>, tensor<4xf32>) -> (tensor<i64>, tensor<4xf32>)
func.func @while_loop(%n: tensor<i64>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %r:2 = stablehlo.while(%i = %c0, %acc = %x) : tensor<i64>, tensor<4xf32>
   cond {
    %lt = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %i1 = stablehlo.add %i, %c1 : tensor<i64>
    %a1 = stablehlo.multiply %acc, %acc : tensor<4xf32>
    stablehlo.return %i1, %a1 : tensor<i64>, tensor<4xf32>
  }
  func.return %r#1 : tensor<4xf32>
}

// A generic while with differently named region arguments prints pretty;
// attributes go after the loop variables.
// CHECK-LABEL: func.func @generic_while
// CHECK-NEXT:    %0 = stablehlo.while(%arg1 = %arg0) attributes {mhlo.frontend_attributes = {x = "y"}} : tensor<i32>
// CHECK-NEXT:     cond {
// CHECK-NEXT:      %1 = stablehlo.compare LT, %arg1, %arg1 : (tensor<i32>, tensor<i32>) -> tensor<i1>
// CHECK-NEXT:      stablehlo.return %1 : tensor<i1>
// CHECK-NEXT:    } do {
// CHECK-NEXT:      stablehlo.return %arg1 : tensor<i32>
// CHECK-NEXT:    }
func.func @generic_while(%x: tensor<i32>) -> tensor<i32> {
  %0 = "stablehlo.while"(%x) ({
  ^bb0(%c: tensor<i32>):
    %p = stablehlo.compare LT, %c, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }, {
  ^bb0(%b: tensor<i32>):
    stablehlo.return %b : tensor<i32>
  }) {mhlo.frontend_attributes = {x = "y"}} : (tensor<i32>) -> tensor<i32>
  func.return %0 : tensor<i32>
}

// CHECK-LABEL: func.func @if_case
// CHECK-NEXT:    %0:2 = "stablehlo.if"(%arg0) ({
// CHECK-NEXT:      %1 = stablehlo.negate %arg2 : tensor<2xf32>
// CHECK-NEXT:      stablehlo.return %1, %arg2 : tensor<2xf32>, tensor<2xf32>
// CHECK-NEXT:    }, {
// CHECK-NEXT:      stablehlo.return %arg2, %arg2 : tensor<2xf32>, tensor<2xf32>
// CHECK-NEXT:    }) : (tensor<i1>) -> (tensor<2xf32>, tensor<2xf32>)
// CHECK-NEXT:    %2 = "stablehlo.case"(%arg1) ({
// CHECK-NEXT:      stablehlo.return %0#0 : tensor<2xf32>
// CHECK-NEXT:    }, {
// CHECK-NEXT:      stablehlo.return %0#1 : tensor<2xf32>
// CHECK-NEXT:    }, {
// CHECK-NEXT:      %3 = stablehlo.abs %arg2 : tensor<2xf32>
// CHECK-NEXT:      stablehlo.return %3 : tensor<2xf32>
// CHECK-NEXT:    }) : (tensor<i32>) -> tensor<2xf32>
// CHECK-NEXT:    "stablehlo.if"(%arg0) ({
// CHECK-NEXT:      stablehlo.return
// CHECK-NEXT:    }, {
// CHECK-NEXT:      stablehlo.return
// CHECK-NEXT:    }) : (tensor<i1>) -> ()
// CHECK-NEXT:    func.return %2 : tensor<2xf32>
// GENERIC-LABEL: sym_name = "generic_while"
// GENERIC:         %0:2 = "stablehlo.if"(%arg0) ({
// GENERIC-NEXT:      %1 = "stablehlo.negate"(%arg2) : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT:      "stablehlo.return"(%1, %arg2) : (tensor<2xf32>, tensor<2xf32>) -> ()
func.func @if_case(%p: tensor<i1>, %i: tensor<i32>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %t, %f = "stablehlo.if"(%p) ({
    %n = stablehlo.negate %x : tensor<2xf32>
    stablehlo.return %n, %x : tensor<2xf32>, tensor<2xf32>
  }, {
    stablehlo.return %x, %x : tensor<2xf32>, tensor<2xf32>
  }) : (tensor<i1>) -> (tensor<2xf32>, tensor<2xf32>)
  %c = "stablehlo.case"(%i) ({
    stablehlo.return %t : tensor<2xf32>
  }, {
    stablehlo.return %f : tensor<2xf32>
  }, {
    %a = stablehlo.abs %x : tensor<2xf32>
    stablehlo.return %a : tensor<2xf32>
  }) : (tensor<i32>) -> tensor<2xf32>
  "stablehlo.if"(%p) ({
    "stablehlo.return"() : () -> ()
  }, {
    stablehlo.return
  }) : (tensor<i1>) -> ()
  func.return %c : tensor<2xf32>
}

// CHECK-LABEL: func.func @barrier
// CHECK-NEXT:    %0:2 = stablehlo.optimization_barrier %arg0, %arg1 : tensor<2xf32>, tensor<i32>
// CHECK-NEXT:    %1 = stablehlo.optimization_barrier %0#0 : tensor<2xf32>
// CHECK-NEXT:    func.return %1 : tensor<2xf32>
// GENERIC:         %0:2 = "stablehlo.optimization_barrier"(%arg0, %arg1) : (tensor<2xf32>, tensor<i32>) -> (tensor<2xf32>, tensor<i32>)
func.func @barrier(%x: tensor<2xf32>, %i: tensor<i32>) -> tensor<2xf32> {
  %0:2 = stablehlo.optimization_barrier %x, %i : tensor<2xf32>, tensor<i32>
  %1 = "stablehlo.optimization_barrier"(%0#0) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %1 : tensor<2xf32>
}
