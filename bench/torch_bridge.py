#!/usr/bin/python3
"""The BERT encoder of bench/bert_torch.py driven from PyTorch: PyTorch CPU
eager against tpurun.torch in one eager mode, one tool per process.

    torch_bridge.py forward --tool torch|strict|fused|debug --batch B --seq S
                    [--layers L] [--repeat N] [--threads T]
                    [--precision highest|high|medium] [--out OUT.npy]
    torch_bridge.py overhead --tool torch|strict|fused|debug [--ops N]

forward: builds BERT-base (hidden 768, 12 heads, intermediate 3072, vocab
30522; L layers) with weights seeded by torch.manual_seed(0), so every
process has the same model; ids and an additive attention mask seeded too.
Times N forwards under torch.no_grad() after two warm-up forwards; a
tpurun forward ends with the result copied to the host (to_cpu), so every
mode's time includes all of its work.  Prints

    TOOL: median M ms, min m ms over N runs (...)

and for tpurun the client's compiles, cache hits and graphs during the timed
runs.  --precision sets torch.set_float32_matmul_precision (PyTorch's own
knob: "medium" lets float32 matmuls compute in bfloat16 internally, as a
TPU's DEFAULT precision does; PyTorch's CPU kernels ignore it).

overhead: the host cost of one ATen op from Python: N times `x = x + y` on
8-element tensors (one StableHLO op each), the mean per op; for tpurun the
time includes dispatch, lowering and the C API call (Strict and Fused
queue, Debug waits).
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "python"))

from bert_torch import Bert  # noqa: E402

CONFIG = {"hidden": 768, "heads": 12, "intermediate": 3072, "vocab": 30522, "max_position": 512,
          "type_vocab": 2}


def inputs(batch, seq):
    """Token ids and an additive attention mask (the last eighth of each row padded)."""
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(0, CONFIG["vocab"], (batch, seq), generator=g)
    mask = torch.zeros(batch, 1, 1, seq)
    mask[..., seq - seq // 8:] = -10000.0
    return ids, mask


def model(layers):
    torch.manual_seed(0)
    return Bert(dict(CONFIG, layers=layers)).eval()


def forward(o):
    m = model(o.layers)
    ids, mask = inputs(o.batch, o.seq)
    tt = None
    if o.tool != "torch":
        import tpurun.torch as tt
        tt.configure(threads=o.threads)
        tt.set_mode(o.tool)
        tt.to_tpu(m)
        ids, mask = tt.to_tpu(ids), tt.to_tpu(mask)

    def run():
        y = m(ids, mask)
        return tt.to_cpu(y) if tt else y

    times = []
    with torch.no_grad():
        y = run()
        y = run()
        before = tt.metrics() if tt else None
        for _ in range(o.repeat):
            t0 = time.perf_counter()
            y = run()
            times.append(time.perf_counter() - t0)
    extra = f"{torch.get_num_threads()} threads, torch {torch.__version__}"
    if tt:
        after = tt.metrics()
        extra = (f"{o.threads or os.cpu_count()} threads; during the timed runs: compiles "
                 f"{after['compiles'] - before['compiles']}, graphs {after['graphs'] - before['graphs']}, "
                 f"memory-tier hits {after['cache']['memory_hits'] - before['cache']['memory_hits']}, "
                 f"ops {sum(after['ops'].values()) - sum(before['ops'].values())} per "
                 f"{o.repeat} runs, aten ops {after['torch']['aten_ops'] - before['torch']['aten_ops']}")
    print(f"{o.tool}: median {statistics.median(times) * 1e3:.3f} ms, min {min(times) * 1e3:.3f} ms "
          f"over {len(times)} runs ({extra})")
    if o.out:
        np.save(o.out, y.numpy())


def overhead(o):
    x, y = torch.ones(8), torch.full((8,), 1e-3)
    tt = None
    if o.tool != "torch":
        import tpurun.torch as tt
        tt.set_mode(o.tool)
        x, y = tt.to_tpu(x), tt.to_tpu(y)
    for _ in range(100):
        x = x + y
    if tt:
        tt.sync()
    t0 = time.perf_counter()
    for _ in range(o.ops):
        x = x + y
    t1 = time.perf_counter()
    if tt:
        tt.to_cpu(x)
    t2 = time.perf_counter()
    print(f"{o.tool}: {(t1 - t0) / o.ops * 1e6:.2f} us per aten op issued, "
          f"{(t2 - t0) / o.ops * 1e6:.2f} us per op including the final host read ({o.ops} ops)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=["forward", "overhead"])
    ap.add_argument("--tool", choices=["torch", "strict", "fused", "debug"], required=True)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", type=int, default=0, help="tpurun host threads (0: one per core)")
    ap.add_argument("--precision", choices=["highest", "high", "medium"], default="highest")
    ap.add_argument("--ops", type=int, default=20000)
    ap.add_argument("--out")
    o = ap.parse_args()
    torch.set_float32_matmul_precision(o.precision)
    if o.what == "forward":
        forward(o)
    else:
        overhead(o)


if __name__ == "__main__":
    main()
