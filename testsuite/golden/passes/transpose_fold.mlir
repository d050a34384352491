// transpose-fold: a transpose feeding a dot_general or convolution operand
// becomes its dimension numbers (the cases PyTorch exports write: a Linear
// weight, attention's head split, NCHW activations and OIHW kernels), and
// stays where folding would reorder a dot's free dims or another op still
// reads it.  Each function gives the same results folded and unfolded (to
// float rounding: the matrix engine may sum a transposed weight in
// another order).
// RUN: %tpucc --passes=transpose-fold --verify-each --emit=mlir %s | FileCheck %s
// RUN: for f in linear linear_bf16 lhs attention reordered conv reduce reduce_reordered unit_dims; do %tpurun -O0 --function=$f %s --input=random:1 --input=random:2 --output=@%t.$f.0.npy && %tpurun --passes=transpose-fold --function=$f %s --input=random:1 --input=random:2 --output=@%t.$f.1.npy && %python -c "import sys, numpy as n; a, b = n.load(sys.argv[1]), n.load(sys.argv[2]); assert a.shape == b.shape and n.allclose(a, b, rtol=1e-5, atol=1e-5), sys.argv[1]" %t.$f.0.npy %t.$f.1.npy || exit 1; done
// RUN: %tpucc -O2 --report %s -o /dev/null | FileCheck %s --check-prefix=REPORT
// REPORT: layout: 10 transposes folded (into contractions and reduces, or as reshapes); 3 remain

// CHECK-LABEL: func.func @linear
// CHECK-NEXT: stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1]
func.func @linear(%x: tensor<7x16xf32>, %w: tensor<24x16xf32>) -> tensor<7x24xf32> {
  %t = stablehlo.transpose %w, dims = [1, 0] : (tensor<24x16xf32>) -> tensor<16x24xf32>
  %0 = stablehlo.dot_general %x, %t, contracting_dims = [1] x [0] : (tensor<7x16xf32>, tensor<16x24xf32>) -> tensor<7x24xf32>
  return %0 : tensor<7x24xf32>
}

// A weight narrowed after its transpose (PyTorch's Linear at bf16 matmul
// precision): converted in place, then read through the dot's dimensions.
// CHECK-LABEL: func.func @linear_bf16
// CHECK-NEXT: %[[X:.*]] = stablehlo.convert %arg0 : (tensor<7x16xf32>) -> tensor<7x16xbf16>
// CHECK-NEXT: %[[C:.*]] = stablehlo.convert %arg1 : (tensor<24x16xf32>) -> tensor<24x16xbf16>
// CHECK-NEXT: stablehlo.dot_general %[[X]], %[[C]], contracting_dims = [1] x [1]
func.func @linear_bf16(%x: tensor<7x16xf32>, %w: tensor<24x16xf32>) -> tensor<7x24xf32> {
  %t = stablehlo.transpose %w, dims = [1, 0] : (tensor<24x16xf32>) -> tensor<16x24xf32>
  %xb = stablehlo.convert %x : (tensor<7x16xf32>) -> tensor<7x16xbf16>
  %tb = stablehlo.convert %t : (tensor<16x24xf32>) -> tensor<16x24xbf16>
  %0 = stablehlo.dot_general %xb, %tb, contracting_dims = [1] x [0] : (tensor<7x16xbf16>, tensor<16x24xbf16>) -> tensor<7x24xf32>
  return %0 : tensor<7x24xf32>
}

// CHECK-LABEL: func.func @lhs
// CHECK-NEXT: stablehlo.dot_general %arg0, %arg1, contracting_dims = [0] x [0]
func.func @lhs(%x: tensor<16x7xf32>, %w: tensor<16x24xf32>) -> tensor<7x24xf32> {
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<16x7xf32>) -> tensor<7x16xf32>
  %0 = stablehlo.dot_general %t, %w, contracting_dims = [1] x [0] : (tensor<7x16xf32>, tensor<16x24xf32>) -> tensor<7x24xf32>
  return %0 : tensor<7x24xf32>
}

// CHECK-LABEL: func.func @attention
// CHECK-NEXT: stablehlo.dot_general %arg0, %arg1, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3]
func.func @attention(%q: tensor<2x5x3x4xf32>, %k: tensor<2x5x3x4xf32>) -> tensor<2x3x5x5xf32> {
  %qt = stablehlo.transpose %q, dims = [0, 2, 1, 3] : (tensor<2x5x3x4xf32>) -> tensor<2x3x5x4xf32>
  %kt = stablehlo.transpose %k, dims = [0, 2, 3, 1] : (tensor<2x5x3x4xf32>) -> tensor<2x3x4x5xf32>
  %0 = stablehlo.dot_general %qt, %kt, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<2x3x5x4xf32>, tensor<2x3x4x5xf32>) -> tensor<2x3x5x5xf32>
  return %0 : tensor<2x3x5x5xf32>
}

// The free dims 0 and 1 would swap: kept.
// CHECK-LABEL: func.func @reordered
// CHECK-NEXT: stablehlo.transpose %arg0, dims = [1, 0, 2]
// CHECK-NEXT: stablehlo.dot_general %0, %arg1
func.func @reordered(%x: tensor<3x5x4xf32>, %w: tensor<4x6xf32>) -> tensor<5x3x6xf32> {
  %t = stablehlo.transpose %x, dims = [1, 0, 2] : (tensor<3x5x4xf32>) -> tensor<5x3x4xf32>
  %0 = stablehlo.dot_general %t, %w, contracting_dims = [2] x [0] : (tensor<5x3x4xf32>, tensor<4x6xf32>) -> tensor<5x3x6xf32>
  return %0 : tensor<5x3x6xf32>
}

// The transpose is also a result: kept for it, the dot reads the weight.
// CHECK-LABEL: func.func @shared
// CHECK-NEXT: %0 = stablehlo.transpose %arg1
// CHECK-NEXT: stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1]
func.func @shared(%x: tensor<7x16xf32>, %w: tensor<24x16xf32>) -> (tensor<7x24xf32>, tensor<16x24xf32>) {
  %t = stablehlo.transpose %w, dims = [1, 0] : (tensor<24x16xf32>) -> tensor<16x24xf32>
  %0 = stablehlo.dot_general %x, %t, contracting_dims = [1] x [0] : (tensor<7x16xf32>, tensor<16x24xf32>) -> tensor<7x24xf32>
  return %0, %t : tensor<7x24xf32>, tensor<16x24xf32>
}

// CHECK-LABEL: func.func @conv
// CHECK-NEXT: stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, 0, 1, f]
func.func @conv(%x: tensor<1x3x8x8xf32>, %k: tensor<4x3x3x3xf32>) -> tensor<1x6x6x4xf32> {
  %xt = stablehlo.transpose %x, dims = [0, 2, 3, 1] : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
  %kt = stablehlo.transpose %k, dims = [2, 3, 1, 0] : (tensor<4x3x3x3xf32>) -> tensor<3x3x3x4xf32>
  %0 = stablehlo.convolution(%xt, %kt) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x6x6x4xf32>
  return %0 : tensor<1x6x6x4xf32>
}

// A reduce of transposes by one permutation keeps its result order: it
// reads the inputs over the mapped dims.
// CHECK-LABEL: func.func @reduce
// CHECK-NEXT: stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.add across dimensions = [1] : (tensor<4x5x6xf32>, tensor<f32>) -> tensor<4x6xf32>
func.func @reduce(%x: tensor<4x5x6xf32>, %z: tensor<f32>) -> tensor<4x6xf32> {
  %t = stablehlo.transpose %x, dims = [1, 0, 2] : (tensor<4x5x6xf32>) -> tensor<5x4x6xf32>
  %0 = stablehlo.reduce(%t init: %z) applies stablehlo.add across dimensions = [0] : (tensor<5x4x6xf32>, tensor<f32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// The kept dims would swap: the transpose stays.
// CHECK-LABEL: func.func @reduce_reordered
// CHECK-NEXT: stablehlo.transpose %arg0, dims = [2, 1, 0]
func.func @reduce_reordered(%x: tensor<4x5x6xf32>, %z: tensor<f32>) -> tensor<6x4xf32> {
  %t = stablehlo.transpose %x, dims = [2, 1, 0] : (tensor<4x5x6xf32>) -> tensor<6x5x4xf32>
  %0 = stablehlo.reduce(%t init: %z) applies stablehlo.add across dimensions = [1] : (tensor<6x5x4xf32>, tensor<f32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// Moving only a dim of size 1 keeps the element order: a reshape.
// CHECK-LABEL: func.func @unit_dims
// CHECK-NEXT: stablehlo.reshape %arg0 : (tensor<1x7x1x64xf32>) -> tensor<7x1x1x64xf32>
func.func @unit_dims(%x: tensor<1x7x1x64xf32>, %z: tensor<f32>) -> tensor<7x1x1x64xf32> {
  %t = stablehlo.transpose %x, dims = [1, 0, 2, 3] : (tensor<1x7x1x64xf32>) -> tensor<7x1x1x64xf32>
  return %t : tensor<7x1x1x64xf32>
}
