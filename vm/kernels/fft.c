/* fft (complex and real, 1-3 trailing dims, any length).
 *
 * FFTs reproduce XLA's CPU back end (DUCC, a descendant of pocketfft): the
 * transforms run in the storage precision with pocketfft's passes and
 * twiddles (vm/kernels/fft_pocket.inc).  Lengths with a prime factor above
 * FFT_GENERIC_MAX use Bluestein's chirp z-transform in double instead. */
#include <math.h>
#include <string.h>

#include "vm/dtype.h"
#include "vm/kernels/gemm.h"
#include "vm/kernels/kernels.h"

/* Exact IEEE operations in the order written: no contraction into FMAs
 * (GCC does not contract in ISO C mode). */
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

enum { FFT_FORWARD, FFT_INVERSE, FFT_REAL_FORWARD, FFT_REAL_INVERSE };
enum { FFT_TYPE, FFT_LENGTH };

typedef struct Cpx {
  double re, im;
} Cpx;

static inline Cpx cmul(Cpx a, Cpx b) { return (Cpx){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }

bool check_fft(VmCheck *c) {
  const VmType *in = vm_check_in(c, 0), *res = vm_check_out(c, 0);
  if (!vm_type_is_tensor(in) || !vm_type_is_tensor(res))
    return vm_check_fail(c, "fft: operand and result must be tensors");
  int64_t type = vm_field_int(c->ins, FFT_TYPE), nl;
  const int64_t *len = vm_field_list(c->ins, FFT_LENGTH, &nl);
  if (type < 0 || type > 3) return vm_check_fail(c, "fft: fft_type %lld not in 0..3", (long long)type);
  if (nl < 1 || nl > 3 || nl > in->rank)
    return vm_check_fail(c, "fft: fft_length must have 1 to min(3, rank) entries, has %lld", (long long)nl);
  for (int64_t i = 0; i < nl; i++)
    if (len[i] < 0) return vm_check_fail(c, "fft: negative fft_length %lld", (long long)len[i]);
  bool in_complex = vm_elem_class(in->elem) == TPUB_CLASS_COMPLEX;
  bool res_complex = vm_elem_class(res->elem) == TPUB_CLASS_COMPLEX;
  switch (type) {
  case FFT_FORWARD:
  case FFT_INVERSE:
    if (!in_complex || res->elem != in->elem)
      return vm_check_fail(c, "fft: FFT/IFFT need the same complex operand and result types");
    break;
  case FFT_REAL_FORWARD:
    if ((in->elem != TPUB_F32 && in->elem != TPUB_F64) || !res_complex ||
        vm_elem_complex_part(res->elem) != in->elem)
      return vm_check_fail(c, "fft: RFFT takes f32/f64 and gives the complex type of that precision");
    break;
  default:
    if ((res->elem != TPUB_F32 && res->elem != TPUB_F64) || !in_complex ||
        vm_elem_complex_part(in->elem) != res->elem)
      return vm_check_fail(c, "fft: IRFFT takes complex and gives the real type of that precision");
    break;
  }
  if (res->rank != in->rank) return vm_check_fail(c, "fft: operand and result ranks differ");
  int r = in->rank;
  for (int d = 0; d < r; d++) {
    int64_t want_in = in->dims[d], want_res = in->dims[d];
    int64_t k = d - (r - nl); /* index into fft_length, when >= 0 */
    if (k >= 0) {
      int64_t L = len[k], half = L == 0 ? 0 : L / 2 + 1;
      bool last = d == r - 1;
      want_in = type == FFT_REAL_INVERSE && last ? half : L;
      want_res = type == FFT_REAL_FORWARD && last ? half : L;
    }
    if (in->dims[d] != want_in)
      return vm_check_fail(c, "fft: operand dim %d is %lld, expected %lld", d, (long long)in->dims[d],
                           (long long)want_in);
    if (res->dims[d] != want_res)
      return vm_check_fail(c, "fft: result dim %d is %lld, expected %lld", d, (long long)res->dims[d],
                           (long long)want_res);
  }
  return true;
}

/* ---- Bluestein's algorithm, in double, for lengths with large prime factors ---- */

typedef struct FftPlan {
  int64_t n;
  int64_t m;      /* power-of-two convolution length >= 2n - 1 */
  Cpx *tw;        /* m twiddles exp(-2 pi i k / m) */
  Cpx *chirp;     /* exp(-pi i k^2 / n), k < n */
  Cpx *chirp_fft; /* FFT of the conjugate chirp sequence, m */
  Cpx *work;      /* scratch of m */
  void *mem;
  size_t bytes;
} FftPlan;

/* In-place forward radix-2 FFT of length n (a power of two) with twiddles
 * tw of length n. */
static void fft_pow2(Cpx *x, int64_t n, const Cpx *tw) {
  for (int64_t i = 1, j = 0; i < n; i++) {
    int64_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      Cpx t = x[i];
      x[i] = x[j];
      x[j] = t;
    }
  }
  for (int64_t len = 2; len <= n; len <<= 1) {
    int64_t half = len >> 1, step = n / len;
    for (int64_t i = 0; i < n; i += len)
      for (int64_t k = 0; k < half; k++) {
        Cpx w = tw[k * step], u = x[i + k], v = cmul(x[i + k + half], w);
        x[i + k] = (Cpx){u.re + v.re, u.im + v.im};
        x[i + k + half] = (Cpx){u.re - v.re, u.im - v.im};
      }
  }
}

static void plan_free(VmExec *x, FftPlan *p) {
  if (p->mem) vm_scratch_free(x, p->mem, p->bytes);
  memset(p, 0, sizeof *p);
}

/* Prepares transforms of length n > 0; false when out of memory. */
static bool plan_init(VmExec *x, FftPlan *p, int64_t n) {
  memset(p, 0, sizeof *p);
  p->n = n;
  p->m = 1;
  while (p->m < 2 * n - 1) p->m <<= 1;
  p->bytes = (size_t)(n + 3 * p->m) * sizeof(Cpx);
  p->mem = vm_scratch_alloc(x, p->bytes);
  if (!p->mem) return false;
  p->tw = p->mem;
  p->chirp = p->tw + p->m;
  p->chirp_fft = p->chirp + n;
  p->work = p->chirp_fft + p->m;
  for (int64_t k = 0; k < p->m; k++) {
    double a = -2.0 * M_PI * (double)k / (double)p->m;
    p->tw[k] = (Cpx){cos(a), sin(a)};
  }
  /* k^2 mod 2n, kept exact by updating (k+1)^2 = k^2 + 2k + 1 */
  int64_t sq = 0, mod = 2 * n;
  for (int64_t k = 0; k < n; k++) {
    double a = -M_PI * (double)sq / (double)n;
    p->chirp[k] = (Cpx){cos(a), sin(a)};
    sq = (sq + 2 * k + 1) % mod;
  }
  Cpx *b = p->chirp_fft;
  for (int64_t k = 0; k < p->m; k++) b[k] = (Cpx){0, 0};
  for (int64_t k = 0; k < n; k++) {
    Cpx v = {p->chirp[k].re, -p->chirp[k].im};
    b[k] = v;
    if (k) b[p->m - k] = v;
  }
  fft_pow2(b, p->m, p->tw);
  return true;
}

/* In-place transform of x (length p->n), unscaled; the inverse through
 * conjugation. */
static void plan_run(FftPlan *p, Cpx *x, bool inverse) {
  int64_t n = p->n, m = p->m;
  Cpx *a = p->work;
  for (int64_t k = 0; k < n; k++) a[k] = cmul((Cpx){x[k].re, inverse ? -x[k].im : x[k].im}, p->chirp[k]);
  for (int64_t k = n; k < m; k++) a[k] = (Cpx){0, 0};
  fft_pow2(a, m, p->tw);
  for (int64_t k = 0; k < m; k++) {
    Cpx v = cmul(a[k], p->chirp_fft[k]);
    a[k] = (Cpx){v.re, -v.im};
  }
  fft_pow2(a, m, p->tw);
  double scale = 1.0 / (double)m;
  for (int64_t k = 0; k < n; k++) {
    Cpx v = cmul((Cpx){a[k].re * scale, -a[k].im * scale}, p->chirp[k]);
    x[k] = (Cpx){v.re, inverse ? -v.im : v.im};
  }
}

/* ---- pocketfft-compatible transforms ---- */

#define FFT_MAX_FACTORS 64
#define FFT_GENERIC_MAX 109 /* largest prime factor handled by the generic passes */

/* Factors of n in pocketfft's order: 8s (complex only) and 4s, a 2 moved
 * to the front, then odd factors ascending. */
static int fft_factorize(int64_t n, bool complex_plan, int64_t *f) {
  int nf = 0;
  if (complex_plan)
    while (n % 8 == 0) f[nf++] = 8, n /= 8;
  while (n % 4 == 0) f[nf++] = 4, n /= 4;
  if (n % 2 == 0) {
    n /= 2;
    f[nf++] = 2;
    int64_t t = f[0];
    f[0] = f[nf - 1];
    f[nf - 1] = t;
  }
  for (int64_t d = 3; d * d <= n; d += 2)
    while (n % d == 0) f[nf++] = d, n /= d;
  if (n > 1) f[nf++] = n;
  return nf;
}

static int64_t fft_largest_prime_factor(int64_t n) {
  int64_t f[FFT_MAX_FACTORS], best = 1;
  int nf = fft_factorize(n, false, f);
  for (int i = 0; i < nf; i++) {
    int64_t v = f[i] == 4 ? 2 : f[i];
    best = v > best ? v : best;
  }
  return best;
}

/* DUCC's UnityRoots: exp(2 pi i k / n) as the product of two table entries
 * v1[k & mask] * v2[k >> shift], each computed in double from an angle
 * reduced to the first octant. */
typedef struct FftRootPair {
  double r, i;
} FftRootPair;

typedef struct FftRoots {
  int64_t n, mask;
  int shift;
  FftRootPair *v1, *v2;
  size_t bytes;
} FftRoots;

/* exp(2 pi i x / n) by octant symmetry, ang = pi / (4 n). */
static FftRootPair fft_root_octant(int64_t x, int64_t n, double ang) {
  x <<= 3;
  if (x < 4 * n) {
    if (x < 2 * n) {
      if (x < n) return (FftRootPair){cos((double)x * ang), sin((double)x * ang)};
      return (FftRootPair){sin((double)(2 * n - x) * ang), cos((double)(2 * n - x) * ang)};
    }
    x -= 2 * n;
    if (x < n) return (FftRootPair){-sin((double)x * ang), cos((double)x * ang)};
    return (FftRootPair){-cos((double)(2 * n - x) * ang), sin((double)(2 * n - x) * ang)};
  }
  x = 8 * n - x;
  if (x < 2 * n) {
    if (x < n) return (FftRootPair){cos((double)x * ang), -sin((double)x * ang)};
    return (FftRootPair){sin((double)(2 * n - x) * ang), -cos((double)(2 * n - x) * ang)};
  }
  x -= 2 * n;
  if (x < n) return (FftRootPair){-sin((double)x * ang), -cos((double)x * ang)};
  return (FftRootPair){-cos((double)(2 * n - x) * ang), -sin((double)(2 * n - x) * ang)};
}

static bool fft_roots_init(VmExec *x, FftRoots *r, int64_t n) {
  memset(r, 0, sizeof *r);
  r->n = n;
  double ang = (double)(0.25L * 3.141592653589793238462643383279502884197L / (long double)n);
  int64_t nval = (n + 2) / 2;
  r->shift = 1;
  while (((int64_t)1 << r->shift) * ((int64_t)1 << r->shift) < nval) r->shift++;
  r->mask = ((int64_t)1 << r->shift) - 1;
  int64_t n1 = r->mask + 1, n2 = (nval + r->mask) / (r->mask + 1);
  r->bytes = (size_t)(n1 + n2) * sizeof(FftRootPair);
  r->v1 = vm_scratch_alloc(x, r->bytes);
  if (!r->v1) return false;
  r->v2 = r->v1 + n1;
  r->v1[0] = r->v2[0] = (FftRootPair){1, 0};
  for (int64_t i = 1; i < n1; i++) r->v1[i] = fft_root_octant(i, n, ang);
  for (int64_t i = 1; i < n2; i++) r->v2[i] = fft_root_octant(i * (r->mask + 1), n, ang);
  return true;
}

static void fft_roots_free(VmExec *x, FftRoots *r) {
  if (r->v1) vm_scratch_free(x, r->v1, r->bytes);
  r->v1 = NULL;
}

#define PT float
#define PNAME(x) x##_f32
#include "vm/kernels/fft_pocket.inc"
#undef PT
#undef PNAME

#define PT double
#define PNAME(x) x##_f64
#include "vm/kernels/fft_pocket.inc"
#undef PT
#undef PNAME

int exec_fft(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  const VmType *it = in[0].type, *ot = out[0].type;
  if (it->count == 0 || ot->count == 0) {
    if (ot->count) memset(out[0].data, 0, (size_t)ot->nbytes);
    return VM_OK;
  }
  int type = (int)vm_field_int(ins, FFT_TYPE);
  int64_t nl;
  const int64_t *len = vm_field_list(ins, FFT_LENGTH, &nl);
  bool dbl = it->elem == TPUB_F64 || it->elem == TPUB_C128;
  return dbl ? fft_exec_f64(x, type, len, (int)nl, in, out) : fft_exec_f32(x, type, len, (int)nl, in, out);
}
