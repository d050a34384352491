#!/usr/bin/env bash
# docs/ops.md and docs/opcodes.md are generated from ir/ops.def and
# vm/opcodes.def (mk/gen-ops-md.py, mk/gen-opcodes-md.py), docs/spec-coverage.md
# from the op table, the tree and the specification (mk/gen-spec-coverage.py):
# regenerate them into temporary files and require the pages in the tree to be
# the same, so a changed table cannot leave a stale reference behind.  The
# coverage page must also have no MISSING op and no empty cell beyond
# mk/spec-coverage-pending.txt.
source "$(dirname "$0")/lib.sh"
# The coverage page reads the specification and corpus in ../shared/conformance.
if [ -d "$ROOT/../shared/conformance/stablehlo/docs" ]; then
  /usr/bin/python3 "$ROOT/mk/gen-spec-coverage.py" --check "$ROOT" "$TMP/spec-coverage.md" > "$TMP/coverage" ||
    fail "docs/spec-coverage.md: ops missing or uncovered (mk/spec-coverage-pending.txt lists the expected ones):
$(cat "$TMP/coverage")"
  diff -u "$ROOT/docs/spec-coverage.md" "$TMP/spec-coverage.md" > "$TMP/diff" ||
    fail "docs/spec-coverage.md is stale: run make docs
$(head -n 40 "$TMP/diff")"
else
  echo "docs/spec-coverage.md not checked: no ../shared/conformance"
fi
for page in ops opcodes; do
  /usr/bin/python3 "$ROOT/mk/gen-$page-md.py" "$ROOT" "$TMP/$page.md" || fail "mk/gen-$page-md.py failed"
  diff -u "$ROOT/docs/$page.md" "$TMP/$page.md" > "$TMP/diff" ||
    fail "docs/$page.md is stale: run make docs
$(head -n 40 "$TMP/diff")"
done
exit 0
