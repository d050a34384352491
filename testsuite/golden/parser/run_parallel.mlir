// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: %tpucc -O0 --emit=mlir %s | %tpucc -O0 --emit=mlir - | FileCheck %s
// interpreter.run_parallel and the collective and process ops it runs.

// CHECK-LABEL: func.func @ids() -> (tensor<ui32>, tensor<ui32>) {
// CHECK-NEXT:    %0 = stablehlo.partition_id : tensor<ui32>
// CHECK-NEXT:    %1 = stablehlo.replica_id : tensor<ui32>
// GENERIC:         %0 = "stablehlo.partition_id"() : () -> tensor<ui32>
func.func @ids() -> (tensor<ui32>, tensor<ui32>) {
  %0 = stablehlo.partition_id : tensor<ui32>
  %1 = stablehlo.replica_id : tensor<ui32>
  func.return %0, %1 : tensor<ui32>, tensor<ui32>
}

// CHECK-LABEL: func.func @collectives
// CHECK-NEXT:    %0 = "stablehlo.all_gather"(%arg0) {all_gather_dim = 1 : i64, replica_groups = dense<{{\[}}[0, 1]]> : tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<2x4xi64>
// CHECK-NEXT:    %1 = "stablehlo.all_reduce"(%arg0) ({
// CHECK-NEXT:    ^bb0(%arg1: tensor<i64>, %arg2: tensor<i64>):
// CHECK-NEXT:      %2 = stablehlo.add %arg1, %arg2 : tensor<i64>
// CHECK-NEXT:      stablehlo.return %2 : tensor<i64>
// CHECK-NEXT:    }) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<{{\[}}[0, 1]]> : tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<2x2xi64>
// CHECK-NEXT:    %3 = "stablehlo.all_to_all"(%arg0) {concat_dimension = 0 : i64, replica_groups = dense<{{\[}}[0, 1]]> : tensor<1x2xi64>, split_count = 2 : i64, split_dimension = 1 : i64} : (tensor<2x2xi64>) -> tensor<4x1xi64>
// CHECK-NEXT:    %4 = "stablehlo.collective_permute"(%arg0) {source_target_pairs = dense<{{\[}}[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<2x2xi64>) -> tensor<2x2xi64>
// CHECK-NEXT:    %5 = "stablehlo.collective_broadcast"(%arg0) {replica_groups = dense<{{\[}}[0, 1]]> : tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<2x2xi64>
func.func @collectives(%x: tensor<2x2xi64>) -> tensor<2x4xi64> {
  %0 = "stablehlo.all_gather"(%x) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<2x4xi64>
  %1 = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    %s = stablehlo.add %a, %b : tensor<i64>
    stablehlo.return %s : tensor<i64>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>} : (tensor<2x2xi64>) -> tensor<2x2xi64>
  %2 = "stablehlo.all_to_all"(%x) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<4x1xi64>
  %3 = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<2x2xi64>) -> tensor<2x2xi64>
  %4 = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<2x2xi64>
  func.return %0 : tensor<2x4xi64>
}

// CHECK-LABEL: func.func @main() {
// CHECK-NEXT:    %0:4 = "interpreter.run_parallel"() {programs = {{\[}}[@ids, @ids]]} : () -> (tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>)
// CHECK-NEXT:    check.expect_eq_const %0#0, dense<0> : tensor<ui32>
// CHECK-NEXT:    %1 = stablehlo.constant dense<1> : tensor<2x2xi64>
// CHECK-NEXT:    %2:2 = "interpreter.run_parallel"(%1, %1) {programs = {{\[}}[@collectives], [@collectives]]} : (tensor<2x2xi64>, tensor<2x2xi64>) -> (tensor<2x4xi64>, tensor<2x4xi64>)
// CHECK-NEXT:    func.return
// GENERIC:         %0:4 = "interpreter.run_parallel"() {programs = {{\[}}[@ids, @ids]]} : () -> (tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>)
func.func @main() {
  %results:4 = "interpreter.run_parallel"() {
    programs=[[@ids, @ids]]
  } : () -> (tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>)
  check.expect_eq_const %results#0, dense<0> : tensor<ui32>
  %x = stablehlo.constant dense<1> : tensor<2x2xi64>
  %r:2 = "interpreter.run_parallel"(%x, %x) {programs = [[@collectives], [@collectives]]} : (tensor<2x2xi64>, tensor<2x2xi64>) -> (tensor<2x4xi64>, tensor<2x4xi64>)
  func.return
}
