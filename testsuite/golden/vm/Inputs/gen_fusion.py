OUT = 'fusion_kernels.mlir'
from kg import *
import numpy as np, math, sys, warnings
warnings.simplefilter('ignore')
rng = np.random.RandomState(3)
C = []

def red(name, src, ty, dims, rty, shape):
    t = tt(shape, ty)
    return ('%%%s = stablehlo.reduce(%s init: %%z%s) across dimensions = %s : (%s, %s) -> %s\n'
            '  reducer(%%x: %s, %%y: %s) {\n    %%q = stablehlo.add %%x, %%y : %s\n    stablehlo.return %%q : %s\n  }') % (
        name, src, ty, dims, t, tt((), ty), tt([d for i, d in enumerate(shape) if i not in dims], rty),
        tt((), rty), tt((), rty), tt((), rty), tt((), rty))

# a loop fusion over a shape that is not a multiple of the (8, 128) tile, then a
# multi-output input fusion reducing its result along both dims
A = rng.randint(-50, 50, (9, 257)); Bm = rng.randint(-50, 50, (9, 257)); R = rng.randint(-50, 50, (257,))
body = '\n'.join([
    '%m = stablehlo.multiply %a0, %a1 : tensor<9x257xf32>',
    '%b = stablehlo.broadcast_in_dim %a2, dims = [1] : (tensor<257xf32>) -> tensor<9x257xf32>',
    '%s = stablehlo.add %m, %b : tensor<9x257xf32>',
    '%n = stablehlo.negate %s : tensor<9x257xf32>',
    '%r = stablehlo.maximum %n, %s : tensor<9x257xf32>',
    '%zf32 = stablehlo.constant dense<0.0> : tensor<f32>',
    red('t', '%r', 'f32', [0], 'f32', (9, 257)),
    red('u', '%r', 'f32', [1], 'f32', (9, 257))])
r = np.abs(A * Bm + R)
C.append(Case('loop_then_input_fusion_f32', [(A.astype(np.float32), 'f32'), (Bm.astype(np.float32), 'f32'), (R.astype(np.float32), 'f32')], body,
              [('%r', r, 'f32', 'eq'), ('%t', r.sum(0), 'f32', 'eq'), ('%u', r.sum(1), 'f32', 'eq')],
              'a loop fusion (multiply, broadcast, add, negate, maximum = |a b + r|) over 9x257, ragged against\n'
              'the (8, 128) tile, then both of its reductions as one multi-output input fusion; small integers, exact'))
A8 = rng.randint(-128, 128, (17, 130)); B8 = rng.randint(-128, 128, (17, 130))
m = ((A8 * B8 + 128) % 256 - 128)
body2 = '\n'.join([
    '%m = stablehlo.multiply %a0, %a1 : tensor<17x130xi8>',
    '%c = stablehlo.convert %m : (tensor<17x130xi8>) -> tensor<17x130xi32>',
    '%t = stablehlo.transpose %c, dims = [1, 0] : (tensor<17x130xi32>) -> tensor<130x17xi32>',
    '%zi32 = stablehlo.constant dense<0> : tensor<i32>',
    red('u', '%t', 'i32', [1], 'i32', (130, 17))])
C.append(Case('wrap_convert_transpose_reduce_i8', [(A8.astype(np.int8), 'i8'), (B8.astype(np.int8), 'i8')], body2,
              [('%t', m.T, 'i32', 'eq'), ('%u', m.sum(0), 'i32', 'eq')], 'i8 products wrap before the widening convert; a transpose feeding a reduce'))
H = rng.randint(-8, 8, (5, 300)).astype(np.float32) / 4
body3 = '\n'.join([
    '%e = stablehlo.multiply %a0, %a0 : tensor<5x300xbf16>',
    '%zbf16 = stablehlo.constant dense<0.0> : tensor<bf16>',
    red('u', '%e', 'bf16', [1], 'f32', (5, 300))])
C.append(Case('promoted_input_fusion_bf16', [(H, 'bf16')], body3, [('%u', (H.astype(np.float64) ** 2).sum(1), 'f32', 'eq')],
              'bf16 squares (exact) summed in f32 by an input fusion'))
X = rng.randint(-20, 20, (3, 129, 5)).astype(np.float64) / 2
body4 = '\n'.join([
    '%e = stablehlo.abs %a0 : tensor<3x129x5xf64>',
    '%c = stablehlo.constant dense<2.0> : tensor<3x129x5xf64>',
    '%d = stablehlo.divide %e, %c : tensor<3x129x5xf64>',
    '%f = stablehlo.floor %d : tensor<3x129x5xf64>',
    '%zf64 = stablehlo.constant dense<0.0> : tensor<f64>',
    red('u', '%f', 'f64', [0, 2], 'f64', (3, 129, 5))])
fl = np.floor(np.abs(X) / 2)
C.append(Case('rank3_fusion_f64', [(X, 'f64')], body4, [('%f', fl, 'f64', 'eq'), ('%u', fl.sum((0, 2)), 'f64', 'eq')],
              'rank 3 with the middle dimension kept'))

RUNS = [
    '// RUN: %tpurun -O0 --check %s | FileCheck %s --implicit-check-not=FAIL',
    '// RUN: %tpurun --check --threads=1 %s | FileCheck %s --implicit-check-not=FAIL',
    '// RUN: %tpurun --check --threads=3 %s | FileCheck %s --implicit-check-not=FAIL',
    '// RUN: %tpucc --emit=asm %s -o - | FileCheck %s --check-prefix=ASM',
    '// ASM: fusion {{.*}} kind=0',
    '// ASM: fusion {{.*}} kind=1',
]
HEADER = '''Fused kernels (vm/kernels/fusion.c): loop fusions and multi-output input
fusions over shapes ragged against the (8, 128) tile (9x257, 17x130,
5x300, 3x129x5), with broadcast, transpose, wrapping i8 arithmetic, a
widening convert, a promoted bf16 -> f32 reduce and a rank-3 reduce, at -O0
(no fusion) and at -O2 on 1 and 3 host threads; the ASM lines confirm the
fusions form.  Small-integer inputs, so every result is exact; references
NumPy.'''
print(write(out_path(OUT), HEADER, C, 'gen_fusion.py', runs=RUNS))
