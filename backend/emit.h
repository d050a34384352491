/* Internals of the back end: the growable sections of a .tpub under
 * construction (backend/emit.c) and the per-function builder used by the
 * lowering (backend/lower.c). */
#ifndef BACKEND_EMIT_H
#define BACKEND_EMIT_H

#include "backend/backend.h"
#include "ir/table.h"
#include "vm/opinfo.h"
#include "vm/tpub.h"

/* A growable byte buffer. */
typedef struct Bytes {
  uint8_t *p;
  size_t n, cap;
} Bytes;

void bytes_append(Bytes *b, const void *data, size_t n);
void bytes_free(Bytes *b);

/* The sections of the file being written. */
typedef struct Emitter {
  Context *c;
  const Module *m;
  const BackendOptions *opts;
  Bytes strtab, ints, types, consts, funcs, code, locs;
  TpubModule module; /* the MODULE section */
  Bytes costs;       /* one TpubCost per top-level op, when opts->op_cost */
  Bytes locops;      /* one uint32 op id per LOCS record, when opts->op_cost */
  Bytes shards;      /* TpubShard records of a partitioned module (backend/shards.c) */
  Bytes dyndims;     /* TpubDyn records of bounded dynamic dims (backend/dyndims.c) */
  uint32_t op;       /* id of the top-level op being lowered, 0 between ops */
  uint32_t nops;     /* top-level ops numbered so far */
  Table str_index;  /* string -> offset + 1 */
  Table type_index; /* Type * -> index + 1 */
  Table func_index; /* function name -> index + 1 */
  Bytes *fields; /* fields of the op being lowered (backend/lower.c) */
  uint32_t nfuncs;
  bool failed;
} Emitter;

uint32_t emit_string(Emitter *e, const char *s);
uint32_t emit_ints(Emitter *e, const int64_t *v, size_t n); /* returns the INTS index */
/* Type index of t, or UINT32_MAX after reporting why it cannot be lowered. */
uint32_t emit_type(Emitter *e, const Type *t, const Op *where);
uint32_t emit_loc(Emitter *e, Loc loc, const char *op_name);
/* Brackets the lowering of a top-level op: numbers it, writes its COSTS
 * record, and the locations written meanwhile get its id (LOCOPS). */
void emit_cost_begin(Emitter *e, const Op *op);
void emit_cost_end(Emitter *e);
/* Reserves a function slot; the record is filled by emit_func_set. */
uint32_t emit_func_reserve(Emitter *e);
void emit_func_set(Emitter *e, uint32_t index, const TpubFunc *f);
/* Appends a constant blob (16-byte aligned) and returns its byte offset. */
uint64_t emit_const_bytes(Emitter *e, const void *data, size_t n);
/* MODULE's flags and mesh and the SHARDS records of module m's functions
 * (backend/shards.c); sets e->failed after reporting a bad annotation. */
void emit_shards(Emitter *e, const Module *m);
/* The DYNDIMS records of module m's public functions (backend/dyndims.c);
 * sets e->failed after reporting a bad tpu.dynamic_* attribute. */
void emit_dyndims(Emitter *e, const Module *m);
/* Serializes the sections into one image with header and checksum. */
void emit_finish(Emitter *e, uint8_t **out, size_t *outlen);
void emit_free(Emitter *e);

/* Maps an IR element kind to the bytecode's, false if it has none. */
bool tpub_elem_of(ElemKind k, TpubElem *out);

#endif
