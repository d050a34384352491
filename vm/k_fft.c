/* fft (complex and real, 1-3 trailing dims, any length) and
 * rng_bit_generator (XLA's Threefry-2x32 and Philox-4x32 bit generators).
 *
 * FFTs are computed in double whatever the storage precision: radix-2 for
 * powers of two, a direct DFT for short other lengths and Bluestein's chirp
 * z-transform (through a power-of-two FFT) for long ones. */
#include <math.h>
#include <string.h>

#include "vm/dtype.h"
#include "vm/k_gemm.h"
#include "vm/kernels.h"

enum { FFT_FORWARD, FFT_INVERSE, FFT_REAL_FORWARD, FFT_REAL_INVERSE };
enum { FFT_TYPE, FFT_LENGTH };

#define FFT_DIRECT_MAX 64 /* non-power-of-two lengths up to this use the O(n^2) DFT */

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

/* ---- one-dimensional transforms ---- */

typedef struct FftPlan {
  int64_t n;
  int64_t m;       /* Bluestein: power-of-two convolution length, else 0 */
  Cpx *tw;         /* n twiddles exp(-2 pi i k / n) (m of them for Bluestein's inner FFT) */
  Cpx *chirp;      /* Bluestein: exp(-pi i k^2 / n), k < n */
  Cpx *chirp_fft;  /* Bluestein: FFT of the conjugate chirp sequence, m */
  Cpx *work;       /* scratch of max(n, 2m) */
  void *mem;
  size_t bytes;
} FftPlan;

static bool is_pow2(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

/* exp(-2 pi i k / n) for k < n, computed directly for accuracy. */
static void fill_twiddles(Cpx *tw, int64_t n) {
  for (int64_t k = 0; k < n; k++) {
    double a = -2.0 * M_PI * (double)k / (double)n;
    tw[k] = (Cpx){cos(a), sin(a)};
  }
}

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
  bool blue = !is_pow2(n) && n > FFT_DIRECT_MAX;
  if (blue) {
    p->m = 1;
    while (p->m < 2 * n - 1) p->m <<= 1;
  }
  int64_t ntw = blue ? p->m : n;
  int64_t count = ntw + (blue ? n + p->m + 2 * p->m : n);
  p->bytes = (size_t)count * sizeof(Cpx);
  p->mem = vm_scratch_alloc(x, p->bytes);
  if (!p->mem) return false;
  Cpx *m = p->mem;
  p->tw = m;
  fill_twiddles(p->tw, ntw);
  if (!blue) {
    p->work = m + ntw;
    return true;
  }
  p->chirp = m + ntw;
  p->chirp_fft = p->chirp + n;
  p->work = p->chirp_fft + p->m;
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

/* In-place forward DFT of x (length p->n), unscaled. */
static void plan_forward(FftPlan *p, Cpx *x) {
  int64_t n = p->n;
  if (is_pow2(n)) {
    fft_pow2(x, n, p->tw);
  } else if (!p->m) {
    Cpx *out = p->work;
    for (int64_t k = 0; k < n; k++) {
      double re = 0, im = 0;
      int64_t idx = 0;
      for (int64_t j = 0; j < n; j++) {
        Cpx w = p->tw[idx], v = x[j];
        re += v.re * w.re - v.im * w.im;
        im += v.re * w.im + v.im * w.re;
        idx += k;
        if (idx >= n) idx -= n;
      }
      out[k] = (Cpx){re, im};
    }
    memcpy(x, out, sizeof(Cpx) * (size_t)n);
  } else {
    int64_t m = p->m;
    Cpx *a = p->work;
    for (int64_t k = 0; k < n; k++) a[k] = cmul(x[k], p->chirp[k]);
    for (int64_t k = n; k < m; k++) a[k] = (Cpx){0, 0};
    fft_pow2(a, m, p->tw);
    /* inverse FFT of the product through conjugation */
    for (int64_t k = 0; k < m; k++) {
      Cpx v = cmul(a[k], p->chirp_fft[k]);
      a[k] = (Cpx){v.re, -v.im};
    }
    fft_pow2(a, m, p->tw);
    double scale = 1.0 / (double)m;
    for (int64_t k = 0; k < n; k++) {
      Cpx v = {a[k].re * scale, -a[k].im * scale};
      x[k] = cmul(v, p->chirp[k]);
    }
  }
}

/* In-place transform of x; the inverse is unscaled (conjugate trick). */
static void plan_run(FftPlan *p, Cpx *x, bool inverse) {
  if (inverse)
    for (int64_t k = 0; k < p->n; k++) x[k].im = -x[k].im;
  plan_forward(p, x);
  if (inverse)
    for (int64_t k = 0; k < p->n; k++) x[k].im = -x[k].im;
}

/* Transforms every line of w (a row-major array of `total` elements) along
 * an axis of length n and stride `stride`; line is scratch of n. */
static void transform_axis(FftPlan *p, Cpx *w, int64_t total, int64_t n, int64_t stride, bool inverse,
                           Cpx *line) {
  if (n <= 1 || total == 0) return;
  int64_t block = n * stride;
  for (int64_t o = 0; o < total; o += block)
    for (int64_t i = 0; i < stride; i++) {
      Cpx *base = w + o + i;
      if (stride == 1) {
        plan_run(p, base, inverse);
        continue;
      }
      for (int64_t j = 0; j < n; j++) line[j] = base[j * stride];
      plan_run(p, line, inverse);
      for (int64_t j = 0; j < n; j++) base[j * stride] = line[j];
    }
}

int exec_fft(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  const VmType *it = in[0].type, *ot = out[0].type;
  if (it->count == 0 || ot->count == 0) {
    if (ot->count) memset(out[0].data, 0, (size_t)ot->nbytes);
    return VM_OK;
  }
  int type = (int)vm_field_int(ins, FFT_TYPE);
  int64_t nl;
  const int64_t *len = vm_field_list(ins, FFT_LENGTH, &nl);
  int r = it->rank;
  bool inverse = type == FFT_INVERSE || type == FFT_REAL_INVERSE;
  /* the complex work array has the complex side's shape */
  const VmType *ct = type == FFT_REAL_FORWARD ? ot : it;
  int64_t total = ct->count;
  int64_t stride[TPUB_MAX_RANK], s = 1;
  for (int d = r - 1; d >= 0; d--) stride[d] = s, s *= ct->dims[d];
  int64_t maxlen = 1;
  for (int64_t k = 0; k < nl; k++) maxlen = len[k] > maxlen ? len[k] : maxlen;
  size_t wbytes = (size_t)total * sizeof(Cpx), lbytes = (size_t)maxlen * sizeof(Cpx);
  Cpx *w = vm_scratch_alloc(x, wbytes), *line = vm_scratch_alloc(x, lbytes);
  FftPlan plans[3];
  int nplans = 0;
  int status = VM_OK;
  if (!w || !line) {
    status = vm_trap(x, "out of memory: fft buffers");
    goto done;
  }
  for (int64_t k = 0; k < nl; k++) {
    plans[k].mem = NULL;
    if (!plan_init(x, &plans[k], len[k])) {
      status = vm_trap(x, "out of memory: fft plan");
      goto done;
    }
    nplans++;
  }
  FftPlan *last = &plans[nl - 1];
  int64_t L = len[nl - 1];
  if (type == FFT_REAL_FORWARD) {
    /* real rows of length L -> first L/2+1 coefficients */
    int64_t rows = it->count / L, half = L / 2 + 1;
    double *row = vm_scratch_alloc(x, (size_t)L * sizeof(double));
    if (!row) {
      status = vm_trap(x, "out of memory: fft buffers");
      goto done;
    }
    for (int64_t i = 0; i < rows; i++) {
      vm_to_f64(it->elem, in[0].data, i * L, L, row);
      for (int64_t j = 0; j < L; j++) line[j] = (Cpx){row[j], 0};
      plan_run(last, line, false);
      memcpy(w + i * half, line, sizeof(Cpx) * (size_t)half);
    }
    vm_scratch_free(x, row, (size_t)L * sizeof(double));
  } else {
    gemm_load(GK_C128, it->elem, in[0].data, it->count, w);
  }
  /* complex transforms over the fft axes: all of them for FFT/IFFT, the
   * leading ones for RFFT (after) and IRFFT (before the real step) */
  int64_t ncomplex = (type == FFT_FORWARD || type == FFT_INVERSE) ? nl : nl - 1;
  for (int64_t k = 0; k < ncomplex; k++) {
    int d = r - (int)nl + (int)k;
    transform_axis(&plans[k], w, total, ct->dims[d], stride[d], inverse, line);
  }
  double scale = 1;
  if (inverse)
    for (int64_t k = 0; k < nl; k++) scale *= (double)len[k];
  if (type == FFT_REAL_INVERSE) {
    /* Hermitian rows of L/2+1 coefficients -> L reals */
    int64_t half = L / 2 + 1, rows = total / half;
    double *res = vm_scratch_alloc(x, (size_t)L * sizeof(double));
    if (!res) {
      status = vm_trap(x, "out of memory: fft buffers");
      goto done;
    }
    for (int64_t i = 0; i < rows; i++) {
      const Cpx *src = w + i * half;
      for (int64_t j = 0; j < half && j < L; j++) line[j] = src[j];
      for (int64_t j = half; j < L; j++) line[j] = (Cpx){src[L - j].re, -src[L - j].im};
      plan_run(last, line, true);
      for (int64_t j = 0; j < L; j++) res[j] = line[j].re / scale;
      vm_from_f64(ot->elem, out[0].data, i * L, L, res);
    }
    vm_scratch_free(x, res, (size_t)L * sizeof(double));
  } else {
    if (inverse)
      for (int64_t i = 0; i < total; i++) w[i].re /= scale, w[i].im /= scale;
    gemm_store(GK_C128, ot->elem, w, total, out[0].data);
  }
done:
  for (int k = 0; k < nplans; k++) plan_free(x, &plans[k]);
  if (w) vm_scratch_free(x, w, wbytes);
  if (line) vm_scratch_free(x, line, lbytes);
  return status;
}

/* ------------------------------------------------------------------ */
/* rng_bit_generator, as XLA's RngBitGeneratorExpander: state[0] is the key;
 * Threefry uses state[1] as a 64-bit counter, Philox state[1..2] as a
 * 128-bit one.  Outputs of at most 32 bits take one 32-bit draw per element
 * (truncated), 64-bit outputs two. */

enum { RNG_DEFAULT, RNG_THREE_FRY, RNG_PHILOX };

/* XLA's CPU back end expands DEFAULT as Philox. */
static int rng_algorithm(int64_t a) { return a == RNG_THREE_FRY ? RNG_THREE_FRY : RNG_PHILOX; }

bool check_rng_bit_generator(VmCheck *c) {
  const VmType *st = vm_check_in(c, 0), *ost = vm_check_out(c, 0), *res = vm_check_out(c, 1);
  if (!vm_type_is_tensor(st) || !vm_type_is_tensor(ost) || !vm_type_is_tensor(res))
    return vm_check_fail(c, "rng_bit_generator: state and results must be tensors");
  int64_t alg = vm_field_int(c->ins, 0);
  if (alg < 0 || alg > 2) return vm_check_fail(c, "rng_bit_generator: algorithm %lld not in 0..2", (long long)alg);
  if (st->elem != TPUB_U64 || st->rank != 1)
    return vm_check_fail(c, "rng_bit_generator: the state must be a 1-d ui64 tensor");
  if (!vm_type_equal(st, ost)) return vm_check_fail(c, "rng_bit_generator: output state type must equal the state's");
  int64_t n = st->dims[0];
  if (rng_algorithm(alg) == RNG_THREE_FRY ? n != 2 : (n != 2 && n != 3))
    return vm_check_fail(c, "rng_bit_generator: state of %lld elements; Threefry needs 2, Philox 2 or 3",
                         (long long)n);
  if (!vm_elem_is_int(res->elem) && !vm_elem_is_float(res->elem))
    return vm_check_fail(c, "rng_bit_generator: output must have an integer or float element type");
  return true;
}

static inline uint32_t rotl32(uint32_t v, int r) { return (v << r) | (v >> (32 - r)); }

/* Threefry-2x32 with 20 rounds (Random123; XLA's ThreeFry2x32). */
static void threefry2x32(uint32_t k0, uint32_t k1, uint32_t *x0, uint32_t *x1) {
  static const int rot[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  uint32_t ks[3] = {k0, k1, 0x1BD11BDAu ^ k0 ^ k1};
  uint32_t a = *x0 + ks[0], b = *x1 + ks[1];
  for (int block = 0; block < 5; block++) {
    const int *rr = rot + (block % 2) * 4;
    for (int i = 0; i < 4; i++) {
      a += b;
      b = rotl32(b, rr[i]);
      b ^= a;
    }
    a += ks[(block + 1) % 3];
    b += ks[(block + 2) % 3] + (uint32_t)(block + 1);
  }
  *x0 = a;
  *x1 = b;
}

/* Philox-4x32 with 10 rounds (Random123; XLA's Philox4x32). */
static void philox4x32(uint32_t k0, uint32_t k1, uint32_t ctr[4]) {
  for (int round = 0; round < 10; round++) {
    uint64_t p0 = (uint64_t)0xD2511F53u * ctr[0], p1 = (uint64_t)0xCD9E8D57u * ctr[2];
    uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
    uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
    ctr[0] = hi1 ^ ctr[1] ^ k0;
    ctr[1] = lo1;
    ctr[2] = hi0 ^ ctr[3] ^ k1;
    ctr[3] = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
}

/* Stores raw random bits v (of at least the element's width) as element i. */
static void store_bits(int elem, void *data, int64_t i, uint64_t v) {
  int bytes = vm_elem_bytes(elem), bits = vm_elem_bits(elem);
  if (vm_elem_is_int(elem)) {
    vm_store_i64(elem, data, i, (int64_t)v); /* wraps and extends to the width */
    return;
  }
  if (bits < 64) v &= ((uint64_t)1 << bits) - 1;
  switch (bytes) {
  case 1: ((uint8_t *)data)[i] = (uint8_t)v; break;
  case 2: ((uint16_t *)data)[i] = (uint16_t)v; break;
  case 4: ((uint32_t *)data)[i] = (uint32_t)v; break;
  default: ((uint64_t *)data)[i] = v; break;
  }
}

int exec_rng_bit_generator(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  (void)x;
  const uint64_t *state = in[0].data;
  int64_t nstate = in[0].type->dims[0];
  uint64_t key = state[0];
  uint64_t s1 = state[1], s2 = nstate > 2 ? state[2] : 0;
  const VmType *rt = out[1].type;
  int elem = rt->elem;
  int64_t count = rt->count;
  bool wide = vm_elem_bits(elem) > 32;
  uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
  uint64_t new_state[3] = {key, s1, s2};
  if (rng_algorithm(vm_field_int(ins, 0)) == RNG_THREE_FRY) {
    if (wide) {
      for (int64_t i = 0; i < count; i++) {
        uint64_t ctr = s1 + (uint64_t)i;
        uint32_t a = (uint32_t)ctr, b = (uint32_t)(ctr >> 32);
        threefry2x32(k0, k1, &a, &b);
        store_bits(elem, out[1].data, i, (uint64_t)a | (uint64_t)b << 32);
      }
      new_state[1] = s1 + (uint64_t)count;
    } else {
      /* the first half of the elements take the first words of the pairs, the rest the second */
      int64_t half = (count + 1) / 2;
      for (int64_t i = 0; i < half; i++) {
        uint64_t ctr = s1 + (uint64_t)i;
        uint32_t a = (uint32_t)ctr, b = (uint32_t)(ctr >> 32);
        threefry2x32(k0, k1, &a, &b);
        store_bits(elem, out[1].data, i, a);
        if (half + i < count) store_bits(elem, out[1].data, half + i, b);
      }
      new_state[1] = s1 + (uint64_t)half;
    }
  } else {
    /* 128-bit counter (s2:s1); each counter value gives four 32-bit words */
    int64_t words = wide ? 2 * count : count, blocks = (words + 3) / 4;
    for (int64_t blk = 0; blk < blocks; blk++) {
      uint64_t lo = s1 + (uint64_t)blk, hi = s2 + (lo < s1);
      uint32_t ctr[4] = {(uint32_t)lo, (uint32_t)(lo >> 32), (uint32_t)hi, (uint32_t)(hi >> 32)};
      philox4x32(k0, k1, ctr);
      for (int j = 0; j < 4; j++) {
        int64_t word = blk * 4 + j;
        if (word >= words) break;
        if (!wide) {
          store_bits(elem, out[1].data, word, ctr[j]);
        } else if (j % 2 == 0) {
          store_bits(elem, out[1].data, word / 2, (uint64_t)ctr[j] | (uint64_t)ctr[j + 1] << 32);
        }
      }
    }
    uint64_t lo = s1 + (uint64_t)blocks;
    new_state[1] = lo;
    new_state[2] = s2 + (lo < s1);
  }
  memcpy(out[0].data, new_state, sizeof(uint64_t) * (size_t)nstate);
  return VM_OK;
}
