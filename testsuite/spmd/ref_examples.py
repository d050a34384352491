#!/usr/bin/python3
"""NumPy references of the sharded examples (examples/tp_mlp.mlir,
tp_mlp_shardy.mlir, fsdp_train_step.mlir, sharded_attention.mlir).

  ref_examples.py inputs  EXAMPLE.mlir DIR    write DIR/in0.npy, in1.npy, ... (global shapes)
  ref_examples.py compare EXAMPLE.mlir DIR    compare DIR/out0.npy, ... with the reference
  ref_examples.py strip   EXAMPLE.mlir OUT    the example with every sharding replicated and
                                              1 partition (what tpucc runs before SPMD
                                              partitioning: the same global computation)

Inputs are seeded (the same files every run) and scaled so activations stay
O(1).  The reference is computed in float64 from the float32 inputs; tpurun
computes in float32.  Tolerance: |out - ref| <= RTOL * |ref| + ATOL * max|ref|
elementwise (ATOL scaled by the result's magnitude, so results near zero of
a dot product of O(1) terms are judged against the terms' size), RTOL = 1e-4,
ATOL = 1e-5: float32 dot products of up to 1024 terms reassociated (by the
partitioner's partial sums) stay within ~1e-6 relative of the sum of |terms|.
The loss of the training step (one sum of 16384 squares) gets RTOL 1e-4 too.

compare also checks that the tolerance can fail: the result a partitioned
program would give with a missing collective (chip 0's partial sum without
the all-reduce, the gradient of chip 0's batch rows only, the heads of one
chip only) must be rejected, and the training step must move the parameters
by more than the tolerance.
"""
import os
import re
import sys

import numpy as np

RTOL, ATOL = 1e-4, 1e-5
CHIPS = 8


def signature(path):
    """@main's argument shapes, in order."""
    text = open(path).read()
    start = text.index("@main(")
    head = text[start:text.index(") -> ", start)]
    return [tuple(int(d) for d in m.group(1).split("x")[:-1])
            for m in re.finditer(r"%arg\d+: tensor<([0-9x]*f32)>", head)]


def kind(path):
    name = os.path.basename(path)
    for k in ("tp_mlp", "fsdp_train_step", "sharded_attention"):
        if name.startswith(k):
            return k
    raise SystemExit(f"ref_examples.py: no reference for {name}")


def make_inputs(path, d):
    shapes = signature(path)
    k = kind(path)
    rng = np.random.default_rng({"tp_mlp": 16, "fsdp_train_step": 17, "sharded_attention": 18}[k])
    arrays = []
    for s in shapes:
        if k == "fsdp_train_step" and s == shapes[-1] and len(arrays) == len(shapes) - 1:
            # the target: a smooth function of x plus noise, so the loss is O(1)
            x = arrays[-1]
            w = rng.standard_normal((x.shape[1], s[1])) / np.sqrt(x.shape[1])
            a = np.tanh(x @ w) + 0.1 * rng.standard_normal(s)
        elif len(s) == 1:
            a = 0.1 * rng.standard_normal(s)  # biases
        elif k == "sharded_attention" and len(s) == 3 and len(arrays) == 0:
            a = rng.standard_normal(s)  # x
        elif k == "sharded_attention":
            fan_in = s[0] if len(arrays) < 4 else s[0] * s[1]
            a = rng.standard_normal(s) / np.sqrt(fan_in)
        elif (k == "tp_mlp" and len(arrays) == 0) or (k == "fsdp_train_step" and len(arrays) >= 4):
            a = rng.standard_normal(s)  # activations
        else:
            a = rng.standard_normal(s) * np.sqrt(2.0 / s[0])  # weights
        arrays.append(a.astype(np.float32))
    for i, a in enumerate(arrays):
        np.save(f"{d}/in{i}.npy", a)
    return arrays


def gelu(x):
    return 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))


def tp_mlp(x, w1, b1, w2, b2, cols=None):
    """y = gelu(x w1 + b1) w2 + b2; with cols, only those hidden columns (one chip's partial sum)."""
    h = gelu(x @ w1 + b1)
    if cols is not None:
        return h[:, cols] @ w2[cols, :] + b2
    return h @ w2 + b2


def fsdp_step(w1, b1, w2, b2, x, y, lr=0.05, rows=None, n=None):
    """The updated parameters and the loss; with rows, the gradient of those batch rows only."""
    n = y.size if n is None else n
    if rows is not None:
        x, y = x[rows], y[rows]
    z = x @ w1 + b1
    h = np.maximum(z, 0)
    pred = h @ w2 + b2
    diff = pred - y
    loss = (diff * diff).sum() / n
    g = diff * (2.0 / n)
    dw2, db2 = h.T @ g, g.sum(axis=0)
    dz = np.where(z > 0, g @ w2.T, 0.0)
    dw1, db1 = x.T @ dz, dz.sum(axis=0)
    return [w1 - lr * dw1, b1 - lr * db1, w2 - lr * dw2, b2 - lr * db2, np.float64(loss)]


def attention(x, wq, wk, wv, wo, heads=None):
    """Causal multi-head attention; with heads, only those heads' share of the output projection."""
    hd = wq.shape[2]
    q = np.einsum("bsd,dnh->bsnh", x, wq) / np.sqrt(hd)
    k = np.einsum("bsd,dnh->bsnh", x, wk)
    v = np.einsum("bsd,dnh->bsnh", x, wv)
    s = np.einsum("bqnh,bknh->bnqk", q, k)
    sq = s.shape[2]
    mask = np.arange(sq)[:, None] >= np.arange(sq)[None, :]
    s = np.where(mask, s, -1e9)
    s = s - s.max(axis=3, keepdims=True)
    p = np.exp(s)
    p = p / p.sum(axis=3, keepdims=True)
    o = np.einsum("bnqk,bknh->bqnh", p, v)
    if heads is not None:
        return np.einsum("bqnh,nhd->bqd", o[:, :, heads], wo[heads])
    return np.einsum("bqnh,nhd->bqd", o, wo)


def references(path, ins):
    """(the reference results, a list of (what, wrong results) the tolerance must reject)."""
    k = kind(path)
    f = [a.astype(np.float64) for a in ins]
    if k == "tp_mlp":
        per = f[1].shape[1] // CHIPS
        return [tp_mlp(*f)], [("chip 0's partial sum without the all-reduce",
                               [tp_mlp(*f, cols=slice(0, per))])]
    if k == "fsdp_train_step":
        per = f[4].shape[0] // CHIPS
        return fsdp_step(*f), [("the step with chip 0's batch rows only (no gradient reduction)",
                                fsdp_step(*f, rows=slice(0, per), n=f[5].size)),
                               ("the parameters before the step", f[:4] + [fsdp_step(*f)[4]])]
    per = f[1].shape[1] // 4  # heads over the 4 chips of "model"
    return [attention(*f)], [("the heads of one chip without the all-reduce",
                              [attention(*f, heads=slice(0, per))])]


def close(out, ref):
    ref = np.asarray(ref, dtype=np.float64)
    scale = max(float(np.abs(ref).max()), 1e-30)
    return np.abs(out.astype(np.float64) - ref) <= RTOL * np.abs(ref) + ATOL * scale


def compare(path, d):
    ins = [np.load(f"{d}/in{i}.npy") for i in range(len(signature(path)))]
    refs, wrongs = references(path, ins)
    ok = True
    worst = []
    for i, ref in enumerate(refs):
        fn = f"{d}/out{i}.npy"
        if not os.path.exists(fn):
            print(f"FAIL: {os.path.basename(path)}: result {i}: no {fn}")
            ok = False
            continue
        out = np.load(fn)
        if out.shape != np.shape(ref) or out.dtype != np.float32:
            print(f"FAIL: {os.path.basename(path)}: result {i}: {out.dtype}{list(out.shape)},"
                  f" expected float32{list(np.shape(ref))} (global shape)")
            ok = False
            continue
        good = close(out, ref)
        err = np.abs(out.astype(np.float64) - ref)
        worst.append(f"{err.max() / max(np.abs(ref).max(), 1e-30):.2g}")
        if not good.all():
            idx = np.unravel_index(np.argmin(good), good.shape) if good.ndim else ()
            print(f"FAIL: {os.path.basename(path)}: result {i}: {np.size(good) - good.sum()} of {np.size(good)}"
                  f" elements differ from the NumPy reference; at {list(idx)}: {out[idx]!r}, expected {ref[idx]!r}")
            ok = False
    # The tolerance must be able to fail.
    for what, wrong in wrongs:
        if all(close(np.asarray(w, dtype=np.float32), r).all() for w, r in zip(wrong, refs)):
            print(f"FAIL: {os.path.basename(path)}: the tolerance accepts {what}")
            ok = False
    if ok:
        print(f"{os.path.basename(path)}: {len(refs)} results equal the NumPy reference"
              f" (max |error| / max |ref| per result: {', '.join(worst)})")
    return ok


def strip(path, out):
    """Every sharding replicated, one partition: GSPMD strings become {replicated}, Shardy
    meshes get axes of size 1."""
    text = open(path).read()
    text = re.sub(r'mhlo\.sharding = "[^"]*"', 'mhlo.sharding = "{replicated}"', text)
    text = re.sub(r"mhlo\.num_partitions = \d+ : i32", "mhlo.num_partitions = 1 : i32", text)
    text = re.sub(r'(sdy\.mesh @[\w"]+ = <\[)([^\]]*)\]',
                  lambda m: m.group(1) + re.sub(r"=\d+", "=1", m.group(2)) + "]", text)
    text = re.sub(r", device_ids=\[[^\]]*\]", "", text)
    open(out, "w").write(text)


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("inputs", "compare", "strip"):
        sys.exit(__doc__)
    cmd, path, arg = sys.argv[1:]
    if cmd == "inputs":
        make_inputs(path, arg)
    elif cmd == "strip":
        strip(path, arg)
    elif not compare(path, arg):
        sys.exit(1)
