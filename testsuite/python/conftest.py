"""pytest setup for the tpurun Python package and its PyTorch bridge.

Run from the repository root (make check does, through testsuite/run_all.sh):
    PYTHONPATH=python TPURUN_BUILD_DIR=build python3 -m pytest testsuite/python
The tests use the compilation cache of $TPU_CACHE_DIR (run_all.sh points it
at the build directory), never the user's."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, HERE)

MODES = ("debug", "strict", "fused")


@pytest.fixture(params=MODES)
def mode(request):
    """Runs the test once in each eager mode of tpurun.torch's client."""
    import tpurun.torch as tt
    tt.set_mode(request.param)
    yield request.param
    tt.sync()
