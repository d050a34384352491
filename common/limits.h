/* Limits that the compiler and the VM enforce alike (header-only: every
 * layer may include common/, DESIGN.md section 1). */
#ifndef COMMON_LIMITS_H
#define COMMON_LIMITS_H

/* The longest chain of nested calls tpurun runs, counting every function
 * and every region body the back end makes a function of (while, if, case,
 * reduce, sort, ... and func.call, composite and run_parallel callees) as
 * one level: a function alone is 1 deep.  The .tpub loader refuses a
 * deeper call graph, or one with a cycle; the IR verifier refuses both
 * before anything is compiled (ir/verify_calls.c). */
#define TPU_MAX_CALL_DEPTH 256

/* The {i} placeholder at p of a shape assertion's error_message (JAX's
 * format): i when p starts "{digits}" with i < n_values, with *end just past
 * the '}'; -1 otherwise (any other text, or an index out of range, however
 * many digits it has). */
static inline long tpu_message_placeholder(const char *p, long n_values, const char **end) {
  if (p[0] != '{' || p[1] < '0' || p[1] > '9') return -1;
  long i = 0;
  const char *q = p + 1;
  for (; *q >= '0' && *q <= '9'; q++) {
    if (i >= n_values) return -1;
    i = i * 10 + (*q - '0');
  }
  if (*q != '}' || i >= n_values) return -1;
  *end = q + 1;
  return i;
}

#endif
