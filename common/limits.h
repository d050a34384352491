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

#endif
