// RUN: %verify-diagnostics %s
// Syntax errors: one per chunk, each at the right line with the right text.

func.func @bad_type() {
  // expected-error @+1 {{expected type, found 'f33'}}
  %0 = "stablehlo.constant"() {value = dense<1.0> : tensor<2xf33>} : () -> tensor<2xf32>
  func.return
}

// -----

// expected-error @+1 {{an unranked tensor type cannot have dimensions}}
func.func private @unranked_dims(tensor<*x2xf32>)

// -----

// expected-error @+1 {{'*' (unranked) must be the only dimension of a tensor type}}
func.func private @unranked_late(tensor<2x*xf32>)

// -----

// expected-error @+1 {{unsupported integer type 'i7' (widths 1, 2, 4, 8, 16, 32, 64 are supported)}}
func.func @bad_int_width(%a: tensor<i7>) {
  func.return
}

// -----

func.func @dense_shape() {
  // expected-error @+1 {{dense literal shape does not match type 'tensor<2x2xi32>'}}
  %0 = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<2x2xi32>
  func.return
}

// -----

func.func @dense_ragged() {
  // expected-error @+1 {{dense literal has inconsistent nested list lengths}}
  %0 = stablehlo.constant dense<[[1, 2], [3]]> : tensor<2x2xi32>
  func.return
}

// -----

func.func @dense_int_range() {
  // expected-error @+1 {{integer literal 300 is out of range for type i8}}
  %0 = stablehlo.constant dense<[1, 300]> : tensor<2xi8>
  func.return
}

// -----

func.func @dense_unsigned_negative() {
  // expected-error @+1 {{integer literal -1 is out of range for type ui32}}
  %0 = stablehlo.constant dense<-1> : tensor<ui32>
  func.return
}

// -----

// expected-error @+1 {{integer literal 18446744073709551616 is out of range for type ui64}}
module attributes {a = 18446744073709551616 : ui64} {
}

// -----

// expected-error @+1 {{integer literal -129 is out of range for type i8}}
module attributes {a = -129 : i8} {
}

// -----

// expected-error @+1 {{is out of range for type i64}}
module attributes {a = 123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789} {
}

// -----

func.func @dense_hex_size() {
  // expected-error @+1 {{hex dense literal has 4 bytes but type 'tensor<3xi16>' needs 6}}
  %0 = stablehlo.constant dense<"0x01000000"> : tensor<3xi16>
  func.return
}

// -----

func.func @dense_complex_for_real() {
  // expected-error @+1 {{complex literal for non-complex element type f32}}
  %0 = stablehlo.constant dense<(1.0, 2.0)> : tensor<f32>
  func.return
}

// -----

func.func @dense_empty() {
  // expected-error @+1 {{empty dense literal for type 'tensor<2xf32>' with 2 elements}}
  %0 = stablehlo.constant dense<> : tensor<2xf32>
  func.return
}

// -----

func.func @dense_dynamic() {
  // expected-error @+1 {{dense literal requires a statically shaped tensor type, got 'tensor<?xf32>'}}
  %0 = stablehlo.constant dense<1.0> : tensor<?xf32>
  func.return
}

// -----

func.func @hex_float_too_wide() {
  // expected-error @+1 {{hexadecimal float literal does not fit in f16}}
  %0 = stablehlo.constant dense<0x12345> : tensor<f16>
  func.return
}

// -----

func.func @unknown_op(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{custom op 'stablehlo.frobnicate' is unknown}}
  %0 = stablehlo.frobnicate %a : tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

func.func @generic_only_op(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{custom op 'stablehlo.sort' is unknown in pretty form (write it in generic form)}}
  %0 = stablehlo.sort %a : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @missing_equals(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{expected '=', found 'stablehlo.abs'}}
  %0 stablehlo.abs %a : tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

func.func @undeclared(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{use of undeclared SSA value name '%b'}}
  %0 = stablehlo.add %a, %b : tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

func.func @wrong_result_count(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{operation defines 1 results but was provided 2 to bind}}
  %0:2 = "stablehlo.abs"(%a) : (tensor<f32>) -> tensor<f32>
  func.return %a : tensor<f32>
}

// -----

func.func @result_number(%a: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.abs %a : tensor<f32>
  // expected-error @+1 {{result number 3 of '%0' out of range (it has 1 results)}}
  func.return %0#3 : tensor<f32>
}

// -----

func.func @duplicate_attribute(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{duplicate attribute 'tag'}}
  %0 = stablehlo.abs %a {tag = 1, tag = 2} : tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

func.func @attribute_twice(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{attribute 'dimensions' is given twice}}
  %0 = stablehlo.reverse %a, dims = [0] {dimensions = array<i64: 0>} : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @property_and_attribute(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{attribute 'x' given both as property and attribute}}
  %0 = "stablehlo.abs"(%a) <{x = 1}> {x = 2} : (tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

func.func @redefinition(%a: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.abs %a : tensor<f32>
  // expected-error @+1 {{redefinition of SSA value '%0'}}
  %0 = stablehlo.negate %a : tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

func.func @type_mismatch(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{use of value '%a' expects different type than prior uses: 'tensor<f64>' vs 'tensor<f32>'}}
  %0 = stablehlo.add %a, %a : tensor<f64>
  func.return %0 : tensor<f32>
}

// -----

func.func @operand_type_count(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{expected 2 operand types but had 1}}
  %0 = "stablehlo.add"(%a, %a) : (tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

func.func @successors() {
  // expected-error @+1 {{block successors are not supported (StableHLO uses structured control flow)}}
  "foo.br"()[^bb1] : () -> ()
}

// -----

func.func @several_blocks() {
  func.return
// expected-error @+1 {{functions with several blocks are not supported}}
^bb1:
  func.return
}

// -----

// expected-error @+1 {{function arguments must be all named or all unnamed}}
func.func @mixed_args(%a: tensor<f32>, tensor<f32>) {
  func.return
}

// -----

func.func @bad_conv(%x: tensor<1x8x3xf32>, %w: tensor<3x3x4xf32>) -> tensor<1x6x4xf32> {
  // expected-error @+1 {{duplicate 'i' in convolution layout}}
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f]x[0, i, i]->[b, 0, f], window = {} : (tensor<1x8x3xf32>, tensor<3x3x4xf32>) -> tensor<1x6x4xf32>
  func.return %0 : tensor<1x6x4xf32>
}

// -----

func.func @bad_conv_missing(%x: tensor<1x8x3xf32>, %w: tensor<3x3x4xf32>) -> tensor<1x6x4xf32> {
  // expected-error @+1 {{convolution layout needs both 'i' and 'o'}}
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f]x[0, i]->[b, 0, f], window = {} : (tensor<1x8x3xf32>, tensor<3x3x4xf32>) -> tensor<1x6x4xf32>
  func.return %0 : tensor<1x6x4xf32>
}

// -----

func.func @bad_window(%x: tensor<1x8x3xf32>, %w: tensor<3x3x4xf32>) -> tensor<1x6x4xf32> {
  // expected-error @+1 {{unknown window attribute 'strides'}}
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {strides = [1]} : (tensor<1x8x3xf32>, tensor<3x3x4xf32>) -> tensor<1x6x4xf32>
  func.return %0 : tensor<1x6x4xf32>
}

// -----

func.func @bad_precision(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{unknown precision 'ULTRA' (expected DEFAULT, HIGH or HIGHEST)}}
  %0 = stablehlo.dot %a, %a, precision = [ULTRA, HIGH] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}

// -----

func.func @bad_applies(%x: tensor<4xf32>, %z: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{expected the inner-op to be a commutative binary-op from the stablehlo dialect}}
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.sqrt across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

func.func @bad_reduce_syntax(%x: tensor<4xf32>, %z: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{expected 'init:'}}
  %0 = stablehlo.reduce(%x, %z) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

func.func @bad_slice(%x: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expected ':', found ']'}}
  %0 = stablehlo.slice %x [0] : (tensor<4xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

// expected-error @+1 {{undefined attribute alias '#missing'}}
module attributes {a = #missing} {
}

// -----

// expected-error @+1 {{array<...> needs an integer or float element type}}
module attributes {a = array<tensor<i32>: 1>} {
}

// -----

// expected-error @+1 {{dimension size does not fit in 64 bits}}
func.func @huge_dim(%a: tensor<99999999999999999999x2xf32>) {
  func.return
}

// -----

func.func @bad_char(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{unexpected character or unterminated token '$'}}
  %0 = stablehlo.abs $a : tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

func.func @unterminated_string() {
  // expected-error @+1 {{unexpected character or unterminated token '"abc'}}
  %0 = "stablehlo.constant"() {value = "abc
  func.return
}

// -----

// expected-error @+3 {{expected end of input after the module (one top-level module per input)}}
module {
}
module {
}

// -----

// A missing token is reported just after the token it should follow when
// the next one is on a later line.
func.func @missing_comma(%p: tensor<2xi1>, %a: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{expected ',' here, found 'func.return' on a later line}}
  %0 = stablehlo.select %p, %a, %a : tensor<2xi1>
  func.return %0 : tensor<2xi32>
}

// -----

func.func @window_twice(%x: tensor<1x8x2xf32>, %k: tensor<3x2x2xf32>) -> tensor<1x3x2xf32> {
  %0 = stablehlo.convolution(%x, %k)
    dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f],
    // expected-error @+1 {{Unexpected keyword stride: window attribute 'stride' is given twice}}
    window = {stride = [2], pad = [[0, 0]], stride = [2]}
    {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x2xf32>, tensor<3x2x2xf32>) -> tensor<1x3x2xf32>
  func.return %0 : tensor<1x3x2xf32>
}

// -----

func.func @conv_spatial_counts(%x: tensor<1x8x8x2xf32>, %k: tensor<3x3x3x2x2xf32>) -> tensor<1x6x6x2xf32> {
  // expected-error @+1 {{convolution layouts have different numbers of spatial dimensions (2, then 3): the input, kernel and output must have the same}}
  %0 = stablehlo.convolution(%x, %k)
    dim_numbers = [b, 0, 1, f]x[0, 1, 2, i, o]->[b, 0, 1, f],
    window = {}
    {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x2xf32>, tensor<3x3x3x2x2xf32>) -> tensor<1x6x6x2xf32>
  func.return %0 : tensor<1x6x6x2xf32>
}

// -----

func.func @unterminated_body(%a: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.abs %a : tensor<f32>
  // expected-error @+1 {{expected '}' to close the function body}}
