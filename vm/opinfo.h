/* Opcode facts generated from vm/opcodes.def, header-only so that the back
 * end (emitter, disassembler) and the VM (loader) share them without the
 * back end linking the VM.  One of the VM's bytecode-format headers: it
 * includes only vm/tpub.h, vm/opcodes.def and common/ (DESIGN.md §1,
 * testsuite/tools/layering.sh). */
#ifndef VM_OPINFO_H
#define VM_OPINFO_H

#include <stdbool.h>
#include <string.h>

#include "vm/tpub.h"

#define VM_MAX_FIELDS 24

/* Static facts about an opcode, from the table (vm_op_describe fills it). */
typedef struct VmOpInfo {
  const char *name;
  int n_in, n_out; /* -1: variadic */
  unsigned flags;  /* VMF_* */
  int nfields;
  char field_kind[VM_MAX_FIELDS];      /* VmFieldKind */
  char field_name[VM_MAX_FIELDS][40];  /* e.g. "window_strides" */
} VmOpInfo;

typedef struct VmOpRow {
  const char *name;
  int n_in, n_out;
  const char *fields;
  unsigned flags;
} VmOpRow;

static const VmOpRow vm_op_rows[VM_OP_COUNT] = {
#define OPC(id, name, nin, nout, fields, check, exec, flags, doc) {name, nin, nout, fields, flags},
#include "vm/opcodes.def"
#undef OPC
};

/* Fills *info for opcode (which must be < VM_OP_COUNT); parses the fields
 * string "name:k name:k". */
static inline void vm_op_describe(int opcode, VmOpInfo *info) {
  const VmOpRow *r = &vm_op_rows[opcode];
  memset(info, 0, sizeof *info);
  info->name = r->name;
  info->n_in = r->n_in;
  info->n_out = r->n_out;
  info->flags = r->flags;
  const char *s = r->fields;
  while (*s && info->nfields < VM_MAX_FIELDS) {
    while (*s == ' ') s++;
    if (!*s) break;
    const char *colon = strchr(s, ':');
    size_t len = (size_t)(colon - s);
    if (len >= sizeof info->field_name[0]) len = sizeof info->field_name[0] - 1;
    memcpy(info->field_name[info->nfields], s, len);
    info->field_kind[info->nfields] = colon[1];
    info->nfields++;
    s = colon + 2;
  }
}

#endif
