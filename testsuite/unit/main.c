/* build/unit_tests: runs every cmocka group of testsuite/unit/ and exits
 * non-zero if any test failed.  Run with CMOCKA_MESSAGE_OUTPUT=stdout to get
 * the plain report that testsuite/run_all.sh counts. */
#include "testsuite/unit/unit_tests.h"

int main(void) {
  int (*const groups[])(void) = {
      run_lexer_tests,  run_types_tests,   run_elem_tests,     run_attrs_tests,
      run_parser_tests, run_printer_tests, run_verifier_tests, run_bytecode_tests,
      run_vm_io_tests,  run_vm_fusion_tests, run_vm_fused_tests, run_vm_move_tests, run_fold_tests, run_cache_tests,
      run_vm_collective_tests, run_ici_tests, run_tables_tests, run_infer_tests, run_runtime_tests,
      run_vecmath_tests, run_gemm_tests, run_vm_pool_tests, run_sharding_tests,
      run_vhlo_legalize_tests,
      run_bc_write_tests,
      run_bc_read_tests,
  };
  int failed = 0;
  for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++) failed += groups[i]();
  return failed ? 1 : 0;
}
