// The layout pass: tiled layouts by element width, MXU placement, padded
// sizes and the VMEM tile schedule.
// RUN: %tpucc --passes=layout --verify-each --emit=mlir --split-input-file %s | FileCheck %s
// RUN: %tpucc --passes=layout --target=v6e --emit=mlir --split-input-file %s | FileCheck %s --check-prefix=V6E

// CHECK-LABEL: func.func @tiles
// CHECK: stablehlo.add {{.*}}tpu.tile = array<i64: 8, 128>{{.*}}tensor<4x4xf32>
// CHECK: stablehlo.convert {{.*}}tpu.tile = array<i64: 16, 128>{{.*}}bf16
// CHECK: stablehlo.convert {{.*}}tpu.tile = array<i64: 32, 128>{{.*}}i8
// CHECK: stablehlo.convert {{.*}}tpu.tile = array<i64: 8, 128>{{.*}}f64
// A scalar has no tiled layout.
// CHECK: stablehlo.reduce
// CHECK-NOT: tpu.tile
// CHECK: func.return
func.func @tiles(%x: tensor<4x4xf32>) -> (tensor<4x4xbf16>, tensor<4x4xi8>, tensor<4x4xf64>, tensor<f32>) {
  %0 = stablehlo.add %x, %x : tensor<4x4xf32>
  %1 = stablehlo.convert %0 : (tensor<4x4xf32>) -> tensor<4x4xbf16>
  %2 = stablehlo.convert %0 : (tensor<4x4xf32>) -> tensor<4x4xi8>
  %3 = stablehlo.convert %0 : (tensor<4x4xf32>) -> tensor<4x4xf64>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %4 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<f32>
  return %1, %2, %3, %4 : tensor<4x4xbf16>, tensor<4x4xi8>, tensor<4x4xf64>, tensor<f32>
}

// -----

// A large matmul runs on the MXU: M padded to 8 sublanes, N and K to the
// MXU (128 on v5e, 256 on v6e), tiles that fit VMEM.
// CHECK-LABEL: func.func @mxu
// CHECK: stablehlo.dot_general {{.*}}tpu.mxu_pad = array<i64: 1000, 384, 640>, tpu.mxu_tile = array<i64: 512, 256, 512>
// V6E-LABEL: func.func @mxu
// V6E: stablehlo.dot_general {{.*}}tpu.mxu_pad = array<i64: 1000, 512, 768>, tpu.mxu_tile = array<i64: 512, 512, 512>
func.func @mxu(%a: tensor<1000x600xbf16>, %b: tensor<600x300xbf16>) -> tensor<1000x300xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<1000x600xbf16>, tensor<600x300xbf16>) -> tensor<1000x300xf32>
  return %0 : tensor<1000x300xf32>
}

// -----

// A matrix-vector product would pad one column to a full MXU pass: the
// vector unit does it.
// CHECK-LABEL: func.func @matvec
// CHECK: stablehlo.dot_general {{.*}}tpu.unit = "vpu"
// CHECK-NOT: tpu.mxu_tile
func.func @matvec(%a: tensor<1x4096xf32>, %b: tensor<4096x1xf32>) -> tensor<1x1xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<1x4096xf32>, tensor<4096x1xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

// Convolutions are placed too (batch x output positions = M).
// CHECK-LABEL: func.func @conv
// CHECK: stablehlo.convolution{{.*}}tpu.mxu_pad = array<i64: 2048, 128, 640>
func.func @conv(%x: tensor<8x16x16x64xf32>, %k: tensor<3x3x64x128xf32>) -> tensor<8x16x16x128xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<8x16x16x64xf32>, tensor<3x3x64x128xf32>) -> tensor<8x16x16x128xf32>
  return %0 : tensor<8x16x16x128xf32>
}

// -----

// An empty product has nothing to place (and must not hang the scheduler).
// CHECK-LABEL: func.func @empty
// CHECK-NOT: tpu.mxu_tile
// CHECK: func.return
func.func @empty(%a: tensor<0x256xf32>, %b: tensor<256x256xf32>) -> tensor<0x256xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<0x256xf32>, tensor<256x256xf32>) -> tensor<0x256xf32>
  return %0 : tensor<0x256xf32>
}
