// Execution of mxu_dot (vm/kernels/mxu.c): each function computes a dot_general
// plainly and with a tpu.mxu_tile schedule (lowered to mxu_dot) and checks
// that both agree.  The outputs are also compared byte for byte: mxu_dot
// gives the same bits as dot_general, for any number of host threads.
// -O0 keeps the hand-written schedules (-O2's layout pass chooses its own).
// RUN: %tpurun -O0 --check --threads=1 %s | FileCheck %s --implicit-check-not=FAIL
// RUN: %tpurun -O0 --check --threads=2 %s | FileCheck %s --implicit-check-not=FAIL
// RUN: %tpucc -O0 --emit=asm %s | FileCheck %s --check-prefix=ASM
// RUN: %tpurun -O0 %s --function=tiled --threads=1 --output=@%t.tiled1.0.npy --output=@%t.tiled1.1.npy --output=@%t.tiled1.2.npy --output=@%t.tiled1.3.npy --output=@%t.tiled1.4.npy --output=@%t.tiled1.5.npy
// RUN: %tpurun -O0 %s --function=tiled --threads=2 --output=@%t.tiled2.0.npy --output=@%t.tiled2.1.npy --output=@%t.tiled2.2.npy --output=@%t.tiled2.3.npy --output=@%t.tiled2.4.npy --output=@%t.tiled2.5.npy
// RUN: %tpurun -O0 %s --function=plain --threads=1 --output=@%t.plain1.0.npy --output=@%t.plain1.1.npy --output=@%t.plain1.2.npy --output=@%t.plain1.3.npy --output=@%t.plain1.4.npy --output=@%t.plain1.5.npy
// RUN: cmp %t.tiled1.0.npy %t.plain1.0.npy
// RUN: cmp %t.tiled2.0.npy %t.plain1.0.npy
// RUN: cmp %t.tiled1.1.npy %t.plain1.1.npy
// RUN: cmp %t.tiled2.1.npy %t.plain1.1.npy
// RUN: cmp %t.tiled1.2.npy %t.plain1.2.npy
// RUN: cmp %t.tiled2.2.npy %t.plain1.2.npy
// RUN: cmp %t.tiled1.3.npy %t.plain1.3.npy
// RUN: cmp %t.tiled2.3.npy %t.plain1.3.npy
// RUN: cmp %t.tiled1.4.npy %t.plain1.4.npy
// RUN: cmp %t.tiled2.4.npy %t.plain1.4.npy
// RUN: cmp %t.tiled1.5.npy %t.plain1.5.npy
// RUN: cmp %t.tiled2.5.npy %t.plain1.5.npy
// CHECK-COUNT-6: PASS expect_eq
// ASM-COUNT-12: mxu_dot

// f32, no size a multiple of the tile: 3 row tiles (the last of 44 rows, padded to 48), 2 column tiles (the last of 2 columns, padded to 128).
func.func @odd_f32() {
  %a_i = stablehlo.iota dim = 0 : tensor<60000xi32>
  %a_c = stablehlo.convert %a_i : (tensor<60000xi32>) -> tensor<60000xf32>
  %a_k = stablehlo.constant dense<0.0137> : tensor<60000xf32>
  %a_m = stablehlo.multiply %a_c, %a_k : tensor<60000xf32>
  %a_s = stablehlo.sine %a_m : tensor<60000xf32>
  %a = stablehlo.reshape %a_s : (tensor<60000xf32>) -> tensor<300x200xf32>
  %b_i = stablehlo.iota dim = 0 : tensor<26000xi32>
  %b_c = stablehlo.convert %b_i : (tensor<26000xi32>) -> tensor<26000xf32>
  %b_k = stablehlo.constant dense<0.0291> : tensor<26000xf32>
  %b_m = stablehlo.multiply %b_c, %b_k : tensor<26000xf32>
  %b_s = stablehlo.sine %b_m : tensor<26000xf32>
  %b = stablehlo.reshape %b_s : (tensor<26000xf32>) -> tensor<200x130xf32>
  %p = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<300x200xf32>, tensor<200x130xf32>) -> tensor<300x130xf32>
  %t = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] {tpu.mxu_tile = array<i64: 128, 128, 128>, tpu.mxu_pad = array<i64: 304, 256, 256>} : (tensor<300x200xf32>, tensor<200x130xf32>) -> tensor<300x130xf32>
  check.expect_eq %t, %p : tensor<300x130xf32>
  func.return
}

// f32, one row tile of 512 rows run as 3 host strips, then one of 8; 2 column tiles.
func.func @parallel_f32() {
  %a_i = stablehlo.iota dim = 0 : tensor<156000xi32>
  %a_c = stablehlo.convert %a_i : (tensor<156000xi32>) -> tensor<156000xf32>
  %a_k = stablehlo.constant dense<0.0137> : tensor<156000xf32>
  %a_m = stablehlo.multiply %a_c, %a_k : tensor<156000xf32>
  %a_s = stablehlo.sine %a_m : tensor<156000xf32>
  %a = stablehlo.reshape %a_s : (tensor<156000xf32>) -> tensor<520x300xf32>
  %b_i = stablehlo.iota dim = 0 : tensor<81000xi32>
  %b_c = stablehlo.convert %b_i : (tensor<81000xi32>) -> tensor<81000xf32>
  %b_k = stablehlo.constant dense<0.0291> : tensor<81000xf32>
  %b_m = stablehlo.multiply %b_c, %b_k : tensor<81000xf32>
  %b_s = stablehlo.sine %b_m : tensor<81000xf32>
  %b = stablehlo.reshape %b_s : (tensor<81000xf32>) -> tensor<300x270xf32>
  %p = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<520x300xf32>, tensor<300x270xf32>) -> tensor<520x270xf32>
  %t = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] {tpu.mxu_tile = array<i64: 512, 256, 128>, tpu.mxu_pad = array<i64: 520, 384, 384>} : (tensor<520x300xf32>, tensor<300x270xf32>) -> tensor<520x270xf32>
  check.expect_eq %t, %p : tensor<520x270xf32>
  func.return
}

// bf16 in and out (products in f32, rounded once).
func.func @bf16() {
  %a_i = stablehlo.iota dim = 0 : tensor<4773xi32>
  %a_c = stablehlo.convert %a_i : (tensor<4773xi32>) -> tensor<4773xf32>
  %a_k = stablehlo.constant dense<0.0137> : tensor<4773xf32>
  %a_m = stablehlo.multiply %a_c, %a_k : tensor<4773xf32>
  %a_s = stablehlo.sine %a_m : tensor<4773xf32>
  %a_t = stablehlo.convert %a_s : (tensor<4773xf32>) -> tensor<4773xbf16>
  %a = stablehlo.reshape %a_t : (tensor<4773xbf16>) -> tensor<37x129xbf16>
  %b_i = stablehlo.iota dim = 0 : tensor<8385xi32>
  %b_c = stablehlo.convert %b_i : (tensor<8385xi32>) -> tensor<8385xf32>
  %b_k = stablehlo.constant dense<0.0291> : tensor<8385xf32>
  %b_m = stablehlo.multiply %b_c, %b_k : tensor<8385xf32>
  %b_s = stablehlo.sine %b_m : tensor<8385xf32>
  %b_t = stablehlo.convert %b_s : (tensor<8385xf32>) -> tensor<8385xbf16>
  %b = stablehlo.reshape %b_t : (tensor<8385xbf16>) -> tensor<129x65xbf16>
  %p = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<37x129xbf16>, tensor<129x65xbf16>) -> tensor<37x65xbf16>
  %t = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] {tpu.mxu_tile = array<i64: 16, 32, 128>, tpu.mxu_pad = array<i64: 40, 128, 256>} : (tensor<37x129xbf16>, tensor<129x65xbf16>) -> tensor<37x65xbf16>
  check.expect_eq %t, %p : tensor<37x65xbf16>
  func.return
}

// i32, wrapping.
func.func @i32() {
  %a_i = stablehlo.iota dim = 0 : tensor<3500xi32>
  %a_k = stablehlo.constant dense<7919> : tensor<3500xi32>
  %a_m = stablehlo.multiply %a_i, %a_k : tensor<3500xi32>
  %a_q = stablehlo.constant dense<2003> : tensor<3500xi32>
  %a_r = stablehlo.remainder %a_m, %a_q : tensor<3500xi32>
  %a_o = stablehlo.constant dense<1000> : tensor<3500xi32>
  %a_f = stablehlo.subtract %a_r, %a_o : tensor<3500xi32>
  %a = stablehlo.reshape %a_f : (tensor<3500xi32>) -> tensor<50x70xi32>
  %b_i = stablehlo.iota dim = 0 : tensor<2310xi32>
  %b_k = stablehlo.constant dense<104729> : tensor<2310xi32>
  %b_m = stablehlo.multiply %b_i, %b_k : tensor<2310xi32>
  %b_q = stablehlo.constant dense<2003> : tensor<2310xi32>
  %b_r = stablehlo.remainder %b_m, %b_q : tensor<2310xi32>
  %b_o = stablehlo.constant dense<1000> : tensor<2310xi32>
  %b_f = stablehlo.subtract %b_r, %b_o : tensor<2310xi32>
  %b = stablehlo.reshape %b_f : (tensor<2310xi32>) -> tensor<70x33xi32>
  %p = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<50x70xi32>, tensor<70x33xi32>) -> tensor<50x33xi32>
  %t = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] {tpu.mxu_tile = array<i64: 8, 16, 64>, tpu.mxu_pad = array<i64: 56, 128, 128>} : (tensor<50x70xi32>, tensor<70x33xi32>) -> tensor<50x33xi32>
  check.expect_eq %t, %p : tensor<50x33xi32>
  func.return
}

// batched, operands not contiguous along K or N (packed element by element).
func.func @batched() {
  %a_i = stablehlo.iota dim = 0 : tensor<2100xi32>
  %a_c = stablehlo.convert %a_i : (tensor<2100xi32>) -> tensor<2100xf32>
  %a_k = stablehlo.constant dense<0.0137> : tensor<2100xf32>
  %a_m = stablehlo.multiply %a_c, %a_k : tensor<2100xf32>
  %a_s = stablehlo.sine %a_m : tensor<2100xf32>
  %a = stablehlo.reshape %a_s : (tensor<2100xf32>) -> tensor<3x20x5x7xf32>
  %b_i = stablehlo.iota dim = 0 : tensor<4620xi32>
  %b_c = stablehlo.convert %b_i : (tensor<4620xi32>) -> tensor<4620xf32>
  %b_k = stablehlo.constant dense<0.0291> : tensor<4620xf32>
  %b_m = stablehlo.multiply %b_c, %b_k : tensor<4620xf32>
  %b_s = stablehlo.sine %b_m : tensor<4620xf32>
  %b = stablehlo.reshape %b_s : (tensor<4620xf32>) -> tensor<7x20x3x11xf32>
  %p = stablehlo.dot_general %a, %b, batching_dims = [0] x [2], contracting_dims = [3, 1] x [0, 1] : (tensor<3x20x5x7xf32>, tensor<7x20x3x11xf32>) -> tensor<3x5x11xf32>
  %t = stablehlo.dot_general %a, %b, batching_dims = [0] x [2], contracting_dims = [3, 1] x [0, 1] {tpu.mxu_tile = array<i64: 2, 4, 8>, tpu.mxu_pad = array<i64: 8, 128, 256>} : (tensor<3x20x5x7xf32>, tensor<7x20x3x11xf32>) -> tensor<3x5x11xf32>
  check.expect_eq %t, %p : tensor<3x5x11xf32>
  func.return
}

// an empty contraction: zeros.
func.func @empty_k() {
  %a_i = stablehlo.iota dim = 0 : tensor<0xi32>
  %a_c = stablehlo.convert %a_i : (tensor<0xi32>) -> tensor<0xf32>
  %a_k = stablehlo.constant dense<0.0137> : tensor<0xf32>
  %a_m = stablehlo.multiply %a_c, %a_k : tensor<0xf32>
  %a_s = stablehlo.sine %a_m : tensor<0xf32>
  %a = stablehlo.reshape %a_s : (tensor<0xf32>) -> tensor<4x0xf32>
  %b_i = stablehlo.iota dim = 0 : tensor<0xi32>
  %b_c = stablehlo.convert %b_i : (tensor<0xi32>) -> tensor<0xf32>
  %b_k = stablehlo.constant dense<0.0291> : tensor<0xf32>
  %b_m = stablehlo.multiply %b_c, %b_k : tensor<0xf32>
  %b_s = stablehlo.sine %b_m : tensor<0xf32>
  %b = stablehlo.reshape %b_s : (tensor<0xf32>) -> tensor<0x3xf32>
  %p = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x0xf32>, tensor<0x3xf32>) -> tensor<4x3xf32>
  %t = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] {tpu.mxu_tile = array<i64: 8, 8, 8>, tpu.mxu_pad = array<i64: 8, 128, 128>} : (tensor<4x0xf32>, tensor<0x3xf32>) -> tensor<4x3xf32>
  check.expect_eq %t, %p : tensor<4x3xf32>
  func.return
}

// All results, with the schedules (bf16 as its bits).
func.func @tiled() -> (tensor<300x130xf32>, tensor<520x270xf32>, tensor<37x65xi16>, tensor<50x33xi32>, tensor<3x5x11xf32>, tensor<4x3xf32>) {
  %a0_i = stablehlo.iota dim = 0 : tensor<60000xi32>
  %a0_c = stablehlo.convert %a0_i : (tensor<60000xi32>) -> tensor<60000xf32>
  %a0_k = stablehlo.constant dense<0.0137> : tensor<60000xf32>
  %a0_m = stablehlo.multiply %a0_c, %a0_k : tensor<60000xf32>
  %a0_s = stablehlo.sine %a0_m : tensor<60000xf32>
  %a0 = stablehlo.reshape %a0_s : (tensor<60000xf32>) -> tensor<300x200xf32>
  %b0_i = stablehlo.iota dim = 0 : tensor<26000xi32>
  %b0_c = stablehlo.convert %b0_i : (tensor<26000xi32>) -> tensor<26000xf32>
  %b0_k = stablehlo.constant dense<0.0291> : tensor<26000xf32>
  %b0_m = stablehlo.multiply %b0_c, %b0_k : tensor<26000xf32>
  %b0_s = stablehlo.sine %b0_m : tensor<26000xf32>
  %b0 = stablehlo.reshape %b0_s : (tensor<26000xf32>) -> tensor<200x130xf32>
  %r0 = stablehlo.dot_general %a0, %b0, contracting_dims = [1] x [0] {tpu.mxu_tile = array<i64: 128, 128, 128>, tpu.mxu_pad = array<i64: 304, 256, 256>} : (tensor<300x200xf32>, tensor<200x130xf32>) -> tensor<300x130xf32>
  %a1_i = stablehlo.iota dim = 0 : tensor<156000xi32>
  %a1_c = stablehlo.convert %a1_i : (tensor<156000xi32>) -> tensor<156000xf32>
  %a1_k = stablehlo.constant dense<0.0137> : tensor<156000xf32>
  %a1_m = stablehlo.multiply %a1_c, %a1_k : tensor<156000xf32>
  %a1_s = stablehlo.sine %a1_m : tensor<156000xf32>
  %a1 = stablehlo.reshape %a1_s : (tensor<156000xf32>) -> tensor<520x300xf32>
  %b1_i = stablehlo.iota dim = 0 : tensor<81000xi32>
  %b1_c = stablehlo.convert %b1_i : (tensor<81000xi32>) -> tensor<81000xf32>
  %b1_k = stablehlo.constant dense<0.0291> : tensor<81000xf32>
  %b1_m = stablehlo.multiply %b1_c, %b1_k : tensor<81000xf32>
  %b1_s = stablehlo.sine %b1_m : tensor<81000xf32>
  %b1 = stablehlo.reshape %b1_s : (tensor<81000xf32>) -> tensor<300x270xf32>
  %r1 = stablehlo.dot_general %a1, %b1, contracting_dims = [1] x [0] {tpu.mxu_tile = array<i64: 512, 256, 128>, tpu.mxu_pad = array<i64: 520, 384, 384>} : (tensor<520x300xf32>, tensor<300x270xf32>) -> tensor<520x270xf32>
  %a2_i = stablehlo.iota dim = 0 : tensor<4773xi32>
  %a2_c = stablehlo.convert %a2_i : (tensor<4773xi32>) -> tensor<4773xf32>
  %a2_k = stablehlo.constant dense<0.0137> : tensor<4773xf32>
  %a2_m = stablehlo.multiply %a2_c, %a2_k : tensor<4773xf32>
  %a2_s = stablehlo.sine %a2_m : tensor<4773xf32>
  %a2_t = stablehlo.convert %a2_s : (tensor<4773xf32>) -> tensor<4773xbf16>
  %a2 = stablehlo.reshape %a2_t : (tensor<4773xbf16>) -> tensor<37x129xbf16>
  %b2_i = stablehlo.iota dim = 0 : tensor<8385xi32>
  %b2_c = stablehlo.convert %b2_i : (tensor<8385xi32>) -> tensor<8385xf32>
  %b2_k = stablehlo.constant dense<0.0291> : tensor<8385xf32>
  %b2_m = stablehlo.multiply %b2_c, %b2_k : tensor<8385xf32>
  %b2_s = stablehlo.sine %b2_m : tensor<8385xf32>
  %b2_t = stablehlo.convert %b2_s : (tensor<8385xf32>) -> tensor<8385xbf16>
  %b2 = stablehlo.reshape %b2_t : (tensor<8385xbf16>) -> tensor<129x65xbf16>
  %d2 = stablehlo.dot_general %a2, %b2, contracting_dims = [1] x [0] {tpu.mxu_tile = array<i64: 16, 32, 128>, tpu.mxu_pad = array<i64: 40, 128, 256>} : (tensor<37x129xbf16>, tensor<129x65xbf16>) -> tensor<37x65xbf16>
  %r2 = stablehlo.bitcast_convert %d2 : (tensor<37x65xbf16>) -> tensor<37x65xi16>
  %a3_i = stablehlo.iota dim = 0 : tensor<3500xi32>
  %a3_k = stablehlo.constant dense<7919> : tensor<3500xi32>
  %a3_m = stablehlo.multiply %a3_i, %a3_k : tensor<3500xi32>
  %a3_q = stablehlo.constant dense<2003> : tensor<3500xi32>
  %a3_r = stablehlo.remainder %a3_m, %a3_q : tensor<3500xi32>
  %a3_o = stablehlo.constant dense<1000> : tensor<3500xi32>
  %a3_f = stablehlo.subtract %a3_r, %a3_o : tensor<3500xi32>
  %a3 = stablehlo.reshape %a3_f : (tensor<3500xi32>) -> tensor<50x70xi32>
  %b3_i = stablehlo.iota dim = 0 : tensor<2310xi32>
  %b3_k = stablehlo.constant dense<104729> : tensor<2310xi32>
  %b3_m = stablehlo.multiply %b3_i, %b3_k : tensor<2310xi32>
  %b3_q = stablehlo.constant dense<2003> : tensor<2310xi32>
  %b3_r = stablehlo.remainder %b3_m, %b3_q : tensor<2310xi32>
  %b3_o = stablehlo.constant dense<1000> : tensor<2310xi32>
  %b3_f = stablehlo.subtract %b3_r, %b3_o : tensor<2310xi32>
  %b3 = stablehlo.reshape %b3_f : (tensor<2310xi32>) -> tensor<70x33xi32>
  %r3 = stablehlo.dot_general %a3, %b3, contracting_dims = [1] x [0] {tpu.mxu_tile = array<i64: 8, 16, 64>, tpu.mxu_pad = array<i64: 56, 128, 128>} : (tensor<50x70xi32>, tensor<70x33xi32>) -> tensor<50x33xi32>
  %a4_i = stablehlo.iota dim = 0 : tensor<2100xi32>
  %a4_c = stablehlo.convert %a4_i : (tensor<2100xi32>) -> tensor<2100xf32>
  %a4_k = stablehlo.constant dense<0.0137> : tensor<2100xf32>
  %a4_m = stablehlo.multiply %a4_c, %a4_k : tensor<2100xf32>
  %a4_s = stablehlo.sine %a4_m : tensor<2100xf32>
  %a4 = stablehlo.reshape %a4_s : (tensor<2100xf32>) -> tensor<3x20x5x7xf32>
  %b4_i = stablehlo.iota dim = 0 : tensor<4620xi32>
  %b4_c = stablehlo.convert %b4_i : (tensor<4620xi32>) -> tensor<4620xf32>
  %b4_k = stablehlo.constant dense<0.0291> : tensor<4620xf32>
  %b4_m = stablehlo.multiply %b4_c, %b4_k : tensor<4620xf32>
  %b4_s = stablehlo.sine %b4_m : tensor<4620xf32>
  %b4 = stablehlo.reshape %b4_s : (tensor<4620xf32>) -> tensor<7x20x3x11xf32>
  %r4 = stablehlo.dot_general %a4, %b4, batching_dims = [0] x [2], contracting_dims = [3, 1] x [0, 1] {tpu.mxu_tile = array<i64: 2, 4, 8>, tpu.mxu_pad = array<i64: 8, 128, 256>} : (tensor<3x20x5x7xf32>, tensor<7x20x3x11xf32>) -> tensor<3x5x11xf32>
  %a5_i = stablehlo.iota dim = 0 : tensor<0xi32>
  %a5_c = stablehlo.convert %a5_i : (tensor<0xi32>) -> tensor<0xf32>
  %a5_k = stablehlo.constant dense<0.0137> : tensor<0xf32>
  %a5_m = stablehlo.multiply %a5_c, %a5_k : tensor<0xf32>
  %a5_s = stablehlo.sine %a5_m : tensor<0xf32>
  %a5 = stablehlo.reshape %a5_s : (tensor<0xf32>) -> tensor<4x0xf32>
  %b5_i = stablehlo.iota dim = 0 : tensor<0xi32>
  %b5_c = stablehlo.convert %b5_i : (tensor<0xi32>) -> tensor<0xf32>
  %b5_k = stablehlo.constant dense<0.0291> : tensor<0xf32>
  %b5_m = stablehlo.multiply %b5_c, %b5_k : tensor<0xf32>
  %b5_s = stablehlo.sine %b5_m : tensor<0xf32>
  %b5 = stablehlo.reshape %b5_s : (tensor<0xf32>) -> tensor<0x3xf32>
  %r5 = stablehlo.dot_general %a5, %b5, contracting_dims = [1] x [0] {tpu.mxu_tile = array<i64: 8, 8, 8>, tpu.mxu_pad = array<i64: 8, 128, 128>} : (tensor<4x0xf32>, tensor<0x3xf32>) -> tensor<4x3xf32>
  func.return %r0, %r1, %r2, %r3, %r4, %r5 : tensor<300x130xf32>, tensor<520x270xf32>, tensor<37x65xi16>, tensor<50x33xi32>, tensor<3x5x11xf32>, tensor<4x3xf32>
}

// All results, without the schedules (bf16 as its bits).
func.func @plain() -> (tensor<300x130xf32>, tensor<520x270xf32>, tensor<37x65xi16>, tensor<50x33xi32>, tensor<3x5x11xf32>, tensor<4x3xf32>) {
  %a0_i = stablehlo.iota dim = 0 : tensor<60000xi32>
  %a0_c = stablehlo.convert %a0_i : (tensor<60000xi32>) -> tensor<60000xf32>
  %a0_k = stablehlo.constant dense<0.0137> : tensor<60000xf32>
  %a0_m = stablehlo.multiply %a0_c, %a0_k : tensor<60000xf32>
  %a0_s = stablehlo.sine %a0_m : tensor<60000xf32>
  %a0 = stablehlo.reshape %a0_s : (tensor<60000xf32>) -> tensor<300x200xf32>
  %b0_i = stablehlo.iota dim = 0 : tensor<26000xi32>
  %b0_c = stablehlo.convert %b0_i : (tensor<26000xi32>) -> tensor<26000xf32>
  %b0_k = stablehlo.constant dense<0.0291> : tensor<26000xf32>
  %b0_m = stablehlo.multiply %b0_c, %b0_k : tensor<26000xf32>
  %b0_s = stablehlo.sine %b0_m : tensor<26000xf32>
  %b0 = stablehlo.reshape %b0_s : (tensor<26000xf32>) -> tensor<200x130xf32>
  %r0 = stablehlo.dot_general %a0, %b0, contracting_dims = [1] x [0] : (tensor<300x200xf32>, tensor<200x130xf32>) -> tensor<300x130xf32>
  %a1_i = stablehlo.iota dim = 0 : tensor<156000xi32>
  %a1_c = stablehlo.convert %a1_i : (tensor<156000xi32>) -> tensor<156000xf32>
  %a1_k = stablehlo.constant dense<0.0137> : tensor<156000xf32>
  %a1_m = stablehlo.multiply %a1_c, %a1_k : tensor<156000xf32>
  %a1_s = stablehlo.sine %a1_m : tensor<156000xf32>
  %a1 = stablehlo.reshape %a1_s : (tensor<156000xf32>) -> tensor<520x300xf32>
  %b1_i = stablehlo.iota dim = 0 : tensor<81000xi32>
  %b1_c = stablehlo.convert %b1_i : (tensor<81000xi32>) -> tensor<81000xf32>
  %b1_k = stablehlo.constant dense<0.0291> : tensor<81000xf32>
  %b1_m = stablehlo.multiply %b1_c, %b1_k : tensor<81000xf32>
  %b1_s = stablehlo.sine %b1_m : tensor<81000xf32>
  %b1 = stablehlo.reshape %b1_s : (tensor<81000xf32>) -> tensor<300x270xf32>
  %r1 = stablehlo.dot_general %a1, %b1, contracting_dims = [1] x [0] : (tensor<520x300xf32>, tensor<300x270xf32>) -> tensor<520x270xf32>
  %a2_i = stablehlo.iota dim = 0 : tensor<4773xi32>
  %a2_c = stablehlo.convert %a2_i : (tensor<4773xi32>) -> tensor<4773xf32>
  %a2_k = stablehlo.constant dense<0.0137> : tensor<4773xf32>
  %a2_m = stablehlo.multiply %a2_c, %a2_k : tensor<4773xf32>
  %a2_s = stablehlo.sine %a2_m : tensor<4773xf32>
  %a2_t = stablehlo.convert %a2_s : (tensor<4773xf32>) -> tensor<4773xbf16>
  %a2 = stablehlo.reshape %a2_t : (tensor<4773xbf16>) -> tensor<37x129xbf16>
  %b2_i = stablehlo.iota dim = 0 : tensor<8385xi32>
  %b2_c = stablehlo.convert %b2_i : (tensor<8385xi32>) -> tensor<8385xf32>
  %b2_k = stablehlo.constant dense<0.0291> : tensor<8385xf32>
  %b2_m = stablehlo.multiply %b2_c, %b2_k : tensor<8385xf32>
  %b2_s = stablehlo.sine %b2_m : tensor<8385xf32>
  %b2_t = stablehlo.convert %b2_s : (tensor<8385xf32>) -> tensor<8385xbf16>
  %b2 = stablehlo.reshape %b2_t : (tensor<8385xbf16>) -> tensor<129x65xbf16>
  %d2 = stablehlo.dot_general %a2, %b2, contracting_dims = [1] x [0] : (tensor<37x129xbf16>, tensor<129x65xbf16>) -> tensor<37x65xbf16>
  %r2 = stablehlo.bitcast_convert %d2 : (tensor<37x65xbf16>) -> tensor<37x65xi16>
  %a3_i = stablehlo.iota dim = 0 : tensor<3500xi32>
  %a3_k = stablehlo.constant dense<7919> : tensor<3500xi32>
  %a3_m = stablehlo.multiply %a3_i, %a3_k : tensor<3500xi32>
  %a3_q = stablehlo.constant dense<2003> : tensor<3500xi32>
  %a3_r = stablehlo.remainder %a3_m, %a3_q : tensor<3500xi32>
  %a3_o = stablehlo.constant dense<1000> : tensor<3500xi32>
  %a3_f = stablehlo.subtract %a3_r, %a3_o : tensor<3500xi32>
  %a3 = stablehlo.reshape %a3_f : (tensor<3500xi32>) -> tensor<50x70xi32>
  %b3_i = stablehlo.iota dim = 0 : tensor<2310xi32>
  %b3_k = stablehlo.constant dense<104729> : tensor<2310xi32>
  %b3_m = stablehlo.multiply %b3_i, %b3_k : tensor<2310xi32>
  %b3_q = stablehlo.constant dense<2003> : tensor<2310xi32>
  %b3_r = stablehlo.remainder %b3_m, %b3_q : tensor<2310xi32>
  %b3_o = stablehlo.constant dense<1000> : tensor<2310xi32>
  %b3_f = stablehlo.subtract %b3_r, %b3_o : tensor<2310xi32>
  %b3 = stablehlo.reshape %b3_f : (tensor<2310xi32>) -> tensor<70x33xi32>
  %r3 = stablehlo.dot_general %a3, %b3, contracting_dims = [1] x [0] : (tensor<50x70xi32>, tensor<70x33xi32>) -> tensor<50x33xi32>
  %a4_i = stablehlo.iota dim = 0 : tensor<2100xi32>
  %a4_c = stablehlo.convert %a4_i : (tensor<2100xi32>) -> tensor<2100xf32>
  %a4_k = stablehlo.constant dense<0.0137> : tensor<2100xf32>
  %a4_m = stablehlo.multiply %a4_c, %a4_k : tensor<2100xf32>
  %a4_s = stablehlo.sine %a4_m : tensor<2100xf32>
  %a4 = stablehlo.reshape %a4_s : (tensor<2100xf32>) -> tensor<3x20x5x7xf32>
  %b4_i = stablehlo.iota dim = 0 : tensor<4620xi32>
  %b4_c = stablehlo.convert %b4_i : (tensor<4620xi32>) -> tensor<4620xf32>
  %b4_k = stablehlo.constant dense<0.0291> : tensor<4620xf32>
  %b4_m = stablehlo.multiply %b4_c, %b4_k : tensor<4620xf32>
  %b4_s = stablehlo.sine %b4_m : tensor<4620xf32>
  %b4 = stablehlo.reshape %b4_s : (tensor<4620xf32>) -> tensor<7x20x3x11xf32>
  %r4 = stablehlo.dot_general %a4, %b4, batching_dims = [0] x [2], contracting_dims = [3, 1] x [0, 1] : (tensor<3x20x5x7xf32>, tensor<7x20x3x11xf32>) -> tensor<3x5x11xf32>
  %a5_i = stablehlo.iota dim = 0 : tensor<0xi32>
  %a5_c = stablehlo.convert %a5_i : (tensor<0xi32>) -> tensor<0xf32>
  %a5_k = stablehlo.constant dense<0.0137> : tensor<0xf32>
  %a5_m = stablehlo.multiply %a5_c, %a5_k : tensor<0xf32>
  %a5_s = stablehlo.sine %a5_m : tensor<0xf32>
  %a5 = stablehlo.reshape %a5_s : (tensor<0xf32>) -> tensor<4x0xf32>
  %b5_i = stablehlo.iota dim = 0 : tensor<0xi32>
  %b5_c = stablehlo.convert %b5_i : (tensor<0xi32>) -> tensor<0xf32>
  %b5_k = stablehlo.constant dense<0.0291> : tensor<0xf32>
  %b5_m = stablehlo.multiply %b5_c, %b5_k : tensor<0xf32>
  %b5_s = stablehlo.sine %b5_m : tensor<0xf32>
  %b5 = stablehlo.reshape %b5_s : (tensor<0xf32>) -> tensor<0x3xf32>
  %r5 = stablehlo.dot_general %a5, %b5, contracting_dims = [1] x [0] : (tensor<4x0xf32>, tensor<0x3xf32>) -> tensor<4x3xf32>
  func.return %r0, %r1, %r2, %r3, %r4, %r5 : tensor<300x130xf32>, tensor<520x270xf32>, tensor<37x65xi16>, tensor<50x33xi32>, tensor<3x5x11xf32>, tensor<4x3xf32>
}
