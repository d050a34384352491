// How tpu.fusion lowers: a body the VM can run tile by tile becomes one
// `fusion` instruction whose body is a region function (block arguments as
// parameters, no captures; constants inside), `tpu.yield` as its return,
// and the kind as a number.  A reduce with its element-wise producers is an
// input `fusion` (kind 1) whose body ends in the reduce: the VM folds the
// producer's tiles into it, never materializing the producer.
// RUN: %tpucc -O0 --emit=asm %s | FileCheck %s
// RUN: %tpurun -O0 %s --function=kinds --input=3xf32=1,2,3 --input=3xf32=10,20,30 | FileCheck %s --check-prefix=EXEC

// CHECK-LABEL: func @kinds#0(r0: 3xf32, r1: 3xf32) -> (3xf32, f32, 3xf32)
// CHECK:         r2 = fusion r0, r1 kind=0 body=@tpu.fusion.region#[[LOOP:[0-9]+]]
// CHECK-SAME:      ; tpu.fusion
// CHECK:         r3 = fusion r0 kind=1 body=@tpu.fusion.region#[[INPUT:[0-9]+]]
// CHECK:         r4, r5 = fusion r2, r1 kind=3 body=@tpu.fusion.region#[[MULTI:[0-9]+]]
// CHECK:         r6 = fusion r4, r5 kind=2 body=@tpu.fusion.region#{{[0-9]+}}
// CHECK:       func @tpu.fusion.region#[[LOOP]](r0: 3xf32, r1: 3xf32) -> (3xf32)   ; region
// CHECK-NEXT:    r2 = constant value={offset {{[0-9]+}}, 4 bytes, splat}
// CHECK-NEXT:    r3 = multiply r0, r1
// CHECK-NEXT:    r4 = add r3, r2
// CHECK-NEXT:    return r4 {{.*}}; tpu.yield
// CHECK:       func @tpu.fusion.region#[[INPUT]](r0: 3xf32) -> (f32)   ; region
// CHECK-NEXT:    r1 = constant
// CHECK-NEXT:    r2 = multiply r0, r0
// CHECK-NEXT:    r3 = reduce r2, r1 dims=[0] body=@stablehlo.reduce.region#{{[0-9]+}}
// CHECK-NEXT:    return r3 {{.*}}; tpu.yield
// CHECK:       func @tpu.fusion.region#[[MULTI]](r0: 3xf32, r1: 3xf32) -> (3xf32, 3xf32)   ; region
// CHECK:         return r0, r2 {{.*}}; tpu.yield
// EXEC: result[0]: 3xf32=12 42 92
// EXEC: result[1]: f32=14
// EXEC: result[2]: 3xf32=-1440 -35280 -253920
func.func @kinds(%x: tensor<3xf32>, %y: tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>, tensor<3xf32>) {
  %l = "tpu.fusion"(%x, %y) ({
  ^bb0(%a: tensor<3xf32>, %b: tensor<3xf32>):
    %c = stablehlo.constant dense<2.0> : tensor<3xf32>
    %0 = stablehlo.multiply %a, %b : tensor<3xf32>
    %1 = stablehlo.add %0, %c : tensor<3xf32>
    "tpu.yield"(%1) : (tensor<3xf32>) -> ()
  }) {kind = "loop"} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %i = "tpu.fusion"(%x) ({
  ^bb0(%a: tensor<3xf32>):
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %0 = stablehlo.multiply %a, %a : tensor<3xf32>
    %1 = stablehlo.reduce(%0 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
    "tpu.yield"(%1) : (tensor<f32>) -> ()
  }) {kind = "input"} : (tensor<3xf32>) -> tensor<f32>
  %m:2 = "tpu.fusion"(%l, %y) ({
  ^bb0(%a: tensor<3xf32>, %b: tensor<3xf32>):
    %0 = stablehlo.negate %b : tensor<3xf32>
    "tpu.yield"(%a, %0) : (tensor<3xf32>, tensor<3xf32>) -> ()
  }) {kind = "multi_output"} : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  %o = "tpu.fusion"(%m#0, %m#1) ({
  ^bb0(%a: tensor<3xf32>, %b: tensor<3xf32>):
    %0 = stablehlo.multiply %a, %b : tensor<3xf32>
    %1 = stablehlo.multiply %0, %a : tensor<3xf32>
    "tpu.yield"(%1) : (tensor<3xf32>) -> ()
  }) {kind = "output"} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %l, %i, %o : tensor<3xf32>, tensor<f32>, tensor<3xf32>
}
