#!/usr/bin/env bash
# examples/eager_transformer.c (built as BUILD/eager_transformer by `make
# check`): the transformer block op by op through libtpurun's tpu_op.
# Checks:
#   - `all` (Debug, Strict, Fused, 2 steps each) succeeds: the program's own
#     checks hold (Debug == Strict bitwise, Fused within 1e-4 of Strict, the
#     whole .mlir through tpu_program_run within 1e-5);
#   - each mode alone succeeds, and the Debug and Strict checksums are equal,
#     in the `all` run and across the single-mode runs;
#   - its data is tpurun's --input=random:K: the Strict sum and first values
#     match `tpurun examples/transformer_block.mlir` on `make run`'s inputs;
#   - other sizes (no whole-program cross-check there) run in every mode;
#   - bad arguments exit 1 with a message;
#   - under valgrind (when installed) all three modes leak nothing.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
EX="$BUILD/eager_transformer"
TPURUN="$BUILD/tpurun"
PROG="$ROOT/examples/transformer_block.mlir"
[ -x "$EX" ] || fail "$EX not built (make $EX)"

# checksum FILE MODE: the checksum printed on MODE's line.
checksum() { sed -n "s/^$2: *checksum \([0-9a-f]*\) .*/\1/p" "$1"; }

expect_status 0 "$EX" all --steps 2 --program "$PROG"
cp "$TMP/out" "$TMP/all"
for m in debug strict fused; do
  [ -n "$(checksum "$TMP/all" $m)" ] || fail "no $m line in: $(cat "$TMP/all")"
done
expect_in "$TMP/all" "debug == strict: bitwise equal"
expect_in "$TMP/all" "fused ~ strict: max relative difference"
expect_in "$TMP/all" "strict ~ program ($PROG via tpu_program_run)"
[ "$(checksum "$TMP/all" debug)" = "$(checksum "$TMP/all" strict)" ] || fail "debug and strict checksums differ: $(cat "$TMP/all")"

for m in debug strict fused; do
  expect_status 0 "$EX" $m --program "$PROG"
  cp "$TMP/out" "$TMP/$m"
  [ -n "$(checksum "$TMP/$m" $m)" ] || fail "no $m line in: $(cat "$TMP/$m")"
  grep -q "^$m ~ program" "$TMP/$m" || fail "$m: no program cross-check in: $(cat "$TMP/$m")"
done
[ "$(checksum "$TMP/debug" debug)" = "$(checksum "$TMP/strict" strict)" ] || fail "debug alone and strict alone differ"
[ "$(checksum "$TMP/strict" strict)" = "$(checksum "$TMP/all" strict)" ] || fail "strict alone differs from strict in 'all'"

# The data is tpurun's: the same sum and first values as `make run`.
if "$PY" -c 'import numpy' 2>/dev/null && [ -x "$TPURUN" ]; then
  expect_status 0 "$TPURUN" "$PROG" --input=8xi32=3,14,15,9,26,5,35,8 \
    --input=random:1 --input=random:2 --input=random:3 --input=random:4 \
    --input=random:5 --input=random:6 --input=random:7 --input=random:8 \
    --input=random:9 --output="@$TMP/ref.npy"
  line=$(grep '^strict:' "$TMP/strict")
  "$PY" - "$TMP/ref.npy" "$line" <<'PY' || fail "eager_transformer's data is not tpurun's --input=random:K"
import re, sys
import numpy as np
ref = np.load(sys.argv[1]).astype(np.float64)
m = re.search(r"sum (\S+)\s+first (\S+) (\S+) (\S+) (\S+)", sys.argv[2])
got_sum, first = float(m.group(1)), [float(m.group(i)) for i in range(2, 6)]
ok = abs(got_sum - ref.sum()) <= 1e-4 * max(1.0, abs(ref.sum())) and \
     all(abs(a - b) <= 2e-6 + 1e-5 * abs(b) for a, b in zip(first, ref.ravel()[:4]))
if not ok:
    print("eager: sum %r first %r; tpurun: sum %r first %r" % (got_sum, first, ref.sum(), list(ref.ravel()[:4])))
sys.exit(0 if ok else 1)
PY
else
  echo "note: no numpy or no $TPURUN: the comparison with tpurun's output is skipped"
fi

# Other sizes: every mode, several steps.
expect_status 0 "$EX" all --seq 16 --width 64 --heads 4 --mlp 128 --vocab 100 --steps 3
expect_in "$TMP/out" "debug == strict: bitwise equal"
expect_in "$TMP/out" "program cross-check skipped"

# Bad arguments.
expect_status 1 "$EX" sometimes
expect_in "$TMP/err" "unknown argument 'sometimes'"
expect_status 1 "$EX" strict --width 30 --heads 4
expect_in "$TMP/err" "not a multiple of --heads"
expect_status 1 "$EX" strict --steps 0
expect_status 1 "$EX" strict --program "$TMP/missing.mlir"
expect_in "$TMP/err" "cannot open"

# No leak (every tensor released, the client destroyed).  A sanitizer build
# (make sanitize) checks leaks itself and cannot run under valgrind.
if nm "$EX" 2>/dev/null | grep -q '__[at]san_init'; then
  echo "note: a sanitizer build: no valgrind run"
elif command -v valgrind >/dev/null 2>&1; then
  expect_status 0 valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=9 \
    "$EX" all --steps 2 --program "$PROG"
else
  echo "note: no valgrind: the leak check is skipped"
fi
exit 0
