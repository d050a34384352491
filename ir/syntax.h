/* The pretty-syntax language of the op table (ir/ops.def).
 *
 * A format is a space-separated list of tokens, read left to right by both
 * the parser (frontend/parse_op.c) and the printer (ir/printer.c):
 *
 *   %o              the op's operands, comma separated
 *   %attrs          the attribute dictionary {..} of attributes not named
 *                   elsewhere in the format (optional when empty)
 *   $NAME:STYLE     attribute NAME written in STYLE:
 *                     arr     [1, 2] as array<i64: 1, 2>
 *                     i64/i32 an integer with that type
 *                     u64     an unsigned 64-bit integer (ui64, up to 2^64-1)
 *                     f64     a float with that type
 *                     str     a string; sym a @symbol
 *                     enum.E  a bare keyword as #stablehlo<E KEYWORD>
 *                     prec    [DEFAULT, HIGH] precision list
 *                     conv    [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]
 *                     dense   a dense literal with its type; the type is
 *                             also the type of the single operand
 *                     attr    any attribute
 *   !same !fn !res !ops !chlo !select !tuple !pair !complex
 *                   how operand and result types are written (see printer)
 *   @HOOK           custom syntax in C, one of the hooks of ir/hooks.def: a
 *                   whole-op hook (@module, @func, ...) is the whole format,
 *                   a fragment hook (@slice_ranges, @dot_dims, ...) one token
 *   ?{ ... }?       optional group: printed when its first attribute (or
 *                   operand / type directive) is present; parsed when the
 *                   next token matches its first literal
 *   anything else   a literal keyword or punctuation token
 */
#ifndef TPUCC_SYNTAX_H
#define TPUCC_SYNTAX_H

#include "ir/ir.h"

typedef enum FmtKind {
  FMT_LITERAL,
  FMT_OPERANDS,
  FMT_ATTR_DICT,
  FMT_ATTR,
  FMT_TYPES,
  FMT_HOOK,
  FMT_OPT_BEGIN,
  FMT_OPT_END,
} FmtKind;

/* The format hooks of ir/hooks.def; HOOK_NONE: a format that is no hook. */
typedef enum FmtHook {
  HOOK_NONE = -1,
#define WHOLE_HOOK(id, name) HOOK_##id,
#define FRAGMENT_HOOK(id, name) HOOK_##id,
#include "ir/hooks.def"
#undef WHOLE_HOOK
#undef FRAGMENT_HOOK
  HOOK_COUNT
} FmtHook;

typedef struct FmtTok {
  FmtKind kind;
  FmtHook hook;   /* FMT_HOOK: which one */
  char text[48];  /* literal, attribute name, type directive or hook name */
  char style[40]; /* FMT_ATTR style */
} FmtTok;

enum { FMT_MAX_TOKENS = 40 };

/* Split a format string into tokens; returns the count.  Dies on a hook
 * name that ir/hooks.def lacks (a bug of the op table). */
int fmt_tokenize(const char *fmt, FmtTok *out);

/* Is the whole format one whole-op hook? Returns it, or HOOK_NONE. */
FmtHook fmt_whole_hook(const char *fmt);

/* The hook's name, as written after '@'. */
const char *fmt_hook_name(FmtHook h);

/* Does the attribute dictionary need to list attribute NAME for this format?
 * False for names the format writes itself. */
bool fmt_names_attr(const FmtTok *toks, int n, const char *name);

#endif
