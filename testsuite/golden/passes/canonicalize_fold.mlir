// canonicalize: constant folding, with the cases where it must NOT fold
// (implementation-defined integer division, out-of-range float -> int,
// max of -0.0 and +0.0, transcendental functions, elided weights, a big
// non-splat result).
// RUN: %tpucc --passes=canonicalize --verify-each --emit=mlir --split-input-file %s | FileCheck %s

// Integers wrap at every width; boolean add is or.
// CHECK-LABEL: func.func @int_odd_widths
// CHECK-NEXT: %0 = stablehlo.constant dense<[-8, 7, -5]> : tensor<3xi4>
// CHECK-NEXT: %1 = stablehlo.constant dense<[0, 1, 2]> : tensor<3xui4>
// CHECK-NEXT: %2 = stablehlo.constant dense<[true, true, true, false]> : tensor<4xi1>
// CHECK-NEXT: %3 = stablehlo.constant dense<[1, 0, 1]> : tensor<3xi2>
// CHECK-NEXT: %4 = stablehlo.constant dense<[-8, -7, 3]> : tensor<3xsi4>
// CHECK-NEXT: %5 = stablehlo.constant dense<[false, true, true, false]> : tensor<4xi1>
// CHECK-NEXT: %6 = stablehlo.constant dense<[2, 1, 0]> : tensor<3xui4>
// CHECK-NEXT: func.return %0, %1, %2, %3, %4, %5, %6
func.func @int_odd_widths() -> (tensor<3xi4>, tensor<3xui4>, tensor<4xi1>, tensor<3xi2>, tensor<3xsi4>, tensor<4xi1>, tensor<3xui4>) {
  %a = stablehlo.constant dense<[7, -8, 5]> : tensor<3xi4>
  %b = stablehlo.constant dense<[1, -1, 6]> : tensor<3xi4>
  %0 = stablehlo.add %a, %b : tensor<3xi4>
  %c = stablehlo.constant dense<[15, 0, 9]> : tensor<3xui4>
  %d = stablehlo.constant dense<[1, 1, 9]> : tensor<3xui4>
  %1 = stablehlo.add %c, %d : tensor<3xui4>
  %p = stablehlo.constant dense<[true, true, false, false]> : tensor<4xi1>
  %q = stablehlo.constant dense<[true, false, true, false]> : tensor<4xi1>
  %2 = stablehlo.add %p, %q : tensor<4xi1>
  %e = stablehlo.constant dense<[1, -2, -1]> : tensor<3xi2>
  %3 = stablehlo.multiply %e, %e : tensor<3xi2>
  %f = stablehlo.constant dense<[-8, 7, -3]> : tensor<3xsi4>
  %4 = stablehlo.negate %f : tensor<3xsi4>
  %5 = stablehlo.xor %p, %q : tensor<4xi1>
  %6 = stablehlo.subtract %d, %c : tensor<3xui4>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<3xi4>, tensor<3xui4>, tensor<4xi1>, tensor<3xi2>, tensor<3xsi4>, tensor<4xi1>, tensor<3xui4>
}

// -----

// Division truncates; by zero and INT_MIN / -1 are implementation-defined
// and stay.
// CHECK-LABEL: func.func @div_rem
// CHECK-NEXT: %0 = stablehlo.constant dense<[-3, 3, 3, -3]> : tensor<4xi32>
// CHECK-NEXT: %1 = stablehlo.constant dense<[-1, 1, -1, 1]> : tensor<4xi32>
// CHECK: stablehlo.divide %{{.*}} : tensor<2xi8>
// CHECK: stablehlo.remainder %{{.*}} : tensor<2xi8>
// CHECK: stablehlo.divide %{{.*}} : tensor<2xui8>
func.func @div_rem() -> (tensor<4xi32>, tensor<4xi32>, tensor<2xi8>, tensor<2xi8>, tensor<2xui8>) {
  %a = stablehlo.constant dense<[-7, 7, -7, 7]> : tensor<4xi32>
  %b = stablehlo.constant dense<[2, 2, -2, -2]> : tensor<4xi32>
  %0 = stablehlo.divide %a, %b : tensor<4xi32>
  %1 = stablehlo.remainder %a, %b : tensor<4xi32>
  %m = stablehlo.constant dense<[-128, 5]> : tensor<2xi8>
  %n = stablehlo.constant dense<[-1, 1]> : tensor<2xi8>
  %2 = stablehlo.divide %m, %n : tensor<2xi8>
  %z = stablehlo.constant dense<[3, 0]> : tensor<2xi8>
  %3 = stablehlo.remainder %m, %z : tensor<2xi8>
  %u = stablehlo.constant dense<[200, 7]> : tensor<2xui8>
  %v = stablehlo.constant dense<[0, 7]> : tensor<2xui8>
  %4 = stablehlo.divide %u, %v : tensor<2xui8>
  return %0, %1, %2, %3, %4 : tensor<4xi32>, tensor<4xi32>, tensor<2xi8>, tensor<2xi8>, tensor<2xui8>
}

// -----

// Shifts by the width or more (or negative) give 0, or the sign for the
// arithmetic right shift, which sign-fills unsigned types too.
// CHECK-LABEL: func.func @shifts
// CHECK-NEXT: %0 = stablehlo.constant dense<[0, -128, 0, 0, 0]> : tensor<5xi8>
// CHECK-NEXT: %1 = stablehlo.constant dense<[-64, 0, 0, -1, 0]> : tensor<5xi8>
// CHECK-NEXT: %2 = stablehlo.constant dense<[64, 0, 0, 0, 0]> : tensor<5xi8>
// CHECK-NEXT: %3 = stablehlo.constant dense<[12, 15, 15]> : tensor<3xui4>
// CHECK-NEXT: %4 = stablehlo.constant dense<[0, -8, -4]> : tensor<3xi4>
// CHECK-NEXT: func.return
func.func @shifts() -> (tensor<5xi8>, tensor<5xi8>, tensor<5xi8>, tensor<3xui4>, tensor<3xi4>) {
  %a = stablehlo.constant dense<[-128, 1, 64, -1, 3]> : tensor<5xi8>
  %s = stablehlo.constant dense<[1, 7, 8, 9, -1]> : tensor<5xi8>
  %0 = stablehlo.shift_left %a, %s : tensor<5xi8>
  %1 = stablehlo.shift_right_arithmetic %a, %s : tensor<5xi8>
  %2 = stablehlo.shift_right_logical %a, %s : tensor<5xi8>
  %u = stablehlo.constant dense<[9, 15, 8]> : tensor<3xui4>
  %v = stablehlo.constant dense<[1, 4, 3]> : tensor<3xui4>
  %3 = stablehlo.shift_right_arithmetic %u, %v : tensor<3xui4>
  %i = stablehlo.constant dense<[-8, 1, 3]> : tensor<3xi4>
  %j = stablehlo.constant dense<[1, 3, 2]> : tensor<3xi4>
  %4 = stablehlo.shift_left %i, %j : tensor<3xi4>
  return %0, %1, %2, %3, %4 : tensor<5xi8>, tensor<5xi8>, tensor<5xi8>, tensor<3xui4>, tensor<3xi4>
}

// -----

// CHECK-LABEL: func.func @bits
// CHECK-NEXT: %0 = stablehlo.constant dense<[0, 1, 16, 1]> : tensor<4xi16>
// CHECK-NEXT: %1 = stablehlo.constant dense<[16, 15, 0, 7]> : tensor<4xi16>
// CHECK-NEXT: %2 = stablehlo.constant dense<[15, 14, 0]> : tensor<3xui4>
// CHECK-NEXT: %3 = stablehlo.constant dense<[-8, 0, 7]> : tensor<3xi4>
// CHECK-NEXT: %4 = stablehlo.constant dense<[1, -1, 0, -1]> : tensor<4xi16>
// CHECK-NEXT: %5 = stablehlo.constant dense<[true, false, true, false]> : tensor<4xi1>
// CHECK-NEXT: %6 = stablehlo.constant dense<[3, 1, 0, 256]> : tensor<4xi16>
// CHECK-NEXT: %7 = stablehlo.constant dense<[0, -3, -1, -32768]> : tensor<4xi16>
// CHECK-NEXT: %8 = stablehlo.constant dense<[0, 1, 0, 0]> : tensor<4xi16>
// CHECK-NEXT: func.return
func.func @bits() -> (tensor<4xi16>, tensor<4xi16>, tensor<3xui4>, tensor<3xi4>, tensor<4xi16>, tensor<4xi1>, tensor<4xi16>, tensor<4xi16>, tensor<4xi16>) {
  %a = stablehlo.constant dense<[0, 1, -1, 256]> : tensor<4xi16>
  %0 = stablehlo.popcnt %a : tensor<4xi16>
  %1 = stablehlo.count_leading_zeros %a : tensor<4xi16>
  %u = stablehlo.constant dense<[0, 1, 15]> : tensor<3xui4>
  %2 = stablehlo.not %u : tensor<3xui4>
  %i = stablehlo.constant dense<[-8, 0, 7]> : tensor<3xi4>
  %3 = stablehlo.abs %i : tensor<3xi4>
  %b = stablehlo.constant dense<[3, -3, 0, -32768]> : tensor<4xi16>
  %4 = stablehlo.sign %b : tensor<4xi16>
  %5 = stablehlo.compare LT, %a, %b : (tensor<4xi16>, tensor<4xi16>) -> tensor<4xi1>
  %6 = stablehlo.maximum %a, %b : tensor<4xi16>
  %7 = stablehlo.minimum %a, %b : tensor<4xi16>
  %8 = stablehlo.and %a, %b : tensor<4xi16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<4xi16>, tensor<4xi16>, tensor<3xui4>, tensor<3xi4>, tensor<4xi16>, tensor<4xi1>, tensor<4xi16>, tensor<4xi16>, tensor<4xi16>
}

// -----

// Floats round once to the result type (ties to even): f32 1 + 2^24,
// bf16 1 + 2^-8; f16 overflow is inf, 0/0 NaN; f8E4M3FN overflow is NaN.
// CHECK-LABEL: func.func @floats
// CHECK-NEXT: %0 = stablehlo.constant dense<[3.0e-01, 1.6777216e+07]> : tensor<2xf32>
// CHECK-NEXT: %1 = stablehlo.constant dense<[1.0e+00, 4.0e+00]> : tensor<2xbf16>
// CHECK-NEXT: %2 = stablehlo.constant dense<[0x7C00, 1.0e+00]> : tensor<2xf16>
// CHECK-NEXT: %3 = stablehlo.constant dense<[0x7F800000, 0xFF800000, 0x{{[7F]}}FC00000]> : tensor<3xf32>
// CHECK-NEXT: %4 = stablehlo.constant dense<[1.4142135623730951e+00, 0x{{[7F]}}FF8000000000000]> : tensor<2xf64>
// CHECK-NEXT: %5 = stablehlo.constant dense<[1.4142135e+00, 7.0710677e-01]> : tensor<2xf32>
// CHECK-NEXT: %6 = stablehlo.constant dense<[2.0e+00, 0x7F]> : tensor<2xf8E4M3FN>
// CHECK-NEXT: func.return
func.func @floats() -> (tensor<2xf32>, tensor<2xbf16>, tensor<2xf16>, tensor<3xf32>, tensor<2xf64>, tensor<2xf32>, tensor<2xf8E4M3FN>) {
  %a = stablehlo.constant dense<[0.1, 1.0]> : tensor<2xf32>
  %b = stablehlo.constant dense<[0.2, 16777216.0]> : tensor<2xf32>
  %0 = stablehlo.add %a, %b : tensor<2xf32>
  %c = stablehlo.constant dense<[1.0, 3.0]> : tensor<2xbf16>
  %d = stablehlo.constant dense<[0.00390625, 1.0]> : tensor<2xbf16>
  %1 = stablehlo.add %c, %d : tensor<2xbf16>
  %e = stablehlo.constant dense<[60000.0, 1.0]> : tensor<2xf16>
  %2 = stablehlo.multiply %e, %e : tensor<2xf16>
  %f = stablehlo.constant dense<[1.0, -1.0, 0.0]> : tensor<3xf32>
  %g = stablehlo.constant dense<0.0> : tensor<3xf32>
  %3 = stablehlo.divide %f, %g : tensor<3xf32>
  %h = stablehlo.constant dense<[2.0, -1.0]> : tensor<2xf64>
  %4 = stablehlo.sqrt %h : tensor<2xf64>
  %i = stablehlo.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %5 = stablehlo.sqrt %i : tensor<2xf32>
  %j = stablehlo.constant dense<[1.0, 400.0]> : tensor<2xf8E4M3FN>
  %6 = stablehlo.add %j, %j : tensor<2xf8E4M3FN>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2xf32>, tensor<2xbf16>, tensor<2xf16>, tensor<3xf32>, tensor<2xf64>, tensor<2xf32>, tensor<2xf8E4M3FN>
}

// -----

// max/min propagate NaN; the sign of max(+0.0, -0.0) is not fixed by the
// spec, so that op stays.
// CHECK-LABEL: func.func @max_min
// CHECK-NEXT: %0 = stablehlo.constant dense<[0x7FC00000, 0x7FC00000, 2.0e+00]> : tensor<3xf32>
// CHECK-NEXT: %1 = stablehlo.constant dense<[0x7FC00000, 0x7FC00000, -2.0e+00]> : tensor<3xf32>
// CHECK: %4 = stablehlo.maximum %2, %3 : tensor<2xf32>
// CHECK-NEXT: %5 = stablehlo.constant dense<[0.0e+00, 7.5e-01, 1.5e+00]> : tensor<3xf32>
func.func @max_min() -> (tensor<3xf32>, tensor<3xf32>, tensor<2xf32>, tensor<3xf32>) {
  %a = stablehlo.constant dense<[0x7FC00000, 1.0, 2.0]> : tensor<3xf32>
  %b = stablehlo.constant dense<[1.0, 0x7FC00000, -2.0]> : tensor<3xf32>
  %0 = stablehlo.maximum %a, %b : tensor<3xf32>
  %1 = stablehlo.minimum %a, %b : tensor<3xf32>
  %z = stablehlo.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %n = stablehlo.constant dense<[-0.0, 1.0]> : tensor<2xf32>
  %2 = stablehlo.maximum %z, %n : tensor<2xf32>
  %lo = stablehlo.constant dense<0.0> : tensor<f32>
  %hi = stablehlo.constant dense<1.5> : tensor<f32>
  %v = stablehlo.constant dense<[-3.0, 0.75, 7.0]> : tensor<3xf32>
  %3 = stablehlo.clamp %lo, %v, %hi : (tensor<f32>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %0, %1, %2, %3 : tensor<3xf32>, tensor<3xf32>, tensor<2xf32>, tensor<3xf32>
}

// -----

// compare (IEEE and TOTALORDER), select, convert: int -> float rounds to
// nearest even, float -> int truncates, out of range stays; any -> i1 is
// "nonzero" (NaN included); int -> int wraps.
// CHECK-LABEL: func.func @compare_select_convert
// CHECK-NEXT: %0 = stablehlo.constant dense<[true, false, false]> : tensor<3xi1>
// CHECK-NEXT: %1 = stablehlo.constant dense<[true, true, false]> : tensor<3xi1>
// CHECK-NEXT: %2 = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-NEXT: %3 = stablehlo.constant dense<[1.0e+00, 0x7FC00000, 0.0e+00]> : tensor<3xf32>
// CHECK-NEXT: %4 = stablehlo.constant dense<[1.6777216e+07, -1.677722e+07, 3.0e+00]> : tensor<3xf32>
// CHECK-NEXT: %5 = stablehlo.constant dense<[-2, 2, 2147483520]> : tensor<3xi32>
// CHECK-NEXT: %6 = stablehlo.constant dense<[1.279e+02, 1.28e+02]> : tensor<2xf32>
// CHECK-NEXT: %7 = stablehlo.convert %6 : (tensor<2xf32>) -> tensor<2xi8>
// CHECK-NEXT: %8 = stablehlo.constant dense<[true, true, false]> : tensor<3xi1>
// CHECK-NEXT: %9 = stablehlo.constant dense<[2.56e+02, -1.29e+02]> : tensor<2xbf16>
// CHECK-NEXT: %10 = stablehlo.constant dense<[1, 127]> : tensor<2xui8>
func.func @compare_select_convert() -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<2xi8>, tensor<3xi1>, tensor<2xbf16>, tensor<2xui8>) {
  %a = stablehlo.constant dense<[1.0, 0x7FC00000, -0.0]> : tensor<3xf32>
  %b = stablehlo.constant dense<[2.0, 0x7FC00000, 0.0]> : tensor<3xf32>
  %0 = stablehlo.compare LT, %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %1 = stablehlo.compare NE, %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %2 = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %3 = stablehlo.select %0, %a, %b : tensor<3xi1>, tensor<3xf32>
  %i = stablehlo.constant dense<[16777217, -16777219, 3]> : tensor<3xi32>
  %4 = stablehlo.convert %i : (tensor<3xi32>) -> tensor<3xf32>
  %f = stablehlo.constant dense<[-2.9, 2.9, 2147483520.0]> : tensor<3xf32>
  %5 = stablehlo.convert %f : (tensor<3xf32>) -> tensor<3xi32>
  %g = stablehlo.constant dense<[127.9, 128.0]> : tensor<2xf32>
  %6 = stablehlo.convert %g : (tensor<2xf32>) -> tensor<2xi8>
  %7 = stablehlo.convert %b : (tensor<3xf32>) -> tensor<3xi1>
  %k = stablehlo.constant dense<[257, -129]> : tensor<2xi32>
  %8 = stablehlo.convert %k : (tensor<2xi32>) -> tensor<2xbf16>
  %9 = stablehlo.convert %k : (tensor<2xi32>) -> tensor<2xui8>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<2xi8>, tensor<3xi1>, tensor<2xbf16>, tensor<2xui8>
}

// -----

// Shape ops on constants move elements.
// CHECK-LABEL: func.func @shape_folds
// CHECK-NEXT: %0 = stablehlo.constant dense<{{\[}}[3, 2, 1], [6, 5, 4]]> : tensor<2x3xi32>
// CHECK-NEXT: %1 = stablehlo.constant dense<{{\[}}[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>
// CHECK-NEXT: %2 = stablehlo.constant dense<{{\[}}[1, 3], [4, 6]]> : tensor<2x2xi32>
// CHECK-NEXT: %3 = stablehlo.constant dense<{{\[}}[1, 2, 3], [4, 5, 6], [7, 8, 9], [0, 0, 0], [0, 0, 0]]> : tensor<5x3xi32>
// CHECK-NEXT: %4 = stablehlo.constant dense<{{\[}}[10, 10, 10], [20, 20, 20]]> : tensor<2x3xi32>
// CHECK-NEXT: %5 = stablehlo.constant dense<{{\[}}[-1, -1, -1, -1, -1, -1], [1, -1, 2, -1, 3, -1], [4, -1, 5, -1, 6, -1], [-1, -1, -1, -1, -1, -1]]> : tensor<4x6xi32>
// CHECK-NEXT: %6 = stablehlo.constant dense<{{\[}}[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
// CHECK-NEXT: %7 = stablehlo.constant dense<{{\[}}{{\[}}[1, 2, 3], [4, 5, 6]], {{\[}}[1, 2, 3], [4, 5, 6]]]> : tensor<2x2x3xi32>
// CHECK-NEXT: %8 = stablehlo.constant dense<{{\[}}[0.0e+00, 1.0e+00, 2.0e+00], [0.0e+00, 1.0e+00, 2.0e+00]]> : tensor<2x3xbf16>
// CHECK-NEXT: func.return
func.func @shape_folds() -> (tensor<2x3xi32>, tensor<3x2xi32>, tensor<2x2xi32>, tensor<5x3xi32>, tensor<2x3xi32>, tensor<4x6xi32>, tensor<3x2xi32>, tensor<2x2x3xi32>, tensor<2x3xbf16>) {
  %a = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %0 = stablehlo.reverse %a, dims = [1] : tensor<2x3xi32>
  %1 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xi32>
  %2 = stablehlo.slice %a [0:2, 0:3:2] : (tensor<2x3xi32>) -> tensor<2x2xi32>
  %b = stablehlo.constant dense<[[7, 8, 9]]> : tensor<1x3xi32>
  %c = stablehlo.constant dense<0> : tensor<2x3xi32>
  %3 = stablehlo.concatenate %a, %b, %c, dim = 0 : (tensor<2x3xi32>, tensor<1x3xi32>, tensor<2x3xi32>) -> tensor<5x3xi32>
  %v = stablehlo.constant dense<[10, 20]> : tensor<2xi32>
  %4 = stablehlo.broadcast_in_dim %v, dims = [0] : (tensor<2xi32>) -> tensor<2x3xi32>
  %pv = stablehlo.constant dense<-1> : tensor<i32>
  %5 = stablehlo.pad %a, %pv, low = [1, 0], high = [1, 1], interior = [0, 1] : (tensor<2x3xi32>, tensor<i32>) -> tensor<4x6xi32>
  %6 = stablehlo.reshape %a : (tensor<2x3xi32>) -> tensor<3x2xi32>
  %7 = stablehlo.broadcast %a, sizes = [2] : (tensor<2x3xi32>) -> tensor<2x2x3xi32>
  %8 = stablehlo.iota dim = 1 : tensor<2x3xbf16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<2x3xi32>, tensor<3x2xi32>, tensor<2x2xi32>, tensor<5x3xi32>, tensor<2x3xi32>, tensor<4x6xi32>, tensor<3x2xi32>, tensor<2x2x3xi32>, tensor<2x3xbf16>
}

// -----

// Not folded: transcendental functions (libm is not correctly rounded),
// elided weights (unknown values), a 2^21-element non-splat result.  A
// broadcast of a scalar stays a splat however big.
// CHECK-LABEL: func.func @not_folded
// CHECK: stablehlo.exponential
// CHECK: stablehlo.tanh
// CHECK: stablehlo.constant dense_resource<__elided__>
// CHECK-NEXT: stablehlo.add
// CHECK-NEXT: stablehlo.iota dim = 1 : tensor<2048x1024xi32>
// CHECK-NEXT: stablehlo.constant dense<2.5e+00> : tensor<2048x1024xf32>
// CHECK-NOT: stablehlo.broadcast_in_dim
func.func @not_folded() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2048x1024xi32>, tensor<2048x1024xf32>) {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = stablehlo.exponential %a : tensor<2xf32>
  %1 = stablehlo.tanh %a : tensor<2xf32>
  %w = stablehlo.constant dense_resource<__elided__> : tensor<2xf32>
  %2 = stablehlo.add %w, %a : tensor<2xf32>
  %3 = stablehlo.iota dim = 1 : tensor<2048x1024xi32>
  %s = stablehlo.constant dense<2.5> : tensor<f32>
  %4 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<2048x1024xf32>
  return %0, %1, %2, %3, %4 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2048x1024xi32>, tensor<2048x1024xf32>
}

// -----

// Folding reaches nested regions; the dead constants are erased.
// CHECK-LABEL: func.func @region
// CHECK: } do {
// CHECK-NEXT: %[[TWO:.*]] = stablehlo.constant dense<2> : tensor<i32>
// CHECK-NEXT: stablehlo.add %{{.*}}, %[[TWO]] : tensor<i32>
// CHECK-NOT: dense<1>
func.func @region(%n: tensor<i32>) -> tensor<i32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r = stablehlo.while(%i = %c0) : tensor<i32>
  cond {
    %lt = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %two = stablehlo.add %one, %one : tensor<i32>
    %next = stablehlo.add %i, %two : tensor<i32>
    stablehlo.return %next : tensor<i32>
  }
  return %r : tensor<i32>
}
