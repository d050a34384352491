#!/usr/bin/env bash
# DESIGN.md §1: the VM never needs the front end.  A program that loads and
# runs a .tpub links against libvm.a alone (plus libc, libm and libxxhash).
source "$(dirname "$0")/lib.sh"
cat > "$TMP/main.c" <<'C'
#include "vm/vm.h"
int main(void) { char e[64]; return vm_program_load("", 0, e, sizeof e) != 0; }
C
cc=(cc)
# A sanitizer build's library needs the sanitizer runtimes at link time.
if nm "$BUILD/libvm.a" 2>/dev/null | grep -q __asan; then cc=(clang-14 -fsanitize=address,undefined); fi
"${cc[@]}" -std=c11 -I"$ROOT" -o "$TMP/vm_only" "$TMP/main.c" "$BUILD/libvm.a" -lxxhash -lm 2> "$TMP/link.err" ||
  fail "libvm.a does not link on its own: $(grep -m3 'undefined reference' "$TMP/link.err")"
"$TMP/vm_only" || fail "an empty image was accepted"
exit 0
