// hw-lint: a warning where a contraction's K or N fills less than 75% of
// the MXU and it does at least 1 MFLOP.  Any other warning fails the test.
// RUN: %tpucc --passes=hw-lint --verify-each --emit=mlir -o /dev/null %s 2>&1 | FileCheck %s --implicit-check-not=warning:
// RUN: %tpucc --passes=hw-lint --verify-each --emit=mlir -o /dev/null --target=v6e %s 2>&1 | FileCheck %s --check-prefix=V6E
// The pass only reports: the IR is unchanged.
// RUN: %tpucc --passes=hw-lint --emit=mlir %s 2>/dev/null | FileCheck %s --check-prefix=IR
// IR: func.func @heads64
// IR-NOT: tpu.{{mxu|tile}}

// A 64-wide attention head (batching dimensions, K = 64): half the MXU.
// CHECK: hw_lint.mlir:[[@LINE+3]]:8: warning: dot_general contracting dimension 64 fills 50% of the 128x128 MXU (attention head dimension 64; 128 would fill it)
// V6E: hw_lint.mlir:[[@LINE+2]]:8: warning: dot_general contracting dimension 64 fills 25% of the 256x256 MXU (attention head dimension 64; 256 would fill it)
func.func @heads64(%q: tensor<4x8x512x64xbf16>, %k: tensor<4x8x512x64xbf16>) -> tensor<4x8x512x512xf32> {
  %0 = stablehlo.dot_general %q, %k, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<4x8x512x64xbf16>, tensor<4x8x512x64xbf16>) -> tensor<4x8x512x512xf32>
  return %0 : tensor<4x8x512x512xf32>
}

// Heads of 128 and 256 fill a 128x128 MXU; on v6e 128 fills half of it.
// V6E: hw_lint.mlir:[[@LINE+2]]:8: warning: dot_general contracting dimension 128 fills 50% of the 256x256 MXU (attention head dimension 128; 256 would fill it)
func.func @heads128(%q: tensor<4x8x512x128xbf16>, %k: tensor<4x8x512x128xbf16>) -> tensor<4x8x512x512xf32> {
  %0 = stablehlo.dot_general %q, %k, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<4x8x512x128xbf16>, tensor<4x8x512x128xbf16>) -> tensor<4x8x512x512xf32>
  return %0 : tensor<4x8x512x512xf32>
}
func.func @heads256(%q: tensor<4x8x512x256xbf16>, %k: tensor<4x8x512x256xbf16>) -> tensor<4x8x512x512xf32> {
  %0 = stablehlo.dot_general %q, %k, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<4x8x512x256xbf16>, tensor<4x8x512x256xbf16>) -> tensor<4x8x512x512xf32>
  return %0 : tensor<4x8x512x512xf32>
}

// Too small to matter (2*8*64*64 FLOPs), on the vector unit (f64, or
// marked by layout), or 75% full (K = 96 of 128): no warning.
func.func @quiet(%a: tensor<8x64xf32>, %b: tensor<64x64xf32>, %d: tensor<512x64xf64>, %e: tensor<64x512xf64>,
                 %f: tensor<512x64xf32>, %g: tensor<64x512xf32>, %h: tensor<512x96xf32>, %i: tensor<96x512xf32>)
    -> (tensor<8x64xf32>, tensor<512x512xf64>, tensor<512x512xf32>, tensor<512x512xf32>) {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32>
  %1 = stablehlo.dot_general %d, %e, contracting_dims = [1] x [0] : (tensor<512x64xf64>, tensor<64x512xf64>) -> tensor<512x512xf64>
  %2 = stablehlo.dot_general %f, %g, contracting_dims = [1] x [0] {tpu.unit = "vpu"} : (tensor<512x64xf32>, tensor<64x512xf32>) -> tensor<512x512xf32>
  %3 = stablehlo.dot_general %h, %i, contracting_dims = [1] x [0] : (tensor<512x96xf32>, tensor<96x512xf32>) -> tensor<512x512xf32>
  return %0, %1, %2, %3 : tensor<8x64xf32>, tensor<512x512xf64>, tensor<512x512xf32>, tensor<512x512xf32>
}

// Without batching dimensions the advice is a multiple of the MXU size.
// K = 200 fills 78% of two passes (no warning); a narrow rhs (N = 32) is
// reported too, as a note when K was already.
// CHECK: hw_lint.mlir:[[@LINE+6]]:8: warning: dot_general rhs free dimension 32 fills 25% of the 128x128 MXU (a multiple of 128 would fill it)
// CHECK: hw_lint.mlir:[[@LINE+6]]:8: warning: dot_general contracting dimension 64 fills 50% of the 128x128 MXU (a multiple of 128 would fill it)
// CHECK: hw_lint.mlir:[[@LINE+5]]:8: note: dot_general rhs free dimension 32 fills 25%
func.func @plain(%a: tensor<1024x200xf32>, %b: tensor<200x1024xf32>, %c: tensor<1024x256xf32>, %d: tensor<256x32xf32>, %e: tensor<1024x64xf32>, %f: tensor<64x32xf32>)
    -> (tensor<1024x1024xf32>, tensor<1024x32xf32>, tensor<1024x32xf32>) {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<1024x200xf32>, tensor<200x1024xf32>) -> tensor<1024x1024xf32>
  %1 = stablehlo.dot_general %c, %d, contracting_dims = [1] x [0] : (tensor<1024x256xf32>, tensor<256x32xf32>) -> tensor<1024x32xf32>
  %2 = stablehlo.dot_general %e, %f, contracting_dims = [1] x [0] : (tensor<1024x64xf32>, tensor<64x32xf32>) -> tensor<1024x32xf32>
  return %0, %1, %2 : tensor<1024x1024xf32>, tensor<1024x32xf32>, tensor<1024x32xf32>
}

// A convolution: K = 3x3 kernel x 3 input features = 27, N = 16 features.
// CHECK: hw_lint.mlir:[[@LINE+3]]:8: warning: convolution contracting dimension 27 fills 21% of the 128x128 MXU (a multiple of 128 would fill it)
// CHECK: hw_lint.mlir:[[@LINE+2]]:8: note: convolution output feature dimension 16 fills 12%
func.func @conv(%x: tensor<8x64x64x3xf32>, %w: tensor<3x3x3x16xf32>) -> tensor<8x64x64x16xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} : (tensor<8x64x64x3xf32>, tensor<3x3x3x16xf32>) -> tensor<8x64x64x16xf32>
  return %0 : tensor<8x64x64x16xf32>
}

// Identical contractions (every layer of a model) are reported once.
// CHECK: hw_lint.mlir:[[@LINE+4]]:{{.*}}warning: dot_general contracting dimension 64
// CHECK: note: 2 more dot_general ops of the same shapes are not reported again
// V6E: note: 2 more dot_general ops of the same shapes are not reported again
func.func @layers(%a: tensor<512x64xf32>, %b: tensor<64x512xf32>) -> (tensor<512x512xf32>, tensor<512x512xf32>, tensor<512x512xf32>) {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<512x64xf32>, tensor<64x512xf32>) -> tensor<512x512xf32>
  %1 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<512x64xf32>, tensor<64x512xf32>) -> tensor<512x512xf32>
  %2 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<512x64xf32>, tensor<64x512xf32>) -> tensor<512x512xf32>
  return %0, %1, %2 : tensor<512x512xf32>, tensor<512x512xf32>, tensor<512x512xf32>
}
