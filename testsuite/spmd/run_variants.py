#!/usr/bin/python3
"""Runs the sharded variants of the conformance programs (gen_variants.py) and
compares each one's global results with the unpartitioned program's.

Per program: @inputs runs and writes the inputs (.npy); plain.mlir (the
computation on 1 chip, inputs as arguments) runs on them and gives the
reference results, which must equal @expected within the program's own check
(so the conversion is checked too; a program the conformance suite lists in
known_failures.txt is skipped instead); then every variant runs on the same
.npy files with its mhlo.num_partitions chips and each global result is
compared with the reference:

  integers, bools            bitwise
  floats, complex parts      as the program's check compares: expect_eq 0 ULP,
                             expect_close at most 3 ULP (tpurun's custom_call
                             check.expect_close, vm/io/compare.c), expect_almost_eq
                             |a - b| <= 1e-3; NaN equals NaN, -0 equals +0; --ulp=K
                             widens expect_eq / expect_close to K ULP

One line per failure (FAIL program/variant: why) and per skipped program
(SKIP program: why), then
    spmd variants: N run, N passed, N failed, N skipped
(variants of a skipped program count as skipped).  Exit status 1 when any
variant failed.

Usage: run_variants.py BUILD_DIR [--jobs=N] [--limit=K] [--replicated-only]
           [--stacked-ok] [--ns=2,4,8] [--cap=7] [--ulp=K] [--work=DIR]
           [--opt=-O2] [--verbose] [FILTER_REGEX]

  --limit=K          K programs spread evenly over the (filtered) sorted list
  --replicated-only  only the variants whose shardings are all {replicated}
                     (what tpucc runs before SPMD partitioning)
  --stacked-ok       accept a result stacked over the chips (tpurun's form for a
                     program it does not partition: N x the global shape, every
                     chip's slice compared); without it only the global shape
  --work=DIR         where programs, inputs and results go (default
                     BUILD_DIR/spmd-variants)
Environment: TPU_CONFORMANCE_DIR (default ../shared/conformance); tpurun uses
$TPU_CACHE_DIR like every test.
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_variants  # noqa: E402

ROOT = gen_variants.ROOT
TIMEOUT = 120
CLOSE_ULP = 3        # custom_call @check.expect_close (backend/lower_control.c)
ALMOST_EQ_TOL = 1e-3  # custom_call @check.expect_almost_eq


def known_failures():
    names = set()
    path = os.path.join(ROOT, "testsuite", "conformance", "known_failures.txt")
    if os.path.exists(path):
        for line in open(path):
            line = line.strip()
            if line and not line.startswith("#"):
                names.add(line.split()[0].rstrip(":"))
    return names


def run(cmd):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return 124, f"timed out after {TIMEOUT} s"
    if p.returncode == 0:
        return 0, ""
    err = p.stderr.decode(errors="replace").strip().split("\n")
    why = next((l for l in err if "error" in l), err[0] if err and err[0] else p.stdout.decode(errors="replace")[:200])
    return p.returncode, why[:300]


# ---------------------------------------------------------------- comparison

FLOATS = {"f16": (np.uint16, 16), "bf16": (np.uint16, 16), "f32": (np.uint32, 32), "f64": (np.uint64, 64)}


def elem_of(t):
    return gen_variants.parse_tensor(t)[1]


def float_parts(a, elem):
    """(bits as uint, values as float64) of a float array (bf16 held as uint16 bits)."""
    utype, width = FLOATS[elem]
    if elem == "bf16":
        bits = a.astype(np.uint16)
        vals = (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    else:
        bits = a.view(utype)
        vals = a.astype(np.float64)
    return bits, vals, width


def ulp_distance(abits, avals, bbits, bvals, width):
    """Elementwise ULP distance as vm/io/compare.c defines it (float64 array, inf = infinitely far)."""
    sign = np.uint64(1) << np.uint64(width - 1)

    def monotone(bits):
        b = bits.astype(np.uint64)
        mag = (b & (sign - np.uint64(1))).astype(np.int64)
        return np.where((b & sign) != 0, -mag, mag)

    d = np.abs(monotone(abits) - monotone(bbits)).astype(np.float64)
    anan, bnan = np.isnan(avals), np.isnan(bvals)
    ainf, binf = np.isinf(avals), np.isinf(bvals)
    d = np.where(anan | bnan, np.where(anan & bnan, 0.0, np.inf), d)
    d = np.where(~(anan | bnan) & (ainf | binf), np.where(avals == bvals, 0.0, np.inf), d)
    return d


def mismatches(actual, ref, elem, check, ulp):
    """Boolean array: elements that do not compare equal under the check."""
    if elem.startswith("complex<"):
        part = elem[len("complex<"):-1]
        ftype = np.float32 if part == "f32" else np.float64
        re_a, im_a = np.ascontiguousarray(actual.real).astype(ftype), np.ascontiguousarray(actual.imag).astype(ftype)
        re_r, im_r = np.ascontiguousarray(ref.real).astype(ftype), np.ascontiguousarray(ref.imag).astype(ftype)
        return mismatches(re_a, re_r, part, check, ulp) | mismatches(im_a, im_r, part, check, ulp)
    if elem in FLOATS:
        ab, av, width = float_parts(actual, elem)
        rb, rv, _ = float_parts(ref, elem)
        if check == "expect_almost_eq":
            same = (np.isnan(av) & np.isnan(rv)) | (av == rv)
            with np.errstate(invalid="ignore"):
                diff = np.abs(av - rv)
            return ~same & ~(diff <= ALMOST_EQ_TOL)
        limit = CLOSE_ULP if check == "expect_close" else 0
        limit = max(limit, ulp)
        return ulp_distance(ab, av, rb, rv, width) > limit
    # integers and bools: bitwise
    return actual != ref


def compare(actual, ref, rtype, check, ulp, n, stacked_ok):
    """None when equal, else why."""
    elem = elem_of(rtype)
    if actual.dtype != ref.dtype:
        return f"dtype {actual.dtype}, the unpartitioned program's is {ref.dtype}"
    if actual.shape != ref.shape:
        if stacked_ok and actual.shape == (n,) + ref.shape:
            for c in range(n):
                why = compare(actual[c], ref, rtype, check, ulp, n, False)
                if why:
                    return f"chip {c}: {why}"
            return None
        return f"shape {list(actual.shape)}, expected the global shape {list(ref.shape)}"
    bad = np.asarray(mismatches(actual, ref, elem, check, ulp))
    if not bad.any():
        return None
    idx = np.unravel_index(int(np.argmax(bad)), bad.shape) if bad.ndim else ()
    how = {"expect_eq": "bitwise" if elem not in FLOATS and not elem.startswith("complex") else "0 ULP",
           "expect_close": f"{max(CLOSE_ULP, ulp)} ULP",
           "expect_almost_eq": f"abs {ALMOST_EQ_TOL}"}[check]
    if elem not in FLOATS and not elem.startswith("complex"):
        how = "bitwise"
    return (f"{int(bad.sum())} of {bad.size} elements differ ({how}); first at {list(idx)}:"
            f" {actual[idx]!r}, unpartitioned {ref[idx]!r}")


# ---------------------------------------------------------------- one program

def run_program(meta, o, known):
    """[(status, name, why)] for one program: status PASS, FAIL or SKIP (one SKIP per variant)."""
    name = meta["name"]
    d = os.path.join(o.work, name)
    tpurun = os.path.join(o.build, "tpurun")
    variants = [v for v in meta["variants"] if (v["replicated"] or not o.replicated_only)]
    if not variants:
        return []

    def skip_all(why):
        return [("SKIP", f"{name}/{v['file'][:-5]}", why) for v in variants]

    nargs, nres = len(meta["args"]), len(meta["results"])
    ins = [os.path.join(d, f"in{i}.npy") for i in range(nargs)]
    rc, why = run([tpurun, o.opt, os.path.join(d, "inputs.mlir")] + [f"--output=@{p}" for p in ins])
    if rc:
        return skip_all(f"@inputs: exit {rc}: {why}")
    exs = [os.path.join(d, f"expected{i}.npy") for i in range(meta["n_expected"])]
    rc, why = run([tpurun, o.opt, os.path.join(d, "expected.mlir")] + [f"--output=@{p}" for p in exs])
    if rc:
        return skip_all(f"@expected: exit {rc}: {why}")
    in_flags = [f"--input=@{p}" for p in ins]
    refs = [os.path.join(d, f"ref{j}.npy") for j in range(nres)]
    rc, why = run([tpurun, o.opt, os.path.join(d, "plain.mlir")] + in_flags + [f"--output=@{p}" for p in refs])
    if rc:
        if name in known:
            return skip_all(f"the plain program fails (listed in known_failures.txt): exit {rc}: {why}")
        return skip_all(f"the plain program fails: exit {rc}: {why}")
    ref_arrays = [np.load(p) for p in refs]
    for j, r in enumerate(meta["results"]):
        e = np.load(exs[meta["expected_order"][j]])
        why = compare(ref_arrays[j], e, r["type"], r["check"], 0, 1, False)
        if why:
            if name in known:
                return skip_all(f"result {j} of the plain program differs from @expected"
                                f" (listed in known_failures.txt): {why}")
            return [("FAIL", f"{name}/plain", f"result {j} differs from @expected: {why}")] + \
                skip_all("the plain program is wrong")[1:]
    out = []
    for v in variants:
        vname = f"{name}/{v['file'][:-5]}"
        outs = [os.path.join(d, f"{v['file'][:-5]}.out{j}.npy") for j in range(nres)]
        for p in outs:
            if os.path.exists(p):
                os.remove(p)
        rc, why = run([tpurun, o.opt, os.path.join(d, v["file"])] + in_flags + [f"--output=@{p}" for p in outs])
        if rc:
            out.append(("FAIL", vname, f"exit {rc}: {why}"))
            continue
        bad = None
        for j, r in enumerate(meta["results"]):
            why = compare(np.load(outs[j]), ref_arrays[j], r["type"], r["check"], o.ulp, v["n"], o.stacked_ok)
            if why:
                bad = f"result {j}: {why}"
                break
        if bad:
            shard = "; ".join(f"arg{i} {s}" for i, s in enumerate(v["args"]))
            out.append(("FAIL", vname, f"{bad} [{shard}]"))
        else:
            out.append(("PASS", vname, ""))
            if not o.keep:
                for p in outs:
                    os.remove(p)
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("filter", nargs="?", default=".")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--replicated-only", action="store_true")
    ap.add_argument("--stacked-ok", action="store_true")
    ap.add_argument("--ns", default="2,4,8")
    ap.add_argument("--cap", type=int, default=gen_variants.CAP)
    ap.add_argument("--ulp", type=int, default=0)
    ap.add_argument("--work", default=None)
    ap.add_argument("--opt", default="-O2")
    ap.add_argument("--keep", action="store_true", help="keep the variants' result files")
    ap.add_argument("--verbose", action="store_true", help="a line per passing variant too")
    o = ap.parse_args(argv)
    o.build = os.path.abspath(o.build)
    o.work = os.path.abspath(o.work or os.path.join(o.build, "spmd-variants"))
    if not os.access(os.path.join(o.build, "tpurun"), os.X_OK):
        print(f"run_variants: {o.build}/tpurun not built")
        return 2
    files = gen_variants.testdata_files()
    if files is None:
        print(f"spmd variants: no conformance corpus at {gen_variants.conformance_dir()}"
              " (set TPU_CONFORMANCE_DIR); skipped")
        print("spmd variants: 0 run, 0 passed, 0 failed, 0 skipped")
        return 0
    files = gen_variants.pick_spread([f for f in files if re.search(o.filter, os.path.basename(f))], o.limit)
    ns = tuple(int(x) for x in o.ns.split(","))
    manifest = gen_variants.generate(o.work, files, ns, o.cap)
    known = known_failures()
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, o.jobs)) as pool:
        for res in pool.map(lambda m: run_program(m, o, known), manifest["programs"]):
            results.extend(res)
    skipped_programs = {}
    for status, vname, why in results:
        if status == "FAIL":
            print(f"FAIL {vname}: {why}")
        elif status == "SKIP":
            skipped_programs.setdefault(vname.split("/")[0], why)
        elif o.verbose:
            print(f"PASS {vname}")
    for prog, why in sorted(skipped_programs.items()):
        print(f"SKIP {prog}: {why}")
    passed = sum(s == "PASS" for s, _, _ in results)
    failed = sum(s == "FAIL" for s, _, _ in results)
    skipped = sum(s == "SKIP" for s, _, _ in results)
    mode = "replicated only" if o.replicated_only else "all"
    reasons = {}
    for why in manifest["skipped"].values():
        reasons[why] = reasons.get(why, 0) + 1
    print(f"programs: {len(manifest['programs'])}, and {len(manifest['skipped'])} not convertible"
          + "".join(f"; {c} {why}" for why, c in sorted(reasons.items(), key=lambda kv: -kv[1]))
          + f" ({o.work}/skipped.txt)")
    print(f"variants: {mode}, N in {','.join(map(str, ns))}, at most {o.cap} per N per program")
    print(f"spmd variants: {passed + failed} run, {passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
