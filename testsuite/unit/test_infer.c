/* Result-type inference (ir/infer.c): one op of each family parsed in
 * generic form with no results ("-> ()"), its inferred types printed; the
 * diagnostics of ops without inference and of inconsistent operands; and
 * every op of the conformance corpus whose kind has inference, inferred
 * again from its operands and compared with its real result types. */
#include <dirent.h>

#include "testsuite/unit/unit_tests.h"

/* The first op of @f's body in cur. */
static Op *first_op(void) {
  Op *f = op_body(cur->m->op)->first;
  while (f && f->kind != OP_FUNC) f = f->next;
  assert_non_null(f);
  return op_body(f)->first;
}

/* Parses "func.func @f(ARGS) { OP  func.return }" and infers the first
 * op's result types: "t1, t2", or "error" with the diagnostics in cur. */
static const char *infer_text(const char *args, const char *op_text) {
  static char buf[4096];
  parsed_free(cur);
  snprintf(buf, sizeof buf, "func.func @f(%s) {\n  %s\n  func.return\n}\n", args, op_text);
  cur = parse_text(buf);
  if (!cur->m) fail_msg("parse failed:\n%s\n%s", buf, parsed_diags(cur));
  assert_int_equal(parsed_errors(cur), 0);
  Type *types[8];
  int n = infer_result_types(cur->c, first_op(), types, 8);
  if (n < 0) return "error";
  size_t len = 0;
  buf[0] = 0;
  for (int i = 0; i < n; i++)
    len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? ", " : "", type_to_string(cur->c, types[i]));
  return buf;
}

#define INFERS(args, op, want) assert_string_equal(infer_text(args, op), want)

/* The op is refused with a diagnostic containing MSG at line 2. */
static void refuses(const char *args, const char *op, const char *msg) {
  assert_string_equal(infer_text(args, op), "error");
  assert_contains(parsed_diags(cur), "test.mlir:2:3: error: ");
  assert_contains(parsed_diags(cur), msg);
}

/* async_start gives the future of its body's results, async_done its
 * values; a body that is no collective or slice is refused. */
static void test_futures(void **state) {
  (void)state;
  INFERS("%a: tensor<4xf32>",
         "\"stablehlo.async_start\"(%a) ({\n  ^bb0(%v: tensor<4xf32>):\n"
         "    %s = stablehlo.slice %v [0:2] : (tensor<4xf32>) -> tensor<2xf32>\n"
         "    \"stablehlo.return\"(%s, %v) : (tensor<2xf32>, tensor<4xf32>) -> ()\n  }) : (tensor<4xf32>) -> ()",
         "!stablehlo.future<tensor<2xf32>, tensor<4xf32>>");
  INFERS("%f: !stablehlo.future<tensor<2xf32>, tensor<4xi32>>",
         "\"stablehlo.async_done\"(%f) : (!stablehlo.future<tensor<2xf32>, tensor<4xi32>>) -> ()",
         "tensor<2xf32>, tensor<4xi32>");
  assert_string_equal(infer_text("%a: tensor<4xf32>",
                                 "\"stablehlo.async_start\"(%a) ({\n  ^bb0(%v: tensor<4xf32>):\n"
                                 "    %s = stablehlo.add %v, %v : tensor<4xf32>\n"
                                 "    \"stablehlo.return\"(%s) : (tensor<4xf32>) -> ()\n  }) : (tensor<4xf32>) -> ()"),
                      "error");
  assert_contains(parsed_diags(cur), "region must contain a collective or slice operation");
}

static void test_elementwise(void **state) {
  (void)state;
  const char *ab = "%a: tensor<2x3xf32>, %b: tensor<2x3xf32>";
  INFERS(ab, "\"stablehlo.add\"(%a, %b) : (tensor<2x3xf32>, tensor<2x3xf32>) -> ()", "tensor<2x3xf32>");
  INFERS(ab, "\"stablehlo.exponential\"(%a) : (tensor<2x3xf32>) -> ()", "tensor<2x3xf32>");
  INFERS(ab, "\"stablehlo.compare\"(%a, %b) {comparison_direction = #stablehlo<comparison_direction LT>} : "
             "(tensor<2x3xf32>, tensor<2x3xf32>) -> ()", "tensor<2x3xi1>");
  INFERS(ab, "\"stablehlo.is_finite\"(%a) : (tensor<2x3xf32>) -> ()", "tensor<2x3xi1>");
  INFERS(ab, "\"stablehlo.complex\"(%a, %b) : (tensor<2x3xf32>, tensor<2x3xf32>) -> ()", "tensor<2x3xcomplex<f32>>");
  INFERS("%z: tensor<4xcomplex<f64>>", "\"stablehlo.real\"(%z) : (tensor<4xcomplex<f64>>) -> ()", "tensor<4xf64>");
  INFERS("%z: tensor<4xcomplex<f32>>", "\"stablehlo.abs\"(%z) : (tensor<4xcomplex<f32>>) -> ()", "tensor<4xf32>");
  INFERS("%i: tensor<4xi32>", "\"stablehlo.shift_left\"(%i, %i) : (tensor<4xi32>, tensor<4xi32>) -> ()",
         "tensor<4xi32>");
  INFERS("%i: tensor<4xi8>", "\"stablehlo.popcnt\"(%i) : (tensor<4xi8>) -> ()", "tensor<4xi8>");
  INFERS("%p: tensor<i1>, %a: tensor<4xf32>",
         "\"stablehlo.select\"(%p, %a, %a) : (tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> ()", "tensor<4xf32>");
  INFERS("%m: tensor<f32>, %a: tensor<4xf32>",
         "\"stablehlo.clamp\"(%m, %a, %m) : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> ()", "tensor<4xf32>");
  INFERS("%a: tensor<4xf32>", "\"chlo.erf\"(%a) : (tensor<4xf32>) -> ()", "tensor<4xf32>");
  INFERS("%a: tensor<4xf32>", "\"chlo.is_inf\"(%a) : (tensor<4xf32>) -> ()", "tensor<4xi1>");
}

static void test_contractions(void **state) {
  (void)state;
  INFERS("%l: tensor<5x2x3xbf16>, %r: tensor<5x3x7xbf16>",
         "\"stablehlo.dot_general\"(%l, %r) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], "
         "rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : "
         "(tensor<5x2x3xbf16>, tensor<5x3x7xbf16>) -> ()", "tensor<5x2x7xbf16>");
  INFERS("%l: tensor<2x3xf32>, %r: tensor<3xf32>", "\"stablehlo.dot\"(%l, %r) : (tensor<2x3xf32>, tensor<3xf32>) -> ()",
         "tensor<2xf32>");
  INFERS("%x: tensor<1x8x8x3xf32>, %k: tensor<3x3x3x16xf32>",
         "\"stablehlo.convolution\"(%x, %k) {dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, "
         "1, f]>, window_strides = array<i64: 2, 2>, padding = dense<1> : tensor<2x2xi64>, feature_group_count = 1 "
         ": i64, batch_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> ()",
         "tensor<1x4x4x16xf32>");
}

static void test_shapes(void **state) {
  (void)state;
  const char *x = "%x: tensor<4x6xf32>, %v: tensor<f32>, %i: tensor<i32>";
  INFERS(x, "\"stablehlo.transpose\"(%x) {permutation = array<i64: 1, 0>} : (tensor<4x6xf32>) -> ()",
         "tensor<6x4xf32>");
  INFERS(x, "\"stablehlo.slice\"(%x) {start_indices = array<i64: 1, 0>, limit_indices = array<i64: 4, 6>, strides "
            "= array<i64: 2, 4>} : (tensor<4x6xf32>) -> ()", "tensor<2x2xf32>");
  INFERS(x, "\"stablehlo.pad\"(%x, %v) {edge_padding_low = array<i64: -1, 1>, edge_padding_high = array<i64: 0, 2>, "
            "interior_padding = array<i64: 1, 0>} : (tensor<4x6xf32>, tensor<f32>) -> ()", "tensor<6x9xf32>");
  INFERS(x, "\"stablehlo.concatenate\"(%x, %x) {dimension = 0 : i64} : (tensor<4x6xf32>, tensor<4x6xf32>) -> ()",
         "tensor<8x6xf32>");
  INFERS(x, "\"stablehlo.dynamic_slice\"(%x, %i, %i) {slice_sizes = array<i64: 2, 3>} : (tensor<4x6xf32>, "
            "tensor<i32>, tensor<i32>) -> ()", "tensor<2x3xf32>");
  INFERS(x, "\"stablehlo.reverse\"(%x) {dimensions = array<i64: 0>} : (tensor<4x6xf32>) -> ()", "tensor<4x6xf32>");
  INFERS("%x: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>",
         "\"stablehlo.gather\"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], "
         "collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>, slice_sizes = array<i64: 1, "
         "2, 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>) -> ()", "tensor<2x3x2x2xf32>");
  INFERS(x, "\"stablehlo.constant\"() {value = dense<1> : tensor<2xi32>} : () -> ()", "tensor<2xi32>");
}

#define ADD_BODY "({\n ^bb0(%p: tensor<f32>, %q: tensor<f32>):\n %s = \"stablehlo.add\"(%p, %q) : (tensor<f32>, " \
                 "tensor<f32>) -> tensor<f32>\n \"stablehlo.return\"(%s) : (tensor<f32>) -> ()\n })"

#define ADD_BODY_I32 "({\n ^bb0(%p: tensor<i32>, %q: tensor<i32>):\n %s = \"stablehlo.add\"(%p, %q) : (tensor<i32>, " \
                     "tensor<i32>) -> tensor<i32>\n \"stablehlo.return\"(%s) : (tensor<i32>) -> ()\n })"

static void test_regions(void **state) {
  (void)state;
  const char *x = "%x: tensor<4x6xf32>, %v: tensor<f32>";
  INFERS(x, "\"stablehlo.reduce\"(%x, %v) " ADD_BODY " {dimensions = array<i64: 1>} : (tensor<4x6xf32>, "
            "tensor<f32>) -> ()", "tensor<4xf32>");
  INFERS(x, "\"stablehlo.reduce_window\"(%x, %v) " ADD_BODY " {window_dimensions = array<i64: 2, 3>, "
            "window_strides = array<i64: 2, 1>, padding = dense<[[0, 0], [1, 1]]> : tensor<2x2xi64>} : "
            "(tensor<4x6xf32>, tensor<f32>) -> ()", "tensor<2x6xf32>");
  INFERS(x, "\"stablehlo.map\"(%x, %x) " ADD_BODY " {dimensions = array<i64: 0, 1>} : (tensor<4x6xf32>, "
            "tensor<4x6xf32>) -> ()", "tensor<4x6xf32>");
  INFERS("%p: tensor<i1>, %x: tensor<2xf32>",
         "\"stablehlo.if\"(%p) ({\n \"stablehlo.return\"(%x) : (tensor<2xf32>) -> ()\n }, {\n "
         "\"stablehlo.return\"(%x) : (tensor<2xf32>) -> ()\n }) : (tensor<i1>) -> ()", "tensor<2xf32>");
}

static void test_other_families(void **state) {
  (void)state;
  INFERS("%x: tensor<4x6xf32>, %t: !stablehlo.token",
         "\"stablehlo.tuple\"(%x, %t) : (tensor<4x6xf32>, !stablehlo.token) -> ()",
         "tuple<tensor<4x6xf32>, !stablehlo.token>");
  INFERS("%t: !stablehlo.token", "\"stablehlo.after_all\"(%t, %t) : (!stablehlo.token, !stablehlo.token) -> ()",
         "!stablehlo.token");
  INFERS("%x: tensor<8xf32>", "\"stablehlo.fft\"(%x) {fft_type = #stablehlo<fft_type RFFT>, fft_length = "
                              "array<i64: 8>} : (tensor<8xf32>) -> ()", "tensor<5xcomplex<f32>>");
  INFERS("%x: tensor<2x8xf32>", "\"stablehlo.all_gather\"(%x) {all_gather_dim = 1 : i64, replica_groups = "
                                "dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<2x8xf32>) -> ()",
         "tensor<2x32xf32>");
  INFERS("%x: tensor<2x8xf32>", "\"stablehlo.all_to_all\"(%x) {split_dimension = 1 : i64, concat_dimension = 0 : "
                                "i64, split_count = 4 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : "
                                "tensor<1x4xi64>} : (tensor<2x8xf32>) -> ()", "tensor<8x2xf32>");
  INFERS("%x: tensor<3x10xf32>", "\"chlo.top_k\"(%x) {k = 4 : i64} : (tensor<3x10xf32>) -> ()",
         "tensor<3x4xf32>, tensor<3x4xi32>");
  INFERS("%x: tensor<2x3xf32>, %s: tensor<3xf32>",
         "\"stablehlo.batch_norm_training\"(%x, %s, %s) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : "
         "(tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> ()", "tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>");
  INFERS("%x: tensor<4xf32>", "\"stablehlo.replica_id\"() : () -> ()", "tensor<ui32>");
}

#define LT_BODY "({\n ^bb0(%p: tensor<f32>, %q: tensor<f32>, %u: tensor<i32>, %w: tensor<i32>):\n %r = " \
                "\"stablehlo.compare\"(%p, %q) {comparison_direction = #stablehlo<comparison_direction LT>} : " \
                "(tensor<f32>, tensor<f32>) -> tensor<i1>\n \"stablehlo.return\"(%r) : (tensor<i1>) -> ()\n })"

static void test_more_families(void **state) {
  (void)state;
  INFERS("%x: tensor<4xf32>", "\"stablehlo.broadcast\"(%x) {broadcast_sizes = array<i64: 2, 3>} : (tensor<4xf32>) "
                              "-> ()", "tensor<2x3x4xf32>");
  INFERS("%x: tensor<5xf32>, %i: tensor<5xi32>",
         "\"stablehlo.sort\"(%x, %i) " LT_BODY " {dimension = 0 : i64} : (tensor<5xf32>, tensor<5xi32>) -> ()",
         "tensor<5xf32>, tensor<5xi32>");
  INFERS("%k: tensor<i32>, %x: tensor<2xf32>",
         "\"stablehlo.case\"(%k) ({\n \"stablehlo.return\"(%x, %k) : (tensor<2xf32>, tensor<i32>) -> ()\n }, {\n "
         "\"stablehlo.return\"(%x, %k) : (tensor<2xf32>, tensor<i32>) -> ()\n }) : (tensor<i32>) -> ()",
         "tensor<2xf32>, tensor<i32>");
  INFERS("%t: tuple<tensor<2xf32>, tensor<i32>>", "\"stablehlo.get_tuple_element\"(%t) {index = 1 : i32} : "
                                                   "(tuple<tensor<2xf32>, tensor<i32>>) -> ()", "tensor<i32>");
  INFERS("%x: tensor<2xf32>, %k: tensor<i32>", "\"stablehlo.optimization_barrier\"(%x, %k) : (tensor<2xf32>, "
                                               "tensor<i32>) -> ()", "tensor<2xf32>, tensor<i32>");
  INFERS("%x: tensor<8x2xf32>", "\"stablehlo.reduce_scatter\"(%x) " ADD_BODY " {scatter_dimension = 0 : i64, "
                                "replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<8x2xf32>) -> ()",
         "tensor<2x2xf32>");
  /* The operands are promoted to the computation's element type. */
  INFERS("%x: tensor<8x2xi8>", "\"stablehlo.reduce_scatter\"(%x) " ADD_BODY_I32 " {scatter_dimension = 0 : i64, "
                               "replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<8x2xi8>) -> ()",
         "tensor<4x2xi32>");
  INFERS("%x: tensor<4xi8>, %y: tensor<2xi16>",
         "\"stablehlo.all_reduce\"(%x, %y) " ADD_BODY_I32 " {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : "
         "(tensor<4xi8>, tensor<2xi16>) -> ()", "tensor<4xi32>, tensor<2xi32>");
  INFERS("%x: tensor<4xf32>", "\"stablehlo.all_reduce\"(%x) " ADD_BODY " {replica_groups = dense<[[0, 1]]> : "
                              "tensor<1x2xi64>} : (tensor<4xf32>) -> ()", "tensor<4xf32>");
  INFERS("%x: tensor<8x2xf32>", "\"stablehlo.collective_permute\"(%x) {source_target_pairs = dense<[[0, 1], [1, "
                                "0]]> : tensor<2x2xi64>} : (tensor<8x2xf32>) -> ()", "tensor<8x2xf32>");
  INFERS("%a: tensor<3x3xf32>, %b: tensor<3x2xf32>",
         "\"stablehlo.triangular_solve\"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a "
         "= #stablehlo<transpose NO_TRANSPOSE>} : (tensor<3x3xf32>, tensor<3x2xf32>) -> ()", "tensor<3x2xf32>");
  INFERS("%a: tensor<3x3xf32>", "\"stablehlo.cholesky\"(%a) {lower = true} : (tensor<3x3xf32>) -> ()",
         "tensor<3x3xf32>");
  INFERS("%x: tensor<2x3xf32>, %s: tensor<3xf32>",
         "\"stablehlo.batch_norm_grad\"(%x, %s, %s, %s, %x) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : "
         "(tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> ()",
         "tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>");
  INFERS("%x: tensor<2x?xf32>", "\"stablehlo.get_dimension_size\"(%x) {dimension = 1 : i64} : (tensor<2x?xf32>) -> "
                                "()", "tensor<i32>");
  INFERS("%z: tensor<3x5xcomplex<f64>>", "\"stablehlo.fft\"(%z) {fft_type = #stablehlo<fft_type IRFFT>, fft_length "
                                         "= array<i64: 8>} : (tensor<3x5xcomplex<f64>>) -> ()", "tensor<3x8xf64>");
  INFERS("%x: tensor<4x6xf32>, %u: tensor<2x2xf32>, %i: tensor<i32>",
         "\"stablehlo.dynamic_update_slice\"(%x, %u, %i, %i) : (tensor<4x6xf32>, tensor<2x2xf32>, tensor<i32>, "
         "tensor<i32>) -> ()", "tensor<4x6xf32>");
  INFERS("%l: tensor<?x3xf32>, %r: tensor<3x7xf32>",
         "\"stablehlo.dot_general\"(%l, %r) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = "
         "[1], rhs_contracting_dimensions = [0]>} : (tensor<?x3xf32>, tensor<3x7xf32>) -> ()", "tensor<?x7xf32>");
  INFERS("%x: tensor<4xf32>", "\"stablehlo.create_token\"() : () -> ()", "!stablehlo.token");
  INFERS("%l: tensor<11x5xf32>, %r: tensor<3x5x7xf32>, %g: tensor<3xi64>",
         "\"chlo.ragged_dot\"(%l, %r, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = "
         "[], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], "
         "lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>} : (tensor<11x5xf32>, tensor<3x5x7xf32>, "
         "tensor<3xi64>) -> ()", "tensor<11x7xf32>");
  INFERS("%x: tensor<4xf32>", "\"func.return\"(%x) : (tensor<4xf32>) -> ()", "");
}

static void test_chlo_broadcast(void **state) {
  (void)state;
  INFERS("%a: tensor<2x1x3xf32>, %b: tensor<4x1xf32>",
         "\"chlo.broadcast_add\"(%a, %b) : (tensor<2x1x3xf32>, tensor<4x1xf32>) -> ()", "tensor<2x4x3xf32>");
  INFERS("%a: tensor<2x3xf32>, %b: tensor<2xf32>", "\"chlo.broadcast_multiply\"(%a, %b) {broadcast_dimensions = "
                                                   "array<i64: 0>} : (tensor<2x3xf32>, tensor<2xf32>) -> ()",
         "tensor<2x3xf32>");
  INFERS("%a: tensor<?x3xi32>, %b: tensor<i32>",
         "\"chlo.broadcast_shift_left\"(%a, %b) : (tensor<?x3xi32>, tensor<i32>) -> ()", "tensor<?x3xi32>");
  INFERS("%a: tensor<2x3xf32>, %b: tensor<3xf32>",
         "\"chlo.broadcast_compare\"(%a, %b) {comparison_direction = #chlo<comparison_direction LT>} : "
         "(tensor<2x3xf32>, tensor<3xf32>) -> ()", "tensor<2x3xi1>");
  INFERS("%a: tensor<2x3xf64>, %b: tensor<f64>",
         "\"chlo.broadcast_complex\"(%a, %b) : (tensor<2x3xf64>, tensor<f64>) -> ()", "tensor<2x3xcomplex<f64>>");
  INFERS("%p: tensor<i1>, %a: tensor<2x3xbf16>, %b: tensor<3xbf16>",
         "\"chlo.broadcast_select\"(%p, %a, %b) : (tensor<i1>, tensor<2x3xbf16>, tensor<3xbf16>) -> ()",
         "tensor<2x3xbf16>");
  INFERS("%a: tensor<2x3xf32>, %b: tensor<3xf32>",
         "%r = chlo.broadcast_subtract %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>",
         "tensor<2x3xf32>");
  refuses("%a: tensor<2x3xf32>, %b: tensor<4xf32>",
          "\"chlo.broadcast_add\"(%a, %b) : (tensor<2x3xf32>, tensor<4xf32>) -> ()",
          "operands of shapes [2, 3] and [4] cannot be broadcast together (dimension 1)");
  refuses("%a: tensor<2x3xf32>, %b: tensor<2xf32>", "\"chlo.broadcast_add\"(%a, %b) {broadcast_dimensions = "
                                                    "array<i64: 2>} : (tensor<2x3xf32>, tensor<2xf32>) -> ()",
          "broadcast_dimensions contains out-of-range dimension 2");
  refuses("%a: tensor<2xf16>", "\"chlo.broadcast_complex\"(%a, %a) : (tensor<2xf16>, tensor<2xf16>) -> ()",
          "expects f32 or f64 parts");
}

static void test_errors(void **state) {
  (void)state;
  refuses("%x: tensor<4x6xf32>", "\"stablehlo.reshape\"(%x) : (tensor<4x6xf32>) -> ()",
          "'stablehlo.reshape' op cannot infer its result type; give the result type");
  refuses("%a: tensor<2xf32>, %b: tensor<3xf32>", "\"stablehlo.add\"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> ()",
          "'stablehlo.add' op ");
  refuses("%l: tensor<2x3xf32>, %r: tensor<4x5xf32>",
          "\"stablehlo.dot\"(%l, %r) : (tensor<2x3xf32>, tensor<4x5xf32>) -> ()",
          "expects the contracting dimensions to have the same size");
  refuses("%x: tensor<4x6xf32>", "\"stablehlo.transpose\"(%x) {permutation = array<i64: 0>} : (tensor<4x6xf32>) -> ()",
          "operand rank (2) does not match permutation size (1)");
  refuses("%x: tensor<4x6xf32>", "\"stablehlo.add\"(%x) : (tensor<4x6xf32>) -> ()", "expects at least 2 operands");
  refuses("%x: tensor<4xf32>", "\"stablehlo.iota\"() {iota_dimension = 0 : i64} : () -> ()",
          "'stablehlo.iota' op cannot infer its result type; give the result type");
  refuses("%x: tensor<4xf32>", "\"stablehlo.rng_bit_generator\"(%x) {rng_algorithm = #stablehlo<rng_algorithm "
                               "DEFAULT>} : (tensor<4xf32>) -> ()", "cannot infer its result types; give the result types");
  refuses("%x: tensor<4xf32>", "\"foo.bar\"(%x) : (tensor<4xf32>) -> ()", "is not an op tpucc knows");
  refuses("%l: tensor<5x2x3xf32>, %r: tensor<6x3x7xf32>",
          "\"stablehlo.dot_general\"(%l, %r) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], "
          "rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : "
          "(tensor<5x2x3xf32>, tensor<6x3x7xf32>) -> ()", "batching dimension sizes must match");
  refuses("%a: tensor<2x3xf32>, %b: tensor<3xf32>",
          "\"stablehlo.concatenate\"(%a, %b) {dimension = 0 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> ()",
          "operands (0) and (1) do not match rank");
  refuses("%x: tensor<2x8xf32>", "\"stablehlo.all_gather\"(%x) {all_gather_dim = 1 : i64} : (tensor<2x8xf32>) -> ()",
          "requires attribute 'replica_groups'");
  refuses("%x: tensor<2x8xf32>", "\"stablehlo.all_gather\"(%x) {all_gather_dim = 1 : i64, replica_groups = "
                                 "dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = "
                                 "#stablehlo.channel_handle<handle = 1, type = 0>} : (tensor<2x8xf32>) -> ()",
          "(cross_replica_and_partition mode); give the result types");
  refuses("%x: tensor<10x2xf32>", "\"stablehlo.reduce_scatter\"(%x) " ADD_BODY " {scatter_dimension = 0 : i64, "
                                  "replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<10x2xf32>) -> ()",
          "operand scatter dimension has size 10, expected to be a multiple of the group size 4");
  /* Checks the type rule makes against the result hold for the inferred one. */
  refuses("%x: tensor<8xf32>", "\"stablehlo.fft\"(%x) {fft_type = #stablehlo<fft_type RFFT>, fft_length = "
                               "array<i64: 16>} : (tensor<8xf32>) -> ()",
          "expects the trailing dimensions of the real operand to be fft_length [16]");
  refuses("%z: tensor<5xcomplex<f32>>", "\"stablehlo.fft\"(%z) {fft_type = #stablehlo<fft_type IRFFT>, fft_length = "
                                        "array<i64: 16>} : (tensor<5xcomplex<f32>>) -> ()",
          "'stablehlo.fft' op ");
}

/* Room for fewer results than the op has is a diagnostic, not a short
 * write. */
static void test_room(void **state) {
  (void)state;
  infer_text("%x: tensor<3x10xf32>", "\"chlo.top_k\"(%x) {k = 4 : i64} : (tensor<3x10xf32>) -> ()");
  Type *t[1];
  assert_int_equal(infer_result_types(cur->c, first_op(), t, 1), -1);
  assert_contains(parsed_diags(cur), "'chlo.top_k' op has 2 inferred result types, but room was given for 1");
}

/* ------------------------------------------------------------------ */
/* The corpus: infer every inferable op and compare with its results. */

typedef struct CorpusCount {
  long checked, mismatched, refused;
  long by_kind[OP_COUNT];
} CorpusCount;

static void check_op(Context *c, Op *op, CorpusCount *n, const char *file) {
  for (int r = 0; r < op->nregions; r++)
    for (int b = 0; b < op->regions[r].nblocks; b++)
      for (Op *o = op->regions[r].blocks[b]->first; o; o = o->next) check_op(c, o, n, file);
  if (!op_has_inference(op->kind)) return;
  Type *types[64];
  size_t before = strlen(parsed_diags(cur));
  int k = infer_result_types(c, op, types, 64);
  n->checked++;
  if (k < 0 && strstr(parsed_diags(cur) + before, "cross_replica_and_partition mode); give the result types")) {
    n->refused++; /* the group size depends on the partition count */
    return;
  }
  n->by_kind[op->kind]++;
  bool same = k == op->nresults;
  for (int i = 0; same && i < k; i++) same = types[i] == op->results[i].type;
  if (same) return;
  n->mismatched++;
  print_message("%s: '%s' inferred %d type(s) (%s), has %d (%s)\n", file, op->name, k,
                k > 0 ? type_to_string(c, types[0]) : "-", op->nresults,
                op->nresults > 0 ? type_to_string(c, op->results[0].type) : "-");
}

/* Reads the file at PATH whole (malloc'd) or returns NULL. */
static char *read_whole(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long sz = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)sz + 1);
  *len = fread(s, 1, (size_t)sz, f);
  fclose(f);
  return s;
}

/* Every program of the file (its "// -----" chunks when SPLIT) that
 * parses and verifies; with STRICT, one that does not counts as a
 * mismatch (the interpreter tests include programs meant to fail). */
static void check_file(const char *path, const char *name, bool split, bool strict, CorpusCount *n) {
  size_t len;
  char *text = read_whole(path, &len);
  if (!text) return;
  SourceFile file = {name, text, len};
  SourceChunk *chunks;
  int nchunks = source_chunks(&file, split, &chunks);
  for (int i = 0; i < nchunks; i++) {
    parsed_free(cur);
    cur = parse_file_text(name, chunks[i].start, (size_t)(chunks[i].end - chunks[i].start), 20, false);
    if (cur->m && parsed_errors(cur) == 0 && verify_module(cur->c, cur->m)) check_op(cur->c, cur->m->op, n, name);
    if (parsed_errors(cur) != 0 && strict) {
      print_message("%s:\n%s", name, parsed_diags(cur));
      n->mismatched++;
    }
  }
  free(chunks);
  free(text);
}

/* The .mlir files of DIR; false when it is absent. */
static bool check_dir(const char *dir, bool split, bool strict, CorpusCount *n, long *files) {
  DIR *d = opendir(dir);
  if (!d) return false;
  for (struct dirent *e; (e = readdir(d));) {
    size_t l = strlen(e->d_name);
    if (l < 6 || strcmp(e->d_name + l - 5, ".mlir") != 0) continue;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    check_file(path, e->d_name, split, strict, n);
    (*files)++;
  }
  closedir(d);
  return true;
}

static void test_corpus(void **state) {
  (void)state;
  const char *env = getenv("TPU_CONFORMANCE_DIR");
  const char *root = env && *env ? env : "../shared/conformance";
  char dir[4096];
  static CorpusCount n;
  memset(&n, 0, sizeof n);
  long files = 0;
  snprintf(dir, sizeof dir, "%s/stablehlo/testdata", root);
  if (!check_dir(dir, false, true, &n, &files)) {
    print_message("infer corpus: %s not found; skipped\n", dir);
    skip();
  }
  snprintf(dir, sizeof dir, "%s/stablehlo/interpret", root);
  check_dir(dir, true, false, &n, &files);
  print_message("infer corpus: %ld files, %ld ops inferred, %ld mismatched, %ld refused (group size unknown); by kind:",
                files, n.checked, n.mismatched, n.refused);
  for (int k = 0; k < OP_COUNT; k++)
    if (n.by_kind[k]) print_message(" %s %ld", op_info[k].name, n.by_kind[k]);
  print_message("\n");
  assert_true(n.checked > 0);
  assert_int_equal(n.mismatched, 0);
}

int run_infer_tests(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_elementwise, parsed_teardown),
      cmocka_unit_test_teardown(test_futures, parsed_teardown),
      cmocka_unit_test_teardown(test_contractions, parsed_teardown),
      cmocka_unit_test_teardown(test_shapes, parsed_teardown),
      cmocka_unit_test_teardown(test_regions, parsed_teardown),
      cmocka_unit_test_teardown(test_other_families, parsed_teardown),
      cmocka_unit_test_teardown(test_more_families, parsed_teardown),
      cmocka_unit_test_teardown(test_chlo_broadcast, parsed_teardown),
      cmocka_unit_test_teardown(test_errors, parsed_teardown),
      cmocka_unit_test_teardown(test_room, parsed_teardown),
      cmocka_unit_test_teardown(test_corpus, parsed_teardown),
  };
  return cmocka_run_group_tests_name("infer", tests, NULL, NULL);
}
