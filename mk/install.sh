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
#   lib/pythonX.Y/site-packages/tpurun/...    the Python package (python/tpurun);
#                                             dist-packages for Debian's python3
#                                             under /usr/local, as its sys.path has
# and prints one line per file, then the directory to put on PYTHONPATH.  `uninstall` removes exactly those files
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

# The Python package's directory under the prefix (relative): the prefix's
# site-packages, or where Debian's python3 looks under /usr/local.
python_dir() {
  local py=${PYTHON:-python3} ver
  ver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) || return 1
  if [ "$prefix" = /usr/local ] && "$py" -c 'import sysconfig, sys; sys.exit("deb_system" not in sysconfig.get_scheme_names())' 2>/dev/null; then
    echo "lib/python$ver/dist-packages"
  else
    echo "lib/python$ver/site-packages"
  fi
}
if pydir=$(python_dir); then
  while IFS= read -r f; do
    FILES+=("644 $ROOT/$f $pydir/${f#python/}")
  done < <(cd "$ROOT" && find python/tpurun -name '*.py' | LC_ALL=C sort)
fi

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
    if [ -n "${pydir:-}" ]; then
      echo "install: the Python package tpurun is in $dest/$pydir (use PYTHONPATH=$dest/$pydir unless it is on python3's path)"
    else
      echo "install: python3 not found: the Python package (python/tpurun) was not installed"
    fi
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
