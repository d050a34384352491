#!/usr/bin/env bash
# Bounded runs (issue 12): tpurun --max-steps and --timeout end a loop that
# never terminates with exit 4, naming the loop, its location and its trip
# count; Ctrl-C (SIGINT) ends a run with exit 130 naming the running op; on
# many chips one chip past a limit ends the whole run (the others, waiting
# at a collective or computing, are released).  Every command runs under an
# outer `timeout`, so a tpurun without the limits fails the test, not hangs it.
source "$(dirname "$0")/lib.sh"
TPURUN="$BUILD/tpurun"
run() { timeout 60 "$TPURUN" --no-cache "$@"; }

# forever NAME: a function @NAME(%x: tensor<i32>) whose while never ends.
forever() {
  cat <<EOF
func.func @$1(%x: tensor<i32>) -> tensor<i32> {
  %one = stablehlo.constant dense<1> : tensor<i32>
  %r = stablehlo.while(%i = %x) : tensor<i32>
   cond {
    %t = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %t : tensor<i1>
  } do {
    %n = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %n : tensor<i32>
  }
  return %r : tensor<i32>
}
EOF
}
forever main > "$TMP/forever.mlir"
F="$TMP/forever.mlir"
# One iteration is 4 steps: the condition's constant and return, the body's add and return.
expect_status 4 run "$F" --input=i32=0 --max-steps=1000
expect_in "$TMP/err" "forever.mlir:3:8: error: 'stablehlo.while' op exceeded --max-steps=1000 after 1000 steps (trip count 249)"
expect_status 4 run "$F" --input=i32=0 --timeout=1
expect_in "$TMP/err" "forever.mlir:3:8: error: 'stablehlo.while' op exceeded --timeout=1 after "
expect_in "$TMP/err" "(trip count "
expect_status 4 run "$F" --input=i32=0 --timeout=0.2 --max-steps=1000000000000
expect_in "$TMP/err" "exceeded --timeout=0.2 after"
# The same through a .tpub, and with -O0.
expect_status 0 "$TPUCC" "$F" -o "$TMP/forever.tpub"
expect_status 4 run "$TMP/forever.tpub" --input=i32=0 --max-steps=10
expect_in "$TMP/err" "'stablehlo.while' op exceeded --max-steps=10 after 10 steps (trip count 2)"
expect_status 4 run -O0 "$F" --input=i32=0 --max-steps=10
expect_in "$TMP/err" "(trip count 2)"

# SIGINT: exit 130 and which op was running.  --preserve-status makes
# timeout exit with tpurun's status (a tpurun killed by the signal would
# also give 130, but print nothing).
timeout --preserve-status -s INT 1 "$TPURUN" --no-cache "$F" --input=i32=0 > "$TMP/out" 2> "$TMP/err"
got=$?
[ "$got" -eq 130 ] || fail "SIGINT: exited $got, expected 130: $(head -c 400 "$TMP/err")"
expect_in "$TMP/err" "error: interrupted while running 'stablehlo."
expect_in "$TMP/err" "of 'stablehlo.while' at $F:3:8)"

# A loop that ends within the limits runs as before.
sed -e 's/%t = stablehlo.constant dense<true> : tensor<i1>/%ten = stablehlo.constant dense<10> : tensor<i32>\n    %t = stablehlo.compare LT, %i, %ten : (tensor<i32>, tensor<i32>) -> tensor<i1>/' "$F" > "$TMP/ten.mlir"
expect_status 0 run "$TMP/ten.mlir" --input=i32=0 --max-steps=1000 --timeout=30
expect_in "$TMP/out" "result[0]: i32=10"
expect_status 4 run "$TMP/ten.mlir" --input=i32=0 --max-steps=40
expect_in "$TMP/err" "ten.mlir:3:8: error: 'stablehlo.while' op exceeded --max-steps=40 after 40 steps (trip count "

# Bad values are usage errors.
for v in 0 -5 abc "" 1.5 99999999999999999999999; do
  expect_status 1 run "$F" --input=i32=0 --max-steps="$v"; expect_in "$TMP/err" "invalid --max-steps '$v'"
done
for v in 0 -1 x "" inf nan 1s; do
  expect_status 1 run "$F" --input=i32=0 --timeout="$v"; expect_in "$TMP/err" "invalid --timeout '$v'"
done
expect_status 0 run --help; expect_in "$TMP/out" "--max-steps=N"; expect_in "$TMP/out" "--timeout=SECONDS"

# Many chips.  Chip 0 leaves its loop at once and waits at the all_reduce;
# chip 1 loops (2e9 iterations): past the limit it ends the run and chip 0
# is released.
cat > "$TMP/chips.mlir" <<'EOF'
func.func @main(%x: tensor<i32>) -> tensor<i32> {
  %id = stablehlo.replica_id : tensor<ui32>
  %idi = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>
  %big = stablehlo.constant dense<2000000000> : tensor<i32>
  %lim = stablehlo.multiply %idi, %big : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %r = stablehlo.while(%i = %x) : tensor<i32>
   cond {
    %c = stablehlo.compare LT, %i, %lim : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %n = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %n : tensor<i32>
  }
  %s = "stablehlo.all_reduce"(%r) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %q = stablehlo.add %a, %b : tensor<i32>
    stablehlo.return %q : tensor<i32>
  }) : (tensor<i32>) -> tensor<i32>
  return %s : tensor<i32>
}
EOF
C="$TMP/chips.mlir"
for t in 1 2; do
  expect_status 4 run "$C" --replicas=2 --threads=$t --input=i32=0 --max-steps=1000
  expect_in "$TMP/err" "chips.mlir:7:8: error: 'stablehlo.while' op exceeded --max-steps=1000 after 1000 steps (trip count 249)"
done
expect_status 4 run "$C" --replicas=2 --input=i32=0 --timeout=1
expect_in "$TMP/err" "chips.mlir:7:8: error: 'stablehlo.while' op exceeded --timeout=1 after"
# Both chips loop forever around an all_reduce in the body.
sed -e 's/%lim = stablehlo.multiply %idi, %big/%lim = stablehlo.add %idi, %big/' \
    -e 's/%n = stablehlo.add %i, %one : tensor<i32>/%m = "stablehlo.all_reduce"(%i) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({\n    ^bb0(%a: tensor<i32>, %b: tensor<i32>):\n      %q = stablehlo.maximum %a, %b : tensor<i32>\n      stablehlo.return %q : tensor<i32>\n    }) : (tensor<i32>) -> tensor<i32>\n    %n = stablehlo.subtract %m, %one : tensor<i32>/' "$C" > "$TMP/chips2.mlir"
expect_status 4 run "$TMP/chips2.mlir" --replicas=2 --input=i32=0 --max-steps=1000
expect_in "$TMP/err" "chips2.mlir:7:8: error: 'stablehlo.while' op exceeded --max-steps=1000 after 1000 steps (trip count 199)"
expect_status 4 run "$TMP/chips2.mlir" --replicas=2 --input=i32=0 --timeout=1
expect_in "$TMP/err" "'stablehlo.while' op exceeded --timeout=1 after"
timeout --preserve-status -s INT 1 "$TPURUN" --no-cache "$TMP/chips2.mlir" --replicas=2 --input=i32=0 > "$TMP/out" 2> "$TMP/err"
got=$?
[ "$got" -eq 130 ] || fail "SIGINT on 2 chips: exited $got, expected 130: $(head -c 400 "$TMP/err")"
expect_in "$TMP/err" "error: interrupted while running 'stablehlo."

# interpreter.run_parallel: chips started by a program share its limits.
{
  forever spin
  cat <<'EOF'
func.func @main() {
  %z = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = "interpreter.run_parallel"(%z, %z) {programs = [[@spin], [@spin]]} : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
  check.expect_eq_const %r#0, dense<0> : tensor<i32>
  func.return
}
EOF
} > "$TMP/par.mlir"
expect_status 4 run "$TMP/par.mlir" --check --max-steps=100
expect_in "$TMP/err" "par.mlir:3:8: error: 'stablehlo.while' op exceeded --max-steps=100 after 100 steps (trip count 24)"
expect_status 4 run "$TMP/par.mlir" --check --timeout=1
expect_in "$TMP/err" "par.mlir:3:8: error: 'stablehlo.while' op exceeded --timeout=1 after"
exit 0
