#!/usr/bin/env bash
# Halo exchange (passes/spmd_halo.c, docs/spmd.md "Halo exchange"): each
# sharded program under testsuite/spmd/halo/ (convolutions, pooling, pad
# and slice on spatially tiled values) is partitioned with collective_permute
# and no all_gather (operands held whole: no collective at all, marked
# "(no-exchange)"), and its global results through tpurun equal those of
# the same program without shardings on one chip (random global inputs;
# numpy allclose, rtol 1e-4), at -O0 and -O2.
source "$(dirname "$0")/lib.sh"
TPURUN="$BUILD/tpurun"
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null || { echo "skipped: no python3 with numpy"; exit 0; }

n=0
for prog in "$ROOT"/testsuite/spmd/halo/*.mlir; do
  name=$(basename "$prog" .mlir)
  n=$((n + 1))
  # The partitioned program exchanges halos instead of gathering whole.
  expect_status 0 "$TPUCC" --emit=mlir --passes=sharding-propagation,spmd-partition,canonicalize,cse,dce "$prog"
  grep -q "(no-exchange)" "$prog" || expect_in "$TMP/out" "stablehlo.collective_permute"
  grep -q "all_gather" "$TMP/out" && fail "$name: partitioned with an all_gather: $(grep -m1 all_gather "$TMP/out")"
  /usr/bin/python3 - "$prog" "$TPURUN" "$TMP/$name" <<'PY' || fail "$name: the partitioned results differ from one chip's"
import re, subprocess, sys
import numpy as np
prog, tpurun, tmp = sys.argv[1:4]
src = open(prog).read()
n = int(re.search(r'mhlo.num_partitions = (\d+)', src).group(1))
# The program without shardings, on one partition.
ref = re.sub(r'mhlo.sharding = "[^"]*"', '', src).replace('mhlo.num_partitions = %d' % n, 'mhlo.num_partitions = 1')
ref = re.sub(r',\s*,', ',', re.sub(r',\s*\}', '}', re.sub(r'\{\s*,\s*', '{', ref)))
ref = re.sub(r'\{\s*\}', '', ref)
open(tmp + '.ref.mlir', 'w').write(ref)
sig = re.search(r'func.func public @main\((.*?)\) -> (.*?) \{\n', src, re.S)
nargs = len(re.findall(r'%\w+: ', sig.group(1)))
nres = sig.group(2).count('tensor<')
ok = True
for opt in ('-O0', '-O2'):
    outs = {}
    for tag, p in (('ref', tmp + '.ref.mlir'), ('part', prog)):
        files = ['%s.%s%s.%d.npy' % (tmp, tag, opt, j) for j in range(nres)]
        cmd = [tpurun, '--no-cache', opt, p] + ['--input=random:%d' % (7 + i) for i in range(nargs)]
        r = subprocess.run(cmd + ['--output=@' + f for f in files], capture_output=True, text=True)
        if r.returncode:
            print(prog, tag, opt, 'exit', r.returncode, r.stderr[:800])
            sys.exit(1)
        outs[tag] = [np.load(f) for f in files]
    for j in range(nres):
        a, b = outs['ref'][j], outs['part'][j]
        if a.shape != b.shape or not np.allclose(a, b, rtol=1e-4, atol=1e-5):
            print(prog, opt, 'result', j, 'differs:', a.shape, b.shape,
                  np.max(np.abs(a - b)) if a.shape == b.shape else '')
            ok = False
sys.exit(0 if ok else 1)
PY
done
[ "$n" -ge 10 ] || fail "expected the halo programs under testsuite/spmd/halo, found $n"
echo "ok: $n halo programs"
