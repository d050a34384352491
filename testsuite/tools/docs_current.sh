#!/usr/bin/env bash
# docs/ops.md and docs/opcodes.md are generated from ir/ops.def and
# vm/opcodes.def (mk/gen-ops-md.py, mk/gen-opcodes-md.py): regenerate them
# into temporary files and require the pages in the tree to be the same, so
# a changed table cannot leave a stale reference behind.
source "$(dirname "$0")/lib.sh"
for page in ops opcodes; do
  /usr/bin/python3 "$ROOT/mk/gen-$page-md.py" "$ROOT" "$TMP/$page.md" || fail "mk/gen-$page-md.py failed"
  diff -u "$ROOT/docs/$page.md" "$TMP/$page.md" > "$TMP/diff" ||
    fail "docs/$page.md is stale: run make docs
$(head -n 40 "$TMP/diff")"
done
exit 0
