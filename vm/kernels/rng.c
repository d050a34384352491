/* rng_bit_generator with XLA's Threefry-2x32 and Philox-4x32 bit
 * generators, as XLA's RngBitGeneratorExpander: state[0] is the key;
 * Threefry uses state[1] as a 64-bit counter, Philox state[1..2] as a
 * 128-bit one.  Outputs of at most 32 bits take one 32-bit draw per element
 * (truncated), 64-bit outputs two. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vm/dtype.h"
#include "vm/internal.h"
#include "vm/kernels/kernels.h"

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

/* ------------------------------------------------------------------ */
/* rng (stablehlo.rng, the RNG opcode): implementation-defined by the
 * spec; here deterministic.  Element i of the n-th execution of the
 * instruction (n counted per chip from 0) is drawn from Philox-4x32-10
 * with key (k, k >> 32), k = seed ^ (chip * 0x9E3779B97F4A7C15) (so every
 * chip of a slice draws its own stream; chip 0's key is the seed), and
 * counter (i, i >> 32, n, n >> 32), seed being the compiler's (a hash of
 * the op's source location).
 *   UNIFORM, floats: a + (b - a) u, u of 53 bits in [0, 1), rounded to
 *     the element type (a when that rounds up to b);
 *   UNIFORM, integers and i1: a + (64 random bits mod (b - a)), a when b <= a;
 *   NORMAL (floats): a + b z, z by Box-Muller from two 53-bit uniforms. */

enum { RNG_UNIFORM, RNG_NORMAL };

bool check_rng(VmCheck *c) {
  const VmType *a = vm_check_in(c, 0), *b = vm_check_in(c, 1), *r = vm_check_out(c, 0);
  if (!vm_type_is_tensor(a) || !vm_type_is_tensor(b) || !vm_type_is_tensor(r) || a->rank != 0 || b->rank != 0)
    return vm_check_fail(c, "rng: a and b must be 0-d tensors and the result a tensor");
  if (a->elem != r->elem || b->elem != r->elem)
    return vm_check_fail(c, "rng: a, b and the result must have one element type");
  int64_t d = vm_field_int(c->ins, 0);
  if (d != RNG_UNIFORM && d != RNG_NORMAL) return vm_check_fail(c, "rng: distribution %lld not 0 or 1", (long long)d);
  if (!vm_elem_is_float(r->elem) && (d == RNG_NORMAL || !vm_elem_is_int(r->elem)))
    return vm_check_fail(c, "rng: %s of %s", d == RNG_NORMAL ? "NORMAL" : "UNIFORM", vm_elem_name(r->elem));
  return true;
}

/* A uniform double in [0, 1) from two 32-bit words (53 bits). */
static double unit53(uint32_t hi, uint32_t lo) {
  return (double)(((uint64_t)hi << 21) ^ (lo >> 11)) * (1.0 / 9007199254740992.0);
}

/* The value of element i: w is its Philox block. */
static void rng_elem(int dist, int elem, const VmTensor *in, void *out, int64_t i, const uint32_t w[4]) {
  if (vm_elem_is_float(elem)) {
    double a = vm_load_f64(elem, in[0].data, 0), b = vm_load_f64(elem, in[1].data, 0), v;
    if (dist == RNG_NORMAL) {
      double u1 = 1.0 - unit53(w[0], w[1]), u2 = unit53(w[2], w[3]); /* u1 in (0, 1] */
      v = a + b * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    } else {
      v = a + (b - a) * unit53(w[0], w[1]);
    }
    vm_store_f64(elem, out, i, v);
    if (dist == RNG_UNIFORM && b > a && vm_load_f64(elem, out, i) >= b) vm_store_f64(elem, out, i, a);
    return;
  }
  int64_t a = vm_load_i64(elem, in[0].data, 0), b = vm_load_i64(elem, in[1].data, 0);
  uint64_t range = (uint64_t)b - (uint64_t)a, bits = ((uint64_t)w[0] << 32) | w[1];
  vm_store_i64(elem, out, i, b > a ? (int64_t)((uint64_t)a + bits % range) : a);
}

int exec_rng(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  uint64_t **calls = (uint64_t **)vm_instr_cache(x);
  if (!calls) return vm_trap(x, "out of memory: rng");
  if (!*calls && !(*calls = calloc(1, sizeof(uint64_t)))) return vm_trap(x, "out of memory: rng");
  uint64_t n = (**calls)++, seed = (uint64_t)vm_field_int(ins, 1) ^ ((uint64_t)vm_exec_chip(x) * 0x9E3779B97F4A7C15ull);
  int dist = (int)vm_field_int(ins, 0), elem = out[0].type->elem;
  for (int64_t i = 0; i < out[0].type->count; i++) {
    uint32_t w[4] = {(uint32_t)i, (uint32_t)((uint64_t)i >> 32), (uint32_t)n, (uint32_t)(n >> 32)};
    philox4x32((uint32_t)seed, (uint32_t)(seed >> 32), w);
    rng_elem(dist, elem, in, out[0].data, i, w);
  }
  return VM_OK;
}
