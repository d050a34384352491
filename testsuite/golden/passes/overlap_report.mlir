// `tpucc --report` with and without collective-overlap: collective rows are
// bound by the ICI, and the total is a two-stream simulation (compute
// stream, ICI stream; docs/passes.md "tpucc --report").
// RUN: %tpucc --report --verify-each --passes=buffer-assign %s | FileCheck %s --check-prefix=PLAIN
// RUN: %tpucc --report --verify-each --passes=collective-overlap,buffer-assign %s | FileCheck %s --check-prefix=OVERLAP
// RUN: %tpucc --report --verify-each %s | FileCheck %s --check-prefix=OVERLAP

// Three layers of a backward pass on 8 v5e chips: 88.2 us matmuls, 16 MiB
// gradient all-reduces of 164.1 us each, 62.5 us updates.
// PLAIN: stablehlo.dot_general {{.*}} 88.207 MXU
// PLAIN-NEXT: stablehlo.all_reduce {{.*}}:[[@LINE+27]]:9 {{.*}} 164.112 ICI
// PLAIN-NEXT: stablehlo.subtract {{.*}} 62.455 HBM
// Without the pass every all-reduce holds the compute stream: the total is
// the sum of the rows and all of the ICI time is exposed.
// PLAIN: total: modeled 944.323 us
// PLAIN-NEXT: layout: 0 transposes folded (into contractions and reduces, or as reshapes); 0 remain
// PLAIN-NEXT: streams: compute 451.987 us, ICI 492.335 us; total 944.323 us, of which ICI exposed 492.335 us
// With it the all-reduces start right after their matmuls: the ICI stream
// runs them back to back (88.2 -> 252.3 -> 416.4 -> 580.5 us) while the
// matmuls and the first update run; the compute stream waits at the second
// done (89.4 us) and the third (101.7 us).
// OVERLAP: stablehlo.dot_general {{.*}} 88.207 MXU
// OVERLAP-NEXT: tpu.async_start(all_reduce) {{.*}}:[[@LINE+15]]:9 {{.*}} 164.112 ICI
// OVERLAP-NEXT: stablehlo.dot_general
// OVERLAP-NEXT: tpu.async_start(all_reduce)
// OVERLAP-NEXT: stablehlo.dot_general
// OVERLAP-NEXT: tpu.async_start(all_reduce)
// OVERLAP-NEXT: {{stablehlo.subtract|tpu.fusion}}
// OVERLAP-NEXT: {{stablehlo.subtract|tpu.fusion}}
// OVERLAP-NEXT: {{stablehlo.subtract|tpu.fusion}}
// OVERLAP-NEXT: time by bound: MXU 264.622 us, VPU 0.000 us, HBM 187.365 us, ICI 492.335 us, issue 0.000 us
// OVERLAP-NEXT: total: modeled 642.998 us
// OVERLAP-NEXT: layout: 0 transposes folded (into contractions and reduces, or as reshapes); 0 remain
// OVERLAP-NEXT: streams: compute 451.987 us, ICI 492.335 us; total 642.998 us, of which ICI exposed 191.011 us
module attributes {mhlo.num_replicas = 8 : i32} {
func.func @main(%dy: tensor<2048x2048xf32>, %w1: tensor<2048x2048xf32>, %w2: tensor<2048x2048xf32>, %w3: tensor<2048x2048xf32>) -> (tensor<2048x2048xf32>, tensor<2048x2048xf32>, tensor<2048x2048xf32>) {
  %g3 = stablehlo.dot_general %dy, %w3, contracting_dims = [1] x [0] : (tensor<2048x2048xf32>, tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %r3 = "stablehlo.all_reduce"(%g3) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %u3 = stablehlo.subtract %w3, %r3 : tensor<2048x2048xf32>
  %g2 = stablehlo.dot_general %dy, %w2, contracting_dims = [1] x [0] : (tensor<2048x2048xf32>, tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %r2 = "stablehlo.all_reduce"(%g2) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %u2 = stablehlo.subtract %w2, %r2 : tensor<2048x2048xf32>
  %g1 = stablehlo.dot_general %dy, %w1, contracting_dims = [1] x [0] : (tensor<2048x2048xf32>, tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %r1 = "stablehlo.all_reduce"(%g1) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %u1 = stablehlo.subtract %w1, %r1 : tensor<2048x2048xf32>
  return %u1, %u2, %u3 : tensor<2048x2048xf32>, tensor<2048x2048xf32>, tensor<2048x2048xf32>
}
}
