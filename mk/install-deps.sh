#!/usr/bin/env bash
# mk/install-deps.sh [build|test]
#
# Makes sure the Debian packages tpucc needs are installed (DESIGN.md §7).
#   build  (default) what is needed to compile tpucc and tpurun
#   test   the build set plus what `make check`, `make sanitize`,
#          `make fuzz-parser` and `make bench` need
# Silent and fast when everything is present: one dpkg-query call.
set -euo pipefail

BUILD_PKGS=(libgmp-dev libxxhash-dev libc6-dev libopenblas-dev gcc make openmpi-bin libopenmpi-dev)
TEST_PKGS=(time libcmocka-dev llvm-14-tools mlir-14-tools python3 python3-numpy python3-torch python3-pytest python3-hypothesis libopenblas0-pthread
           clang-14 libclang-rt-14-dev pkg-config groff-base)

die() { echo "tpucc: $*" >&2; exit 1; }

case "${1:-build}" in
  build) want=("${BUILD_PKGS[@]}") ;;
  test)  want=("${BUILD_PKGS[@]}" "${TEST_PKGS[@]}") ;;
  *)     die "usage: $0 [build|test]" ;;
esac

command -v dpkg-query >/dev/null 2>&1 ||
  die "dpkg-query not found: this script supports Debian/Ubuntu only; install: ${want[*]}"

# One line "<name> <status>" per known package; unknown packages print nothing
# (and an error on stderr, which we drop), so they count as missing.
installed=$(dpkg-query -W -f='${Package} ${Status}\n' "${want[@]}" 2>/dev/null || true)
missing=()
for p in "${want[@]}"; do
  grep -qx "$p install ok installed" <<<"$installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "tpucc: installing missing Debian packages: ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  die "missing packages: ${missing[*]}
tpucc: not root and no sudo; as root run:
  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
fi

export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q ||
  die "'apt-get update' failed; cannot install: ${missing[*]}"
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" ||
  die "'apt-get install ${missing[*]}' failed"
