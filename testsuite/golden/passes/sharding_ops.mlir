// RUN: %tpucc --verify-only %s
// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s --check-prefixes=CHECK,PRETTY
// RUN: %tpucc -O0 --emit=mlir-generic %s | FileCheck %s --check-prefixes=CHECK,GENERIC
// RUN: %tpucc -O0 --emit=mlir-generic %s | %tpucc -O0 --emit=mlir - | FileCheck %s --check-prefixes=CHECK,PRETTY
// RUN: %tpucc -O0 --emit=mlir %s > %t.1.mlir
// RUN: %tpucc -O0 --emit=mlir %t.1.mlir > %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: %tpurun -O0 %s --input='2x2xf32=1,2,3,4' --input='2x2xf32=10,20,30,40' | FileCheck %s --check-prefix=EXEC
// RUN: %tpurun -O2 %s --input='2x2xf32=1,2,3,4' --input='2x2xf32=10,20,30,40' | FileCheck %s --check-prefix=EXEC
// Shardy's sdy.manual_computation (with its sdy.return) and sdy.reshard in
// Shardy's pretty form and MLIR's generic form; printing round-trips.  On
// one device the body sees whole values: the back end inlines it and
// sdy.reshard is a copy.
// PRETTY:      %0:2 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{}, {?}]>] out_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{}, {}], replicated={"x"}>] manual_axes={"x"} (%arg2: tensor<2x2xf32>, %arg3: tensor<2x2xf32>) {
// PRETTY-NEXT:   %1 = stablehlo.add %arg2, %arg3 : tensor<2x2xf32>
// PRETTY-NEXT:   sdy.return %1, %arg2 : tensor<2x2xf32>, tensor<2x2xf32>
// PRETTY-NEXT: } {tpu.note = "kept"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
// PRETTY:      %2 = sdy.reshard %0#0 <@mesh, [{"x"}, {}]> : tensor<2x2xf32>
// GENERIC:     %0:2 = "sdy.manual_computation"(%arg0, %arg1) ({
// GENERIC-NEXT: ^bb0(%arg2: tensor<2x2xf32>, %arg3: tensor<2x2xf32>):
// GENERIC:     "sdy.return"(%1, %arg2) : (tensor<2x2xf32>, tensor<2x2xf32>) -> ()
// GENERIC-NEXT: }) {in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>, <@mesh, [{}, {?}]>]>, manual_axes = #sdy<manual_axes{"x"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>, <@mesh, [{}, {}], replicated={"x"}>]>, tpu.note = "kept"}
// GENERIC:     %2 = "sdy.reshard"(%0#0) {sharding = #sdy.sharding<@mesh, [{"x"}, {}]>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK:       %3 = {{"?}}stablehlo.multiply
// EXEC:        result[0]: 2x2xf32=[11 44][99 176]
// EXEC:        result[1]: 2x2xf32=[1 2][3 4]
module @jit_f attributes {mhlo.num_partitions = 1 : i32} {
  sdy.mesh @mesh = <["x"=1]>
  func.func public @main(%arg0: tensor<2x2xf32>, %arg1: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
    %0:2 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{}, {?}]>] out_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{}, {}], replicated={"x"}>] manual_axes={"x"} (%arg2: tensor<2x2xf32>, %arg3: tensor<2x2xf32>) {
      %1 = stablehlo.add %arg2, %arg3 : tensor<2x2xf32>
      sdy.return %1, %arg2 : tensor<2x2xf32>, tensor<2x2xf32>
    } {tpu.note = "kept"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
    %2 = sdy.reshard %0#0 <@mesh, [{"x"}, {}]> : tensor<2x2xf32>
    %3 = stablehlo.multiply %2, %0#1 : tensor<2x2xf32>
    return %3, %arg0 : tensor<2x2xf32>, tensor<2x2xf32>
  }
}
