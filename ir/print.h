/* Printer internals shared by ir/print_attr.c and ir/printer.c. */
#ifndef TPUCC_PRINT_H
#define TPUCC_PRINT_H

#include "ir/ir.h"

void print_symbol(FILE *out, const char *name);
void print_attr_name(FILE *out, const char *name);
void print_float_value(FILE *out, ElemKind k, uint64_t bits);
void print_conv_dims(FILE *out, const ConvDims *d);
/* <key = value, ...> of a dialect attribute (without its #name). */
void print_dialect_body(FILE *out, const Attr *a, bool generic);

/* Whether attribute `name` of an op of kind k holds the default its
 * absence means (ir/attr_defaults.def), so printing leaves it out. */
bool attr_is_default(OpKind k, const char *name, const Attr *a);

#endif
