/* The back end: lowering of verified IR to .tpub bytecode, and its
 * disassembler (docs/bytecode.md). */
#ifndef BACKEND_H
#define BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ir/ir.h"
#include "vm/tpub.h"

typedef struct BackendOptions {
  const char *target;           /* preset name, e.g. "v5e" */
  const char *compiler_version; /* e.g. "0.2.0" */
  /* The modeled cost of a top-level op (one directly in a function body),
   * for the COSTS section; NULL: no section.  Fills flops, hbm_bytes,
   * modeled_s, bound and mxu_util of *out (the rest is the back end's);
   * false leaves the op without a cost (zeros, bound none). */
  bool (*op_cost)(void *ud, const Op *op, TpubCost *out);
  void *cost_ud;
} BackendOptions;

/* Lowers module m to a .tpub image (malloc'ed into *out).  Ops the back end
 * cannot lower are reported as diagnostics on c ("... is not supported by
 * the tpurun back end"); returns false then. */
bool backend_compile(Context *c, const Module *m, const BackendOptions *o, uint8_t **out,
                     size_t *outlen);

/* Prints a readable listing of a .tpub image produced by backend_compile:
 * header, functions, one instruction per line with its fields and the
 * StableHLO op and location it came from. */
void backend_disassemble(const uint8_t *bytes, size_t n, FILE *out);

#endif
