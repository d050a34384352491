// The collective-overlap pass (passes/overlap.c): small all-reduces are
// combined, collectives are split into tpu.async_start / tpu.async_done
// and the block is scheduled so that independent work runs between them.
// RUN: %tpucc --passes=collective-overlap --verify-each --emit=mlir --split-input-file %s | FileCheck %s
// A second run finds its blocks scheduled and changes nothing.
// RUN: %tpucc --passes=collective-overlap,collective-overlap --verify-each --emit=mlir --split-input-file %s | FileCheck %s
// The output prints and parses again.
// RUN: %tpucc --passes=collective-overlap --emit=mlir --split-input-file %s -o %t.mlir
// RUN: %tpucc --verify-only --split-input-file %t.mlir
// It is part of -O2, after fusion and layout, before buffer-assign.
// RUN: %tpucc -O2 --print-ir-after=collective-overlap --emit=mlir --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=O2
// O2: // -----// IR Dump After collective-overlap //----- //
// O2: "tpu.async_start"

// A backward pass: each layer's weight gradient is all-reduced (16 MiB,
// too large to combine) and then applied.  Each start moves up to right
// after its gradient's matmul, each done down to right before its update,
// so the next layers' matmuls run while the gradients travel.  At most two
// all-reduces are in flight: the third start brings the first done along.
// CHECK-LABEL: func.func @backward
// CHECK: %[[G3:.*]] = stablehlo.dot_general %arg0, %arg3
// CHECK-NEXT: %[[S3:.*]] = "tpu.async_start"(%[[G3]])
// CHECK: "stablehlo.all_reduce"
// CHECK: %[[G2:.*]] = stablehlo.dot_general %arg0, %arg2
// CHECK-NEXT: %[[S2:.*]] = "tpu.async_start"(%[[G2]])
// CHECK: %[[G1:.*]] = stablehlo.dot_general %arg0, %arg1
// CHECK-NEXT: %[[D3:.*]] = "tpu.async_done"(%[[S3]])
// CHECK-NEXT: %[[S1:.*]] = "tpu.async_start"(%[[G1]])
// CHECK: stablehlo.subtract %arg3, %[[D3]]
// CHECK-NEXT: %[[D2:.*]] = "tpu.async_done"(%[[S2]])
// CHECK-NEXT: stablehlo.subtract %arg2, %[[D2]]
// CHECK-NEXT: %[[D1:.*]] = "tpu.async_done"(%[[S1]])
// CHECK-NEXT: stablehlo.subtract %arg1, %[[D1]]
// CHECK-NEXT: func.return
module attributes {mhlo.num_replicas = 8 : i32} {
func.func @backward(%dy: tensor<2048x2048xf32>, %w1: tensor<2048x2048xf32>, %w2: tensor<2048x2048xf32>, %w3: tensor<2048x2048xf32>) -> (tensor<2048x2048xf32>, tensor<2048x2048xf32>, tensor<2048x2048xf32>) {
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

// -----

// No independent work: every op needs the one before it.  Nothing changes.
// CHECK-LABEL: func.func @no_independent_work
// CHECK-NEXT: %0 = stablehlo.dot_general %arg0, %arg1
// CHECK-NEXT: %1 = "stablehlo.all_reduce"(%0) ({
// CHECK-NEXT: ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// CHECK-NEXT: %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
// CHECK-NEXT: stablehlo.return %2 : tensor<f32>
// CHECK-NEXT: }) {replica_groups = dense<{{\[\[}}0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
// CHECK-NEXT: %3 = stablehlo.exponential %1 : tensor<2048x2048xf32>
// CHECK-NEXT: %4 = "stablehlo.all_gather"(%3)
// CHECK-NEXT: %5 = stablehlo.slice %4 [0:2048, 0:2048]
// CHECK-NEXT: func.return %5 : tensor<2048x2048xf32>
// CHECK-NEXT: }
module attributes {mhlo.num_replicas = 8 : i32} {
func.func @no_independent_work(%x: tensor<2048x2048xf32>, %w: tensor<2048x2048xf32>) -> tensor<2048x2048xf32> {
  %g = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2048x2048xf32>, tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %r = "stablehlo.all_reduce"(%g) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %e = stablehlo.exponential %r : tensor<2048x2048xf32>
  %s = "stablehlo.all_gather"(%e) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<2048x2048xf32>) -> tensor<16384x2048xf32>
  %u = stablehlo.slice %s [0:2048, 0:2048] : (tensor<16384x2048xf32>) -> tensor<2048x2048xf32>
  return %u : tensor<2048x2048xf32>
}
}

// -----

// The in-flight limit is per kind: with two all-reduces in flight the
// all_gather still starts; the third all-reduce brings the first's done.
// Dones come right before their first use.
// CHECK-LABEL: func.func @kinds
// CHECK: %[[G1:.*]] = stablehlo.dot_general %arg0, %arg1
// CHECK-NEXT: %[[S1:.*]] = "tpu.async_start"(%[[G1]])
// CHECK: %[[G2:.*]] = stablehlo.dot_general %[[G1]], %arg1
// CHECK-NEXT: %[[S2:.*]] = "tpu.async_start"(%[[G2]])
// CHECK: %[[G3:.*]] = stablehlo.dot_general %[[G2]], %arg1
// CHECK-NEXT: %[[S3:.*]] = "tpu.async_start"(%[[G3]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: "stablehlo.all_gather"
// CHECK: %[[G4:.*]] = stablehlo.dot_general %[[G3]], %arg1
// CHECK-NEXT: %[[D1:.*]] = "tpu.async_done"(%[[S1]])
// CHECK-NEXT: %[[S4:.*]] = "tpu.async_start"(%[[G4]])
// CHECK: %[[G5:.*]] = stablehlo.dot_general %[[G4]], %arg1
// CHECK-NEXT: %[[D2:.*]] = "tpu.async_done"(%[[S2]])
// CHECK-NEXT: %[[A:.*]] = stablehlo.add %[[D1]], %[[D2]]
// CHECK-NEXT: %[[D3:.*]] = "tpu.async_done"(%[[S3]])
// CHECK-NEXT: %[[D4:.*]] = "tpu.async_done"(%[[S4]])
// CHECK-NEXT: %[[B:.*]] = stablehlo.add %[[D4]], %[[G5]]
// CHECK-NEXT: func.return %[[A]], %[[B]], %[[D3]], %[[G5]]
module attributes {mhlo.num_replicas = 8 : i32} {
func.func @kinds(%x: tensor<2048x2048xf32>, %w: tensor<2048x2048xf32>) -> (tensor<2048x2048xf32>, tensor<2048x2048xf32>, tensor<16384x2048xf32>, tensor<2048x2048xf32>) {
  %g1 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2048x2048xf32>, tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %r1 = "stablehlo.all_reduce"(%g1) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %g2 = stablehlo.dot_general %g1, %w, contracting_dims = [1] x [0] : (tensor<2048x2048xf32>, tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %r2 = "stablehlo.all_reduce"(%g2) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %g3 = stablehlo.dot_general %g2, %w, contracting_dims = [1] x [0] : (tensor<2048x2048xf32>, tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %a3 = "stablehlo.all_gather"(%g3) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<2048x2048xf32>) -> tensor<16384x2048xf32>
  %g4 = stablehlo.dot_general %g3, %w, contracting_dims = [1] x [0] : (tensor<2048x2048xf32>, tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %r4 = "stablehlo.all_reduce"(%g4) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %g5 = stablehlo.dot_general %g4, %w, contracting_dims = [1] x [0] : (tensor<2048x2048xf32>, tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %s = stablehlo.add %r1, %r2 : tensor<2048x2048xf32>
  %t = stablehlo.add %r4, %g5 : tensor<2048x2048xf32>
  return %s, %t, %a3, %g5 : tensor<2048x2048xf32>, tensor<2048x2048xf32>, tensor<16384x2048xf32>, tensor<2048x2048xf32>
}
}

// -----

// The combiner: three 4 KiB all-reduces with the same computation and
// groups become one variadic all_reduce where the last one was, the
// negates that read them move after it; the 16 MiB one is above the 4 MiB
// threshold and stays apart (and is split: the negates overlap it).  The
// combined one has only another collective before its users: it stays
// whole.
// CHECK-LABEL: func.func @combine
// CHECK-NEXT: %[[C:.*]]:3 = "stablehlo.all_reduce"(%arg0, %arg1, %arg2)
// CHECK: %[[S:.*]] = "tpu.async_start"(%arg3)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: "stablehlo.all_reduce"(%arg{{[0-9]+}}) ({
// CHECK: stablehlo.negate %[[C]]#0
// CHECK-NEXT: stablehlo.negate %[[C]]#1
// CHECK-NEXT: stablehlo.negate %[[C]]#2
// CHECK-NEXT: "tpu.async_done"(%[[S]])
// CHECK-NOT: stablehlo.all_reduce
// CHECK: func.return
module attributes {mhlo.num_replicas = 8 : i32} {
func.func @combine(%x1: tensor<8x128xf32>, %x2: tensor<8x128xf32>, %x3: tensor<8x128xf32>, %y: tensor<2048x2048xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>, tensor<2048x2048xf32>) {
  %a1 = "stablehlo.all_reduce"(%x1) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %n1 = stablehlo.negate %a1 : tensor<8x128xf32>
  %a2 = "stablehlo.all_reduce"(%x2) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %n2 = stablehlo.negate %a2 : tensor<8x128xf32>
  %a3 = "stablehlo.all_reduce"(%x3) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %n3 = stablehlo.negate %a3 : tensor<8x128xf32>
  %big = "stablehlo.all_reduce"(%y) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  return %n1, %n2, %n3, %big : tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>, tensor<2048x2048xf32>
}
}

// -----

// Not combined: an all-reduce that reads another's result, other groups,
// another computation.
// CHECK-LABEL: func.func @not_combined
// CHECK: "stablehlo.all_reduce"(%arg0) ({
// CHECK: "stablehlo.all_reduce"(%{{[0-9]+}}) ({
// CHECK: "stablehlo.all_reduce"(%arg1) ({
// CHECK: "stablehlo.all_reduce"(%arg2) ({
// CHECK: stablehlo.maximum
// CHECK: func.return
module attributes {mhlo.num_replicas = 8 : i32} {
func.func @not_combined(%x1: tensor<8x128xf32>, %x2: tensor<8x128xf32>, %x3: tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>) {
  %a1 = "stablehlo.all_reduce"(%x1) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %n1 = stablehlo.negate %a1 : tensor<8x128xf32>
  %a2 = "stablehlo.all_reduce"(%n1) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %a3 = "stablehlo.all_reduce"(%x2) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>} : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %a4 = "stablehlo.all_reduce"(%x3) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.maximum %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>} : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %a2, %a3, %a4 : tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>
}
}

// -----

// The HBM limit (v5e: 16 GiB).  Starting the 2 GiB all-reduce before the
// exponential would hold its operand, its result and the exponential's
// result at once: 2 + 2 (%c) + 9 (%d) + 2 + 2 = 17 GiB with %d live, so in
// @hbm_full it keeps its place (and, with nothing left to overlap, stays
// whole); without %d (@hbm_room, 8 GiB) it moves up.
// CHECK-LABEL: func.func @hbm_full
// CHECK-NEXT: stablehlo.exponential %arg1
// CHECK-NEXT: "stablehlo.all_reduce"(%arg0)
// CHECK-NOT: tpu.async_start
// CHECK-LABEL: func.func @hbm_room
// CHECK-NEXT: %[[S:.*]] = "tpu.async_start"(%arg0)
// CHECK: %[[E:.*]] = stablehlo.exponential %arg1
// CHECK-NEXT: %[[D:.*]] = "tpu.async_done"(%[[S]])
// CHECK-NEXT: stablehlo.add %[[D]], %[[E]]
module attributes {mhlo.num_replicas = 8 : i32} {
func.func @hbm_full(%a: tensor<16384x32768xf32>, %c: tensor<16384x32768xf32>, %d: tensor<73728x32768xf32>) -> (tensor<16384x32768xf32>, tensor<73728x32768xf32>) {
  %e = stablehlo.exponential %c : tensor<16384x32768xf32>
  %x = "stablehlo.all_reduce"(%a) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<16384x32768xf32>) -> tensor<16384x32768xf32>
  %u = stablehlo.add %x, %e : tensor<16384x32768xf32>
  return %u, %d : tensor<16384x32768xf32>, tensor<73728x32768xf32>
}
func.func @hbm_room(%a: tensor<16384x32768xf32>, %c: tensor<16384x32768xf32>) -> tensor<16384x32768xf32> {
  %e = stablehlo.exponential %c : tensor<16384x32768xf32>
  %x = "stablehlo.all_reduce"(%a) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<16384x32768xf32>) -> tensor<16384x32768xf32>
  %u = stablehlo.add %x, %e : tensor<16384x32768xf32>
  return %u : tensor<16384x32768xf32>
}
}

// -----

// Groups of one chip move nothing over the ICI: left alone.
// CHECK-LABEL: func.func @one_chip_groups
// CHECK-NEXT: "stablehlo.all_reduce"(%arg0)
// CHECK-NOT: tpu.async_start
module attributes {mhlo.num_replicas = 8 : i32} {
func.func @one_chip_groups(%x: tensor<2048x2048xf32>, %w: tensor<2048x2048xf32>) -> (tensor<2048x2048xf32>, tensor<2048x2048xf32>) {
  %r = "stablehlo.all_reduce"(%x) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0], [1], [2], [3], [4], [5], [6], [7]]> : tensor<8x1xi64>} : (tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %g = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2048x2048xf32>, tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  return %r, %g : tensor<2048x2048xf32>, tensor<2048x2048xf32>
}
}

// -----

// Loop bodies are scheduled too.
// CHECK-LABEL: func.func @loop
// CHECK: do {
// CHECK-NEXT: %[[S:.*]] = "tpu.async_start"(%arg4)
// CHECK: %[[G:.*]] = stablehlo.dot_general %arg4, %arg1
// CHECK: %[[D:.*]] = "tpu.async_done"(%[[S]])
// CHECK-NEXT: stablehlo.add %[[D]], %[[G]]
module attributes {mhlo.num_replicas = 8 : i32} {
func.func @loop(%x: tensor<2048x2048xf32>, %w: tensor<2048x2048xf32>, %n: tensor<i32>) -> tensor<2048x2048xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %res:2 = stablehlo.while(%i = %c0, %acc = %x) : tensor<i32>, tensor<2048x2048xf32>
    cond {
      %lt = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %r = "stablehlo.all_reduce"(%acc) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
      %g = stablehlo.dot_general %acc, %w, contracting_dims = [1] x [0] : (tensor<2048x2048xf32>, tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
      %s = stablehlo.add %r, %g : tensor<2048x2048xf32>
      %i1 = stablehlo.add %i, %c1 : tensor<i32>
      stablehlo.return %i1, %s : tensor<i32>, tensor<2048x2048xf32>
    }
  return %res#1 : tensor<2048x2048xf32>
}
}

// -----

// MPMD: run_parallel runs @a next to @b, which cannot combine its two
// all-reduces (the second reads the first), so @a must not combine its own
// either: the chips would meet different collectives.  @c runs next to
// itself and is combined.
// CHECK-LABEL: func.func @a
// CHECK: "stablehlo.all_reduce"(%arg0)
// CHECK: "stablehlo.all_reduce"(%arg1)
// CHECK-LABEL: func.func @c
// CHECK-NEXT: "stablehlo.all_reduce"(%arg0, %arg1)
module attributes {mhlo.num_replicas = 2 : i32} {
func.func @a(%x1: tensor<8x128xf32>, %x2: tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>) {
  %a1 = "stablehlo.all_reduce"(%x1) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %a2 = "stablehlo.all_reduce"(%x2) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %a1, %a2 : tensor<8x128xf32>, tensor<8x128xf32>
}
func.func @b(%x1: tensor<8x128xf32>, %x2: tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>) {
  %a1 = "stablehlo.all_reduce"(%x1) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %n = stablehlo.negate %a1 : tensor<8x128xf32>
  %a2 = "stablehlo.all_reduce"(%n) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %a1, %a2 : tensor<8x128xf32>, tensor<8x128xf32>
}
func.func @c(%x1: tensor<8x128xf32>, %x2: tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>) {
  %a1 = "stablehlo.all_reduce"(%x1) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %a2 = "stablehlo.all_reduce"(%x2) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %a1, %a2 : tensor<8x128xf32>, tensor<8x128xf32>
}
func.func @main(%x: tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>) {
  %r:4 = "interpreter.run_parallel"(%x, %x, %x, %x) {programs = [[@a, @b]]} : (tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>)
  %s:4 = "interpreter.run_parallel"(%x, %x, %x, %x) {programs = [[@c, @c]]} : (tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>)
  return %r#0, %r#1, %r#2, %r#3, %s#0, %s#1, %s#2, %s#3 : tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xf32>
}
}
