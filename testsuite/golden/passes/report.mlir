// The cost model through `tpucc --report` (docs/passes.md "Cost model"), on
// the IR as written (only buffer-assign runs, for the peak).
// RUN: %tpucc --report --verify-each --passes=buffer-assign --split-input-file %s | FileCheck %s
// With -o the program is emitted too; without buffer-assign there is no peak.
// RUN: %tpucc --report --verify-each --passes=cse --split-input-file --emit=mlir %s -o %t.mlir | FileCheck %s --check-prefix=NOPEAK
// RUN: FileCheck %s --check-prefix=EMIT < %t.mlir
// EMIT: stablehlo.dot_general

// A 4096^3 bf16 matmul on v5e: 2*4096^3 FLOPs at 197 TFLOP/s = 697.66 us
// plus the 1 us issue overhead; 3 x 32 MiB read and written once.
// CHECK: tpucc report: {{.*}}report.mlir on v5e (MXU 128x128, 197 TFLOP/s bf16
// CHECK: op location FLOPs HBM bytes time (us) bound MXU %
// CHECK-NEXT: stablehlo.dot_general report.mlir:[[@LINE+4]]:8 137438953472 100663296 698.660 MXU 99.9
// CHECK: total: modeled 698.660 us, 137438953472 FLOPs, 100663296 HBM bytes, MXU utilization 99.9%, peak HBM 96.0 MiB (100663296 bytes)
// NOPEAK: peak HBM not computed (buffer-assign did not run)
func.func @main(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16>
  return %0 : tensor<4096x4096xbf16>
}

// -----
// f32 precision: DEFAULT is one bf16 pass, HIGHEST six; int8 runs at the
// int8 rate (2x bf16 on v5e); f64 is emulated on the vector unit, and so is
// a dot the layout pass marked tpu.unit = "vpu".
// CHECK: // -----
// CHECK-NEXT: tpucc report
// CHECK: stablehlo.dot_general report.mlir:[[@LINE+8]]:8 2147483648 12582912 16.364 HBM 66.6
// CHECK-NEXT: stablehlo.dot_general report.mlir:[[@LINE+8]]:8 2147483648 12582912 66.406 MXU 16.4
// CHECK-NEXT: stablehlo.dot_general report.mlir:[[@LINE+8]]:8 2147483648 6291456 8.682 HBM 62.8
// CHECK-NEXT: stablehlo.dot_general report.mlir:[[@LINE+8]]:8 2147483648 25165824 5582.277 VPU 0.0
// CHECK-NEXT: stablehlo.dot_general report.mlir:[[@LINE+8]]:8 2147483648 12582912 698.660 VPU 0.0
// CHECK-NEXT: time by bound: MXU 66.406 us, VPU 6280.937 us, HBM 25.046 us, ICI 0.000 us, issue 0.000 us
func.func @main(%a: tensor<1024x1024xf32>, %i: tensor<1024x1024xi8>, %d: tensor<1024x1024xf64>)
    -> (tensor<1024x1024xf32>, tensor<1024x1024xf32>, tensor<1024x1024xi32>, tensor<1024x1024xf64>, tensor<1024x1024xf32>) {
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %1 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %2 = stablehlo.dot_general %i, %i, contracting_dims = [1] x [0] : (tensor<1024x1024xi8>, tensor<1024x1024xi8>) -> tensor<1024x1024xi32>
  %3 = stablehlo.dot_general %d, %d, contracting_dims = [1] x [0] : (tensor<1024x1024xf64>, tensor<1024x1024xf64>) -> tensor<1024x1024xf64>
  %4 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0] {tpu.unit = "vpu"} : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0, %1, %2, %3, %4 : tensor<1024x1024xf32>, tensor<1024x1024xf32>, tensor<1024x1024xi32>, tensor<1024x1024xf64>, tensor<1024x1024xf32>
}

// -----
// Tiled layouts: (8,128) for 32-bit, (16,128) 16-bit, (32,128) 8-bit, a
// 64-bit element is two 32-bit words, rank 1 is 1xN.  A 3x5 array of any
// kind up to 32 bits takes one 4 KiB tile.  Constants, returns and reshapes
// that keep the two minor dimensions are free (no row); tiny ops pay the
// issue overhead; f64 transcendentals are emulated on the vector unit.
// CHECK: // -----
// CHECK-NEXT: tpucc report
// CHECK-NEXT: op
// CHECK-NEXT: stablehlo.add report.mlir:[[@LINE+13]]:8 15 12288 1.015 issue 0.0
// CHECK-NEXT: stablehlo.add report.mlir:[[@LINE+13]]:8 15 12288 1.015 issue
// CHECK-NEXT: stablehlo.add report.mlir:[[@LINE+13]]:8 15 12288 1.015 issue
// CHECK-NEXT: stablehlo.add report.mlir:[[@LINE+13]]:8 15 24576 1.030 issue
// CHECK-NEXT: stablehlo.add report.mlir:[[@LINE+13]]:8 300 36864 1.045 issue
// CHECK-NEXT: stablehlo.reshape report.mlir:[[@LINE+15]]:8 0 245760 1.300 issue
// CHECK-NEXT: stablehlo.exponential report.mlir:[[@LINE+15]]:8 1048576 8388608 11.243 HBM
// CHECK-NEXT: stablehlo.exponential report.mlir:[[@LINE+15]]:8 1048576 16777216 28.252 VPU
// CHECK-NEXT: time by bound
func.func @main(%f: tensor<3x5xf32>, %h: tensor<3x5xbf16>, %b: tensor<3x5xi8>, %d: tensor<3x5xf64>, %v: tensor<300xf32>,
                %r: tensor<2x3x40x128xf32>, %x: tensor<1024x1024xf32>, %y: tensor<1024x1024xf64>)
    -> (tensor<3x5xf32>, tensor<3x5xbf16>, tensor<3x5xi8>, tensor<3x5xf64>, tensor<300xf32>, tensor<6x40x128xf32>,
        tensor<240x128xf32>, tensor<1024x1024xf32>, tensor<1024x1024xf64>, tensor<4xf32>) {
  %0 = stablehlo.add %f, %f : tensor<3x5xf32>
  %1 = stablehlo.add %h, %h : tensor<3x5xbf16>
  %2 = stablehlo.add %b, %b : tensor<3x5xi8>
  %3 = stablehlo.add %d, %d : tensor<3x5xf64>
  %4 = stablehlo.add %v, %v : tensor<300xf32>
  %c = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %5 = stablehlo.reshape %r : (tensor<2x3x40x128xf32>) -> tensor<6x40x128xf32>
  %6 = stablehlo.reshape %r : (tensor<2x3x40x128xf32>) -> tensor<240x128xf32>
  %7 = stablehlo.exponential %x : tensor<1024x1024xf32>
  %8 = stablehlo.exponential %y : tensor<1024x1024xf64>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %c : tensor<3x5xf32>, tensor<3x5xbf16>, tensor<3x5xi8>, tensor<3x5xf64>, tensor<300xf32>, tensor<6x40x128xf32>, tensor<240x128xf32>, tensor<1024x1024xf32>, tensor<1024x1024xf64>, tensor<4xf32>
}

// -----
// A fusion costs its operands and results in HBM and the sum of its body on
// the units; its row names its kind.  A tiled contraction whose operands do
// not fit in half of VMEM re-reads them: 8192^3 bf16 with 1024x1024 output
// tiles reads each 128 MiB operand 8 times (17 x 128 MiB instead of 3).
// CHECK: // -----
// CHECK-NEXT: tpucc report
// CHECK-NEXT: op
// CHECK-NEXT: tpu.fusion(loop) report.mlir:[[@LINE+7]]:8 2097152 12582912 16.364 HBM
// CHECK-NEXT: tpu.fusion(output) report.mlir:[[@LINE+12]]:8 2148532224 12582912 16.364 HBM 66.6
// CHECK-NEXT: stablehlo.dot_general report.mlir:[[@LINE+17]]:8 1099511627776 2281701376 5582.277 MXU 100.0
// CHECK-NEXT: stablehlo.dot_general report.mlir:[[@LINE+17]]:8 1099511627776 402653184 5582.277 MXU 100.0
// CHECK-NEXT: time by bound: MXU 11164.555 us, VPU 0.000 us, HBM 32.728 us, ICI 0.000 us, issue 0.000 us
func.func @main(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>, %p: tensor<8192x8192xbf16>)
    -> (tensor<1024x1024xf32>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>) {
  %0 = "tpu.fusion"(%a, %b) ({
  ^bb0(%x: tensor<1024x1024xf32>, %y: tensor<1024x1024xf32>):
    %1 = stablehlo.add %x, %y : tensor<1024x1024xf32>
    %2 = stablehlo.exponential %1 : tensor<1024x1024xf32>
    "tpu.yield"(%2) : (tensor<1024x1024xf32>) -> ()
  }) {kind = "loop"} : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %3 = "tpu.fusion"(%0, %b) ({
  ^bb0(%x: tensor<1024x1024xf32>, %y: tensor<1024x1024xf32>):
    %4 = stablehlo.dot_general %x, %y, contracting_dims = [1] x [0] : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    %5 = stablehlo.maximum %4, %y : tensor<1024x1024xf32>
    "tpu.yield"(%5) : (tensor<1024x1024xf32>) -> ()
  }) {kind = "output"} : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %6 = stablehlo.dot_general %p, %p, contracting_dims = [1] x [0] {tpu.mxu_tile = array<i64: 1024, 1024, 512>} : (tensor<8192x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16>
  %7 = stablehlo.dot_general %p, %p, contracting_dims = [1] x [0] : (tensor<8192x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16>
  return %3, %6, %7 : tensor<1024x1024xf32>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>
}
