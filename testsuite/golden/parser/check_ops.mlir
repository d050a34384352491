// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | %tpucc -O0 --emit=mlir - | FileCheck %s
// The check and interpreter dialects of StableHLO's test programs.

// CHECK-LABEL: func.func @checks
// CHECK-NEXT:    %0 = stablehlo.constant dense<[-2, 0, 2]> : tensor<3xi64>
// CHECK-NEXT:    check.expect_eq %0, %0 : tensor<3xi64>
// CHECK-NEXT:    check.expect_eq_const %0, dense<[-2, 0, 2]> : tensor<3xi64>
// CHECK-NEXT:    %1 = stablehlo.constant dense<5.0e+00> : tensor<f64>
// CHECK-NEXT:    check.expect_almost_eq %1, %1 : tensor<f64>
// CHECK-NEXT:    check.expect_almost_eq %1, %1, tolerance = 1.0e-03 : tensor<f64>
// CHECK-NEXT:    check.expect_almost_eq_const %1, dense<5.0001e+00> : tensor<f64>
// CHECK-NEXT:    check.expect_almost_eq_const %1, dense<5.0e+00> : tensor<f64>, tolerance = 1.0e-01
// CHECK-NEXT:    check.expect_close %1, %1, max_ulp_difference = 3 : tensor<f64>, tensor<f64>
// CHECK-NEXT:    check.expect_close %1, %1, max_ulp_difference = 3, min_ulp_difference = 1 : tensor<f64>, tensor<f64>
// CHECK-NEXT:    %2 = interpreter.probe %0, probe_id = "probe0" : tensor<3xi64>
// CHECK-NEXT:    check.expect_serialized_eq %2, probe_id = "probe0" : tensor<3xi64>
// CHECK-NEXT:    check.expect_serialized_eq %2, probe_id = "probe0", iter = 1 : tensor<3xi64>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() ({
// GENERIC:         "check.expect_eq"(%0, %0) : (tensor<3xi64>, tensor<3xi64>) -> ()
// GENERIC-NEXT:    "check.expect_eq_const"(%0) {value = dense<[-2, 0, 2]> : tensor<3xi64>} : (tensor<3xi64>) -> ()
// GENERIC:         "check.expect_almost_eq"(%1, %1) {tolerance = 1.0e-03 : f64} : (tensor<f64>, tensor<f64>) -> ()
// GENERIC:         "check.expect_close"(%1, %1) {max_ulp_difference = 3 : ui64, min_ulp_difference = 1 : ui64} : (tensor<f64>, tensor<f64>) -> ()
// GENERIC-NEXT:    %2 = "interpreter.probe"(%0) {probe_id = "probe0"} : (tensor<3xi64>) -> tensor<3xi64>
// GENERIC:         "check.expect_serialized_eq"(%2) {iter = 1 : i64, probe_id = "probe0"} : (tensor<3xi64>) -> ()
func.func @checks() {
  %a = stablehlo.constant dense<[-2, 0, 2]> : tensor<3xi64>
  check.expect_eq %a, %a : tensor<3xi64>
  check.expect_eq_const %a, dense<[-2, 0, 2]> : tensor<3xi64>
  %f = stablehlo.constant dense<5.0000> : tensor<f64>
  check.expect_almost_eq %f, %f : tensor<f64>
  check.expect_almost_eq %f, %f, tolerance = 0.001 : tensor<f64>
  check.expect_almost_eq_const %f, dense<5.0001> : tensor<f64>
  check.expect_almost_eq_const %f, dense<5.0> : tensor<f64>, tolerance = 0.1
  check.expect_close %f, %f, max_ulp_difference = 3 : tensor<f64>, tensor<f64>
  check.expect_close %f, %f, max_ulp_difference = 3, min_ulp_difference = 1 : tensor<f64>, tensor<f64>
  %p = interpreter.probe %a, probe_id = "probe0" : tensor<3xi64>
  check.expect_serialized_eq %p, probe_id = "probe0" : tensor<3xi64>
  check.expect_serialized_eq %p, probe_id = "probe0", iter = 1 : tensor<3xi64>
  func.return
}

// The custom_call spelling of checks (as StableHLO's testdata writes them).
// CHECK-LABEL: func.func @custom_call_checks
// CHECK-NEXT:    %0 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
// CHECK-NEXT:    stablehlo.custom_call @check.expect_eq(%0, %0) {has_side_effect = true} : (tensor<2xi1>, tensor<2xi1>) -> ()
func.func @custom_call_checks() {
  %0 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  stablehlo.custom_call @check.expect_eq(%0, %0) {has_side_effect = true} : (tensor<2xi1>, tensor<2xi1>) -> ()
  func.return
}
