"""Statistics of stablehlo.rng's results (testsuite/golden/vm/rng_distributions.mlir):
NPY files in the order main returns them.  Exits 1 naming the first bound missed."""
import sys

import numpy as np

u32, n64, i32, d1, d2 = (np.load(f) for f in sys.argv[1:6])
n = u32.size
checks = [
    ("uniform f32 in [2, 5)", u32.min() >= 2.0 and u32.max() < 5.0),
    ("uniform f32 mean 3.5", abs(u32.mean() - 3.5) < 4 * np.sqrt(0.75 / n)),
    ("uniform f32 variance 0.75", abs(u32.var() - 0.75) < 0.02),
    ("normal f64 mean 1", abs(n64.mean() - 1.0) < 4 * 3.0 / np.sqrt(n)),
    ("normal f64 variance 9", abs(n64.var() - 9.0) < 0.25),
    ("normal f64 within 6 sigma", np.all(np.abs(n64 - 1.0) < 6 * 3.0)),
    ("uniform i32 in [-3, 7)", i32.min() == -3 and i32.max() == 6),
    ("uniform i32 mean 1.5", abs(i32.mean() - 1.5) < 4 * np.sqrt(8.25 / n)),
    ("uniform i32 each value", np.all(np.abs(np.bincount(i32 + 3, minlength=10) / n - 0.1) < 0.01)),
    ("two executions of one rng differ", not np.array_equal(d1, d2)),
]
for what, ok in checks:
    if not ok:
        print("FAIL", what)
        sys.exit(1)
print("rng statistics: %d checks passed" % len(checks))
