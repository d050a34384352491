// RUN: %tpurun -O0 %s --input=2x3xf32=1.00390625,2.001,3,4,5,6.003 --input=3x2xf32=1.001,1,1,1,1,1 | FileCheck %s
// RUN: %tpurun -O2 %s --input=2x3xf32=1.00390625,2.001,3,4,5,6.003 --input=3x2xf32=1.001,1,1,1,1,1 | FileCheck %s
// RUN: %tpucc -O2 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM
// dot_general's algorithm decides how the product is computed: the float
// operands are rounded to lhs/rhs_precision_type and the result to
// accumulation_type when those are narrower (reduce_precision around the
// dot); the multi-pass algorithms (num_primitive_operations > 1) and wider
// types run at the operands' precision.
//
// bf16 operands, f32 accumulation: 1.00390625, 2.001, 6.003 and 1.001 round to 1, 2, 6 and 1.
// CHECK: result[0]: 2x2xf32=[6 6][15 15]
// no algorithm: f32.
// CHECK: result[1]: 2x2xf32=[6.00591 6.004906][15.007 15.003]
// f16 operands and accumulation.
// CHECK: result[2]: 2x2xf32=[6.0078125 6.0078125][15.0078125 15]
// bf16 x3 emulates f32: the same as no algorithm.
// CHECK: result[3]: 2x2xf32=[6.00591 6.004906][15.007 15.003]
// ASM-COUNT-2: reduce_precision {{.*}} exponent_bits=8 mantissa_bits=7
// ASM: dot_general
// ASM: dot_general
// ASM-COUNT-3: reduce_precision {{.*}} exponent_bits=5 mantissa_bits=10
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %1 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %2 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = f16, rhs_precision_type = f16, accumulation_type = f16, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %3 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 3, allow_imprecise_accumulation = false> : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  func.return %0, %1, %2, %3 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}
