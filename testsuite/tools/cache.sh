#!/usr/bin/env bash
# The compilation cache (DESIGN.md §5, issue 5), through the tools:
#   0. where the cache lives: --cache-dir, $TPU_CACHE_DIR, $XDG_CACHE_HOME,
#      $HOME/.cache; --no-cache; tpucc only when asked;
#   1. key stability and sensitivity (tpucc --explain-cache);
#   2. miss then hit (tpurun --metrics), --cache-stats, --cache-clear, tpucc;
#   3. corrupt entries (truncated, flipped bytes, garbage, empty): a warned
#      miss, correct results, a good entry afterwards;
#   4. an unwritable directory and a full file system: warned, still correct;
#   5. 8 concurrent processes, 4 programs, 3 rounds (CACHE_ROUNDS) into one
#      empty directory;
#   6. least-recently-used eviction down to --cache-max-size;
#   7. a program found in the cache under another file's name reports its
#      own file in check results.
#   8. an entry that checks out but whose program does not load (written by
#      another build under the same versions): warned, compiled again, replaced.
#   9. one program's alias or entry copied over another's: a warned, removed
#      miss; the right program runs.
# Each case runs in a subshell and stops at its first broken expectation; the
# script reports every case and exits 1 if any failed.  CACHE_CASES="2 5"
# runs only those cases.  Every result is compared with a --no-cache run.
source "$(dirname "$0")/lib.sh"
TPURUN="$BUILD/tpurun"

# Never touch the user's cache: the defaults point into $TMP.
unset TPU_CACHE_DIR TPU_CACHE_FAIL_WRITES
export HOME="$TMP/home" XDG_CACHE_HOME="$TMP/xdg"
mkdir -p "$HOME"

# Mounts made by the cases (tmpfs); unmounted before $TMP is removed.
MOUNTS="$TMP/mounts"
: >"$MOUNTS"
cleanup() {
  local m
  while read -r m; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done < <(tac "$MOUNTS")
  rm -rf "$TMP"
}
trap cleanup EXIT
can_mount() {
  local d="$TMP/mount-probe"
  mkdir -p "$d"
  mount -t tmpfs -o size=64k tmpfs "$d" 2>/dev/null || return 1
  umount "$d"
}
# tmpfs_at DIR OPTS: mount a tmpfs with OPTS on DIR (created), remembered.
tmpfs_at() {
  mkdir -p "$1"
  mount -t tmpfs -o "$2" tmpfs "$1" || fail "mount -t tmpfs -o $2 on $1 failed"
  echo "$1" >>"$MOUNTS"
}

# ------------------------------------------------------------------ helpers
# The base program and its inputs.
IN=(--input=2x3xf32=1,-2,3,-4,5,-6 --input=2x3xf32=0.5,0.5,0.5,0.5,0.5,0.5)
# prog FILE CONST [SHAPE] [OP] [DIR]: the base program with one thing changed.
prog() {
  local f=$1 c=$2 s=${3:-2x3} op=${4:-add} dir=${5:-GT}
  cat >"$f" <<MLIR
func.func @main(%a: tensor<${s}xf32>, %b: tensor<${s}xf32>) -> tensor<${s}xf32> {
  %c = stablehlo.constant dense<$c> : tensor<${s}xf32>
  %0 = stablehlo.multiply %a, %c : tensor<${s}xf32>
  %1 = stablehlo.$op %0, %b : tensor<${s}xf32>
  %2 = stablehlo.compare $dir, %1, %b : (tensor<${s}xf32>, tensor<${s}xf32>) -> tensor<${s}xi1>
  %3 = stablehlo.select %2, %1, %b : tensor<${s}xi1>, tensor<${s}xf32>
  return %3 : tensor<${s}xf32>
}
MLIR
}
prog "$TMP/p.mlir" 2.0
# The same program: other whitespace, SSA names, locations (inline and aliased).
cat >"$TMP/p_same.mlir" <<'MLIR'
#loc1 = loc("model.py":10:3)
// a comment
func.func @main(%x: tensor<2x3xf32> loc("a"),   %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %two = stablehlo.constant dense<2.0> : tensor<2x3xf32> loc(#loc1)
      %m = stablehlo.multiply %x,%two : tensor<2x3xf32> loc("x.py":1:1)

  %s = stablehlo.add %m, %y : tensor<2x3xf32>   loc(unknown)
  %p = stablehlo.compare  GT, %s, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %r = stablehlo.select %p, %s, %y : tensor<2x3xi1>, tensor<2x3xf32>
  return %r : tensor<2x3xf32>
} loc(#loc1)
MLIR

# ref NAME FILE ARGS...: the --no-cache results of FILE into $TMP/ref-NAME.
ref() {
  local n=$1; shift
  "$TPURUN" --no-cache "$@" >"$TMP/ref-$n" 2>"$TMP/ref-$n.err" \
    || fail "tpurun --no-cache $* exited $?: $(head -c 400 "$TMP/ref-$n.err")"
  [ -s "$TMP/ref-$n" ] || fail "tpurun --no-cache $* printed nothing"
}
# run OUT ARGS...: tpurun ARGS into OUT.out / OUT.err; must exit 0.
run() {
  local o=$1; shift
  "$TPURUN" "$@" >"$o.out" 2>"$o.err" || fail "tpurun $* exited $?: $(head -c 600 "$o.err")"
}
# same_as REF OUT: OUT.out holds the reference results.
same_as() { cmp -s "$TMP/ref-$1" "$2.out" || fail "results of $(basename "$2") differ from the --no-cache run: $(diff "$TMP/ref-$1" "$2.out" | head -c 400)"; }
# metrics ERR C H M: the --metrics line says C compiles, H hits, M misses.
metrics() {
  local line
  line=$(grep -E '^metrics: compiles [0-9]+, cache hits [0-9]+, cache misses [0-9]+, compile time [0-9.]+ ms, load time [0-9.]+ ms, peak HBM [0-9]+ bytes$' "$1") \
    || fail "no well-formed metrics line in $(basename "$1"): $(head -c 600 "$1")"
  [ "$(grep -c '^metrics:' "$1")" -eq 1 ] || fail "more than one metrics line in $(basename "$1")"
  [[ $line == "metrics: compiles $2, cache hits $3, cache misses $4,"* ]] \
    || fail "expected compiles $2, cache hits $3, cache misses $4 in $(basename "$1"); got '$line'"
}
# no_cache_warning ERR: nothing about the cache but the metrics line.
no_cache_warning() {
  ! grep -v '^metrics:' "$1" | grep -qi 'cache' || fail "unexpected cache message in $(basename "$1"): $(grep -v '^metrics:' "$1" | grep -i cache | head -3)"
}
# entries DIR: the number of *.tpuc files.
entries() { find "$1" -maxdepth 1 -name '*.tpuc' -type f | wc -l; }
entry_bytes() { find "$1" -maxdepth 1 -name '*.tpuc' -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}'; }
# explain OUT ARGS...: tpucc --explain-cache ARGS into OUT; checks its form.
explain() {
  local o=$1; shift
  "$TPUCC" --explain-cache "$@" >"$o" 2>"$o.err" || fail "tpucc --explain-cache $* exited $?: $(head -c 400 "$o.err")"
  local n
  for n in ir tpucc_version format_version target options; do
    [ "$(grep -cE "^ +$n +[0-9a-f]{16}( |\$)" "$o")" -eq 1 ] || fail "--explain-cache: no line '  $n  HASH16HEX  VALUE' in: $(cat "$o")"
  done
  grep -qE '^key: [0-9a-f]{32}$' "$o" || fail "--explain-cache: no 'key: 32HEX' line in: $(cat "$o")"
  grep -qE '^status: (hit|miss)$' "$o" || fail "--explain-cache: no 'status: hit|miss' line in: $(cat "$o")"
}
part() { awk -v n="$2" '$1 == n { print $2 }' "$1"; }
key() { sed -n 's/^key: //p' "$1"; }
status() { sed -n 's/^status: //p' "$1"; }
# stat_of DIR FIELD: a field of tpucc --cache-stats.
stats() {
  "$TPUCC" --cache-stats --cache-dir="$1" >"$TMP/stats" 2>"$TMP/stats.err" || fail "tpucc --cache-stats exited $?: $(cat "$TMP/stats.err")"
}
stat_of() { sed -n "s/^$1: //p" "$TMP/stats"; }
# same_payload A B: two entries hold the same .tpub (after the 64-byte
# header, which records the time it was written) and have the same size.
same_payload() {
  [ "$(stat -c %s "$1")" = "$(stat -c %s "$2")" ] && cmp -s <(tail -c +65 "$1") <(tail -c +65 "$2")
}
# flip FILE OFFSET: invert one byte.
flip() {
  local b
  b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
  [ -n "$b" ] || fail "flip: $1 has no byte at $2"
  printf "$(printf '\\%03o' $((b ^ 255)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

ref p "$TMP/p.mlir" "${IN[@]}"
# The directory's own bookkeeping files (counters, lock...): whatever a plain
# run leaves besides entries (*.tpuc) and aliases (*.alias).  Anything else
# left behind is a stray temporary file.
"$TPURUN" --cache-dir="$TMP/baseline" "$TMP/p.mlir" "${IN[@]}" >/dev/null 2>&1 || fail "tpurun --cache-dir failed"
ls -A "$TMP/baseline" | grep -v -e '\.tpuc$' -e '\.alias$' >"$TMP/meta"
# strays DIR: files in DIR that are neither entries, aliases nor bookkeeping.
strays() { ls -A "$1" | grep -v -e '\.tpuc$' -e '\.alias$' | grep -vxF -f "$TMP/meta"; }

# ------------------------------------------------------------------ cases
case0() {  # where the cache lives
  local d="$TMP/c0"
  mkdir -p "$d"
  # --cache-dir wins over $TPU_CACHE_DIR, which wins over the defaults.
  TPU_CACHE_DIR="$d/env" run "$d/r1" --cache-dir="$d/flag" "$TMP/p.mlir" "${IN[@]}"
  same_as p "$d/r1"
  [ "$(entries "$d/flag")" -eq 1 ] || fail "--cache-dir: expected 1 entry in it, found $(entries "$d/flag")"
  [ ! -e "$d/env" ] || [ "$(entries "$d/env")" -eq 0 ] || fail "\$TPU_CACHE_DIR used although --cache-dir was given"
  TPU_CACHE_DIR="$d/env" run "$d/r2" "$TMP/p.mlir" "${IN[@]}"
  [ "$(entries "$d/env")" -eq 1 ] || fail "tpurun with \$TPU_CACHE_DIR: no entry in it"
  run "$d/r3" "$TMP/p.mlir" "${IN[@]}"
  [ "$(entries "$XDG_CACHE_HOME/tpucc")" -eq 1 ] || fail "tpurun without a directory: no entry in \$XDG_CACHE_HOME/tpucc"
  XDG_CACHE_HOME='' run "$d/r4" "$TMP/p.mlir" "${IN[@]}"
  (unset XDG_CACHE_HOME; run "$d/r5" "$TMP/p.mlir" "${IN[@]}") || exit 1
  [ "$(entries "$HOME/.cache/tpucc")" -eq 1 ] || fail "tpurun without \$XDG_CACHE_HOME: no entry in \$HOME/.cache/tpucc"
  same_as p "$d/r5"
  # --no-cache writes nothing, and compiles.
  run "$d/r6" --no-cache --metrics --cache-dir="$d/none" "$TMP/p.mlir" "${IN[@]}"
  same_as p "$d/r6"
  [ ! -e "$d/none" ] || [ "$(entries "$d/none")" -eq 0 ] || fail "--no-cache wrote an entry"
  grep -qE '^metrics: compiles 1, cache hits 0,' "$d/r6.err" || fail "--no-cache --metrics: expected 'compiles 1, cache hits 0': $(cat "$d/r6.err")"
  # tpucc uses the cache only when asked.
  rm -rf "$XDG_CACHE_HOME/tpucc"
  expect_status 0 "$TPUCC" "$TMP/p.mlir" -o "$d/a.tpub"
  [ ! -e "$XDG_CACHE_HOME/tpucc" ] || [ "$(entries "$XDG_CACHE_HOME/tpucc")" -eq 0 ] || fail "tpucc used the default cache unasked"
  TPU_CACHE_DIR="$d/tenv" expect_status 0 "$TPUCC" "$TMP/p.mlir" -o "$d/b.tpub"
  [ "$(entries "$d/tenv")" -eq 1 ] || fail "tpucc with \$TPU_CACHE_DIR: no entry"
  expect_status 0 "$TPUCC" --cache-dir="$d/tflag" "$TMP/p.mlir" -o "$d/c.tpub"
  [ "$(entries "$d/tflag")" -eq 1 ] || fail "tpucc --cache-dir: no entry"
  expect_status 0 "$TPUCC" --no-cache --cache-dir="$d/tno" "$TMP/p.mlir" -o "$d/d.tpub"
  [ ! -e "$d/tno" ] || [ "$(entries "$d/tno")" -eq 0 ] || fail "tpucc --no-cache wrote an entry"
  # --cache-stats names the directory it resolved.
  TPU_CACHE_DIR="$d/env" expect_status 0 "$TPUCC" --cache-stats
  expect_in "$TMP/out" "cache: $d/env"
  expect_status 0 "$TPUCC" --cache-stats
  expect_in "$TMP/out" "cache: $XDG_CACHE_HOME/tpucc"
  expect_status 1 "$TPURUN" --cache-max-size=lots "$TMP/p.mlir"
  expect_status 1 "$TPUCC" --cache-max-size=12Q --cache-dir="$d/x" "$TMP/p.mlir" -o "$d/e.tpub"
}

case1() {  # key stability and sensitivity
  local d="$TMP/c1" n
  mkdir -p "$d"
  explain "$d/base" "$TMP/p.mlir"
  # Same program, other spelling; and the same bytes under another name.
  explain "$d/same" "$TMP/p_same.mlir"
  for n in ir tpucc_version format_version target options; do
    [ "$(part "$d/base" $n)" = "$(part "$d/same" $n)" ] || fail "whitespace/SSA names/loc(...) changed the '$n' hash: $(cat "$d/base" "$d/same")"
  done
  [ "$(key "$d/base")" = "$(key "$d/same")" ] || fail "whitespace/SSA names/loc(...) changed the key"
  cp "$TMP/p.mlir" "$d/elsewhere.mlir"
  explain "$d/moved" "$d/elsewhere.mlir"
  [ "$(key "$d/base")" = "$(key "$d/moved")" ] || fail "the file's name changed the key"
  # The defaults spelled out, and debug options, do not change the key.
  local o
  for o in -O2 --target=v5e --time-passes --verify-each; do
    explain "$d/opt" "$TMP/p.mlir" "$o"
    [ "$(key "$d/base")" = "$(key "$d/opt")" ] || fail "$o changed the key: $(cat "$d/base" "$d/opt")"
  done
  # A changed constant, shape, op or attribute changes the ir hash only.
  prog "$d/const.mlir" 2.5
  prog "$d/shape.mlir" 2.0 3x2
  prog "$d/op.mlir" 2.0 2x3 subtract
  prog "$d/attr.mlir" 2.0 2x3 add LT
  local v
  for v in const shape op attr; do
    explain "$d/$v" "$d/$v.mlir"
    [ "$(part "$d/base" ir)" != "$(part "$d/$v" ir)" ] || fail "a changed $v did not change the ir hash"
    [ "$(key "$d/base")" != "$(key "$d/$v")" ] || fail "a changed $v did not change the key"
    for n in tpucc_version format_version target options; do
      [ "$(part "$d/base" $n)" = "$(part "$d/$v" $n)" ] || fail "a changed $v changed the '$n' hash"
    done
  done
  # Options and the target change their own component.
  for v in -O1 -O0 --passes=dce; do
    explain "$d/o" "$TMP/p.mlir" "$v"
    [ "$(part "$d/base" options)" != "$(part "$d/o" options)" ] || fail "$v did not change the options hash"
    [ "$(key "$d/base")" != "$(key "$d/o")" ] || fail "$v did not change the key"
    for n in ir tpucc_version format_version target; do
      [ "$(part "$d/base" $n)" = "$(part "$d/o" $n)" ] || fail "$v changed the '$n' hash"
    done
  done
  explain "$d/t" "$TMP/p.mlir" --target=v6e
  [ "$(part "$d/base" target)" != "$(part "$d/t" target)" ] || fail "--target=v6e did not change the target hash"
  [ "$(key "$d/base")" != "$(key "$d/t")" ] || fail "--target=v6e did not change the key"
  for n in ir tpucc_version format_version options; do
    [ "$(part "$d/base" $n)" = "$(part "$d/t" $n)" ] || fail "--target=v6e changed the '$n' hash"
  done
  # status: miss, then hit once tpucc stored the entry, under that key's name.
  explain "$d/s1" --cache-dir="$d/cache" "$TMP/p.mlir"
  [ "$(status "$d/s1")" = miss ] || fail "--explain-cache on an empty cache: $(status "$d/s1")"
  expect_status 0 "$TPUCC" --cache-dir="$d/cache" "$TMP/p.mlir" -o "$d/p.tpub"
  [ -f "$d/cache/$(key "$d/base").tpuc" ] || fail "no entry $(key "$d/base").tpuc after tpucc --cache-dir: $(ls -A "$d/cache")"
  explain "$d/s2" --cache-dir="$d/cache" "$TMP/p.mlir"
  [ "$(status "$d/s2")" = hit ] || fail "--explain-cache after storing: $(status "$d/s2")"
  explain "$d/s3" --cache-dir="$d/cache" "$TMP/p_same.mlir"
  [ "$(status "$d/s3")" = hit ] || fail "--explain-cache of the same program respelled: $(status "$d/s3")"
  explain "$d/s4" --cache-dir="$d/cache" -O1 "$TMP/p.mlir"
  [ "$(status "$d/s4")" = miss ] || fail "--explain-cache -O1 after storing -O2: $(status "$d/s4")"
}

case2() {  # miss then hit; stats; clear; tpucc
  local d="$TMP/c2" c="$TMP/c2/cache"
  mkdir -p "$d"
  run "$d/r1" --cache-dir="$c" --metrics "$TMP/p.mlir" "${IN[@]}"
  same_as p "$d/r1"; metrics "$d/r1.err" 1 0 1
  run "$d/r2" --cache-dir="$c" --metrics "$TMP/p.mlir" "${IN[@]}"
  same_as p "$d/r2"; metrics "$d/r2.err" 0 1 0; no_cache_warning "$d/r2.err"
  # The same program respelled hits; another -O level misses.
  run "$d/r3" --cache-dir="$c" --metrics "$TMP/p_same.mlir" "${IN[@]}"
  same_as p "$d/r3"; metrics "$d/r3.err" 0 1 0
  run "$d/r4" --cache-dir="$c" --metrics -O1 "$TMP/p.mlir" "${IN[@]}"
  same_as p "$d/r4"; metrics "$d/r4.err" 1 0 1
  run "$d/r5" --cache-dir="$c" --metrics -O1 "$TMP/p.mlir" "${IN[@]}"
  metrics "$d/r5.err" 0 1 0
  # Without --metrics nothing about the cache is printed.
  run "$d/r6" --cache-dir="$c" "$TMP/p.mlir" "${IN[@]}"
  same_as p "$d/r6"; no_cache_warning "$d/r6.err"; ! grep -q '^metrics:' "$d/r6.err" || fail "metrics printed without --metrics"
  [ "$(entries "$c")" -eq 2 ] || fail "expected 2 entries, found $(entries "$c"): $(ls -A "$c")"
  stats "$c"
  [ "$(stat_of cache)" = "$c" ] || fail "--cache-stats: 'cache: $c' expected: $(cat "$TMP/stats")"
  [ "$(stat_of entries)" = 2 ] || fail "--cache-stats: entries 2 expected: $(cat "$TMP/stats")"
  [ "$(stat_of hits)" = 4 ] || fail "--cache-stats: hits 4 expected: $(cat "$TMP/stats")"
  [ "$(stat_of misses)" = 2 ] || fail "--cache-stats: misses 2 expected: $(cat "$TMP/stats")"
  [ "$(stat_of evictions)" = 0 ] || fail "--cache-stats: evictions 0 expected: $(cat "$TMP/stats")"
  [ "$(stat_of bytes)" = "$(entry_bytes "$c")" ] || fail "--cache-stats: bytes $(entry_bytes "$c") (the entries' sizes) expected: $(cat "$TMP/stats")"
  grep -qE '^since: [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}' "$TMP/stats" || fail "--cache-stats: no ISO-8601 'since:' line: $(cat "$TMP/stats")"
  # An empty (never used) directory has zero counts.
  stats "$d/unused"
  [ "$(stat_of entries)" = 0 ] && [ "$(stat_of hits)" = 0 ] && [ "$(stat_of misses)" = 0 ] || fail "--cache-stats of an unused directory: $(cat "$TMP/stats")"
  # tpucc through the cache writes the same bytecode as without it.
  expect_status 0 "$TPUCC" --no-cache "$TMP/p.mlir" -o "$d/plain.tpub"
  expect_status 0 "$TPUCC" --cache-dir="$c" "$TMP/p.mlir" -o "$d/hit.tpub"
  cmp -s "$d/plain.tpub" "$d/hit.tpub" || fail "tpucc: the bytecode from a cache hit differs from a fresh compile"
  expect_status 0 "$TPUCC" --cache-dir="$d/fresh" "$TMP/p.mlir" -o "$d/miss.tpub"
  cmp -s "$d/plain.tpub" "$d/miss.tpub" || fail "tpucc: the bytecode on a cache miss differs from --no-cache"
  expect_status 0 "$TPUCC" --cache-dir="$d/fresh" "$TMP/p.mlir" -o "$d/hit2.tpub"
  cmp -s "$d/plain.tpub" "$d/hit2.tpub" || fail "tpucc: second compile through a fresh cache differs"
  # The .tpub from a hit runs.
  run "$d/r7" "$d/hit.tpub" "${IN[@]}"; same_as p "$d/r7"
  # A tpucc-stored entry is a tpurun hit (same key for the same options).
  run "$d/r8" --cache-dir="$d/fresh" --metrics "$TMP/p.mlir" "${IN[@]}"
  same_as p "$d/r8"; metrics "$d/r8.err" 0 1 0
  # --cache-clear
  expect_status 0 "$TPUCC" --cache-clear --cache-dir="$c"
  expect_in "$TMP/out" "cache: removed 2 entries"
  [ "$(entries "$c")" -eq 0 ] || fail "--cache-clear left $(entries "$c") entries"
  stats "$c"
  [ "$(stat_of entries)" = 0 ] && [ "$(stat_of bytes)" = 0 ] || fail "--cache-stats after --cache-clear: $(cat "$TMP/stats")"
  run "$d/r9" --cache-dir="$c" --metrics "$TMP/p.mlir" "${IN[@]}"
  same_as p "$d/r9"; metrics "$d/r9.err" 1 0 1
}

case3() {  # corrupt entries
  local d="$TMP/c3" mode size e
  mkdir -p "$d"
  explain "$d/k" "$TMP/p.mlir"
  local k; k=$(key "$d/k")
  # The entry's 64-byte header (cache/cache.h): magic at 0, key at 16, payload
  # size at 32, payload checksum at 40, creation time at 48, header checksum
  # at 56; every byte of it is checked.
  for mode in truncate flip-payload flip-payload-end flip-magic flip-key flip-size flip-checksum flip-time \
              flip-header-sum garbage empty; do
    local c="$d/$mode"
    run "$d/$mode-1" --cache-dir="$c" --metrics "$TMP/p.mlir" "${IN[@]}"
    metrics "$d/$mode-1.err" 1 0 1
    e="$c/$k.tpuc"
    [ -f "$e" ] || fail "$mode: no entry $k.tpuc after a miss: $(ls -A "$c")"
    cp "$e" "$d/good.tpuc"
    size=$(stat -c %s "$e")
    [ "$size" -gt 200 ] || fail "entry is only $size bytes"
    case $mode in
      truncate) truncate -s $((size / 2)) "$e" ;;
      flip-payload) flip "$e" $((size / 2)) ;;
      flip-payload-end) flip "$e" $((size - 1)) ;;
      flip-magic) flip "$e" 0 ;;
      flip-key) flip "$e" 20 ;;
      flip-size) flip "$e" 33 ;;
      flip-checksum) flip "$e" 40 ;;
      flip-time) flip "$e" 48 ;;
      flip-header-sum) flip "$e" 63 ;;
      garbage) head -c "$size" /dev/urandom >"$e" ;;
      empty) : >"$e" ;;
    esac
    run "$d/$mode-2" --cache-dir="$c" --metrics "$TMP/p.mlir" "${IN[@]}"
    same_as p "$d/$mode-2"
    grep -i 'cache' "$d/$mode-2.err" | grep -qi 'corrupt' || fail "$mode: no warning with 'cache' and 'corrupt': $(head -c 400 "$d/$mode-2.err")"
    metrics "$d/$mode-2.err" 1 0 1
    # A good entry again: the third run is a clean hit.
    [ -f "$e" ] || fail "$mode: no entry after recompiling"
    same_payload "$e" "$d/good.tpuc" || fail "$mode: the rewritten entry's .tpub differs from the first good one"
    run "$d/$mode-3" --cache-dir="$c" --metrics "$TMP/p.mlir" "${IN[@]}"
    same_as p "$d/$mode-3"; metrics "$d/$mode-3.err" 0 1 0; no_cache_warning "$d/$mode-3.err"
    [ -z "$(strays "$c")" ] && [ "$(entries "$c")" -eq 1 ] || fail "$mode: leftover files: $(ls -A "$c")"
  done
  # tpucc meets a corrupt entry: warned, and its output is right.
  local c="$d/tpucc"
  expect_status 0 "$TPUCC" --cache-dir="$c" "$TMP/p.mlir" -o "$d/t1.tpub"
  flip "$c/$k.tpuc" $(( $(stat -c %s "$c/$k.tpuc") / 2 ))
  expect_status 0 "$TPUCC" --cache-dir="$c" "$TMP/p.mlir" -o "$d/t2.tpub"
  grep -i 'cache' "$TMP/err" | grep -qi 'corrupt' || fail "tpucc: no warning with 'cache' and 'corrupt': $(head -c 400 "$TMP/err")"
  cmp -s "$d/t1.tpub" "$d/t2.tpub" || fail "tpucc: output after a corrupt entry differs"
  same_payload "$c/$k.tpuc" "$d/good.tpuc" || fail "tpucc: the entry was not rewritten"
}

case4() {  # unwritable directory, full file system
  local d="$TMP/c4" c
  mkdir -p "$d"
  if can_mount; then
    # A read-only directory, empty.
    c="$d/ro-empty"
    tmpfs_at "$c" ro,size=1m
    run "$d/ro1" --cache-dir="$c" --metrics "$TMP/p.mlir" "${IN[@]}"
    same_as p "$d/ro1"; expect_in "$d/ro1.err" "cache: cannot write"
    metrics "$d/ro1.err" 1 0 1
    expect_status 0 "$TPUCC" --cache-dir="$c" "$TMP/p.mlir" -o "$d/ro.tpub"
    expect_in "$TMP/err" "cache: cannot write"
    run "$d/ro2" "$d/ro.tpub" "${IN[@]}"; same_as p "$d/ro2"
    # A read-only directory holding the entry: still a hit.
    c="$d/ro-full"
    tmpfs_at "$c" size=1m
    run "$d/ro3" --cache-dir="$c" "$TMP/p.mlir" "${IN[@]}"
    mount -o remount,ro "$c" || fail "remount ro failed"
    run "$d/ro4" --cache-dir="$c" --metrics "$TMP/p.mlir" "${IN[@]}"
    same_as p "$d/ro4"; metrics "$d/ro4.err" 0 1 0
    # A full file system.
    c="$d/full"
    tmpfs_at "$c" size=64k
    dd if=/dev/zero of="$c/filler" bs=4k status=none 2>/dev/null
    [ "$(df --output=avail "$c" | tail -n 1 | tr -d ' ')" -eq 0 ] || fail "could not fill the tmpfs"
    run "$d/f1" --cache-dir="$c" --metrics "$TMP/p.mlir" "${IN[@]}"
    same_as p "$d/f1"; expect_in "$d/f1.err" "cache: cannot write"
    metrics "$d/f1.err" 1 0 1
    [ "$(entries "$c")" -eq 0 ] || fail "full fs: an entry was left: $(ls -lA "$c")"
    [ -z "$(strays "$c" | grep -vx filler)" ] || fail "full fs: files left behind: $(ls -A "$c")"
    expect_status 0 "$TPUCC" --cache-dir="$c" "$TMP/p.mlir" -o "$d/f.tpub"
    expect_in "$TMP/err" "cache: cannot write"
    run "$d/f2" "$d/f.tpub" "${IN[@]}"; same_as p "$d/f2"
    # Room again: the cache works again.
    rm -f "$c/filler"
    run "$d/f3" --cache-dir="$c" --metrics "$TMP/p.mlir" "${IN[@]}"
    same_as p "$d/f3"; metrics "$d/f3.err" 1 0 1; no_cache_warning "$d/f3.err"
    run "$d/f4" --cache-dir="$c" --metrics "$TMP/p.mlir" "${IN[@]}"
    same_as p "$d/f4"; metrics "$d/f4.err" 0 1 0
  else
    echo "note: cannot mount a tmpfs here; skipping the read-only directory and full file system cases (TPU_CACHE_FAIL_WRITES only)"
  fi
  # Injected write failure (ENOSPC on every cache write).
  c="$d/inject"
  TPU_CACHE_FAIL_WRITES=1 run "$d/i1" --cache-dir="$c" --metrics "$TMP/p.mlir" "${IN[@]}"
  same_as p "$d/i1"; expect_in "$d/i1.err" "cache: cannot write"
  metrics "$d/i1.err" 1 0 1
  [ ! -e "$c" ] || [ "$(entries "$c")" -eq 0 ] || fail "TPU_CACHE_FAIL_WRITES: an entry was written"
  [ ! -e "$c" ] || [ -z "$(strays "$c")$(find "$c" -name '*.alias')" ] || fail "TPU_CACHE_FAIL_WRITES: files left behind: $(ls -A "$c")"
  TPU_CACHE_FAIL_WRITES=1 expect_status 0 "$TPUCC" --cache-dir="$c" "$TMP/p.mlir" -o "$d/i.tpub"
  expect_in "$TMP/err" "cache: cannot write"
  run "$d/i2" "$d/i.tpub" "${IN[@]}"; same_as p "$d/i2"
}

# chain FILE C: a 16x128 program of ~240 ops (bigger entries, longer writes).
chain() {
  {
    echo 'func.func @main(%a: tensor<16x128xf32>) -> tensor<16x128xf32> {'
    echo "  %c = stablehlo.constant dense<$2> : tensor<16x128xf32>"
    echo '  %v0 = stablehlo.multiply %a, %c : tensor<16x128xf32>'
    local i
    for ((i = 1; i <= 80; i++)); do
      echo "  %t$i = stablehlo.tanh %v$((i - 1)) : tensor<16x128xf32>"
      echo "  %m$i = stablehlo.multiply %t$i, %c : tensor<16x128xf32>"
      echo "  %v$i = stablehlo.add %m$i, %a : tensor<16x128xf32>"
    done
    echo '  return %v80 : tensor<16x128xf32>'
    echo '}'
  } >"$1"
}

case5() {  # concurrency
  local d="$TMP/c5" c="$TMP/c5/cache" seq="$TMP/c5/seq" i p r j R=${CACHE_ROUNDS:-3}
  mkdir -p "$d/log"
  for i in 0 1 2 3; do
    chain "$d/q$i.mlir" "0.$((i + 3))"
    ref "q$i" "$d/q$i.mlir" --input=random:1
    # The same entries written one at a time, for comparison.
    run "$d/seq$i" --cache-dir="$seq" "$d/q$i.mlir" --input=random:1
  done
  # Each round starts all 8 processes at once (a start file) on an empty
  # directory (the previous round's entries and aliases removed, its counters
  # kept), so every round races writers against writers and readers.
  local pids=()
  for ((p = 0; p < 8; p++)); do
    (
      for ((r = 0; r < R; r++)); do
        while [ ! -e "$d/go-$r" ]; do sleep 0.01; done
        for ((j = 0; j < 4; j++)); do
          if ((p % 2)); then i=$(((p + r + j) % 4)); else i=$(((p + 3 * r + 4 - j) % 4)); fi
          o="$d/log/$p-$r-$j-q$i"
          "$TPURUN" --cache-dir="$c" "$d/q$i.mlir" --input=random:1 >"$o.out" 2>"$o.err"
          echo $? >"$o.rc"
        done
        : >"$d/done-$p-$r"
      done
    ) &
    pids+=($!)
  done
  for ((r = 0; r < R; r++)); do
    if ((r > 0)); then
      local waited=0
      while [ "$(find "$d" -maxdepth 1 -name "done-*-$((r - 1))" | wc -l)" -lt 8 ]; do
        sleep 0.01; waited=$((waited + 1))
        ((waited < 30000)) || { kill "${pids[@]}" 2>/dev/null; fail "round $((r - 1)) did not finish in 300 s"; }
      done
      [ "$(entries "$c")" -eq 4 ] || fail "after round $((r - 1)): expected 4 entries: $(ls -A "$c")"
      rm -f "$c"/*.tpuc "$c"/*.alias
    fi
    : >"$d/go-$r"
  done
  for p in "${pids[@]}"; do wait "$p"; done
  local n=0 f
  for f in "$d"/log/*.rc; do
    n=$((n + 1))
    local o=${f%.rc}
    [ "$(cat "$f")" = 0 ] || fail "concurrent run $(basename "$o") exited $(cat "$f"): $(head -c 400 "$o.err")"
    i=${o##*-q}
    same_as "q$i" "$o"
    ! grep -qi 'corrupt' "$o.err" || fail "concurrent run $(basename "$o") read a corrupt entry: $(grep -i corrupt "$o.err")"
    no_cache_warning "$o.err"
  done
  [ "$n" -eq $((32 * R)) ] || fail "expected $((32 * R)) concurrent runs, found $n"
  [ "$(entries "$c")" -eq 4 ] || fail "expected 4 entries after the concurrent runs: $(ls -A "$c")"
  # The same files as the sequential cache (no temp files), byte for byte.
  diff <(ls -A "$c" | sort) <(ls -A "$seq" | sort) >"$d/diff" || fail "the concurrent cache's files differ from a sequential one's: $(cat "$d/diff")"
  for f in "$seq"/*.tpuc; do
    same_payload "$f" "$c/$(basename "$f")" || fail "entry $(basename "$f") differs from the one written alone"
  done
  stats "$c"
  [ "$(stat_of entries)" = 4 ] || fail "--cache-stats after the concurrent runs: $(cat "$TMP/stats")"
  [ $(($(stat_of hits) + $(stat_of misses))) -eq $n ] || fail "hits + misses should be $n after $n runs: $(cat "$TMP/stats")"
  [ "$(stat_of misses)" -ge 4 ] || fail "fewer than 4 misses: $(cat "$TMP/stats")"
  for i in 0 1 2 3; do
    run "$d/after$i" --cache-dir="$c" --metrics "$d/q$i.mlir" --input=random:1
    same_as "q$i" "$d/after$i"; metrics "$d/after$i.err" 0 1 0; no_cache_warning "$d/after$i.err"
  done
}

case6() {  # LRU eviction
  local d="$TMP/c6" c="$TMP/c6/cache" x
  mkdir -p "$d"
  declare -A K
  for x in A B C D; do
    prog "$d/$x.mlir" "$(( $(printf '%d' "'$x") - 60 )).0"
    ref "e$x" "$d/$x.mlir" "${IN[@]}"
    explain "$d/k$x" "$d/$x.mlir"
    K[$x]=$(key "$d/k$x")
  done
  # Touch A, B, C (stored under the default bound), then hit A.
  for x in A B C; do
    run "$d/s$x" --cache-dir="$c" --metrics "$d/$x.mlir" "${IN[@]}"
    same_as "e$x" "$d/s$x"; metrics "$d/s$x.err" 1 0 1
    sleep 1.1
  done
  local S; S=$(stat -c %s "$c/${K[A]}.tpuc")
  for x in B C; do
    [ "$(stat -c %s "$c/${K[$x]}.tpuc")" -eq "$S" ] || fail "entries of A and $x differ in size; the test needs equal ones"
  done
  run "$d/hA" --cache-dir="$c" --metrics "$d/A.mlir" "${IN[@]}"
  same_as eA "$d/hA"; metrics "$d/hA.err" 0 1 0
  sleep 1.1
  # Store D with room for 2 entries: B and C (least recently used) go.
  local bound=$((2 * S + S / 2))
  run "$d/sD" --cache-dir="$c" --cache-max-size=$bound --metrics "$d/D.mlir" "${IN[@]}"
  same_as eD "$d/sD"; metrics "$d/sD.err" 1 0 1
  [ -f "$c/${K[A]}.tpuc" ] || fail "A (hit most recently before D) was evicted: $(ls -A "$c")"
  [ -f "$c/${K[D]}.tpuc" ] || fail "D (just stored) was evicted: $(ls -A "$c")"
  [ ! -e "$c/${K[B]}.tpuc" ] || fail "B (least recently used) was kept"
  [ ! -e "$c/${K[C]}.tpuc" ] || fail "C (least recently used after B) was kept"
  [ "$(entry_bytes "$c")" -le "$bound" ] || fail "entries take $(entry_bytes "$c") bytes > --cache-max-size=$bound"
  stats "$c"
  [ "$(stat_of evictions)" = 2 ] || fail "--cache-stats: evictions 2 expected: $(cat "$TMP/stats")"
  [ "$(stat_of entries)" = 2 ] || fail "--cache-stats: entries 2 expected: $(cat "$TMP/stats")"
  [ "$(stat_of bytes)" -le "$bound" ] || fail "--cache-stats: bytes above the bound $bound: $(cat "$TMP/stats")"
  sleep 1.1
  # B again: a miss; now A is the least recently used and goes.
  run "$d/sB2" --cache-dir="$c" --cache-max-size=$bound --metrics "$d/B.mlir" "${IN[@]}"
  same_as eB "$d/sB2"; metrics "$d/sB2.err" 1 0 1
  [ ! -e "$c/${K[A]}.tpuc" ] || fail "A (now least recently used) was kept"
  [ -f "$c/${K[D]}.tpuc" ] && [ -f "$c/${K[B]}.tpuc" ] || fail "expected D and B to remain: $(ls -A "$c")"
  [ "$(entry_bytes "$c")" -le "$bound" ] || fail "entries take $(entry_bytes "$c") bytes > $bound"
  stats "$c"
  [ "$(stat_of evictions)" = 3 ] || fail "--cache-stats: evictions 3 expected: $(cat "$TMP/stats")"
  # Suffixes; a bound below one entry still gives a correct run, bound kept.
  run "$d/k1" --cache-dir="$d/kb" --cache-max-size=1K --metrics "$d/C.mlir" "${IN[@]}"
  same_as eC "$d/k1"
  if [ "$S" -gt 1024 ]; then
    [ "$(entry_bytes "$d/kb")" -le 1024 ] || fail "--cache-max-size=1K: $(entry_bytes "$d/kb") bytes kept"
  fi
  run "$d/k2" --cache-dir="$d/mb" --cache-max-size=1M --metrics "$d/C.mlir" "${IN[@]}"
  [ "$(entries "$d/mb")" -eq 1 ] || fail "--cache-max-size=1M: the entry was not kept"
  run "$d/k3" --cache-dir="$d/gb" --cache-max-size=2G "$d/C.mlir" "${IN[@]}"
  [ "$(entries "$d/gb")" -eq 1 ] || fail "--cache-max-size=2G: the entry was not kept"
}

case7() {
  local d="$TMP/c7"
  mkdir -p "$d/one" "$d/two"
  cat >"$d/one/checks.mlir" <<'MLIR'
func.func @main() {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = stablehlo.add %0, %0 : tensor<2xf32>
  check.expect_eq_const %1, dense<[2.0, 4.0]> : tensor<2xf32>
  func.return
}
MLIR
  cp "$d/one/checks.mlir" "$d/two/checks.mlir"
  "$TPURUN" --cache-dir="$d/cache" --check "$d/one/checks.mlir" >"$d/out1" 2>&1 || fail "first run failed"
  "$TPURUN" --cache-dir="$d/cache" --check --metrics "$d/two/checks.mlir" >"$d/out2" 2>&1 || fail "second run failed"
  grep -q "cache hits 1" "$d/out2" || fail "the second file was not a hit: $(cat "$d/out2")"
  grep -q "PASS expect_eq at $d/two/checks.mlir:4:3" "$d/out2" || fail "the hit names another file: $(cat "$d/out2")"
}

case8() {  # an entry that checks out but does not load (another build's)
  local d="$TMP/c8" a="--input=2x3xf32=1,2,3,4,5,6" b="--input=2x3xf32=0,0,0,9,9,9"
  ref p "$TMP/p.mlir" $a $b
  run "$TMP/c8-fill" --cache-dir="$d" "$TMP/p.mlir" $a $b
  local e
  e=$(find "$d" -maxdepth 1 -name '*.tpuc' | head -1)
  [ -n "$e" ] || fail "no entry written"
  # Reseal the entry around a .tpub claiming format version 99: the
  # entry's own checks pass, the loader refuses the program.
  /usr/bin/python3 - "$e" <<'PY' || fail "could not reseal $e"
import ctypes, struct, sys
xxh = ctypes.CDLL("libxxhash.so.0")
xxh.XXH3_64bits.restype = ctypes.c_uint64
xxh.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
data = bytearray(open(sys.argv[1], "rb").read())
data[64 + 8:64 + 12] = struct.pack("<I", 99)
payload = bytes(data[64:])
struct.pack_into("<Q", data, 40, xxh.XXH3_64bits(payload, len(payload)))
struct.pack_into("<Q", data, 56, xxh.XXH3_64bits(bytes(data[:56]), 56))
open(sys.argv[1], "wb").write(data)
PY
  run "$TMP/c8-stale" --cache-dir="$d" --metrics "$TMP/p.mlir" $a $b
  same_as p "$TMP/c8-stale"
  grep -q "warning: $TMP/p.mlir: the cached program does not load (format version 99, this tpurun reads version" \
    "$TMP/c8-stale.err" || fail "no warning about the stale entry: $(head -c 600 "$TMP/c8-stale.err")"
  metrics "$TMP/c8-stale.err" 1 1 1
  # The entry was replaced: the next run is a clean hit.
  run "$TMP/c8-again" --cache-dir="$d" --metrics "$TMP/p.mlir" $a $b
  same_as p "$TMP/c8-again"
  metrics "$TMP/c8-again.err" 0 1 0
  no_cache_warning "$TMP/c8-again.err"
}

case9() {  # swapped aliases and entries
  local d="$TMP/c9" x y
  prog "$TMP/c9-a.mlir" 2.0
  prog "$TMP/c9-b.mlir" 3.0
  ref a "$TMP/c9-a.mlir" "${IN[@]}"
  ref b "$TMP/c9-b.mlir" "${IN[@]}"
  cmp -s "$TMP/ref-a" "$TMP/ref-b" && fail "the two programs give the same results"
  run "$TMP/c9-fill-a" --cache-dir="$d" "$TMP/c9-a.mlir" "${IN[@]}"
  x=$(ls "$d"/*.alias)
  run "$TMP/c9-fill-b" --cache-dir="$d" "$TMP/c9-b.mlir" "${IN[@]}"
  y=$(ls "$d"/*.alias | grep -vxF "$x")
  [ -n "$x" ] && [ -n "$y" ] || fail "no aliases written: $(ls -A "$d")"
  cp "$x" "$y"
  run "$TMP/c9-alias" --cache-dir="$d" --metrics "$TMP/c9-b.mlir" "${IN[@]}"
  same_as b "$TMP/c9-alias"
  grep -q "warning: cache: alias '$y' is corrupt (belongs to another input): removed" "$TMP/c9-alias.err" \
    || fail "no warning about the swapped alias: $(head -c 600 "$TMP/c9-alias.err")"
  metrics "$TMP/c9-alias.err" 0 1 0
  # Now every entry over every other: each lookup by its module key misses.
  x=$(ls "$d"/*.tpuc | head -1)
  for y in "$d"/*.tpuc; do [ "$y" = "$x" ] || cp "$x" "$y"; done
  rm -f "$d"/*.alias
  run "$TMP/c9-a2" --cache-dir="$d" --metrics "$TMP/c9-a.mlir" "${IN[@]}"
  same_as a "$TMP/c9-a2"
  run "$TMP/c9-b2" --cache-dir="$d" --metrics "$TMP/c9-b.mlir" "${IN[@]}"
  same_as b "$TMP/c9-b2"
  grep -q "is corrupt (holds another key): removed, recompiling" "$TMP/c9-a2.err" "$TMP/c9-b2.err" \
    || fail "no warning about the swapped entry: $(head -c 600 "$TMP/c9-a2.err" "$TMP/c9-b2.err")"
}

# ------------------------------------------------------------------ driver
failed=()
for n in ${CACHE_CASES:-0 1 2 3 4 5 6 7 8 9}; do
  if (case$n); then
    echo "PASS: case $n"
  else
    echo "FAIL: case $n"
    failed+=("$n")
  fi
done
[ ${#failed[@]} -eq 0 ] || { echo "cache.sh: failed cases: ${failed[*]}"; exit 1; }
exit 0
