/* Float formats: float_bits_to_double / double_to_float_bits for every
 * floating-point element kind (exact values, rounding, overflow, NaN). */
#include <float.h>
#include <math.h>

#include "common/scalar.h"
#include "testsuite/unit/unit_tests.h"

/* Assert decode(k, bits) == v exactly (NaN never passes) and encode(v) == bits. */
static void both_ways(ElemKind k, uint64_t bits, double v) {
  double d = float_bits_to_double(k, bits);
  if (!(d == v) || signbit(d) != signbit(v))
    fail_msg("%s: bits 0x%llx decode to %.17g, want %.17g", elem_name(k), (unsigned long long)bits, d, v);
  uint64_t b = double_to_float_bits(k, v);
  if (b != bits)
    fail_msg("%s: %.17g encodes to 0x%llx, want 0x%llx", elem_name(k), v, (unsigned long long)b,
             (unsigned long long)bits);
}

static void enc(ElemKind k, double v, uint64_t want) {
  uint64_t b = double_to_float_bits(k, v);
  if (b != want)
    fail_msg("%s: %.17g encodes to 0x%llx, want 0x%llx", elem_name(k), v, (unsigned long long)b,
             (unsigned long long)want);
}

static void test_f16_exact(void **state) {
  (void)state;
  both_ways(ELEM_F16, 0x3C00, 1.0);
  both_ways(ELEM_F16, 0xC000, -2.0);
  both_ways(ELEM_F16, 0x3800, 0.5);
  both_ways(ELEM_F16, 0x7BFF, 65504.0);
  both_ways(ELEM_F16, 0x0400, ldexp(1, -14)); /* smallest normal */
  both_ways(ELEM_F16, 0x0001, ldexp(1, -24)); /* smallest subnormal */
  both_ways(ELEM_F16, 0x03FF, ldexp(1023, -24));
  both_ways(ELEM_F16, 0x8001, -ldexp(1, -24));
  both_ways(ELEM_F16, 0x0000, 0.0);
  both_ways(ELEM_F16, 0x8000, -0.0);
  both_ways(ELEM_F16, 0x3555, 0.333251953125);
  both_ways(ELEM_F16, 0x7C00, INFINITY);
  both_ways(ELEM_F16, 0xFC00, -INFINITY);
  enc(ELEM_F16, 0.1, 0x2E66);
  enc(ELEM_F16, 1.0 / 3.0, 0x3555);
}

static void test_bf16_exact(void **state) {
  (void)state;
  both_ways(ELEM_BF16, 0x3F80, 1.0);
  both_ways(ELEM_BF16, 0xBF80, -1.0);
  both_ways(ELEM_BF16, 0x4049, 3.140625);
  both_ways(ELEM_BF16, 0x7F7F, 3.3895313892515355e38); /* largest finite */
  both_ways(ELEM_BF16, 0x0080, ldexp(1, -126));
  both_ways(ELEM_BF16, 0x0001, ldexp(1, -133));
  both_ways(ELEM_BF16, 0x7F80, INFINITY);
  enc(ELEM_BF16, M_PI, 0x4049);
  enc(ELEM_BF16, 0.1, 0x3DCD);
}

static void test_tf32_f32_f64(void **state) {
  (void)state;
  both_ways(ELEM_TF32, 127u << 10, 1.0);
  both_ways(ELEM_TF32, (254u << 10) | 1023u, ldexp(2.0 - ldexp(1, -10), 127));
  enc(ELEM_TF32, 1.0 + ldexp(1, -11), 127u << 10);         /* tie: to even */
  enc(ELEM_TF32, 1.0 + 3 * ldexp(1, -11), (127u << 10) | 2); /* tie: up to even */
  both_ways(ELEM_F32, 0x40490FDB, 3.1415927410125732);
  enc(ELEM_F32, 0.1, 0x3DCCCCCD);
  both_ways(ELEM_F32, 0xFF800000, -INFINITY);
  both_ways(ELEM_F64, 0x3FF0000000000000ull, 1.0);
  both_ways(ELEM_F64, 0x8000000000000000ull, -0.0);
  enc(ELEM_F64, 0.1, 0x3FB999999999999Aull);
  assert_true(isnan(float_bits_to_double(ELEM_F64, 0x7FF8000000000001ull)));
}

static void test_round_to_nearest_even_ties(void **state) {
  (void)state;
  double ulp16 = ldexp(1, -10);
  enc(ELEM_F16, 1.0 + ulp16 / 2, 0x3C00);            /* tie between 0x3C00 and 0x3C01: even */
  enc(ELEM_F16, 1.0 + 3 * ulp16 / 2, 0x3C02);        /* tie between 0x3C01 and 0x3C02: even */
  enc(ELEM_F16, 1.0 + ulp16 / 2 + ldexp(1, -30), 0x3C01); /* just above the tie */
  enc(ELEM_F16, 1.0 + ulp16 / 2 - ldexp(1, -30), 0x3C00); /* just below */
  enc(ELEM_F16, -(1.0 + 3 * ulp16 / 2), 0xBC02);
  double ulpb = ldexp(1, -7);
  enc(ELEM_BF16, 1.0 + ulpb / 2, 0x3F80);
  enc(ELEM_BF16, 1.0 + 3 * ulpb / 2, 0x3F82);
  enc(ELEM_BF16, 1.0 + ulpb / 2 + ldexp(1, -20), 0x3F81);
  /* a carry out of the mantissa bumps the exponent */
  enc(ELEM_F16, 2.0 - ldexp(1, -12), 0x4000);
  enc(ELEM_BF16, 2.0 - ldexp(1, -9), 0x4000);
}

static void test_overflow_to_inf(void **state) {
  (void)state;
  enc(ELEM_F16, 65519.99, 0x7BFF); /* below the midpoint to the next binade */
  enc(ELEM_F16, 65520.0, 0x7C00);  /* the midpoint rounds to even = infinity */
  enc(ELEM_F16, 1e10, 0x7C00);
  enc(ELEM_F16, -1e10, 0xFC00);
  enc(ELEM_F16, 1e300, 0x7C00);
  enc(ELEM_F16, DBL_MAX, 0x7C00);
  enc(ELEM_BF16, 3.4e38, 0x7F80);
  enc(ELEM_BF16, -INFINITY, 0xFF80);
  enc(ELEM_TF32, 1e39, 255u << 10);
}

static void test_subnormals(void **state) {
  (void)state;
  double s = ldexp(1, -24); /* f16 smallest subnormal */
  enc(ELEM_F16, s / 2, 0x0000);            /* tie with 0: even */
  enc(ELEM_F16, 3 * s / 2, 0x0002);        /* tie between 1 and 2: even */
  enc(ELEM_F16, s / 2 + ldexp(1, -40), 0x0001);
  enc(ELEM_F16, -s / 2, 0x8000);           /* underflow keeps the sign */
  enc(ELEM_F16, 1e-30, 0x0000);
  enc(ELEM_F16, -1e-30, 0x8000);
  enc(ELEM_F16, ldexp(1, -14) - ldexp(1, -26), 0x0400); /* rounds up into the normals */
  enc(ELEM_BF16, ldexp(1, -134), 0x0000);
  enc(ELEM_BF16, ldexp(3, -134), 0x0002);
  for (uint64_t m = 1; m < 0x400; m++) both_ways(ELEM_F16, m, ldexp((double)m, -24));
}

static void test_nan(void **state) {
  (void)state;
  assert_true(isnan(float_bits_to_double(ELEM_F16, 0x7E00)));
  assert_true(isnan(float_bits_to_double(ELEM_F16, 0x7C01)));
  assert_true(isnan(float_bits_to_double(ELEM_F16, 0xFFFF)));
  assert_true(isnan(float_bits_to_double(ELEM_BF16, 0x7FC0)));
  assert_true(isnan(float_bits_to_double(ELEM_TF32, (255u << 10) | 1)));
  uint64_t b = double_to_float_bits(ELEM_F16, NAN);
  assert_true(isnan(float_bits_to_double(ELEM_F16, b)));
  assert_int_equal(b & 0x8000, 0);
  b = double_to_float_bits(ELEM_F16, -NAN);
  assert_true(isnan(float_bits_to_double(ELEM_F16, b)));
  assert_int_equal(b & 0x8000, 0x8000); /* IEEE kinds keep the sign of a NaN */
  b = double_to_float_bits(ELEM_BF16, NAN);
  assert_true(isnan(float_bits_to_double(ELEM_BF16, b)));
  assert_int_equal(b, 0x7FC0);
}

/* The NaN rules of common/minifloat.h, pinned bit for bit: signed NaNs
 * keep their sign both ways (IEEE and FN kinds), IEEE kinds keep the top
 * of a payload and quiet it, the FNUZ NaN decodes negative (ml_dtypes),
 * E8M0's is positive, and E8M0 takes a negative value as NaN. */
static void test_nan_bits(void **state) {
  (void)state;
  uint64_t u;
  double d = float_bits_to_double(ELEM_F8E4M3FN, 0xFF);
  memcpy(&u, &d, 8);
  assert_int_equal(u, 0xFFF8000000000000ull);
  d = float_bits_to_double(ELEM_F8E5M2, 0x7D); /* signalling, payload 1 */
  memcpy(&u, &d, 8);
  assert_int_equal(u, 0x7FFC000000000000ull);
  d = float_bits_to_double(ELEM_F8E4M3FNUZ, 0x80);
  assert_true(isnan(d) && signbit(d));
  d = float_bits_to_double(ELEM_F8E8M0FNU, 0xFF);
  assert_true(isnan(d) && !signbit(d));
  enc(ELEM_F8E4M3FN, -NAN, 0xFF);
  enc(ELEM_F8E5M2, -NAN, 0xFE);
  enc(ELEM_F8E4M3FNUZ, -NAN, 0x80);
  enc(ELEM_F16, -(double)scalar_bits_f32(0x7FA00001u), 0xFF00); /* quiet, the top of the payload kept */
  enc(ELEM_BF16, (double)scalar_bits_f32(0x7F812345u), 0x7FC1);
  enc(ELEM_F8E8M0FNU, -2.0, 0xFF);
  enc(ELEM_F8E8M0FNU, -INFINITY, 0xFF);
  enc(ELEM_F4E2M1FN, -NAN, 0x0);
}

/* Facts about one 8-bit-or-smaller float kind. */
typedef struct Mini {
  ElemKind k;
  int bits;
  uint64_t one;      /* encoding of 1.0 */
  uint64_t max_bits; /* largest finite */
  double max;
  uint64_t min_sub_bits;
  double min_sub;    /* smallest positive value */
  bool has_nan;
  uint64_t nan_bits; /* encoding produced for NaN */
  bool has_inf;
  uint64_t inf_bits;
  bool fnuz;         /* no negative zero; 0x80 is NaN */
  bool has_sign;
} Mini;

static const Mini minis[] = {
    {ELEM_F8E5M2, 8, 0x3C, 0x7B, 57344.0, 0x01, 0x1p-16, true, 0x7E, true, 0x7C, false, true},
    {ELEM_F8E4M3, 8, 0x38, 0x77, 240.0, 0x01, 0x1p-9, true, 0x7C, true, 0x78, false, true},
    {ELEM_F8E3M4, 8, 0x30, 0x6F, 15.5, 0x01, 0x1p-6, true, 0x78, true, 0x70, false, true},
    {ELEM_F8E4M3FN, 8, 0x38, 0x7E, 448.0, 0x01, 0x1p-9, true, 0x7F, false, 0, false, true},
    {ELEM_F8E4M3FNUZ, 8, 0x40, 0x7F, 240.0, 0x01, 0x1p-10, true, 0x80, false, 0, true, true},
    {ELEM_F8E5M2FNUZ, 8, 0x40, 0x7F, 57344.0, 0x01, 0x1p-17, true, 0x80, false, 0, true, true},
    {ELEM_F8E4M3B11FNUZ, 8, 0x58, 0x7F, 30.0, 0x01, 0x1p-13, true, 0x80, false, 0, true, true},
    {ELEM_F8E8M0FNU, 8, 0x7F, 0xFE, 0x1p127, 0x00, 0x1p-127, true, 0xFF, false, 0, false, false},
    {ELEM_F4E2M1FN, 4, 0x2, 0x7, 6.0, 0x1, 0.5, false, 0, false, 0, false, true},
    {ELEM_F6E2M3FN, 6, 0x08, 0x1F, 7.5, 0x01, 0.125, false, 0, false, 0, false, true},
    {ELEM_F6E3M2FN, 6, 0x0C, 0x1F, 28.0, 0x01, 0.0625, false, 0, false, 0, false, true},
};
enum { NMINIS = sizeof minis / sizeof minis[0] };

static void test_minifloat_key_values(void **state) {
  (void)state;
  for (int i = 0; i < NMINIS; i++) {
    const Mini *m = &minis[i];
    assert_int_equal(elem_bits(m->k), m->bits);
    both_ways(m->k, m->one, 1.0);
    both_ways(m->k, m->max_bits, m->max);
    both_ways(m->k, m->min_sub_bits, m->min_sub);
    if (m->has_sign) both_ways(m->k, m->one | (1ull << (m->bits - 1)), -1.0);
    if (m->has_nan) {
      assert_true(isnan(float_bits_to_double(m->k, m->nan_bits)));
      enc(m->k, NAN, m->nan_bits);
    }
    if (m->has_inf) {
      both_ways(m->k, m->inf_bits, INFINITY);
      both_ways(m->k, m->inf_bits | (1ull << (m->bits - 1)), -INFINITY);
    }
  }
}

static void test_minifloat_overflow(void **state) {
  (void)state;
  for (int i = 0; i < NMINIS; i++) {
    const Mini *m = &minis[i];
    uint64_t sign = 1ull << (m->bits - 1);
    uint64_t want_pos, want_neg;
    if (m->has_inf) {
      want_pos = m->inf_bits;
      want_neg = m->inf_bits | sign;
    } else if (m->fnuz || !m->has_sign) {
      want_pos = want_neg = m->nan_bits; /* the one NaN */
    } else if (m->has_nan) {
      want_pos = m->nan_bits; /* *FN: NaN with the sign */
      want_neg = m->nan_bits | sign;
    } else {
      want_pos = m->max_bits; /* f4/f6: saturate */
      want_neg = m->max_bits | sign;
    }
    enc(m->k, m->max * 4, want_pos);
    enc(m->k, 1e300, want_pos);
    if (m->has_sign) enc(m->k, -m->max * 4, want_neg);
  }
  /* exactly halfway above the largest f8E4M3FN (448 .. 480): ties to even = 448 */
  enc(ELEM_F8E4M3FN, 464.0, 0x7E);
  enc(ELEM_F8E4M3FN, 465.0, 0x7F);
}

static void test_fnuz_negative_zero(void **state) {
  (void)state;
  ElemKind fnuz[] = {ELEM_F8E4M3FNUZ, ELEM_F8E5M2FNUZ, ELEM_F8E4M3B11FNUZ};
  for (int i = 0; i < 3; i++) {
    enc(fnuz[i], -0.0, 0x00);
    enc(fnuz[i], -1e-30, 0x00); /* underflow to zero, and zero has no sign */
    assert_true(isnan(float_bits_to_double(fnuz[i], 0x80)));
    double z = float_bits_to_double(fnuz[i], 0x00);
    assert_true(z == 0.0 && !signbit(z));
  }
  both_ways(ELEM_F8E4M3FNUZ, 0xC0, -1.0);
  /* other kinds keep -0 */
  enc(ELEM_F8E4M3FN, -0.0, 0x80);
  enc(ELEM_F4E2M1FN, -0.0, 0x8);
}

static void test_e8m0(void **state) {
  (void)state;
  both_ways(ELEM_F8E8M0FNU, 0x80, 2.0);
  both_ways(ELEM_F8E8M0FNU, 0x7E, 0.5);
  both_ways(ELEM_F8E8M0FNU, 0x00, 0x1p-127);
  enc(ELEM_F8E8M0FNU, 0.0, 0xFF); /* no zero: NaN */
  enc(ELEM_F8E8M0FNU, 0x1p128, 0xFF);
  assert_true(isnan(float_bits_to_double(ELEM_F8E8M0FNU, 0xFF)));
}

static void test_f4_all_values(void **state) {
  (void)state;
  static const double v[8] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
  for (int i = 0; i < 8; i++) {
    both_ways(ELEM_F4E2M1FN, (uint64_t)i, v[i]);
    both_ways(ELEM_F4E2M1FN, (uint64_t)i | 8, -v[i]);
  }
  enc(ELEM_F4E2M1FN, 5.0, 0x6); /* tie between 4 (even) and 6 */
  enc(ELEM_F4E2M1FN, 2.5, 0x4); /* tie between 2 (even) and 3 */
  enc(ELEM_F4E2M1FN, 0.25, 0x0);
}

/* Significant bits of a kind's encoding (tf32 is 19 bits stored in 32). */
static unsigned kind_width(ElemKind k) { return k == ELEM_TF32 ? 19u : (unsigned)elem_bits(k); }

/* decode then encode gives back every non-NaN bit pattern. */
static void exhaustive_identity(ElemKind k) {
  uint64_t n = 1ull << kind_width(k);
  uint64_t checked = 0;
  for (uint64_t b = 0; b < n; b++) {
    double v = float_bits_to_double(k, b);
    if (isnan(v)) continue;
    uint64_t back = double_to_float_bits(k, v);
    if (back != b)
      fail_msg("%s: 0x%llx decodes to %.17g which encodes to 0x%llx", elem_name(k), (unsigned long long)b, v,
               (unsigned long long)back);
    checked++;
  }
  assert_true(checked > n / 2);
}

static void test_exhaustive_small_kinds(void **state) {
  (void)state;
  for (int i = 0; i < NMINIS; i++) exhaustive_identity(minis[i].k);
}

static void test_exhaustive_16_bit_kinds(void **state) {
  (void)state;
  exhaustive_identity(ELEM_F16);
  exhaustive_identity(ELEM_BF16);
}

static void test_exhaustive_tf32(void **state) {
  (void)state;
  exhaustive_identity(ELEM_TF32);
}

/* Positive values increase with the bit pattern; midpoints of neighbours
 * round to the even one; just off the midpoint rounds to the nearer one. */
static void test_monotonic_and_midpoints(void **state) {
  (void)state;
  for (int i = 0; i < NMINIS; i++) {
    const Mini *m = &minis[i];
    for (uint64_t b = 0; b < m->max_bits; b++) {
      double a = float_bits_to_double(m->k, b), c = float_bits_to_double(m->k, b + 1);
      if (!(a < c)) fail_msg("%s: 0x%llx (%g) !< next (%g)", elem_name(m->k), (unsigned long long)b, a, c);
      if (m->k == ELEM_F8E8M0FNU) continue; /* no mantissa bit to be even */
      double mid = (a + c) / 2, eps = (c - a) / 1024;
      enc(m->k, mid, (b & 1) ? b + 1 : b);
      enc(m->k, mid + eps, b + 1);
      enc(m->k, mid - eps, b);
    }
  }
}

/* XLA's f32 exp and log (common/scalar.h): special values, and within a
 * few ULP of the exact result over a sweep of every binade they handle. */
static void test_xla_exp_log(void **state) {
  (void)state;
  assert_true(scalar_xla_expf(0.0f) == 1.0f);
  assert_true(scalar_xla_expf(-INFINITY) == 0.0f);
  assert_true(scalar_xla_expf(INFINITY) == INFINITY);
  assert_true(isnan(scalar_xla_expf(NAN)));
  assert_true(scalar_xla_logf(1.0f) == 0.0f);
  assert_true(scalar_xla_logf(0.0f) == -INFINITY && scalar_xla_logf(-0.0f) == -INFINITY);
  assert_true(scalar_xla_logf(INFINITY) == INFINITY);
  assert_true(isnan(scalar_xla_logf(-1.0f)) && isnan(scalar_xla_logf(NAN)));
  for (float x = -87.0f; x < 88.0f; x += 0.01234f) {
    double want = exp((double)x), got = scalar_xla_expf(x);
    if (fabs(got - want) > 4 * FLT_EPSILON * want) fail_msg("exp(%.9g) = %.9g, want %.9g", x, got, want);
  }
  for (float x = 0x1p-126f; x < 0x1p127f; x *= 1.0371f) {
    double want = log((double)x), got = scalar_xla_logf(x);
    if (fabs(got - want) > 4 * FLT_EPSILON * fmax(fabs(want), 1.0)) fail_msg("log(%.9g) = %.9g, want %.9g", x, got, want);
  }
}

/* XLA's f32 expm1 (EmitExpm1 over XLA's exp and tanh): e^x - 1 exactly as
 * computed for |x| > 0.5, x where x/2 underflows, tanh(x/2) (e^x + 1)
 * between, which rounds differently from libm (e^0.25 - 1 and e^0.75 - 1
 * below are one ULP from the correctly rounded 0x1.22d79p-2 and
 * 0x1.1df3b6p+0), and within 3 ULP (relative 3 * 2^-23) of e^x - 1 over
 * [-20, 20]. */
static void test_xla_expm1(void **state) {
  (void)state;
  assert_true(scalar_xla_expm1f(0.0f) == 0.0f && signbit(scalar_xla_expm1f(-0.0f)));
  assert_true(scalar_xla_expm1f(0x1p-149f) == 0x1p-149f);
  assert_true(scalar_xla_expm1f(2.5f) == scalar_xla_expf(2.5f) - 1.0f);
  assert_true(scalar_xla_expm1f(-INFINITY) == -1.0f && scalar_xla_expm1f(INFINITY) == INFINITY);
  assert_true(isnan(scalar_xla_expm1f(NAN)));
  assert_true(scalar_xla_expm1f(0.25f) == 0x1.22d78ep-2f);
  assert_true(scalar_xla_expm1f(0.75f) == 0x1.1df3b8p+0f);
  assert_true(scalar_xla_tanhf(1e-5f) == 1e-5f && scalar_xla_tanhf(20.0f) == scalar_xla_tanhf(9.0f));
  for (float x = -20.0f; x < 20.0f; x += 0.000731f) {
    double want = expm1((double)x), got = scalar_xla_expm1f(x);
    if (fabs(got - want) > 3 * FLT_EPSILON * fabs(want)) fail_msg("expm1(%a) = %a, want %a", x, got, want);
  }
}

/* XLA's complex<f32> formulas: the products are fused (the unfused imaginary
 * part of this product is -9.20993805); power's special cases (0^0 = 1,
 * 0^c = 0 for c > 0, x^0 = 1 even for NaN x, 1^y = 1, inf^(+-2) = inf, 0)
 * and one element XLA computed (upstream pow_complex64 [0, 0]) bit for bit. */
static void test_xla_c64(void **state) {
  (void)state;
  ScalarC64 m = scalar_c64_mul(scalar_c64(3.16425037f, 3.70685697f), scalar_c64(0.586115181f, -3.5972445f));
  assert_true(m.re == 15.189086f && m.im == -9.2099371f);
  ScalarC64 zero = scalar_c64(0.0f, 0.0f), p = scalar_c64_pow(zero, zero);
  assert_true(p.re == 1.0f && p.im == 0.0f);
  p = scalar_c64_pow(zero, scalar_c64(2.5f, 0.0f));
  assert_true(p.re == 0.0f && p.im == 0.0f);
  p = scalar_c64_pow(scalar_c64(NAN, 1.0f), zero);
  assert_true(p.re == 1.0f && p.im == 0.0f);
  p = scalar_c64_pow(scalar_c64(1.0f, 0.0f), scalar_c64(NAN, 3.0f));
  assert_true(p.re == 1.0f && p.im == 0.0f);
  p = scalar_c64_pow(scalar_c64(INFINITY, 0.0f), scalar_c64(2.0f, 0.0f));
  assert_true(p.re == INFINITY && p.im == 0.0f);
  p = scalar_c64_pow(scalar_c64(INFINITY, 0.0f), scalar_c64(-2.0f, 0.0f));
  assert_true(p.re == 0.0f && p.im == 0.0f);
  p = scalar_c64_pow(scalar_c64(0.0f, 2.0f), scalar_c64(2.0f, 0.0f));
  assert_true(fabsf(p.re + 4.0f) < 1e-5f && fabsf(p.im) < 1e-5f);
  p = scalar_c64_pow(scalar_c64(-0x1.870144p+0f, 0x1.d9483ap+1f), scalar_c64(0x1.8e4262p+1f, -0x1.e6f23ap-1f));
  assert_true(p.re == 0x1.227598p+5f && p.im == -0x1.e1be78p+8f);
  assert_true(scalar_c64_abs(scalar_c64(3.0f, -4.0f)) == 5.0f && scalar_c64_abs(scalar_c64(INFINITY, INFINITY)) == INFINITY);
  assert_true(isnan(scalar_c64_abs(scalar_c64(1.0f, NAN))));
  ScalarC64 sn = scalar_c64_sin(scalar_c64(0.5f, 0.0f)), cs = scalar_c64_cos(scalar_c64(0.5f, 0.0f));
  assert_true(sn.re == (float)sin(0.5) && sn.im == 0.0f && cs.re == (float)cos(0.5) && cs.im == 0.0f);
}

int run_elem_tests(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_f16_exact),
      cmocka_unit_test(test_bf16_exact),
      cmocka_unit_test(test_tf32_f32_f64),
      cmocka_unit_test(test_round_to_nearest_even_ties),
      cmocka_unit_test(test_overflow_to_inf),
      cmocka_unit_test(test_subnormals),
      cmocka_unit_test(test_nan),
      cmocka_unit_test(test_nan_bits),
      cmocka_unit_test(test_minifloat_key_values),
      cmocka_unit_test(test_minifloat_overflow),
      cmocka_unit_test(test_fnuz_negative_zero),
      cmocka_unit_test(test_e8m0),
      cmocka_unit_test(test_f4_all_values),
      cmocka_unit_test(test_exhaustive_small_kinds),
      cmocka_unit_test(test_exhaustive_16_bit_kinds),
      cmocka_unit_test(test_exhaustive_tf32),
      cmocka_unit_test(test_monotonic_and_midpoints),
      cmocka_unit_test(test_xla_exp_log),
      cmocka_unit_test(test_xla_expm1),
      cmocka_unit_test(test_xla_c64),
  };
  return cmocka_run_group_tests_name("elem", tests, NULL, NULL);
}
