// Shape assertions in any program: canonicalize (-O1, -O2) drops a
// constant-true one and reports a constant-false one at compile time; at
// -O0 the false one ends the run with exit 4 and the same message.
// RUN: %not %tpucc %s --emit=mlir 2>&1 | FileCheck %s --check-prefix=O2
// RUN: %tpucc %s -O0 --emit=mlir | FileCheck %s --check-prefix=O0
// RUN: %not %tpurun %s -O0 --input=random 2>&1 | FileCheck %s --check-prefix=TRAP
// RUN: %tpurun %s -O0 --input=random; test $? -eq 4
// RUN: sed '/%%bad/d' %s | %tpucc - --emit=mlir | FileCheck %s --check-prefix=TRUE

// O2: refine_assertion_static.mlir:23:3: error: 'stablehlo.custom_call' op shape assertion failed: 3 > 4 fails
// O2-NOT: error:
// TRUE-NOT: shape_assertion
// TRUE: func.return
// O0: stablehlo.custom_call @shape_assertion
// O0-SAME: "fine {0}"
// TRAP: refine_assertion_static.mlir:23:3: error: 'stablehlo.custom_call' op shape assertion failed: 3 > 4 fails
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %a = stablehlo.constant dense<3> : tensor<i64>
  %b = stablehlo.constant dense<4> : tensor<i64>
  %ok = stablehlo.compare LT, %a, %b, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %bad = stablehlo.compare GT, %a, %b, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%ok, %a) {error_message = "fine {0}", has_side_effect = true} : (tensor<i1>, tensor<i64>) -> ()
  stablehlo.custom_call @shape_assertion(%bad, %a, %b) {error_message = "{0} > {1} fails", has_side_effect = true} : (tensor<i1>, tensor<i64>, tensor<i64>) -> ()
  return %x : tensor<3xf32>
}
