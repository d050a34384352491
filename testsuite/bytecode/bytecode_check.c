/* bytecode_check: portable artifacts against their text.
 *
 *   bytecode_check pairs X.mlir...
 *     X.mlir.bc beside each X.mlir: the module read from the bytecode
 *     prints (pretty form, locations aside) exactly as the one parsed
 *     from the text.  The text is only parsed, not verified: StableHLO's
 *     own pair files hold chunks our verifier refuses on purpose.
 *   bytecode_check roundtrip [--versions=A,B,...|all] FILE.mlir...
 *     each verified module ('// -----' chunks apart) is written as a
 *     portable artifact for each version and read back: the print equals
 *     the text's.  Ops of other dialects (CHLO, the interpreter's check.*
 *     and interpreter.*) are kept as a mixed module, as upstream's
 *     --allow-other-dialects writes them.  A version that lacks one of the
 *     module's ops refuses it with a diagnostic naming the version that
 *     introduced it; a module with ops no artifact can hold is refused at
 *     every version and counted apart.  Dense literals are compared in the
 *     form MLIR gives them (splats detected, hex above 100 elements).
 *   bytecode_check identical X.X_Y_Z.mlir...
 *     StableHLO's own artifacts against ours: the text X.X_Y_Z.mlir written
 *     for version X.Y.Z gives the bytes of X.X_Y_Z.mlir.bc beside it
 *     (stablehlo-translate --serialize --target=X.Y.Z --strip-debuginfo);
 *     and so does the artifact itself read and written again.
 * Prints a line per failure and "N passed, N failed" (refusals counted
 * apart); exit 0 when nothing failed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/bytecode.h"
#include "frontend/parser.h"
#include "frontend/vhlo.h"
#include "ir/ir.h"

typedef struct Tally {
  int passed, failed, refused, not_portable;
  int from_text, from_artifact; /* identical: byte-identical writes of each origin */
} Tally;

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = NULL;
  size_t cap = 0, n = 0, got;
  do {
    if (n + 65536 > cap) buf = xrealloc(buf, cap = 2 * cap + 65536);
    got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
  } while (got > 0);
  fclose(f);
  buf[n] = 0;
  *len = n;
  return buf;
}

/* The first line where a and b differ, for the failure message. */
static void first_difference(const char *a, const char *b, char *out, size_t n) {
  int line = 1;
  const char *la = a, *lb = b;
  while (*a && *a == *b) {
    if (*a == '\n') line++, la = a + 1, lb = b + 1;
    a++, b++;
  }
  int wa = (int)strcspn(la, "\n"), wb = (int)strcspn(lb, "\n");
  snprintf(out, n, "line %d:\n    text: %.*s\n    bc:   %.*s", line, wa > 300 ? 300 : wa, la, wb > 300 ? 300 : wb, lb);
}

/* A context whose diagnostics go to a memory buffer (*buf after fflush). */
static Context *quiet_context(FILE **diag, char **buf, size_t *len) {
  Context *c = ctx_new();
  *diag = open_memstream(buf, len);
  c->diag.out = *diag;
  c->diag.show_source = false;
  return c;
}

static void check_pair(const char *path, Tally *t) {
  size_t tlen, blen;
  char bcpath[4096];
  snprintf(bcpath, sizeof bcpath, "%s.bc", path);
  char *text = read_all(path, &tlen), *bytes = read_all(bcpath, &blen);
  FILE *diag;
  char *dbuf = NULL;
  size_t dlen;
  Context *c = quiet_context(&diag, &dbuf, &dlen);
  SourceFile tf = {path, text, tlen}, bf = {bcpath, bytes, blen};
  Module *mt = text ? parse_module(c, &tf, text, text + tlen, 1) : NULL;
  Module *mb = bytes ? parse_module(c, &bf, bytes, bytes + blen, 1) : NULL;
  fflush(diag);
  char why[1024] = "";
  if (!text || !bytes) snprintf(why, sizeof why, "cannot read %.900s", text ? bcpath : path);
  else if (!mt || !mb) snprintf(why, sizeof why, "%s does not read: %.600s", mt ? "bytecode" : "text", dbuf);
  if (!why[0]) {
    PrintOptions po = {0};
    char *pt = print_module_string(c, mt, &po), *pb = print_module_string(c, mb, &po);
    if (strcmp(pt, pb) != 0) first_difference(pt, pb, why, sizeof why);
    free(pt);
    free(pb);
  }
  if (why[0]) printf("FAIL %s: %s\n", path, why), t->failed++;
  else t->passed++;
  ctx_free(c);
  fclose(diag);
  free(dbuf);
  free(text);
  free(bytes);
}

/* Gives dense literal a the form MLIR builds and prints for it: a splat when
 * all its elements are equal (MLIR's parser detects them; ours keeps the
 * list), hex above 100 elements (as frontend/bytecode.c's reader prints). */
static void dense_as_mlir(Attr *a, int depth) {
  if (depth > 64) return;
  if (a->kind == ATTR_ARRAY)
    for (int i = 0; i < a->u.array.n; i++) dense_as_mlir(a->u.array.items[i], depth + 1);
  if (a->kind == ATTR_DICT)
    for (int i = 0; i < a->u.dict.n; i++) dense_as_mlir(a->u.dict.items[i].value, depth + 1);
  if (a->kind != ATTR_DENSE) return;
  size_t esz = (size_t)elem_storage_bytes(type_elem_kind(a->type));
  bool same = !a->u.dense.splat && esz && a->u.dense.nbytes > esz;
  for (size_t off = esz; same && off < a->u.dense.nbytes; off += esz) same = memcmp(a->u.dense.data, a->u.dense.data + off, esz) == 0;
  if (same) a->u.dense.splat = true, a->u.dense.nbytes = esz;
  a->u.dense.form = !a->u.dense.splat && dense_num_elements(a) > 100 ? DENSE_HEX : DENSE_LIST;
}

static void dense_forms_as_mlir(Op *op, int depth) {
  if (depth > 4096) return;
  for (int i = 0; i < op->nattrs; i++) dense_as_mlir(op->attrs[i].value, 0);
  for (int r = 0; r < op->nregions; r++)
    for (int b = 0; b < op->regions[r].nblocks; b++)
      for (Op *o = op->regions[r].blocks[b]->first; o; o = o->next) dense_forms_as_mlir(o, depth + 1);
}

/* The version X.Y.Z of a name ending in X_Y_Z.mlir; false if none. */
static bool version_of_name(const char *path, VhloVersion *v) {
  const char *dot = strstr(path, ".mlir");
  const char *p = dot;
  for (int underscores = 0; p && p > path && underscores < 3; p--)
    if (p[-1] == '.' || (p[-1] == '_' && ++underscores == 3)) break;
  char text[32];
  if (!p || dot - p >= (long)sizeof text) return false;
  snprintf(text, sizeof text, "%.*s", (int)(dot - p), p);
  for (char *c = text; *c; c++)
    if (*c == '_') *c = '.';
  return vhlo_version_parse(text, v);
}

/* Writes m (StableHLO, or VHLO form when vhlo) for v and compares the
 * bytes with want; a reason in why when they differ. */
static void write_and_compare(Context *c, Module *m, bool vhlo, VhloVersion v, const char *want, size_t wlen,
                              char *why, size_t n) {
  uint8_t *out = NULL;
  size_t len = 0;
  if ((!vhlo && !stablehlo_to_vhlo(c, m, v)) || !bc_write_vhlo(c, m, v, &out, &len)) {
    snprintf(why, n, "not written");
  } else if (len != wlen || memcmp(out, want, len) != 0) {
    size_t at = 0;
    while (at < len && at < wlen && out[at] == (uint8_t)want[at]) at++;
    snprintf(why, n, "%zu bytes against %zu, first difference at byte %zu", len, wlen, at);
  }
  free(out);
}

static void check_identical(const char *path, Tally *t) {
  size_t tlen, blen;
  char bcpath[4096], why[512] = "";
  snprintf(bcpath, sizeof bcpath, "%s.bc", path);
  char *text = read_all(path, &tlen), *bytes = read_all(bcpath, &blen);
  VhloVersion v;
  FILE *diag;
  char *dbuf = NULL;
  size_t dlen;
  Context *c = quiet_context(&diag, &dbuf, &dlen);
  SourceFile tf = {path, text, tlen}, bf = {bcpath, bytes, blen};
  BcInfo info = {0};
  Module *mt = text ? parse_module(c, &tf, text, text + tlen, 1) : NULL;
  Module *mb = bytes ? bc_read_vhlo(c, &bf, &info) : NULL;
  if (!version_of_name(path, &v)) snprintf(why, sizeof why, "no X_Y_Z version in the name");
  else if (!mt || !mb) snprintf(why, sizeof why, "%s does not read", mt ? "bytecode" : "text");
  if (why[0]) {
    fflush(diag);
    printf("FAIL %s: %s %.300s\n", path, why, dbuf ? dbuf : "");
    t->failed++;
  } else {
    char from_text[256] = "", from_artifact[256] = "";
    write_and_compare(c, mt, false, v, bytes, blen, from_text, sizeof from_text);
    write_and_compare(c, mb, true, v, bytes, blen, from_artifact, sizeof from_artifact);
    t->from_text += !from_text[0];
    t->from_artifact += !from_artifact[0];
    if (from_text[0]) printf("FAIL %s: written from the text: %s\n", path, from_text);
    if (from_artifact[0]) printf("FAIL %s: written again from the artifact: %s\n", path, from_artifact);
    if (from_text[0] || from_artifact[0]) t->failed++;
    else t->passed++;
  }
  ctx_free(c);
  fclose(diag);
  free(dbuf);
  free(text);
  free(bytes);
}

/* One verified chunk written for each version and read back. */
static void roundtrip_chunk(const char *path, const SourceFile *file, SourceChunk ch, char **versions, int nv,
                            Tally *t) {
  for (int v = 0; v < nv; v++) {
    FILE *diag;
    char *dbuf = NULL;
    size_t dlen;
    Context *c = quiet_context(&diag, &dbuf, &dlen);
    Module *m = parse_module(c, file, ch.start, ch.end, ch.first_line);
    if (!m || !verify_module(c, m)) { /* not a program: nothing to round-trip */
      ctx_free(c);
      fclose(diag);
      free(dbuf);
      return;
    }
    PrintOptions po = {0};
    dense_forms_as_mlir(m->op, 0);
    char *before = print_module_string(c, m, &po), *after = NULL, why[1024] = "";
    uint8_t *bytes = NULL;
    size_t n = 0;
    bool newest = strcmp(versions[v], "1.20.0") == 0;
    if (!bytecode_write_module(c, m, versions[v], &bytes, &n)) {
      fflush(diag);
      if (strstr(dbuf, "is not a VHLO op")) {
        t->not_portable++;
        v = nv; /* refused alike at every version */
      } else if (newest || !(strstr(dbuf, "introduced in") || strstr(dbuf, "needs StableHLO"))) {
        snprintf(why, sizeof why, "write refused: %.600s", dbuf);
      } else {
        t->refused++;
      }
    } else {
      Context *c2 = ctx_new();
      c2->diag.out = diag;
      SourceFile bf = {"written.mlir.bc", (const char *)bytes, n};
      Module *m2 = parse_module(c2, &bf, bf.text, bf.text + n, 1);
      fflush(diag);
      if (!m2) snprintf(why, sizeof why, "written artifact does not read back: %.600s", dbuf);
      else if (strcmp(before, after = print_module_string(c2, m2, &po)) != 0) first_difference(before, after, why, sizeof why);
      ctx_free(c2);
    }
    if (why[0]) printf("FAIL %s:%u at %s: %s\n", path, ch.first_line, versions[v], why), t->failed++;
    else if (bytes) t->passed++;
    free(before);
    free(after);
    free(bytes);
    ctx_free(c);
    fclose(diag);
    free(dbuf);
  }
}

/* Every StableHLO minor version from 0.9.0 to 1.20.0. */
static int all_versions(char ***out) {
  static const int minors[][2] = {{0, 9}, {0, 20}, {1, 0}, {1, 20}};
  char **v = xrealloc(NULL, 64 * sizeof *v);
  int n = 0;
  for (int r = 0; r < 4; r += 2)
    for (int m = minors[r][1]; m <= minors[r + 1][1]; m++) {
      v[n] = xrealloc(NULL, 16);
      snprintf(v[n++], 16, "%d.%d.0", minors[r][0], m);
    }
  *out = v;
  return n;
}

static int split_versions(char *list, char ***out) {
  char **v = xrealloc(NULL, 64 * sizeof *v);
  int n = 0;
  for (char *s = strtok(list, ","); s && n < 64; s = strtok(NULL, ",")) v[n++] = strcpy(xrealloc(NULL, strlen(s) + 1), s);
  *out = v;
  return n;
}

int main(int argc, char **argv) {
  bool identical = argc >= 2 && strcmp(argv[1], "identical") == 0;
  if (argc < 2 || (strcmp(argv[1], "pairs") != 0 && strcmp(argv[1], "roundtrip") != 0 && !identical)) {
    fprintf(stderr, "usage: bytecode_check pairs X.mlir... | identical X.X_Y_Z.mlir... | roundtrip "
                    "[--versions=A,B|all] FILE.mlir...\n");
    return 1;
  }
  Tally t = {0};
  char **versions = NULL;
  int nv = 0, first = 2;
  if (strcmp(argv[1], "roundtrip") == 0) {
    if (argc > 2 && strncmp(argv[2], "--versions=", 11) == 0) {
      nv = strcmp(argv[2] + 11, "all") == 0 ? all_versions(&versions) : split_versions(argv[2] + 11, &versions);
      first = 3;
    } else {
      nv = all_versions(&versions);
    }
  }
  for (int i = first; i < argc; i++) {
    if (!versions) {
      if (identical) check_identical(argv[i], &t);
      else check_pair(argv[i], &t);
      continue;
    }
    size_t len;
    char *text = read_all(argv[i], &len);
    if (!text) {
      printf("FAIL %s: cannot read\n", argv[i]);
      t.failed++;
      continue;
    }
    SourceFile file = {argv[i], text, len};
    SourceChunk *chunks;
    int nc = source_chunks(&file, true, &chunks);
    for (int k = 0; k < nc; k++) roundtrip_chunk(argv[i], &file, chunks[k], versions, nv, &t);
    free(chunks);
    free(text);
  }
  if (identical)
    printf("byte-identical to StableHLO's: %d written from the text, %d written again from the artifact\n",
           t.from_text, t.from_artifact);
  if (versions)
    printf("%d refused by an older version that lacks an op or type; %d modules with ops of no portable dialect\n",
           t.refused, t.not_portable);
  printf("%d passed, %d failed\n", t.passed, t.failed);
  for (int v = 0; v < nv; v++) free(versions[v]);
  free(versions);
  return t.failed ? 1 : 0;
}
