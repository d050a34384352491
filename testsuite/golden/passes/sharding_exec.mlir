// JAX's annotation custom calls run as identities at -O0 (the back end
// copies) and -O2 (canonicalize forwards the operand); a tiled program is
// refused by tpurun with exit 2 instead of running unpartitioned on every
// chip.
// RUN: %tpurun -O0 %s --input='4x2xf32=1,2,3,4,5,6,7,8' | FileCheck %s
// RUN: %tpurun -O2 %s --input='4x2xf32=1,2,3,4,5,6,7,8' | FileCheck %s
// RUN: %tpucc -O2 --emit=mlir %s | FileCheck %s --check-prefix=OPT
// RUN: %tpucc -O0 --emit=asm %s | FileCheck %s --check-prefix=ASM
// RUN: sed 's/"{replicated}"}) ->/"{devices=[2,1]<=[2]}"}) ->/' %s > %t.tiled.mlir
// RUN: %tpurun %t.tiled.mlir --input='2x4x2xf32=1,2,3,4,5,6,7,8,1,2,3,4,5,6,7,8' > %t.out 2>&1; echo "exit $?" >> %t.out
// RUN: FileCheck %s --check-prefix=TILED < %t.out
// CHECK: result[0]: 2x4x2xf32={{\[}}[3 6][9 12][15 18][21 24]{{\]}}[{{\[}}3 6][9 12][15 18][21 24]{{\]}}
// OPT-NOT: custom_call
// OPT-NOT: sdy.sharding_constraint
// ASM-COUNT-7: copy
// TILED: error: 'func.func' op sharded value %arg0 of @main (mhlo.sharding = "{devices=[2,1]<=[2]}") is tiled over 2 devices; it needs SPMD partitioning, which tpucc does not do yet
// TILED-NOT: result[0]
// TILED: exit 2
module @jit_f attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  "sdy.mesh"() {mesh = #sdy.mesh<["x"=2]>, sym_name = "mesh"} : () -> ()
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{replicated}"}) -> (tensor<4x2xf32> {jax.result_info = "", mhlo.sharding = "{replicated}"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{replicated}"} : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %1 = stablehlo.custom_call @annotate_device_placement(%0) {has_side_effect = true, mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %2 = stablehlo.custom_call @MoveToHost(%1) : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %3 = stablehlo.custom_call @MoveToDevice(%2) : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %4 = stablehlo.custom_call @LayoutConstraint(%3) : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %5 = "sdy.sharding_constraint"(%4) {sharding = #sdy.sharding<@mesh, [{}, {}]>} : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %6 = stablehlo.add %5, %arg0 : tensor<4x2xf32>
    %7 = stablehlo.custom_call @Sharding(%6) {mhlo.sharding = "{devices=[1,1,2]<=[2] last_tile_dim_replicate}"} : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %8 = stablehlo.add %7, %arg0 : tensor<4x2xf32>
    return %8 : tensor<4x2xf32>
  }
}
