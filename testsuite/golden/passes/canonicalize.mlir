// canonicalize: algebraic identities, with the cases where they must NOT
// fire (x + 0.0 is not x for x = -0.0; 1 / x; x * 0.0; a select on an
// unknown predicate).
// RUN: %tpucc --passes=canonicalize --verify-each --emit=mlir --split-input-file %s | FileCheck %s

// Exact float identities only: x + (-0.0), x - 0.0, x * 1, x / 1.
// CHECK-LABEL: func.func @float_identities
// CHECK-DAG: %[[PZ:.*]] = stablehlo.constant dense<0.0e+00> : tensor<4xf32>
// CHECK-DAG: %[[NZ:.*]] = stablehlo.constant dense<-0.0e+00> : tensor<4xf32>
// CHECK-DAG: %[[ONE:.*]] = stablehlo.constant dense<1.0e+00> : tensor<4xf32>
// CHECK: %[[A:.*]] = stablehlo.add %arg0, %[[PZ]] : tensor<4xf32>
// CHECK-NEXT: %[[S:.*]] = stablehlo.subtract %arg0, %[[NZ]] : tensor<4xf32>
// CHECK-NEXT: %[[D:.*]] = stablehlo.divide %[[ONE]], %arg0 : tensor<4xf32>
// CHECK-NEXT: %[[M:.*]] = stablehlo.multiply %arg0, %[[PZ]] : tensor<4xf32>
// CHECK-NEXT: func.return %[[A]], %arg0, %arg0, %[[S]], %arg0, %arg0, %[[D]], %[[M]]
func.func @float_identities(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %pz = stablehlo.constant dense<0.0> : tensor<4xf32>
  %nz = stablehlo.constant dense<-0.0> : tensor<4xf32>
  %one = stablehlo.constant dense<1.0> : tensor<4xf32>
  %0 = stablehlo.add %x, %pz : tensor<4xf32>
  %1 = stablehlo.add %nz, %x : tensor<4xf32>
  %2 = stablehlo.subtract %x, %pz : tensor<4xf32>
  %3 = stablehlo.subtract %x, %nz : tensor<4xf32>
  %4 = stablehlo.multiply %one, %x : tensor<4xf32>
  %5 = stablehlo.divide %x, %one : tensor<4xf32>
  %6 = stablehlo.divide %one, %x : tensor<4xf32>
  %7 = stablehlo.multiply %x, %pz : tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Integers: x + 0, x - 0, x * 1, x * 0 -> 0, x & -1, x | 0, x | -1 -> -1,
// x << 0; on i1, and with true.  Boolean add (or) with true and 0 - x stay.
// CHECK-LABEL: func.func @int_identities
// CHECK-DAG: %[[Z:.*]] = stablehlo.constant dense<0> : tensor<4xi32>
// CHECK-DAG: %[[M1:.*]] = stablehlo.constant dense<-1> : tensor<4xi32>
// CHECK-DAG: %[[T:.*]] = stablehlo.constant dense<true> : tensor<4xi1>
// CHECK: %[[OR:.*]] = stablehlo.add %arg1, %[[T]] : tensor<4xi1>
// CHECK-NEXT: %[[NEG:.*]] = stablehlo.subtract %[[Z]], %arg0 : tensor<4xi32>
// CHECK-NEXT: func.return %arg0, %arg0, %arg0, %[[Z]], %arg0, %arg0, %[[M1]], %arg0, %arg1, %[[OR]], %[[NEG]]
func.func @int_identities(%x: tensor<4xi32>, %p: tensor<4xi1>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi32>) {
  %z = stablehlo.constant dense<0> : tensor<4xi32>
  %one = stablehlo.constant dense<1> : tensor<4xi32>
  %m1 = stablehlo.constant dense<-1> : tensor<4xi32>
  %t = stablehlo.constant dense<true> : tensor<4xi1>
  %0 = stablehlo.add %z, %x : tensor<4xi32>
  %1 = stablehlo.subtract %x, %z : tensor<4xi32>
  %2 = stablehlo.multiply %x, %one : tensor<4xi32>
  %3 = stablehlo.multiply %x, %z : tensor<4xi32>
  %4 = stablehlo.and %m1, %x : tensor<4xi32>
  %5 = stablehlo.or %x, %z : tensor<4xi32>
  %6 = stablehlo.or %x, %m1 : tensor<4xi32>
  %7 = stablehlo.shift_left %x, %z : tensor<4xi32>
  %8 = stablehlo.and %p, %t : tensor<4xi1>
  %9 = stablehlo.add %p, %t : tensor<4xi1>
  %10 = stablehlo.subtract %z, %x : tensor<4xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi32>
}

// -----

// Shape identities: no-op transpose / reshape / broadcast_in_dim / convert
// go; transpose of a transpose is one transpose (composed permutation),
// reshape of a reshape one reshape; negate(negate x) and a select on a
// constant predicate give x.  A select on an argument stays.
// CHECK-LABEL: func.func @shape_identities
// CHECK-NEXT: %[[T:.*]] = stablehlo.transpose %arg1, dims = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT: %[[R:.*]] = stablehlo.reshape %arg2 : (tensor<6xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: %[[N:.*]] = stablehlo.negate %arg0
// CHECK-NEXT: %[[S:.*]] = stablehlo.select %arg3, %[[N]], %arg0
// CHECK-NEXT: func.return %arg0, %arg0, %[[T]], %arg0, %[[R]], %arg0, %arg0, %arg0, %arg0, %arg0, %[[S]]
func.func @shape_identities(%x: tensor<2x3xf32>, %y: tensor<2x3x4xf32>, %v: tensor<6xf32>, %p: tensor<i1>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x2x3xf32>, tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = stablehlo.transpose %x, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %t1 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = stablehlo.transpose %t1, dims = [1, 0] : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %t2 = stablehlo.transpose %y, dims = [1, 2, 0] : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %2 = stablehlo.transpose %t2, dims = [1, 2, 0] : (tensor<3x4x2xf32>) -> tensor<4x2x3xf32>
  %r1 = stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  %3 = stablehlo.reshape %r1 : (tensor<6xf32>) -> tensor<2x3xf32>
  %r2 = stablehlo.reshape %v : (tensor<6xf32>) -> tensor<6x1xf32>
  %4 = stablehlo.reshape %r2 : (tensor<6x1xf32>) -> tensor<3x2xf32>
  %5 = stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = stablehlo.broadcast_in_dim %x, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = stablehlo.convert %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %n = stablehlo.negate %x : tensor<2x3xf32>
  %8 = stablehlo.negate %n : tensor<2x3xf32>
  %f = stablehlo.constant dense<false> : tensor<i1>
  %9 = stablehlo.select %f, %n, %x : tensor<i1>, tensor<2x3xf32>
  %10 = stablehlo.select %p, %n, %x : tensor<i1>, tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x2x3xf32>, tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// not(not x) -> x; a single negate and a convert that changes the type stay.
// CHECK-LABEL: func.func @not_not
// CHECK-NEXT: %[[N:.*]] = stablehlo.negate %arg0 : tensor<4xi8>
// CHECK-NEXT: %[[C:.*]] = stablehlo.convert %arg0 : (tensor<4xi8>) -> tensor<4xf32>
// CHECK-NEXT: func.return %arg0, %[[N]], %[[C]]
func.func @not_not(%x: tensor<4xi8>) -> (tensor<4xi8>, tensor<4xi8>, tensor<4xf32>) {
  %a = stablehlo.not %x : tensor<4xi8>
  %0 = stablehlo.not %a : tensor<4xi8>
  %1 = stablehlo.negate %0 : tensor<4xi8>
  %2 = stablehlo.convert %x : (tensor<4xi8>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xi8>, tensor<4xi8>, tensor<4xf32>
}

// -----

// A rewrite never changes a result type: reshape of a reshape back to a
// dynamic type, and identities whose operand type differs, stay.
// CHECK-LABEL: func.func @keeps_types
// CHECK: stablehlo.add %arg0, %{{.*}} : (tensor<?xi32>, tensor<4xi32>) -> tensor<4xi32>
func.func @keeps_types(%x: tensor<?xi32>) -> tensor<4xi32> {
  %z = stablehlo.constant dense<0> : tensor<4xi32>
  %0 = stablehlo.add %x, %z : (tensor<?xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
