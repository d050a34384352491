// RUN: %tpucc -O0 --passes= --emit=mlir %s | FileCheck %s
// RUN: %tpucc -O0 --passes= --emit=mlir --emit=mlir-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: %tpucc -O0 --passes= --emit=mlir %s | %tpucc -O0 --passes= --emit=mlir - | FileCheck %s
// Linear algebra, FFT, random numbers, quantization and I/O ops.

// CHECK-LABEL: func.func @linalg
// CHECK-NEXT:    %0 = "stablehlo.cholesky"(%arg0) {lower = true} : (tensor<3x3xf32>) -> tensor<3x3xf32>
// CHECK-NEXT:    %1 = "stablehlo.triangular_solve"(%arg0, %arg1) {left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false} : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    %2 = stablehlo.fft %arg2, type = FFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
// CHECK-NEXT:    %3 = stablehlo.fft %arg3, type = RFFT, length = [4] : (tensor<4xf32>) -> tensor<3xcomplex<f32>>
// GENERIC-LABEL: "func.func"() ({
// GENERIC:         %1 = "stablehlo.triangular_solve"(%arg0, %arg1) {left_side = true, lower = true, transpose_a = #stablehlo<"transpose NO_TRANSPOSE">, unit_diagonal = false}
// GENERIC-NEXT:    %2 = "stablehlo.fft"(%arg2) {fft_length = dense<[4]> : tensor<1xi64>, fft_type = #stablehlo<"fft_type FFT">}
func.func @linalg(%a: tensor<3x3xf32>, %b: tensor<3x2xf32>, %c: tensor<4xcomplex<f32>>, %r: tensor<4xf32>) -> tensor<3x3xf32> {
  %0 = "stablehlo.cholesky"(%a) {lower = true} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %1 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %2 = stablehlo.fft %c, type = FFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  %3 = stablehlo.fft %r, type = RFFT, length = [4] : (tensor<4xf32>) -> tensor<3xcomplex<f32>>
  func.return %0 : tensor<3x3xf32>
}

// CHECK-LABEL: func.func @batch_norm
// CHECK-NEXT:    %0 = "stablehlo.batch_norm_inference"(%arg0, %arg1, %arg1, %arg1, %arg1) {epsilon = 1.0e-03 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %1:3 = "stablehlo.batch_norm_training"(%arg0, %arg1, %arg1) {epsilon = 1.0e-03 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT:    %2:3 = "stablehlo.batch_norm_grad"(%arg0, %arg1, %arg1, %arg1, %arg0) {epsilon = 1.0e-03 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
func.func @batch_norm(%x: tensor<2x3xf32>, %s: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %s, %s, %s) {epsilon = 0.001 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1:3 = "stablehlo.batch_norm_training"(%x, %s, %s) {epsilon = 0.001 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  %2:3 = "stablehlo.batch_norm_grad"(%x, %s, %s, %s, %x) {epsilon = 0.001 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  func.return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @random
// CHECK-NEXT:    %0:2 = stablehlo.rng_bit_generator %arg0, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
// CHECK-NEXT:    %1:2 = stablehlo.rng_bit_generator %0#0, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xf32>)
// CHECK-NEXT:    %2 = stablehlo.rng %arg1, %arg1, %arg2, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x4xf32>
// CHECK-NEXT:    %3 = stablehlo.rng %arg1, %arg1, %arg2, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x4xf32>
// GENERIC:         %0:2 = "stablehlo.rng_bit_generator"(%arg0) {rng_algorithm = #stablehlo<"rng_algorithm DEFAULT">}
// GENERIC:         %2 = "stablehlo.rng"(%arg1, %arg1, %arg2) {rng_distribution = #stablehlo<"rng_distribution UNIFORM">}
func.func @random(%state: tensor<2xui64>, %lo: tensor<f32>, %shape: tensor<2xi64>) -> tensor<4xui32> {
  %0:2 = stablehlo.rng_bit_generator %state, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  %1:2 = "stablehlo.rng_bit_generator"(%0#0) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xf32>)
  %2 = stablehlo.rng %lo, %lo, %shape, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x4xf32>
  %3 = stablehlo.rng %lo, %lo, %shape, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x4xf32>
  func.return %0#1 : tensor<4xui32>
}

// CHECK-LABEL: func.func @quantized(%arg0: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %0 = stablehlo.uniform_quantize %arg0 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>
// CHECK-NEXT:    %1 = stablehlo.uniform_dequantize %0 : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<4xf32>
func.func @quantized(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>
  %1 = stablehlo.uniform_dequantize %0 : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<4xf32>
  func.return %1 : tensor<4xf32>
}

// CHECK-LABEL: func.func @io
// CHECK-NEXT:    %0:2 = "stablehlo.infeed"(%arg1) : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
// CHECK-NEXT:    %1 = "stablehlo.outfeed"(%arg0, %0#1) : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
// CHECK-NEXT:    %2 = "stablehlo.send"(%arg0, %1) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = true} : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
// CHECK-NEXT:    %3:2 = "stablehlo.recv"(%2) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
func.func @io(%x: tensor<2xf32>, %t: !stablehlo.token) -> !stablehlo.token {
  %0:2 = "stablehlo.infeed"(%t) {infeed_config = ""} : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
  %1 = "stablehlo.outfeed"(%x, %0#1) {outfeed_config = ""} : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
  %2 = "stablehlo.send"(%x, %1) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = true} : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
  %3:2 = "stablehlo.recv"(%2) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
  func.return %3#1 : !stablehlo.token
}
