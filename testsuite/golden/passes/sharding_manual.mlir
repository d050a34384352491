// RUN: %tpucc --verify-only %s
// RUN: %tpurun -O0 %s --input=8x4xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32 | FileCheck %s --check-prefix=EXEC
// RUN: %tpurun -O2 %s --input=8x4xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32 | FileCheck %s --check-prefix=EXEC
// RUN: %not %tpucc --passes=cse %s -o %t.tpub 2>&1 | FileCheck %s
// An sdy.manual_computation whose body works on per-device pieces (here
// over 2 devices) verifies; spmd-partition (every -O level) inlines its
// body on the pieces.  A pipeline without the partitioner reaches the back
// end with it: a located error, exit 2 (on one device it is inlined:
// sharding_ops.mlir).
// EXEC: result[0]: 8x4xf32=[-1 -2 -3 -4][-5 -6 -7 -8][-9 -10 -11 -12][-13 -14 -15 -16][-17 -18 -19 -20][-21 -22 -23 -24][-25 -26 -27 -28][-29 -30 -31 -32]
// EXEC-NOT: result[1]
// CHECK: sharding_manual.mlir:[[@LINE+4]]:10: error: 'sdy.manual_computation' op its body works on per-device pieces of its operands; the back end runs it only once SPMD partitioning has rewritten it (on one device it is inlined)
module @jit_f attributes {mhlo.num_partitions = 2 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @main(%arg0: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg1: tensor<4x4xf32>) {
      %1 = stablehlo.negate %arg1 : tensor<4x4xf32>
      sdy.return %1 : tensor<4x4xf32>
    } : (tensor<8x4xf32>) -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
}
