#!/usr/bin/python3
"""A BERT encoder in StableHLO text, written the way a PyTorch export writes it.

    gen_bert.py [options] OUT.mlir DATA_DIR

writes OUT.mlir, a BERT encoder (HuggingFace's BertModel without the pooler:
embeddings, then LAYERS encoder layers, returning the last hidden state) in
the form torch.export -> torch_xla's StableHLO exporter gives it:

  - every parameter is an argument of @main (%arg0 ... in state_dict order),
    then the token ids (i64, as PyTorch's are) and, unless --no-mask, the
    additive attention mask [B, 1, 1, S] that BertModel builds from a 0/1 mask
    (0 where attended, -10000 where padded);
  - nn.Embedding is a stablehlo.gather of table rows by the ids; position ids
    are an iota, token-type ids zeros (BertModel's buffers);
  - nn.Linear is aten.addmm: the activations reshaped to [B*S, in], the
    [out, in] weight transposed (dims = [1, 0]), a dot_general contracting
    [1] x [0], the bias broadcast and added, a reshape back to [B, S, out];
  - attention: heads split by reshape [B, S, A, D] and transpose [0, 2, 1, 3],
    K transposed [0, 1, 3, 2], batched dot_generals (batching dims [0, 1]),
    scores divided by sqrt(D), the mask added, softmax decomposed (reduce
    max, subtract, exp, reduce add, divide), heads merged by transpose and
    reshape;
  - LayerNorm decomposed (mean, centered, variance, rsqrt(var + 1e-12),
    scale, shift), keepdim reductions as reduce + reshape + broadcast;
  - GELU exact: x * 0.5 * (1 + erf(x * M_SQRT1_2)) with chlo.erf, as
    torch's decomposition of F.gelu writes it.

It also writes DATA_DIR/config.json (the model's dimensions, the seed and
the argument list), one .npy per parameter (deterministic: numpy's
default_rng(seed); rewritten only when the config changes) and the inputs
for this batch and sequence length (ids, mask), then prints the
`--input=@FILE` arguments of tpurun, one per line, in argument order.
bench/bert_torch.py reads the same DATA_DIR.  --fold-weight-transpose writes
what folding the weight transposes would give (each nn.Linear's dot_general
contracting the [out, in] weight's dimension 1), not the export's form.
"""
import argparse
import json
import math
import os
import sys

import numpy as np


def param_shapes(c):
    """(name, shape) of every parameter in BertModel's state_dict order."""
    h, i = c["hidden"], c["intermediate"]
    out = [("embeddings.word_embeddings.weight", (c["vocab"], h)),
           ("embeddings.position_embeddings.weight", (c["max_position"], h)),
           ("embeddings.token_type_embeddings.weight", (c["type_vocab"], h)),
           ("embeddings.LayerNorm.weight", (h,)),
           ("embeddings.LayerNorm.bias", (h,))]
    for l in range(c["layers"]):
        p = "encoder.layer.%d." % l
        for name in ("query", "key", "value"):
            out += [(p + "attention.self.%s.weight" % name, (h, h)),
                    (p + "attention.self.%s.bias" % name, (h,))]
        out += [(p + "attention.output.dense.weight", (h, h)),
                (p + "attention.output.dense.bias", (h,)),
                (p + "attention.output.LayerNorm.weight", (h,)),
                (p + "attention.output.LayerNorm.bias", (h,)),
                (p + "intermediate.dense.weight", (i, h)),
                (p + "intermediate.dense.bias", (i,)),
                (p + "output.dense.weight", (h, i)),
                (p + "output.dense.bias", (h,)),
                (p + "output.LayerNorm.weight", (h,)),
                (p + "output.LayerNorm.bias", (h,))]
    return out


def write_weights(c, data_dir):
    """One .npy per parameter: weights ~ N(0, 0.02) (BERT's initializer),
    biases ~ N(0, 0.02), LayerNorm weights 1 + N(0, 0.1), LayerNorm biases
    N(0, 0.1).  Skipped when config.json already describes the same model."""
    cfg_path = os.path.join(data_dir, "config.json")
    params = param_shapes(c)
    files = ["%03d_%s.npy" % (k, name) for k, (name, _) in enumerate(params)]
    want = dict(c, params=[[n, list(s), f] for (n, s), f in zip(params, files)])
    try:
        with open(cfg_path) as f:
            have = json.load(f)
        if have == want and all(os.path.exists(os.path.join(data_dir, f)) for f in files):
            return want
    except (OSError, ValueError):
        pass
    os.makedirs(data_dir, exist_ok=True)
    rng = np.random.default_rng(c["seed"])
    for (name, shape), fname in zip(params, files):
        if name.endswith("LayerNorm.weight"):
            a = 1.0 + 0.1 * rng.standard_normal(shape, dtype=np.float32)
        elif name.endswith("LayerNorm.bias"):
            a = 0.1 * rng.standard_normal(shape, dtype=np.float32)
        else:
            a = 0.02 * rng.standard_normal(shape, dtype=np.float32)
        np.save(os.path.join(data_dir, fname), a.astype(np.float32))
    with open(cfg_path + ".tmp", "w") as f:
        json.dump(want, f, indent=1)
    os.replace(cfg_path + ".tmp", cfg_path)
    return want


def input_files(data_dir, batch, seq):
    """Paths of the token ids and the additive mask for one input size."""
    tag = "%dx%d" % (batch, seq)
    return (os.path.join(data_dir, "input_ids-%s.npy" % tag),
            os.path.join(data_dir, "attention_mask-%s.npy" % tag))


def write_inputs(c, data_dir, batch, seq):
    """Token ids (i64, [B, S], seeded by the size) and the additive mask
    [B, 1, 1, S]: row b attends to its first S - b * (S // (2 B)) tokens
    (all of them at batch 1), -10000 on the padding, as BertModel's
    get_extended_attention_mask gives for a 0/1 attention_mask."""
    ids_path, mask_path = input_files(data_dir, batch, seq)
    rng = np.random.default_rng([c["seed"], batch, seq])
    ids = rng.integers(0, c["vocab"], size=(batch, seq), dtype=np.int64)
    mask = np.zeros((batch, 1, 1, seq), dtype=np.float32)
    for b in range(batch):
        length = seq - b * (seq // (2 * batch))
        mask[b, 0, 0, length:] = -10000.0
    np.save(ids_path, ids)
    np.save(mask_path, mask)
    return ids_path, mask_path


def ty(shape, dt="f32"):
    """MLIR tensor type of a shape."""
    return "tensor<%s%s>" % ("".join("%dx" % d for d in shape), dt)


def flt(x):
    """An f32 literal as MLIR prints it."""
    return "%.8e" % x


class Writer:
    """Numbered SSA values (%0, %1, ...) and one op per line, as torch_xla
    prints them."""

    def __init__(self, fold=False):
        self.lines = []
        self.n = 0
        self.fold = fold

    def op(self, text):
        name = "%%%d" % self.n
        self.n += 1
        self.lines.append("    %s = %s" % (name, text))
        return name

    def const(self, value, dt="f32"):
        lit = flt(value) if dt.startswith("f") else str(int(value))
        return self.op("stablehlo.constant dense<%s> : tensor<%s>" % (lit, dt))

    def splat(self, value, shape):
        """A scalar constant broadcast to shape (torch_xla's form of a
        Python number in an expression)."""
        c = self.const(value)
        return self.bcast(c, (), [], shape)

    def bcast(self, x, shape, dims, out, dt="f32"):
        return self.op("stablehlo.broadcast_in_dim %s, dims = [%s] : (%s) -> %s"
                       % (x, ", ".join(map(str, dims)), ty(shape, dt), ty(out, dt)))

    def binary(self, opname, a, b, shape):
        return self.op("stablehlo.%s %s, %s : %s" % (opname, a, b, ty(shape)))

    def unary(self, opname, a, shape):
        return self.op("stablehlo.%s %s : %s" % (opname, a, ty(shape)))

    def reshape(self, x, shape, out, dt="f32"):
        return self.op("stablehlo.reshape %s : (%s) -> %s" % (x, ty(shape, dt), ty(out, dt)))

    def transpose(self, x, shape, perm):
        out = [shape[p] for p in perm]
        return self.op("stablehlo.transpose %s, dims = [%s] : (%s) -> %s"
                       % (x, ", ".join(map(str, perm)), ty(shape), ty(out))), out

    def dot(self, a, ashape, b, bshape, batch, contract, out):
        bd = ""
        if batch:
            bd = "batching_dims = [%s] x [%s], " % (", ".join(map(str, batch[0])), ", ".join(map(str, batch[1])))
        return self.op("stablehlo.dot_general %s, %s, %scontracting_dims = [%d] x [%d] : (%s, %s) -> %s"
                       % (a, b, bd, contract[0], contract[1], ty(ashape), ty(bshape), ty(out)))

    def reduce(self, x, shape, init, opname, dim):
        out = [d for k, d in enumerate(shape) if k != dim]
        return self.op("stablehlo.reduce(%s init: %s) applies stablehlo.%s across dimensions = [%d] : (%s, tensor<f32>) -> %s"
                       % (x, init, opname, dim, ty(shape), ty(out))), out


def linear(w, x, xshape, weight, bias, out_features):
    """nn.Linear as aten.addmm: [B, S, in] -> [B*S, in] . W^T + b -> [B, S, out].
    With w.fold, the dot_general contracts the [out, in] weight's dimension
    1 directly (what folding the transpose would give)."""
    rows = xshape[0] * xshape[1]
    x2 = w.reshape(x, xshape, [rows, xshape[2]])
    if w.fold:
        y = w.dot(x2, [rows, xshape[2]], weight, [out_features, xshape[2]], None, (1, 1), [rows, out_features])
    else:
        wt, wt_shape = w.transpose(weight, [out_features, xshape[2]], [1, 0])
        y = w.dot(x2, [rows, xshape[2]], wt, wt_shape, None, (1, 0), [rows, out_features])
    b = w.bcast(bias, [out_features], [1], [rows, out_features])
    y = w.binary("add", y, b, [rows, out_features])
    return w.reshape(y, [rows, out_features], [xshape[0], xshape[1], out_features])


def keepdim(w, r, rshape, shape):
    """A reduction's result [.., 1] broadcast back over the reduced last axis."""
    r1 = w.reshape(r, rshape, rshape + [1])
    return w.bcast(r1, rshape + [1], list(range(len(shape))), shape)


def layer_norm(w, x, shape, gamma, beta, zero):
    """LayerNorm(eps=1e-12) over the last axis, decomposed."""
    n = shape[-1]
    s, rs = w.reduce(x, shape, zero, "add", len(shape) - 1)
    mean = w.binary("divide", s, w.splat(n, rs), rs)
    centered = w.binary("subtract", x, keepdim(w, mean, rs, shape), shape)
    sq = w.binary("multiply", centered, centered, shape)
    ss, _ = w.reduce(sq, shape, zero, "add", len(shape) - 1)
    var = w.binary("divide", ss, w.splat(n, rs), rs)
    inv = w.unary("rsqrt", w.binary("add", var, w.splat(1e-12, rs), rs), rs)
    y = w.binary("multiply", centered, keepdim(w, inv, rs, shape), shape)
    y = w.binary("multiply", y, w.bcast(gamma, [n], [len(shape) - 1], shape), shape)
    return w.binary("add", y, w.bcast(beta, [n], [len(shape) - 1], shape), shape)


def embedding(w, table, table_shape, ids, ids_shape):
    """nn.Embedding: gather rows of the table by i64 ids [B, S] -> [B, S, H]."""
    out = list(ids_shape) + [table_shape[1]]
    return w.op('"stablehlo.gather"(%s, %s) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], '
                'collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, '
                'indices_are_sorted = false, slice_sizes = array<i64: 1, %d>}> : (%s, %s) -> %s'
                % (table, ids, table_shape[1], ty(table_shape), ty(ids_shape, "i64"), ty(out)))


def write_module(c, batch, seq, mask, out_path, fold=False):
    """The whole module text for one batch and sequence length."""
    h, a, inter = c["hidden"], c["heads"], c["intermediate"]
    d = h // a
    params = param_shapes(c)
    args = [ty(s) for _, s in params] + [ty([batch, seq], "i64")]
    if mask:
        args.append(ty([batch, 1, 1, seq]))
    arg = ["%%arg%d" % k for k in range(len(args))]
    p = {name: arg[k] for k, (name, _) in enumerate(params)}
    ids = arg[len(params)]
    mask_arg = arg[len(params) + 1] if mask else None

    w = Writer(fold)
    x3 = [batch, seq, h]
    zero = w.const(0.0)
    ninf = w.op("stablehlo.constant dense<0xFF800000> : tensor<f32>")

    # Embeddings: word + position + token type, LayerNorm.
    words = embedding(w, p["embeddings.word_embeddings.weight"], [c["vocab"], h], ids, [batch, seq])
    pos_ids = w.op("stablehlo.iota dim = 1 : %s" % ty([1, seq], "i64"))
    pos = embedding(w, p["embeddings.position_embeddings.weight"], [c["max_position"], h], pos_ids, [1, seq])
    pos = w.bcast(pos, [1, seq, h], [0, 1, 2], x3)
    type_ids = w.op("stablehlo.constant dense<0> : %s" % ty([batch, seq], "i64"))
    types = embedding(w, p["embeddings.token_type_embeddings.weight"], [c["type_vocab"], h], type_ids, [batch, seq])
    x = w.binary("add", words, types, x3)
    x = w.binary("add", x, pos, x3)
    x = layer_norm(w, x, x3, p["embeddings.LayerNorm.weight"], p["embeddings.LayerNorm.bias"], zero)

    heads4 = [batch, seq, a, d]
    scores4 = [batch, a, seq, seq]
    if mask:
        maskb = w.bcast(mask_arg, [batch, 1, 1, seq], [0, 1, 2, 3], scores4)
    for l in range(c["layers"]):
        pre = "encoder.layer.%d." % l

        def split_heads(t):
            t4 = w.reshape(t, x3, heads4)
            return w.transpose(t4, heads4, [0, 2, 1, 3])

        q, qs = split_heads(linear(w, x, x3, p[pre + "attention.self.query.weight"], p[pre + "attention.self.query.bias"], h))
        k, ks = split_heads(linear(w, x, x3, p[pre + "attention.self.key.weight"], p[pre + "attention.self.key.bias"], h))
        v, vs = split_heads(linear(w, x, x3, p[pre + "attention.self.value.weight"], p[pre + "attention.self.value.bias"], h))
        kt, kts = w.transpose(k, ks, [0, 1, 3, 2])
        s = w.dot(q, qs, kt, kts, ([0, 1], [0, 1]), (3, 2), scores4)
        s = w.binary("divide", s, w.splat(math.sqrt(d), scores4), scores4)
        if mask:
            s = w.binary("add", s, maskb, scores4)
        # Softmax over the keys.
        mx, rs = w.reduce(s, scores4, ninf, "maximum", 3)
        e = w.unary("exponential", w.binary("subtract", s, keepdim(w, mx, rs, scores4), scores4), scores4)
        sm, _ = w.reduce(e, scores4, zero, "add", 3)
        probs = w.binary("divide", e, keepdim(w, sm, rs, scores4), scores4)
        ctx = w.dot(probs, scores4, v, vs, ([0, 1], [0, 1]), (3, 2), [batch, a, seq, d])
        ctx, cs = w.transpose(ctx, [batch, a, seq, d], [0, 2, 1, 3])
        ctx = w.reshape(ctx, cs, x3)
        att = linear(w, ctx, x3, p[pre + "attention.output.dense.weight"], p[pre + "attention.output.dense.bias"], h)
        x = layer_norm(w, w.binary("add", att, x, x3), x3,
                       p[pre + "attention.output.LayerNorm.weight"], p[pre + "attention.output.LayerNorm.bias"], zero)
        # Feed-forward with exact GELU.
        i3 = [batch, seq, inter]
        up = linear(w, x, x3, p[pre + "intermediate.dense.weight"], p[pre + "intermediate.dense.bias"], inter)
        half = w.binary("multiply", up, w.splat(0.5, i3), i3)
        erf = w.op("chlo.erf %s : %s -> %s" % (w.binary("multiply", up, w.splat(math.sqrt(0.5), i3), i3), ty(i3), ty(i3)))
        gelu = w.binary("multiply", half, w.binary("add", erf, w.splat(1.0, i3), i3), i3)
        down = linear(w, gelu, i3, p[pre + "output.dense.weight"], p[pre + "output.dense.bias"], h)
        x = layer_norm(w, w.binary("add", down, x, x3), x3,
                       p[pre + "output.LayerNorm.weight"], p[pre + "output.LayerNorm.bias"], zero)

    head = ("// BERT encoder (layers %d, hidden %d, heads %d, intermediate %d, vocab %d),\n"
            "// batch %d x %d tokens%s, as torch.export + torch_xla write it (bench/gen_bert.py).\n"
            % (c["layers"], h, a, inter, c["vocab"], batch, seq, ", additive attention mask" if mask else ""))
    sig = ", ".join("%s: %s" % (n, t) for n, t in zip(arg, args))
    text = (head + "module @IrToHlo.bert attributes {mhlo.cross_program_prefetches = [], mhlo.is_dynamic = false, "
            "mhlo.use_auto_spmd_partitioning = false} {\n"
            "  func.func public @main(%s) -> (%s {jax.result_info = \"last_hidden_state\"}) {\n" % (sig, ty(x3))
            + "\n".join(w.lines) + "\n"
            "    return %s : %s\n  }\n}\n" % (x, ty(x3)))
    tmp = out_path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, out_path)


def config_args(ap):
    """The model options, shared with bert_torch.py."""
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--hidden", type=int, default=768)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--intermediate", type=int, default=3072)
    ap.add_argument("--vocab", type=int, default=30522)
    ap.add_argument("--max-position", type=int, default=512)
    ap.add_argument("--type-vocab", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1234)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    config_args(ap)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--seq", type=int, default=7)
    ap.add_argument("--no-mask", action="store_true", help="no attention mask argument")
    ap.add_argument("--fold-weight-transpose", action="store_true",
                    help="not the export's form: each nn.Linear's dot_general contracts the [out, in] "
                         "weight directly (contracting_dims = [1] x [1]), to measure what folding the "
                         "weight transposes would gain")
    ap.add_argument("out", help="the .mlir to write")
    ap.add_argument("data_dir", help="directory of the weights and inputs (.npy)")
    o = ap.parse_args()
    if o.hidden % o.heads:
        ap.error("--hidden must be a multiple of --heads")
    if o.seq > o.max_position:
        ap.error("--seq exceeds --max-position")
    c = {"layers": o.layers, "hidden": o.hidden, "heads": o.heads, "intermediate": o.intermediate,
         "vocab": o.vocab, "max_position": o.max_position, "type_vocab": o.type_vocab, "seed": o.seed}
    cfg = write_weights(c, o.data_dir)
    ids_path, mask_path = write_inputs(c, o.data_dir, o.batch, o.seq)
    write_module(c, o.batch, o.seq, not o.no_mask, o.out, o.fold_weight_transpose)
    files = [os.path.join(o.data_dir, f) for _, _, f in cfg["params"]] + [ids_path]
    if not o.no_mask:
        files.append(mask_path)
    for f in files:
        print("--input=@" + f)


if __name__ == "__main__":
    sys.exit(main())
