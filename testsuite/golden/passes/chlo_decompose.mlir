// The chlo-decompose pass: which CHLO ops become StableHLO, into what, and
// which must stay CHLO (the VM runs them natively).
// RUN: %tpucc --passes=chlo-decompose --verify-each --emit=mlir --split-input-file %s | FileCheck %s
// The new ops take the location of the CHLO op they replace (lines 2 and 3
// of @infs; the bytecode's location table shows them).
// RUN: sed -n '/^func.func @infs/,/^}/p' %s | %tpucc --passes=chlo-decompose --emit=asm - | FileCheck %s --check-prefix=LOC

// is_inf: |x| == +inf; is_pos_inf: x == +inf; is_neg_inf: x == -inf.
// CHECK-LABEL: func.func @infs
// CHECK-NOT: chlo.
// CHECK-DAG: %[[PINF:.*]] = stablehlo.constant dense<0x7F800000> : tensor<4xf32>
// CHECK-DAG: %[[ABS:.*]] = stablehlo.abs %arg0 : tensor<4xf32>
// CHECK: %[[I:.*]] = stablehlo.compare EQ, %[[ABS]], %[[PINF]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK: %[[P:.*]] = stablehlo.compare EQ, %arg0, %{{.*}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK: %[[NINF:.*]] = stablehlo.constant dense<0xFF800000> : tensor<4xf32>
// CHECK: %[[N:.*]] = stablehlo.compare EQ, %arg0, %[[NINF]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK-NOT: chlo.
// CHECK: func.return %[[I]], %[[P]], %[[N]]
// LOC-LABEL: func @infs
// LOC: constant {{.*}}; stablehlo.constant <stdin>:2:8
// LOC: abs {{.*}}; stablehlo.abs <stdin>:2:8
// LOC: compare {{.*}}; stablehlo.compare <stdin>:2:8
// LOC: compare {{.*}}; stablehlo.compare <stdin>:3:8
func.func @infs(%x: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = chlo.is_inf %x : tensor<4xf32> -> tensor<4xi1>
  %1 = chlo.is_pos_inf %x : tensor<4xf32> -> tensor<4xi1>
  %2 = chlo.is_neg_inf %x : tensor<4xf32> -> tensor<4xi1>
  return %0, %1, %2 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// conj of a complex: complex(real, -imag); of a real: the operand itself.
// tan: stablehlo.tan, complex included.
// CHECK-LABEL: func.func @conj_tan
// CHECK-NOT: chlo.
// CHECK: %[[RE:.*]] = stablehlo.real %arg0 : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
// CHECK: %[[IM:.*]] = stablehlo.imag %arg0 : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
// CHECK: %[[NEG:.*]] = stablehlo.negate %[[IM]] : tensor<3xf32>
// CHECK: %[[C:.*]] = stablehlo.complex %[[RE]], %[[NEG]] : tensor<3xcomplex<f32>>
// CHECK: %[[T:.*]] = stablehlo.tan %arg0 : tensor<3xcomplex<f32>>
// CHECK-NOT: chlo.
// CHECK: func.return %[[C]], %arg1, %[[T]]
func.func @conj_tan(%z: tensor<3xcomplex<f32>>, %r: tensor<3xf64>) -> (tensor<3xcomplex<f32>>, tensor<3xf64>, tensor<3xcomplex<f32>>) {
  %0 = chlo.conj %z : tensor<3xcomplex<f32>> -> tensor<3xcomplex<f32>>
  %1 = chlo.conj %r : tensor<3xf64> -> tensor<3xf64>
  %2 = chlo.tan %z : tensor<3xcomplex<f32>> -> tensor<3xcomplex<f32>>
  return %0, %1, %2 : tensor<3xcomplex<f32>>, tensor<3xf64>, tensor<3xcomplex<f32>>
}

// -----

// sinh: e^(x + log 1/2) - e^(log 1/2 - x), and the expm1 form for |x| < 1.
// CHECK-LABEL: func.func @sinh
// CHECK: %[[LH:.*]] = stablehlo.constant dense<-6.931472e-01> : tensor<2x3xf32>
// CHECK: %[[A:.*]] = stablehlo.add %arg0, %[[LH]]
// CHECK: %[[EA:.*]] = stablehlo.exponential %[[A]]
// CHECK: %[[S:.*]] = stablehlo.subtract %[[LH]], %arg0
// CHECK: %[[ES:.*]] = stablehlo.exponential %[[S]]
// CHECK: %[[LARGE:.*]] = stablehlo.subtract %[[EA]], %[[ES]]
// CHECK: %[[ONE:.*]] = stablehlo.constant dense<1.0e+00>
// CHECK: %[[E:.*]] = stablehlo.exponential_minus_one %arg0
// CHECK: %[[E1:.*]] = stablehlo.add %[[E]], %[[ONE]]
// CHECK: %[[R:.*]] = stablehlo.divide %[[E]], %[[E1]]
// CHECK: %[[SUM:.*]] = stablehlo.add %[[E]], %[[R]]
// CHECK: %[[HALF:.*]] = stablehlo.constant dense<5.0e-01>
// CHECK: %[[SMALL:.*]] = stablehlo.multiply %[[HALF]], %[[SUM]]
// CHECK: %[[AX:.*]] = stablehlo.abs %arg0
// CHECK: %[[LT:.*]] = stablehlo.compare LT, %[[AX]], %[[ONE]]
// CHECK: %[[OUT:.*]] = stablehlo.select %[[LT]], %[[SMALL]], %[[LARGE]]
// CHECK-NOT: chlo.sinh
// CHECK: func.return %[[OUT]]
func.func @sinh(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = chlo.sinh %x : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// bf16 and f16 are computed in f32 and converted back.
// CHECK-LABEL: func.func @cosh_bf16
// CHECK: %[[W:.*]] = stablehlo.convert %arg0 : (tensor<5xbf16>) -> tensor<5xf32>
// CHECK: stablehlo.exponential {{.*}} : tensor<5xf32>
// CHECK: stablehlo.exponential {{.*}} : tensor<5xf32>
// CHECK: %[[SUM:.*]] = stablehlo.add {{.*}} : tensor<5xf32>
// CHECK: %[[N:.*]] = stablehlo.convert %[[SUM]] : (tensor<5xf32>) -> tensor<5xbf16>
// CHECK-NOT: chlo.cosh
// CHECK: func.return %[[N]]
func.func @cosh_bf16(%x: tensor<5xbf16>) -> tensor<5xbf16> {
  %0 = chlo.cosh %x : tensor<5xbf16> -> tensor<5xbf16>
  return %0 : tensor<5xbf16>
}

// -----

// asin, acos and atan through atan2.
// CHECK-LABEL: func.func @inverse_trig
// CHECK-NOT: chlo.
// CHECK: %[[ONE:.*]] = stablehlo.constant dense<1.0e+00> : tensor<4xf64>
// CHECK: %[[M:.*]] = stablehlo.subtract %[[ONE]], %arg0
// CHECK: %[[P:.*]] = stablehlo.add %[[ONE]], %arg0
// CHECK: %[[MP:.*]] = stablehlo.multiply %[[M]], %[[P]]
// CHECK: %[[RT:.*]] = stablehlo.sqrt %[[MP]]
// CHECK: %[[DEN:.*]] = stablehlo.add %[[ONE]], %[[RT]]
// CHECK: %[[AT:.*]] = stablehlo.atan2 %arg0, %[[DEN]]
// CHECK: %[[TWO:.*]] = stablehlo.constant dense<2.0e+00>
// CHECK: %[[ASIN:.*]] = stablehlo.multiply %[[TWO]], %[[AT]]
// CHECK: stablehlo.atan2
// CHECK: %[[PI:.*]] = stablehlo.constant dense<3.141592653589793e+00> : tensor<4xf64>
// CHECK: %[[ACOS:.*]] = stablehlo.select %{{.*}}, %{{.*}}, %[[PI]]
// CHECK: %[[ONE2:.*]] = stablehlo.constant dense<1.0e+00>
// CHECK: %[[ATAN:.*]] = stablehlo.atan2 %arg0, %[[ONE2]]
// CHECK-NOT: chlo.
// CHECK: func.return %[[ASIN]], %[[ACOS]], %[[ATAN]]
func.func @inverse_trig(%x: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) {
  %0 = chlo.asin %x : tensor<4xf64> -> tensor<4xf64>
  %1 = chlo.acos %x : tensor<4xf64> -> tensor<4xf64>
  %2 = chlo.atan %x : tensor<4xf64> -> tensor<4xf64>
  return %0, %1, %2 : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
}

// -----

// asinh, acosh, atanh: log1p forms, log x + log 2 where x^2 overflows
// (sqrt of f32's max), NaN outside the domain.
// CHECK-LABEL: func.func @inverse_hyperbolic
// CHECK-NOT: chlo.
// CHECK: stablehlo.log_plus_one
// CHECK: %[[LIM:.*]] = stablehlo.constant dense<1.8446743e+19> : tensor<4xf32>
// CHECK: stablehlo.compare GE, %{{.*}}, %[[LIM]]
// CHECK: %[[SIGN:.*]] = stablehlo.sign %arg0
// CHECK: %[[ASINH:.*]] = stablehlo.multiply %[[SIGN]],
// CHECK: stablehlo.log_plus_one
// CHECK: stablehlo.log
// CHECK: %[[NAN:.*]] = stablehlo.constant dense<0x7FC00000> : tensor<4xf32>
// CHECK: %[[ACOSH:.*]] = stablehlo.select %{{.*}}, %[[NAN]],
// CHECK: %[[LP:.*]] = stablehlo.log_plus_one %arg0
// CHECK: %[[NX:.*]] = stablehlo.negate %arg0
// CHECK: %[[LM:.*]] = stablehlo.log_plus_one %[[NX]]
// CHECK: stablehlo.subtract %[[LP]], %[[LM]]
// CHECK: %[[ATANH:.*]] = stablehlo.select
// CHECK-NOT: chlo.
// CHECK: func.return %[[ASINH]], %[[ACOSH]], %[[ATANH]]
func.func @inverse_hyperbolic(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = chlo.asinh %x : tensor<4xf32> -> tensor<4xf32>
  %1 = chlo.acosh %x : tensor<4xf32> -> tensor<4xf32>
  %2 = chlo.atanh %x : tensor<4xf32> -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// next_after steps the bit pattern as an integer of the same width.
// CHECK-LABEL: func.func @next_after_f16
// CHECK: %[[XI:.*]] = stablehlo.bitcast_convert %arg0 : (tensor<8xf16>) -> tensor<8xi16>
// CHECK: %[[YI:.*]] = stablehlo.bitcast_convert %arg1 : (tensor<8xf16>) -> tensor<8xi16>
// CHECK: stablehlo.constant dense<32767> : tensor<8xi16>
// CHECK: stablehlo.constant dense<-32768> : tensor<8xi16>
// CHECK: stablehlo.compare GT
// CHECK: %[[STEP:.*]] = stablehlo.add %[[XI]],
// CHECK: stablehlo.compare EQ, %arg0, %arg1
// CHECK: stablehlo.compare NE, %arg0, %arg0
// CHECK: %[[R:.*]] = stablehlo.select
// CHECK: %[[OUT:.*]] = stablehlo.bitcast_convert %[[R]] : (tensor<8xi16>) -> tensor<8xf16>
// CHECK-NOT: chlo.next_after
// CHECK: func.return %[[OUT]]
func.func @next_after_f16(%x: tensor<8xf16>, %y: tensor<8xf16>) -> tensor<8xf16> {
  %0 = chlo.next_after %x, %y : tensor<8xf16>, tensor<8xf16> -> tensor<8xf16>
  return %0 : tensor<8xf16>
}

// -----

// CHLO ops inside regions are decomposed too.
// CHECK-LABEL: func.func @nested
// CHECK: stablehlo.while
// CHECK-NOT: chlo.tan
// CHECK: stablehlo.tan
// CHECK: stablehlo.return
func.func @nested(%x: tensor<4xf32>, %n: tensor<i32>) -> tensor<4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<4xf32>
  cond {
    %p = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %t = chlo.tan %v : tensor<4xf32> -> tensor<4xf32>
    %j = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %j, %t : tensor<i32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}

// -----

// Left as CHLO: complex inverse and hyperbolic functions, the special
// functions, top_k, dynamic shapes, types without infinities.
// CHECK-LABEL: func.func @kept
// CHECK: chlo.asin %arg0 : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
// CHECK: chlo.sinh %arg0 : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
// CHECK: chlo.erf %arg1 : tensor<4xf32> -> tensor<4xf32>
// CHECK: chlo.lgamma %arg1 : tensor<4xf32> -> tensor<4xf32>
// CHECK: chlo.top_k(%arg1, k = 2) : tensor<4xf32> -> (tensor<2xf32>, tensor<2xi32>)
// CHECK: chlo.cosh %arg2 : tensor<?xf32> -> tensor<?xf32>
// CHECK: chlo.is_inf %arg3 : tensor<4xf8E4M3FN> -> tensor<4xi1>
// CHECK-NOT: stablehlo.
// CHECK: func.return
func.func @kept(%z: tensor<4xcomplex<f32>>, %x: tensor<4xf32>, %d: tensor<?xf32>, %q: tensor<4xf8E4M3FN>)
    -> (tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>, tensor<4xf32>, tensor<4xf32>, tensor<2xf32>, tensor<?xf32>, tensor<4xi1>) {
  %0 = chlo.asin %z : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
  %1 = chlo.sinh %z : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
  %2 = chlo.erf %x : tensor<4xf32> -> tensor<4xf32>
  %3 = chlo.lgamma %x : tensor<4xf32> -> tensor<4xf32>
  %4:2 = chlo.top_k(%x, k = 2) : tensor<4xf32> -> (tensor<2xf32>, tensor<2xi32>)
  %5 = chlo.cosh %d : tensor<?xf32> -> tensor<?xf32>
  %6 = chlo.is_inf %q : tensor<4xf8E4M3FN> -> tensor<4xi1>
  return %0, %1, %2, %3, %4#0, %5, %6 : tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>, tensor<4xf32>, tensor<4xf32>, tensor<2xf32>, tensor<?xf32>, tensor<4xi1>
}
