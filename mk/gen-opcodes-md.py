#!/usr/bin/python3
"""mk/gen-opcodes-md.py [ROOT] OUT

Writes docs/opcodes.md, the reference of the bytecode instruction set, from
the table itself (SQLite's VDBE habit): the OPC rows and section comments of
vm/opcodes.def, the field kinds its header lists, and the VMF_* flags with
their comments from vm/tpub.h.  `make docs` runs it; testsuite/tools/
docs_current.sh checks that the page in the tree is what it writes.
"""
import os
import re
import sys


def die(msg):
    sys.exit("gen-opcodes-md: " + msg)


def split_args(text, where):
    """Splits the argument list of one OPC(...) row into its tokens: C string
    literals (returned unquoted) and bare expressions (returned stripped)."""
    args, cur, i, n = [], "", 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j, s = i + 1, ""
            while j < n and text[j] != '"':
                if text[j] == "\\":
                    j += 1
                    if j >= n:
                        die(where + ": a backslash ends the row")
                s += text[j]
                j += 1
            if j >= n:
                die(where + ": unterminated string")
            cur += "\0" + s  # marks a literal; adjacent literals concatenate
            i = j + 1
        elif ch == ",":
            args.append(cur)
            cur, i = "", i + 1
        else:
            cur += ch
            i += 1
    args.append(cur)
    out = []
    for a in args:
        if "\0" in a:
            out.append("".join(a.split("\0")[1:]))
        else:
            out.append(a.strip())
    return out


def read_table(path):
    """Returns (kinds, defines, sections) from vm/opcodes.def: the field kind
    legend, the file's #define abbreviations, and a list of sections, each
    {title, prose, rows}."""
    text = open(path, encoding="utf-8").read()
    m = re.search(r"kinds:(.*?);", text, re.S)
    if not m:
        die(path + ": no 'kinds:' legend in the header comment")
    legend = re.sub(r"\s*\n\s*\*\s*", " ", m.group(1)).strip()
    legend = re.sub(r"\s*\([^)]*\)$", "", legend)  # a trailing "(see ...)"
    kinds = {}
    for item in legend.split(","):
        k, _, desc = item.strip().partition(" ")
        if len(k) != 1 or not desc:
            die(path + ": bad kind in the legend: " + item)
        kinds[k] = desc
    defines = dict(re.findall(r"^#define\s+(\w+)\s+(.+?)\s*$", text, re.M))
    sections, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"/\* ---- (.*?) ----(.*)$", line)
        if m:
            prose = []
            rest = m.group(2).strip()
            while not rest.endswith("*/"):
                i += 1
                if i >= len(lines):
                    die(path + ": unterminated section comment")
                rest = lines[i].strip()
                body = re.sub(r"^\*/?\s?", "", rest)
                body = re.sub(r"\s*\*/$", "", body)
                if body:
                    prose.append(body)
            sections.append({"title": m.group(1), "prose": " ".join(prose), "rows": []})
        elif line.startswith("OPC("):
            where = "%s:%d" % (path, i + 1)
            if not sections:
                die(where + ": an opcode before the first section comment")
            if not line.rstrip().endswith(")"):
                die(where + ": an OPC row must be one line")
            a = split_args(line.rstrip()[4:-1], where)
            if len(a) != 9:
                die(where + ": %d arguments, expected 9" % len(a))
            sections[-1]["rows"].append(a)
        i += 1
    return kinds, defines, sections


def read_flags(path):
    """Returns [(name, value, comment)] of enum VmOpFlags in vm/tpub.h."""
    text = open(path, encoding="utf-8").read()
    m = re.search(r"enum VmOpFlags \{(.*?)\};", text, re.S)
    if not m:
        die(path + ": no enum VmOpFlags")
    flags = re.findall(r"(VMF_\w+)\s*=\s*(\d+),\s*/\*\s*(.*?)\s*\*/", m.group(1))
    if not flags:
        die(path + ": enum VmOpFlags has no commented VMF_* rows")
    return flags


def md(s):
    """Escapes text for a Markdown table cell."""
    return (s.replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*")
            .replace("<", "&lt;").replace(">", "&gt;"))


def count(n):
    """An operand/result count: -1 means variadic."""
    return "any" if n.strip() == "-1" else n.strip()


def fields_cell(fields, kinds, where):
    """`name` kind, one per field, from the "name:k name:k" string."""
    out = []
    for f in fields.split():
        name, _, k = f.partition(":")
        if k not in kinds:
            die("%s: field %s has unknown kind '%s'" % (where, name, k))
        out.append("`%s` %s" % (name, kinds[k]))
    return ", ".join(out)


def expand(expr, defines, names, where):
    """The display names (names[term]) of the terms of a flag expression
    ("0", "EW", "VMF_A | VMF_B"), abbreviations of the table's #defines
    expanded; an unknown term is fatal."""
    out = []
    for term in expr.split("|"):
        term = term.strip().strip("()")
        if term in defines:
            out += expand(defines[term], defines, names, where)
        elif term != "0":
            if term not in names:
                die("%s: unknown name '%s'" % (where, term))
            out.append(names[term])
    return out


def render(root):
    def_path = os.path.join(root, "vm/opcodes.def")
    kinds, defines, sections = read_table(def_path)
    flags = read_flags(os.path.join(root, "vm/tpub.h"))
    flag_names = {f[0]: f[0][len("VMF_"):] for f in flags}
    nops = sum(len(s["rows"]) for s in sections)
    o = []
    o.append("# Bytecode opcodes")
    o.append("")
    o.append("<!-- Generated from vm/opcodes.def by mk/gen-opcodes-md.py: do not edit;")
    o.append("     change the table and run `make docs` (make check fails when this page is stale). -->")
    o.append("")
    o.append("The instruction set of the `.tpub` bytecode ([bytecode.md](bytecode.md)):")
    o.append("%d opcodes, one row each of the X-macro table `vm/opcodes.def`, from" % nops)
    o.append("which the opcode enum, the back end's emitter, the loader's verifier, the")
    o.append("disassembler and the interpreter's dispatch are generated.  Each section")
    o.append("below is one section of the table, named with the file of its kernels.")
    o.append("")
    o.append("- **operands**, **results**: register counts; *any* when variadic (the")
    o.append("  opcode's loader check then fixes how many it takes).")
    o.append("- **fields**: the attribute fields of the instruction, in order, with their")
    o.append("  kinds (`name:k` in the table; encoding in [bytecode.md](bytecode.md)):")
    o.append("  " + ", ".join("`%s` %s" % kd for kd in kinds.items()) + ".")
    o.append("- **flags** (`VMF_*`, `vm/tpub.h`):")
    for name, _, comment in flags:
        o.append("  - `%s`: %s" % (name[len("VMF_"):], md(comment)))
    o.append("- **semantics**: the table's one-line description.")
    for s in sections:
        o.append("")
        title = s["title"]
        m = re.match(r"(.*?) \(([\w/.]+\.[ch])\)$", title)
        if m:
            o.append("## %s (`%s`)" % (m.group(1)[:1].upper() + m.group(1)[1:], m.group(2)))
        else:
            o.append("## " + title[:1].upper() + title[1:])
        o.append("")
        if s["prose"]:
            o.append(md(s["prose"]))
            o.append("")
        o.append("| opcode | operands | results | fields | flags | semantics |")
        o.append("| --- | --- | --- | --- | --- | --- |")
        for a in s["rows"]:
            where = "%s: %s" % (def_path, a[1])
            o.append("| `%s` | %s | %s | %s | %s | %s |" % (
                a[1], count(a[2]), count(a[3]), fields_cell(a[4], kinds, where),
                ", ".join(expand(a[7], defines, flag_names, where)), md(a[8])))
    return "\n".join(o) + "\n"


def write_page(script, render_page):
    """The command line of a page generator: `script [ROOT] OUT` writes
    render_page(ROOT) to OUT (atomically: a temporary file, then a rename)."""
    args = sys.argv[1:]
    if len(args) not in (1, 2):
        sys.exit("usage: %s [ROOT] OUT" % script)
    root = args[0] if len(args) == 2 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = args[-1]
    text = render_page(root)
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, out)


if __name__ == "__main__":
    write_page("gen-opcodes-md.py", render)
