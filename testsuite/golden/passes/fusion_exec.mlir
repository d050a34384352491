// Execution of tpu.fusion by the VM (vm/kernels/fusion.c): each function computes
// the same ops unfused and inside a tpu.fusion and checks that both agree
// bit for bit.  Loop bodies run tile by tile (4096 elements, on host threads
// from 65536 elements); other bodies run once on whole buffers.  Sizes are
// not multiples of the tile, or tiny, or empty.
// RUN: %tpurun -O0 --check --threads=1 %s | FileCheck %s --implicit-check-not=FAIL
// RUN: %tpurun -O0 --check --threads=2 %s | FileCheck %s --implicit-check-not=FAIL
// The results are the same bits for any number of threads:
// RUN: %tpurun -O0 %s --function=outputs --threads=1 --output=@%t.1a.npy --output=@%t.1b.npy --output=@%t.1c.npy
// RUN: %tpurun -O0 %s --function=outputs --threads=2 --output=@%t.2a.npy --output=@%t.2b.npy --output=@%t.2c.npy
// RUN: cmp %t.1a.npy %t.2a.npy
// RUN: cmp %t.1b.npy %t.2b.npy
// RUN: cmp %t.1c.npy %t.2c.npy
// CHECK-COUNT-41: PASS expect_eq

// An f32 chain over 100003 elements (25 tiles, the last one partial), with a splat constant.
func.func @chain() {
  %x_i = stablehlo.iota dim = 0 : tensor<100003xi32>
  %x_o = stablehlo.constant dense<0> : tensor<100003xi32>
  %x_j = stablehlo.add %x_i, %x_o : tensor<100003xi32>
  %x_f = stablehlo.convert %x_j : (tensor<100003xi32>) -> tensor<100003xf32>
  %x_s = stablehlo.constant dense<0.0137> : tensor<100003xf32>
  %x_t = stablehlo.multiply %x_f, %x_s : tensor<100003xf32>
  %x_w = stablehlo.sine %x_t : tensor<100003xf32>
  %x_c = stablehlo.add %x_w, %x_w : tensor<100003xf32>
  %x = stablehlo.reshape %x_c : (tensor<100003xf32>) -> tensor<100003xf32>
  %y_i = stablehlo.iota dim = 0 : tensor<100003xi32>
  %y_o = stablehlo.constant dense<77> : tensor<100003xi32>
  %y_j = stablehlo.add %y_i, %y_o : tensor<100003xi32>
  %y_f = stablehlo.convert %y_j : (tensor<100003xi32>) -> tensor<100003xf32>
  %y_s = stablehlo.constant dense<0.0137> : tensor<100003xf32>
  %y_t = stablehlo.multiply %y_f, %y_s : tensor<100003xf32>
  %y_w = stablehlo.cosine %y_t : tensor<100003xf32>
  %y_c = stablehlo.add %y_w, %y_w : tensor<100003xf32>
  %y = stablehlo.reshape %y_c : (tensor<100003xf32>) -> tensor<100003xf32>
  %u_a = stablehlo.multiply %x, %y : tensor<100003xf32>
  %u_b = stablehlo.add %u_a, %x : tensor<100003xf32>
  %u_c = stablehlo.maximum %u_b, %y : tensor<100003xf32>
  %u_d = stablehlo.multiply %u_c, %u_c : tensor<100003xf32>
  %u_e = stablehlo.subtract %u_d, %x : tensor<100003xf32>
  %u_k = stablehlo.constant dense<0.75> : tensor<100003xf32>
  %u_g = stablehlo.divide %u_e, %u_k : tensor<100003xf32>
  %u_h = stablehlo.tanh %u_g : tensor<100003xf32>
  %u_l = stablehlo.exponential %u_h : tensor<100003xf32>
  %u_m = stablehlo.negate %u_l : tensor<100003xf32>
  %r0 = "tpu.fusion"(%x, %y) ({
  ^bb0(%x0: tensor<100003xf32>, %x1: tensor<100003xf32>):
    %f_a = stablehlo.multiply %x0, %x1 : tensor<100003xf32>
    %f_b = stablehlo.add %f_a, %x0 : tensor<100003xf32>
    %f_c = stablehlo.maximum %f_b, %x1 : tensor<100003xf32>
    %f_d = stablehlo.multiply %f_c, %f_c : tensor<100003xf32>
    %f_e = stablehlo.subtract %f_d, %x0 : tensor<100003xf32>
    %f_k = stablehlo.constant dense<0.75> : tensor<100003xf32>
    %f_g = stablehlo.divide %f_e, %f_k : tensor<100003xf32>
    %f_h = stablehlo.tanh %f_g : tensor<100003xf32>
    %f_l = stablehlo.exponential %f_h : tensor<100003xf32>
    %f_m = stablehlo.negate %f_l : tensor<100003xf32>
    "tpu.yield"(%f_m) : (tensor<100003xf32>) -> ()
  }) {kind = "loop"} : (tensor<100003xf32>, tensor<100003xf32>) -> (tensor<100003xf32>)
  check.expect_eq %r0, %u_m : tensor<100003xf32>
  func.return
}

// Broadcasts of every kind into 301x64x5: scalar, leading, trailing, middle, transposing, size-1, a constant; identity.
func.func @broadcasts_big() {
  %full_i = stablehlo.iota dim = 0 : tensor<96320xi32>
  %full_o = stablehlo.constant dense<0> : tensor<96320xi32>
  %full_j = stablehlo.add %full_i, %full_o : tensor<96320xi32>
  %full_f = stablehlo.convert %full_j : (tensor<96320xi32>) -> tensor<96320xf32>
  %full_s = stablehlo.constant dense<0.0137> : tensor<96320xf32>
  %full_t = stablehlo.multiply %full_f, %full_s : tensor<96320xf32>
  %full_w = stablehlo.sine %full_t : tensor<96320xf32>
  %full_c = stablehlo.add %full_w, %full_w : tensor<96320xf32>
  %full = stablehlo.reshape %full_c : (tensor<96320xf32>) -> tensor<301x64x5xf32>
  %lead_i = stablehlo.iota dim = 0 : tensor<301xi32>
  %lead_o = stablehlo.constant dense<5> : tensor<301xi32>
  %lead_j = stablehlo.add %lead_i, %lead_o : tensor<301xi32>
  %lead_f = stablehlo.convert %lead_j : (tensor<301xi32>) -> tensor<301xf32>
  %lead_s = stablehlo.constant dense<0.0137> : tensor<301xf32>
  %lead_t = stablehlo.multiply %lead_f, %lead_s : tensor<301xf32>
  %lead_w = stablehlo.sine %lead_t : tensor<301xf32>
  %lead_c = stablehlo.add %lead_w, %lead_w : tensor<301xf32>
  %lead = stablehlo.reshape %lead_c : (tensor<301xf32>) -> tensor<301xf32>
  %trail_i = stablehlo.iota dim = 0 : tensor<320xi32>
  %trail_o = stablehlo.constant dense<9> : tensor<320xi32>
  %trail_j = stablehlo.add %trail_i, %trail_o : tensor<320xi32>
  %trail_f = stablehlo.convert %trail_j : (tensor<320xi32>) -> tensor<320xf32>
  %trail_s = stablehlo.constant dense<0.0137> : tensor<320xf32>
  %trail_t = stablehlo.multiply %trail_f, %trail_s : tensor<320xf32>
  %trail_w = stablehlo.cosine %trail_t : tensor<320xf32>
  %trail_c = stablehlo.add %trail_w, %trail_w : tensor<320xf32>
  %trail = stablehlo.reshape %trail_c : (tensor<320xf32>) -> tensor<64x5xf32>
  %mid_i = stablehlo.iota dim = 0 : tensor<64xi32>
  %mid_o = stablehlo.constant dense<13> : tensor<64xi32>
  %mid_j = stablehlo.add %mid_i, %mid_o : tensor<64xi32>
  %mid_f = stablehlo.convert %mid_j : (tensor<64xi32>) -> tensor<64xf32>
  %mid_s = stablehlo.constant dense<0.0137> : tensor<64xf32>
  %mid_t = stablehlo.multiply %mid_f, %mid_s : tensor<64xf32>
  %mid_w = stablehlo.sine %mid_t : tensor<64xf32>
  %mid_c = stablehlo.add %mid_w, %mid_w : tensor<64xf32>
  %mid = stablehlo.reshape %mid_c : (tensor<64xf32>) -> tensor<64xf32>
  %tr_i = stablehlo.iota dim = 0 : tensor<1505xi32>
  %tr_o = stablehlo.constant dense<17> : tensor<1505xi32>
  %tr_j = stablehlo.add %tr_i, %tr_o : tensor<1505xi32>
  %tr_f = stablehlo.convert %tr_j : (tensor<1505xi32>) -> tensor<1505xf32>
  %tr_s = stablehlo.constant dense<0.0137> : tensor<1505xf32>
  %tr_t = stablehlo.multiply %tr_f, %tr_s : tensor<1505xf32>
  %tr_w = stablehlo.sine %tr_t : tensor<1505xf32>
  %tr_c = stablehlo.add %tr_w, %tr_w : tensor<1505xf32>
  %tr = stablehlo.reshape %tr_c : (tensor<1505xf32>) -> tensor<5x301xf32>
  %one_i = stablehlo.iota dim = 0 : tensor<1505xi32>
  %one_o = stablehlo.constant dense<21> : tensor<1505xi32>
  %one_j = stablehlo.add %one_i, %one_o : tensor<1505xi32>
  %one_f = stablehlo.convert %one_j : (tensor<1505xi32>) -> tensor<1505xf32>
  %one_s = stablehlo.constant dense<0.0137> : tensor<1505xf32>
  %one_t = stablehlo.multiply %one_f, %one_s : tensor<1505xf32>
  %one_w = stablehlo.cosine %one_t : tensor<1505xf32>
  %one_c = stablehlo.add %one_w, %one_w : tensor<1505xf32>
  %one = stablehlo.reshape %one_c : (tensor<1505xf32>) -> tensor<301x1x5xf32>
  %s = stablehlo.constant dense<1.5> : tensor<f32>
  %u_b0 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<301x64x5xf32>
  %u_b1 = stablehlo.broadcast_in_dim %lead, dims = [0] : (tensor<301xf32>) -> tensor<301x64x5xf32>
  %u_b2 = stablehlo.broadcast_in_dim %trail, dims = [1, 2] : (tensor<64x5xf32>) -> tensor<301x64x5xf32>
  %u_b3 = stablehlo.broadcast_in_dim %mid, dims = [1] : (tensor<64xf32>) -> tensor<301x64x5xf32>
  %u_b4 = stablehlo.broadcast_in_dim %tr, dims = [2, 0] : (tensor<5x301xf32>) -> tensor<301x64x5xf32>
  %u_b5 = stablehlo.broadcast_in_dim %one, dims = [0, 1, 2] : (tensor<301x1x5xf32>) -> tensor<301x64x5xf32>
  %u_c = stablehlo.constant dense<[0.25, 0.5, 0.75, 1.0, 1.25]> : tensor<5xf32>
  %u_b6 = stablehlo.broadcast_in_dim %u_c, dims = [2] : (tensor<5xf32>) -> tensor<301x64x5xf32>
  %u_k = stablehlo.constant dense<0.5> : tensor<301x64x5xf32>
  %u_same = stablehlo.broadcast_in_dim %full, dims = [0, 1, 2] : (tensor<301x64x5xf32>) -> tensor<301x64x5xf32>
  %u_v0 = stablehlo.multiply %u_same, %u_b0 : tensor<301x64x5xf32>
  %u_v1 = stablehlo.add %u_v0, %u_b1 : tensor<301x64x5xf32>
  %u_v2 = stablehlo.multiply %u_b2, %u_b3 : tensor<301x64x5xf32>
  %u_v3 = stablehlo.add %u_v1, %u_v2 : tensor<301x64x5xf32>
  %u_v4 = stablehlo.add %u_v3, %u_b4 : tensor<301x64x5xf32>
  %u_v5 = stablehlo.subtract %u_v4, %u_b5 : tensor<301x64x5xf32>
  %u_v6 = stablehlo.multiply %u_b6, %u_k : tensor<301x64x5xf32>
  %u_v7 = stablehlo.add %u_v5, %u_v6 : tensor<301x64x5xf32>
  %r0, %r1, %r2 = "tpu.fusion"(%full, %s, %lead, %trail, %mid, %tr, %one) ({
  ^bb0(%x0: tensor<301x64x5xf32>, %x1: tensor<f32>, %x2: tensor<301xf32>, %x3: tensor<64x5xf32>, %x4: tensor<64xf32>, %x5: tensor<5x301xf32>, %x6: tensor<301x1x5xf32>):
    %f_b0 = stablehlo.broadcast_in_dim %x1, dims = [] : (tensor<f32>) -> tensor<301x64x5xf32>
    %f_b1 = stablehlo.broadcast_in_dim %x2, dims = [0] : (tensor<301xf32>) -> tensor<301x64x5xf32>
    %f_b2 = stablehlo.broadcast_in_dim %x3, dims = [1, 2] : (tensor<64x5xf32>) -> tensor<301x64x5xf32>
    %f_b3 = stablehlo.broadcast_in_dim %x4, dims = [1] : (tensor<64xf32>) -> tensor<301x64x5xf32>
    %f_b4 = stablehlo.broadcast_in_dim %x5, dims = [2, 0] : (tensor<5x301xf32>) -> tensor<301x64x5xf32>
    %f_b5 = stablehlo.broadcast_in_dim %x6, dims = [0, 1, 2] : (tensor<301x1x5xf32>) -> tensor<301x64x5xf32>
    %f_c = stablehlo.constant dense<[0.25, 0.5, 0.75, 1.0, 1.25]> : tensor<5xf32>
    %f_b6 = stablehlo.broadcast_in_dim %f_c, dims = [2] : (tensor<5xf32>) -> tensor<301x64x5xf32>
    %f_k = stablehlo.constant dense<0.5> : tensor<301x64x5xf32>
    %f_same = stablehlo.broadcast_in_dim %x0, dims = [0, 1, 2] : (tensor<301x64x5xf32>) -> tensor<301x64x5xf32>
    %f_v0 = stablehlo.multiply %f_same, %f_b0 : tensor<301x64x5xf32>
    %f_v1 = stablehlo.add %f_v0, %f_b1 : tensor<301x64x5xf32>
    %f_v2 = stablehlo.multiply %f_b2, %f_b3 : tensor<301x64x5xf32>
    %f_v3 = stablehlo.add %f_v1, %f_v2 : tensor<301x64x5xf32>
    %f_v4 = stablehlo.add %f_v3, %f_b4 : tensor<301x64x5xf32>
    %f_v5 = stablehlo.subtract %f_v4, %f_b5 : tensor<301x64x5xf32>
    %f_v6 = stablehlo.multiply %f_b6, %f_k : tensor<301x64x5xf32>
    %f_v7 = stablehlo.add %f_v5, %f_v6 : tensor<301x64x5xf32>
    "tpu.yield"(%f_v7, %f_b4, %f_b2) : (tensor<301x64x5xf32>, tensor<301x64x5xf32>, tensor<301x64x5xf32>) -> ()
  }) {kind = "loop"} : (tensor<301x64x5xf32>, tensor<f32>, tensor<301xf32>, tensor<64x5xf32>, tensor<64xf32>, tensor<5x301xf32>, tensor<301x1x5xf32>) -> (tensor<301x64x5xf32>, tensor<301x64x5xf32>, tensor<301x64x5xf32>)
  check.expect_eq %r0, %u_v7 : tensor<301x64x5xf32>
  check.expect_eq %r1, %u_b4 : tensor<301x64x5xf32>
  check.expect_eq %r2, %u_b2 : tensor<301x64x5xf32>
  func.return
}

// Broadcasts of every kind into 3x4x5: scalar, leading, trailing, middle, transposing, size-1, a constant; identity.
func.func @broadcasts_small() {
  %full_i = stablehlo.iota dim = 0 : tensor<60xi32>
  %full_o = stablehlo.constant dense<0> : tensor<60xi32>
  %full_j = stablehlo.add %full_i, %full_o : tensor<60xi32>
  %full_f = stablehlo.convert %full_j : (tensor<60xi32>) -> tensor<60xf32>
  %full_s = stablehlo.constant dense<0.0137> : tensor<60xf32>
  %full_t = stablehlo.multiply %full_f, %full_s : tensor<60xf32>
  %full_w = stablehlo.sine %full_t : tensor<60xf32>
  %full_c = stablehlo.add %full_w, %full_w : tensor<60xf32>
  %full = stablehlo.reshape %full_c : (tensor<60xf32>) -> tensor<3x4x5xf32>
  %lead_i = stablehlo.iota dim = 0 : tensor<3xi32>
  %lead_o = stablehlo.constant dense<5> : tensor<3xi32>
  %lead_j = stablehlo.add %lead_i, %lead_o : tensor<3xi32>
  %lead_f = stablehlo.convert %lead_j : (tensor<3xi32>) -> tensor<3xf32>
  %lead_s = stablehlo.constant dense<0.0137> : tensor<3xf32>
  %lead_t = stablehlo.multiply %lead_f, %lead_s : tensor<3xf32>
  %lead_w = stablehlo.sine %lead_t : tensor<3xf32>
  %lead_c = stablehlo.add %lead_w, %lead_w : tensor<3xf32>
  %lead = stablehlo.reshape %lead_c : (tensor<3xf32>) -> tensor<3xf32>
  %trail_i = stablehlo.iota dim = 0 : tensor<20xi32>
  %trail_o = stablehlo.constant dense<9> : tensor<20xi32>
  %trail_j = stablehlo.add %trail_i, %trail_o : tensor<20xi32>
  %trail_f = stablehlo.convert %trail_j : (tensor<20xi32>) -> tensor<20xf32>
  %trail_s = stablehlo.constant dense<0.0137> : tensor<20xf32>
  %trail_t = stablehlo.multiply %trail_f, %trail_s : tensor<20xf32>
  %trail_w = stablehlo.cosine %trail_t : tensor<20xf32>
  %trail_c = stablehlo.add %trail_w, %trail_w : tensor<20xf32>
  %trail = stablehlo.reshape %trail_c : (tensor<20xf32>) -> tensor<4x5xf32>
  %mid_i = stablehlo.iota dim = 0 : tensor<4xi32>
  %mid_o = stablehlo.constant dense<13> : tensor<4xi32>
  %mid_j = stablehlo.add %mid_i, %mid_o : tensor<4xi32>
  %mid_f = stablehlo.convert %mid_j : (tensor<4xi32>) -> tensor<4xf32>
  %mid_s = stablehlo.constant dense<0.0137> : tensor<4xf32>
  %mid_t = stablehlo.multiply %mid_f, %mid_s : tensor<4xf32>
  %mid_w = stablehlo.sine %mid_t : tensor<4xf32>
  %mid_c = stablehlo.add %mid_w, %mid_w : tensor<4xf32>
  %mid = stablehlo.reshape %mid_c : (tensor<4xf32>) -> tensor<4xf32>
  %tr_i = stablehlo.iota dim = 0 : tensor<15xi32>
  %tr_o = stablehlo.constant dense<17> : tensor<15xi32>
  %tr_j = stablehlo.add %tr_i, %tr_o : tensor<15xi32>
  %tr_f = stablehlo.convert %tr_j : (tensor<15xi32>) -> tensor<15xf32>
  %tr_s = stablehlo.constant dense<0.0137> : tensor<15xf32>
  %tr_t = stablehlo.multiply %tr_f, %tr_s : tensor<15xf32>
  %tr_w = stablehlo.sine %tr_t : tensor<15xf32>
  %tr_c = stablehlo.add %tr_w, %tr_w : tensor<15xf32>
  %tr = stablehlo.reshape %tr_c : (tensor<15xf32>) -> tensor<5x3xf32>
  %one_i = stablehlo.iota dim = 0 : tensor<15xi32>
  %one_o = stablehlo.constant dense<21> : tensor<15xi32>
  %one_j = stablehlo.add %one_i, %one_o : tensor<15xi32>
  %one_f = stablehlo.convert %one_j : (tensor<15xi32>) -> tensor<15xf32>
  %one_s = stablehlo.constant dense<0.0137> : tensor<15xf32>
  %one_t = stablehlo.multiply %one_f, %one_s : tensor<15xf32>
  %one_w = stablehlo.cosine %one_t : tensor<15xf32>
  %one_c = stablehlo.add %one_w, %one_w : tensor<15xf32>
  %one = stablehlo.reshape %one_c : (tensor<15xf32>) -> tensor<3x1x5xf32>
  %s = stablehlo.constant dense<1.5> : tensor<f32>
  %u_b0 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<3x4x5xf32>
  %u_b1 = stablehlo.broadcast_in_dim %lead, dims = [0] : (tensor<3xf32>) -> tensor<3x4x5xf32>
  %u_b2 = stablehlo.broadcast_in_dim %trail, dims = [1, 2] : (tensor<4x5xf32>) -> tensor<3x4x5xf32>
  %u_b3 = stablehlo.broadcast_in_dim %mid, dims = [1] : (tensor<4xf32>) -> tensor<3x4x5xf32>
  %u_b4 = stablehlo.broadcast_in_dim %tr, dims = [2, 0] : (tensor<5x3xf32>) -> tensor<3x4x5xf32>
  %u_b5 = stablehlo.broadcast_in_dim %one, dims = [0, 1, 2] : (tensor<3x1x5xf32>) -> tensor<3x4x5xf32>
  %u_c = stablehlo.constant dense<[0.25, 0.5, 0.75, 1.0, 1.25]> : tensor<5xf32>
  %u_b6 = stablehlo.broadcast_in_dim %u_c, dims = [2] : (tensor<5xf32>) -> tensor<3x4x5xf32>
  %u_k = stablehlo.constant dense<0.5> : tensor<3x4x5xf32>
  %u_same = stablehlo.broadcast_in_dim %full, dims = [0, 1, 2] : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %u_v0 = stablehlo.multiply %u_same, %u_b0 : tensor<3x4x5xf32>
  %u_v1 = stablehlo.add %u_v0, %u_b1 : tensor<3x4x5xf32>
  %u_v2 = stablehlo.multiply %u_b2, %u_b3 : tensor<3x4x5xf32>
  %u_v3 = stablehlo.add %u_v1, %u_v2 : tensor<3x4x5xf32>
  %u_v4 = stablehlo.add %u_v3, %u_b4 : tensor<3x4x5xf32>
  %u_v5 = stablehlo.subtract %u_v4, %u_b5 : tensor<3x4x5xf32>
  %u_v6 = stablehlo.multiply %u_b6, %u_k : tensor<3x4x5xf32>
  %u_v7 = stablehlo.add %u_v5, %u_v6 : tensor<3x4x5xf32>
  %r0, %r1, %r2 = "tpu.fusion"(%full, %s, %lead, %trail, %mid, %tr, %one) ({
  ^bb0(%x0: tensor<3x4x5xf32>, %x1: tensor<f32>, %x2: tensor<3xf32>, %x3: tensor<4x5xf32>, %x4: tensor<4xf32>, %x5: tensor<5x3xf32>, %x6: tensor<3x1x5xf32>):
    %f_b0 = stablehlo.broadcast_in_dim %x1, dims = [] : (tensor<f32>) -> tensor<3x4x5xf32>
    %f_b1 = stablehlo.broadcast_in_dim %x2, dims = [0] : (tensor<3xf32>) -> tensor<3x4x5xf32>
    %f_b2 = stablehlo.broadcast_in_dim %x3, dims = [1, 2] : (tensor<4x5xf32>) -> tensor<3x4x5xf32>
    %f_b3 = stablehlo.broadcast_in_dim %x4, dims = [1] : (tensor<4xf32>) -> tensor<3x4x5xf32>
    %f_b4 = stablehlo.broadcast_in_dim %x5, dims = [2, 0] : (tensor<5x3xf32>) -> tensor<3x4x5xf32>
    %f_b5 = stablehlo.broadcast_in_dim %x6, dims = [0, 1, 2] : (tensor<3x1x5xf32>) -> tensor<3x4x5xf32>
    %f_c = stablehlo.constant dense<[0.25, 0.5, 0.75, 1.0, 1.25]> : tensor<5xf32>
    %f_b6 = stablehlo.broadcast_in_dim %f_c, dims = [2] : (tensor<5xf32>) -> tensor<3x4x5xf32>
    %f_k = stablehlo.constant dense<0.5> : tensor<3x4x5xf32>
    %f_same = stablehlo.broadcast_in_dim %x0, dims = [0, 1, 2] : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
    %f_v0 = stablehlo.multiply %f_same, %f_b0 : tensor<3x4x5xf32>
    %f_v1 = stablehlo.add %f_v0, %f_b1 : tensor<3x4x5xf32>
    %f_v2 = stablehlo.multiply %f_b2, %f_b3 : tensor<3x4x5xf32>
    %f_v3 = stablehlo.add %f_v1, %f_v2 : tensor<3x4x5xf32>
    %f_v4 = stablehlo.add %f_v3, %f_b4 : tensor<3x4x5xf32>
    %f_v5 = stablehlo.subtract %f_v4, %f_b5 : tensor<3x4x5xf32>
    %f_v6 = stablehlo.multiply %f_b6, %f_k : tensor<3x4x5xf32>
    %f_v7 = stablehlo.add %f_v5, %f_v6 : tensor<3x4x5xf32>
    "tpu.yield"(%f_v7, %f_b4, %f_b2) : (tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>) -> ()
  }) {kind = "loop"} : (tensor<3x4x5xf32>, tensor<f32>, tensor<3xf32>, tensor<4x5xf32>, tensor<4xf32>, tensor<5x3xf32>, tensor<3x1x5xf32>) -> (tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>)
  check.expect_eq %r0, %u_v7 : tensor<3x4x5xf32>
  check.expect_eq %r1, %u_b4 : tensor<3x4x5xf32>
  check.expect_eq %r2, %u_b2 : tensor<3x4x5xf32>
  func.return
}

// Broadcasts of every kind into 7x1x3: scalar, leading, trailing, middle, transposing, size-1, a constant; identity.
func.func @broadcasts_odd() {
  %full_i = stablehlo.iota dim = 0 : tensor<21xi32>
  %full_o = stablehlo.constant dense<0> : tensor<21xi32>
  %full_j = stablehlo.add %full_i, %full_o : tensor<21xi32>
  %full_f = stablehlo.convert %full_j : (tensor<21xi32>) -> tensor<21xf32>
  %full_s = stablehlo.constant dense<0.0137> : tensor<21xf32>
  %full_t = stablehlo.multiply %full_f, %full_s : tensor<21xf32>
  %full_w = stablehlo.sine %full_t : tensor<21xf32>
  %full_c = stablehlo.add %full_w, %full_w : tensor<21xf32>
  %full = stablehlo.reshape %full_c : (tensor<21xf32>) -> tensor<7x1x3xf32>
  %lead_i = stablehlo.iota dim = 0 : tensor<7xi32>
  %lead_o = stablehlo.constant dense<5> : tensor<7xi32>
  %lead_j = stablehlo.add %lead_i, %lead_o : tensor<7xi32>
  %lead_f = stablehlo.convert %lead_j : (tensor<7xi32>) -> tensor<7xf32>
  %lead_s = stablehlo.constant dense<0.0137> : tensor<7xf32>
  %lead_t = stablehlo.multiply %lead_f, %lead_s : tensor<7xf32>
  %lead_w = stablehlo.sine %lead_t : tensor<7xf32>
  %lead_c = stablehlo.add %lead_w, %lead_w : tensor<7xf32>
  %lead = stablehlo.reshape %lead_c : (tensor<7xf32>) -> tensor<7xf32>
  %trail_i = stablehlo.iota dim = 0 : tensor<3xi32>
  %trail_o = stablehlo.constant dense<9> : tensor<3xi32>
  %trail_j = stablehlo.add %trail_i, %trail_o : tensor<3xi32>
  %trail_f = stablehlo.convert %trail_j : (tensor<3xi32>) -> tensor<3xf32>
  %trail_s = stablehlo.constant dense<0.0137> : tensor<3xf32>
  %trail_t = stablehlo.multiply %trail_f, %trail_s : tensor<3xf32>
  %trail_w = stablehlo.cosine %trail_t : tensor<3xf32>
  %trail_c = stablehlo.add %trail_w, %trail_w : tensor<3xf32>
  %trail = stablehlo.reshape %trail_c : (tensor<3xf32>) -> tensor<1x3xf32>
  %mid_i = stablehlo.iota dim = 0 : tensor<1xi32>
  %mid_o = stablehlo.constant dense<13> : tensor<1xi32>
  %mid_j = stablehlo.add %mid_i, %mid_o : tensor<1xi32>
  %mid_f = stablehlo.convert %mid_j : (tensor<1xi32>) -> tensor<1xf32>
  %mid_s = stablehlo.constant dense<0.0137> : tensor<1xf32>
  %mid_t = stablehlo.multiply %mid_f, %mid_s : tensor<1xf32>
  %mid_w = stablehlo.sine %mid_t : tensor<1xf32>
  %mid_c = stablehlo.add %mid_w, %mid_w : tensor<1xf32>
  %mid = stablehlo.reshape %mid_c : (tensor<1xf32>) -> tensor<1xf32>
  %tr_i = stablehlo.iota dim = 0 : tensor<21xi32>
  %tr_o = stablehlo.constant dense<17> : tensor<21xi32>
  %tr_j = stablehlo.add %tr_i, %tr_o : tensor<21xi32>
  %tr_f = stablehlo.convert %tr_j : (tensor<21xi32>) -> tensor<21xf32>
  %tr_s = stablehlo.constant dense<0.0137> : tensor<21xf32>
  %tr_t = stablehlo.multiply %tr_f, %tr_s : tensor<21xf32>
  %tr_w = stablehlo.sine %tr_t : tensor<21xf32>
  %tr_c = stablehlo.add %tr_w, %tr_w : tensor<21xf32>
  %tr = stablehlo.reshape %tr_c : (tensor<21xf32>) -> tensor<3x7xf32>
  %one_i = stablehlo.iota dim = 0 : tensor<21xi32>
  %one_o = stablehlo.constant dense<21> : tensor<21xi32>
  %one_j = stablehlo.add %one_i, %one_o : tensor<21xi32>
  %one_f = stablehlo.convert %one_j : (tensor<21xi32>) -> tensor<21xf32>
  %one_s = stablehlo.constant dense<0.0137> : tensor<21xf32>
  %one_t = stablehlo.multiply %one_f, %one_s : tensor<21xf32>
  %one_w = stablehlo.cosine %one_t : tensor<21xf32>
  %one_c = stablehlo.add %one_w, %one_w : tensor<21xf32>
  %one = stablehlo.reshape %one_c : (tensor<21xf32>) -> tensor<7x1x3xf32>
  %s = stablehlo.constant dense<1.5> : tensor<f32>
  %u_b0 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<7x1x3xf32>
  %u_b1 = stablehlo.broadcast_in_dim %lead, dims = [0] : (tensor<7xf32>) -> tensor<7x1x3xf32>
  %u_b2 = stablehlo.broadcast_in_dim %trail, dims = [1, 2] : (tensor<1x3xf32>) -> tensor<7x1x3xf32>
  %u_b3 = stablehlo.broadcast_in_dim %mid, dims = [1] : (tensor<1xf32>) -> tensor<7x1x3xf32>
  %u_b4 = stablehlo.broadcast_in_dim %tr, dims = [2, 0] : (tensor<3x7xf32>) -> tensor<7x1x3xf32>
  %u_b5 = stablehlo.broadcast_in_dim %one, dims = [0, 1, 2] : (tensor<7x1x3xf32>) -> tensor<7x1x3xf32>
  %u_c = stablehlo.constant dense<[0.25, 0.5, 0.75]> : tensor<3xf32>
  %u_b6 = stablehlo.broadcast_in_dim %u_c, dims = [2] : (tensor<3xf32>) -> tensor<7x1x3xf32>
  %u_k = stablehlo.constant dense<0.5> : tensor<7x1x3xf32>
  %u_same = stablehlo.broadcast_in_dim %full, dims = [0, 1, 2] : (tensor<7x1x3xf32>) -> tensor<7x1x3xf32>
  %u_v0 = stablehlo.multiply %u_same, %u_b0 : tensor<7x1x3xf32>
  %u_v1 = stablehlo.add %u_v0, %u_b1 : tensor<7x1x3xf32>
  %u_v2 = stablehlo.multiply %u_b2, %u_b3 : tensor<7x1x3xf32>
  %u_v3 = stablehlo.add %u_v1, %u_v2 : tensor<7x1x3xf32>
  %u_v4 = stablehlo.add %u_v3, %u_b4 : tensor<7x1x3xf32>
  %u_v5 = stablehlo.subtract %u_v4, %u_b5 : tensor<7x1x3xf32>
  %u_v6 = stablehlo.multiply %u_b6, %u_k : tensor<7x1x3xf32>
  %u_v7 = stablehlo.add %u_v5, %u_v6 : tensor<7x1x3xf32>
  %r0, %r1, %r2 = "tpu.fusion"(%full, %s, %lead, %trail, %mid, %tr, %one) ({
  ^bb0(%x0: tensor<7x1x3xf32>, %x1: tensor<f32>, %x2: tensor<7xf32>, %x3: tensor<1x3xf32>, %x4: tensor<1xf32>, %x5: tensor<3x7xf32>, %x6: tensor<7x1x3xf32>):
    %f_b0 = stablehlo.broadcast_in_dim %x1, dims = [] : (tensor<f32>) -> tensor<7x1x3xf32>
    %f_b1 = stablehlo.broadcast_in_dim %x2, dims = [0] : (tensor<7xf32>) -> tensor<7x1x3xf32>
    %f_b2 = stablehlo.broadcast_in_dim %x3, dims = [1, 2] : (tensor<1x3xf32>) -> tensor<7x1x3xf32>
    %f_b3 = stablehlo.broadcast_in_dim %x4, dims = [1] : (tensor<1xf32>) -> tensor<7x1x3xf32>
    %f_b4 = stablehlo.broadcast_in_dim %x5, dims = [2, 0] : (tensor<3x7xf32>) -> tensor<7x1x3xf32>
    %f_b5 = stablehlo.broadcast_in_dim %x6, dims = [0, 1, 2] : (tensor<7x1x3xf32>) -> tensor<7x1x3xf32>
    %f_c = stablehlo.constant dense<[0.25, 0.5, 0.75]> : tensor<3xf32>
    %f_b6 = stablehlo.broadcast_in_dim %f_c, dims = [2] : (tensor<3xf32>) -> tensor<7x1x3xf32>
    %f_k = stablehlo.constant dense<0.5> : tensor<7x1x3xf32>
    %f_same = stablehlo.broadcast_in_dim %x0, dims = [0, 1, 2] : (tensor<7x1x3xf32>) -> tensor<7x1x3xf32>
    %f_v0 = stablehlo.multiply %f_same, %f_b0 : tensor<7x1x3xf32>
    %f_v1 = stablehlo.add %f_v0, %f_b1 : tensor<7x1x3xf32>
    %f_v2 = stablehlo.multiply %f_b2, %f_b3 : tensor<7x1x3xf32>
    %f_v3 = stablehlo.add %f_v1, %f_v2 : tensor<7x1x3xf32>
    %f_v4 = stablehlo.add %f_v3, %f_b4 : tensor<7x1x3xf32>
    %f_v5 = stablehlo.subtract %f_v4, %f_b5 : tensor<7x1x3xf32>
    %f_v6 = stablehlo.multiply %f_b6, %f_k : tensor<7x1x3xf32>
    %f_v7 = stablehlo.add %f_v5, %f_v6 : tensor<7x1x3xf32>
    "tpu.yield"(%f_v7, %f_b4, %f_b2) : (tensor<7x1x3xf32>, tensor<7x1x3xf32>, tensor<7x1x3xf32>) -> ()
  }) {kind = "loop"} : (tensor<7x1x3xf32>, tensor<f32>, tensor<7xf32>, tensor<1x3xf32>, tensor<1xf32>, tensor<3x7xf32>, tensor<7x1x3xf32>) -> (tensor<7x1x3xf32>, tensor<7x1x3xf32>, tensor<7x1x3xf32>)
  check.expect_eq %r0, %u_v7 : tensor<7x1x3xf32>
  check.expect_eq %r1, %u_b4 : tensor<7x1x3xf32>
  check.expect_eq %r2, %u_b2 : tensor<7x1x3xf32>
  func.return
}

// Reshapes of parameters (full and scalar) and of computed values; a value
// that dies while a reshape of it lives on is not overwritten in place.
func.func @reshapes() {
  %p_i = stablehlo.iota dim = 0 : tensor<320xi32>
  %p_o = stablehlo.constant dense<0> : tensor<320xi32>
  %p_j = stablehlo.add %p_i, %p_o : tensor<320xi32>
  %p_f = stablehlo.convert %p_j : (tensor<320xi32>) -> tensor<320xf32>
  %p_s = stablehlo.constant dense<0.0137> : tensor<320xf32>
  %p_t = stablehlo.multiply %p_f, %p_s : tensor<320xf32>
  %p_w = stablehlo.sine %p_t : tensor<320xf32>
  %p_c = stablehlo.add %p_w, %p_w : tensor<320xf32>
  %p = stablehlo.reshape %p_c : (tensor<320xf32>) -> tensor<320xf32>
  %q_i = stablehlo.iota dim = 0 : tensor<320xi32>
  %q_o = stablehlo.constant dense<3> : tensor<320xi32>
  %q_j = stablehlo.add %q_i, %q_o : tensor<320xi32>
  %q_f = stablehlo.convert %q_j : (tensor<320xi32>) -> tensor<320xf32>
  %q_s = stablehlo.constant dense<0.0137> : tensor<320xf32>
  %q_t = stablehlo.multiply %q_f, %q_s : tensor<320xf32>
  %q_w = stablehlo.sine %q_t : tensor<320xf32>
  %q_c = stablehlo.add %q_w, %q_w : tensor<320xf32>
  %q = stablehlo.reshape %q_c : (tensor<320xf32>) -> tensor<20x16xf32>
  %s = stablehlo.constant dense<-2.0> : tensor<f32>
  %u_rp = stablehlo.reshape %p : (tensor<320xf32>) -> tensor<20x16xf32>
  %u_rs = stablehlo.reshape %s : (tensor<f32>) -> tensor<1x1xf32>
  %u_bs = stablehlo.broadcast_in_dim %u_rs, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<20x16xf32>
  %u_a = stablehlo.add %u_rp, %q : tensor<20x16xf32>
  %u_b = stablehlo.multiply %u_a, %u_bs : tensor<20x16xf32>
  %u_rb = stablehlo.reshape %u_b : (tensor<20x16xf32>) -> tensor<16x20xf32>
  %u_c = stablehlo.sqrt %u_rb : tensor<16x20xf32>
  %u_rr = stablehlo.reshape %u_c : (tensor<16x20xf32>) -> tensor<320xf32>
  %u_e = stablehlo.exponential %u_rp : tensor<20x16xf32>
  %u_er = stablehlo.reshape %u_e : (tensor<20x16xf32>) -> tensor<320xf32>
  %u_en = stablehlo.negate %u_e : tensor<20x16xf32>
  %u_enr = stablehlo.reshape %u_en : (tensor<20x16xf32>) -> tensor<320xf32>
  %u_sum = stablehlo.add %u_er, %u_enr : tensor<320xf32>
  %r0, %r1, %r2, %r3 = "tpu.fusion"(%p, %q, %s) ({
  ^bb0(%x0: tensor<320xf32>, %x1: tensor<20x16xf32>, %x2: tensor<f32>):
    %f_rp = stablehlo.reshape %x0 : (tensor<320xf32>) -> tensor<20x16xf32>
    %f_rs = stablehlo.reshape %x2 : (tensor<f32>) -> tensor<1x1xf32>
    %f_bs = stablehlo.broadcast_in_dim %f_rs, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<20x16xf32>
    %f_a = stablehlo.add %f_rp, %x1 : tensor<20x16xf32>
    %f_b = stablehlo.multiply %f_a, %f_bs : tensor<20x16xf32>
    %f_rb = stablehlo.reshape %f_b : (tensor<20x16xf32>) -> tensor<16x20xf32>
    %f_c = stablehlo.sqrt %f_rb : tensor<16x20xf32>
    %f_rr = stablehlo.reshape %f_c : (tensor<16x20xf32>) -> tensor<320xf32>
    %f_e = stablehlo.exponential %f_rp : tensor<20x16xf32>
    %f_er = stablehlo.reshape %f_e : (tensor<20x16xf32>) -> tensor<320xf32>
    %f_en = stablehlo.negate %f_e : tensor<20x16xf32>
    %f_enr = stablehlo.reshape %f_en : (tensor<20x16xf32>) -> tensor<320xf32>
    %f_sum = stablehlo.add %f_er, %f_enr : tensor<320xf32>
    "tpu.yield"(%f_rr, %f_b, %f_rb, %f_sum) : (tensor<320xf32>, tensor<20x16xf32>, tensor<16x20xf32>, tensor<320xf32>) -> ()
  }) {kind = "loop"} : (tensor<320xf32>, tensor<20x16xf32>, tensor<f32>) -> (tensor<320xf32>, tensor<20x16xf32>, tensor<16x20xf32>, tensor<320xf32>)
  check.expect_eq %r0, %u_rr : tensor<320xf32>
  check.expect_eq %r1, %u_b : tensor<20x16xf32>
  check.expect_eq %r2, %u_rb : tensor<16x20xf32>
  check.expect_eq %r3, %u_sum : tensor<320xf32>
  func.return
}

// Converts between f32, bf16, i32 and f64 over 70001 elements; bf16 and f64 arithmetic.
func.func @converts() {
  %x_i = stablehlo.iota dim = 0 : tensor<70001xi32>
  %x_o = stablehlo.constant dense<0> : tensor<70001xi32>
  %x_j = stablehlo.add %x_i, %x_o : tensor<70001xi32>
  %x_f = stablehlo.convert %x_j : (tensor<70001xi32>) -> tensor<70001xf32>
  %x_s = stablehlo.constant dense<0.37> : tensor<70001xf32>
  %x_t = stablehlo.multiply %x_f, %x_s : tensor<70001xf32>
  %x_w = stablehlo.sine %x_t : tensor<70001xf32>
  %x_c = stablehlo.add %x_w, %x_w : tensor<70001xf32>
  %x = stablehlo.reshape %x_c : (tensor<70001xf32>) -> tensor<70001xf32>
  %y_i = stablehlo.iota dim = 0 : tensor<70001xi32>
  %y_o = stablehlo.constant dense<4> : tensor<70001xi32>
  %y_j = stablehlo.add %y_i, %y_o : tensor<70001xi32>
  %y_f = stablehlo.convert %y_j : (tensor<70001xi32>) -> tensor<70001xf32>
  %y_s = stablehlo.constant dense<0.011> : tensor<70001xf32>
  %y_t = stablehlo.multiply %y_f, %y_s : tensor<70001xf32>
  %y_w = stablehlo.cosine %y_t : tensor<70001xf32>
  %y_c = stablehlo.add %y_w, %y_w : tensor<70001xf32>
  %y = stablehlo.reshape %y_c : (tensor<70001xf32>) -> tensor<70001xf32>
  %u_k = stablehlo.constant dense<1000.0> : tensor<70001xf32>
  %u_a = stablehlo.multiply %x, %u_k : tensor<70001xf32>
  %u_h = stablehlo.convert %u_a : (tensor<70001xf32>) -> tensor<70001xbf16>
  %u_hy = stablehlo.convert %y : (tensor<70001xf32>) -> tensor<70001xbf16>
  %u_h2 = stablehlo.add %u_h, %u_hy : tensor<70001xbf16>
  %u_h3 = stablehlo.multiply %u_h2, %u_hy : tensor<70001xbf16>
  %u_i = stablehlo.convert %u_a : (tensor<70001xf32>) -> tensor<70001xi32>
  %u_j = stablehlo.convert %u_h3 : (tensor<70001xbf16>) -> tensor<70001xi32>
  %u_ij = stablehlo.add %u_i, %u_j : tensor<70001xi32>
  %u_d = stablehlo.convert %u_ij : (tensor<70001xi32>) -> tensor<70001xf64>
  %u_dy = stablehlo.convert %y : (tensor<70001xf32>) -> tensor<70001xf64>
  %u_d2 = stablehlo.divide %u_d, %u_dy : tensor<70001xf64>
  %u_back = stablehlo.convert %u_d2 : (tensor<70001xf64>) -> tensor<70001xf32>
  %r0, %r1, %r2, %r3 = "tpu.fusion"(%x, %y) ({
  ^bb0(%x0: tensor<70001xf32>, %x1: tensor<70001xf32>):
    %f_k = stablehlo.constant dense<1000.0> : tensor<70001xf32>
    %f_a = stablehlo.multiply %x0, %f_k : tensor<70001xf32>
    %f_h = stablehlo.convert %f_a : (tensor<70001xf32>) -> tensor<70001xbf16>
    %f_hy = stablehlo.convert %x1 : (tensor<70001xf32>) -> tensor<70001xbf16>
    %f_h2 = stablehlo.add %f_h, %f_hy : tensor<70001xbf16>
    %f_h3 = stablehlo.multiply %f_h2, %f_hy : tensor<70001xbf16>
    %f_i = stablehlo.convert %f_a : (tensor<70001xf32>) -> tensor<70001xi32>
    %f_j = stablehlo.convert %f_h3 : (tensor<70001xbf16>) -> tensor<70001xi32>
    %f_ij = stablehlo.add %f_i, %f_j : tensor<70001xi32>
    %f_d = stablehlo.convert %f_ij : (tensor<70001xi32>) -> tensor<70001xf64>
    %f_dy = stablehlo.convert %x1 : (tensor<70001xf32>) -> tensor<70001xf64>
    %f_d2 = stablehlo.divide %f_d, %f_dy : tensor<70001xf64>
    %f_back = stablehlo.convert %f_d2 : (tensor<70001xf64>) -> tensor<70001xf32>
    "tpu.yield"(%f_h3, %f_ij, %f_d2, %f_back) : (tensor<70001xbf16>, tensor<70001xi32>, tensor<70001xf64>, tensor<70001xf32>) -> ()
  }) {kind = "loop"} : (tensor<70001xf32>, tensor<70001xf32>) -> (tensor<70001xbf16>, tensor<70001xi32>, tensor<70001xf64>, tensor<70001xf32>)
  check.expect_eq %r0, %u_h3 : tensor<70001xbf16>
  check.expect_eq %r1, %u_ij : tensor<70001xi32>
  check.expect_eq %r2, %u_d2 : tensor<70001xf64>
  check.expect_eq %r3, %u_back : tensor<70001xf32>
  func.return
}

// compare, select (full and scalar predicate), clamp (full and scalar bounds), is_finite, not.
func.func @compare_select_clamp() {
  %x_i = stablehlo.iota dim = 0 : tensor<9000xi32>
  %x_o = stablehlo.constant dense<0> : tensor<9000xi32>
  %x_j = stablehlo.add %x_i, %x_o : tensor<9000xi32>
  %x_f = stablehlo.convert %x_j : (tensor<9000xi32>) -> tensor<9000xf32>
  %x_s = stablehlo.constant dense<0.05> : tensor<9000xf32>
  %x_t = stablehlo.multiply %x_f, %x_s : tensor<9000xf32>
  %x_w = stablehlo.sine %x_t : tensor<9000xf32>
  %x_c = stablehlo.add %x_w, %x_w : tensor<9000xf32>
  %x = stablehlo.reshape %x_c : (tensor<9000xf32>) -> tensor<9000xf32>
  %y_i = stablehlo.iota dim = 0 : tensor<9000xi32>
  %y_o = stablehlo.constant dense<2> : tensor<9000xi32>
  %y_j = stablehlo.add %y_i, %y_o : tensor<9000xi32>
  %y_f = stablehlo.convert %y_j : (tensor<9000xi32>) -> tensor<9000xf32>
  %y_s = stablehlo.constant dense<0.031> : tensor<9000xf32>
  %y_t = stablehlo.multiply %y_f, %y_s : tensor<9000xf32>
  %y_w = stablehlo.cosine %y_t : tensor<9000xf32>
  %y_c = stablehlo.add %y_w, %y_w : tensor<9000xf32>
  %y = stablehlo.reshape %y_c : (tensor<9000xf32>) -> tensor<9000xf32>
  %q = stablehlo.constant dense<true> : tensor<i1>
  %lo = stablehlo.constant dense<-0.5> : tensor<f32>
  %hi = stablehlo.constant dense<0.25> : tensor<f32>
  %u_p = stablehlo.compare GT, %x, %y : (tensor<9000xf32>, tensor<9000xf32>) -> tensor<9000xi1>
  %u_s = stablehlo.select %u_p, %x, %y : tensor<9000xi1>, tensor<9000xf32>
  %u_t = stablehlo.select %q, %u_s, %y : (tensor<i1>, tensor<9000xf32>, tensor<9000xf32>) -> tensor<9000xf32>
  %u_c = stablehlo.clamp %lo, %u_t, %hi : (tensor<f32>, tensor<9000xf32>, tensor<f32>) -> tensor<9000xf32>
  %u_c2 = stablehlo.clamp %y, %x, %u_c : tensor<9000xf32>
  %u_z = stablehlo.compare LE, %u_c2, %u_c, TOTALORDER : (tensor<9000xf32>, tensor<9000xf32>) -> tensor<9000xi1>
  %u_nz = stablehlo.not %u_z : tensor<9000xi1>
  %u_f = stablehlo.divide %u_c2, %u_c : tensor<9000xf32>
  %u_fin = stablehlo.is_finite %u_f : (tensor<9000xf32>) -> tensor<9000xi1>
  %u_both = stablehlo.and %u_nz, %u_fin : tensor<9000xi1>
  %r0, %r1, %r2, %r3 = "tpu.fusion"(%x, %y, %q, %lo, %hi) ({
  ^bb0(%x0: tensor<9000xf32>, %x1: tensor<9000xf32>, %x2: tensor<i1>, %x3: tensor<f32>, %x4: tensor<f32>):
    %f_p = stablehlo.compare GT, %x0, %x1 : (tensor<9000xf32>, tensor<9000xf32>) -> tensor<9000xi1>
    %f_s = stablehlo.select %f_p, %x0, %x1 : tensor<9000xi1>, tensor<9000xf32>
    %f_t = stablehlo.select %x2, %f_s, %x1 : (tensor<i1>, tensor<9000xf32>, tensor<9000xf32>) -> tensor<9000xf32>
    %f_c = stablehlo.clamp %x3, %f_t, %x4 : (tensor<f32>, tensor<9000xf32>, tensor<f32>) -> tensor<9000xf32>
    %f_c2 = stablehlo.clamp %x1, %x0, %f_c : tensor<9000xf32>
    %f_z = stablehlo.compare LE, %f_c2, %f_c, TOTALORDER : (tensor<9000xf32>, tensor<9000xf32>) -> tensor<9000xi1>
    %f_nz = stablehlo.not %f_z : tensor<9000xi1>
    %f_f = stablehlo.divide %f_c2, %f_c : tensor<9000xf32>
    %f_fin = stablehlo.is_finite %f_f : (tensor<9000xf32>) -> tensor<9000xi1>
    %f_both = stablehlo.and %f_nz, %f_fin : tensor<9000xi1>
    "tpu.yield"(%f_c2, %f_both, %f_p, %f_f) : (tensor<9000xf32>, tensor<9000xi1>, tensor<9000xi1>, tensor<9000xf32>) -> ()
  }) {kind = "loop"} : (tensor<9000xf32>, tensor<9000xf32>, tensor<i1>, tensor<f32>, tensor<f32>) -> (tensor<9000xf32>, tensor<9000xi1>, tensor<9000xi1>, tensor<9000xf32>)
  check.expect_eq %r0, %u_c2 : tensor<9000xf32>
  check.expect_eq %r1, %u_both : tensor<9000xi1>
  check.expect_eq %r2, %u_p : tensor<9000xi1>
  check.expect_eq %r3, %u_f : tensor<9000xf32>
  func.return
}

// Integer ops, wrapping and x/0 included; i8 and ui16 arithmetic.
func.func @integers() {
  %a_i = stablehlo.iota dim = 0 : tensor<12345xi32>
  %a_m = stablehlo.constant dense<7919> : tensor<12345xi32>
  %a_a = stablehlo.constant dense<50000> : tensor<12345xi32>
  %a_p = stablehlo.multiply %a_i, %a_m : tensor<12345xi32>
  %a_v = stablehlo.subtract %a_p, %a_a : tensor<12345xi32>
  %a = stablehlo.add %a_v, %a_v : tensor<12345xi32>
  %b_i = stablehlo.iota dim = 0 : tensor<12345xi32>
  %b_m = stablehlo.constant dense<1> : tensor<12345xi32>
  %b_a = stablehlo.constant dense<6> : tensor<12345xi32>
  %b_p = stablehlo.multiply %b_i, %b_m : tensor<12345xi32>
  %b_d = stablehlo.constant dense<13> : tensor<12345xi32>
  %b_r = stablehlo.remainder %b_p, %b_d : tensor<12345xi32>
  %b_v = stablehlo.subtract %b_r, %b_a : tensor<12345xi32>
  %b = stablehlo.add %b_v, %b_v : tensor<12345xi32>
  %c_i = stablehlo.iota dim = 0 : tensor<12345xi32>
  %c_m = stablehlo.constant dense<37> : tensor<12345xi32>
  %c_a = stablehlo.constant dense<3> : tensor<12345xi32>
  %c_p = stablehlo.multiply %c_i, %c_m : tensor<12345xi32>
  %c_d = stablehlo.constant dense<256> : tensor<12345xi32>
  %c_r = stablehlo.remainder %c_p, %c_d : tensor<12345xi32>
  %c_v = stablehlo.subtract %c_r, %c_a : tensor<12345xi32>
  %c = stablehlo.convert %c_v : (tensor<12345xi32>) -> tensor<12345xi8>
  %e_i = stablehlo.iota dim = 0 : tensor<12345xi32>
  %e_m = stablehlo.constant dense<911> : tensor<12345xi32>
  %e_a = stablehlo.constant dense<7> : tensor<12345xi32>
  %e_p = stablehlo.multiply %e_i, %e_m : tensor<12345xi32>
  %e_v = stablehlo.subtract %e_p, %e_a : tensor<12345xi32>
  %e = stablehlo.convert %e_v : (tensor<12345xi32>) -> tensor<12345xui16>
  %u_s = stablehlo.add %a, %b : tensor<12345xi32>
  %u_m = stablehlo.multiply %a, %a : tensor<12345xi32>
  %u_d = stablehlo.divide %u_m, %b : tensor<12345xi32>
  %u_r = stablehlo.remainder %u_s, %b : tensor<12345xi32>
  %u_sh = stablehlo.shift_left %u_d, %b : tensor<12345xi32>
  %u_sa = stablehlo.shift_right_arithmetic %u_sh, %b : tensor<12345xi32>
  %u_x = stablehlo.xor %u_sa, %u_r : tensor<12345xi32>
  %u_an = stablehlo.and %u_x, %u_m : tensor<12345xi32>
  %u_mx = stablehlo.maximum %u_an, %u_d : tensor<12345xi32>
  %u_ab = stablehlo.abs %u_mx : tensor<12345xi32>
  %u_pc = stablehlo.popcnt %u_ab : tensor<12345xi32>
  %u_c2 = stablehlo.multiply %c, %c : tensor<12345xi8>
  %u_c3 = stablehlo.add %u_c2, %c : tensor<12345xi8>
  %u_e2 = stablehlo.subtract %e, %e : tensor<12345xui16>
  %u_e3 = stablehlo.subtract %u_e2, %e : tensor<12345xui16>
  %u_e4 = stablehlo.convert %u_c3 : (tensor<12345xi8>) -> tensor<12345xui16>
  %u_e5 = stablehlo.add %u_e3, %u_e4 : tensor<12345xui16>
  %r0, %r1, %r2, %r3 = "tpu.fusion"(%a, %b, %c, %e) ({
  ^bb0(%x0: tensor<12345xi32>, %x1: tensor<12345xi32>, %x2: tensor<12345xi8>, %x3: tensor<12345xui16>):
    %f_s = stablehlo.add %x0, %x1 : tensor<12345xi32>
    %f_m = stablehlo.multiply %x0, %x0 : tensor<12345xi32>
    %f_d = stablehlo.divide %f_m, %x1 : tensor<12345xi32>
    %f_r = stablehlo.remainder %f_s, %x1 : tensor<12345xi32>
    %f_sh = stablehlo.shift_left %f_d, %x1 : tensor<12345xi32>
    %f_sa = stablehlo.shift_right_arithmetic %f_sh, %x1 : tensor<12345xi32>
    %f_x = stablehlo.xor %f_sa, %f_r : tensor<12345xi32>
    %f_an = stablehlo.and %f_x, %f_m : tensor<12345xi32>
    %f_mx = stablehlo.maximum %f_an, %f_d : tensor<12345xi32>
    %f_ab = stablehlo.abs %f_mx : tensor<12345xi32>
    %f_pc = stablehlo.popcnt %f_ab : tensor<12345xi32>
    %f_c2 = stablehlo.multiply %x2, %x2 : tensor<12345xi8>
    %f_c3 = stablehlo.add %f_c2, %x2 : tensor<12345xi8>
    %f_e2 = stablehlo.subtract %x3, %x3 : tensor<12345xui16>
    %f_e3 = stablehlo.subtract %f_e2, %x3 : tensor<12345xui16>
    %f_e4 = stablehlo.convert %f_c3 : (tensor<12345xi8>) -> tensor<12345xui16>
    %f_e5 = stablehlo.add %f_e3, %f_e4 : tensor<12345xui16>
    "tpu.yield"(%f_mx, %f_pc, %f_c3, %f_e5) : (tensor<12345xi32>, tensor<12345xi32>, tensor<12345xi8>, tensor<12345xui16>) -> ()
  }) {kind = "loop"} : (tensor<12345xi32>, tensor<12345xi32>, tensor<12345xi8>, tensor<12345xui16>) -> (tensor<12345xi32>, tensor<12345xi32>, tensor<12345xi8>, tensor<12345xui16>)
  check.expect_eq %r0, %u_mx : tensor<12345xi32>
  check.expect_eq %r1, %u_pc : tensor<12345xi32>
  check.expect_eq %r2, %u_c3 : tensor<12345xi8>
  check.expect_eq %r3, %u_e5 : tensor<12345xui16>
  func.return
}

// Several results: one value yielded twice, a parameter passed through, a constant.
func.func @multi_output() {
  %x_i = stablehlo.iota dim = 0 : tensor<5000xi32>
  %x_o = stablehlo.constant dense<0> : tensor<5000xi32>
  %x_j = stablehlo.add %x_i, %x_o : tensor<5000xi32>
  %x_f = stablehlo.convert %x_j : (tensor<5000xi32>) -> tensor<5000xf32>
  %x_s = stablehlo.constant dense<0.0137> : tensor<5000xf32>
  %x_t = stablehlo.multiply %x_f, %x_s : tensor<5000xf32>
  %x_w = stablehlo.sine %x_t : tensor<5000xf32>
  %x_c = stablehlo.add %x_w, %x_w : tensor<5000xf32>
  %x = stablehlo.reshape %x_c : (tensor<5000xf32>) -> tensor<5000xf32>
  %y_i = stablehlo.iota dim = 0 : tensor<5000xi32>
  %y_o = stablehlo.constant dense<1> : tensor<5000xi32>
  %y_j = stablehlo.add %y_i, %y_o : tensor<5000xi32>
  %y_f = stablehlo.convert %y_j : (tensor<5000xi32>) -> tensor<5000xf32>
  %y_s = stablehlo.constant dense<0.0137> : tensor<5000xf32>
  %y_t = stablehlo.multiply %y_f, %y_s : tensor<5000xf32>
  %y_w = stablehlo.cosine %y_t : tensor<5000xf32>
  %y_c = stablehlo.add %y_w, %y_w : tensor<5000xf32>
  %y = stablehlo.reshape %y_c : (tensor<5000xf32>) -> tensor<5000xf32>
  %u_a = stablehlo.add %x, %y : tensor<5000xf32>
  %u_b = stablehlo.multiply %u_a, %x : tensor<5000xf32>
  %u_k = stablehlo.constant dense<3.0> : tensor<5000xf32>
  %r0, %r1, %r2, %r3, %r4 = "tpu.fusion"(%x, %y) ({
  ^bb0(%x0: tensor<5000xf32>, %x1: tensor<5000xf32>):
    %f_a = stablehlo.add %x0, %x1 : tensor<5000xf32>
    %f_b = stablehlo.multiply %f_a, %x0 : tensor<5000xf32>
    %f_k = stablehlo.constant dense<3.0> : tensor<5000xf32>
    "tpu.yield"(%f_a, %f_b, %f_a, %x1, %f_k) : (tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>) -> ()
  }) {kind = "multi_output"} : (tensor<5000xf32>, tensor<5000xf32>) -> (tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf32>)
  check.expect_eq %r0, %u_a : tensor<5000xf32>
  check.expect_eq %r1, %u_b : tensor<5000xf32>
  check.expect_eq %r2, %u_a : tensor<5000xf32>
  check.expect_eq %r3, %y : tensor<5000xf32>
  check.expect_eq %r4, %u_k : tensor<5000xf32>
  func.return
}

// A body with a transpose cannot run by tiles: it runs whole.
func.func @fallback_transpose() {
  %x_i = stablehlo.iota dim = 0 : tensor<1200xi32>
  %x_o = stablehlo.constant dense<0> : tensor<1200xi32>
  %x_j = stablehlo.add %x_i, %x_o : tensor<1200xi32>
  %x_f = stablehlo.convert %x_j : (tensor<1200xi32>) -> tensor<1200xf32>
  %x_s = stablehlo.constant dense<0.0137> : tensor<1200xf32>
  %x_t = stablehlo.multiply %x_f, %x_s : tensor<1200xf32>
  %x_w = stablehlo.sine %x_t : tensor<1200xf32>
  %x_c = stablehlo.add %x_w, %x_w : tensor<1200xf32>
  %x = stablehlo.reshape %x_c : (tensor<1200xf32>) -> tensor<40x30xf32>
  %y_i = stablehlo.iota dim = 0 : tensor<1200xi32>
  %y_o = stablehlo.constant dense<11> : tensor<1200xi32>
  %y_j = stablehlo.add %y_i, %y_o : tensor<1200xi32>
  %y_f = stablehlo.convert %y_j : (tensor<1200xi32>) -> tensor<1200xf32>
  %y_s = stablehlo.constant dense<0.0137> : tensor<1200xf32>
  %y_t = stablehlo.multiply %y_f, %y_s : tensor<1200xf32>
  %y_w = stablehlo.sine %y_t : tensor<1200xf32>
  %y_c = stablehlo.add %y_w, %y_w : tensor<1200xf32>
  %y = stablehlo.reshape %y_c : (tensor<1200xf32>) -> tensor<30x40xf32>
  %u_t = stablehlo.transpose %x, dims = [1, 0] : (tensor<40x30xf32>) -> tensor<30x40xf32>
  %u_a = stablehlo.add %u_t, %y : tensor<30x40xf32>
  %u_b = stablehlo.exponential %u_a : tensor<30x40xf32>
  %r0 = "tpu.fusion"(%x, %y) ({
  ^bb0(%x0: tensor<40x30xf32>, %x1: tensor<30x40xf32>):
    %f_t = stablehlo.transpose %x0, dims = [1, 0] : (tensor<40x30xf32>) -> tensor<30x40xf32>
    %f_a = stablehlo.add %f_t, %x1 : tensor<30x40xf32>
    %f_b = stablehlo.exponential %f_a : tensor<30x40xf32>
    "tpu.yield"(%f_b) : (tensor<30x40xf32>) -> ()
  }) {kind = "loop"} : (tensor<40x30xf32>, tensor<30x40xf32>) -> (tensor<30x40xf32>)
  check.expect_eq %r0, %u_b : tensor<30x40xf32>
  func.return
}

// An input fusion (producers into a reduce) runs whole.
func.func @fallback_input() {
  %x_i = stablehlo.iota dim = 0 : tensor<2112xi32>
  %x_o = stablehlo.constant dense<0> : tensor<2112xi32>
  %x_j = stablehlo.add %x_i, %x_o : tensor<2112xi32>
  %x_f = stablehlo.convert %x_j : (tensor<2112xi32>) -> tensor<2112xf32>
  %x_s = stablehlo.constant dense<0.0137> : tensor<2112xf32>
  %x_t = stablehlo.multiply %x_f, %x_s : tensor<2112xf32>
  %x_w = stablehlo.sine %x_t : tensor<2112xf32>
  %x_c = stablehlo.add %x_w, %x_w : tensor<2112xf32>
  %x = stablehlo.reshape %x_c : (tensor<2112xf32>) -> tensor<64x33xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %u_a = stablehlo.multiply %x, %x : tensor<64x33xf32>
  %u_r = stablehlo.reduce(%u_a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<64x33xf32>, tensor<f32>) -> tensor<64xf32>
  %r0 = "tpu.fusion"(%x, %z) ({
  ^bb0(%x0: tensor<64x33xf32>, %x1: tensor<f32>):
    %f_a = stablehlo.multiply %x0, %x0 : tensor<64x33xf32>
    %f_r = stablehlo.reduce(%f_a init: %x1) applies stablehlo.add across dimensions = [1] : (tensor<64x33xf32>, tensor<f32>) -> tensor<64xf32>
    "tpu.yield"(%f_r) : (tensor<64xf32>) -> ()
  }) {kind = "input"} : (tensor<64x33xf32>, tensor<f32>) -> (tensor<64xf32>)
  check.expect_eq %r0, %u_r : tensor<64xf32>
  func.return
}

// A broadcast of a computed value needs other tiles: the body runs whole.
func.func @fallback_broadcast_computed() {
  %x_i = stablehlo.iota dim = 0 : tensor<16xi32>
  %x_o = stablehlo.constant dense<0> : tensor<16xi32>
  %x_j = stablehlo.add %x_i, %x_o : tensor<16xi32>
  %x_f = stablehlo.convert %x_j : (tensor<16xi32>) -> tensor<16xf32>
  %x_s = stablehlo.constant dense<0.0137> : tensor<16xf32>
  %x_t = stablehlo.multiply %x_f, %x_s : tensor<16xf32>
  %x_w = stablehlo.sine %x_t : tensor<16xf32>
  %x_c = stablehlo.add %x_w, %x_w : tensor<16xf32>
  %x = stablehlo.reshape %x_c : (tensor<16xf32>) -> tensor<16xf32>
  %y_i = stablehlo.iota dim = 0 : tensor<256xi32>
  %y_o = stablehlo.constant dense<3> : tensor<256xi32>
  %y_j = stablehlo.add %y_i, %y_o : tensor<256xi32>
  %y_f = stablehlo.convert %y_j : (tensor<256xi32>) -> tensor<256xf32>
  %y_s = stablehlo.constant dense<0.0137> : tensor<256xf32>
  %y_t = stablehlo.multiply %y_f, %y_s : tensor<256xf32>
  %y_w = stablehlo.sine %y_t : tensor<256xf32>
  %y_c = stablehlo.add %y_w, %y_w : tensor<256xf32>
  %y = stablehlo.reshape %y_c : (tensor<256xf32>) -> tensor<16x16xf32>
  %u_a = stablehlo.exponential %x : tensor<16xf32>
  %u_b = stablehlo.broadcast_in_dim %u_a, dims = [1] : (tensor<16xf32>) -> tensor<16x16xf32>
  %u_c = stablehlo.add %u_b, %y : tensor<16x16xf32>
  %r0 = "tpu.fusion"(%x, %y) ({
  ^bb0(%x0: tensor<16xf32>, %x1: tensor<16x16xf32>):
    %f_a = stablehlo.exponential %x0 : tensor<16xf32>
    %f_b = stablehlo.broadcast_in_dim %f_a, dims = [1] : (tensor<16xf32>) -> tensor<16x16xf32>
    %f_c = stablehlo.add %f_b, %x1 : tensor<16x16xf32>
    "tpu.yield"(%f_c) : (tensor<16x16xf32>) -> ()
  }) {kind = "loop"} : (tensor<16xf32>, tensor<16x16xf32>) -> (tensor<16x16xf32>)
  check.expect_eq %r0, %u_c : tensor<16x16xf32>
  func.return
}

// Rank-0 tensors (one element): scalars are full tiles.
func.func @tiny_scalars() {
  %x = stablehlo.constant dense<0.3> : tensor<f32>
  %y = stablehlo.constant dense<-1.7> : tensor<f32>
  %q = stablehlo.constant dense<false> : tensor<i1>
  %u_a = stablehlo.add %x, %y : tensor<f32>
  %u_k = stablehlo.constant dense<2.0> : tensor<f32>
  %u_b = stablehlo.multiply %u_a, %u_k : tensor<f32>
  %u_s = stablehlo.select %q, %u_a, %u_b : tensor<i1>, tensor<f32>
  %u_c = stablehlo.clamp %y, %u_s, %x : tensor<f32>
  %u_r = stablehlo.reshape %u_c : (tensor<f32>) -> tensor<1xf32>
  %r0, %r1, %r2 = "tpu.fusion"(%x, %y, %q) ({
  ^bb0(%x0: tensor<f32>, %x1: tensor<f32>, %x2: tensor<i1>):
    %f_a = stablehlo.add %x0, %x1 : tensor<f32>
    %f_k = stablehlo.constant dense<2.0> : tensor<f32>
    %f_b = stablehlo.multiply %f_a, %f_k : tensor<f32>
    %f_s = stablehlo.select %x2, %f_a, %f_b : tensor<i1>, tensor<f32>
    %f_c = stablehlo.clamp %x1, %f_s, %x0 : tensor<f32>
    %f_r = stablehlo.reshape %f_c : (tensor<f32>) -> tensor<1xf32>
    "tpu.yield"(%f_s, %f_c, %f_r) : (tensor<f32>, tensor<f32>, tensor<1xf32>) -> ()
  }) {kind = "loop"} : (tensor<f32>, tensor<f32>, tensor<i1>) -> (tensor<f32>, tensor<f32>, tensor<1xf32>)
  check.expect_eq %r0, %u_s : tensor<f32>
  check.expect_eq %r1, %u_c : tensor<f32>
  check.expect_eq %r2, %u_r : tensor<1xf32>
  func.return
}

// Three elements, with a broadcast scalar and a constant vector.
func.func @tiny_vector() {
  %x_i = stablehlo.iota dim = 0 : tensor<3xi32>
  %x_o = stablehlo.constant dense<0> : tensor<3xi32>
  %x_j = stablehlo.add %x_i, %x_o : tensor<3xi32>
  %x_f = stablehlo.convert %x_j : (tensor<3xi32>) -> tensor<3xf32>
  %x_s = stablehlo.constant dense<0.0137> : tensor<3xf32>
  %x_t = stablehlo.multiply %x_f, %x_s : tensor<3xf32>
  %x_w = stablehlo.sine %x_t : tensor<3xf32>
  %x_c = stablehlo.add %x_w, %x_w : tensor<3xf32>
  %x = stablehlo.reshape %x_c : (tensor<3xf32>) -> tensor<3xf32>
  %s = stablehlo.constant dense<4.0> : tensor<f32>
  %u_b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<3xf32>
  %u_c = stablehlo.constant dense<[1.0, -2.0, 3.5]> : tensor<3xf32>
  %u_a = stablehlo.multiply %x, %u_b : tensor<3xf32>
  %u_d = stablehlo.add %u_a, %u_c : tensor<3xf32>
  %r0 = "tpu.fusion"(%x, %s) ({
  ^bb0(%x0: tensor<3xf32>, %x1: tensor<f32>):
    %f_b = stablehlo.broadcast_in_dim %x1, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %f_c = stablehlo.constant dense<[1.0, -2.0, 3.5]> : tensor<3xf32>
    %f_a = stablehlo.multiply %x0, %f_b : tensor<3xf32>
    %f_d = stablehlo.add %f_a, %f_c : tensor<3xf32>
    "tpu.yield"(%f_d) : (tensor<3xf32>) -> ()
  }) {kind = "loop"} : (tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>)
  check.expect_eq %r0, %u_d : tensor<3xf32>
  func.return
}

// An empty fusion result: nothing to compute.
func.func @empty() {
  %x = stablehlo.constant dense<> : tensor<0xf32>
  %r = "tpu.fusion"(%x) ({
  ^bb0(%a: tensor<0xf32>):
    %b = stablehlo.add %a, %a : tensor<0xf32>
    "tpu.yield"(%b) : (tensor<0xf32>) -> ()
  }) {kind = "loop"} : (tensor<0xf32>) -> tensor<0xf32>
  check.expect_eq %r, %x : tensor<0xf32>
  func.return
}

// complex<f32> arithmetic, real and imag.
func.func @complex() {
  %x_i = stablehlo.iota dim = 0 : tensor<3001xi32>
  %x_o = stablehlo.constant dense<0> : tensor<3001xi32>
  %x_j = stablehlo.add %x_i, %x_o : tensor<3001xi32>
  %x_f = stablehlo.convert %x_j : (tensor<3001xi32>) -> tensor<3001xf32>
  %x_s = stablehlo.constant dense<0.0137> : tensor<3001xf32>
  %x_t = stablehlo.multiply %x_f, %x_s : tensor<3001xf32>
  %x_w = stablehlo.sine %x_t : tensor<3001xf32>
  %x_c = stablehlo.add %x_w, %x_w : tensor<3001xf32>
  %x = stablehlo.reshape %x_c : (tensor<3001xf32>) -> tensor<3001xf32>
  %y_i = stablehlo.iota dim = 0 : tensor<3001xi32>
  %y_o = stablehlo.constant dense<5> : tensor<3001xi32>
  %y_j = stablehlo.add %y_i, %y_o : tensor<3001xi32>
  %y_f = stablehlo.convert %y_j : (tensor<3001xi32>) -> tensor<3001xf32>
  %y_s = stablehlo.constant dense<0.0137> : tensor<3001xf32>
  %y_t = stablehlo.multiply %y_f, %y_s : tensor<3001xf32>
  %y_w = stablehlo.cosine %y_t : tensor<3001xf32>
  %y_c = stablehlo.add %y_w, %y_w : tensor<3001xf32>
  %y = stablehlo.reshape %y_c : (tensor<3001xf32>) -> tensor<3001xf32>
  %u_z = stablehlo.complex %x, %y : tensor<3001xcomplex<f32>>
  %u_z2 = stablehlo.multiply %u_z, %u_z : tensor<3001xcomplex<f32>>
  %u_z3 = stablehlo.add %u_z2, %u_z : tensor<3001xcomplex<f32>>
  %u_re = stablehlo.real %u_z3 : (tensor<3001xcomplex<f32>>) -> tensor<3001xf32>
  %u_im = stablehlo.imag %u_z3 : (tensor<3001xcomplex<f32>>) -> tensor<3001xf32>
  %u_s = stablehlo.subtract %u_re, %u_im : tensor<3001xf32>
  %r0, %r1 = "tpu.fusion"(%x, %y) ({
  ^bb0(%x0: tensor<3001xf32>, %x1: tensor<3001xf32>):
    %f_z = stablehlo.complex %x0, %x1 : tensor<3001xcomplex<f32>>
    %f_z2 = stablehlo.multiply %f_z, %f_z : tensor<3001xcomplex<f32>>
    %f_z3 = stablehlo.add %f_z2, %f_z : tensor<3001xcomplex<f32>>
    %f_re = stablehlo.real %f_z3 : (tensor<3001xcomplex<f32>>) -> tensor<3001xf32>
    %f_im = stablehlo.imag %f_z3 : (tensor<3001xcomplex<f32>>) -> tensor<3001xf32>
    %f_s = stablehlo.subtract %f_re, %f_im : tensor<3001xf32>
    "tpu.yield"(%f_z3, %f_s) : (tensor<3001xcomplex<f32>>, tensor<3001xf32>) -> ()
  }) {kind = "loop"} : (tensor<3001xf32>, tensor<3001xf32>) -> (tensor<3001xcomplex<f32>>, tensor<3001xf32>)
  check.expect_eq %r0, %u_z3 : tensor<3001xcomplex<f32>>
  check.expect_eq %r1, %u_s : tensor<3001xf32>
  func.return
}

// Results to compare across thread counts: 262150 elements (65 tiles, the last
// one six elements long), with a middle-dim broadcast and a convert.
func.func @outputs() -> (tensor<262150xf32>, tensor<7x37450xf32>, tensor<262150xf16>) {
  %x_i = stablehlo.iota dim = 0 : tensor<262150xi32>
  %x_o = stablehlo.constant dense<0> : tensor<262150xi32>
  %x_j = stablehlo.add %x_i, %x_o : tensor<262150xi32>
  %x_f = stablehlo.convert %x_j : (tensor<262150xi32>) -> tensor<262150xf32>
  %x_s = stablehlo.constant dense<0.0137> : tensor<262150xf32>
  %x_t = stablehlo.multiply %x_f, %x_s : tensor<262150xf32>
  %x_w = stablehlo.sine %x_t : tensor<262150xf32>
  %x_c = stablehlo.add %x_w, %x_w : tensor<262150xf32>
  %x = stablehlo.reshape %x_c : (tensor<262150xf32>) -> tensor<262150xf32>
  %y_i = stablehlo.iota dim = 0 : tensor<262150xi32>
  %y_o = stablehlo.constant dense<3> : tensor<262150xi32>
  %y_j = stablehlo.add %y_i, %y_o : tensor<262150xi32>
  %y_f = stablehlo.convert %y_j : (tensor<262150xi32>) -> tensor<262150xf32>
  %y_s = stablehlo.constant dense<0.0137> : tensor<262150xf32>
  %y_t = stablehlo.multiply %y_f, %y_s : tensor<262150xf32>
  %y_w = stablehlo.cosine %y_t : tensor<262150xf32>
  %y_c = stablehlo.add %y_w, %y_w : tensor<262150xf32>
  %y = stablehlo.reshape %y_c : (tensor<262150xf32>) -> tensor<262150xf32>
  %row_i = stablehlo.iota dim = 0 : tensor<37450xi32>
  %row_o = stablehlo.constant dense<7> : tensor<37450xi32>
  %row_j = stablehlo.add %row_i, %row_o : tensor<37450xi32>
  %row_f = stablehlo.convert %row_j : (tensor<37450xi32>) -> tensor<37450xf32>
  %row_s = stablehlo.constant dense<0.0137> : tensor<37450xf32>
  %row_t = stablehlo.multiply %row_f, %row_s : tensor<37450xf32>
  %row_w = stablehlo.sine %row_t : tensor<37450xf32>
  %row_c = stablehlo.add %row_w, %row_w : tensor<37450xf32>
  %row = stablehlo.reshape %row_c : (tensor<37450xf32>) -> tensor<37450xf32>
  %m_i = stablehlo.iota dim = 0 : tensor<262150xi32>
  %m_o = stablehlo.constant dense<1> : tensor<262150xi32>
  %m_j = stablehlo.add %m_i, %m_o : tensor<262150xi32>
  %m_f = stablehlo.convert %m_j : (tensor<262150xi32>) -> tensor<262150xf32>
  %m_s = stablehlo.constant dense<0.0137> : tensor<262150xf32>
  %m_t = stablehlo.multiply %m_f, %m_s : tensor<262150xf32>
  %m_w = stablehlo.sine %m_t : tensor<262150xf32>
  %m_c = stablehlo.add %m_w, %m_w : tensor<262150xf32>
  %m = stablehlo.reshape %m_c : (tensor<262150xf32>) -> tensor<7x37450xf32>
  %r:3 = "tpu.fusion"(%x, %y, %row, %m) ({
  ^bb0(%a: tensor<262150xf32>, %b: tensor<262150xf32>, %c: tensor<37450xf32>, %d: tensor<7x37450xf32>):
    %0 = stablehlo.multiply %a, %b : tensor<262150xf32>
    %1 = stablehlo.add %0, %a : tensor<262150xf32>
    %2 = stablehlo.maximum %1, %b : tensor<262150xf32>
    %3 = stablehlo.broadcast_in_dim %c, dims = [1] : (tensor<37450xf32>) -> tensor<7x37450xf32>
    %4 = stablehlo.multiply %3, %d : tensor<7x37450xf32>
    %5 = stablehlo.exponential %4 : tensor<7x37450xf32>
    %6 = stablehlo.convert %2 : (tensor<262150xf32>) -> tensor<262150xf16>
    "tpu.yield"(%2, %5, %6) : (tensor<262150xf32>, tensor<7x37450xf32>, tensor<262150xf16>) -> ()
  }) {kind = "multi_output"} : (tensor<262150xf32>, tensor<262150xf32>, tensor<37450xf32>, tensor<7x37450xf32>) -> (tensor<262150xf32>, tensor<7x37450xf32>, tensor<262150xf16>)
  func.return %r#0, %r#1, %r#2 : tensor<262150xf32>, tensor<7x37450xf32>, tensor<262150xf16>
}
