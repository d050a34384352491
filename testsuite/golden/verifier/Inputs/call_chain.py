#!/usr/bin/python3
"""call_chain.py N [call|region] [expect]: a module of N functions @f0 ..
@f(N-1), each calling the next: directly (call), or from inside a
stablehlo.if branch (region: two levels per function).  With `expect`, the
call in @f0 carries the expected-error of a chain deeper than tpurun runs
(256 levels, common/limits.h)."""
import sys

n, mode, expect = int(sys.argv[1]), sys.argv[2], len(sys.argv) > 3
depth = n if mode == 'call' else 2 * n - 1
names = ['@f%d' % i for i in range(n)]
shown = names if n <= 6 else names[:3] + ['...'] + names[-2:]
chain = ' -> '.join(shown)
msg = ('starts a chain of calls and region bodies %d levels deep (%s), more than the 256 tpurun runs'
       % (depth, chain))
for i in range(n):
    vis = '' if i == 0 else 'private '
    print('func.func %s@f%d(%%x: tensor<f32>) -> tensor<f32> {' % (vis, i))
    if i == n - 1:
        print('  %0 = stablehlo.negate %x : tensor<f32>')
    elif mode == 'call':
        if i == 0 and expect:
            print('  // expected-error @+1 {{%s}}' % msg)
        print('  %%0 = func.call @f%d(%%x) : (tensor<f32>) -> tensor<f32>' % (i + 1))
    else:
        print('  %p = stablehlo.constant dense<true> : tensor<i1>')
        print('  %0 = "stablehlo.if"(%p) ({')
        if i == 0 and expect:
            print('    // expected-error @+1 {{%s}}' % msg)
        print('    %%1 = func.call @f%d(%%x) : (tensor<f32>) -> tensor<f32>' % (i + 1))
        print('    stablehlo.return %1 : tensor<f32>')
        print('  }, {')
        print('    stablehlo.return %x : tensor<f32>')
        print('  }) : (tensor<i1>) -> tensor<f32>')
    print('  return %0 : tensor<f32>')
    print('}')
