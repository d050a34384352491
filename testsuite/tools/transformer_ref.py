#!/usr/bin/python3
"""NumPy reference for examples/transformer_block.mlir.

    transformer_ref.py inputs DIR        write deterministic inputs DIR/0.npy..9.npy
    transformer_ref.py compare DIR OUT   compare OUT (.npy from tpurun) with the
                                         reference on DIR's inputs; exit 1 on mismatch

The reference computes in float64 from the float32 inputs, so the tolerance
covers the VM's float32 rounding only.
"""
import sys

import numpy as np

SEQ, VOCAB, WIDTH, HEADS, MLP = 8, 64, 32, 2, 64
HEAD_DIM = WIDTH // HEADS
TOKENS = [3, 14, 15, 9, 26, 5, 35, 8]
# Parameter names in @main's order.
PARAMS = ["tokens", "embedding", "wq", "wk", "wv", "wo", "w1", "w2",
          "ln1_scale", "ln2_scale"]
RTOL = 1e-4


def make_inputs():
    """Deterministic inputs: weights ~ N(0, 1/fan_in), scales around 1."""
    rng = np.random.default_rng(20240611)

    def weight(rows, cols):
        return (rng.standard_normal((rows, cols)) / np.sqrt(rows)).astype(np.float32)

    return [
        np.array(TOKENS, dtype=np.int32),
        rng.standard_normal((VOCAB, WIDTH)).astype(np.float32),
        weight(WIDTH, WIDTH), weight(WIDTH, WIDTH), weight(WIDTH, WIDTH),
        weight(WIDTH, WIDTH), weight(WIDTH, MLP), weight(MLP, WIDTH),
        (1.0 + 0.1 * rng.standard_normal(WIDTH)).astype(np.float32),
        (1.0 + 0.1 * rng.standard_normal(WIDTH)).astype(np.float32),
    ]


def layer_norm(x, scale):
    """(x - mean) * rsqrt(var + 1e-5) * scale over the last axis."""
    centered = x - x.mean(axis=-1, keepdims=True)
    var = (centered * centered).mean(axis=-1, keepdims=True)
    eps = np.float64(np.float32(1e-5))  # the f32 constant of the program
    return centered / np.sqrt(var + eps) * scale


def causal_self_attention(h, wq, wk, wv, wo):
    """Multi-head attention where query i only sees keys j <= i."""
    q = (h @ wq).reshape(SEQ, HEADS, HEAD_DIM).transpose(1, 0, 2)
    k = (h @ wk).reshape(SEQ, HEADS, HEAD_DIM).transpose(1, 0, 2)
    v = (h @ wv).reshape(SEQ, HEADS, HEAD_DIM).transpose(1, 0, 2)
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(HEAD_DIM)
    allowed = np.tril(np.ones((SEQ, SEQ), dtype=bool))
    scores = np.where(allowed, scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    probs = e / e.sum(axis=-1, keepdims=True)
    ctx = (probs @ v).transpose(1, 0, 2).reshape(SEQ, WIDTH)
    return ctx @ wo


def gelu(x):
    """Tanh-approximated GELU."""
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))


def transformer_block(tokens, embedding, wq, wk, wv, wo, w1, w2, ln1_scale, ln2_scale):
    """The example's @main in float64."""
    f = lambda a: np.asarray(a, dtype=np.float64)
    ids = np.clip(tokens, 0, VOCAB - 1)  # gather clamps start indices
    x = f(embedding)[ids]
    x = x + causal_self_attention(layer_norm(x, f(ln1_scale)), f(wq), f(wk), f(wv), f(wo))
    h = layer_norm(x, f(ln2_scale))
    return x + gelu(h @ f(w1)) @ f(w2)


def main(argv):
    if len(argv) == 3 and argv[1] == "inputs":
        for i, a in enumerate(make_inputs()):
            np.save(f"{argv[2]}/{i}.npy", a)
        return 0
    if len(argv) == 4 and argv[1] == "compare":
        inputs = [np.load(f"{argv[2]}/{i}.npy") for i in range(len(PARAMS))]
        want = transformer_block(*inputs)
        got = np.load(argv[3])
        if got.shape != want.shape or got.dtype != np.float32:
            print(f"transformer: result is {got.dtype}{list(got.shape)}, "
                  f"expected float32{list(want.shape)}")
            return 1
        # Relative, with the same value as an absolute floor for results
        # near zero (the values are O(1)); NaN never passes.
        err = np.abs(got.astype(np.float64) - want)
        bad = np.argwhere(~(err <= RTOL * np.maximum(np.abs(want), 1.0)))
        worst = (err / np.maximum(np.abs(want), 1.0)).max()
        if len(bad):
            i, j = bad[0]
            print(f"transformer: {len(bad)} of {want.size} elements differ beyond "
                  f"rtol {RTOL}; first at [{i},{j}]: got {got[i, j]!r}, "
                  f"reference {want[i, j]!r}")
            return 1
        print(f"transformer: OK, max relative error {worst:.2e} (tolerance {RTOL:g})")
        return 0
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
