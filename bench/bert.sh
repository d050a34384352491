#!/usr/bin/env bash
# bench/bert.sh BUILD_DIR — a BERT-base encoder as a PyTorch export writes it
# (bench/gen_bert.py) on tpurun against the same model in PyTorch eager
# (bench/bert_torch.py, same .npy weights), at batch 1 x 7 tokens and batch
# 8 x 128 tokens.  Per size: the median forward time of each tool (compute
# only: inputs in memory, `tpurun --benchmark=N`'s median of N runs after a
# warm-up, PyTorch's median of N forwards under torch.no_grad() after a
# warm-up), at each thread count of BERT_THREADS for both tools,
# BERT_ROUNDS processes per tool and thread count, interleaved, median over
# them; tpurun's results at -O0 and -O2 checked allclose to PyTorch's; then
# `tpurun --profile` at both levels, summed by op kind and, for the matmuls
# and transposes, by size.  Ratios > 1 mean tpurun is faster.  See
# bench/README.md.
#
# Environment: BERT_SIZES (default "1x7 8x128"), BERT_ROUNDS (processes per
# tool, thread count and size, default 3), BERT_RUNS_SMALL / BERT_RUNS_LARGE
# (timed runs per process below / from 1024 tokens, default 20 / 5),
# BERT_THREADS (the thread counts both tools run with, default "1 NPROC"),
# BERT_LAYERS (default 12), BERT_PROFILE (0 skips the profiles).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
BUILD=${1:?usage: bench/bert.sh BUILD_DIR}
PY=/usr/bin/python3
SIZES=${BERT_SIZES:-1x7 8x128}
ROUNDS=${BERT_ROUNDS:-3}
THREADS=${BERT_THREADS:-1 $(nproc)}
LAYERS=${BERT_LAYERS:-12}
PROFILE=${BERT_PROFILE:-1}
DIR="$BUILD/bench/bert"
[ -x "$BUILD/tpurun" ] && [ -x "$BUILD/tpucc" ] || { echo "bench: tpurun/tpucc not built in $BUILD (run make)" >&2; exit 1; }
"$PY" -c 'import numpy' 2>/dev/null || { echo "skipped: $PY has no numpy"; exit 0; }
have_torch=1
"$PY" -c 'import torch' 2>/dev/null || { have_torch=0; echo "PyTorch not importable by $PY: tpurun alone, no peer (apt-get install python3-torch)"; }
mkdir -p "$DIR" || exit 1

# median_of FILE: the median of the numbers in FILE (one a line).
median_of() { sort -g "$1" | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
min_of() { sort -g "$1" | head -n 1; }
# ms_of TEXT: the median and the minimum of a "... median M ms, min m ms ..." line.
ms_of() { sed -n 's/.*median \([0-9.]*\) ms, min \([0-9.]*\) ms.*/\1 \2/p'; }

# profile_summary FILE TOP: the ops of a --profile table summed by op kind.
profile_summary() {
  awk -v top="$2" '
    $NF ~ /^\(.*\)$/ && $1 ~ /^[0-9.]+$/ { k = $(NF - 1); n[k]++; t[k] += $1; tot += $1 }
    END { for (k in t) printf "%12.3f %6.1f%% %6d  %s\n", t[k], 100 * t[k] / tot, n[k], k | "sort -rn | head -n " top
          close("sort -rn | head -n " top); printf "%12.3f %6.1f%% %6s  (all ops, host ms)\n", tot, 100, "" }' "$1"
}

# profile_shapes FILE TOP: the dot_general, tpu.fusion(output) and transpose
# ops of a --profile table grouped by kind and size (GFLOP, HBM MB).
profile_shapes() {
  awk -v top="$2" '
    $NF ~ /^\(.*\)$/ && $1 ~ /^[0-9.]+$/ && $(NF - 1) ~ /dot_general|fusion\(output\)|transpose/ {
      k = sprintf("%-20s %8s %9s", $(NF - 1), $(NF - 3), $(NF - 2)); n[k]++; t[k] += $1 }
    END { for (k in t) printf "%12.3f %6d %10.3f  %s\n", t[k], n[k], t[k] / n[k], k | "sort -rn | head -n " top }' "$1"
}

echo "bert: BERT-base encoder ($LAYERS layers, hidden 768, 12 heads, intermediate 3072, vocab 30522), f32"
echo "  $ROUNDS processes per tool, thread count and size, interleaved; threads: $THREADS (tpurun --threads=T, torch.set_num_threads(T));"
[ $have_torch = 1 ] && echo "  PyTorch's own default here: $("$PY" -c 'import torch; print(torch.get_num_threads())') thread(s); tpurun's: one per core ($(nproc))"
echo "  generate: $PY bench/gen_bert.py --layers $LAYERS --batch B --seq S $DIR/bert-BxS.mlir $DIR/data"
echo "  tpurun:   tpucc -OL FILE.mlir -o FILE.OL.tpub; tpurun --threads=T --benchmark=N FILE.OL.tpub \$(inputs)"
[ $have_torch = 1 ] && echo "  PyTorch:  $PY bench/bert_torch.py $DIR/data --batch B --seq S --threads T --repeat N"
echo "  (ms: the median over the processes of each process's median of N runs; min: the fastest run seen)"
summary=()
declare -A cc
last_threads=${THREADS##* }
for size in $SIZES; do
  b=${size%x*} s=${size#*x}
  runs=${BERT_RUNS_SMALL:-20}; [ $((b * s)) -ge 1024 ] && runs=${BERT_RUNS_LARGE:-5}
  m="$DIR/bert-$size.mlir"
  "$PY" "$HERE/gen_bert.py" --layers "$LAYERS" --batch "$b" --seq "$s" "$m" "$DIR/data" >"$DIR/bert-$size.args" \
    || { echo "bench: gen_bert.py failed" >&2; exit 1; }
  mapfile -t ins <"$DIR/bert-$size.args"
  for o in O0 O2; do
    t0=$EPOCHREALTIME
    "$BUILD/tpucc" -$o "$m" -o "$DIR/bert-$size.$o.tpub" 2>"$BENCH_TMP/cc.err" \
      || { echo "bench: tpucc -$o $m failed:" >&2; cat "$BENCH_TMP/cc.err" >&2; exit 1; }
    cc[$o]=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
    # The result, for the allclose check (one untimed process).
    "$BUILD/tpurun" "$DIR/bert-$size.$o.tpub" "${ins[@]}" --output=@"$DIR/out-$size.$o.npy" 2>"$BENCH_TMP/run.err" \
      || { echo "bench: tpurun $DIR/bert-$size.$o.tpub failed:" >&2; cat "$BENCH_TMP/run.err" >&2; exit 1; }
  done
  tools=(O0 O2); [ $have_torch = 1 ] && tools+=(torch)
  load0=$(cut -d' ' -f1-3 /proc/loadavg)
  keys=()
  for th in $THREADS; do for t in "${tools[@]}"; do keys+=("$t.$th"); done; done
  for k in "${keys[@]}"; do : >"$BENCH_TMP/med.$k"; : >"$BENCH_TMP/min.$k"; done
  for ((r = 0; r < ROUNDS; r++)); do
    order=("${keys[@]}"); [ $((r % 2)) = 1 ] && order=($(printf '%s\n' "${keys[@]}" | tac))
    for k in "${order[@]}"; do
      t=${k%.*} th=${k#*.}
      if [ "$t" = torch ]; then
        line=$("$PY" "$HERE/bert_torch.py" "$DIR/data" --batch "$b" --seq "$s" --threads "$th" --repeat "$runs" 2>"$BENCH_TMP/err" | grep '^torch:')
      else
        line=$("$BUILD/tpurun" --threads="$th" --benchmark="$runs" "$DIR/bert-$size.$t.tpub" "${ins[@]}" 2>"$BENCH_TMP/err" | grep '^benchmark:')
      fi
      [ -n "$line" ] || { echo "bench: $t at $size, $th threads, failed:" >&2; head -c 4000 "$BENCH_TMP/err" >&2; exit 1; }
      read -r med mn < <(ms_of <<<"$line")
      echo "$med" >>"$BENCH_TMP/med.$k"; echo "$mn" >>"$BENCH_TMP/min.$k"
    done
  done
  echo
  echo "batch $b x $s tokens ($runs timed runs per process; compile: tpucc -O0 ${cc[O0]} s, -O2 ${cc[O2]} s;" \
    "load average $load0 before, $(cut -d' ' -f1-3 /proc/loadavg) after, on $(nproc) CPUs)"
  printf '  %-14s %7s %12s %12s %14s %14s\n' tool threads "median ms" "min ms" "PyTorch/tool" "by min"
  for th in $THREADS; do
    pt=0 ptmin=0
    if [ $have_torch = 1 ]; then pt=$(median_of "$BENCH_TMP/med.torch.$th"); ptmin=$(min_of "$BENCH_TMP/min.torch.$th"); fi
    for t in "${tools[@]}"; do
      name="tpurun -$t"; [ "$t" = torch ] && name="PyTorch eager"
      med=$(median_of "$BENCH_TMP/med.$t.$th") mn=$(min_of "$BENCH_TMP/min.$t.$th")
      printf '  %-14s %7s %12.3f %12.3f %14s %14s\n' "$name" "$th" "$med" "$mn" "$(bench_ratio "$pt" "$med")" "$(bench_ratio "$ptmin" "$mn")"
    done
  done
  if [ $have_torch = 1 ]; then
    "$PY" "$HERE/bert_torch.py" "$DIR/data" --batch "$b" --seq "$s" --repeat 0 --out "$DIR/out-$size.torch.npy" \
      --compare "$DIR/out-$size.O0.npy" "$DIR/out-$size.O2.npy" | sed 's/^/  /'
    close=${PIPESTATUS[0]}
    [ "$close" = 0 ] || echo "  bench: tpurun's result is NOT allclose to PyTorch's at $size" >&2
    for th in $THREADS; do
      pt=$(median_of "$BENCH_TMP/med.torch.$th")
      for o in O0 O2; do
        r=$(bench_ratio "$pt" "$(median_of "$BENCH_TMP/med.$o.$th")")
        verdict="met"; awk -v r="$r" 'BEGIN { exit !(r >= 2) }' || verdict="NOT met"
        slower=""; awk -v r="$r" 'BEGIN { exit !(r < 1) }' && slower="below 1: slower; "
        line="$size, $th thread(s): tpurun -$o is ${r}x faster than PyTorch eager (${slower}target >= 2: $verdict)"
        echo "  $line"; summary+=("$line")
      done
    done
    # Each tool at its fastest thread count (the medians).
    best() { for th in $THREADS; do echo "$(median_of "$BENCH_TMP/med.$1.$th") $th"; done | sort -g | head -n 1; }
    read -r pt pth < <(best torch)
    for o in O0 O2; do
      read -r bt bth < <(best "$o")
      r=$(bench_ratio "$pt" "$bt")
      verdict="met"; awk -v r="$r" 'BEGIN { exit !(r >= 2) }' || verdict="NOT met"
      line="$size, each at its best thread count: tpurun -$o ($bth) is ${r}x faster than PyTorch eager ($pth) (target >= 2: $verdict)"
      echo "  $line"; summary+=("$line")
    done
  fi
  if [ "$PROFILE" != 0 ]; then
    for o in O0 O2; do
      "$BUILD/tpurun" --threads="$last_threads" --profile "$DIR/bert-$size.$o.tpub" "${ins[@]}" --output=@/dev/null \
        >"$DIR/profile-$size.$o.txt" 2>/dev/null || { echo "bench: tpurun --profile failed" >&2; exit 1; }
      echo "  tpurun -$o --threads=$last_threads --profile (one run, $DIR/profile-$size.$o.txt), host ms by op kind:"
      printf '  %12s %7s %6s  %s\n' "host ms" share ops "op"
      profile_summary "$DIR/profile-$size.$o.txt" 6 | sed 's/^/  /'
      echo "  ... the matmuls and transposes by size:"
      printf '  %12s %6s %10s  %-20s %8s %9s\n' "host ms" ops "ms per op" op GFLOP "HBM MB"
      profile_shapes "$DIR/profile-$size.$o.txt" 6 | sed 's/^/  /'
    done
  fi
done
if [ ${#summary[@]} -gt 0 ]; then
  echo
  printf '%s\n' "${summary[@]}"
fi
exit 0
