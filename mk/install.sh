#!/usr/bin/env bash
# mk/install.sh install|uninstall BUILD PREFIX VERSION
#
# What `make install` and `make uninstall` do (mk/install.mk), kept in one
# script so the list of files exists once.  Installs from BUILD (never
# builds anything) into $DESTDIR$PREFIX:
#   bin/tpucc  bin/tpurun                     the tools
#   include/tpurun.h                          the C API (runtime/tpurun.h)
#   lib/libtpurun.a  lib/libtpurun.so         the runtime library
#   lib/pkgconfig/tpurun.pc                   from mk/tpurun.pc.in, prefix=PREFIX
#   share/man/man1/tpucc.1  share/man/man1/tpurun.1  share/man/man3/tpurun.3
# and prints one line per file.  `uninstall` removes exactly those files
# (directories are left in place) and prints one line per file removed.
# DESTDIR (environment, default empty) is prepended to every path but not
# written into tpurun.pc, as staged installs expect.
set -euo pipefail

die() { echo "install: $*" >&2; exit 1; }

[ $# -eq 4 ] || die "usage: $0 install|uninstall BUILD PREFIX VERSION"
action=$1 build=$2 prefix=$3 version=$4
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest=${DESTDIR:-}$prefix
case $prefix in /*) ;; *) die "PREFIX must be an absolute path, not '$prefix'" ;; esac

# mode  source  destination (relative to the prefix)
FILES=(
  "755 $build/tpucc                bin/tpucc"
  "755 $build/tpurun               bin/tpurun"
  "644 $ROOT/runtime/tpurun.h      include/tpurun.h"
  "644 $build/libtpurun.a          lib/libtpurun.a"
  "755 $build/libtpurun.so         lib/libtpurun.so"
  "644 -                           lib/pkgconfig/tpurun.pc"
  "644 $ROOT/docs/man/tpucc.1      share/man/man1/tpucc.1"
  "644 $ROOT/docs/man/tpurun.1     share/man/man1/tpurun.1"
  "644 $ROOT/docs/man/tpurun.3     share/man/man3/tpurun.3"
)

case $action in
  install)
    [ -n "$version" ] || die "no version (TPUCC_VERSION in runtime/compile.h)"
    # Every source first, so a missing one installs nothing.
    for f in "${FILES[@]}"; do
      read -r _ src _ <<<"$f"
      [ "$src" = - ] || [ -f "$src" ] || die "$src missing$([[ $src == "$build"/* ]] && echo ": run make first")"
    done
    for f in "${FILES[@]}"; do
      read -r mode src rel <<<"$f"
      if [ "$src" = - ]; then
        # The prefix goes into a sed replacement: escape its \ & and |.
        esc=$(printf '%s' "$prefix" | sed 's/[\\&|]/\\&/g')
        src=$(mktemp)
        sed -e "s|@PREFIX@|$esc|g" -e "s|@VERSION@|$version|g" "$ROOT/mk/tpurun.pc.in" >"$src"
        install -D -m "$mode" "$src" "$dest/$rel"
        rm -f "$src"
      else
        install -D -m "$mode" "$src" "$dest/$rel"
      fi
      echo "install: $dest/$rel"
    done
    ;;
  uninstall)
    for f in "${FILES[@]}"; do
      read -r _ _ rel <<<"$f"
      if [ -e "$dest/$rel" ] || [ -L "$dest/$rel" ]; then
        rm -f "$dest/$rel"
        echo "uninstall: removed $dest/$rel"
      fi
    done
    ;;
  *) die "usage: $0 install|uninstall BUILD PREFIX VERSION" ;;
esac
