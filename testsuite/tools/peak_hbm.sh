#!/usr/bin/env bash
# The VM's real allocation stays within the compiler's model: for every
# example, every model export and every conformance corpus program (each
# skipped with a message when absent), run
# with seeded inputs, the measured peak HBM of `tpurun --metrics` (the
# accounted allocator's high-water mark, tile buffers aside) is not above
# the peak HBM `tpucc --report` prints, and does not depend on the number of
# host threads (tile buffers are per worker, and not in it).  Fusions run
# tile by tile, never
# materializing a fused producer: a scalar broadcast to 100000x100000 f32
# (40 GB) reduced to a row runs on a 16 GiB v5e in well under 1 MiB, and
# gives the exact sequential float32 sum.
source "$(dirname "$0")/lib.sh"
TPURUN="$BUILD/tpurun"
CONF=${TPU_CONFORMANCE_DIR:-$ROOT/../shared/conformance}
MODELS=${TPU_MODELS_DIR:-$(dirname "$CONF")/models}

# reported FILE ARGS...: the peak HBM bytes tpucc --report prints.
reported() {
  "$TPUCC" --report "$@" -o "$TMP/p.tpub" 2>"$TMP/report.err" >"$TMP/report" \
    || fail "tpucc --report $*: $(head -c 400 "$TMP/report.err")"
  sed -n 's/^total: .*, peak HBM .* (\([0-9]*\) bytes)$/\1/p' "$TMP/report"
}

# measured FILE ARGS...: the peak HBM bytes tpurun --metrics prints.
measured() {
  "$TPURUN" --metrics --seed=7 "$@" >"$TMP/run.out" 2>"$TMP/run.err" \
    || fail "tpurun $*: $(grep -v warning "$TMP/run.err" | head -c 400)"
  sed -n 's/^metrics: .*, peak HBM \([0-9]*\) bytes$/\1/p' "$TMP/run.err"
}

# check NAME FILE [OPT]: seeded inputs for every parameter, one result
# written, at 1 and 3 host threads, compiled at OPT (default -O2).
check() {
  local name=$1 m=$2 opt=${3:--O2} nin ins=() rep meas meas3
  nin=$("$TPURUN" "$m" 2>&1 | sed -n 's/.*takes \([0-9]*\) arguments.*/\1/p')
  [ -n "$nin" ] || fail "$name: no parameter count"
  for ((i = 0; i < nin; i++)); do ins+=(--input=random); done
  rep=$(reported "$m" "$opt")
  meas=$(measured "$m" "$opt" --threads=1 "${ins[@]}" "--output=@$TMP/r0.npy")
  meas3=$(measured "$m" "$opt" --threads=3 "${ins[@]}" "--output=@$TMP/r0.npy")
  [ -n "$rep" ] && [ -n "$meas" ] || fail "$name: no peak (reported '$rep', measured '$meas')"
  [ "$meas" -le "$rep" ] || fail "$name: measured peak HBM $meas bytes is above the reported $rep bytes"
  [ "$meas" = "$meas3" ] || fail "$name: measured peak HBM $meas bytes at 1 thread, $meas3 at 3"
  echo "$name: reported $rep bytes, measured $meas bytes"
}

for m in "$ROOT"/examples/*.mlir; do
  check "examples/$(basename "$m")" "$m"
done
shopt -s nullglob
models=("$MODELS"/*.mlir)
if [ ${#models[@]} -eq 0 ]; then
  echo "skipped: no models in $MODELS"
else
  for m in "${models[@]}"; do check "models/$(basename "$m")" "$m"; done
fi

# Every program of the conformance corpus (its checks run with --check):
# the same bound, where the model computed a peak (all-empty programs have
# none).
corpus=("$CONF"/stablehlo/testdata/*.mlir)
if [ ${#corpus[@]} -eq 0 ]; then
  echo "skipped: no conformance corpus in $CONF"
else
  n=0
  for f in "${corpus[@]}"; do
    rep=$(reported "$f")
    [ -n "$rep" ] || continue
    "$TPURUN" --check --metrics "$f" >/dev/null 2>"$TMP/run.err"
    meas=$(sed -n 's/^metrics: .*, peak HBM \([0-9]*\) bytes$/\1/p' "$TMP/run.err")
    [ -n "$meas" ] && [ "$meas" -le "$rep" ] \
      || fail "$(basename "$f"): measured peak HBM '$meas' bytes, reported $rep bytes"
    n=$((n + 1))
  done
  echo "conformance corpus: $n programs within their reported peak"
fi

# A 40 GB producer, reduced over its rows and then to a scalar (an input
# fusion, then a plain reduce).  At -O0 the compiler refuses it.
cat >"$TMP/big.mlir" <<'MLIR'
func.func @main(%x: tensor<f32>) -> (tensor<f32>, tensor<100000xf32>) {
  %b = stablehlo.broadcast_in_dim %x, dims = [] : (tensor<f32>) -> tensor<100000x100000xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%b init: %z) applies stablehlo.add across dimensions = [0] : (tensor<100000x100000xf32>, tensor<f32>) -> tensor<100000xf32>
  %s = stablehlo.reduce(%r init: %z) applies stablehlo.add across dimensions = [0] : (tensor<100000xf32>, tensor<f32>) -> tensor<f32>
  return %s, %r : tensor<f32>, tensor<100000xf32>
}
MLIR
expect_status 2 "$TPUCC" -O0 "$TMP/big.mlir" -o "$TMP/big0.tpub"
expect_in "$TMP/err" "program needs 37.3 GiB of HBM at its peak but v5e has 16 GiB"
rep=$(reported "$TMP/big.mlir")
meas=$(measured "$TMP/big.mlir" --input=f32=0.5 --output=- "--output=@$TMP/row.npy")
# 100000 x 0.5 in every column; their sum folded in float32, in order.
expect_in "$TMP/run.out" "result[0]: f32=4999802880"
[ -n "$meas" ] && [ "$meas" -le "$rep" ] && [ "$meas" -lt 1048576 ] \
  || fail "100000x100000 broadcast + reduce: measured peak HBM '$meas' bytes, reported '$rep' bytes"
echo "100000x100000 broadcast + reduce: reported $rep bytes, measured $meas bytes"

# Bodies the VM cannot run tile by tile are never formed: a broadcast that
# transposes a computed value (it stays an operand of the fusion), a
# reducer wider than its input (folded with promotion, fused or not).
cat >"$TMP/shapes.mlir" <<'MLIR'
func.func @main(%x: tensor<1024x1024xf32>, %y: tensor<1024x1024xf32>, %h: tensor<1024x1024xbf16>)
    -> (tensor<1024x1024xf32>, tensor<1024xf32>) {
  %e = stablehlo.exponential %x : tensor<1024x1024xf32>
  %t = stablehlo.broadcast_in_dim %e, dims = [1, 0] : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %s = stablehlo.add %t, %y : tensor<1024x1024xf32>
  %u = stablehlo.add %s, %e : tensor<1024x1024xf32>
  %he = stablehlo.exponential %h : tensor<1024x1024xbf16>
  %hz = stablehlo.constant dense<0.0> : tensor<bf16>
  %r = stablehlo.reduce(%he init: %hz) across dimensions = [1] : (tensor<1024x1024xbf16>, tensor<bf16>) -> tensor<1024xf32>
    reducer(%a: tensor<f32>, %b: tensor<f32>) {
      %sum = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %sum : tensor<f32>
    }
  return %u, %r : tensor<1024x1024xf32>, tensor<1024xf32>
}
MLIR
check "transposing broadcast, promoted reducer" "$TMP/shapes.mlir"
# Unfused, a promoted reduce folds its input a chunk at a time too: no
# whole widened copy (8 MiB here, against a 2 MiB argument).
cat >"$TMP/promoted.mlir" <<'MLIR'
func.func @main(%h: tensor<1024x1024xbf16>) -> tensor<1024xf32> {
  %hz = stablehlo.constant dense<0.0> : tensor<bf16>
  %r = stablehlo.reduce(%h init: %hz) across dimensions = [0] : (tensor<1024x1024xbf16>, tensor<bf16>) -> tensor<1024xf32>
    reducer(%a: tensor<f32>, %b: tensor<f32>) {
      %sum = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %sum : tensor<f32>
    }
  return %r : tensor<1024xf32>
}
MLIR
check "promoted reduce at -O0" "$TMP/promoted.mlir" -O0
exit 0
