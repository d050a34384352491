/* vm/kernels/vecmath.c: libmvec's f32 functions stay within 2 ULP of the
 * correctly rounded result and exp within 1, give every element the same bits wherever it
 * sits in an array (the last partial group included), and step aside for
 * opcodes they do not cover and for TPU_VM_ISA=generic. */
#include <math.h>

#include "unit_tests.h"
#include "vm/kernels/vecmath.h"
#include "vm/opinfo.h"

enum { SAMPLES = 1 << 16 };

/* ULP distance of two finite-or-equal floats (NaN = NaN: 0). */
static int64_t ulp_distance(float a, float b) {
  if (isnan(a) && isnan(b)) return 0;
  int32_t x, y;
  memcpy(&x, &a, 4);
  memcpy(&y, &b, 4);
  if (x < 0) x = INT32_MIN - x;
  if (y < 0) y = INT32_MIN - y;
  int64_t d = (int64_t)x - y;
  return d < 0 ? -d : d;
}

/* SAMPLES floats spread over every exponent, both signs, plus specials. */
static float *samples(void) {
  float *v = malloc(sizeof(float) * SAMPLES);
  for (uint32_t i = 0; i < SAMPLES; i++) {
    uint32_t bits = i * 65521u;
    memcpy(&v[i], &bits, 4);
  }
  v[0] = INFINITY, v[1] = -INFINITY, v[2] = NAN, v[3] = 0.0f, v[4] = -0.0f;
  return v;
}

/* The element-wise kernel's logistic formula on a correctly rounded exp
 * (the formula, not the function, is what the vector version keeps: both
 * give 0 where e^-x overflows). */
static double logistic(double x) { return 1.0f / (1.0f + (float)exp(-x)); }

static void within_two_ulp(void **state) {
  (void)state;
  static const struct {
    int opcode;
    double (*ref)(double);
  } fns[] = {{VM_OP_ERF, erf},   {VM_OP_ERFC, erfc},   {VM_OP_TANH, tanh},
             {VM_OP_SINE, sin},  {VM_OP_COSINE, cos},  {VM_OP_LOG_PLUS_ONE, log1p},
             {VM_OP_LOGISTIC, logistic}};
  float *x = samples(), *y = malloc(sizeof(float) * SAMPLES);
  for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
    if (!vecmath_f32(fns[f].opcode, x, y, SAMPLES)) skip();
    int64_t worst = 0;
    for (int i = 0; i < SAMPLES; i++) {
      int64_t d = ulp_distance(y[i], (float)fns[f].ref(x[i]));
      if (d > worst) worst = d;
    }
    assert_in_range(worst, 0, 2);
  }
  free(x);
  free(y);
}

static void exp_within_one_ulp(void **state) {
  (void)state;
  float *x = samples(), *y = malloc(sizeof(float) * SAMPLES);
  if (!vecmath_f32(VM_OP_EXPONENTIAL, x, y, SAMPLES)) skip();
  int64_t worst = 0;
  for (int i = 0; i < SAMPLES; i++) {
    int64_t d = ulp_distance(y[i], (float)exp(x[i]));
    if (d > worst) worst = d;
  }
  assert_in_range(worst, 0, 1);
  float edge[6] = {88.72283935546875f, 88.7228469848632812f, -103.972084045410156f, -87.3365478515625f, 0.0f, -0.0f};
  float out[6];
  assert_true(vecmath_f32(VM_OP_EXPONENTIAL, edge, out, 6));
  for (int i = 0; i < 6; i++) assert_in_range(ulp_distance(out[i], (float)exp(edge[i])), 0, 1);
  uint32_t snan = 0x7f800001u, bits;
  memcpy(edge, &snan, 4);
  assert_true(vecmath_f32(VM_OP_EXPONENTIAL, edge, out, 1));
  memcpy(&bits, out, 4);
  assert_int_equal(bits & 0x7fc00000u, 0x7fc00000u); /* a quiet NaN, as expf gives */
  free(x);
  free(y);
}

static void position_independent(void **state) {
  (void)state;
  float *x = samples(), whole[13], part[13];
  if (!vecmath_f32(VM_OP_ERF, x + 100, whole, 13)) skip();
  for (int start = 0; start < 13; start++) {
    assert_true(vecmath_f32(VM_OP_ERF, x + 100 + start, part, 13 - start));
    assert_memory_equal(part, whole + start, sizeof(float) * (size_t)(13 - start));
  }
  free(x);
}

static void declines(void **state) {
  (void)state;
  float x[4] = {1, 2, 3, 4}, y[4] = {0};
  assert_false(vecmath_f32(VM_OP_LOG, x, y, 4));
  assert_false(vecmath_f32(VM_OP_ADD, x, y, 4));
  setenv("TPU_VM_ISA", "generic", 1);
  assert_false(vecmath_f32(VM_OP_ERF, x, y, 4));
  unsetenv("TPU_VM_ISA");
  assert_true(y[0] == 0);
}

int run_vecmath_tests(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(within_two_ulp),
      cmocka_unit_test(exp_within_one_ulp),
      cmocka_unit_test(position_independent),
      cmocka_unit_test(declines),
  };
  return cmocka_run_group_tests_name("vecmath", tests, NULL, NULL);
}
