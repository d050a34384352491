#!/usr/bin/env bash
# SPMD partitioning (issue 16, DESIGN.md §10): the sharded examples against
# NumPy and sharded variants of the conformance programs against their
# unpartitioned runs.  docs/testing.md, "SPMD tests".
#
# The examples with every sharding made {replicated} on 1 partition (the
# same global computation) against NumPy at -O0 and -O2; the examples as
# written, on the module's 8 chips, from global inputs to global results,
# against NumPy, the same bits at --threads=1, with the collectives the
# partitioning needs in the per-chip program; and every variant of the
# subset (replicated and tiled) against the unpartitioned program.
# Programs of the variant subset, spread over the corpus (make check's budget:
# under a minute on 2 cores); "all" runs every program (make check-spmd).
SPMD_LIMIT=${SPMD_LIMIT:-60}
SPMD_JOBS=${SPMD_JOBS:-2}
# Where the variants' programs, inputs and results go (default: removed at the end).
SPMD_WORK=${SPMD_WORK:-}

source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
TPURUN="$BUILD/tpurun"
REF="$ROOT/testsuite/spmd/ref_examples.py"
EXAMPLES=(tp_mlp tp_mlp_shardy fsdp_train_step sharded_attention)

"$PY" -c 'import numpy' 2>/dev/null || { echo "skipped: no numpy"; exit 0; }
[ -x "$TPURUN" ] || fail "$TPURUN not built"

# The results of an example (@main's result count).
nresults() {
  "$PY" - "$1" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
s = t.index("@main(")
sig = t[t.index(") -> (", s) + 6:t.index(") {\n", s)]
print(len(re.findall(r"tensor<", sig)))
PY
}

# run_example EXAMPLE FILE DIR TAG [TPURUN FLAGS...]: run FILE (EXAMPLE or a form of it) on
# DIR/in*.npy, write DIR/out*.npy, compare with EXAMPLE's NumPy reference.
run_example() {
  local src=$1 file=$2 d=$3 tag=$4; shift 4
  local ins=() outs=() i n
  n=$(find "$d" -maxdepth 1 -name 'in*.npy' | wc -l)
  for ((i = 0; i < n; i++)); do ins+=("--input=@$d/in$i.npy"); done
  rm -f "$d"/out*.npy
  for ((i = 0; i < $(nresults "$file"); i++)); do outs+=("--output=@$d/out$i.npy"); done
  expect_status 0 "$TPURUN" "$@" "$file" "${ins[@]}" "${outs[@]}"
  "$PY" "$REF" compare "$src" "$d" >"$TMP/cmp" 2>&1 || fail "$tag: $(cat "$TMP/cmp")"
  echo "$tag: $(cat "$TMP/cmp")"
}

# ------------------------------------------------------------ the examples
for ex in "${EXAMPLES[@]}"; do
  src="$ROOT/examples/$ex.mlir"
  [ -f "$src" ] || fail "no $src"
  d="$TMP/$ex"
  mkdir -p "$d"
  # As JAX exports them: 8 partitions, a sharding on every argument and
  # result, tiled values, and no collective written by hand.
  grep -q 'mhlo.num_partitions = 8 : i32' "$src" || fail "$ex: not a program on 8 partitions"
  if grep -nE 'stablehlo\.(all_reduce|all_gather|reduce_scatter|all_to_all|collective_permute|collective_broadcast|send|recv)\b|"stablehlo\.(all_|reduce_scatter|collective_)' "$src"; then
    fail "$ex: a hand-written collective (the partitioner inserts them)"
  fi
  "$PY" - "$src" <<'PY' || fail "$ex: an argument or result without a sharding, or nothing tiled"
import re, sys
t = open(sys.argv[1]).read()
s = t.index("@main(")
head = t[s:t.index(") {\n", s)]
args, res = head.split(") -> (", 1)
chunks = re.split(r"%arg\d+: ", args)[1:] + res.split("tensor<")[1:]
tiled = re.search(r'devices=\[|\{"', head)
sys.exit(0 if chunks and all("sharding" in c for c in chunks) and tiled else 1)
PY
  "$PY" "$REF" inputs "$src" "$d" || fail "$ex: could not write the inputs"
  # The same global computation with every sharding replicated: must
  # already equal NumPy.
  "$PY" "$REF" strip "$src" "$d/replicated.mlir" || fail "$ex: strip failed"
  grep -v '^ *//' "$d/replicated.mlir" | grep -qE 'devices=\[|"[^"]*"=([2-9]|[1-9][0-9])|num_partitions = [^1]' &&
    fail "$ex: strip left a tiled sharding"
  run_example "$src" "$d/replicated.mlir" "$d" "$ex replicated -O0" -O0
  run_example "$src" "$d/replicated.mlir" "$d" "$ex replicated -O2"
    # Partitioned on the module's 8 chips: global inputs, global results.
    run_example "$src" "$src" "$d" "$ex on 8 chips"
    for f in "$d"/out*.npy; do cp "$f" "$d/default_${f##*/}"; done
    run_example "$src" "$src" "$d" "$ex on 8 chips, --threads=1" --threads=1
    for f in "$d"/out*.npy; do
      cmp -s "$f" "$d/default_${f##*/}" || fail "$ex: --threads=1 gives other bits than the default (${f##*/})"
    done
    # The per-chip program holds the collectives the shardings need.
    expect_status 0 "$TPUCC" --emit=mlir "$src"
    cp "$TMP/out" "$d/partitioned.mlir"
    case $ex in
      tp_mlp*|sharded_attention) want=(all_reduce) ;;
      fsdp_train_step) want=(all_gather 'reduce_scatter|all_reduce') ;;
    esac
    for w in "${want[@]}"; do
      grep -qE "stablehlo\.($w)\b" "$d/partitioned.mlir" ||
        fail "$ex: no stablehlo.($w) in the partitioned program (tpucc --emit=mlir)"
    done
done

# ------------------------------------------------------------ conformance variants
limit=()
[ "$SPMD_LIMIT" = all ] || limit=("--limit=$SPMD_LIMIT")
work=${SPMD_WORK:-$TMP/variants}
"$PY" "$ROOT/testsuite/spmd/run_variants.py" "$BUILD" --jobs="$SPMD_JOBS" "${limit[@]}" \
  --work="$work" >"$TMP/variants.log" 2>&1
rc=$?
cat "$TMP/variants.log"
tail -n 1 "$TMP/variants.log" | grep -qE '^spmd variants: [0-9]+ run, [0-9]+ passed, 0 failed' ||
  fail "the sharded variants failed (exit $rc)"
[ $rc -eq 0 ] || fail "run_variants.py exited $rc"
if grep -q '^spmd variants: 0 run' "$TMP/variants.log" && ! grep -q 'no conformance corpus' "$TMP/variants.log"; then
  fail "no variant ran"
fi

# The harness's tiled path, checked without a partitioner: a stand-in
# tpurun that runs a variant with its shardings made {replicated} on one
# partition (a "partitioner" that is right by construction: global inputs,
# global results) must pass every tiled variant; one that also changes one
# element of every result of a tiled variant must fail each of them.
fake="$TMP/fake-build"
mkdir -p "$fake"
for mode in right wrong; do
  cat >"$fake/tpurun" <<SH
#!/usr/bin/env bash
args=() outs=() tiled=0
for a in "\$@"; do
  if [[ \$a == *.mlir && -f \$a ]]; then
    grep -qE 'devices=\\[|sdy\.sharding' "\$a" && tiled=1
    t=\$(mktemp "$TMP/fake.XXXXXX.mlir")
    sed -E 's/mhlo\.sharding = "[^"]*"/mhlo.sharding = "{replicated}"/g; s/mhlo\.num_partitions = [0-9]+/mhlo.num_partitions = 1/; /sdy\.mesh/ s/"=[0-9]+/"=1/g' "\$a" >"\$t"
    a=\$t
  fi
  [[ \$a == --output=@* ]] && outs+=("\${a#--output=@}")
  args+=("\$a")
done
"$TPURUN" "\${args[@]}" || exit
if [ $mode = wrong ] && [ \$tiled = 1 ]; then
  # flip the low bit of the last byte of the data: every element type changes value
  "$PY" -S -c '
import struct, sys
for f in sys.argv[1:]:
    b = bytearray(open(f, "rb").read())
    hl = struct.unpack("<H", b[8:10])[0] if b[6] == 1 else struct.unpack("<I", b[8:12])[0]
    if len(b) > (10 if b[6] == 1 else 12) + hl:
        b[-1] ^= 1
        open(f, "wb").write(b)' "\${outs[@]}"
fi
SH
  chmod +x "$fake/tpurun"
  "$PY" "$ROOT/testsuite/spmd/run_variants.py" "$fake" --jobs="$SPMD_JOBS" --limit=6 \
    --work="$TMP/fake-$mode" >"$TMP/fake-$mode.log" 2>&1
  rc=$?
  last=$(tail -n 1 "$TMP/fake-$mode.log")
  echo "harness self-test, a stand-in partitioner that is $mode: $last"
  [[ $last =~ ^spmd\ variants:\ ([0-9]+)\ run,\ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]] ||
    fail "self-test ($mode): $(tail -n 5 "$TMP/fake-$mode.log")"
  ran=${BASH_REMATCH[1]} passed=${BASH_REMATCH[2]} failed=${BASH_REMATCH[3]}
  if [ $mode = right ]; then
    [ "$rc" -eq 0 ] && [ "$failed" -eq 0 ] && [ "$ran" -gt 50 ] ||
      fail "self-test: the stand-in partitioner fails: $(head -n 5 "$TMP/fake-$mode.log")"
  else
    # only the replicated variants (3 per program) pass; each tiled one (Shardy's too) fails on its results
    rep=$((3 * $(sed -n 's/^programs: \([0-9]*\),.*/\1/p' "$TMP/fake-$mode.log")))
    bad=$(grep -c '^FAIL .*/N[0-9]*_[a-z0-9]*: result [0-9]*: [0-9]* of' "$TMP/fake-$mode.log")
    [ "$rc" -eq 1 ] && [ "$passed" -eq "$rep" ] && [ "$bad" -eq $((ran - rep)) ] ||
      fail "self-test: changed results of tiled variants pass ($passed passed, $bad failed on their results; want the $rep replicated ones to pass and the rest to fail)"
  fi
done

exit 0
