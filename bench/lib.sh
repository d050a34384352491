# bench/lib.sh — helpers sourced by the benchmark scripts (bench/*.sh).
#
#   bench_require CMD PACKAGE   fail (with the apt-get line) if CMD is missing
#   bench_require_compile_peers TPUCC
#                               the compile benchmarks' tools: GNU time,
#                               mlir-opt-14 (the peer), python3 (generators)
#                               and a built TPUCC; fail if one is missing
#   bench_measure LOG NAME CMD...
#       run CMD once under /usr/bin/time; append a line
#       "WALL_S PEAK_RSS_KIB CPU_S" (CPU = user + system) to LOG; on failure
#       print NAME, the command and its stderr, return 1
#   bench_stats LOG             print "MEDIAN MIN MAX MEDIAN_CPU MEDIAN_RSS_MIB"
#                               (seconds, seconds, seconds, seconds, MiB)
#   bench_ratio A B             print A/B with two decimals (n/a if B is 0)
#   bench_generated_module N PATH
#                               the N-op module of gen_parser_bench.py at PATH
#                               (made once, again when the generator changes)
#
# Wall time is taken with bash's $EPOCHREALTIME (microseconds) around the
# /usr/bin/time call, because GNU time's %e has only 10 ms resolution; peak
# RSS is GNU time's %M (KiB, of the measured process); CPU time is %U + %S,
# which other load on the machine disturbs less than wall time.
set -u
BENCH_REPEAT=${BENCH_REPEAT:-5}
BENCH_TMP=$(mktemp -d)
trap 'rm -rf "$BENCH_TMP"' EXIT

bench_require() {
  command -v "$1" >/dev/null 2>&1 && return 0
  echo "bench: '$1' not found; install the Debian package '$2':" >&2
  echo "  apt-get install -y --no-install-recommends $2   (or: mk/install-deps.sh test)" >&2
  return 1
}

bench_require_compile_peers() {
  bench_require /usr/bin/time time || return 1
  bench_require mlir-opt-14 mlir-14-tools || return 1
  bench_require python3 python3 || return 1
  [ -x "$1" ] || { echo "bench: $1 not built (run make)" >&2; return 1; }
}

bench_measure() {
  local log=$1 name=$2; shift 2
  local t0 t1 st
  t0=$EPOCHREALTIME
  /usr/bin/time -f '%e %M %U %S' -o "$BENCH_TMP/time" "$@" >"$BENCH_TMP/stdout" 2>"$BENCH_TMP/stderr"
  st=$?
  t1=$EPOCHREALTIME
  if [ $st -ne 0 ]; then
    echo "bench: $name failed (exit status $st): $*" >&2
    head -c 4000 "$BENCH_TMP/stderr" >&2
    return 1
  fi
  local e m u s
  read -r e m u s < <(tail -n 1 "$BENCH_TMP/time")
  awk -v a="$t0" -v b="$t1" -v m="$m" -v u="$u" -v s="$s" \
    'BEGIN { printf "%.6f %d %.2f\n", b - a, m, u + s }' >>"$log"
}

bench_stats() {
  awk '
    function sort(a, n,   i, j, x) {
      for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
    }
    function median(a, n) { return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    { t[NR] = $1 + 0; r[NR] = $2 + 0; c[NR] = $3 + 0 }
    END {
      n = NR; if (n == 0) exit 1
      sort(t, n); sort(r, n); sort(c, n)
      printf "%.3f %.3f %.3f %.2f %.1f\n", median(t, n), t[1], t[n], median(c, n), median(r, n) / 1024
    }' "$1"
}

# bench_generated_module N PATH: bench/gen_parser_bench.py's N-op module at
# PATH, generated once and again when the generator changes; exits on failure.
bench_generated_module() {
  local n=$1 path=$2 gen
  gen="$(dirname "${BASH_SOURCE[0]}")/gen_parser_bench.py"
  [ -s "$path" ] && ! [ "$gen" -nt "$path" ] && return 0
  python3 "$gen" "$n" "$path.tmp" && mv "$path.tmp" "$path" || {
    echo "bench: generating $path failed" >&2; rm -f "$path.tmp"; exit 1; }
}

bench_ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f\n", a / b; else print "n/a" }'; }
