// RUN: %verify-diagnostics %s
// Negative tests for the element-wise rules (ir/verify_elementwise.c).

func.func @and_float(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{operand #0 must be tensor of boolean or integer values, but got 'tensor<2xf32>'}}
  %0 = stablehlo.and %a, %a : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @xor_complex(%a: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  // expected-error @+1 {{operand #0 must be tensor of boolean or integer values}}
  %0 = "stablehlo.xor"(%a, %a) : (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  func.return %0 : tensor<2xcomplex<f32>>
}

// -----

func.func @shift_left_float(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operand #0 must be tensor of integer values, but got 'tensor<4xf32>'}}
  %0 = stablehlo.shift_left %a, %a : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @popcnt_bool(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{operand #0 must be tensor of integer values, but got 'tensor<4xi1>'}}
  %0 = stablehlo.popcnt %a : tensor<4xi1>
  func.return %0 : tensor<4xi1>
}

// -----

func.func @clz_float(%a: tensor<4xf16>) -> tensor<4xf16> {
  // expected-error @+1 {{operand #0 must be tensor of integer values}}
  %0 = stablehlo.count_leading_zeros %a : tensor<4xf16>
  func.return %0 : tensor<4xf16>
}

// -----

func.func @sine_int(%a: tensor<3xi32>) -> tensor<3xi32> {
  // expected-error @+1 {{operand #0 must be tensor of floating-point or complex values, but got 'tensor<3xi32>'}}
  %0 = stablehlo.sine %a : tensor<3xi32>
  func.return %0 : tensor<3xi32>
}

// -----

func.func @floor_complex(%a: tensor<3xcomplex<f64>>) -> tensor<3xcomplex<f64>> {
  // expected-error @+1 {{operand #0 must be tensor of floating-point values}}
  %0 = stablehlo.floor %a : tensor<3xcomplex<f64>>
  func.return %0 : tensor<3xcomplex<f64>>
}

// -----

func.func @abs_unsigned(%a: tensor<3xui32>) -> tensor<3xui32> {
  // expected-error @+1 {{operand #0 must be tensor of signed integer, floating-point or complex values}}
  %0 = stablehlo.abs %a : tensor<3xui32>
  func.return %0 : tensor<3xui32>
}

// -----

func.func @sign_unsigned(%a: tensor<3xui8>) -> tensor<3xui8> {
  // expected-error @+1 {{operand #0 must be tensor of signed integer, floating-point or complex values}}
  %0 = stablehlo.sign %a : tensor<3xui8>
  func.return %0 : tensor<3xui8>
}

// -----

func.func @subtract_bool(%a: tensor<3xi1>) -> tensor<3xi1> {
  // expected-error @+1 {{operand #0 must be tensor of integer, floating-point or complex values, but got 'tensor<3xi1>'}}
  %0 = stablehlo.subtract %a, %a : tensor<3xi1>
  func.return %0 : tensor<3xi1>
}

// -----

func.func @add_shapes(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{requires the same shape for all operands and results}}
  %0 = "stablehlo.add"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @add_elems(%a: tensor<2xf32>, %b: tensor<2xi32>) -> tensor<2xf32> {
  // expected-error @+1 {{requires the same element type for all operands and results}}
  %0 = "stablehlo.add"(%a, %b) : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @multiply_result_shape(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{requires the same shape for all operands and results}}
  %0 = "stablehlo.multiply"(%a, %a) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %0 : tensor<3x2xf32>
}

// -----

func.func @negate_token(%t: !stablehlo.token) -> !stablehlo.token {
  // expected-error @+1 {{operand #0 must be tensor of integer, floating-point or complex values, but got '!stablehlo.token'}}
  %0 = "stablehlo.negate"(%t) : (!stablehlo.token) -> !stablehlo.token
  func.return %0 : !stablehlo.token
}

// -----

func.func @abs_complex_result(%a: tensor<2xcomplex<f32>>) -> tensor<2xf64> {
  // expected-error @+1 {{expects result #0 to have element type f32, but got 'tensor<2xf64>'}}
  %0 = "stablehlo.abs"(%a) : (tensor<2xcomplex<f32>>) -> tensor<2xf64>
  func.return %0 : tensor<2xf64>
}

// -----

func.func @real_result(%a: tensor<2xcomplex<f64>>) -> tensor<2xf32> {
  // expected-error @+1 {{expects result #0 to have element type f64, but got 'tensor<2xf32>'}}
  %0 = stablehlo.real %a : (tensor<2xcomplex<f64>>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @imag_int(%a: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{operand #0 must be tensor of floating-point or complex values}}
  %0 = "stablehlo.imag"(%a) : (tensor<2xi32>) -> tensor<2xi32>
  func.return %0 : tensor<2xi32>
}

// -----

func.func @real_complex_result(%a: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  // expected-error @+1 {{result #0 must be tensor of floating-point values, but got 'tensor<2xcomplex<f32>>'}}
  %0 = "stablehlo.real"(%a) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  func.return %0 : tensor<2xcomplex<f32>>
}

// -----

func.func @is_finite_result(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{result #0 must be tensor of pred (AKA boolean or 1-bit integer) values, but got 'tensor<2xf32>'}}
  %0 = "stablehlo.is_finite"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @is_finite_int(%a: tensor<2xi32>) -> tensor<2xi1> {
  // expected-error @+1 {{operand #0 must be tensor of floating-point values}}
  %0 = "stablehlo.is_finite"(%a) : (tensor<2xi32>) -> tensor<2xi1>
  func.return %0 : tensor<2xi1>
}

// -----

func.func @complex_mixed(%a: tensor<2xf32>, %b: tensor<2xf64>) -> tensor<2xcomplex<f32>> {
  // expected-error @+1 {{requires the same element type for both operands}}
  %0 = "stablehlo.complex"(%a, %b) : (tensor<2xf32>, tensor<2xf64>) -> tensor<2xcomplex<f32>>
  func.return %0 : tensor<2xcomplex<f32>>
}

// -----

func.func @complex_f16(%a: tensor<2xf16>) -> tensor<2xcomplex<f32>> {
  // expected-error @+1 {{operand #0 must be tensor of f32 or f64 values, but got 'tensor<2xf16>'}}
  %0 = "stablehlo.complex"(%a, %a) : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xcomplex<f32>>
  func.return %0 : tensor<2xcomplex<f32>>
}

// -----

func.func @complex_result(%a: tensor<2xf32>) -> tensor<2xcomplex<f64>> {
  // expected-error @+1 {{expects result #0 to have element type complex<f32>}}
  %0 = "stablehlo.complex"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xcomplex<f64>>
  func.return %0 : tensor<2xcomplex<f64>>
}

// -----

func.func @convert_shape(%a: tensor<2xf32>) -> tensor<3xi32> {
  // expected-error @+1 {{requires the same shape for all operands and results}}
  %0 = stablehlo.convert %a : (tensor<2xf32>) -> tensor<3xi32>
  func.return %0 : tensor<3xi32>
}

// -----

func.func @compare_result(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{result #0 must be tensor of pred (AKA boolean or 1-bit integer) values}}
  %0 = "stablehlo.compare"(%a, %a) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @compare_no_direction(%a: tensor<2xf32>) -> tensor<2xi1> {
  // expected-error @+1 {{requires attribute 'comparison_direction'}}
  %0 = "stablehlo.compare"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  func.return %0 : tensor<2xi1>
}

// -----

func.func @compare_bad_direction(%a: tensor<2xf32>) -> tensor<2xi1> {
  // expected-error @+1 {{attribute 'comparison_direction' has invalid comparison_direction value 'XX'}}
  %0 = "stablehlo.compare"(%a, %a) {comparison_direction = #stablehlo<comparison_direction XX>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  func.return %0 : tensor<2xi1>
}

// -----

func.func @compare_type_mismatch(%a: tensor<2xf32>) -> tensor<2xi1> {
  // expected-error @+1 {{compare_type SIGNED is not valid for operands of element type f32}}
  %0 = stablehlo.compare  LT, %a, %a,  SIGNED : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  func.return %0 : tensor<2xi1>
}

// -----

func.func @compare_unsigned_as_signed(%a: tensor<2xui32>) -> tensor<2xi1> {
  // expected-error @+1 {{compare_type SIGNED is not valid for operands of element type ui32}}
  %0 = stablehlo.compare  GT, %a, %a,  SIGNED : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xi1>
  func.return %0 : tensor<2xi1>
}

// -----

func.func @compare_elems(%a: tensor<2xf32>, %b: tensor<2xi32>) -> tensor<2xi1> {
  // expected-error @+1 {{requires the same element type for both operands}}
  %0 = stablehlo.compare  EQ, %a, %b : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xi1>
  func.return %0 : tensor<2xi1>
}

// -----

func.func @compare_shapes(%a: tensor<2xf32>) -> tensor<3xi1> {
  // expected-error @+1 {{requires the same shape for all operands and results}}
  %0 = stablehlo.compare  EQ, %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xi1>
  func.return %0 : tensor<3xi1>
}

// -----

func.func @select_pred_float(%p: tensor<2xf32>, %a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{operand #0 must be tensor of pred (AKA boolean or 1-bit integer) values}}
  %0 = "stablehlo.select"(%p, %a, %a) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @select_pred_shape(%p: tensor<3xi1>, %a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{requires the predicate to be a scalar or to have the shape of on_true}}
  %0 = "stablehlo.select"(%p, %a, %a) : (tensor<3xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @select_branches(%p: tensor<i1>, %a: tensor<2xf32>, %b: tensor<2xf16>) -> tensor<2xf32> {
  // expected-error @+1 {{requires compatible types for on_true, on_false and the result}}
  %0 = "stablehlo.select"(%p, %a, %b) : (tensor<i1>, tensor<2xf32>, tensor<2xf16>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @clamp_min_shape(%min: tensor<3xf32>, %a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{min shape [3] is not scalar and is not compatible with operand shape [2]}}
  %0 = "stablehlo.clamp"(%min, %a, %a) : (tensor<3xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @clamp_elems(%min: tensor<f16>, %a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{requires the same element type for min, operand and max}}
  %0 = "stablehlo.clamp"(%min, %a, %a) : (tensor<f16>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @clamp_result(%a: tensor<2xf32>) -> tensor<2xf64> {
  // expected-error @+1 {{requires the result type 'tensor<2xf64>' to match the operand type 'tensor<2xf32>'}}
  %0 = "stablehlo.clamp"(%a, %a, %a) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf64>
  func.return %0 : tensor<2xf64>
}

// -----

func.func @bitcast_complex(%a: tensor<2xcomplex<f32>>) -> tensor<2xi64> {
  // expected-error @+1 {{cannot convert between real and complex types}}
  %0 = stablehlo.bitcast_convert %a : (tensor<2xcomplex<f32>>) -> tensor<2xi64>
  func.return %0 : tensor<2xi64>
}

// -----

func.func @bitcast_narrow(%a: tensor<2xf32>) -> tensor<2x3xi16> {
  // expected-error @+1 {{requires the last dimension of the result to be 2 (32 / 16 bits), but got 3}}
  %0 = stablehlo.bitcast_convert %a : (tensor<2xf32>) -> tensor<2x3xi16>
  func.return %0 : tensor<2x3xi16>
}

// -----

func.func @bitcast_rank(%a: tensor<2xf32>) -> tensor<2xi16> {
  // expected-error @+1 {{requires the result to have one more dimension than the operand}}
  %0 = stablehlo.bitcast_convert %a : (tensor<2xf32>) -> tensor<2xi16>
  func.return %0 : tensor<2xi16>
}

// -----

func.func @bitcast_same_width(%a: tensor<2xf32>) -> tensor<3xi32> {
  // expected-error @+1 {{requires the same shape for operand and result when the bit widths match}}
  %0 = stablehlo.bitcast_convert %a : (tensor<2xf32>) -> tensor<3xi32>
  func.return %0 : tensor<3xi32>
}

// -----

func.func @map_dimensions(%a: tensor<2x2xi64>) -> tensor<2x2xi64> {
  // expected-error @+1 {{requires monotonically increasing dimension numbers covering the operand rank 2, but got [1, 0]}}
  %0 = "stablehlo.map"(%a, %a) ({
    ^bb0(%x: tensor<i64>, %y: tensor<i64>):
      %1 = stablehlo.multiply %x, %y : tensor<i64>
      stablehlo.return %1 : tensor<i64>
  }) {dimensions = array<i64: 1, 0>} : (tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xi64>
  func.return %0 : tensor<2x2xi64>
}

// -----

func.func @map_body_params(%a: tensor<2x2xi64>) -> tensor<2x2xi64> {
  // expected-error @+1 {{computation must take 2 parameters, but takes 1 parameter(s)}}
  %0 = "stablehlo.map"(%a, %a) ({
    ^bb0(%x: tensor<i64>):
      stablehlo.return %x : tensor<i64>
  }) {dimensions = array<i64: 0, 1>} : (tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xi64>
  func.return %0 : tensor<2x2xi64>
}

// -----

func.func @map_body_result(%a: tensor<2x2xi64>) -> tensor<2x2xf32> {
  // expected-error @+1 {{computation returns 'tensor<i64>', but the result element type is that of 'tensor<2x2xf32>'}}
  %0 = "stablehlo.map"(%a, %a) ({
    ^bb0(%x: tensor<i64>, %y: tensor<i64>):
      %1 = stablehlo.add %x, %y : tensor<i64>
      stablehlo.return %1 : tensor<i64>
  }) {dimensions = array<i64: 0, 1>} : (tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}

// -----

func.func @reduce_precision_bits(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{exponent_bits must be at least 1, but got 0}}
  %0 = "stablehlo.reduce_precision"(%a) {exponent_bits = 0 : i32, mantissa_bits = 2 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @reduce_precision_int(%a: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{operand #0 must be tensor of floating-point values}}
  %0 = "stablehlo.reduce_precision"(%a) {exponent_bits = 5 : i32, mantissa_bits = 2 : i32} : (tensor<2xi32>) -> tensor<2xi32>
  func.return %0 : tensor<2xi32>
}

// -----

func.func @chlo_lgamma_complex(%a: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  // expected-error @+1 {{operand #0 must be tensor of floating-point values}}
  %0 = "chlo.lgamma"(%a) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  func.return %0 : tensor<2xcomplex<f32>>
}

// -----

func.func @chlo_is_inf_result(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{result #0 must be tensor of pred (AKA boolean or 1-bit integer) values}}
  %0 = "chlo.is_inf"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @chlo_next_after_int(%a: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{operand #0 must be tensor of floating-point values}}
  %0 = "chlo.next_after"(%a, %a) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  func.return %0 : tensor<2xi32>
}

// -----

func.func @chlo_square_int(%a: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{operand #0 must be tensor of floating-point or complex values}}
  %0 = "chlo.square"(%a) : (tensor<2xi32>) -> tensor<2xi32>
  func.return %0 : tensor<2xi32>
}

// -----

func.func @chlo_acos_shape(%a: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{requires the same shape for all operands and results}}
  %0 = "chlo.acos"(%a) : (tensor<2xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// -----

func.func @chlo_broadcast_incompatible(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{operands of shapes [2, 3] and [4] cannot be broadcast together (dimension 1)}}
  %0 = chlo.broadcast_add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

func.func @chlo_broadcast_result_shape(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{inferred shape [2, 3] is incompatible with the result type 'tensor<2x4xf32>'}}
  %0 = chlo.broadcast_multiply %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  func.return %0 : tensor<2x4xf32>
}

// -----

func.func @chlo_broadcast_dimensions(%a: tensor<2x3xf32>, %b: tensor<2xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{broadcast_dimensions has 2 entries, but the lower-rank operand has rank 1}}
  %0 = chlo.broadcast_subtract %a, %b {broadcast_dimensions = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

func.func @chlo_broadcast_compare_result(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expects result #0 to have element type i1, but got 'tensor<2xf32>'}}
  %0 = chlo.broadcast_compare %a, %a {comparison_direction = #chlo<comparison_direction EQ>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @chlo_broadcast_select_pred(%p: tensor<f32>, %a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{operand #0 must be tensor of pred (AKA boolean or 1-bit integer) values, but got 'tensor<f32>'}}
  %0 = chlo.broadcast_select %p, %a, %a : (tensor<f32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

// No operands: the arity error alone (the broadcasting rule once read a
// missing operand; found by fuzz_runtime).
func.func @chlo_broadcast_no_operands() -> tensor<2xf32> {
  // expected-error @+1 {{requires 2 operands, but found 0}}
  %0 = "chlo.broadcast_add"() : () -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
