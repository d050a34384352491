/* Host-side values for tpurun: input specs, printing, .npy files, seeded
 * random data and the comparisons of the check ops (vm/io/literal.c,
 * vm/io/npy.c, vm/io/compare.c). */
#ifndef VM_IO_H
#define VM_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "vm/vm.h"

/* Status codes, the exit codes of DESIGN.md §4. */
enum VmIoStatus { VM_IO_OK = 0, VM_IO_USAGE = 1, VM_IO_BAD_FILE = 3 };

/* Parses one --input SPEC for a parameter of type `type` into *out (out->type
 * = type; out->data malloc'ed, freed with vm_value_free).  Forms:
 *   2x3xf32=1,2,3,4,5,6    f32=1.5    2x2xi32=[[1 2][3 4]]    2x2xi32=[1 2][3 4]
 *   3xi1=true,false,1      4xf32=2.5 (one value: splat)    2x2xcomplex<f32>=(1,2) ...
 *   @file.npy    random    random:SEED
 * Values may be separated by spaces or commas; floats accept inf, -inf, nan
 * and hex bit patterns 0x7fc00000.  `index` is the parameter number, used to
 * derive the seed of "random".  A spec whose type differs from `type`, a wrong
 * element count or an unparsable number is VM_IO_USAGE with a reason in err;
 * an unreadable or malformed .npy is VM_IO_BAD_FILE. */
int vm_parse_input(const char *spec, const VmType *type, int index, VmValue *out, char *err,
                   size_t errlen);

/* Prints "2x2xf32=[1 2][3 4]" (scalars "f32=1.5"; tuples as "(" members ")"):
 * floats in the shortest form that reads back to the same bits in their
 * type, NaN as nan, complex as (re,im), i1 as true/false. */
void vm_print_value(FILE *out, const VmValue *v);
/* The type part alone: "2x2xf32". */
void vm_print_type(FILE *out, const VmType *t);

/* .npy (format 1.0/2.0/3.0, C order, little- or big-endian): read into a
 * value of type `type` (the file's dtype and shape must match; bool, int8..64,
 * uint8..64, float16, float32, float64, complex64, complex128, and bfloat16
 * files written by ml_dtypes as '<V2'... are accepted), or write one.  Element
 * types NumPy cannot hold (i2, i4, f8...) are refused with a reason. */
int vm_npy_read(const char *path, const VmType *type, VmValue *out, char *err, size_t errlen);
int vm_npy_write(const char *path, const VmValue *v, char *err, size_t errlen);
/* The shape a .npy file's header states (at most max dims), for a
 * parameter whose bounded dims take any size (docs/dynamic-shapes.md). */
int vm_npy_shape(const char *path, int *rank, int64_t *dims, int max, char *err, size_t errlen);
/* VM_IO_OK when a value of type t can be written to path as .npy, with a
 * note (may be NULL) saying so when the file holds another form than the
 * type (bf16, tf32 and minifloat bit patterns as unsigned integers of their
 * width; sub-byte integers as int8/uint8); else VM_IO_USAGE with err.  A
 * tool checks every output with it before anything is printed. */
int vm_npy_writable(const VmType *t, const char *path, char *note, size_t notelen, char *err, size_t errlen);

/* Fills count elements of elem with deterministic pseudo-random data from
 * seed (floats uniform in [-1, 1), signed ints in [-8, 8], unsigned in
 * [0, 16], i1 random bits). */
void vm_fill_random(int elem, void *data, int64_t count, uint64_t seed);

/* Comparison of the check ops.  kind: VM_CMP_EQ (exact; NaN equals NaN;
 * floats compared by value so -0 == 0), VM_CMP_ALMOST_EQ (|a - e| <=
 * tolerance, for complex on both parts; ints exact), VM_CMP_CLOSE (ULP
 * distance in the element type within [min_ulp, max_ulp]).  Returns true on
 * pass; on failure writes to detail the number of mismatches and the worst
 * element: "3 of 400 elements differ; worst at [2, 7]: expected 1.5, actual
 * 1.5000002 (2 ULP)" (or "abs diff 0.0021"). Shapes must match (else fail
 * with a reason). */
enum { VM_CMP_EQ = 0, VM_CMP_ALMOST_EQ = 1, VM_CMP_CLOSE = 2 };
bool vm_compare(int kind, double tolerance, int64_t min_ulp, int64_t max_ulp,
                const VmTensor *actual, const VmTensor *expected, char *detail, size_t detaillen);

#endif
