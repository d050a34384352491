/* The rows of frontend/vhlo_ops.def, parsed: op names, kinds, versions and
 * the rule and default of each attribute. */
#include <string.h>

#include "frontend/vhlo_legalize.h"

typedef struct RawRow {
  const char *name;
  OpKind kind;
  const char *since, *until;
  unsigned structs, constraints;
  const char *attrs;
} RawRow;

static const RawRow raw_rows[] = {
#define VHLO_OP(id, name, kind, since, until, structs, constraints, attrs) \
  {name, OP_##kind, since, until, structs, constraints, attrs},
#include "frontend/vhlo_ops.def"
#undef VHLO_OP
};

#define NROWS (int)(sizeof raw_rows / sizeof raw_rows[0])

static const char *const rule_names[] = {
    [VR_SAME] = "", [VR_I64ARR] = "i64arr", [VR_BOOLARR] = "boolarr", [VR_SYM] = "sym",
    [VR_SYMS] = "syms", [VR_CHAN] = "chan", [VR_UNIT] = "unit", [VR_APIVER] = "apiver"};

static const char *const default_names[] = {
    [VD_NONE] = "",         [VD_FALSE] = "false",      [VD_ZERO] = "zero",     [VD_NEG1] = "neg1",
    [VD_STR] = "str",       [VD_ARR] = "arr",          [VD_DICT] = "dict",     [VD_EMPTY] = "empty",
    [VD_ONES] = "ones",     [VD_ZEROS] = "zeros",      [VD_FALSES] = "falses", [VD_PREC] = "prec",
    [VD_NOTYPE] = "notype", [VD_ORIGINAL] = "original", [VD_ACC] = "acc",      [VD_NONETYPE] = "none",
    [VD_CONFIG] = "config", [VD_LAYOUTS] = "layouts"};

/* The index of word s[0, n) in names (count entries); dies if absent: the
 * table is ours. */
static int word_index(const char *const *names, int count, const char *s, size_t n, const char *row) {
  for (int i = 0; i < count; i++)
    if (strlen(names[i]) == n && memcmp(names[i], s, n) == 0) return i;
  die("vhlo_ops.def: row %s: unknown rule or default '%.*s'", row, (int)n, s);
}

static VhloVersion row_version(const char *s, const char *row) {
  VhloVersion v;
  if (strcmp(s, "current") == 0) return VHLO_VERSION_CURRENT;
  if (!vhlo_version_parse(s, &v)) die("vhlo_ops.def: row %s: bad version '%s'", row, s);
  return v;
}

/* One row's attribute string "name[:rule][=default] ..." into row. */
static void parse_attrs(Context *c, const RawRow *raw, VhloOpRow *row) {
  for (const char *p = raw->attrs; *p;) {
    size_t len = strcspn(p, " ");
    size_t nlen = strcspn(p, ":= ");
    if (row->nattrs == VHLO_MAX_ATTRS) die("vhlo_ops.def: row %s: too many attributes", raw->name);
    VhloAttrSpec *a = &row->attrs[row->nattrs++];
    a->name = arena_strndup(&c->arena, p, nlen);
    const char *q = p + nlen;
    if (*q == ':') {
      size_t rl = strcspn(q + 1, "= ");
      a->rule = (VhloRule)word_index(rule_names, (int)(sizeof rule_names / sizeof rule_names[0]), q + 1, rl,
                                     raw->name);
      q += 1 + rl;
    }
    if (*q == '=') {
      size_t dl = strcspn(q + 1, " ");
      a->def = (VhloDefault)word_index(default_names, (int)(sizeof default_names / sizeof default_names[0]),
                                       q + 1, dl, raw->name);
    }
    p += len;
    while (*p == ' ') p++;
  }
}

VhloTable *vhlo_table(Context *c) {
  VhloTable *t = arena_alloc(&c->arena, sizeof *t);
  t->n = NROWS;
  t->rows = arena_alloc(&c->arena, sizeof(VhloOpRow) * NROWS);
  for (int i = 0; i < NROWS; i++) {
    VhloOpRow *r = &t->rows[i];
    r->name = raw_rows[i].name;
    r->kind = raw_rows[i].kind;
    r->since = row_version(raw_rows[i].since, r->name);
    r->until = row_version(raw_rows[i].until, r->name);
    r->structs = raw_rows[i].structs;
    r->constraints = raw_rows[i].constraints;
    parse_attrs(c, &raw_rows[i], r);
  }
  return t;
}

const VhloOpRow *vhlo_row_by_name(const VhloTable *t, const char *name) {
  for (int i = 0; i < t->n; i++)
    if (strcmp(t->rows[i].name, name) == 0) return &t->rows[i];
  return NULL;
}

const VhloOpRow *vhlo_row_current(const VhloTable *t, OpKind kind) {
  const VhloOpRow *best = NULL;
  for (int i = 0; i < t->n; i++)
    if (t->rows[i].kind == kind && (!best || vhlo_version_cmp(t->rows[i].since, best->since) > 0))
      best = &t->rows[i];
  return best;
}

const VhloOpRow *vhlo_row_at(const VhloTable *t, OpKind kind, VhloVersion v) {
  const VhloOpRow *best = NULL;
  for (int i = 0; i < t->n; i++) {
    const VhloOpRow *r = &t->rows[i];
    if (r->kind == kind && vhlo_version_cmp(r->since, v) <= 0 && (!best || vhlo_version_cmp(r->since, best->since) > 0))
      best = r;
  }
  return best;
}

const VhloAttrSpec *vhlo_row_attr(const VhloOpRow *row, const char *name) {
  for (int i = 0; i < row->nattrs; i++)
    if (strcmp(row->attrs[i].name, name) == 0) return &row->attrs[i];
  return NULL;
}
