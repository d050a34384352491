#!/usr/bin/env python3
"""gen_parser_bench.py [N] [OUT] [OPS_PER_FUNC] — a StableHLO module of exactly
N operations.

Writes MLIR generic form that both `tpucc --emit=mlir-generic` and
`mlir-opt-14 --allow-unregistered-dialect` accept, shaped like a JAX export:
functions `f_0`, `f_1`, ... of OPS_PER_FUNC (default 1000) ops each, chains of element-wise
math on a few 2-D f32 shapes, constants, broadcast_in_dim, reshape,
transpose, dot_general, compare + select, and a reduce with a region about
every 100 ops.  Every op is well typed (the tpucc verifier checks shapes).

N counts every operation inside the module: func.func, func.return, the
StableHLO ops and the ops inside reduce regions (the builtin.module itself
is not counted).  N defaults to 100000, OUT ('-' or absent) to standard
output.  The output depends only on the arguments (fixed seed).
"""
import random
import sys

OPS_PER_FUNC = 1000
REDUCE_EVERY = 100           # one reduce (3 ops with its region) per ~100 ops
BATCH = (8, 16, 32)          # each function uses one batch size and two
HIDDEN = (64, 128, 256, 512)  # hidden sizes: 2-D shapes (a, b), a, b in dims
SEED = 20240601


def ty(shape, elt="f32"):
    if not shape:
        return f"tensor<{elt}>"
    return "tensor<" + "x".join(map(str, shape)) + f"x{elt}>"


def dense_i64(vals):
    return f"dense<[{', '.join(map(str, vals))}]> : tensor<{len(vals)}xi64>"


class Func:
    """One function body: a pool of live SSA values by type, and its lines."""

    def __init__(self, rng, name, budget):
        self.rng = rng
        self.name = name
        self.budget = budget          # ops left for the body (excl. func.func/return)
        self.lines = []
        self.next_id = 0
        self.by_type = {}             # (shape, elt) -> [names], most recent last
        self.recent = []              # recent f32 2-D values: (name, shape)
        self.dims = sorted({rng.choice(BATCH), *rng.sample(HIDDEN, 2)})
        b, h = self.dims[0], self.dims[1]
        nargs = rng.randint(3, 6)
        self.args = []
        for i in range(nargs):
            shape = (b, h) if i == 0 else (self.dim(), self.dim())
            self.args.append(shape)
            self.add_value(f"%arg{i}", shape, "f32")
        self.next_arg = nargs

    # ------------------------------------------------------------ values
    def dim(self):
        return self.rng.choice(self.dims)

    def add_value(self, name, shape, elt):
        self.by_type.setdefault((shape, elt), []).append(name)
        if elt == "f32" and len(shape) == 2:
            self.recent.append((name, shape))
            if len(self.recent) > 24:
                self.recent.pop(0)

    def fresh(self):
        name = f"%{self.next_id}"
        self.next_id += 1
        return name

    def pick(self):
        """A recent f32 2-D value, biased towards the newest (JAX chains)."""
        r = self.recent
        i = len(r) - 1 - min(int(self.rng.expovariate(0.35)), len(r) - 1)
        return r[i]

    def pick_of(self, shape, elt="f32", avoid=None):
        """A value of exactly this type (other than `avoid` if there is one);
        a new splat constant if there is none."""
        pool = self.by_type.get((shape, elt))
        if pool and pool[-1] == avoid and len(pool) > 1:
            pool = pool[:-1]
        if pool:
            return pool[-1 - min(int(self.rng.expovariate(0.5)), len(pool) - 1)]
        return self.constant(shape, elt)

    def emit(self, text):
        self.lines.append("    " + text)
        self.budget -= 1

    # ------------------------------------------------------------ ops
    def constant(self, shape, elt="f32"):
        name = self.fresh()
        if elt == "i1":
            lit = "true"
        else:
            lit = self.rng.choice(("1.5", "0.0e+00", "-2.5", "1.0e-03", "3.0"))
        self.emit(f'{name} = "stablehlo.constant"() {{value = dense<{lit}> : '
                  f'{ty(shape, elt)}}} : () -> {ty(shape, elt)}')
        self.add_value(name, shape, elt)
        return name

    def binary(self, op):
        a, shape = self.pick()
        b = self.pick_of(shape, avoid=a)
        t = ty(shape)
        name = self.fresh()
        self.emit(f'{name} = "stablehlo.{op}"({a}, {b}) : ({t}, {t}) -> {t}')
        self.add_value(name, shape, "f32")

    def unary(self, op):
        a, shape = self.pick()
        t = ty(shape)
        name = self.fresh()
        self.emit(f'{name} = "stablehlo.{op}"({a}) : ({t}) -> {t}')
        self.add_value(name, shape, "f32")

    def broadcast(self):
        """[n] -> [a, n] / [n, b], scalar -> [a, b], or [a, b] -> [a, b]."""
        rng = self.rng
        kind = rng.random()
        a, b = self.dim(), self.dim()
        if kind < 0.6:
            if rng.random() < 0.5:
                src, dims = (b,), [1]
            else:
                src, dims = (a,), [0]
        elif kind < 0.8:
            src, dims = (), []
        else:
            src, dims = (a, b), [0, 1]
        x = self.pick_of(src)
        name = self.fresh()
        self.emit(f'{name} = "stablehlo.broadcast_in_dim"({x}) '
                  f'{{broadcast_dimensions = {dense_i64(dims)}}} : '
                  f'({ty(src)}) -> {ty((a, b))}')
        self.add_value(name, (a, b), "f32")

    def reshape(self):
        x, (a, b) = self.pick()
        same = [(c, d) for c in self.dims for d in self.dims
                if c * d == a * b and (c, d) != (a, b)]
        if same and self.rng.random() < 0.7:
            out = self.rng.choice(same)
        else:
            out = (a * b,)
        name = self.fresh()
        self.emit(f'{name} = "stablehlo.reshape"({x}) : ({ty((a, b))}) -> {ty(out)}')
        self.add_value(name, out, "f32")

    def transpose(self):
        x, (a, b) = self.pick()
        name = self.fresh()
        self.emit(f'{name} = "stablehlo.transpose"({x}) '
                  f'{{permutation = {dense_i64([1, 0])}}} : '
                  f'({ty((a, b))}) -> {ty((b, a))}')
        self.add_value(name, (b, a), "f32")

    def dot_general(self):
        x, (m, k) = self.pick()
        n = self.dim()
        w = self.pick_of((k, n))
        name = self.fresh()
        self.emit(f'{name} = "stablehlo.dot_general"({x}, {w}) '
                  '{dot_dimension_numbers = #stablehlo.dot<'
                  'lhs_contracting_dimensions = [1], '
                  'rhs_contracting_dimensions = [0]>} : '
                  f'({ty((m, k))}, {ty((k, n))}) -> {ty((m, n))}')
        self.add_value(name, (m, n), "f32")

    def compare_select(self):
        """compare (maybe reusing an earlier predicate) then select: 1-2 ops."""
        a, shape = self.pick()
        t, p = ty(shape), ty(shape, "i1")
        preds = self.by_type.get((shape, "i1"))
        if preds and self.rng.random() < 0.3:
            pred = preds[-1]
        else:
            b = self.pick_of(shape, avoid=a)
            pred = self.fresh()
            direction = self.rng.choice(("LT", "GT", "GE", "EQ"))
            self.emit(f'{pred} = "stablehlo.compare"({a}, {b}) '
                      f'{{comparison_direction = #stablehlo<"comparison_direction {direction}">}}'
                      f' : ({t}, {t}) -> {p}')
            self.add_value(pred, shape, "i1")
        if self.budget < 1:
            return
        c = self.pick_of(shape, avoid=a)
        name = self.fresh()
        self.emit(f'{name} = "stablehlo.select"({pred}, {a}, {c}) : '
                  f'({p}, {t}, {t}) -> {t}')
        self.add_value(name, shape, "f32")

    def reduce(self):
        """reduce over dim 1 (or 0) with an add/maximum region: 3 ops."""
        x, (a, b) = self.pick()
        dim = 1 if self.rng.random() < 0.8 else 0
        out = (a,) if dim == 1 else (b,)
        init = self.pick_of(())
        name = self.fresh()
        p, q = f"%arg{self.next_arg}", f"%arg{self.next_arg + 1}"
        self.next_arg += 2
        body = self.fresh()
        op = self.rng.choice(("add", "maximum"))
        s = ty(())
        self.emit(f'{name} = "stablehlo.reduce"({x}, {init}) ({{')
        self.lines.append(f"    ^bb0({p}: {s}, {q}: {s}):")
        self.emit(f'  {body} = "stablehlo.{op}"({p}, {q}) : ({s}, {s}) -> {s}')
        self.emit(f'  "stablehlo.return"({body}) : ({s}) -> ()')
        self.lines.append(f"    }}) {{dimensions = {dense_i64([dim])}}} : "
                          f"({ty((a, b))}, {s}) -> {ty(out)}")
        self.add_value(name, out, "f32")

    # ------------------------------------------------------------ body
    MIX = (  # (weight, method, args): roughly a JAX MLP/attention export
        (14, "binary", ("add",)), (12, "binary", ("multiply",)),
        (6, "binary", ("subtract",)), (5, "binary", ("maximum",)),
        (4, "unary", ("exponential",)), (4, "unary", ("tanh",)),
        (9, "constant_any", ()), (12, "broadcast", ()), (6, "reshape", ()),
        (5, "transpose", ()), (6, "dot_general", ()), (6, "compare_select", ()),
    )

    def constant_any(self):
        self.constant(self.rng.choice([(), (self.dim(), self.dim())]))

    def body(self):
        rng = self.rng
        weights = [w for w, _, _ in self.MIX]
        since_reduce = rng.randint(0, REDUCE_EVERY - 1)
        while self.budget > 0:
            if self.budget < 5:       # every mix step emits at most 4 ops
                self.unary(rng.choice(("exponential", "tanh")))
                continue
            if since_reduce >= REDUCE_EVERY:
                self.reduce()
                since_reduce = 0
                continue
            _, method, args = rng.choices(self.MIX, weights)[0]
            before = self.budget
            getattr(self, method)(*args)
            since_reduce += before - self.budget

    def text(self):
        self.body()
        res_name, res_shape = self.recent[-1]
        args = ", ".join(f"%arg{i}: {ty(s)}" for i, s in enumerate(self.args))
        arg_types = ", ".join(ty(s) for s in self.args)
        out = ['  "func.func"() ({', f"  ^bb0({args}):"]
        out += self.lines
        out.append(f'    "func.return"({res_name}) : ({ty(res_shape)}) -> ()')
        out.append(f'  }}) {{function_type = ({arg_types}) -> {ty(res_shape)}, '
                   f'sym_name = "{self.name}"}} : () -> ()')
        return "\n".join(out)


def generate(n, write, ops_per_func=OPS_PER_FUNC):
    if n < 3 or ops_per_func < 3:
        raise SystemExit("gen_parser_bench.py: N and OPS_PER_FUNC must be at least 3")
    rng = random.Random(SEED)
    write("// Generated by bench/gen_parser_bench.py %d: %d operations in MLIR generic form.\n" % (n, n))
    write('"builtin.module"() ({\n')
    left, k = n, 0
    while left > 0:
        size = min(ops_per_func, left)
        if 0 < left - size < 3:       # never leave a function too small to close
            size = left
        f = Func(rng, f"f_{k}", size - 2)   # func.func and func.return count too
        write(f.text() + "\n")
        left -= size
        k += 1
    write('}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32, '
          'sym_name = "jit_bench"} : () -> ()\n')


def main(argv):
    n = int(argv[1]) if len(argv) > 1 else 100000
    per = int(argv[3]) if len(argv) > 3 else OPS_PER_FUNC
    if len(argv) > 2 and argv[2] != "-":
        with open(argv[2], "w") as f:
            generate(n, f.write, per)
    else:
        generate(n, sys.stdout.write, per)


if __name__ == "__main__":
    main(sys.argv)
