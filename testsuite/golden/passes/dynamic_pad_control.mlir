// RUN: %tpucc --passes=dynamic-pad --print-ir-after=dynamic-pad --emit=tpub -o /dev/null %s 2>&1 | FileCheck %s
// dynamic-pad carries sizes through calls (one more parameter and result
// per dynamic dim) and while loops (one more loop value), and makes sort
// put the padding last with one more key.

// CHECK-LABEL: func.func private @scale(%arg0: tensor<8xf32>, %arg1: tensor<f32>, %arg2: tensor<i32>) -> (tensor<8xf32>, tensor<i32>)
// CHECK: func.return %{{.*}}, %arg2 : tensor<8xf32>, tensor<i32>
// CHECK-LABEL: func.func @main(%arg0: tensor<8xf32>, %arg1: tensor<i32>)
// CHECK: stablehlo.while(%arg2 = %{{.*}}, %arg3 = %arg0, %arg4 = %arg1) : tensor<i32>, tensor<8xf32>, tensor<i32>
// CHECK: func.call @scale(%arg3, %{{.*}}, %arg4) : (tensor<8xf32>, tensor<f32>, tensor<i32>) -> (tensor<8xf32>, tensor<i32>)
// CHECK: stablehlo.return %{{.*}}, %[[C:.*]]#0, %[[C]]#1 : tensor<i32>, tensor<8xf32>, tensor<i32>
// CHECK: %[[PAD:.*]] = stablehlo.compare GE,
// CHECK: "stablehlo.sort"(%[[PAD]], %{{.*}}#1)
// CHECK: ^bb0(%{{.*}}: tensor<i1>, %{{.*}}: tensor<i1>, %{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>):
// CHECK: stablehlo.compare NE,
// CHECK: stablehlo.select
func.func private @scale(%v: tensor<?xf32, #stablehlo.bounds<8>>, %k: tensor<f32>) -> tensor<?xf32, #stablehlo.bounds<8>> {
  %b = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<f32>) -> tensor<?xf32, #stablehlo.bounds<8>>
  %m = stablehlo.multiply %v, %b : tensor<?xf32, #stablehlo.bounds<8>>
  return %m : tensor<?xf32, #stablehlo.bounds<8>>
}
func.func @main(%x: tensor<?xf32, #stablehlo.bounds<8>>) -> (tensor<?xf32, #stablehlo.bounds<8>>, tensor<f32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %two = stablehlo.constant dense<2.0> : tensor<f32>
  %fz = stablehlo.constant dense<0.0> : tensor<f32>
  %w:2 = stablehlo.while(%i = %zero, %v = %x) : tensor<i32>, tensor<?xf32, #stablehlo.bounds<8>>
    cond {
      %three = stablehlo.constant dense<3> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %i, %one : tensor<i32>
      %k = stablehlo.constant dense<2.0> : tensor<f32>
      %s = func.call @scale(%v, %k) : (tensor<?xf32, #stablehlo.bounds<8>>, tensor<f32>) -> tensor<?xf32, #stablehlo.bounds<8>>
      stablehlo.return %n, %s : tensor<i32>, tensor<?xf32, #stablehlo.bounds<8>>
    }
  %sum = stablehlo.reduce(%w#1 init: %fz) applies stablehlo.add across dimensions = [0] : (tensor<?xf32, #stablehlo.bounds<8>>, tensor<f32>) -> tensor<f32>
  %srt = "stablehlo.sort"(%w#1) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %lt = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 0 : i64} : (tensor<?xf32, #stablehlo.bounds<8>>) -> tensor<?xf32, #stablehlo.bounds<8>>
  return %srt, %sum : tensor<?xf32, #stablehlo.bounds<8>>, tensor<f32>
}
