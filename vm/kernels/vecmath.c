/* libmvec's AVX2 f32 functions for the element-wise kernels (vecmath.h).
 * glibc declares them for its own vectorizer only under -ffast-math, so
 * they are declared here by their vector-ABI names (_ZGVdN8v_: AVX2, 8
 * lanes, one vector argument). */
#include "vm/kernels/vecmath.h"

#include <stdlib.h>
#include <string.h>

#include "vm/opinfo.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define VECMATH_AVX2 __attribute__((target("avx2,fma")))

typedef __m256 (*Vec8Fn)(__m256);
#define DECLARE(f) VECMATH_AVX2 __m256 _ZGVdN8v_##f(__m256);
DECLARE(erff)
DECLARE(erfcf)
DECLARE(tanhf)
DECLARE(sinf)
DECLARE(cosf)
DECLARE(log1pf)
DECLARE(expm1f)
#undef DECLARE

/* The vector function of an opcode, or NULL. */
static Vec8Fn vector_of(int opcode) {
  switch (opcode) {
  case VM_OP_ERF: return _ZGVdN8v_erff;
  case VM_OP_ERFC: return _ZGVdN8v_erfcf;
  case VM_OP_TANH: return _ZGVdN8v_tanhf;
  case VM_OP_SINE: return _ZGVdN8v_sinf;
  case VM_OP_COSINE: return _ZGVdN8v_cosf;
  case VM_OP_LOG_PLUS_ONE: return _ZGVdN8v_log1pf;
  case VM_OP_EXPONENTIAL_MINUS_ONE: return _ZGVdN8v_expm1f;
  default: return NULL;
  }
}

/* Whole groups of eight, then the rest padded with zeros to one group. */
VECMATH_AVX2 static void apply(Vec8Fn f, const float *a, float *o, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(o + i, f(_mm256_loadu_ps(a + i)));
  if (i == n) return;
  float in[8] = {0}, out[8];
  memcpy(in, a + i, sizeof(float) * (size_t)(n - i));
  _mm256_storeu_ps(out, f(_mm256_loadu_ps(in)));
  memcpy(o + i, out, sizeof(float) * (size_t)(n - i));
}

/* AVX2 and FMA present and not refused by TPU_VM_ISA=generic. */
static bool vector_allowed(void) {
  const char *isa = getenv("TPU_VM_ISA");
  if (isa && strcmp(isa, "generic") == 0) return false;
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

bool vecmath_f32(int opcode, const float *a, float *o, int64_t n) {
  Vec8Fn f = vector_of(opcode);
  if (!f || !vector_allowed()) return false;
  apply(f, a, o, n);
  return true;
}
#else
bool vecmath_f32(int opcode, const float *a, float *o, int64_t n) {
  (void)opcode, (void)a, (void)o, (void)n;
  return false;
}
#endif
