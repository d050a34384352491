/* libFuzzer target: the .tpub loader and the VM on arbitrary bytes.  The
 * harness repairs the size and checksum fields first, so mutations reach
 * the structural checks behind them; whatever loads is run (every public
 * argument-free function, under an instruction and memory budget, with
 * its profile printed to /dev/null).  Every
 * bad input must be refused with a reason, never crash. */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "vm/profile.h"
#include "vm/vm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *img = malloc(size + 1);
  memcpy(img, data, size);
  if (size >= sizeof(TpubHeader)) {
    TpubHeader *h = (TpubHeader *)img;
    h->file_size = size;
    h->checksum = 0;
    h->checksum = XXH3_64bits(img, size);
  }
  char err[512];
  VmProgram *p = vm_program_load(img, size, err, sizeof err);
  free(img);
  if (!p) return 0;
  FILE *devnull = fopen("/dev/null", "w");
  VmOptions o = {.hbm_bytes = 64u << 20, .run_checks = true, .check_out = devnull, .warn_out = devnull,
                 .max_steps = 10000, .profile = true};
  VmExec *x = vm_exec_new(p, &o);
  for (uint32_t f = 0; x && f < p->n_funcs; f++) {
    const VmFunc *fn = &p->funcs[f];
    if (!(fn->flags & TPUB_FUNC_PUBLIC) || fn->n_params) continue;
    VmValue *res = calloc(fn->n_results + 1, sizeof(VmValue));
    if (vm_run(x, (int)f, NULL, 0, res) == VM_OK) {
      for (uint32_t i = 0; i < fn->n_results; i++) vm_value_free(&res[i]);
      if (devnull) vm_profile_print(vm_exec_profile(x), devnull); /* reads COSTS per op id */
    }
    free(res);
  }
  vm_exec_free(x);
  vm_program_free(p);
  if (devnull) fclose(devnull);
  return 0;
}
