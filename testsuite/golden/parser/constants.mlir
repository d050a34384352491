// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: %tpucc -O0 --emit=mlir %s | %tpucc -O0 --emit=mlir - | FileCheck %s
// stablehlo.constant with every literal form: splats, nested lists, hex
// blobs, hex bit patterns, inf/nan, booleans, complex, empty, every
// integer width and signedness, small floats.

// CHECK-LABEL: func.func @ints
// CHECK-NEXT:    %0 = stablehlo.constant dense<1> : tensor<i32>
// CHECK-NEXT:    %1 = stablehlo.constant dense<-7> : tensor<2x3xi64>
// CHECK-NEXT:    %2 = stablehlo.constant dense<{{\[}}[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
// CHECK-NEXT:    %3 = stablehlo.constant dense<[255, 0]> : tensor<2xui8>
// CHECK-NEXT:    %4 = stablehlo.constant dense<[-1, -128]> : tensor<2xi8>
// CHECK-NEXT:    %5 = stablehlo.constant dense<18446744073709551615> : tensor<ui64>
// CHECK-NEXT:    %6 = stablehlo.constant dense<-9223372036854775808> : tensor<si64>
// CHECK-NEXT:    %7 = stablehlo.constant dense<[7, -8]> : tensor<2xi4>
// CHECK-NEXT:    %8 = stablehlo.constant dense<[3, 0]> : tensor<2xui2>
// CHECK-NEXT:    %9 = stablehlo.constant dense<[16, 31]> : tensor<2xi64>
// CHECK-NEXT:    %10 = stablehlo.constant dense<5> : tensor<index>
// CHECK-NEXT:    %11 = stablehlo.constant dense<[-32768, 32767]> : tensor<2xsi16>
// GENERIC-LABEL: "func.func"() ({
// GENERIC-NEXT:    %0 = "stablehlo.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
// GENERIC-NEXT:    %1 = "stablehlo.constant"() {value = dense<-7> : tensor<2x3xi64>} : () -> tensor<2x3xi64>
func.func @ints() {
  %0 = stablehlo.constant dense<1> : tensor<i32>
  %1 = stablehlo.constant dense<-7> : tensor<2x3xi64>
  %2 = stablehlo.constant dense<[[1, 2, 3],
                                 [4, 5, 6]]> : tensor<2x3xi32>
  %3 = stablehlo.constant dense<[255, 0]> : tensor<2xui8>
  %4 = stablehlo.constant dense<[255, -128]> : tensor<2xi8>
  %5 = stablehlo.constant dense<18446744073709551615> : tensor<ui64>
  %6 = stablehlo.constant dense<-9223372036854775808> : tensor<si64>
  %7 = stablehlo.constant dense<[7, -8]> : tensor<2xi4>
  %8 = stablehlo.constant dense<[3, 0]> : tensor<2xui2>
  %9 = stablehlo.constant dense<[0x10, 0x1f]> : tensor<2xi64>
  %10 = stablehlo.constant dense<5> : tensor<index>
  %11 = stablehlo.constant dense<[-32768, 32767]> : tensor<2xsi16>
  func.return
}

// CHECK-LABEL: func.func @floats
// CHECK-NEXT:    %0 = stablehlo.constant dense<1.5e+00> : tensor<2x2xf32>
// CHECK-NEXT:    %1 = stablehlo.constant dense<[1.0e-01, -2.5e+00, 1.0e+10, 0.0e+00]> : tensor<4xf32>
// CHECK-NEXT:    %2 = stablehlo.constant dense<[-0.0e+00, 3.141592653589793e+00]> : tensor<2xf64>
// CHECK-NEXT:    %3 = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK-NEXT:    %4 = stablehlo.constant dense<[0x7F800000, 0x7FC00000, 1.0e+00]> : tensor<3xf32>
// CHECK-NEXT:    %5 = stablehlo.constant dense<[6.55e+04, 0x7C00, 6.0e-08]> : tensor<3xf16>
// CHECK-NEXT:    %6 = stablehlo.constant dense<[3.14e+00, -1.0e+00]> : tensor<2xbf16>
// Shortest decimals that read back to the same bits of the kind:
// CHECK-NEXT:    %7 = stablehlo.constant dense<[4.5e+02, 0x7F, 2.0e+00]> : tensor<3xf8E4M3FN>
// CHECK-NEXT:    %8 = stablehlo.constant dense<[6.0e+00, -5.0e-01]> : tensor<2xf4E2M1FN>
// CHECK-NEXT:    %9 = stablehlo.constant dense<1.0e+00> : tensor<f64>
// CHECK-NEXT:    %10 = stablehlo.constant dense<[6.0e+04, 0x80]> : tensor<2xf8E5M2FNUZ>
func.func @floats() {
  %0 = stablehlo.constant dense<1.5> : tensor<2x2xf32>
  %1 = stablehlo.constant dense<[0.1, -2.5, 1e10, 0.0]> : tensor<4xf32>
  %2 = stablehlo.constant dense<[-0.0, 3.141592653589793]> : tensor<2xf64>
  %3 = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %4 = stablehlo.constant dense<[inf, nan, 1]> : tensor<3xf32>
  %5 = stablehlo.constant dense<[65504.0, 0x7C00, 5.9604644775390625E-8]> : tensor<3xf16>
  %6 = stablehlo.constant dense<[3.140625, -1.0]> : tensor<2xbf16>
  %7 = stablehlo.constant dense<[448.0, 0x7F, 2.0]> : tensor<3xf8E4M3FN>
  %8 = stablehlo.constant dense<[6.0, -0.5]> : tensor<2xf4E2M1FN>
  %9 = stablehlo.constant dense<1> : tensor<f64>
  %10 = stablehlo.constant dense<[57344.0, 0x80]> : tensor<2xf8E5M2FNUZ>
  func.return
}

// CHECK-LABEL: func.func @hex_bool_complex_empty
// CHECK-NEXT:    %0 = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>
// CHECK-NEXT:    %1 = stablehlo.constant dense<"0x01000000020000000300000004000000"> : tensor<2x2xi32>
// CHECK-NEXT:    %2 = stablehlo.constant dense<-1> : tensor<3xi16>
// CHECK-NEXT:    %3 = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-NEXT:    %4 = stablehlo.constant dense<false> : tensor<2x2xi1>
// CHECK-NEXT:    %5 = stablehlo.constant dense<[(1.0e+00, 2.0e+00), (-3.0e+00, 5.0e-01)]> : tensor<2xcomplex<f32>>
// CHECK-NEXT:    %6 = stablehlo.constant dense<(0.0e+00, 1.0e+00)> : tensor<2x2xcomplex<f64>>
// CHECK-NEXT:    %7 = stablehlo.constant dense<> : tensor<0xf32>
// CHECK-NEXT:    %8 = stablehlo.constant dense<> : tensor<2x0xi32>
// CHECK-NEXT:    %9 = stablehlo.constant dense<true> : tensor<i1>
// GENERIC-LABEL: sym_name = "floats"
// GENERIC:         %0 = "stablehlo.constant"() {value = dense<"0x0000803F00000040"> : tensor<2xf32>} : () -> tensor<2xf32>
// GENERIC:         %3 = "stablehlo.constant"() {value = dense<[true, false, true]> : tensor<3xi1>} : () -> tensor<3xi1>
func.func @hex_bool_complex_empty() {
  %0 = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>
  %1 = stablehlo.constant dense<"0x01000000020000000300000004000000"> : tensor<2x2xi32>
  %2 = stablehlo.constant dense<"0xFFFF"> : tensor<3xi16>
  %3 = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
  %4 = stablehlo.constant dense<false> : tensor<2x2xi1>
  %5 = stablehlo.constant dense<[(1.0, 2.0), (-3.0, 0.5)]> : tensor<2xcomplex<f32>>
  %6 = stablehlo.constant dense<(0.0, 1.0)> : tensor<2x2xcomplex<f64>>
  %7 = stablehlo.constant dense<> : tensor<0xf32>
  %8 = stablehlo.constant dense<[[], []]> : tensor<2x0xi32>
  %9 = "stablehlo.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  func.return
}

// Attributes on a constant go before the literal.
// CHECK-LABEL: func.func @constant_attrs
// CHECK-NEXT:    %0 = stablehlo.constant {mhlo.sharding = "{replicated}"} dense<2> : tensor<i64>
func.func @constant_attrs() -> tensor<i64> {
  %0 = "stablehlo.constant"() {value = dense<2> : tensor<i64>, mhlo.sharding = "{replicated}"} : () -> tensor<i64>
  func.return %0 : tensor<i64>
}
