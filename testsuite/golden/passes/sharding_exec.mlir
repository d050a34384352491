// JAX's annotation custom calls run as identities at -O0 (the back end
// copies) and -O2 (canonicalize forwards the operand); a sharding that does
// not fit (here 4 devices on 2 partitions) is refused by tpurun with exit 2
// before anything runs.
// RUN: %tpurun -O0 %s --input='4x2xf32=1,2,3,4,5,6,7,8' | FileCheck %s
// RUN: %tpurun -O2 %s --input='4x2xf32=1,2,3,4,5,6,7,8' | FileCheck %s
// RUN: %tpucc -O2 --emit=mlir %s | FileCheck %s --check-prefix=OPT
// RUN: sed 's/"{replicated}"}) ->/"{devices=[4,1]<=[4]}"}) ->/' %s > %t.bad.mlir
// RUN: %tpurun %t.bad.mlir --input='4x2xf32=1,2,3,4,5,6,7,8' > %t.out 2>&1; echo "exit $?" >> %t.out
// RUN: FileCheck %s --check-prefix=BAD < %t.out
// CHECK: result[0]: 4x2xf32=[3 6][9 12][15 18][21 24]
// OPT-NOT: custom_call
// OPT-NOT: sdy.sharding_constraint
// BAD: error: 'func.func' op mhlo.sharding = "{devices=[4,1]<=[4]}" on %arg0 of @main does not fit its type 'tensor<4x2xf32>': it spreads over 4 devices but the program has 2 partitions
// BAD-NOT: result[0]
// BAD: exit 2
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
