#!/usr/bin/env bash
# The real model exports run end to end with seeded random inputs (and
# random stand-ins for elided weights), and give the same results at -O0
# and at the highest optimization level (within float tolerance).
source "$(dirname "$0")/lib.sh"
TPURUN="$BUILD/tpurun"
CONF=${TPU_CONFORMANCE_DIR:-$ROOT/../shared/conformance}
MODELS=${TPU_MODELS_DIR:-$(dirname "$CONF")/models}
shopt -s nullglob
models=("$MODELS"/*.mlir)
[ ${#models[@]} -gt 0 ] || { echo "skipped: no models in $MODELS"; exit 0; }
for m in "${models[@]}"; do
  name=$(basename "$m" .mlir)
  # One --input=random and one --output=@FILE per parameter / result.
  sig=$(grep -m1 'func.func public @main' "$m")
  nin=$(grep -o '%arg[0-9]*:' <<<"$sig" | wc -l)
  nout=$(sed 's/.*) -> //' <<<"$sig" | grep -o 'tensor<' | wc -l)
  ins=(); for ((i = 0; i < nin; i++)); do ins+=(--input=random); done
  for o in 0 2; do
    outs=(); for ((i = 0; i < nout; i++)); do outs+=("--output=@$TMP/$name.O$o.$i.npy"); done
    expect_status 0 "$TPURUN" "-O$o" --seed=7 "$m" "${ins[@]}" "${outs[@]}"
  done
  for ((i = 0; i < nout; i++)); do
    a=$TMP/$name.O0.$i.npy b=$TMP/$name.O2.$i.npy
    [ -s "$a" ] && [ -s "$b" ] || fail "$name: result $i not written"
    if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
      /usr/bin/python3 - "$a" "$b" <<'PY' || fail "$name: result $i differs between -O0 and -O2"
import sys, numpy as np
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
assert a.shape == b.shape and np.isfinite(a).all(), "non-finite or shape mismatch"
assert np.allclose(a, b, rtol=1e-4, atol=1e-5), abs(a - b).max()
PY
    else
      cmp -s "$a" "$b" || fail "$name: result $i differs between -O0 and -O2"
    fi
  done
  echo "$name: $nin inputs, $nout results, -O0 and -O2 agree"
done
exit 0
