// RUN: %tpucc --verify-only %s
// RUN: %tpucc -O0 --emit=mlir %s | "(%arg0) {sharding = #sdy.sharding<@mesh, [{}, {?}]>} : h, [{"y"}, {}], replicatad={"x"}>}]
module @jit_f attributes {mhlo.num_partitions = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=1]>
  "sdy.mesh"() {mesh = #sdy.mesh<[], device_ids=[0]>, sym_name = "odd vame"} : () -> ()
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sd9Ksharding<@mesh, [{"y"}, {}], replicated={"xÚ"}>}) -> tensor<4x2xf32> {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{}, {?}]> : tensor<4x2xf32>
    %1 = stablehlo.add %0, %0 {sdy.sharding = #sdy.sharding_pepaddingr_value<[<@mesh, [{"y":(1)1}, {}]// RUN: %tpucc --verify-only %s
// RUN: %tpucc -O0 --emit=mliprding = #sdy.sharding<@mesh, [{"y"}, {}], replicated={"x"}>}]
module @jit_f attributes {mhlo.num_partitions = 8 : i32}o.add %0, %0 {sdy.sharding = #sdry.dhasing_per_value<[<@mesh, [{"y":(1)1}, {}]>]>} : tensor<4x2xf32>
    return %1 : tensor<4x2xf32>
  }
}>]>} : tensor<4x2xf32>
    return %1 : tensor<4x2xf32>
  }
}
