/* StableHLO versions: parsing, ordering, and the MLIR bytecode format
 * version each one writes (upstream's stablehlo/dialect/Version.cpp). */
#include <stdlib.h>

#include "frontend/vhlo.h"

/* One decimal component of a version at *p (no sign, at most 6 digits). */
static bool version_component(const char **p, int *out) {
  const char *s = *p;
  int v = 0, digits = 0;
  while (*s >= '0' && *s <= '9' && digits < 7) v = v * 10 + (*s++ - '0'), digits++;
  if (digits == 0 || digits > 6) return false;
  *out = v;
  *p = s;
  return true;
}

bool vhlo_version_parse(const char *s, VhloVersion *out) {
  VhloVersion v;
  if (!s || !version_component(&s, &v.major) || *s++ != '.' || !version_component(&s, &v.minor) ||
      *s++ != '.' || !version_component(&s, &v.patch) || *s)
    return false;
  *out = v;
  return true;
}

int vhlo_version_cmp(VhloVersion a, VhloVersion b) {
  if (a.major != b.major) return a.major < b.major ? -1 : 1;
  if (a.minor != b.minor) return a.minor < b.minor ? -1 : 1;
  if (a.patch != b.patch) return a.patch < b.patch ? -1 : 1;
  return 0;
}

bool vhlo_version_supported(VhloVersion v) {
  return vhlo_version_cmp(v, VHLO_VERSION_MINIMUM) >= 0 && vhlo_version_cmp(v, VHLO_VERSION_CURRENT) <= 0;
}

int vhlo_bytecode_format(VhloVersion v) {
  if (vhlo_version_cmp(v, (VhloVersion){0, 10, 0}) < 0) return 0;
  if (vhlo_version_cmp(v, (VhloVersion){0, 12, 0}) < 0) return 1;
  if (vhlo_version_cmp(v, (VhloVersion){0, 14, 0}) < 0) return 3;
  if (vhlo_version_cmp(v, (VhloVersion){0, 15, 0}) < 0) return 4;
  return 6;
}
