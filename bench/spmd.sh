#!/usr/bin/env bash
# bench/spmd.sh BUILD_DIR [EXAMPLE.mlir ...] — the sharded examples on the
# 8 chips of a v5e slice (issue 16's closing numbers): the FSDP training step
# (examples/fsdp_train_step.mlir), the tensor-parallel MLP
# (examples/tp_mlp.mlir) and the sharded attention
# (examples/sharded_attention.mlir), each compiled twice: with the default
# -O2 pipeline and with the same pipeline minus the collective-overlap pass
# (--passes=, the -O2 list read from `tpucc --time-passes`, so a pass added to
# -O2 later, the SPMD partitioner's included, is in both).  Per example and
# pipeline:
#   tpurun --profile   "modeled step: X us on 8 chips (ICI busy Y us, of which
#                      the chips waited Z us)": the step, the ICI time and the
#                      exposed ICI time (the chips' wait) of the simulated run
#   tpucc --report     "streams: compute C us, ICI I us; total T us, of which
#                      ICI exposed E us": the cost model's static schedule
# and the step's ratio without / with the overlap pass.  Inputs are seeded
# random data of the parameters' (global) types: the modeled times do not
# depend on the values.
set -u
BUILD=${1:?usage: bench/spmd.sh BUILD_DIR [EXAMPLE.mlir ...]}
shift
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
TPUCC="$BUILD/tpucc"
TPURUN="$BUILD/tpurun"
TARGET=${BENCH_TARGET:-v5e}
source "$HERE/lib.sh"
[ -x "$TPUCC" ] && [ -x "$TPURUN" ] || { echo "bench: $BUILD/tpucc or tpurun not built (run make)" >&2; exit 1; }
if [ $# -gt 0 ]; then
  EXAMPLES=("$@")
else
  EXAMPLES=("$ROOT/examples/fsdp_train_step.mlir" "$ROOT/examples/tp_mlp.mlir" "$ROOT/examples/sharded_attention.mlir")
fi

# The -O2 pipeline, as tpucc runs it, minus collective-overlap.
printf 'func.func public @main(%%a: tensor<2xf32>) -> tensor<2xf32> {\n  return %%a : tensor<2xf32>\n}\n' \
  >"$BENCH_TMP/id.mlir"
o2=$("$TPUCC" --no-cache --time-passes "$BENCH_TMP/id.mlir" -o "$BENCH_TMP/id.tpub" 2>&1 |
  awk '/----Name----/ { on = 1; next } on && $NF != "Total" { sub(/^ *[0-9.]+ *\( *[0-9.]+%\) */, ""); sub(/ \(.*/, ""); print }' |
  paste -sd, -)
case ",$o2," in *,collective-overlap,*) ;; *) echo "bench: no collective-overlap in the -O2 pipeline '$o2'" >&2; exit 1 ;; esac
no_overlap=$(echo ",$o2," | sed 's/,collective-overlap,/,/; s/^,//; s/,$//')
echo "target $TARGET; -O2 pipeline: $o2"
echo "without overlap: --passes=$no_overlap"

# The inputs of an example: random:SEED per parameter of @main.
inputs_of() {
  python3 - "$1" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
s = t.index("@main(")
head = t[s:t.index(") -> ", s)]
for i, _ in enumerate(re.findall(r"%[\w.$-]+: tensor<", head)):
    print(f"--input=random:{i + 1}")
PY
}

printf '\n%-22s %-11s %12s %12s %12s | %12s %12s %12s\n' example pipeline "step us" "ICI us" "exposed us" \
  "report us" "rep ICI us" "rep exp us"
status=0
for ex in "${EXAMPLES[@]}"; do
  name=$(basename "$ex" .mlir)
  mapfile -t ins < <(inputs_of "$ex")
  declare -A step=()
  for pipe in O2 no-overlap; do
    flags=(--target="$TARGET")
    [ "$pipe" = no-overlap ] && flags+=("--passes=$no_overlap")
    if ! "$TPUCC" --no-cache --report "${flags[@]}" "$ex" -o "$BENCH_TMP/$name.tpub" >"$BENCH_TMP/report" 2>"$BENCH_TMP/err"; then
      echo "bench: tpucc --report failed on $ex:" >&2; head -c 2000 "$BENCH_TMP/err" >&2; status=1; continue
    fi
    read -r _ rici rtot rexp < <(sed -n \
      's/^streams: compute \([0-9.]*\) us, ICI \([0-9.]*\) us; total \([0-9.]*\) us, of which ICI exposed \([0-9.]*\) us.*/\1 \2 \3 \4/p' \
      "$BENCH_TMP/report")
    if ! "$TPURUN" --no-cache --profile "${flags[@]}" "$ex" "${ins[@]}" >"$BENCH_TMP/profile" 2>"$BENCH_TMP/err"; then
      echo "bench: tpurun --profile failed on $ex:" >&2; head -c 2000 "$BENCH_TMP/err" >&2; status=1; continue
    fi
    read -r s chips ici waited < <(sed -n \
      's/^modeled step: \([0-9.]*\) us on \([0-9]*\) chips\{0,1\} (ICI busy \([0-9.]*\) us, of which the chips waited \([0-9.]*\) us).*/\1 \2 \3 \4/p' \
      "$BENCH_TMP/profile")
    if [ -z "${s:-}" ]; then
      echo "bench: no 'modeled step:' line from tpurun --profile on $ex" >&2; status=1; continue
    fi
    step[$pipe]=$s
    printf '%-22s %-11s %12s %12s %12s | %12s %12s %12s\n' "$name" "$pipe" "$s" "$ici" "$waited" \
      "${rtot:-n/a}" "${rici:-n/a}" "${rexp:-n/a}"
    [ "$chips" = 8 ] || echo "  (note: $chips chips, not 8)"
  done
  if [ -n "${step[O2]:-}" ] && [ -n "${step[no-overlap]:-}" ]; then
    echo "  $name: step without overlap / with overlap: $(bench_ratio "${step[no-overlap]}" "${step[O2]}")x"
  fi
  unset step
done
echo "(modeled times of the $TARGET cost model; exposed = ICI time the chips wait for, not hidden behind compute)"
exit $status
