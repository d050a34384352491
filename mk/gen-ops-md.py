#!/usr/bin/python3
"""mk/gen-ops-md.py [ROOT] OUT

Writes docs/ops.md, the reference of every op tpucc knows, from the op table
itself: the OP rows and section comments of ir/ops.def (name, arity,
traits, element classes, type rule, type inference, cost kind, folder, simplification,
lowering, opcode and summary).  `make docs` runs it; testsuite/tools/
docs_current.sh checks that the page in the tree is what it writes.  The
row parsing and the command line are gen-opcodes-md.py's.
"""
import importlib.util
import os
import re
import sys

_spec = importlib.util.spec_from_file_location(
    "gen_opcodes_md", os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen-opcodes-md.py"))
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)

NCOLS = 18  # ID, name, min, max, results, regions, traits, elems, verify, infer, cost, fold, canon, decompose,
           # lower, opcode, format, summary
TRAITS = {"TRAIT_ELEMENTWISE": "element-wise", "TRAIT_SAME_TYPE": "same type", "TRAIT_COMMUTATIVE": "commutative",
          "TRAIT_CHLO": "CHLO", "TRAIT_CONTRACTION": "contraction", "TRAIT_COLLECTIVE": "collective",
          "TRAIT_SIDE_EFFECT": "side effect", "TRAIT_TERMINATOR": "terminator", "TRAIT_ISOLATED": "isolated",
          "TRAIT_SYMBOL": "symbol", "TRAIT_BROADCASTING": "broadcasting",
          "TRAIT_EXPAND": "expanded"}
ELEMS = {"EM_BOOL": "i1", "EM_SINT": "signed int", "EM_UINT": "unsigned int", "EM_INT": "int",
         "EM_FLOAT": "float", "EM_COMPLEX": "complex", "EM_ANY": "any"}


def die(msg):
    sys.exit("gen-ops-md: " + msg)


def read_table(path):
    """Returns the #define abbreviations and the sections [{title, rows}] of ir/ops.def."""
    text = open(path, encoding="utf-8").read()
    defines = dict(re.findall(r"^#define\s+(\w+)\s+(.+?)\s*$", text, re.M))
    sections = [{"title": "", "rows": []}]
    for i, line in enumerate(text.split("\n")):
        m = re.match(r"/\* ---- (.*?) ----", line)
        if m and not line.rstrip().endswith("*/"):
            die("%s:%d: a section comment must be one line" % (path, i + 1))
        if m:
            sections.append({"title": m.group(1), "rows": []})
        elif line.startswith("OP("):
            where = "%s:%d" % (path, i + 1)
            if not line.rstrip().endswith(")"):
                die(where + ": an OP row must be one line")
            a = gen.split_args(line.rstrip()[3:-1], where)
            if len(a) != NCOLS:
                die(where + ": %d columns, expected %d" % (len(a), NCOLS))
            sections[-1]["rows"].append((where, a))
    for where, a in sections[0]["rows"]:
        if a[0] != "UNKNOWN":
            die(where + ": an op before the first section comment")
    return defines, [s for s in sections[1:] if s["rows"]]


def arity(lo, hi):
    lo, hi = lo.strip(), hi.strip()
    if lo == "-1":
        return "any"
    if hi == "-1":
        return lo + "+"
    return lo if lo == hi else "%s-%s" % (lo, hi)


def render(root):
    path = os.path.join(root, "ir/ops.def")
    defines, sections = read_table(path)
    nops = sum(len(s["rows"]) for s in sections)
    o = ["# Ops", "",
         "<!-- Generated from ir/ops.def by mk/gen-ops-md.py: do not edit;",
         "     change the table and run `make docs` (make check fails when this page is stale). -->", "",
         "Every op tpucc reads: %d rows of the op table `ir/ops.def`, from which the parser," % nops,
         "printer, verifier, type inference, cost model, folder, canonicalizer and back end take what they",
         "know about each op ([frontend-and-ir.md](frontend-and-ir.md), [adding-an-op.md](adding-an-op.md)).", "",
         "- **operands**, **results**: counts (*n+* at least n, *any* unchecked).",
         "- **traits**: element-wise, same type, commutative, CHLO (decomposed or run",
         "  natively), broadcasting (element-wise once the operands are broadcast to",
         "  the result's shape), contraction (MXU), collective (ICI), side effect, ...;",
         "  the element classes a *same type* or broadcasting rule accepts follow in",
         "  brackets.",
         "- **rule**: the verifier's type rule, `verify_<rule>` in `ir/verify_*.c`.",
         "- **infer**: how `infer_result_types` (`ir/infer.c`) derives the result types,",
         "  `infer_<infer>`; *-* when the user must give them.",
         "- **cost**: the cost model's kind ([passes.md](passes.md)).",
         "- **fold / simplify**: the constant folder and algebraic rewrite, if any;",
         "  *decomposed*: chlo-decompose expands it into StableHLO where exact enough.",
         "- **bytecode**: the opcode it lowers to ([opcodes.md](opcodes.md)), through",
         "  the lowering function named when it is not a plain one-to-one mapping;",
         "  *not lowered* when tpurun cannot run it (compiling it is a located error)."]
    for s in sections:
        o += ["", "## " + s["title"][:1].upper() + s["title"][1:], "",
              "| op | operands | results | traits | rule | infer | cost | fold / simplify | bytecode | summary |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for where, a in s["rows"]:
            traits = ", ".join(gen.expand(a[6], defines, TRAITS, where))
            elems = ", ".join(gen.expand(a[7], defines, ELEMS, where))
            if elems:
                traits += " [%s]" % elems
            folds = [x for x in (a[11], a[12]) if x != "none"]
            if a[13] != "none":
                folds.append("decomposed")
            lower, opcode = a[14], a[15].lower()
            if lower == "unsupported":
                code = "*not lowered*"
            elif lower == "plain":
                code = "`%s`" % opcode
            elif opcode == "none":
                code = "by `lower_%s`" % lower
            else:
                code = "`%s` (`lower_%s`)" % (opcode, lower)
            o.append("| `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                a[1], arity(a[2], a[3]), arity(a[4], a[4]), gen.md(traits),
                "-" if a[8] == "none" else "`%s`" % a[8], "-" if a[9] == "none" else "`%s`" % a[9],
                a[10].lower(), ", ".join(folds) or "-", code, gen.md(a[17])))
    return "\n".join(o) + "\n"


if __name__ == "__main__":
    gen.write_page("gen-ops-md.py", render)
