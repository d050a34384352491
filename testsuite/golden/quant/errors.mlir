// RUN: %verify-diagnostics %s
// Malformed !quant.uniform types are located parse errors; the spec's
// constraints on quantized types and the quantization rules of ops are
// verifier errors (ir/verify_quant.c).

// expected-error @+1 {{scale 1.055040e+05 out of expressed type range}}
func.func @scale_too_big(%a: tensor<2x!quant.uniform<i4:f16, 10.550400e+04>>) {
  func.return
}

// -----

// expected-error @+1 {{scale 0.000000e+00 out of expressed type range}}
func.func @scale_zero(%a: tensor<2x!quant.uniform<i8:f32, 0.0>>) {
  func.return
}

// -----

// expected-error @+1 {{illegal quantized dimension: -1}}
func.func @negative_axis(%a: tensor<2x!quant.uniform<i8:f32:-1, {0.1}>>) {
  func.return
}

// -----

// expected-error @+1 {{illegal storage type size (1 to 32 bits)}}
func.func @wide_storage(%a: tensor<2x!quant.uniform<i64:f32, 0.1>>) {
  func.return
}

// -----

// expected-error @+1 {{illegal storage min and storage max}}
func.func @bad_range(%a: tensor<2x!quant.uniform<i8<-200:100>:f32, 0.1>>) {
  func.return
}

// -----

// expected-error @+1 {{expressed type of a quantized type must be a floating point type}}
func.func @int_expressed(%a: tensor<2x!quant.uniform<i8:i32, 0.1>>) {
  func.return
}

// -----

// expected-error @+1 {{expected '{' before per-axis quantization parameters}}
func.func @per_axis_without_braces(%a: tensor<2x!quant.uniform<i8:f32:0, 0.1>>) {
  func.return
}

// -----

// expected-error @+1 {{illegal storage type prefix}}
func.func @float_storage(%a: tensor<2x!quant.uniform<f8:f32, 0.1>>) {
  func.return
}

// -----

func.func @zero_point_out_of_range(%a: tensor<2x!quant.uniform<i8:f32, 1.0:-129>>) {
  // expected-error @+1 {{quantized zero point outside [storage_min, storage_max]}}
  %0 = stablehlo.add %a, %a : tensor<2x!quant.uniform<i8:f32, 1.0:-129>>
  func.return
}

// -----

func.func @signed_storage(%a: tensor<2x!quant.uniform<si8:f32, 1.0>>) {
  // expected-error @+1 {{quantized storage type must be signless (iN) or unsigned (uN, uiN), not siN}}
  %0 = stablehlo.uniform_dequantize %a : (tensor<2x!quant.uniform<si8:f32, 1.0>>) -> tensor<2xf32>
  func.return
}

// -----

func.func @axis_beyond_rank(%a: tensor<2x!quant.uniform<i8:f32:1, {0.1:-30, 0.1:-30}>>) {
  // expected-error @+1 {{quantization dimension must be less than the tensor's rank}}
  %0 = stablehlo.uniform_dequantize %a : (tensor<2x!quant.uniform<i8:f32:1, {0.1:-30, 0.1:-30}>>) -> tensor<2xf32>
  func.return
}

// -----

func.func @scale_count(%a: tensor<3x!quant.uniform<i8:f32:0, {0.1, 0.2}>>) {
  // expected-error @+1 {{number of per-axis scales must equal the size of the quantized dimension}}
  %0 = stablehlo.uniform_dequantize %a : (tensor<3x!quant.uniform<i8:f32:0, {0.1, 0.2}>>) -> tensor<3xf32>
  func.return
}

// -----

func.func @per_axis_not_allowed(%a: tensor<2x!quant.uniform<i8:f32:0, {0.1, 0.2}>>) {
  // expected-error @+1 {{per-axis quantized tensors are not allowed here (only per-tensor ones)}}
  %0 = stablehlo.abs %a : tensor<2x!quant.uniform<i8:f32:0, {0.1, 0.2}>>
  func.return
}

// -----

func.func @add_mixed(%a: tensor<2x!quant.uniform<i8:f32, 0.1>>, %b: tensor<2xf32>) {
  // expected-error @+1 {{expects all operands and results to be either quantized or non-quantized}}
  %0 = "stablehlo.add"(%a, %b) : (tensor<2x!quant.uniform<i8:f32, 0.1>>, tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.1>>
  func.return
}

// -----

func.func @add_storage(%a: tensor<2x!quant.uniform<i8:f32, 0.1>>, %b: tensor<2x!quant.uniform<i16:f32, 0.1>>) {
  // expected-error @+1 {{mismatched operands and result quantization storage types}}
  %0 = "stablehlo.add"(%a, %b) : (tensor<2x!quant.uniform<i8:f32, 0.1>>, tensor<2x!quant.uniform<i16:f32, 0.1>>) -> tensor<2x!quant.uniform<i8:f32, 0.1>>
  func.return
}

// -----

func.func @reshape_params(%a: tensor<2x2x!quant.uniform<i8:f32, 0.1>>) {
  // expected-error @+1 {{expect same quantization scale and zero_point}}
  %0 = stablehlo.reshape %a : (tensor<2x2x!quant.uniform<i8:f32, 0.1>>) -> tensor<4x!quant.uniform<i8:f32, 0.2>>
  func.return
}

// -----

func.func @transpose_axis(%a: tensor<2x2x!quant.uniform<i8:f32:0, {0.1, 0.2}>>) {
  // expected-error @+1 {{operand quantization_dimension 0 is not same as permutation[0] = 1}}
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x2x!quant.uniform<i8:f32:0, {0.1, 0.2}>>) -> tensor<2x2x!quant.uniform<i8:f32:0, {0.1, 0.2}>>
  func.return
}

// -----

func.func @dot_rhs_zero_point(%a: tensor<2x2x!quant.uniform<i8:f32, 0.1>>, %b: tensor<2x2x!quant.uniform<i8:f32, 0.1:3>>) {
  // expected-error @+1 {{Zero point of rhs should be 0}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x2x!quant.uniform<i8:f32, 0.1>>, tensor<2x2x!quant.uniform<i8:f32, 0.1:3>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.1>>
  func.return
}

// -----

func.func @dot_contracting_axis(%a: tensor<2x2x!quant.uniform<i8:f32, 0.1>>, %b: tensor<2x2x!quant.uniform<i8:f32:0, {0.1, 0.2}>>) {
  // expected-error @+1 {{Quantization dimension of rhs should not be in the contracting dimension of rhs}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x2x!quant.uniform<i8:f32, 0.1>>, tensor<2x2x!quant.uniform<i8:f32:0, {0.1, 0.2}>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.1>>
  func.return
}

// -----

func.func @dot_hybrid_types(%a: tensor<2x2xf16>, %b: tensor<2x2x!quant.uniform<i8:f32, 0.1>>) {
  // expected-error @+1 {{mismatched rhs quantization expressed type and lhs and result element type}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x2xf16>, tensor<2x2x!quant.uniform<i8:f32, 0.1>>) -> tensor<2x2xf16>
  func.return
}

// -----

func.func @quantize_expressed(%a: tensor<2xf32>) {
  // expected-error @+1 {{Expressed type of result expected to be 'f32', but got 'f64'}}
  %0 = stablehlo.uniform_quantize %a : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f64, 0.1>>
  func.return
}

// -----

func.func @dequantize_result(%a: tensor<2x!quant.uniform<i8:f32, 0.1>>) {
  // expected-error @+1 {{result #0 must be a tensor of the operand's expressed type 'f32'}}
  %0 = stablehlo.uniform_dequantize %a : (tensor<2x!quant.uniform<i8:f32, 0.1>>) -> tensor<2xf16>
  func.return
}

// -----

func.func @constant_literal(%a: tensor<2xf32>) {
  // expected-error @+1 {{the literal of a quantized constant must have the storage type 'tensor<2xi8>'}}
  %0 = stablehlo.constant() <{value = dense<[1, 2]> : tensor<2xi16>}> : () -> tensor<2x!quant.uniform<i8:f32, 2.0>>
  func.return
}

// -----

func.func @reducer_promotable(%a: tensor<4x!quant.uniform<i16:f32, 2.0>>, %init: tensor<!quant.uniform<i16:f32, 2.0>>) {
  // expected-error @+1 {{expected to be promotable from the element type of input #0 (same expressed type, storage no narrower)}}
  %0 = stablehlo.reduce(%a init: %init) across dimensions = [0] : (tensor<4x!quant.uniform<i16:f32, 2.0>>, tensor<!quant.uniform<i16:f32, 2.0>>) -> tensor<!quant.uniform<i8:f32, 2.0>>
    reducer(%x: tensor<!quant.uniform<i8:f32, 2.0>>, %y: tensor<!quant.uniform<i8:f32, 2.0>>) {
      %s = stablehlo.add %x, %y : tensor<!quant.uniform<i8:f32, 2.0>>
      stablehlo.return %s : tensor<!quant.uniform<i8:f32, 2.0>>
    }
  func.return
}

// -----

func.func @baseline(%a: tensor<2x!quant.uniform<i8:f32, 0.1>>) {
  // expected-error @+1 {{requires its quantized operands and results to have the same baseline type}}
  %0 = "stablehlo.abs"(%a) : (tensor<2x!quant.uniform<i8:f32, 0.1>>) -> tensor<2x!quant.uniform<i16:f32, 0.1>>
  func.return
}

// -----

func.func @baseline_scales_may_differ(%a: tensor<2x!quant.uniform<i8:f32, 0.1>>) {
  %0 = "stablehlo.abs"(%a) : (tensor<2x!quant.uniform<i8:f32, 0.1>>) -> tensor<2x!quant.uniform<i8:f32, 0.7:3>>
  func.return
}
