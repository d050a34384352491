/* Tokenizer and queries for the pretty-syntax language (see ir/syntax.h). */
#include <string.h>

#include "ir/syntax.h"

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
    else if (s[0] == '@' && len > 1) t->kind = FMT_HOOK;
    else t->kind = FMT_LITERAL;
    size_t skip = (t->kind == FMT_TYPES || t->kind == FMT_HOOK) ? 1 : 0;
    memcpy(t->text, s + skip, len - skip);
  }
  return n;
}

const char *fmt_whole_hook(const char *fmt) {
  if (!fmt || fmt[0] != '@' || strchr(fmt, ' ')) return NULL;
  return fmt + 1;
}

const char *const *fmt_hook_attrs(const char *hook) {
  static const char *const slice[] = {"start_indices", "limit_indices", "strides", NULL};
  static const char *const dot[] = {"dot_dimension_numbers", NULL};
  static const char *const window[] = {"window_strides", "padding", "lhs_dilation", "rhs_dilation",
                                       "window_reversal", NULL};
  static const char *const rp[] = {"exponent_bits", "mantissa_bits", NULL};
  static const char *const sdy_sym[] = {"sym_name", NULL};
  static const char *const sdy_mesh[] = {"mesh", NULL};
  static const char *const sdy_sharding[] = {"sharding", NULL};
  static const char *const none[] = {NULL};
  if (strcmp(hook, "slice_ranges") == 0) return slice;
  if (strcmp(hook, "dot_dims") == 0) return dot;
  if (strcmp(hook, "conv_window") == 0) return window;
  if (strcmp(hook, "rp_format") == 0) return rp;
  if (strcmp(hook, "sdy_sym") == 0) return sdy_sym;
  if (strcmp(hook, "sdy_mesh") == 0) return sdy_mesh;
  if (strcmp(hook, "sdy_sharding") == 0) return sdy_sharding;
  return none;
}

bool fmt_names_attr(const FmtTok *toks, int n, const char *name) {
  for (int i = 0; i < n; i++) {
    if (toks[i].kind == FMT_ATTR && strcmp(toks[i].text, name) == 0) return true;
    if (toks[i].kind == FMT_HOOK)
      for (const char *const *a = fmt_hook_attrs(toks[i].text); *a; a++)
        if (strcmp(*a, name) == 0) return true;
  }
  return false;
}
