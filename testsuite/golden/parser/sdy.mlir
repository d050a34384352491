// RUN: %tpucc --verify-only %s
// RUN: %tpucc --passes=cse --emit=mlir %s | FileCheck %s --check-prefixes=CHECK,PRETTY
// RUN: %tpucc --passes=cse --emit=mlir-generic %s | FileCheck %s --check-prefixes=CHECK,GENERIC
// RUN: %tpucc --passes=cse --emit=mlir-generic %s | %tpucc --passes=cse --emit=mlir - | FileCheck %s --check-prefixes=CHECK,PRETTY
// Shardy (sdy): sdy.mesh and sdy.sharding_constraint in pretty and generic
// form, #sdy attributes printed exactly as written ({"x"} is a list of mesh
// axes, not a dictionary).  --passes=cse: no SPMD partitioning, so what is
// printed is what was read.

// PRETTY:      sdy.mesh @mesh = <["x"=2, "y"=1]>
// PRETTY-NEXT: sdy.mesh @"odd name" = <[], device_ids=[0]>
// GENERIC:     "sdy.mesh"() {mesh = #sdy.mesh<["x"=2, "y"=1]>, sym_name = "mesh"} : () -> ()
// GENERIC:     "sdy.mesh"() {mesh = #sdy.mesh<[], device_ids=[0]>, sym_name = "odd name"} : () -> ()
// PRETTY:      func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}], replicated={"x"}>})
// PRETTY:      %0 = sdy.sharding_constraint %arg0 <@mesh, [{}, {?}]> : tensor<4x2xf32>
// GENERIC:     %0 = "sdy.sharding_constraint"(%arg0) {sharding = #sdy.sharding<@mesh, [{}, {?}]>} : (tensor<4x2xf32>) -> tensor<4x2xf32>
// CHECK:       {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"y":(1)1}, {}]>]>}
// GENERIC:     arg_attrs = [{sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}], replicated={"x"}>}]
module @jit_f attributes {mhlo.num_partitions = 2 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=1]>
  "sdy.mesh"() {mesh = #sdy.mesh<[], device_ids=[0]>, sym_name = "odd name"} : () -> ()
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}], replicated={"x"}>}) -> tensor<4x2xf32> {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{}, {?}]> : tensor<4x2xf32>
    %1 = stablehlo.add %0, %0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"y":(1)1}, {}]>]>} : tensor<4x2xf32>
    return %1 : tensor<4x2xf32>
  }
}
