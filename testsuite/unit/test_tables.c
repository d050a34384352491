/* The two instruction tables agree on names: every opcode's id is its
 * name (vm/opcodes.def), and an op lowered one to one (LOWER = plain in
 * ir/ops.def) becomes the opcode of its own name, unless it shares one of
 * the VM's generic opcodes (copy, token, return). */
#include <ctype.h>

#include "testsuite/unit/unit_tests.h"
#include "vm/opinfo.h"

typedef struct OpcodeRow {
  const char *id, *name;
} OpcodeRow;

static const OpcodeRow opcode_rows[] = {
#define OPC(id, name, ...) {#id, name},
#include "vm/opcodes.def"
#undef OPC
};

typedef struct OpRow {
  const char *name, *lower, *opcode;
} OpRow;

static const OpRow op_rows[] = {
#define OP(id, name, mino, maxo, nres, nreg, traits, elems, verify, infer, cost, fold, canon, decompose, lower, opcode, ...) \
  {name, #lower, #opcode},
#include "ir/ops.def"
#undef OP
};

/* The name an opcode id stands for: the id in lower case. */
static void lower_case(const char *id, char *out, size_t n) {
  size_t i = 0;
  for (; id[i] && i + 1 < n; i++) out[i] = (char)tolower((unsigned char)id[i]);
  out[i] = 0;
}

static void test_opcode_ids_are_names(void **state) {
  (void)state;
  char want[64];
  for (size_t i = 0; i < sizeof opcode_rows / sizeof opcode_rows[0]; i++) {
    lower_case(opcode_rows[i].id, want, sizeof want);
    assert_string_equal(opcode_rows[i].name, want);
  }
}

static bool shared_opcode(const char *name) {
  return strcmp(name, "copy") == 0 || strcmp(name, "token") == 0 || strcmp(name, "return") == 0;
}

static void test_plain_ops_keep_their_name(void **state) {
  (void)state;
  int plain = 0;
  char opcode[64];
  for (size_t i = 0; i < sizeof op_rows / sizeof op_rows[0]; i++) {
    if (strcmp(op_rows[i].lower, "plain") != 0) continue;
    plain++;
    lower_case(op_rows[i].opcode, opcode, sizeof opcode);
    const char *dot = strchr(op_rows[i].name, '.');
    assert_non_null(dot);
    const char *base = dot + 1;
    while (*base == '_') base++; /* CHLO's internal ops: chlo._asin_acos_kernel */
    if (!shared_opcode(opcode)) assert_string_equal(base, opcode);
  }
  assert_true(plain > 60);
}

/* Every opcode an op row names exists in vm/opcodes.def. */
static void test_op_rows_name_real_opcodes(void **state) {
  (void)state;
  char opcode[64];
  for (size_t i = 0; i < sizeof op_rows / sizeof op_rows[0]; i++) {
    if (strcmp(op_rows[i].opcode, "NONE") == 0) continue;
    lower_case(op_rows[i].opcode, opcode, sizeof opcode);
    bool found = false;
    for (int k = 0; k < VM_OP_COUNT && !found; k++) found = strcmp(vm_op_rows[k].name, opcode) == 0;
    if (!found) fail_msg("%s lowers to an opcode %s that vm/opcodes.def lacks", op_rows[i].name, opcode);
  }
}

int run_tables_tests(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_opcode_ids_are_names),
      cmocka_unit_test(test_plain_ops_keep_their_name),
      cmocka_unit_test(test_op_rows_name_real_opcodes),
  };
  return cmocka_run_group_tests_name("tables", tests, NULL, NULL);
}
