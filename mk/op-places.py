#!/usr/bin/python3
"""The places where an op is named: code lines (comments stripped) of
TREE's C sources, tables and headers that match REGEX, per file; tests,
benchmarks and examples are not counted.

    mk/op-places.py TREE REGEX
    e.g. mk/op-places.py . 'OP_EXPONENTIAL\\b|VM_OP_EXPONENTIAL\\b|OPC\\(EXPONENTIAL,|OP\\(EXPONENTIAL,'"""
import os, re, sys
if len(sys.argv) != 3:
    sys.exit(__doc__)
root, pat = sys.argv[1], re.compile(sys.argv[2])
def strip(src):
    src = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), src, flags=re.S)
    return re.sub(r'//[^\n]*', '', src)
tot = 0; files = {}
for d, dirs, fs in os.walk(root):
    dirs[:] = [x for x in dirs if not x.startswith(('build', '.git', 'testsuite', 'bench', 'examples'))]
    for f in fs:
        if not f.endswith(('.c', '.h', '.def', '.inc')): continue
        p = os.path.join(d, f)
        for i, l in enumerate(strip(open(p, errors='replace').read()).split('\n')):
            if pat.search(l):
                files.setdefault(os.path.relpath(p, root), []).append(i + 1); tot += 1
print(f'{tot} places in {len(files)} files')
for f, ls in sorted(files.items()): print(f'  {f}: {len(ls)} ({",".join(map(str, ls[:12]))})')
