#!/usr/bin/env bash
# docs/opcodes.md is generated from vm/opcodes.def (mk/gen-opcodes-md.py):
# regenerate it into a temporary file and require the page in the tree to be
# the same, so a changed table cannot leave a stale reference behind.
source "$(dirname "$0")/lib.sh"
/usr/bin/python3 "$ROOT/mk/gen-opcodes-md.py" "$ROOT" "$TMP/opcodes.md" || fail "mk/gen-opcodes-md.py failed"
diff -u "$ROOT/docs/opcodes.md" "$TMP/opcodes.md" > "$TMP/diff" ||
  fail "docs/opcodes.md is stale: run make docs
$(head -n 40 "$TMP/diff")"
exit 0
