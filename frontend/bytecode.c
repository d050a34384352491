/* Portable artifacts in and out: the stages of frontend/vhlo.h chained
 * (bytes -> VHLO form -> StableHLO, and back). */
#include "frontend/bytecode.h"

#include <string.h>

#include "frontend/vhlo.h"

bool bytecode_is_mlir(const void *data, size_t len) { return len >= 4 && memcmp(data, "ML\xefR", 4) == 0; }

/* MLIR's printer writes a dense literal of more than this many elements
 * as hex (mlir-print-elementsattrs-with-hex-if-larger). */
enum { MLIR_HEX_ABOVE = 100 };

/* Gives every non-splat dense literal under a the form MLIR prints it in,
 * so a module read from bytecode prints (and keys the cache) as the text
 * stablehlo-translate --deserialize and JAX write for it. */
static void dense_form_as_mlir_prints(Attr *a) {
  switch (a->kind) {
  case ATTR_DENSE:
    a->u.dense.form = !a->u.dense.splat && dense_num_elements(a) > MLIR_HEX_ABOVE ? DENSE_HEX : DENSE_LIST;
    break;
  case ATTR_ARRAY:
    for (int i = 0; i < a->u.array.n; i++) dense_form_as_mlir_prints(a->u.array.items[i]);
    break;
  case ATTR_DICT:
    for (int i = 0; i < a->u.dict.n; i++) dense_form_as_mlir_prints(a->u.dict.items[i].value);
    break;
  default: break;
  }
}

static void dense_forms_in_op(Op *op) {
  for (int i = 0; i < op->nattrs; i++) dense_form_as_mlir_prints(op->attrs[i].value);
  for (int r = 0; r < op->nregions; r++)
    for (int b = 0; b < op->regions[r].nblocks; b++)
      for (Op *o = op->regions[r].blocks[b]->first; o; o = o->next) dense_forms_in_op(o);
}

Module *bytecode_read_module(Context *c, const SourceFile *file) {
  BcInfo info = {0};
  Module *m = bc_read_vhlo(c, file, &info);
  if (!m || !vhlo_to_stablehlo(c, m, &info)) return NULL;
  dense_forms_in_op(m->op);
  m->file = file;
  return m;
}

bool bytecode_version_supported(const char *s) {
  VhloVersion v;
  return vhlo_version_parse(s, &v) && vhlo_version_supported(v);
}

bool bytecode_write_module(Context *c, Module *m, const char *version, uint8_t **out, size_t *len) {
  VhloVersion v = VHLO_VERSION_CURRENT;
  if (version && !vhlo_version_parse(version, &v)) {
    diag_report(c, (Loc){0}, SEV_ERROR, "'%s' is not a StableHLO version (expected MAJOR.MINOR.PATCH, e.g. 1.0.0)",
                version);
    return false;
  }
  return stablehlo_to_vhlo(c, m, v) && bc_write_vhlo(c, m, v, out, len);
}
