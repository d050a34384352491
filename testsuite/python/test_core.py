"""The NumPy-level wrapper of libtpurun (python/tpurun)."""
import numpy as np
import pytest

import tpurun

ADD = "stablehlo.add"


@pytest.fixture(params=sorted(tpurun.MODES))
def client(request):
    with tpurun.Client(mode=request.param, no_disk_cache=True) as c:
        yield c


def test_version():
    assert tpurun.version().count(".") == 2


def test_round_trip_and_op(client):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = client.tensor(a)
    assert x.type == "2x3xf32" and x.shape == (2, 3) and x.nbytes == 24 and x.chip == 0
    y = client.op("stablehlo.tanh", [x])
    np.testing.assert_allclose(y.numpy(), np.tanh(a), rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int8, np.int32, np.int64, np.uint8,
                                   np.bool_, np.complex64])
def test_dtypes_round_trip(client, dtype):
    a = (np.arange(12) % 3).astype(dtype).reshape(3, 4)
    np.testing.assert_array_equal(client.tensor(a).numpy(), a)


def test_bf16_from_float32_rounds_to_nearest_even(client):
    t = client.tensor(np.array([1.0, 1.00390625, 1.01171875, -2.5], np.float32), type="4xbf16")
    assert t.type == "4xbf16"
    np.testing.assert_array_equal(t.numpy(), np.array([1.0, 1.0, 1.015625, -2.5], np.float32))
    assert t.numpy(raw=True).dtype == np.uint16


def test_scalar_tensor_and_inferred_result(client):
    s = client.tensor(np.float32(2.5))
    assert s.type == "f32" and s.shape == ()
    assert float(client.op("stablehlo.multiply", [s, s]).numpy()) == 6.25


def test_attrs_and_several_results(client):
    x = client.tensor(np.arange(4, dtype=np.float32))
    parts = client.op("stablehlo.slice", [x], attrs="{start_indices = array<i64: 1>, limit_indices = array<i64: 3>, "
                      "strides = array<i64: 1>}", result_types=["2xf32"])
    np.testing.assert_array_equal(parts.numpy(), [1, 2])
    keys, values = client.tensor(np.array([3, 1], np.int32)), client.tensor(np.array([10., 20.], np.float32))
    r = client.op("stablehlo.sort", [keys, values],
                  attrs='({ ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<f32>, %d: tensor<f32>): '
                        '%p = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction LT>}'
                        ' : (tensor<i32>, tensor<i32>) -> tensor<i1> "stablehlo.return"(%p) : (tensor<i1>) -> () }) '
                        '{dimension = 0 : i64}', result_types=["2xi32", "2xf32"])
    assert isinstance(r, list) and len(r) == 2
    np.testing.assert_array_equal(r[0].numpy(), [1, 3])
    np.testing.assert_array_equal(r[1].numpy(), [20, 10])


def test_rejected_op_raises_with_code_and_text(client):
    x = client.tensor(np.zeros((2, 3), np.float32))
    z = client.tensor(np.zeros(3, np.float32))
    with pytest.raises(tpurun.RejectedError) as e:
        client.op(ADD, [x, z])
    assert e.value.code == 2 and "same shape" in str(e.value)
    with pytest.raises(tpurun.UsageError, match="not a StableHLO or CHLO op"):
        client.op("stablehlo.no_such_op", [x])


def test_usage_and_data_errors(client):
    with pytest.raises(tpurun.UsageError) as e:
        client.tensor(np.zeros(2, np.float32), type="2xnot_a_type")
    assert e.value.code == 1
    with pytest.raises(tpurun.DataError) as e:
        client.tensor(np.zeros(3, np.float32), type="2xf32")
    assert e.value.code == 3
    with pytest.raises(tpurun.UsageError):
        client.tensor(np.zeros(2, dtype="datetime64[s]"))
    with pytest.raises(tpurun.UsageError):
        client.mode = "turbo"


def test_released_tensor_and_closed_client():
    c = tpurun.Client(no_disk_cache=True)
    x = c.tensor(np.ones(2, np.float32))
    y = c.tensor(np.ones(2, np.float32))
    y.release()
    with pytest.raises(tpurun.UsageError, match="released"):
        y.numpy()
    c.close()
    with pytest.raises(tpurun.UsageError, match="closed"):
        x.numpy()
    with pytest.raises(tpurun.UsageError, match="closed"):
        c.tensor(np.ones(2, np.float32))
    c.close()


def test_mode_switch_and_metrics():
    with tpurun.Client(mode="fused", no_disk_cache=True) as c:
        assert c.mode == "fused"
        x = c.tensor(np.ones(4, np.float32))
        for _ in range(3):
            x = c.op(ADD, [x, x])
        np.testing.assert_array_equal(x.numpy(), np.full(4, 8, np.float32))
        m = c.metrics()
        assert m["ops"]["fused"] == 3 and m["graphs"] == 1 and m["materializations"]["host_read"] == 1
        c.mode = "debug"
        assert c.mode == "debug" and c.metrics()["mode"] == "debug"


def test_debug_mode_reports_nan_at_the_op():
    with tpurun.Client(mode="debug", no_disk_cache=True) as c:
        x = c.tensor(np.array([1.0, -1.0], np.float32))
        with pytest.raises(tpurun.TpuRuntimeError) as e:
            c.op("stablehlo.log", [x])
        assert e.value.code == 4 and "NaN" in str(e.value) and "stablehlo.log" in str(e.value)


def test_out_of_hbm_names_the_op(client):
    c = tpurun.Client(mode=client.mode, no_disk_cache=True, hbm_bytes=100)
    x = c.tensor(np.zeros(16, np.float32))
    with pytest.raises(tpurun.TpuRuntimeError, match="out of memory on chip 0.*stablehlo.add") as e:
        c.op(ADD, [x, x])
    assert e.value.code == 4
    c.close()


PROGRAM = """
func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.multiply %a, %b : tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @twice(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  return %a, %a : tensor<2xf32>, tensor<2xf32>
}
"""


def test_program_compile_and_run(client):
    p = client.compile(PROGRAM)
    assert p.signature() == (2, 1) and p.signature("twice") == (1, 2)
    r, = p.run(np.array([2, 3], np.float32), client.tensor(np.array([4, 5], np.float32)))
    np.testing.assert_array_equal(r.numpy(), [8, 15])
    a, b = p.run(np.array([1, 2], np.float32), function="twice")
    np.testing.assert_array_equal(b.numpy(), [1, 2])
    with pytest.raises(tpurun.UsageError, match="takes 2 arguments"):
        p.run(np.ones(2, np.float32))


def test_program_errors(client):
    with pytest.raises(tpurun.RejectedError):
        client.compile("func.func @main( {")
    with pytest.raises(tpurun.DataError):
        client.compile(b"ML\xefR\x00garbage")


def test_streams_and_events():
    with tpurun.Client(no_disk_cache=True) as c:
        s1, s2 = c.stream(), c.stream()
        x = c.tensor(np.ones(8, np.float32))
        y = s1.op(ADD, [x, x])
        e = s1.record()
        s2.wait(e)
        z = s2.op(ADD, [y, y])
        e.sync()
        assert e.query()
        s2.sync()
        np.testing.assert_array_equal(z.numpy(), np.full(8, 4, np.float32))
        s1.close()
        with pytest.raises(tpurun.UsageError):
            s1.op(ADD, [x, x])


def test_two_chips():
    with tpurun.Client(chips=2, no_disk_cache=True) as c:
        assert c.chips == 2
        x = c.tensor(np.arange(3, dtype=np.float32), chip=1)
        assert x.chip == 1
        y = x.to_chip(0)
        assert y.chip == 0
        np.testing.assert_array_equal(y.numpy(), [0, 1, 2])


def test_handles_cannot_be_copied_or_pickled():
    import copy
    import pickle
    with tpurun.Client(no_disk_cache=True) as c:
        t = c.tensor(np.ones(3, np.float32))
        for obj in (c, t, c.compile(PROGRAM), c.stream()):
            for clone in (copy.copy, copy.deepcopy, pickle.dumps):
                with pytest.raises(TypeError, match="cannot be copied or pickled"):
                    clone(obj)
        np.testing.assert_array_equal(t.numpy(), [1, 1, 1])


def test_close_waits_for_calls_in_other_threads():
    import threading
    for _ in range(3):
        c = tpurun.Client(no_disk_cache=True)
        x = c.tensor(np.ones(10, np.float32))
        seen = []

        def user():
            try:
                while True:
                    c.op(ADD, [x, x]).numpy()
            except tpurun.UsageError as e:
                seen.append(str(e))
        t = threading.Thread(target=user)
        t.start()
        c.close()
        t.join(timeout=60)
        assert not t.is_alive() and seen and "closed" in seen[0]


def test_a_client_does_not_cross_fork():
    import os
    with tpurun.Client(no_disk_cache=True) as c:
        x = c.tensor(np.ones(2, np.float32))
        pid = os.fork()
        if pid == 0:
            try:
                x.numpy()
                code = 1
            except tpurun.TpuRuntimeError as e:
                code = 0 if "fork" in str(e) else 2
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        np.testing.assert_array_equal(x.numpy(), [1, 1])


def test_argument_types_are_checked():
    with tpurun.Client(no_disk_cache=True, cache_dir=b"/tmp/unused-tpurun-cache") as c:
        with pytest.raises(TypeError, match="operand must be a tpurun.Tensor"):
            c.op(ADD, [np.ones(2, np.float32)])
        with pytest.raises(TypeError, match="attrs"):
            c.op(ADD, [], attrs=123)
        with pytest.raises(TypeError, match="compile takes"):
            c.compile(123)
        with pytest.raises(TypeError, match="wait takes a tpurun.Event"):
            c.stream().wait("x")
        p = c.compile(PROGRAM)
        assert p.signature(b"twice") == (1, 2)
    with pytest.raises(tpurun.UsageError, match="opt_level"):
        tpurun.Client(opt_level=True)
