/* Tokenizer and queries for the pretty-syntax language (see ir/syntax.h). */
#include <string.h>

#include "ir/syntax.h"

static const char *const hook_names[HOOK_COUNT] = {
#define WHOLE_HOOK(id, name) [HOOK_##id] = #name,
#define FRAGMENT_HOOK(id, name) [HOOK_##id] = #name,
#include "ir/hooks.def"
#undef WHOLE_HOOK
#undef FRAGMENT_HOOK
};

const char *fmt_hook_name(FmtHook h) { return hook_names[h]; }

/* The hook named by the len bytes at s; an unknown name is a bug of the op
 * table (ir/ops.def), never of the input. */
static FmtHook hook_lookup(const char *s, size_t len, const char *fmt) {
  for (int h = 0; h < HOOK_COUNT; h++)
    if (strlen(hook_names[h]) == len && memcmp(hook_names[h], s, len) == 0) return (FmtHook)h;
  die("unknown format hook @%.*s in op format \"%s\"", (int)len, s, fmt);
}

int fmt_tokenize(const char *fmt, FmtTok *out) {
  int n = 0;
  const char *p = fmt;
  while (*p) {
    while (*p == ' ') p++;
    if (!*p) break;
    const char *s = p;
    while (*p && *p != ' ') p++;
    size_t len = (size_t)(p - s);
    if (n == FMT_MAX_TOKENS || len >= sizeof out->text) die("op format too long: %s", fmt);
    FmtTok *t = &out[n++];
    memset(t, 0, sizeof *t);
    if (len == 2 && s[0] == '%' && s[1] == 'o') t->kind = FMT_OPERANDS;
    else if (len == 6 && strncmp(s, "%attrs", 6) == 0) t->kind = FMT_ATTR_DICT;
    else if (len == 2 && s[0] == '?' && s[1] == '{') t->kind = FMT_OPT_BEGIN;
    else if (len == 2 && s[0] == '}' && s[1] == '?') t->kind = FMT_OPT_END;
    else if (s[0] == '$') {
      const char *colon = memchr(s, ':', len);
      if (!colon) die("attribute directive without style: %.*s", (int)len, s);
      t->kind = FMT_ATTR;
      memcpy(t->text, s + 1, (size_t)(colon - s - 1));
      memcpy(t->style, colon + 1, (size_t)(p - colon - 1));
      continue;
    } else if (s[0] == '!' && len > 1) t->kind = FMT_TYPES;
    else if (s[0] == '@' && len > 1) {
      t->kind = FMT_HOOK;
      t->hook = hook_lookup(s + 1, len - 1, fmt);
    } else t->kind = FMT_LITERAL;
    size_t skip = (t->kind == FMT_TYPES || t->kind == FMT_HOOK) ? 1 : 0;
    memcpy(t->text, s + skip, len - skip);
  }
  return n;
}

FmtHook fmt_whole_hook(const char *fmt) {
  if (!fmt || fmt[0] != '@' || strchr(fmt, ' ')) return HOOK_NONE;
  return hook_lookup(fmt + 1, strlen(fmt + 1), fmt);
}

/* The attributes each fragment hook writes (NULL-terminated lists). */
static const char *const *const hook_attrs[HOOK_COUNT] = {
    [HOOK_SLICE_RANGES] = (const char *const[]){"start_indices", "limit_indices", "strides", NULL},
    [HOOK_DOT_DIMS] = (const char *const[]){"dot_dimension_numbers", NULL},
    [HOOK_CONV_WINDOW] = (const char *const[]){"window_strides", "padding", "lhs_dilation", "rhs_dilation",
                                               "window_reversal", NULL},
    [HOOK_RP_FORMAT] = (const char *const[]){"exponent_bits", "mantissa_bits", NULL},
    [HOOK_SDY_SYM] = (const char *const[]){"sym_name", NULL},
    [HOOK_SDY_MESH] = (const char *const[]){"mesh", NULL},
    [HOOK_SDY_SHARDING] = (const char *const[]){"sharding", NULL},
};

bool fmt_names_attr(const FmtTok *toks, int n, const char *name) {
  for (int i = 0; i < n; i++) {
    if (toks[i].kind == FMT_ATTR && strcmp(toks[i].text, name) == 0) return true;
    if (toks[i].kind == FMT_HOOK && hook_attrs[toks[i].hook])
      for (const char *const *a = hook_attrs[toks[i].hook]; *a; a++)
        if (strcmp(*a, name) == 0) return true;
  }
  return false;
}
