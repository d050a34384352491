#!/usr/bin/env bash
# DESIGN.md §1: which folder may depend on which.
#  1. Every `#include "dir/..."`, and every `#include <dir/...>` whose dir
#     is a folder of the project, is checked against the table below; each
#     edge it forbids is printed as
#     `file:line: <from> may not include <header> (DESIGN.md §1)`.
#  2. The VM never needs the front end: a program that loads and runs a
#     .tpub links against libvm.a alone (plus libc, libm and libxxhash).
source "$(dirname "$0")/lib.sh"

# The folders each folder's files may include from ("*": any).  The VM's
# bytecode-format headers (FORMAT) are what the back end writes and the
# cache keys on; they may themselves include only each other and common/.
# cache/ includes them as backend/backend.h does (DESIGN.md §1: cache
# depends on backend).  vm/kernels, vm/chips and vm/io are rooms of vm/.
FORMAT="vm/tpub.h vm/opinfo.h vm/opcodes.def"
declare -A ALLOWED=(
  [common]="common"
  [ir]="ir common"
  [frontend]="frontend ir common"
  [passes]="passes ir common"
  [backend]="backend ir common FORMAT"
  [vm]="vm common"
  [cache]="cache ir backend common FORMAT"
  [runtime]="runtime cache backend passes frontend ir vm common"
  [tools]="*" [testsuite]="*" [bench]="*" [examples]="*"
)

# Prints every forbidden include edge of the C sources under $1 and writes
# the number of edges it checked to the file $2.
check_tree() {
  local root=$1 file rel from line header to rule ok edges=0
  while IFS= read -r file; do
    rel=${file#"$root"/}
    from=${rel%%/*}
    [ "$from" = "$rel" ] && from=.
    while IFS=: read -r line header; do
      header=${header#*[\"<]}
      header=${header%%[\">]*}
      [[ $header == */* ]] || continue # same folder as the includer
      to=${header%%/*}
      # <sys/stat.h> and the like: not a folder of the project
      [ -n "${ALLOWED[$to]+set}" ] || [ "$to" = vm ] || continue
      edges=$((edges + 1))
      if [[ " $FORMAT " == *" $rel "* ]]; then
        rule="common FORMAT"
        from="$rel (a bytecode-format header)"
      elif [ -n "${ALLOWED[$from]+set}" ]; then
        rule=${ALLOWED[$from]}
      else
        echo "$rel:$line: $from/ is not a folder of DESIGN.md §1"
        continue
      fi
      ok=0
      for r in $rule; do
        if [ "$r" = "*" ] || [ "$r" = "$to" ] || { [ "$r" = FORMAT ] && [[ " $FORMAT " == *" $header "* ]]; }; then
          ok=1
          break
        fi
      done
      [ "$ok" = 1 ] || echo "$rel:$line: $from may not include $header (DESIGN.md §1)"
    done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]' "$file")
  done < <(find "$root" -path "$root/build*" -prune -o -path "$root/.*" -prune -o \
                -type f \( -name '*.c' -o -name '*.h' -o -name '*.def' -o -name '*.inc' \) -print | sort)
  echo "$edges" > "$2"
}

# The checker itself: a tree with forbidden edges of each kind and allowed ones.
mkdir -p "$TMP/tree/vm/kernels" "$TMP/tree/backend" "$TMP/tree/common" "$TMP/tree/misc"
printf '#include "ir/ir.h"\n#include "vm/vm.h"\n#include "common/scalar.h"\n#include <frontend/parser.h>\n' > "$TMP/tree/vm/kernels/k.c"
printf '#include "vm/tpub.h"\n#include <stdio.h>\n  #  include "vm/vm.h"\n#include <sys/stat.h>\n' > "$TMP/tree/backend/b.c"
printf '#include <stdint.h>\n#include "common/ici.h"\n' > "$TMP/tree/common/c.h"
printf '#include "common/scalar.h"\n#include "vm/vm.h"\n' > "$TMP/tree/vm/tpub.h"
printf '#include "ir/ir.h"\n' > "$TMP/tree/misc/m.c"
check_tree "$TMP/tree" "$TMP/self-edges" > "$TMP/self"
expected='vm/kernels/k.c:1: vm may not include ir/ir.h (DESIGN.md §1)
vm/kernels/k.c:4: vm may not include frontend/parser.h (DESIGN.md §1)
backend/b.c:3: backend may not include vm/vm.h (DESIGN.md §1)
vm/tpub.h:2: vm/tpub.h (a bytecode-format header) may not include vm/vm.h (DESIGN.md §1)
misc/m.c:1: misc/ is not a folder of DESIGN.md §1'
[ "$(sort "$TMP/self")" = "$(sort <<< "$expected")" ] && [ "$(cat "$TMP/self-edges")" = 10 ] ||
  fail "the include checker is broken; on a test tree it checked $(cat "$TMP/self-edges") edges and printed: $(cat "$TMP/self")"

check_tree "$ROOT" "$TMP/edges" > "$TMP/violations"
# The tree has about 300 project includes: far fewer means the scan missed files.
[ "$(cat "$TMP/edges")" -ge 200 ] || fail "only $(cat "$TMP/edges") include edges found under $ROOT"
if [ -s "$TMP/violations" ]; then
  cat "$TMP/violations"
  fail "$(wc -l < "$TMP/violations") include edge(s) break DESIGN.md §1"
fi

cat > "$TMP/main.c" <<'C'
#include "vm/vm.h"
int main(void) { char e[64]; return vm_program_load("", 0, e, sizeof e) != 0; }
C
cc=(cc)
# A sanitizer build's library needs the sanitizer runtimes at link time.
if nm "$BUILD/libvm.a" 2>/dev/null | grep -q __asan; then cc=(clang-14 -fsanitize=address,undefined); fi
"${cc[@]}" -std=c11 -I"$ROOT" -o "$TMP/vm_only" "$TMP/main.c" "$BUILD/libvm.a" -lxxhash -lopenblas -lm 2> "$TMP/link.err" ||
  fail "libvm.a does not link on its own: $(grep -m3 'undefined reference' "$TMP/link.err")"
"$TMP/vm_only" || fail "an empty image was accepted"
exit 0
