"""The NumPy-level wrapper of libtpurun (python/tpurun)."""
import numpy as np
import pytest

import tpurun


@pytest.fixture
def client():
    with tpurun.Client(no_disk_cache=True) as c:
        yield c


def test_round_trip_and_op(client):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = client.tensor(a)
    assert x.type == "2x3xf32" and x.shape == (2, 3) and x.nbytes == 24
    y = client.op("stablehlo.tanh", [x])
    np.testing.assert_allclose(y.numpy(), np.tanh(a), rtol=1e-6)


def test_rejected_op_raises_with_code(client):
    x = client.tensor(np.zeros((2, 3), np.float32))
    z = client.tensor(np.zeros(3, np.float32))
    with pytest.raises(tpurun.RejectedError) as e:
        client.op("stablehlo.add", [x, z])
    assert e.value.code == 2 and "same shape" in str(e.value)
