#!/usr/bin/python3
"""mk/gen-spec-coverage.py [--check] [ROOT] OUT

Writes docs/spec-coverage.md: one row per op of ir/ops.def, per op the
StableHLO specification (spec.md) and the CHLO reference (chlo.md) name in
their op headings and per op of the check and interpreter dialects, with where tpucc parses, verifies, folds, lowers, runs
and tests it.  Everything is found from the tables and the tree, never
written by hand:

  parse   pretty (the row's FORMAT) and generic, or generic only;
  verify  the row's VERIFY rule, verify_<rule>() and its file, with the
          spec constraint labels (Cn) its body cites; none: generic checks;
  fold    the row's FOLD folder, or why there is none (side effect,
          regions, collective, decomposed first, replaced by the
          canonicalizer, or not folded: run-time data);
  lower   lower_<LOWER>() and its file, or the CHLO decomposition that
          removes the op;
  kernel  the row's bytecode opcode, or the VM_OP_* a lowering function
          emits;
  test    the files under testsuite/ naming the op, and how many
          conformance files of ../shared/conformance use it.

With --check it also fails (exit 1) naming every op of the spec or CHLO
that has no row (MISSING) and every row with an empty cell, except the ops
listed in mk/spec-coverage-pending.txt (ops other branches add); an entry
there that is no longer missing or empty fails too, so the list shrinks.
`make docs` writes the page; testsuite/tools/docs_current.sh checks it.
"""
import importlib.util
import os
import re
import sys

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("gen_ops_md", os.path.join(_here, "gen-ops-md.py"))
opsmd = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(opsmd)

SHARED_DOCS = "../shared/conformance/stablehlo/docs"
SHARED_CONF = "../shared/conformance/stablehlo"
TEST_DIRS = ["testsuite/golden", "testsuite/tools", "testsuite/unit", "testsuite/runtime", "testsuite/spmd",
             "testsuite/corpus"]
TEST_EXTS = (".mlir", ".sh", ".c", ".py")
MAX_TESTS = 3  # test paths shown per row
# The testing dialects the conformance programs use, which no markdown page
# lists: the ops of upstream StableHLO's stablehlo/tests/CheckOps.td and
# stablehlo/reference/InterpreterOps.td.
DIALECT_OPS = ["check.expect_almost_eq_const", "check.expect_almost_eq", "check.expect_eq_const", "check.expect_eq",
               "check.expect_close", "check.expect_serialized_eq", "interpreter.run_parallel", "interpreter.print",
               "interpreter.probe"]
OP_NAME = re.compile(r"\b((?:stablehlo|chlo|check|interpreter|func|builtin|sdy|tpu)\.[a-z_0-9-]+(?:\.[a-z_0-9-]+)*)")


def die(msg):
    sys.exit("gen-spec-coverage: " + msg)


def read(path):
    return open(path, encoding="utf-8", errors="replace").read()


def spec_ops(root):
    """The ops the spec and the CHLO reference give a heading, in order."""
    spec = read(os.path.join(root, SHARED_DOCS, "spec.md"))
    m = re.search(r"^## Ops\n(.*?)(?=^## )", spec, re.M | re.S)
    if not m:
        die("spec.md has no '## Ops' section")
    names = ["stablehlo." + h for h in re.findall(r"^### ([a-z_0-9]+)\s*$", m.group(1), re.M)]
    chlo = read(os.path.join(root, SHARED_DOCS, "chlo.md"))
    names += re.findall(r"^### `(chlo\.[a-z_0-9]+)`", chlo, re.M)
    return names + DIALECT_OPS


def functions(root, pattern, prefix):
    """{name: (file, body)} of the C functions prefix<name>( defined in the
    files matching pattern (a regex on paths relative to root)."""
    out = {}
    for d in ("ir", "passes", "backend"):
        for f in sorted(os.listdir(os.path.join(root, d))):
            rel = d + "/" + f
            if not re.fullmatch(pattern, rel):
                continue
            text = read(os.path.join(root, rel))
            for m in re.finditer(r"^[A-Za-z][^\n;=]*?\b" + prefix + r"(\w+)\([^;{]*\{", text, re.M):
                end = text.find("\n}\n", m.end())
                out.setdefault(m.group(1), (rel, text[m.end():end if end >= 0 else len(text)]))
    return out


def test_files(root):
    """{op name: [paths]} over the test files of our testsuite."""
    found = {}
    for d in TEST_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, d)):
            dirnames.sort()
            for f in sorted(filenames):
                if not f.endswith(TEST_EXTS):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                for name in set(OP_NAME.findall(read(path))):
                    found.setdefault(name, []).append(rel)
    return found


def conformance_counts(root):
    """{op name: number of conformance .mlir files using it}."""
    counts = {}
    base = os.path.join(root, SHARED_CONF)
    for sub in ("interpret", "testdata"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(base, sub)):
            dirnames.sort()
            for f in filenames:
                if f.endswith(".mlir"):
                    for name in set(OP_NAME.findall(read(os.path.join(dirpath, f)))):
                        counts[name] = counts.get(name, 0) + 1
    return counts


def pending(root):
    path = os.path.join(root, "mk/spec-coverage-pending.txt")
    if not os.path.exists(path):
        return []
    return [l.split("#")[0].strip() for l in read(path).split("\n") if l.split("#")[0].strip()]


def verify_cell(a, verifiers):
    rule = a[8]
    if rule == "none":
        return "generic checks"
    f, body = verifiers.get(rule, ("ir/verify*.c", ""))
    labels = sorted(set(re.findall(r"\((C\d+)\)", body)), key=lambda s: int(s[1:]))
    cited = " (spec %s)" % ", ".join(labels) if labels else ""
    return "`verify_%s` %s%s" % (rule, f, cited)


def fold_cell(a, traits):
    fold, canon, decompose = a[11], a[12], a[13]
    if fold != "none":
        return "`fold_%s`" % fold
    if "TRAIT_SIDE_EFFECT" in traits or a[6].strip() in ("SE", "TERM"):
        return "none: side effect"
    if a[5].strip() not in ("0",):
        return "none: regions"
    if "TRAIT_COLLECTIVE" in traits:
        return "none: collective"
    if decompose != "none":
        return "none: decomposed first"
    if canon != "none":
        return "none: canonicalizer `canon_%s`" % canon
    if a[10] == "TRANSCENDENTAL":
        return "none: transcendental (left to the VM's math)"
    return "none: computed at run time"


def lower_cell(a, traits, lowerers, decomposers):
    lower, decompose = a[14], a[13]
    if decompose != "none":
        f = decomposers.get(decompose, ("passes/chlo_decompose.c", ""))[0]
        return "decomposed: `decompose_%s` %s" % (decompose, f)
    if lower == "unsupported":
        if a[0] == "UNKNOWN":
            return "rejected"
        return "structural: the back end walks it" if "TRAIT_SYMBOL" in traits else "unsupported (located error)"
    f = lowerers.get(lower, ("backend/lower*.c", ""))[0]
    return "`lower_%s` %s" % (lower, f)


def kernel_cell(a, lowerers):
    opcode, lower, decompose = a[15], a[14], a[13]
    if decompose != "none":
        return "its decomposition's"
    if opcode != "NONE":
        return "`%s`" % opcode
    if lower == "unsupported":
        return "none: a container" if a[0] in ("MODULE", "FUNC") else "none"
    body = lowerers.get(lower, ("", ""))[1]
    ops = sorted(set(re.findall(r"VM_OP_([A-Z0-9_]+)", body)))
    return ", ".join("`%s`" % o for o in ops) if ops else "chosen by `lower_%s`" % lower


def test_cell(name, tests, conf):
    paths = tests.get(name, [])
    shown = ", ".join(paths[:MAX_TESTS]) + (", ..." if len(paths) > MAX_TESTS else "")
    n = conf.get(name, 0)
    if not paths:
        return "", n
    return shown, n


def build(root):
    defines, sections = opsmd.read_table(os.path.join(root, "ir/ops.def"))
    verifiers = functions(root, r"ir/verify\w*\.c", "verify_")
    lowerers = functions(root, r"backend/lower\w*\.c", "lower_")
    decomposers = functions(root, r"passes/chlo_decompose\.c", "decompose_")
    tests, conf = test_files(root), conformance_counts(root)
    rows, seen = [], set()
    for s in sections:
        for where, a in s["rows"]:
            traits = a[6]
            for k, v in defines.items():
                traits = re.sub(r"\b%s\b" % k, v, traits)
            name = a[1]
            seen.add(name)
            t, n = test_cell(name, tests, conf)
            fmt = "pretty + generic" if a[16] != "NULL" else "generic"
            rows.append([name, fmt, verify_cell(a, verifiers), fold_cell(a, traits), lower_cell(a, traits, lowerers, decomposers),
                         kernel_cell(a, lowerers), t, str(n)])
    for name in spec_ops(root):
        if name not in seen:
            seen.add(name)
            rows.append([name, "MISSING", "MISSING", "MISSING", "MISSING", "MISSING", "MISSING", str(conf.get(name, 0))])
    return rows


def render(rows):
    spec_missing = sum(1 for r in rows if r[1] == "MISSING")
    empty = sum(1 for r in rows if r[1] != "MISSING" and "" in r)
    o = ["# Specification coverage", "",
         "<!-- Generated by mk/gen-spec-coverage.py from ir/ops.def, the tree and the specification:",
         "     do not edit; run `make docs` (make check fails when this page is stale). -->", "",
         "Every op of the op table `ir/ops.def` and every op the StableHLO specification (`spec.md`) and",
         "the CHLO reference (`chlo.md`) give a heading, and every op of the check and interpreter dialects",
         "(upstream's CheckOps.td, InterpreterOps.td): %d rows, %d of them MISSING (named by the" % (len(rows), spec_missing),
         "specification, no row in the table) and %d with an empty cell." % empty,
         "`mk/spec-coverage-pending.txt` lists the ops other work is adding; `make check`",
         "(testsuite/tools/docs_current.sh) fails on any other MISSING op or empty cell.", "",
         "- **parse**: pretty (the row's syntax) and generic MLIR form, or generic only.",
         "- **verify**: the op's type rule and its file, with the spec constraints (Cn) the rule's code",
         "  cites; *generic checks*: arity, regions and types only (ir/verifier.c).",
         "- **fold**: its constant folder in passes/fold.c, or why there is none.",
         "- **lower**: the back end's lowering function, or the decomposition that removes the op.",
         "- **kernel**: the bytecode opcode(s) it runs as (docs/opcodes.md).",
         "- **test**: files under testsuite/ that name the op (the first %d in path order); **conf.**: conformance" % MAX_TESTS,
         "  files of ../shared/conformance/stablehlo that use it.", "",
         "| op | parse | verify | fold | lower | kernel | test | conf. |",
         "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        o.append("| " + " | ".join([("`%s`" % r[0])] + [c.replace("|", "\\|") for c in r[1:]]) + " |")
    return "\n".join(o) + "\n"


def check(root, rows):
    allow = set(pending(root))
    problems = []
    for r in rows:
        bad = r[1] == "MISSING" or "" in r
        if bad and r[0] not in allow:
            if r[1] == "MISSING":
                problems.append("%s: MISSING (named by spec.md, chlo.md or the testing dialects; no row in ir/ops.def)" % r[0])
            else:
                cols = ["op", "parse", "verify", "fold", "lower", "kernel", "test", "conf."]
                problems.append("%s: empty %s" % (r[0], ", ".join(cols[i] for i, c in enumerate(r) if c == "")))
        elif not bad and r[0] in allow:
            problems.append("%s: covered now; remove it from mk/spec-coverage-pending.txt" % r[0])
    names = {r[0] for r in rows}
    problems += ["%s: in mk/spec-coverage-pending.txt but no such op" % n for n in sorted(allow - names)]
    return problems


def main():
    args = sys.argv[1:]
    do_check = bool(args) and args[0] == "--check"
    if do_check:
        args = args[1:]
    if len(args) == 1:
        root, out = os.path.dirname(_here), args[0]
    elif len(args) == 2:
        root, out = args
    else:
        die("usage: gen-spec-coverage.py [--check] [ROOT] OUT")
    rows = build(root)
    with open(out, "w", encoding="utf-8") as f:
        f.write(render(rows))
    if do_check:
        problems = check(root, rows)
        for p in problems:
            print("spec coverage: " + p)
        sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
