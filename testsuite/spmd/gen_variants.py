#!/usr/bin/python3
"""Sharded variants of the StableHLO conformance programs (issue 16's tests).

Each program of $TPU_CONFORMANCE_DIR/stablehlo/testdata (default
../shared/conformance) has a public @main() that calls @inputs() and
@expected(), computes a result from the inputs and checks it with
custom_call @check.expect_eq / expect_close / expect_almost_eq.  For each
program this writes, into OUT/NAME/:

  plain.mlir      @main takes the inputs as arguments (%arg0, ...) and returns the
                  checked values, in the order of the checks; the @expected call
                  and the checks dropped; mhlo.num_partitions = 1
  inputs.mlir     @inputs as a public @main (run it with --output=@in0.npy ...)
  expected.mlir   @expected as a public @main (the harness checks that plain.mlir
                  still computes it, so the conversion is checked too)
  N<n>_<kind>.mlir  plain.mlir with mhlo.num_partitions = n and an mhlo.sharding
                  on every argument (and in the "mixed" kind on the results), for
                  n in 2, 4, 8
  meta.json       argument and result types, each result's check kind, the variants

and OUT/manifest.json (every program and variant), OUT/skipped.txt (the programs
left out, with the reason).  Kinds of variant, per n (at most --cap of them per
n, in this order, duplicates and all-replicated tilings dropped; default 7):

  replicated  every argument {replicated}
  dim0        every argument tiled n ways on dimension 0 (iota device order)
  2d          dimensions 0 and 1 tiled a x b (a*b = n, a, b > 1; n = 2: the last
              dimension tiled 2 ways), transposed iota device order <=[b,a]T(1,0)
  partial     the last dimension tiled 2 ways, the other n/2 devices replicas
              (last_tile_dim_replicate), an explicit device list (odd ids first)
  evenness    per argument, a dimension tiled n ways whose division by n is the
              other kind than dimension 0's: uneven (n does not divide it; XLA
              pads the last shard) where dimension 0 divides evenly, even where
              it does not; where there is none, the last dimension
  mixed       argument i: replicated, dim0, last dimension n ways with explicit
              reversed device order, or 2d, by i mod 4; result 0 tiled n ways on
              dimension 0 (results are otherwise left to propagation)
  sdy         Shardy's form: sdy.mesh @mesh = <["x"=2, "y"=n/2]> (n = 2: <["x"=2]>),
              argument i: dimension 0 over {"x", "y"}, dimensions 0 and 1 over
              {"y"} and {"x"}, or the last dimension over {"x"} (replicated
              over "y"), by i mod 3

Rank-0 arguments are always replicated; a dimension of size 0 is never tiled.
A kind that gives the same shardings as an earlier one falls back to tiling
dimension 1, 2, ... n ways ("dimK"), so most programs get --cap variants.

Usage: gen_variants.py [--out DIR] [--conformance DIR] [--ns 2,4,8] [--cap 7]
                       [--limit K] [FILTER_REGEX]
Prints the counts (programs, variants per n, skips by reason).  run_variants.py
imports this module and generates into its own work directory.
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NS = (2, 4, 8)
CAP = 7

TENSOR_RE = re.compile(r"tensor<([^<>]*(?:<[^<>]*>)?)>")


def conformance_dir():
    return os.environ.get("TPU_CONFORMANCE_DIR") or os.path.join(ROOT, "..", "shared", "conformance")


def testdata_files(conf=None):
    d = os.path.join(conf or conformance_dir(), "stablehlo", "testdata")
    if not os.path.isdir(d):
        return None
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".mlir"))


def pick_spread(items, k):
    """k items spread evenly over the sorted list (deterministic), all when k >= len."""
    if k is None or k >= len(items):
        return list(items)
    if k <= 0:
        return []
    return [items[(i * len(items)) // k] for i in range(k)]


class Skip(Exception):
    pass


def split_types(s):
    """'tensor<2xf32>, tensor<3xcomplex<f32>>' -> ['tensor<2xf32>', 'tensor<3xcomplex<f32>>']."""
    s = s.strip()
    if s.startswith("(") and s.endswith(")"):
        s = s[1:-1]
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def parse_tensor(t):
    """'tensor<20x20xf32>' -> ([20, 20], 'f32'); Skip when not a static ranked tensor."""
    m = re.fullmatch(r"tensor<(.*)>", t.strip())
    if not m:
        raise Skip(f"non-tensor input type {t}")
    body = m.group(1)
    if "?" in body or body.startswith("*"):
        raise Skip("input of dynamic shape")
    # element type: everything after the last 'x' that precedes the element (complex<f32> has no x)
    parts = re.fullmatch(r"((?:\d+x)*)(.+)", body)
    dims = [int(d) for d in parts.group(1).split("x") if d]
    elem = parts.group(2)
    if "," in elem:
        raise Skip(f"input type with an encoding: {t}")
    return dims, elem


def functions(text):
    """{name: (start_line, end_line)} of the module's top-level functions (2-space indent)."""
    lines = text.split("\n")
    funcs, cur = {}, None
    for i, line in enumerate(lines):
        if line.startswith("  func.func "):
            m = re.match(r'  func\.func (?:public |private )?@([\w.$-]+|"[^"]*")\(', line)
            if not m or cur is not None:
                raise Skip("unexpected function layout")
            cur = (m.group(1), i)
        elif line == "  }" and cur is not None:
            funcs[cur[0]] = (cur[1], i)
            cur = None
    if cur is not None:
        raise Skip("unterminated function")
    return lines, funcs


def convert(path):
    """The plain, inputs and expected programs of one conformance file, and its metadata."""
    text = open(path).read()
    lines, funcs = functions(text)
    for need in ("main", "inputs", "expected"):
        if need not in funcs:
            raise Skip(f"no @{need} function")
    s, e = funcs["main"]
    if not lines[s].startswith("  func.func public @main() "):
        raise Skip("@main takes arguments")
    body = lines[s + 1:e]
    # the inputs call
    in_idx = [i for i, l in enumerate(body) if re.search(r"= call @inputs\(\)", l)]
    ex_idx = [i for i, l in enumerate(body) if re.search(r"= call @expected\(\)", l)]
    if len(in_idx) != 1 or len(ex_idx) != 1:
        raise Skip("@inputs or @expected not called exactly once")
    m = re.match(r"\s*(%[\w.$-]+)(?::(\d+))? = call @inputs\(\) : \(\) -> (.*)$", body[in_idx[0]])
    if not m:
        raise Skip("unexpected @inputs call")
    in_name, in_count, in_types = m.group(1), int(m.group(2) or 1), split_types(m.group(3))
    if len(in_types) != in_count:
        raise Skip("@inputs call: result count and types disagree")
    shapes = [parse_tensor(t) for t in in_types]
    m = re.match(r"\s*(%[\w.$-]+)(?::(\d+))? = call @expected\(\) : \(\) -> (.*)$", body[ex_idx[0]])
    if not m:
        raise Skip("unexpected @expected call")
    ex_name = m.group(1)
    ex_types = split_types(m.group(3))

    # the checks
    checks, rest = [], []
    for i, l in enumerate(body):
        if i in (in_idx[0], ex_idx[0]):
            continue
        cm = re.match(r"\s*stablehlo\.custom_call @check\.(expect_eq|expect_close|expect_almost_eq)"
                      r"\((%[\w.$#-]+), (%[\w.$#-]+)\) \{has_side_effect = true\} : \((.*)\) -> \(\)$", l)
        if cm:
            a, b = cm.group(2), cm.group(3)
            types = split_types(cm.group(4))
            ex_ref = re.compile(re.escape(ex_name) + r"(?:#\d+)?$")
            if ex_ref.match(b) and not ex_ref.match(a):
                actual, expected, ty = a, b, types[0]
            elif ex_ref.match(a) and not ex_ref.match(b):
                actual, expected, ty = b, a, types[1]
            else:
                raise Skip("a check that does not compare with @expected")
            checks.append({"kind": cm.group(1), "actual": actual, "expected": expected, "type": ty})
            continue
        if "check." in l:
            raise Skip("a check op of another form")
        rest.append(l)
    if not checks:
        raise Skip("no check")
    # the expected value may be used by the checks only
    use = re.compile(re.escape(ex_name) + r"(?![\w.$-])")
    if any(use.search(l) for l in rest):
        raise Skip("the @expected value is used by the computation")
    if not rest or not re.match(r"\s*(func\.)?return\b", rest[-1]):
        raise Skip("@main does not end with return")
    rest = rest[:-1]

    # rename the inputs to arguments
    names = "%arg" if not re.search(r"%arg\d", "\n".join(body)) else "%spmd_in"
    args = [f"{names}{i}" for i in range(in_count)]

    def rename(l):
        if in_count > 1:
            l = re.sub(re.escape(in_name) + r"#(\d+)(?![\w.$-])", lambda mm: args[int(mm.group(1))], l)
        return re.sub(re.escape(in_name) + r"(?![\w.$#-])", args[0], l)

    rest = [rename(l) for l in rest]
    for c in checks:
        c["actual"] = rename(c["actual"])
    if re.search(re.escape(in_name) + r"(?![\w.$-])", "\n".join(rest)):
        raise Skip("the @inputs value is used as a whole tuple")

    helpers = []
    for name, (fs, fe) in sorted(funcs.items(), key=lambda kv: kv[1][0]):
        if name in ("main", "inputs", "expected"):
            continue
        helpers.append("\n".join(lines[fs:fe + 1]))
    i_s, i_e = funcs["inputs"]
    inputs_fn = lines[i_s:i_e + 1]
    if any("call @" in l for l in inputs_fn[1:]):
        raise Skip("@inputs calls another function")
    x_s, x_e = funcs["expected"]
    expected_fn = lines[x_s:x_e + 1]
    if any("call @" in l for l in expected_fn[1:]):
        raise Skip("@expected calls another function")

    return {
        "args": [{"type": t, "dims": d, "elem": el} for t, (d, el) in zip(in_types, shapes)],
        "arg_names": args,
        "results": [{"type": c["type"], "check": c["kind"]} for c in checks],
        "result_values": [c["actual"] for c in checks],
        "body": rest,
        "helpers": helpers,
        "inputs_fn": inputs_fn,
        "expected_fn": expected_fn,
        "expected_types": ex_types,
        "expected_refs": [c["expected"] for c in checks],
        "ex_name": ex_name,
    }


def module_text(name, parts, n, arg_shardings=None, result_shardings=None, mesh=None):
    """The plain program on n partitions; a sharding starting with '<@' is Shardy's (then
    mesh is the sdy.mesh's axes, e.g. '"x"=2, "y"=4'), else a GSPMD string."""
    def attr(s):
        if not s:
            return ""
        if s.startswith("<@"):
            return f" {{sdy.sharding = #sdy.sharding{s}}}"
        return f' {{mhlo.sharding = "{s}"}}'

    sig = ", ".join(f"{a}: {x['type']}{attr(arg_shardings[i] if arg_shardings else None)}"
                    for i, (a, x) in enumerate(zip(parts["arg_names"], parts["args"])))
    res = ", ".join(f"{r['type']}{attr(result_shardings[i] if result_shardings else None)}"
                    for i, r in enumerate(parts["results"]))
    out = [f"module @{name} attributes {{mhlo.num_partitions = {n} : i32, mhlo.num_replicas = 1 : i32}} {{"]
    if mesh:
        out.append(f"  sdy.mesh @mesh = <[{mesh}]>")
    out.append(f"  func.func public @main({sig}) -> ({res}) {{")
    out += parts["body"]
    out.append(f"    return {', '.join(parts['result_values'])} : {', '.join(r['type'] for r in parts['results'])}")
    out.append("  }")
    out += parts["helpers"]
    out.append("}")
    return "\n".join(out) + "\n"


def entry_module(name, fn_lines):
    """One argument-free function as the public @main of its own module."""
    first = re.sub(r"func\.func (?:public |private )?@[\w.$-]+\(", "func.func public @main(", fn_lines[0], count=1)
    return "\n".join([f"module @{name} {{", first] + fn_lines[1:] + ["}"]) + "\n"


# ---------------------------------------------------------------- shardings

def factor_pairs(n):
    """(a, b), a * b = n, 1 < a <= b."""
    return [(a, n // a) for a in range(2, n) if n % a == 0 and a <= n // a]


def tiled(rank, tiles_by_dim, n, order="iota"):
    """The GSPMD string of a tiling: tiles_by_dim {dim: count}; the rest of n replicates.
    order: 'iota', 'transposed' (<=[b,a]T(1,0)), 'explicit' (odd ids first), 'reversed'."""
    tiles = [tiles_by_dim.get(d, 1) for d in range(rank)]
    used = 1
    for t in tiles:
        used *= t
    if used == 1:
        return "{replicated}"
    assert n % used == 0
    rep = n // used
    dims = tiles + ([rep] if rep > 1 else [])
    suffix = " last_tile_dim_replicate" if rep > 1 else ""
    shape = "[" + ",".join(str(t) for t in dims) + "]"
    if order == "iota":
        devs = f"<=[{n}]"
    elif order == "transposed":
        pairs = factor_pairs(n)
        if not pairs:
            order = "reversed"
        else:
            a, b = pairs[-1]
            devs = f"<=[{b},{a}]T(1,0)"
    if order == "explicit":
        ids = [i for i in range(n) if i % 2] + [i for i in range(n) if i % 2 == 0]
        devs = ",".join(str(i) for i in ids)
    elif order == "reversed":
        devs = ",".join(str(i) for i in reversed(range(n)))
    return f"{{devices={shape}{devs}{suffix}}}"


def tileable(dims):
    return [d for d, size in enumerate(dims) if size > 0]


def kind_dim(dims, n, d, order="iota"):
    if d is None or d >= len(dims) or dims[d] == 0:
        return "{replicated}"
    return tiled(len(dims), {d: n}, n, order)


def kind_2d(dims, n):
    ok = tileable(dims)
    pairs = factor_pairs(n)
    if len(ok) >= 2 and pairs:
        a, b = pairs[0]
        return tiled(len(dims), {ok[0]: a, ok[1]: b}, n, "transposed")
    if ok:
        return tiled(len(dims), {ok[-1]: n}, n, "transposed")
    return "{replicated}"


def kind_partial(dims, n):
    ok = tileable(dims)
    if not ok:
        return "{replicated}"
    return tiled(len(dims), {ok[-1]: 2}, n, "explicit")


def kind_evenness(dims, n):
    """A dimension whose division by n is the other kind than dimension 0's: uneven (n does
    not divide it: XLA pads the last shard) when dimension 0 divides evenly, even when not."""
    ok = tileable(dims)
    if not ok:
        return "{replicated}"
    want_uneven = dims[ok[0]] % n == 0
    other = [d for d in ok if (dims[d] % n != 0) == want_uneven]
    return tiled(len(dims), {(other[0] if other else ok[-1]): n}, n, "iota")


def sdy_mesh(n):
    """The Shardy mesh of the sdy kind: its axes text and axis names (x outer)."""
    axes = [("x", n)] if n < 4 else [("x", 2), ("y", n // 2)]
    return ", ".join(f'"{a}"={k}' for a, k in axes), [a for a, _ in axes]


def kind_sdy(dims, n, i):
    """Argument i's Shardy sharding: dimension 0 over every axis; two dimensions over the
    axes in reverse order; the last dimension over "x" only (replicated over "y"), by i mod 3."""
    _, names = sdy_mesh(n)
    ok = tileable(dims)
    per = [[] for _ in dims]
    k = i % 3
    if ok and k == 0:
        per[ok[0]] = names
    elif ok and k == 1 and len(ok) >= 2 and len(names) == 2:
        per[ok[0]], per[ok[1]] = [names[1]], [names[0]]
    elif ok:
        per[ok[-1]] = [names[0]]
    body = ", ".join("{" + ", ".join(f'"{a}"' for a in axes) + "}" for axes in per)
    return f"<@mesh, [{body}]>"


def variants_for(parts, n, cap=CAP):
    """[(kind, arg shardings, result shardings or None)] for n partitions."""
    args = [a["dims"] for a in parts["args"]]
    first_ok = lambda dims: (tileable(dims) or [None])[0]
    plans = [
        ("replicated", ["{replicated}"] * len(args), None),
        ("dim0", [kind_dim(d, n, first_ok(d)) for d in args], None),
        ("2d", [kind_2d(d, n) for d in args], None),
        ("partial", [kind_partial(d, n) for d in args], None),
        ("evenness", [kind_evenness(d, n) for d in args], None),
    ]
    mixed = []
    for i, d in enumerate(args):
        k = i % 4
        ok = tileable(d)
        mixed.append("{replicated}" if k == 0 or not ok else
                     kind_dim(d, n, ok[0]) if k == 1 else
                     kind_dim(d, n, ok[-1], "reversed") if k == 2 else kind_2d(d, n))
    r0 = parts["results"][0]
    rdims = parse_tensor(r0["type"])[0]
    rs = [None] * len(parts["results"])
    if tileable(rdims):
        rs[0] = kind_dim(rdims, n, tileable(rdims)[0])
    # mixed always has one replicated argument: with a single argument, tile it
    if len(args) == 1:
        mixed[0] = kind_dim(args[0], n, (tileable(args[0]) or [None])[-1], "reversed")
    plans.append(("mixed", mixed, rs if any(rs) else None))
    sdy = [kind_sdy(d, n, i) for i, d in enumerate(args)]
    if any('"' in x for x in sdy):
        plans.append(("sdy", sdy, None))
    maxrank = max([len(d) for d in args] + [0])
    for k in range(1, maxrank):
        plans.append((f"dim{k}", [kind_dim(d, n, k) for d in args], None))

    out, seen = [], set()
    for kind, a, r in plans:
        key = (tuple(a), tuple(r) if r else None)
        if kind != "replicated" and all(s == "{replicated}" for s in a) and not (r and any(r)):
            continue
        if key in seen:
            continue
        seen.add(key)
        out.append((kind, a, r))
        if len(out) >= cap:
            break
    return out


def generate(out_dir, files, ns=NS, cap=CAP):
    """Writes the programs; returns the manifest {programs: [...], skipped: {name: reason}}."""
    os.makedirs(out_dir, exist_ok=True)
    manifest = {"programs": [], "skipped": {}}
    for path in files:
        name = os.path.basename(path)[:-len(".mlir")]
        try:
            parts = convert(path)
        except Skip as e:
            manifest["skipped"][name] = str(e)
            continue
        d = os.path.join(out_dir, name)
        os.makedirs(d, exist_ok=True)
        mod = re.sub(r"[^\w]", "_", name)
        files_out = {
            "plain.mlir": module_text(f"plain_{mod}", parts, 1),
            "inputs.mlir": entry_module(f"inputs_{mod}", parts["inputs_fn"]),
            "expected.mlir": entry_module(f"expected_{mod}", parts["expected_fn"]),
        }
        variants = []
        for n in ns:
            for kind, a, r in variants_for(parts, n, cap):
                fn = f"N{n}_{kind}.mlir"
                files_out[fn] = module_text(f"spmd_{mod}_{n}_{kind}", parts, n, a, r,
                                            sdy_mesh(n)[0] if kind == "sdy" else None)
                variants.append({"file": fn, "n": n, "kind": kind, "args": a, "results": r,
                                 "replicated": all(s == "{replicated}" for s in a) and not (r and any(r))})
        for fn, text in files_out.items():
            p = os.path.join(d, fn)
            if not os.path.exists(p) or open(p).read() != text:
                with open(p, "w") as f:
                    f.write(text)
        # the expected values in the order of the checks
        ex_order = []
        for ref in parts["expected_refs"]:
            m = re.search(r"#(\d+)$", ref)
            ex_order.append(int(m.group(1)) if m else 0)
        meta = {"name": name, "source": path, "args": parts["args"], "results": parts["results"],
                "expected_order": ex_order, "n_expected": len(parts["expected_types"]), "variants": variants}
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
        manifest["programs"].append(meta)
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    with open(os.path.join(out_dir, "skipped.txt"), "w") as f:
        for name, why in sorted(manifest["skipped"].items()):
            f.write(f"{name}: {why}\n")
    return manifest


def summary(manifest, ns=NS):
    progs = manifest["programs"]
    lines = [f"programs: {len(progs)} converted, {len(manifest['skipped'])} skipped"]
    total = 0
    for n in ns:
        vs = [v for p in progs for v in p["variants"] if v["n"] == n]
        rep = sum(v["replicated"] for v in vs)
        total += len(vs)
        kinds = {}
        for v in vs:
            kinds[v["kind"]] = kinds.get(v["kind"], 0) + 1
        lines.append(f"N={n}: {len(vs)} variants ({rep} replicated, {len(vs) - rep} tiled; "
                     + ", ".join(f"{k} {c}" for k, c in sorted(kinds.items())) + ")")
    lines.append(f"total: {total} variants")
    reasons = {}
    for why in manifest["skipped"].values():
        reasons[why] = reasons.get(why, 0) + 1
    for why, c in sorted(reasons.items(), key=lambda kv: -kv[1]):
        lines.append(f"skipped {c}: {why}")
    return "\n".join(lines)


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "spmd-variants"))
    ap.add_argument("--conformance", default=None)
    ap.add_argument("--ns", default=",".join(map(str, NS)))
    ap.add_argument("--cap", type=int, default=CAP)
    ap.add_argument("--limit", type=int, default=None, help="K programs spread evenly over the sorted list")
    ap.add_argument("filter", nargs="?", default=".")
    o = ap.parse_args(argv)
    files = testdata_files(o.conformance)
    if files is None:
        print(f"gen_variants: no stablehlo/testdata under {o.conformance or conformance_dir()}; nothing to do")
        return 0
    files = pick_spread([f for f in files if re.search(o.filter, os.path.basename(f))], o.limit)
    ns = tuple(int(x) for x in o.ns.split(","))
    m = generate(o.out, files, ns, o.cap)
    print(summary(m, ns))
    print(f"written to {o.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
