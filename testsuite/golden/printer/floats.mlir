// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir %s | %tpucc -O0 --emit=mlir - | FileCheck %s
// Floats print as the shortest decimal that reads back to the same bits of
// their own kind, always with '.' and an exponent (d.ddde+XX); non-finite
// values print as their bit pattern in hex.

// CHECK:      f32s = [1.0e+00 : f32, 2.5e+00 : f32, -5.0e-01 : f32, 1.0e-01 : f32, 1.0e+10 : f32, 3.4028235e+38 : f32, 1.0e-45 : f32, 0.0e+00 : f32, -0.0e+00 : f32, 1.23456e+02 : f32]
// CHECK-SAME: f64s = [1.0e-01 : f64, 3.141592653589793e+00 : f64, 1.7976931348623157e+308 : f64, 5.0e-324 : f64, 1.0e+00 : f64]
// CHECK-SAME: halfs = [6.55e+04 : f16, 6.0e-08 : f16, 1.0e-01 : f16, 3.14e+00 : bf16, 3.39e+38 : bf16, 1.0e+00 : tf32]
// CHECK-SAME: minis = [4.5e+02 : f8E4M3FN, 2.4e+02 : f8E4M3FNUZ, 6.0e+04 : f8E5M2, 6.0e+00 : f4E2M1FN, 1.5e+00 : f6E2M3FN, 6.0e-02 : f6E3M2FN, 2.0e+38 : f8E8M0FNU]
// CHECK-SAME: special = [0x7F800000 : f32, 0xFF800000 : f32, 0x7FC00000 : f32, 0x7FF0000000000000 : f64, 0x7C00 : f16, 0xFF80 : bf16, 0x7F : f8E4M3FN, 0x80 : f8E4M3FNUZ]
module attributes {
  f32s = [1.0 : f32, 2.5 : f32, -0.5 : f32, 0.1 : f32, 1e10 : f32, 3.4028234663852886e38 : f32, 1.401298464324817e-45 : f32, 0.0 : f32, -0.0 : f32, 123.456 : f32],
  f64s = [0.1 : f64, 3.141592653589793 : f64, 1.7976931348623157e308 : f64, 4.9406564584124654e-324 : f64, 1 : f64],
  halfs = [65504.0 : f16, 5.960464477539063e-08 : f16, 0.1 : f16, 3.140625 : bf16, 3.3895313892515355e38 : bf16, 1.0 : tf32],
  minis = [448.0 : f8E4M3FN, 240.0 : f8E4M3FNUZ, 57344.0 : f8E5M2, 6.0 : f4E2M1FN, 1.5 : f6E2M3FN, 0.0625 : f6E3M2FN, 1.7014118346046923e38 : f8E8M0FNU],
  special = [inf : f32, -inf : f32, nan : f32, 0x7FF0000000000000 : f64, 65520.0 : f16, -inf : bf16, nan : f8E4M3FN, nan : f8E4M3FNUZ]
} {
  // Dense literals print their elements the same way.
  // CHECK:       stablehlo.constant dense<[1.0e-01, 2.0e-01, 3.0e-01]> : tensor<3xf32>
  // CHECK:       stablehlo.constant dense<[1.0e-01, 2.0e-01, 3.0000000000000004e-01]> : tensor<3xf64>
  // CHECK:       stablehlo.constant dense<[(1.0e-01, -0.0e+00), (0x7F800000, 2.0e+00)]> : tensor<2xcomplex<f32>>
  func.func @dense() {
    %0 = stablehlo.constant dense<[0.1, 0.2, 0.3]> : tensor<3xf32>
    %1 = stablehlo.constant dense<[0.1, 0.2, 0.30000000000000004]> : tensor<3xf64>
    %2 = stablehlo.constant dense<[(0.1, -0.0), (inf, 2.0)]> : tensor<2xcomplex<f32>>
    func.return
  }
}
