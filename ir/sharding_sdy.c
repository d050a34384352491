/* Placeholder until Shardy's attributes are read (replaced by the Shardy reader). */
#include <stdio.h>

#include "ir/sharding.h"

bool sharding_parse_sdy(Arena *a, const Module *m, const char *text, Sharding *out, char *why) {
  (void)a, (void)m, (void)out;
  snprintf(why, SHARDING_WHY_LEN, "Shardy sharding '%.40s' is not read yet", text);
  return false;
}
