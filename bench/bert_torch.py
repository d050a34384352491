#!/usr/bin/python3
"""The BERT encoder of bench/gen_bert.py in PyTorch eager, on the same weights.

    bert_torch.py DATA_DIR --batch B --seq S [--repeat N] [--threads T]
                  [--no-mask] [--out OUT.npy] [--compare TPURUN.npy ...]

DATA_DIR is what gen_bert.py wrote: config.json (dimensions and the
parameter files in argument order), one .npy per parameter and the inputs
input_ids-BxS.npy, attention_mask-BxS.npy.  The model is built from
nn.Embedding, nn.Linear, nn.LayerNorm(eps=1e-12), F.gelu (exact, erf) and
softmax, as HuggingFace's BertModel computes it (without the pooler).

Prints one line

    torch: median M ms, min m ms over N runs (T threads, torch VERSION)

timing N forwards under torch.no_grad() after one warm-up forward, writes
the last hidden state to OUT.npy, and with --compare checks each given .npy
(tpurun's result) against it: prints the max abs diff and exits 1 unless
allclose(rtol, atol) holds (default 1e-3 both).
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


class Layer(nn.Module):
    """One encoder layer: self-attention, residual, LayerNorm; feed-forward
    with GELU, residual, LayerNorm."""

    def __init__(self, hidden, heads, intermediate):
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.attn_out = nn.Linear(hidden, hidden)
        self.attn_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.up = nn.Linear(hidden, intermediate)
        self.down = nn.Linear(intermediate, hidden)
        self.out_norm = nn.LayerNorm(hidden, eps=1e-12)

    def split(self, t):
        b, s, _ = t.shape
        return t.view(b, s, self.heads, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, x, mask):
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / (self.head_dim ** 0.5)
        if mask is not None:
            scores = scores + mask
        probs = torch.softmax(scores, dim=-1)
        ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).reshape(x.shape)
        x = self.attn_norm(self.attn_out(ctx) + x)
        return self.out_norm(self.down(F.gelu(self.up(x))) + x)


class Bert(nn.Module):
    """Embeddings (word + position + token type, LayerNorm) and the layers."""

    def __init__(self, c):
        super().__init__()
        h = c["hidden"]
        self.word = nn.Embedding(c["vocab"], h)
        self.position = nn.Embedding(c["max_position"], h)
        self.token_type = nn.Embedding(c["type_vocab"], h)
        self.norm = nn.LayerNorm(h, eps=1e-12)
        self.layers = nn.ModuleList(Layer(h, c["heads"], c["intermediate"]) for _ in range(c["layers"]))

    def forward(self, ids, mask):
        pos = torch.arange(ids.shape[1], dtype=torch.long).unsqueeze(0)
        x = self.word(ids) + self.token_type(torch.zeros_like(ids)) + self.position(pos)
        x = self.norm(x)
        for layer in self.layers:
            x = layer(x, mask)
        return x

    def parameters_in_export_order(self):
        """Our parameters in the order of gen_bert.py's param_shapes (the
        HuggingFace state_dict order)."""
        out = [self.word.weight, self.position.weight, self.token_type.weight, self.norm.weight, self.norm.bias]
        for l in self.layers:
            for lin in (l.query, l.key, l.value, l.attn_out):
                out += [lin.weight, lin.bias]
            out += [l.attn_norm.weight, l.attn_norm.bias, l.up.weight, l.up.bias,
                    l.down.weight, l.down.bias, l.out_norm.weight, l.out_norm.bias]
        return out


def load(data_dir):
    """The model with gen_bert.py's weights loaded."""
    with open(os.path.join(data_dir, "config.json")) as f:
        c = json.load(f)
    model = Bert(c).eval()
    params = model.parameters_in_export_order()
    assert len(params) == len(c["params"]), "config.json does not match the model"
    with torch.no_grad():
        for p, (name, shape, fname) in zip(params, c["params"]):
            a = np.load(os.path.join(data_dir, fname))
            if list(a.shape) != list(p.shape) or list(shape) != list(p.shape):
                sys.exit("bert_torch: %s has shape %s, expected %s" % (name, a.shape, tuple(p.shape)))
            p.copy_(torch.from_numpy(a))
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data_dir")
    ap.add_argument("--batch", type=int, required=True)
    ap.add_argument("--seq", type=int, required=True)
    ap.add_argument("--repeat", type=int, default=10, help="timed forwards (default 10)")
    ap.add_argument("--threads", type=int, default=0, help="torch intra-op threads (default: torch's)")
    ap.add_argument("--no-mask", action="store_true")
    ap.add_argument("--out", help="write the last hidden state here (.npy)")
    ap.add_argument("--compare", nargs="*", default=[], help="tpurun results (.npy) to check against ours")
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--atol", type=float, default=1e-3)
    o = ap.parse_args()
    if o.threads > 0:
        torch.set_num_threads(o.threads)
    model = load(o.data_dir)
    tag = "%dx%d" % (o.batch, o.seq)
    ids = torch.from_numpy(np.load(os.path.join(o.data_dir, "input_ids-%s.npy" % tag)))
    mask = None if o.no_mask else torch.from_numpy(np.load(os.path.join(o.data_dir, "attention_mask-%s.npy" % tag)))
    times = []
    with torch.no_grad():
        y = model(ids, mask)  # warm-up
        for _ in range(o.repeat):
            t0 = time.perf_counter()
            y = model(ids, mask)
            times.append(time.perf_counter() - t0)
    if times:
        print("torch: median %.3f ms, min %.3f ms over %d runs (%d threads, torch %s)"
              % (statistics.median(times) * 1e3, min(times) * 1e3, len(times), torch.get_num_threads(),
                 torch.__version__))
    y = y.numpy()
    if o.out:
        np.save(o.out, y)
    ok = True
    for path in o.compare:
        t = np.load(path)
        if t.shape != y.shape:
            print("compare %s: shape %s, PyTorch's %s: FAIL" % (path, t.shape, y.shape))
            ok = False
            continue
        diff = float(np.abs(t.astype(np.float64) - y).max())
        close = bool(np.isfinite(t).all() and np.allclose(t, y, rtol=o.rtol, atol=o.atol))
        print("compare %s: max abs diff %.3g, allclose(rtol=%g, atol=%g) %s"
              % (os.path.basename(path), diff, o.rtol, o.atol, "ok" if close else "FAIL"))
        ok = ok and close
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
