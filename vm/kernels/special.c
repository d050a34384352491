/* Special functions of CHLO, in double precision (elementwise.c rounds
 * the results to narrower element types): lgamma, digamma, erf_inv,
 * bessel_i1e, polygamma and the Hurwitz zeta function.  Edge cases follow
 * XLA's decompositions (e.g. digamma at a pole is NaN). */
#include <math.h>

#include "vm/kernels/kernels.h"

#define PI 3.14159265358979323846

/* log |gamma(x)|, without touching the global signgam. */
double vm_sf_lgamma(double x) {
  int sign;
  return lgamma_r(x, &sign);
}

/* cot(pi x), reduced so that large |x| keeps its precision. */
static double cot_pi(double x) {
  double r = x - floor(x); /* cot has period 1 in x */
  return 1.0 / tan(PI * r);
}

double vm_sf_digamma(double x) {
  if (isnan(x)) return x;
  if (x <= 0 && x == floor(x)) return NAN; /* poles; also -inf */
  if (isinf(x)) return x;
  double result = 0;
  if (x < 0.5) { /* reflection: psi(x) = psi(1 - x) - pi cot(pi x) */
    result = -PI * cot_pi(x);
    x = 1 - x;
  }
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  /* Asymptotic series: ln x - 1/2x - sum B_2k / (2k x^2k). */
  double f = 1 / (x * x);
  double t = -1 / 12.0;
  t = 691 / 32760.0 + f * t;
  t = -1 / 132.0 + f * t;
  t = 1 / 240.0 + f * t;
  t = -1 / 252.0 + f * t;
  t = 1 / 120.0 + f * t;
  t = f * (-1 / 12.0 + f * t);
  return result + log(x) - 0.5 / x + t;
}

/* Giles' single-precision approximation, then Newton steps on erf (or on
 * erfc near +-1, where 1 - |y| is exact). */
double vm_sf_erf_inv(double y) {
  if (isnan(y)) return y;
  double ay = fabs(y);
  if (ay > 1) return NAN;
  if (ay == 1) return y * INFINITY;
  if (y == 0) return y;
  double w = -log((1 - ay) * (1 + ay)), p;
  if (w < 5) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = sqrt(w) - 3;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  double x = p * ay;
  const double two_over_sqrt_pi = 1.12837916709551257390;
  for (int it = 0; it < 3; it++) {
    double d = two_over_sqrt_pi * exp(-x * x);
    if (d == 0) break;
    double err = ay < 0.5 ? erf(x) - ay : (1 - ay) - erfc(x);
    x -= err / d;
  }
  return y < 0 ? -x : x;
}

/* exp(-|x|) I1(x): the power series (all terms positive, so accurate) for
 * moderate |x|, the asymptotic expansion beyond. */
double vm_sf_bessel_i1e(double x) {
  if (isnan(x)) return x;
  double z = fabs(x), r;
  if (z == 0) return x;
  if (isinf(z)) {
    r = 0;
  } else if (z < 50) {
    double h = z / 2, h2 = h * h, term = h, sum = h;
    for (int k = 1; k < 500; k++) {
      term *= h2 / ((double)k * (double)(k + 1));
      sum += term;
      if (term < sum * 1e-17) break;
    }
    r = sum * exp(-z);
  } else {
    /* I1(z) e^-z ~ 1/sqrt(2 pi z) sum_k (-1)^k prod_{j<=k} (4 - (2j-1)^2) / (k! (8z)^k) */
    double term = 1, sum = 1;
    for (int k = 1; k < 60; k++) {
      double odd = 2.0 * k - 1;
      double next = -term * (4 - odd * odd) / (k * 8 * z);
      if (fabs(next) >= fabs(term)) break;
      term = next;
      sum += term;
      if (fabs(term) < 1e-17 * fabs(sum)) break;
    }
    r = sum / sqrt(2 * PI * z);
  }
  return x < 0 ? -r : r;
}

/* Hurwitz zeta(x, q) = sum_k (k + q)^-x, by Euler-Maclaurin summation
 * (Cephes' zeta). */
double vm_sf_zeta(double x, double q) {
  /* (2k)! / B_2k for k = 1..12 (B_2k the Bernoulli numbers) */
  static const double A[] = {
      2.0 / (1.0 / 6),
      24.0 / (-1.0 / 30),
      720.0 / (1.0 / 42),
      40320.0 / (-1.0 / 30),
      3628800.0 / (5.0 / 66),
      479001600.0 / (-691.0 / 2730),
      87178291200.0 / (7.0 / 6),
      20922789888000.0 / (-3617.0 / 510),
      6402373705728000.0 / (43867.0 / 798),
      2432902008176640000.0 / (-174611.0 / 330),
      1124000727777607680000.0 / (854513.0 / 138),
      620448401733239439360000.0 / (-236364091.0 / 2730),
  };
  const double machep = 1.11022302462515654042e-16;
  if (isnan(x) || isnan(q)) return NAN;
  if (x == 1) return INFINITY;
  if (x < 1) return NAN;
  if (q <= 0) {
    if (q == floor(q)) return INFINITY;
    if (x != floor(x)) return NAN; /* q^-x would be complex */
  }
  if (isinf(x)) return q == 1 ? 1 : (q > 1 ? 0 : INFINITY);
  double s = pow(q, -x), a = q, b = 0;
  int i = 0;
  while (i < 9 || a <= 9.0) {
    i++;
    a += 1.0;
    b = pow(a, -x);
    s += b;
    if (fabs(b / s) < machep) return s;
  }
  double w = a;
  s += b * w / (x - 1);
  s -= 0.5 * b;
  a = 1.0;
  double k = 0;
  for (i = 0; i < 12; i++) {
    a *= x + k;
    b /= w;
    double t = a * b / A[i];
    s += t;
    if (fabs(t / s) < machep) break;
    k += 1.0;
    a *= x + k;
    b /= w;
    k += 1.0;
  }
  return s;
}

/* polygamma(n, x): digamma for n = 0, else (-1)^(n+1) n! zeta(n+1, x);
 * NaN unless n is a non-negative integer. */
double vm_sf_polygamma(double n, double x) {
  if (isnan(n) || isnan(x) || n < 0 || n != floor(n)) return NAN;
  if (n == 0) return vm_sf_digamma(x);
  double fact = exp(vm_sf_lgamma(n + 1)); /* n! */
  if (n < 30) {
    fact = 1;
    for (int k = 2; k <= (int)n; k++) fact *= k;
  }
  double sign = fmod(n, 2) == 1 ? 1 : -1; /* (-1)^(n+1) */
  return sign * fact * vm_sf_zeta(n + 1, x);
}
