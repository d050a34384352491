#!/usr/bin/env bash
# make install / make uninstall (DESIGN.md §9, mk/install.mk): install BUILD's
# files into a temporary prefix through the make rule (which must not rebuild
# anything), then
#  - every file is there, tpurun.pc carries the prefix and the tools' version;
#  - a client app.c built with `cc app.c $(pkg-config --cflags --libs tpurun)`
#    against the shared library (run with LD_LIBRARY_PATH) and against the
#    static one ($(pkg-config --static ...)) adds two 2x2xf32 tensors with
#    tpu_op("stablehlo.add") and prints the right numbers;
#  - tpurun.h alone compiles under -std=c11 -Wall -Wextra -Werror -pedantic;
#  - libtpurun.so exports tpu_* symbols only, and every TPU_API function of
#    the header;
#  - the man pages render without warnings (skipped without groff/man);
#  - the Python package is installed under the prefix's site-packages (the
#    install says where), imports from there with the installed
#    libtpurun.so, and runs an op (skipped for sanitizer builds, whose
#    library python3 cannot load);
#  - the installed tools run; `make uninstall` leaves no file behind.
# pkg-config is found on PATH (mk/install-deps.sh installs it for the test
# set); PKG_CONFIG_PATH and PKG_CONFIG_LIBDIR point at the prefix only, so
# a tpurun.pc installed elsewhere on the machine is never used.
source "$(dirname "$0")/lib.sh"
BUILD=$(cd "$BUILD" && pwd) || fail "no build dir"
P=$TMP/prefix
PC=$P/lib/pkgconfig
CC=${CC:-cc}
command -v pkg-config >/dev/null || fail "pkg-config not installed (apt-get install pkg-config)"
command -v "$CC" >/dev/null || fail "no C compiler '$CC'"

# The client must be built like the library: an ASan/UBSan build
# (make sanitize) needs the same runtime in the client.
SAN=()
if nm "$BUILD/libtpurun.a" 2>/dev/null | grep -q ' U __asan_'; then
  SAN=("-fsanitize=address,undefined")
fi

FILES=(bin/tpucc bin/tpurun include/tpurun.h lib/libtpurun.a lib/libtpurun.so
       lib/pkgconfig/tpurun.pc share/man/man1/tpucc.1 share/man/man1/tpurun.1
       share/man/man3/tpurun.3)
export PYTHON=/usr/bin/python3
PYVER=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
PYDIR=lib/python$PYVER/site-packages
while IFS= read -r f; do FILES+=("$PYDIR/${f#python/}"); done < <(cd "$ROOT" && find python/tpurun -name '*.py' | LC_ALL=C sort)

# make from inside `make check`: drop the outer make's jobserver and level.
submake() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$ROOT" "$@"; }
# The build directory as `make check` names it (relative to the tree): an
# absolute spelling would name other targets, whose compiles write
# dependency files `make check` then no longer matches to its objects.
BUILD_ARG=$(realpath --relative-to="$ROOT" "$BUILD")

# ---------------------------------------------------------------- install
stamps() { stat -c '%n %Y' "$BUILD/tpucc" "$BUILD/tpurun" "$BUILD/libtpurun.a" "$BUILD/libtpurun.so"; }
before=$(stamps) || fail "$BUILD lacks tpucc, tpurun or libtpurun: run make first"
submake install BUILD="$BUILD_ARG" PREFIX="$P" >"$TMP/install.out" 2>&1 ||
  fail "make install failed: $(head -c 800 "$TMP/install.out")"
[ "$(stamps)" = "$before" ] || fail "make install rebuilt files of $BUILD"
for f in "${FILES[@]}"; do
  [ -f "$P/$f" ] || fail "make install did not install $f"
  expect_in "$TMP/install.out" "install: $P/$f"
done
expect_in "$TMP/install.out" "install: the Python package tpurun is in $P/$PYDIR (use PYTHONPATH=$P/$PYDIR"
[ "$(grep -c '^install: ' "$TMP/install.out")" -eq $((${#FILES[@]} + 1)) ] &&
  [ "$(wc -l <"$TMP/install.out")" -eq $((${#FILES[@]} + 1)) ] || # fail runs only if a test fails
  fail "make install printed more than one line per file: $(head -c 800 "$TMP/install.out")"
[ "$(find "$P" -type f | wc -l)" -eq ${#FILES[@]} ] || fail "make install installed other files: $(find "$P" -type f)"
[ -x "$P/bin/tpucc" ] || fail "bin/tpucc is not executable"
[ -x "$P/bin/tpurun" ] || fail "bin/tpurun is not executable"
cmp -s "$ROOT/runtime/tpurun.h" "$P/include/tpurun.h" || fail "include/tpurun.h is not runtime/tpurun.h"

export PKG_CONFIG_PATH=$PC PKG_CONFIG_LIBDIR=$PC
version=$(sed -n 's/^#define TPUCC_VERSION "\(.*\)"$/\1/p' "$ROOT/runtime/compile.h")
[ "$(pkg-config --modversion tpurun)" = "$version" ] ||
  fail "tpurun.pc's version '$(pkg-config --modversion tpurun 2>&1)' is not $version"
[ "$(pkg-config --variable=prefix tpurun)" = "$P" ] || fail "tpurun.pc's prefix is not $P"
# pkg-config ends its flags with a blank.
pc() { pkg-config "$@" | sed 's/ *$//'; }
[ "$(pc --cflags tpurun)" = "-I$P/include" ] || fail "pkg-config --cflags: $(pc --cflags tpurun)"
[ "$(pc --libs tpurun)" = "-L$P/lib -ltpurun" ] || fail "pkg-config --libs: $(pc --libs tpurun)"
static_libs=$(pkg-config --static --libs tpurun)
for l in -ltpurun -lgmp -lxxhash -lopenblas -lm -lpthread; do
  [[ " $static_libs " == *" $l "* ]] || fail "pkg-config --static --libs lacks $l: $static_libs"
done

# ---------------------------------------------------------------- tools
"$P/bin/tpucc" --version >"$TMP/v" 2>&1 || fail "installed tpucc --version failed"
expect_in "$TMP/v" "tpucc $version"
"$P/bin/tpurun" --version >"$TMP/v" 2>&1 || fail "installed tpurun --version failed"
expect_in "$TMP/v" "tpurun $version"

# ---------------------------------------------------------------- header alone
cat >"$TMP/header.c" <<'C'
#include <tpurun.h>
int main(void) {
  TpuClientOptions o = {sizeof o, 0, 0, TPU_EAGER_STRICT, 0, 0, 0, 0, 0, 0, 0, 0};
  return (int)o.struct_size == 0 || TPU_ERR_INTERNAL != 70;
}
C
# shellcheck disable=SC2046
"$CC" -std=c11 -Wall -Wextra -Werror -pedantic $(pkg-config --cflags tpurun) \
  -c -o "$TMP/header.o" "$TMP/header.c" 2>"$TMP/err" ||
  fail "tpurun.h is not self-contained C11: $(head -c 800 "$TMP/err")"

# ---------------------------------------------------------------- exports
nm -D --defined-only "$P/lib/libtpurun.so" | awk 'NF == 3 {print $3}' | sort >"$TMP/exports" ||
  fail "nm -D failed on libtpurun.so"
others=$(grep -v '^tpu_' "$TMP/exports" | head -n 20)
[ -z "$others" ] || fail "libtpurun.so exports symbols outside the API: $others"
grep -o 'TPU_API [^(]*(' "$ROOT/runtime/tpurun.h" | grep -o 'tpu_[a-z0-9_]*' | sort -u >"$TMP/api"
missing=$(comm -23 "$TMP/api" "$TMP/exports" | tr '\n' ' ')
[ -z "$missing" ] || fail "libtpurun.so does not define the API functions: $missing"

# ---------------------------------------------------------------- a client
cat >"$TMP/app.c" <<'C'
/* A client of the installed libtpurun: 2x2xf32 a + b through tpu_op. */
#include <stdio.h>
#include <tpurun.h>

static int die(TpuClient *c, const char *what, int rc) {
  fprintf(stderr, "app: %s failed (%d): %s\n", what, rc, tpu_error(c));
  return 1;
}

int main(void) {
  TpuClientOptions opts = {0};
  opts.struct_size = sizeof opts;
  TpuClient *c = NULL;
  int rc = tpu_client_create(&opts, &c);
  if (rc) return die(NULL, "tpu_client_create", rc);
  float a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40}, r[4] = {0};
  TpuTensor *ta = NULL, *tb = NULL, *tr = NULL;
  if ((rc = tpu_tensor_from_host(c, "2x2xf32", a, sizeof a, &ta))) return die(c, "tpu_tensor_from_host", rc);
  if ((rc = tpu_tensor_from_host(c, "2x2xf32", b, sizeof b, &tb))) return die(c, "tpu_tensor_from_host", rc);
  TpuTensor *operands[2] = {ta, tb};
  if ((rc = tpu_op(c, "stablehlo.add", NULL, operands, 2, NULL, &tr, 1))) return die(c, "tpu_op", rc);
  if ((rc = tpu_tensor_to_host(tr, r, sizeof r))) return die(c, "tpu_tensor_to_host", rc);
  printf("version %s\n", tpu_version());
  printf("mode %d\n", (int)tpu_client_mode(c));
  printf("%s = %g %g %g %g\n", tpu_tensor_type(tr), r[0], r[1], r[2], r[3]);
  tpu_tensor_release(ta);
  tpu_tensor_release(tb);
  tpu_tensor_release(tr);
  if ((rc = tpu_sync(c))) return die(c, "tpu_sync", rc);
  tpu_client_destroy(c);
  return 0;
}
C
# The client's own compilation cache, never the user's.
export TPU_CACHE_DIR=$TMP/cache
check_app() { # MODE CMD...: run CMD, check what it prints
  local mode=$1; shift
  "$@" >"$TMP/app.out" 2>"$TMP/app.err" || fail "$* exited $?: $(head -c 800 "$TMP/app.err")"
  expect_in "$TMP/app.out" "version $version"
  expect_in "$TMP/app.out" "mode $mode"
  expect_in "$TMP/app.out" "2x2xf32 = 11 22 33 44"
}
cd "$TMP" || fail "cd $TMP"

# Shared: exactly the documented command line.
# shellcheck disable=SC2046
"$CC" "${SAN[@]}" app.c $(pkg-config --cflags --libs tpurun) -o app_shared 2>"$TMP/err" ||
  fail "cc app.c \$(pkg-config --cflags --libs tpurun) failed: $(head -c 800 "$TMP/err")"
LD_LIBRARY_PATH=$P/lib ldd app_shared >"$TMP/ldd" 2>&1 || true
expect_in "$TMP/ldd" "libtpurun.so => $P/lib/libtpurun.so"
check_app 0 env LD_LIBRARY_PATH="$P/lib" ./app_shared
mode=0
for name in strict debug fused; do # TPU_EAGER_STRICT, _DEBUG, _FUSED
  check_app $mode env LD_LIBRARY_PATH="$P/lib" TPU_EAGER_MODE=$name ./app_shared
  mode=$((mode + 1))
done

# Static: the archive, then Libs.private (pkg-config --static) without -ltpurun.
private=$(pkg-config --static --libs-only-l tpurun | tr ' ' '\n' | grep -vx -- '-ltpurun' | tr '\n' ' ')
# shellcheck disable=SC2046,SC2086
"$CC" "${SAN[@]}" app.c $(pkg-config --cflags tpurun) "$P/lib/libtpurun.a" $private -o app_static 2>"$TMP/err" ||
  fail "static link of app.c failed: $(head -c 800 "$TMP/err")"
if readelf -d app_static | grep -q 'NEEDED.*libtpurun'; then fail "app_static needs libtpurun.so"; fi
check_app 0 ./app_static
cd "$ROOT" || fail "cd $ROOT"

# ---------------------------------------------------------------- python
if [ ${#SAN[@]} -eq 0 ]; then
  env -u TPURUN_LIBRARY -u TPURUN_BUILD_DIR PYTHONPATH="$P/$PYDIR" "$PYTHON" -c '
import numpy as np, tpurun, tpurun._capi as capi
with tpurun.Client(no_disk_cache=True) as c:
    r = c.op("stablehlo.add", [c.tensor(np.ones(2, np.float32)), c.tensor(np.full(2, 2, np.float32))])
    print(capi.lib._name, tpurun.version(), r.numpy().tolist())' >"$TMP/py.out" 2>&1 ||
    fail "the installed Python package failed: $(head -c 800 "$TMP/py.out")"
  expect_in "$TMP/py.out" "$P/lib/libtpurun.so $version [3.0, 3.0]"
fi

# ---------------------------------------------------------------- man pages
if command -v groff >/dev/null; then
  for page in man1/tpucc.1 man1/tpurun.1 man3/tpurun.3; do
    groff -man -Tutf8 -ww -z "$P/share/man/$page" >"$TMP/err" 2>&1 || fail "groff failed on $page"
    [ ! -s "$TMP/err" ] || fail "groff warns on $page: $(head -c 800 "$TMP/err")"
  done
else
  echo "groff not installed: man pages not rendered"
fi
if command -v man >/dev/null; then
  for page in man1/tpucc.1 man1/tpurun.1 man3/tpurun.3; do
    MANWIDTH=80 man --warnings -l "$P/share/man/$page" >"$TMP/out" 2>"$TMP/err" || fail "man -l failed on $page"
    [ ! -s "$TMP/err" ] || fail "man --warnings -l warns on $page: $(head -c 800 "$TMP/err")"
    [ -s "$TMP/out" ] || fail "man -l rendered nothing for $page"
  done
  MANPATH=$P/share/man man -w 3 tpurun >"$TMP/out" 2>&1 || fail "man -w 3 tpurun does not find the page"
else
  echo "man not installed: man -l not checked"
fi

# Every option a tool's --help prints is in its man page.
for tool in tpucc tpurun; do
  sed 's/\\-/-/g' "$P/share/man/man1/$tool.1" >"$TMP/page"
  for opt in $("$P/bin/$tool" --help | grep -o -- '--[a-z][a-z-]*[a-z]' | sort -u); do
    grep -qF -- "$opt" "$TMP/page" || fail "$tool --help prints $opt, which $tool(1) does not document"
  done
done

# ---------------------------------------------------------------- uninstall
# A staged install: DESTDIR is prepended to every path but not written into
# tpurun.pc, and uninstall with the same DESTDIR removes it all.
S=$TMP/stage
submake install BUILD="$BUILD_ARG" PREFIX=/opt/tpurun DESTDIR="$S" >"$TMP/stage.out" 2>&1 ||
  fail "make install DESTDIR=... failed: $(head -c 800 "$TMP/stage.out")"
for f in "${FILES[@]}"; do [ -f "$S/opt/tpurun/$f" ] || fail "DESTDIR install lacks $f"; done
expect_in "$S/opt/tpurun/lib/pkgconfig/tpurun.pc" "prefix=/opt/tpurun"
if grep -qF "$S" "$S/opt/tpurun/lib/pkgconfig/tpurun.pc"; then fail "tpurun.pc names DESTDIR"; fi
submake uninstall BUILD="$BUILD_ARG" PREFIX=/opt/tpurun DESTDIR="$S" >"$TMP/stage.out" 2>&1 ||
  fail "make uninstall DESTDIR=... failed: $(head -c 800 "$TMP/stage.out")"
left=$(find "$S" -type f -o -type l)
[ -z "$left" ] || fail "make uninstall DESTDIR=... left files behind: $left"

submake uninstall BUILD="$BUILD_ARG" PREFIX="$P" >"$TMP/uninstall.out" 2>&1 ||
  fail "make uninstall failed: $(head -c 800 "$TMP/uninstall.out")"
for f in "${FILES[@]}"; do expect_in "$TMP/uninstall.out" "removed $P/$f"; done
left=$(find "$P" -type f -o -type l)
[ -z "$left" ] || fail "make uninstall left files behind: $left"
exit 0
