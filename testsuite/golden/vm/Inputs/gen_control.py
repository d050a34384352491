OUT = 'control.mlir'
from kg import *
import numpy as np, math, sys
C = []

def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a

# while: sum of 1..n and n-th Fibonacci number (computed here in Python)
WHILE = '''%r:2 = stablehlo.while(%i = %a0, %s = %a1) : tensor<i32>, tensor<{T}>
  cond {
    %lim = stablehlo.constant dense<{N}> : tensor<i32>
    %p = stablehlo.compare  LT, %i, %lim,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %one : tensor<i32>
    %x = stablehlo.convert %i1 : (tensor<i32>) -> tensor<{T}>
    %s1 = stablehlo.add %s, %x : tensor<{T}>
    stablehlo.return %i1, %s1 : tensor<i32>, tensor<{T}>
  }'''
for n, t in ((10, 'i32'), (100, 'f32'), (0, 'i64'), (70000, 'i16')):
    total = sum(range(1, n + 1))
    if t == 'i16':
        total = (total + 2**15) % 2**16 - 2**15
    C.append(Case('while_sum_%s_%d' % (t, n), [(np.array(0, dtype=np.int32), 'i32'), (arr(0, t), t)],
                  WHILE.replace('{T}', t).replace('{N}', str(n)),
                  [('%r#0', np.array(n, dtype=np.int32), 'i32', 'eq'), ('%r#1', arr(total, t), t, 'eq')],
                  'while: sum of 1..%d%s' % (n, ' (no iteration: the initial state)' if n == 0 else ' (wraps in i16)' if t == 'i16' else '')))
FIB = '''%r:3 = stablehlo.while(%i = %a0, %x = %a1, %y = %a2) : tensor<i64>, tensor<2xui64>, tensor<2xui64>
  cond {
    %z = stablehlo.constant dense<0> : tensor<i64>
    %p = stablehlo.compare  GT, %i, %z,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i64>
    %i1 = stablehlo.subtract %i, %one : tensor<i64>
    %s = stablehlo.add %x, %y : tensor<2xui64>
    stablehlo.return %i1, %y, %s : tensor<i64>, tensor<2xui64>, tensor<2xui64>
  }'''
C.append(Case('while_fibonacci_tensor_state', [(np.array(93, dtype=np.int64), 'i64'), (np.array([0, 0], dtype=np.uint64), 'ui64'),
                                                (np.array([1, 2], dtype=np.uint64), 'ui64')], FIB,
              [('%r#1', np.array([fib(93), 2 * fib(93) % 2**64], dtype=np.uint64), 'ui64', 'eq')],
              'while with tensor state: F(93) fits in ui64, 2 F(93) wraps'))
NESTED = '''%r:2 = stablehlo.while(%i = %a0, %acc = %a1) : tensor<i32>, tensor<i32>
  cond {
    %lim = stablehlo.constant dense<5> : tensor<i32>
    %p = stablehlo.compare  LT, %i, %lim,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %in:2 = stablehlo.while(%j = %zero, %b = %acc) : tensor<i32>, tensor<i32>
      cond {
        %q = stablehlo.compare  LE, %j, %i,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %q : tensor<i1>
      } do {
        %one2 = stablehlo.constant dense<1> : tensor<i32>
        %j1 = stablehlo.add %j, %one2 : tensor<i32>
        %m = stablehlo.multiply %i, %j : tensor<i32>
        %b1 = stablehlo.add %b, %m : tensor<i32>
        stablehlo.return %j1, %b1 : tensor<i32>, tensor<i32>
      }
    %i1 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i1, %in#1 : tensor<i32>, tensor<i32>
  }'''
C.append(Case('while_nested', [(np.array(0, dtype=np.int32), 'i32'), (np.array(0, dtype=np.int32), 'i32')], NESTED,
              [('%r#1', np.array(sum(i * j for i in range(5) for j in range(i + 1)), dtype=np.int32), 'i32', 'eq')],
              'nested while: sum of i * j for 0 <= j <= i < 5'))
# if
IF = '''%r:2 = "stablehlo.if"(%a0) ({
  %s = stablehlo.add %a1, %a1 : tensor<3xf32>
  stablehlo.return %s, %a2 : tensor<3xf32>, tensor<i8>
}, {
  %m = stablehlo.multiply %a1, %a1 : tensor<3xf32>
  %n = stablehlo.negate %a2 : tensor<i8>
  stablehlo.return %m, %n : tensor<3xf32>, tensor<i8>
}) : (tensor<i1>) -> (tensor<3xf32>, tensor<i8>)'''
X = np.array([1.5, -2.0, 3.0], dtype=np.float32)
for p in (True, False):
    C.append(Case('if_%s' % str(p).lower(), [(np.array(p), 'i1'), (X, 'f32'), (np.array(-128, dtype=np.int8), 'i8')], IF,
                  [('%r#0', X + X if p else X * X, 'f32', 'eq'), ('%r#1', np.array(-128, dtype=np.int8), 'i8', 'eq')],
                  'if: the %s branch (negate wraps INT_MIN)' % ('then' if p else 'else')))
# case: an index out of [0, n) runs the last branch
CASE = '''%r = "stablehlo.case"(%a0) ({
  stablehlo.return %a1 : tensor<2xi64>
}, {
  %s = stablehlo.add %a1, %a1 : tensor<2xi64>
  stablehlo.return %s : tensor<2xi64>
}, {
  %n = stablehlo.negate %a1 : tensor<2xi64>
  stablehlo.return %n : tensor<2xi64>
}) : (tensor<i32>) -> tensor<2xi64>'''
V = np.array([7, -2**63], dtype=np.int64)
for k, e in ((0, V), (1, V + V), (2, -V), (3, -V), (-1, -V), (2**31 - 1, -V), (-2**31, -V)):
    C.append(Case('case_index_%s' % str(k).replace('-', 'm'), [(np.array(k, dtype=np.int32), 'i32'), (V, 'i64')], CASE,
                  [('%r', e, 'i64', 'eq')], 'case: index %d%s' % (k, '' if 0 <= k < 3 else ' is out of range: the last branch')))
# call
C.append(Case('call_private', [(np.array([1, 2, 3], dtype=np.int32), 'i32')],
              '%r = func.call @square_plus_one(%a0) : (tensor<3xi32>) -> tensor<3xi32>',
              [('%r', np.array([2, 5, 10], dtype=np.int32), 'i32', 'eq')], 'func.call of a private function (inlined at -O2)'))
C.append(Case('call_multi_result', [(np.array([2.0, -1.0], dtype=np.float64), 'f64')],
              '%r:2 = func.call @twice_and_half(%a0) : (tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>)\n'
              '%q:2 = func.call @twice_and_half(%r#0) : (tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>)',
              [('%r#0', np.array([4.0, -2.0]), 'f64', 'eq'), ('%r#1', np.array([1.0, -0.5]), 'f64', 'eq'), ('%q#1', np.array([2.0, -1.0]), 'f64', 'eq')],
              'two results, called twice, the second call on the first one\'s result'))
EXTRA = '''
func.func private @square_plus_one(%x: tensor<3xi32>) -> tensor<3xi32> {
  %m = stablehlo.multiply %x, %x : tensor<3xi32>
  %one = stablehlo.constant dense<1> : tensor<3xi32>
  %s = stablehlo.add %m, %one : tensor<3xi32>
  func.return %s : tensor<3xi32>
}

func.func private @twice_and_half(%x: tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>) {
  %t = stablehlo.add %x, %x : tensor<2xf64>
  %h = stablehlo.constant dense<0.5> : tensor<2xf64>
  %m = stablehlo.multiply %x, %h : tensor<2xf64>
  func.return %t, %m : tensor<2xf64>, tensor<2xf64>
}'''

class Raw:
    checks = []
    def render(self):
        return EXTRA.strip('\n')
C.append(Raw())

HEADER = '''Control flow run by the interpreter (vm/interp.c): while (counted loops
over i32, f32, i64 and wrapping i16 state, zero iterations, tensor state
with ui64 wrap, a nested loop), if (both branches, several results), case
(every branch, and out-of-range indices -1, 3, INT_MAX, INT_MIN running the
last branch), func.call (private functions, several results, chained calls).
Expected values computed in Python (sums, Fibonacci numbers).'''
print(write(out_path(OUT), HEADER, C, 'gen_control.py'))
