#!/usr/bin/env python3
"""gen_scaling.py SHAPE N [OUT] — one function of exactly N operations in
MLIR generic form, for the compile-time scaling benchmark
(bench/compile_scaling.sh) and the fusion scaling test.

SHAPE is one of
  chain   one element-wise chain: each op reads the previous one and an
          argument (add, multiply, tanh, subtract, maximum, ...);
  layers  repeated model layers: dot_general + bias + GELU (tanh form) +
          residual + layer norm (two reduces), 39 ops a layer, each layer
          with its own weight, bias, scale and offset arguments;
  dag     a wide DAG with many users per value: 8 lanes of element-wise
          ops, each op reads its lane's last value and a "hub" (one value
          in every 256, read by the next ~128 ops), a broadcast of a scalar
          argument (a new one every 64 ops) or another lane's last value;
          the function returns the 8 lanes.
  sharded the layers on 8 partitions, FSDP-style annotations (rows of x
          tiled, weights by output column), for the SPMD passes;
  quantized the chain on tensor<16x256x!quant.uniform<i8:f32, ...>>, for
          quant-lower (each op becomes dequantize, op, quantize);
  bounded the chain on tensor<?x256xf32, #stablehlo.bounds<16, ?>>, for
          dynamic-pad.
N counts every operation, func.func, func.return and the ops inside reduce
regions included (not the builtin.module).  The output depends only on the
arguments, and both tpucc and mlir-opt-14 --allow-unregistered-dialect read
it.
"""
import random
import sys

SEED = 20261126
ROWS, WIDTH = 16, 256
T = f"tensor<{ROWS}x{WIDTH}xf32>"
S = "tensor<f32>"
ROW = f"tensor<{ROWS}xf32>"
VEC = f"tensor<{WIDTH}xf32>"
W = f"tensor<{WIDTH}x{WIDTH}xf32>"


class Body:
    """The lines of one function body and its op budget."""

    def __init__(self, budget):
        self.budget = budget  # ops left, func.func and func.return excluded
        self.lines = []
        self.next_id = 0

    def op(self, text):
        name = f"%{self.next_id}"
        self.next_id += 1
        self.lines.append(f"    {name} = {text}")
        self.budget -= 1
        return name

    def binary(self, kind, a, b, t=T):
        return self.op(f'"stablehlo.{kind}"({a}, {b}) : ({t}, {t}) -> {t}')

    def unary(self, kind, a, t=T):
        return self.op(f'"stablehlo.{kind}"({a}) : ({t}) -> {t}')

    def constant(self, lit, t=T):
        return self.op(f'"stablehlo.constant"() {{value = dense<{lit}> : {t}}} : () -> {t}')

    def broadcast(self, x, src, dims, t=T):
        d = ", ".join(map(str, dims))
        return self.op(f'"stablehlo.broadcast_in_dim"({x}) {{broadcast_dimensions = '
                       f'dense<[{d}]> : tensor<{len(dims)}xi64>}} : ({src}) -> {t}')

    def row_sum(self, x, zero):
        """reduce over dimension 1 with an add region: 3 ops."""
        name = self.op(f'"stablehlo.reduce"({x}, {zero}) ({{')
        p, q = f"%r{self.next_id}a", f"%r{self.next_id}b"
        self.lines.append(f"    ^bb0({p}: {S}, {q}: {S}):")
        s = self.op(f'"stablehlo.add"({p}, {q}) : ({S}, {S}) -> {S}')
        self.lines.append(f'    "stablehlo.return"({s}) : ({S}) -> ()')
        self.budget -= 1
        self.lines.append(f"    }}) {{dimensions = dense<[1]> : tensor<1xi64>}} : ({T}, {S}) -> {ROW}")
        return name


UNARY = ("tanh", "exponential", "negate", "abs", "logistic")
BINARY = ("add", "multiply", "subtract", "maximum", "minimum")


def chain(n, rng):
    b = Body(n - 2)
    v = "%x"
    while b.budget > 0:
        r = rng.random()
        if r < 0.3:
            v = b.unary(rng.choice(UNARY), v)
        else:
            v = b.binary(rng.choice(BINARY), v, rng.choice(("%x", "%y")))
    return ["%x", "%y"], [T, T], b, [v]


LAYER_OPS = 39
LANES = 8


def layer(b, x, k):
    """One layer (LAYER_OPS ops) on x with arguments w{k}, b{k}, g{k}, o{k}."""
    h = b.op(f'"stablehlo.dot_general"({x}, %w{k}) {{dot_dimension_numbers = #stablehlo.dot<'
             f'lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}} : ({T}, {W}) -> {T}')
    h = b.binary("add", h, b.broadcast(f"%b{k}", VEC, [1]))
    # GELU, tanh form: 0.5 h (1 + tanh(sqrt(2/pi) (h + 0.044715 h^3)))
    c1, c2, c3, c4 = (b.constant(v) for v in ("4.471500e-02", "7.978850e-01", "1.000000e+00", "5.000000e-01"))
    h3 = b.binary("multiply", b.binary("multiply", h, h), h)
    u = b.binary("add", h, b.binary("multiply", h3, c1))
    t = b.binary("add", b.unary("tanh", b.binary("multiply", u, c2)), c3)
    g = b.binary("multiply", b.binary("multiply", h, c4), t)
    r = b.binary("add", g, x)
    # Layer norm over the width, with scale g{k} and offset o{k}.
    zero = b.constant("0.000000e+00", S)
    width = b.constant(f"{WIDTH}.0", ROW)
    eps = b.constant("9.99999974E-6", ROW)
    mean = b.binary("divide", b.row_sum(r, zero), width, ROW)
    cen = b.binary("subtract", r, b.broadcast(mean, ROW, [0]))
    var = b.binary("divide", b.row_sum(b.binary("multiply", cen, cen), zero), width, ROW)
    inv = b.unary("rsqrt", b.binary("add", var, eps, ROW), ROW)
    y = b.binary("multiply", cen, b.broadcast(inv, ROW, [0]))
    y = b.binary("multiply", y, b.broadcast(f"%g{k}", VEC, [1]))
    return b.binary("add", y, b.broadcast(f"%o{k}", VEC, [1]))


def layers(n, rng):
    b = Body(n - 2)
    nl = max(1, b.budget // LAYER_OPS)
    names, types = ["%x"], [T]
    v = "%x"
    for k in range(nl):
        names += [f"%w{k}", f"%b{k}", f"%g{k}", f"%o{k}"]
        types += [W, VEC, VEC, VEC]
        v = layer(b, v, k)
    while b.budget > 0:
        v = b.unary(rng.choice(UNARY), v)
    return names, types, b, [v]


def dag(n, rng):
    b = Body(n - 2)
    lanes = ["%x", "%y"] * (LANES // 2)
    hub, bcast = "%x", None
    i = 0
    while b.budget > 0:
        lane = i % LANES
        if i % 256 == 0:
            hub = lanes[lane]
        if i % 64 == 0 and b.budget > 1:
            bcast = b.broadcast("%s", S, [])
        a = lanes[lane]
        r = rng.random()
        if r < 0.2:
            v = b.unary(rng.choice(UNARY), a)
        elif r < 0.3:
            v = b.binary(rng.choice(BINARY), a, bcast)
        elif r < 0.5:
            v = b.binary(rng.choice(BINARY), a, lanes[rng.randrange(LANES)])
        else:
            v = b.binary(rng.choice(BINARY), a, hub)
        lanes[lane] = v
        i += 1
    return ["%x", "%y", "%s"], [T, T, S], b, lanes


SHAPES = {"chain": chain, "layers": layers, "dag": dag, "sharded": layers, "quantized": chain, "bounded": chain}
# The chain's tensor type, respelled for the shapes that only change it.
RETYPE = {"quantized": f"tensor<{ROWS}x{WIDTH}x!quant.uniform<i8:f32, 5.000000e-02:3>>",
          "bounded": f"tensor<?x{WIDTH}xf32, #stablehlo.bounds<{ROWS}, ?>>"}
PARTITIONS = 8


def sharding(name):
    """sharded: FSDP-style layers on 8 partitions (rows of x over the
    partitions, weights by output column, vectors whole)."""
    if name == "%x":
        return f"{{devices=[{PARTITIONS},1]<=[{PARTITIONS}]}}"
    if name.startswith("%w"):
        return f"{{devices=[1,{PARTITIONS}]<=[{PARTITIONS}]}}"
    return "{replicated}"


def generate(shape, n, write):
    if n < 4:
        raise SystemExit("gen_scaling.py: N must be at least 4")
    names, types, body, results = SHAPES[shape](n, random.Random(SEED))
    assert body.budget == 0, body.budget
    write(f"// Generated by bench/gen_scaling.py {shape} {n}: {n} operations in MLIR generic form.\n")
    write('"builtin.module"() ({\n')
    args = ", ".join(f"{a}: {t}" for a, t in zip(names, types))
    write('  "func.func"() ({\n')
    write(f"  ^bb0({args}):\n")
    write("\n".join(body.lines) + "\n")
    rt = ", ".join(T for _ in results)
    write(f'    "func.return"({", ".join(results)}) : ({rt}) -> ()\n')
    sharded = shape == "sharded"
    arg_attrs = ""
    if sharded:
        arg_attrs = ", arg_attrs = [" + ", ".join(f'{{mhlo.sharding = "{sharding(a)}"}}' for a in names) + "]"
    write(f'  }}) {{{arg_attrs[2:] + ", " if sharded else ""}function_type = ({", ".join(types)}) -> ({rt}), sym_name = "main"}} : () -> ()\n')
    parts = PARTITIONS if sharded else 1
    write(f'}}) {{mhlo.num_partitions = {parts} : i32, mhlo.num_replicas = 1 : i32, sym_name = "jit_scaling"}} : () -> ()\n')


def main(argv):
    if len(argv) < 3 or argv[1] not in SHAPES:
        raise SystemExit("usage: gen_scaling.py chain|layers|dag|sharded|quantized|bounded N [OUT]")
    n = int(argv[2])
    retype = RETYPE.get(argv[1])
    out = open(argv[3], "w") if len(argv) > 3 and argv[3] != "-" else sys.stdout
    generate(argv[1], n, (lambda text: out.write(text.replace(T, retype))) if retype else out.write)
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main(sys.argv)
