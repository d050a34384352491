/* The disassembler: a readable listing of a .tpub image written by
 * backend_compile, generated from the opcode table (names, field names and
 * kinds).  It trusts its input only as far as bounds go: a malformed image
 * prints "<truncated>" instead of reading past the end. */
#include <inttypes.h>
#include <string.h>

#include "backend/backend.h"
#include "vm/opinfo.h"
#include "vm/tpub.h"

typedef struct Image {
  const uint8_t *bytes;
  size_t n;
  const TpubSection *sec[TPUB_SEC_COUNT];
} Image;

static const void *section(const Image *im, int kind, size_t rec, uint64_t *count) {
  const TpubSection *s = im->sec[kind];
  if (!s || s->offset > im->n || (uint64_t)s->count * rec > im->n - s->offset) {
    *count = 0;
    return NULL;
  }
  *count = s->count;
  return im->bytes + s->offset;
}

static const char *str(const Image *im, uint64_t off) {
  uint64_t n;
  const char *s = section(im, TPUB_SEC_STRTAB, 1, &n);
  return s && off < n && memchr(s + off, 0, n - off) ? s + off : "<bad string>";
}

static void disasm_type(const Image *im, FILE *out, int64_t ti) {
  static const char *const elems[] = {
#define X(id, name, bits, bytes, cls) name,
      TPUB_ELEMS(X)
#undef X
  };
  uint64_t nt, ni;
  const TpubType *types = section(im, TPUB_SEC_TYPES, sizeof(TpubType), &nt);
  const int64_t *ints = section(im, TPUB_SEC_INTS, 8, &ni);
  if (ti < 0 || (uint64_t)ti >= nt) {
    fputs("<bad type>", out);
    return;
  }
  const TpubType *t = &types[ti];
  if (t->kind == TPUB_TY_TOKEN) {
    fputs("token", out);
  } else if (t->kind == TPUB_TY_TUPLE) {
    fputs("tuple<", out);
    for (uint32_t i = 0; i < t->rank && t->dims + i < ni; i++) {
      if (i) fputs(", ", out);
      if (ints[t->dims + i] < ti) disasm_type(im, out, ints[t->dims + i]);
    }
    fputs(">", out);
  } else {
    for (uint32_t i = 0; i < t->rank && t->dims + i < ni; i++) fprintf(out, "%" PRId64 "x", ints[t->dims + i]);
    fputs(t->elem < TPUB_ELEM_COUNT ? elems[t->elem] : "?", out);
  }
}

/* Prints the fields of one instruction; returns false if they overrun. */
static bool print_fields(const Image *im, FILE *out, const VmOpInfo *info, const int64_t *w, const int64_t *end,
                         const TpubFunc *funcs, uint64_t nfuncs) {
  for (int f = 0; f < info->nfields; f++) {
    fprintf(out, " %s=", info->field_name[f]);
    switch (info->field_kind[f]) {
    case 'i':
      if (w >= end) return false;
      fprintf(out, "%" PRId64, *w++);
      break;
    case 'f': {
      if (w >= end) return false;
      double d;
      memcpy(&d, w++, sizeof d);
      fprintf(out, "%g", d);
      break;
    }
    case 's':
      if (w >= end) return false;
      fprintf(out, "\"%s\"", str(im, (uint64_t)*w++));
      break;
    case 'l': {
      if (w >= end || w[0] < 0 || w[0] > end - w - 1) return false;
      int64_t n = *w++;
      fputc('[', out);
      for (int64_t i = 0; i < n; i++) fprintf(out, "%s%" PRId64, i ? ", " : "", *w++);
      fputc(']', out);
      break;
    }
    case 'c':
      if (end - w < 3) return false;
      fprintf(out, "{offset %" PRId64 ", %" PRId64 " bytes%s%s}", w[0], w[1], (w[2] & 1) ? ", splat" : "",
              (w[2] & 2) ? ", elided" : "");
      w += 3;
      break;
    case 'r':
    case 'R': {
      int64_t n = 1;
      if (info->field_kind[f] == 'R') {
        if (w >= end) return false;
        n = *w++;
        fputc('[', out);
      }
      for (int64_t k = 0; k < n; k++) {
        if (end - w < 2 || w[1] < 0 || w[1] > end - w - 2) return false;
        fprintf(out, "%s@%s#%" PRId64, k ? ", " : "",
                w[0] >= 0 && (uint64_t)w[0] < nfuncs ? str(im, funcs[w[0]].name) : "?", w[0]);
        if (w[1]) {
          fputs("(captures", out);
          for (int64_t i = 0; i < w[1]; i++) fprintf(out, " r%" PRId64, w[2 + i]);
          fputc(')', out);
        }
        w += 2 + w[1];
      }
      if (info->field_kind[f] == 'R') fputc(']', out);
      break;
    }
    default: return false;
    }
  }
  return true;
}

/* Prints up to n int64 of INTS[at ..] joined by sep ("?" out of bounds). */
static void print_ints(FILE *out, const int64_t *ints, uint64_t nints, uint64_t at, uint64_t n, const char *sep) {
  if (at > nints || n > nints - at) {
    fputs("?", out);
    return;
  }
  for (uint64_t i = 0; i < n; i++) fprintf(out, "%s%" PRId64, i ? sep : "", ints[at + i]);
}

/* The MODULE record, unless it is the default one-chip slice: the slice,
 * and for a partitioned module its mesh. */
static void disasm_module(const Image *im, FILE *out, const int64_t *ints, uint64_t nints) {
  uint64_t nmod;
  const TpubModule *m = section(im, TPUB_SEC_MODULE, sizeof(TpubModule), &nmod);
  if (nmod != 1 || (m->num_replicas == 1 && m->num_partitions == 1 && !m->flags && !m->mesh_rank)) return;
  fprintf(out, "; module: %u replicas x %u partitions", m->num_replicas, m->num_partitions);
  if (m->flags & TPUB_MODULE_SPMD) fputs(", SPMD partitioned (global inputs and results)", out);
  if (m->mesh_rank) {
    fputs(", mesh ", out);
    print_ints(out, ints, nints, m->mesh, m->mesh_rank, "x");
  }
  fputc('\n', out);
}

/* The SHARDS records of function fi, one comment line each. */
static void disasm_shards(const Image *im, FILE *out, uint64_t fi, const int64_t *ints, uint64_t nints) {
  uint64_t nsh;
  const TpubShard *sh = section(im, TPUB_SEC_SHARDS, sizeof(TpubShard), &nsh);
  for (uint64_t k = 0; sh && k < nsh; k++) {
    const TpubShard *r = &sh[k];
    if (r->func != fi) continue;
    fprintf(out, "  ; shard %s %u: global ", r->kind == TPUB_SHARD_PARAM ? "param" : "result", r->index);
    print_ints(out, ints, nints, r->global, r->rank, "x");
    fputs(", tiles [", out);
    print_ints(out, ints, nints, r->tiles, r->rank, ", ");
    fputs("], replicated ", out);
    print_ints(out, ints, nints, (uint64_t)r->tiles + r->rank, 1, "");
    fputs(", devices [", out);
    print_ints(out, ints, nints, r->devices, r->ndevices, ", ");
    fputs("]\n", out);
  }
}

/* The DYNDIMS records of function fi, one comment line each. */
static void disasm_dyndims(const Image *im, FILE *out, uint64_t fi) {
  uint64_t nd;
  const TpubDyn *dd = section(im, TPUB_SEC_DYNDIMS, sizeof(TpubDyn), &nd);
  for (uint64_t k = 0; dd && k < nd; k++) {
    const TpubDyn *r = &dd[k];
    if (r->func != fi) continue;
    const char *side = r->kind == TPUB_DYN_PARAM ? "param" : "result";
    fprintf(out, "  ; dynamic %s %u dim %u: bound %lld, size in %s %u\n", side, r->index, r->dim, (long long)r->bound,
            side, r->size);
  }
}

void backend_disassemble(const uint8_t *bytes, size_t n, FILE *out) {
  Image im = {bytes, n, {0}};
  if (n < sizeof(TpubHeader)) {
    fputs("; <truncated>\n", out);
    return;
  }
  TpubHeader h;
  memcpy(&h, bytes, sizeof h);
  fprintf(out, "; tpub format %u, compiler %.16s, target %.8s, %zu bytes, checksum %016" PRIx64 "\n", h.format_version,
          h.compiler_version, h.target, n, h.checksum);
  const TpubSection *tab = (const TpubSection *)(bytes + sizeof h);
  for (uint32_t i = 0; i < h.section_count && sizeof h + (i + 1) * sizeof *tab <= n; i++)
    if (tab[i].kind > 0 && tab[i].kind < TPUB_SEC_COUNT) im.sec[tab[i].kind] = &tab[i];
  uint64_t nfuncs, ncode, nints, nlocs, nconsts, ntypes;
  const TpubFunc *funcs = section(&im, TPUB_SEC_FUNCS, sizeof(TpubFunc), &nfuncs);
  const uint32_t *code = section(&im, TPUB_SEC_CODE, 4, &ncode);
  const int64_t *ints = section(&im, TPUB_SEC_INTS, 8, &nints);
  const TpubLoc *locs = section(&im, TPUB_SEC_LOCS, sizeof(TpubLoc), &nlocs);
  section(&im, TPUB_SEC_CONSTS, 1, &nconsts);
  section(&im, TPUB_SEC_TYPES, sizeof(TpubType), &ntypes);
  fprintf(out, "; %" PRIu64 " functions, %" PRIu64 " types, %" PRIu64 " bytes of constants\n", nfuncs, ntypes, nconsts);
  disasm_module(&im, out, ints, nints);
  for (uint64_t fi = 0; fi < nfuncs; fi++) {
    const TpubFunc *f = &funcs[fi];
    fprintf(out, "\nfunc @%s#%" PRIu64 "(", str(&im, f->name), fi);
    for (uint32_t i = 0; i < f->n_params && f->reg_types + i < nints; i++) {
      fprintf(out, "%sr%u: ", i ? ", " : "", i);
      disasm_type(&im, out, ints[f->reg_types + i]);
    }
    fputs(") -> (", out);
    for (uint32_t i = 0; i < f->n_results && f->result_types + i < nints; i++) {
      if (i) fputs(", ", out);
      disasm_type(&im, out, ints[f->result_types + i]);
    }
    fprintf(out, ")   ; %s%s%u registers\n", (f->flags & TPUB_FUNC_PUBLIC) ? "public, " : "",
            (f->flags & TPUB_FUNC_REGION) ? "region, " : "", f->n_regs);
    disasm_shards(&im, out, fi, ints, nints);
    disasm_dyndims(&im, out, fi);
    if (f->code > ncode || f->code_words > ncode - f->code) {
      fputs("  <truncated>\n", out);
      continue;
    }
    const uint32_t *w = code + f->code, *end = w + f->code_words;
    while (w < end) {
      uint32_t pc = (uint32_t)(w - (code + f->code));
      if (end - w < TPUB_INSTR_HEADER_WORDS || (uint64_t)(end - w) < TPUB_INSTR_HEADER_WORDS + 1ull + w[1] + w[2]) {
        fputs("  <truncated>\n", out);
        break;
      }
      uint32_t opcode = w[0] & 0xffff, flags = w[0] >> 16, nin = w[1], nout = w[2], attrs = w[3], nattrs = w[4],
               loc = w[5];
      const uint32_t *regs = w + TPUB_INSTR_HEADER_WORDS;
      uint32_t nkill = regs[nin + nout];
      if ((uint64_t)(end - w) < TPUB_INSTR_HEADER_WORDS + 1ull + nin + nout + nkill || opcode >= VM_OP_COUNT) {
        fputs("  <truncated>\n", out);
        break;
      }
      VmOpInfo info;
      vm_op_describe((int)opcode, &info);
      fprintf(out, "  %04u  ", pc);
      for (uint32_t i = 0; i < nout; i++) fprintf(out, "%sr%u", i ? ", " : "", regs[nin + i]);
      fprintf(out, "%s%s", nout ? " = " : "", info.name);
      for (uint32_t i = 0; i < nin; i++) fprintf(out, "%sr%u", i ? ", " : " ", regs[i]);
      if (attrs <= nints && nattrs <= nints - attrs &&
          !print_fields(&im, out, &info, ints + attrs, ints + attrs + nattrs, funcs, nfuncs))
        fputs(" <bad fields>", out);
      if (flags & TPUB_INSTR_INPLACE) fprintf(out, " inplace(r%u)", regs[flags & 0xff]);
      if (flags & TPUB_INSTR_ASYNC) fprintf(out, " async");
      if (nkill) {
        fputs("  kill", out);
        for (uint32_t i = 0; i < nkill; i++) fprintf(out, " r%u", regs[nin + nout + 1 + i]);
      }
      if (loc < nlocs)
        fprintf(out, "   ; %s %s:%u:%u", str(&im, locs[loc].op), str(&im, locs[loc].file), locs[loc].line, locs[loc].col);
      fputc('\n', out);
      w = regs + nin + nout + 1 + nkill;
    }
  }
}
