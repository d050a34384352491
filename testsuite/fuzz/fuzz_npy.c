/* libFuzzer target: host values (vm/io/npy.c, vm/io/literal.c, vm/io/compare.c).
 *
 * The first byte picks a parameter type from a small table and a mode:
 *   even: the rest is a whole .npy file, read with vm_npy_parse;
 *   odd:  the rest is an --input spec, read with vm_parse_input.
 * Every refusal must be a status and a reason, never a crash.  An accepted
 * value is printed, and the printed text must parse back to the same value
 * (vm_compare's exact equality: NaN payloads and signs may change). */
#include <stdlib.h>
#include <string.h>

#include "vm/dtype.h"
#include "vm/io/io_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Parameter types worth aiming at: the fuzzer finds matching headers. */
static const int64_t dims_23[] = {2, 3}, dims_4[] = {4}, dims_21[] = {2, 1}, dims_0[] = {0};
static const VmType types[] = {
    {.kind = TPUB_TY_TENSOR, .elem = TPUB_F32, .rank = 2, .dims = dims_23, .count = 6, .nbytes = 24},
    {.kind = TPUB_TY_TENSOR, .elem = TPUB_I8, .rank = 0, .dims = NULL, .count = 1, .nbytes = 1},
    {.kind = TPUB_TY_TENSOR, .elem = TPUB_I1, .rank = 1, .dims = dims_4, .count = 4, .nbytes = 4},
    {.kind = TPUB_TY_TENSOR, .elem = TPUB_C64, .rank = 1, .dims = dims_4, .count = 4, .nbytes = 32},
    {.kind = TPUB_TY_TENSOR, .elem = TPUB_F16, .rank = 1, .dims = dims_0, .count = 0, .nbytes = 0},
    {.kind = TPUB_TY_TENSOR, .elem = TPUB_U64, .rank = 2, .dims = dims_21, .count = 2, .nbytes = 16},
    {.kind = TPUB_TY_TENSOR, .elem = TPUB_BF16, .rank = 1, .dims = dims_4, .count = 4, .nbytes = 8},
    {.kind = TPUB_TY_TENSOR, .elem = TPUB_I4, .rank = 1, .dims = dims_4, .count = 4, .nbytes = 4},
    {.kind = TPUB_TY_TENSOR, .elem = TPUB_F8E4M3FNUZ, .rank = 1, .dims = dims_4, .count = 4, .nbytes = 4},
    {.kind = TPUB_TY_TENSOR, .elem = TPUB_C128, .rank = 0, .dims = NULL, .count = 1, .nbytes = 16},
    {.kind = TPUB_TY_TENSOR, .elem = TPUB_I64, .rank = 1, .dims = dims_4, .count = 4, .nbytes = 32},
    {.kind = TPUB_TY_TENSOR, .elem = TPUB_F64, .rank = 2, .dims = dims_21, .count = 2, .nbytes = 16},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const VmType *t = &types[(data[0] >> 1) % (sizeof types / sizeof types[0])];
  VmValue v;
  char err[1024];
  int rc;
  if (data[0] & 1) {
    char *spec = malloc(size);
    memcpy(spec, data + 1, size - 1);
    spec[size - 1] = 0;
    /* Files and random data are not what this target explores. */
    if (spec[0] == '@' || strncmp(spec, "random", 6) == 0) spec[0] = 'x';
    rc = vm_parse_input(spec, t, 0, &v, err, sizeof err);
    free(spec);
  } else {
    rc = vm_npy_parse(data + 1, size - 1, t, &v, err, sizeof err);
  }
  if (rc != VM_IO_OK) {
    if (v.data || !err[0]) abort(); /* refused without a reason, or leaked */
    return 0;
  }
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  vm_print_value(f, &v);
  fclose(f);
  VmValue back;
  if (vm_parse_input(text, t, 0, &back, err, sizeof err) != VM_IO_OK) abort();
  VmTensor a = {t, back.data}, e = {t, v.data};
  if (!vm_compare(VM_CMP_EQ, 0, 0, 0, &a, &e, err, sizeof err)) abort();
  free(back.data);
  free(v.data);
  free(text);
  return 0;
}
