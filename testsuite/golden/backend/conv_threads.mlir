// A convolution big enough to split its patch chunks over host threads
// gives the same bits on 1 and 2 threads (and matches -O0, where the
// same kernel runs unfused).
// RUN: %tpurun %s --threads=1 --input=random:1 --input=random:2 --output=@%t.1.npy
// RUN: %tpurun %s --threads=2 --input=random:1 --input=random:2 --output=@%t.2.npy
// RUN: %tpurun %s -O0 --threads=2 --input=random:1 --input=random:2 --output=@%t.3.npy
// RUN: cmp %t.1.npy %t.2.npy
// RUN: cmp %t.1.npy %t.3.npy
func.func @main(%x: tensor<8x32x32x16xf32>, %k: tensor<3x3x16x32xf32>) -> tensor<8x32x32x32xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<8x32x32x16xf32>, tensor<3x3x16x32xf32>) -> tensor<8x32x32x32xf32>
  return %0 : tensor<8x32x32x32xf32>
}
