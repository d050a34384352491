// chlo.constant, chlo.constant_like (expanded to stablehlo.constant) and
// chlo._asin_acos_kernel (the ASIN_ACOS_KERNEL kernel; expected values from
// the formula of chlo.md in double precision, and asin / acos rebuilt from w).
// RUN: %tpurun -O0 --check %s | FileCheck %s
// RUN: %tpurun -O2 --check %s | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s --check-prefix=PRINT
// CHECK: checks: 7 passed, 0 failed
// PRINT: chlo.constant dense<[1, 2]> : tensor<2xi32>
// PRINT: "chlo.constant_like"(%{{.*}}) {value = 2.5e+00 : f32} : (tensor<2x2xf32>) -> tensor<2x2xf32>
// PRINT: chlo._asin_acos_kernel %{{.*}} : tensor<5xcomplex<f64>> -> tensor<5xcomplex<f64>>
func.func @main() {
  %c = chlo.constant dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const %c, dense<[1, 2]> : tensor<2xi32>
  %g = "chlo.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  check.expect_eq_const %g, dense<true> : tensor<i1>
  %x = stablehlo.constant dense<0.0> : tensor<2x2xf32>
  %l = "chlo.constant_like"(%x) {value = 2.5 : f32} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_eq_const %l, dense<2.5> : tensor<2x2xf32>
  %i = "chlo.constant_like"(%x) {value = -3 : i8} : (tensor<2x2xf32>) -> tensor<2x2xi8>
  check.expect_eq_const %i, dense<-3> : tensor<2x2xi8>
  %z = stablehlo.constant dense<[(0.5,0.25), (-2.0,1.0), (3.0,-4.0), (0.1,0.0), (-0.7,-1.5)]> : tensor<5xcomplex<f64>>
  %w = chlo._asin_acos_kernel %z : tensor<5xcomplex<f64>> -> tensor<5xcomplex<f64>>
  check.expect_almost_eq_const %w, dense<[(0.911754327326162,0.2813960562452922), (1.1117859405028427,1.4693517443681854), (4.080332172835138,2.305509031243477), (0.99498743710662,0.0), (1.7646647052610904,1.256224290548298)]> : tensor<5xcomplex<f64>>
  // asin(z) = complex(atan2(re z, re w), sign(im z) im w)
  %zr = stablehlo.real %z : (tensor<5xcomplex<f64>>) -> tensor<5xf64>
  %zi = stablehlo.imag %z : (tensor<5xcomplex<f64>>) -> tensor<5xf64>
  %wr = stablehlo.real %w : (tensor<5xcomplex<f64>>) -> tensor<5xf64>
  %wi = stablehlo.imag %w : (tensor<5xcomplex<f64>>) -> tensor<5xf64>
  %re = stablehlo.atan2 %zr, %wr : tensor<5xf64>
  %s = stablehlo.sign %zi : tensor<5xf64>
  %im = stablehlo.multiply %s, %wi : tensor<5xf64>
  %asin = stablehlo.complex %re, %im : tensor<5xcomplex<f64>>
  %ref = chlo.asin %z : tensor<5xcomplex<f64>> -> tensor<5xcomplex<f64>>
  check.expect_almost_eq %asin, %ref : tensor<5xcomplex<f64>>
  %f = stablehlo.constant dense<[(0.5,0.25), (-2.0,1.0)]> : tensor<2xcomplex<f32>>
  %wf = chlo._asin_acos_kernel %f : tensor<2xcomplex<f32>> -> tensor<2xcomplex<f32>>
  check.expect_almost_eq_const %wf, dense<[(0.911754327326162,0.2813960562452922), (1.1117859405028427,1.4693517443681854)]> : tensor<2xcomplex<f32>>
  func.return
}
