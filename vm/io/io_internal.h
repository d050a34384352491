/* Internals shared by the host-value files (vm/io/literal.c, vm/io/npy.c,
 * vm/io/compare.c), their unit tests and the .npy fuzz target.  Not part of the
 * VM's public interface: tools use vm/io/io.h. */
#ifndef VM_IO_INTERNAL_H
#define VM_IO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "vm/io/io.h"

/* Room for the text of any one element, complex included, NUL included. */
#define VM_ELEM_TEXT_MAX 96

/* Significant bits of a real float type's encoding: the sign is bit
 * width - 1 (tf32 keeps its 19 bits in the low bits of its container). */
int vm_io_float_width(int elem);

/* The text of element i as vm_print_value writes it. */
void vm_io_format_element(char buf[VM_ELEM_TEXT_MAX], int elem, const void *data, int64_t i);
/* vm_print_type into a buffer (truncated to n - 1 characters). */
void vm_io_format_type(char *buf, size_t n, const VmType *t);


/* The in-memory core of vm_npy_read: parses the n bytes of a whole .npy
 * file.  err receives the reason without a file name. */
int vm_npy_parse(const void *bytes, size_t n, const VmType *type, VmValue *out, char *err,
                 size_t errlen);

/* Formats a message into err (errlen bytes; nothing when err is NULL). */
void vm_io_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
