"""tpurun: NumPy-level Python interface of libtpurun (DESIGN.md §9, docs/python.md).

    import numpy as np, tpurun
    with tpurun.Client(mode="strict") as c:
        x = c.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
        y = c.op("stablehlo.tanh", [x])
        print(y.numpy())

Every C entry point is wrapped; a nonzero return becomes a TpuError
subclass carrying the C code and message (UsageError 1, RejectedError 2,
DataError 3, TpuRuntimeError 4, InternalError 70).  `tpurun.torch` runs
PyTorch on top of this.
"""
import ctypes
import json
import os
import threading

import numpy as np

from . import _capi
from ._capi import lib

__all__ = ["Client", "Tensor", "Program", "Stream", "Event", "TpuError", "UsageError", "RejectedError",
           "DataError", "TpuRuntimeError", "InternalError", "version", "tensor_type", "MODES"]

MODES = {"strict": 0, "debug": 1, "fused": 2}
_MODE_NAMES = {v: k for k, v in MODES.items()}
OPT_LEVELS = {None: 0, 0: 1, 1: 2, 2: 3}


class TpuError(Exception):
    """A libtpurun failure: .code is the C return code, .message tpu_error()'s text."""
    code = None

    def __init__(self, message, code=None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class UsageError(TpuError, ValueError):
    """Code 1: misuse of the API (bad type string, released tensor, ...)."""
    code = 1


class RejectedError(TpuError):
    """Code 2: the op or program was rejected by the verifier."""
    code = 2


class DataError(TpuError, ValueError):
    """Code 3: bad data (wrong byte count, corrupt bytecode)."""
    code = 3


class TpuRuntimeError(TpuError, RuntimeError):
    """Code 4: a runtime failure (trap, out of HBM, NaN/Inf in Debug mode)."""
    code = 4


class InternalError(TpuError):
    """Code 70: a bug in libtpurun."""
    code = 70


_ERRORS = {1: UsageError, 2: RejectedError, 3: DataError, 4: TpuRuntimeError, 70: InternalError}


def _error(code, what=None):
    msg = (lib.tpu_error(None) or b"").decode("utf-8", "replace")
    if what and not msg:
        msg = what
    cls = _ERRORS.get(code, TpuError)
    return cls(msg, code)


def _check(code):
    if code != 0:
        raise _error(code)


def version():
    """The library's version string, e.g. "0.6.0"."""
    return lib.tpu_version().decode()


# ---- element types -------------------------------------------------------
# NumPy dtype <-> StableHLO element type.  bf16 has no NumPy dtype: its
# tensors are given and returned as float32 (rounded to nearest even on the
# way in) unless the caller passes raw uint16 storage with type "...xbf16".
_NP_TO_ELEM = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64", np.dtype(np.float16): "f16",
               np.dtype(np.int8): "i8", np.dtype(np.int16): "i16", np.dtype(np.int32): "i32",
               np.dtype(np.int64): "i64", np.dtype(np.uint8): "ui8", np.dtype(np.uint16): "ui16",
               np.dtype(np.uint32): "ui32", np.dtype(np.uint64): "ui64", np.dtype(np.bool_): "i1",
               np.dtype(np.complex64): "complex<f32>", np.dtype(np.complex128): "complex<f64>"}
_ELEM_TO_NP = {v: k for k, v in _NP_TO_ELEM.items()}
_ELEM_TO_NP["bf16"] = np.dtype(np.uint16)
_ELEM_TO_NP["ui1"] = np.dtype(np.bool_)


def tensor_type(shape, elem):
    """The type string of a tensor: tensor_type((2, 3), "f32") == "2x3xf32"."""
    return "x".join([str(int(d)) for d in shape] + [elem])


def parse_type(text):
    """(shape, element type) of a type string "2x3xf32" / "f32" / "tensor<4xbf16>"."""
    if text.startswith("tensor<") and text.endswith(">"):
        text = text[7:-1]
    if text.startswith("complex<"):
        return (), text
    parts = text.split("x")
    dims = []
    while parts and parts[0].isdigit():
        dims.append(int(parts.pop(0)))
    return tuple(dims), "x".join(parts)


def bf16_from_f32(a):
    """float32 array -> uint16 bf16 storage, rounded to nearest even (NaN kept NaN)."""
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(a)
    if nan.any():
        rounded = np.where(nan, np.uint16(0x7FC0), rounded)
    return rounded


def f32_from_bf16(u):
    """uint16 bf16 storage -> float32."""
    return (np.asarray(u, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def _ptr_array(handles):
    return (ctypes.c_void_p * max(len(handles), 1))(*handles)


_ENCODED = {}


def _encode(text):
    """text as bytes, memoized: op names, attributes and types repeat."""
    if text is None or isinstance(text, bytes):
        return text
    b = _ENCODED.get(text)
    if b is None:
        if len(_ENCODED) > 65536:
            _ENCODED.clear()
        b = _ENCODED[text] = text.encode()
    return b


def _types_array(types):
    if types is None:
        return None
    return (ctypes.c_char_p * max(len(types), 1))(*[_encode(t) for t in types])


def _text(value, what, optional=True):
    """value (str, bytes or os.PathLike; None when optional) as bytes for C."""
    if value is None and optional:
        return None
    if isinstance(value, (str, bytes, os.PathLike)):
        return os.fsencode(value)
    raise TypeError(f"tpurun: {what} must be a str or bytes, not {type(value).__name__}")


class _NotCopyable:
    """A C object has one owner: copying or pickling it is refused."""
    __slots__ = ()

    def __reduce_ex__(self, protocol):
        raise TypeError(f"tpurun: a {type(self).__name__} holds a C handle and cannot be copied or pickled")


class Client(_NotCopyable):
    """One simulated TPU slice (TpuClient) with its compilation caches.

    mode: "strict" (default), "debug" or "fused"; TPU_EAGER_MODE overrides
    it at creation.  opt_level: None (-O2) or 0, 1, 2.  The other arguments
    are TpuClientOptions' fields.  close() (or leaving a `with` block) waits
    for the calls other threads have in progress, then frees the client and
    everything it made.  A client belongs to the process that made it: in a
    child after fork() it raises TpuRuntimeError."""
    __slots__ = ("_h", "_pid", "_cv", "_busy", "__weakref__")

    def __init__(self, target=None, chips=1, mode="strict", cache_dir=None, threads=0, no_disk_cache=False,
                 no_nan_check=False, opt_level=None, fused_max_ops=0, hbm_bytes=0, cache_max_bytes=0):
        self._h = None
        if mode not in MODES:
            raise UsageError(f"tpurun.Client: mode {mode!r} is not one of {sorted(MODES)}")
        if isinstance(opt_level, bool) or opt_level not in OPT_LEVELS:
            raise UsageError(f"tpurun.Client: opt_level {opt_level!r} is not None, 0, 1 or 2")
        o = _capi.ClientOptions()
        o.struct_size = ctypes.sizeof(o)
        o.target, o.cache_dir = _text(target, "target"), _text(cache_dir, "cache_dir")
        o.chips, o.mode = int(chips), MODES[mode]
        o.threads, o.no_disk_cache, o.no_nan_check = int(threads), int(bool(no_disk_cache)), int(bool(no_nan_check))
        o.opt_level, o.fused_max_ops = OPT_LEVELS[opt_level], int(fused_max_ops)
        o.hbm_bytes, o.cache_max_bytes = int(hbm_bytes), int(cache_max_bytes)
        h = ctypes.c_void_p()
        _check(lib.tpu_client_create(ctypes.byref(o), ctypes.byref(h)))
        self._pid, self._cv, self._busy = os.getpid(), threading.Condition(threading.Lock()), 0
        self._h = h.value

    def _enter(self):
        """Holds the client open for one C call (close() waits for it); its handle."""
        with self._cv:
            if self._h is None:
                raise UsageError("tpurun: the client is closed")
            if self._pid != os.getpid():
                raise TpuRuntimeError("tpurun: this client was made by another process (before a fork); a "
                                      "libtpurun client cannot cross fork(): make a new one in the child, or "
                                      "use the 'spawn' start method")
            self._busy += 1
            return self._h

    def _leave(self):
        with self._cv:
            self._busy -= 1
            if not self._busy:
                self._cv.notify_all()

    def _call(self, fn, *args):
        """fn(handle, *args) with the client held open."""
        h = self._enter()
        try:
            return fn(h, *args)
        finally:
            self._leave()

    def close(self):
        """Waits for queued work and the calls in progress, then frees the
        client; its tensors, programs, streams and events become unusable
        (UsageError)."""
        if getattr(self, "_h", None) is None:
            return
        with self._cv:
            h, self._h = self._h, None
            while self._busy:
                self._cv.wait()
        if self._pid == os.getpid():
            lib.tpu_client_destroy(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    @property
    def chips(self):
        return self._call(lib.tpu_client_chips)

    @property
    def mode(self):
        return _MODE_NAMES[self._call(lib.tpu_client_mode)]

    @mode.setter
    def mode(self, name):
        if name not in MODES:
            raise UsageError(f"tpurun: mode {name!r} is not one of {sorted(MODES)}")
        _check(self._call(lib.tpu_client_set_mode, MODES[name]))

    def tensor(self, array, type=None, chip=0):
        """A tensor holding a copy of array (anything np.asarray takes).
        type: the tensor type string when the NumPy dtype does not say it
        (e.g. "4xbf16" from float32 values or uint16 storage)."""
        a = np.asarray(array)
        if type is None:
            if a.dtype not in _NP_TO_ELEM:
                raise UsageError(f"tpurun: NumPy dtype {a.dtype} has no StableHLO element type; "
                                 f"supported: {sorted(str(d) for d in _NP_TO_ELEM)}")
            type = tensor_type(a.shape, _NP_TO_ELEM[a.dtype])
        else:
            type = _text(type, "type", optional=False).decode()
            shape, elem = parse_type(type)
            if elem == "bf16" and a.dtype != np.uint16:
                a = bf16_from_f32(a.astype(np.float32))
            elif elem in _ELEM_TO_NP and a.dtype != _ELEM_TO_NP[elem]:
                a = a.astype(_ELEM_TO_NP[elem])
        a = np.ascontiguousarray(a)
        h = ctypes.c_void_p()
        _check(self._call(lib.tpu_tensor_from_host_on, int(chip), type.encode(), a.ctypes.data_as(ctypes.c_void_p),
                          a.nbytes, ctypes.byref(h)))
        return Tensor._wrap(self, h.value)

    def op(self, name, operands=(), attrs=None, result_types=None, n_results=None, stream=None):
        """Runs (or queues, or defers: the mode decides) one StableHLO/CHLO op.
        Returns one Tensor, or a list when n_results (or len(result_types)) > 1."""
        if stream is not None and not isinstance(stream, Stream):
            raise TypeError(f"tpurun: stream must be a tpurun.Stream, not {type(stream).__name__}")
        return _run_op(self, stream, name, operands, attrs, result_types, n_results)

    def sync(self):
        """Every queued op done; the first error of any raised."""
        _check(self._call(lib.tpu_sync))

    def compile(self, program):
        """A Program from StableHLO text (str) or a portable artifact (bytes)."""
        if isinstance(program, str):
            data = program.encode()
        elif isinstance(program, (bytes, bytearray, memoryview)):
            data = bytes(program)
        else:
            raise TypeError(f"tpurun: compile takes StableHLO text (str) or an artifact (bytes), "
                            f"not {type(program).__name__}")
        h = ctypes.c_void_p()
        _check(self._call(lib.tpu_program_compile, data, len(data), ctypes.byref(h)))
        return Program(self, h.value)

    def stream(self, chip=0):
        """A new in-order queue of ops on chip."""
        h = ctypes.c_void_p()
        _check(self._call(lib.tpu_stream_create, int(chip), ctypes.byref(h)))
        return Stream(self, h.value)

    def metrics(self):
        """The client's counters (tpu_metrics_json) as a dict."""
        h = self._enter()
        try:
            need = lib.tpu_metrics_json(h, None, 0)
            buf = ctypes.create_string_buffer(need)
            lib.tpu_metrics_json(h, buf, need)
        finally:
            self._leave()
        return json.loads(buf.value.decode())


def _run_op(client, stream, name, operands, attrs, result_types, n_results):
    """tpu_op (or tpu_stream_op on stream): the new Tensor, or a list of n_results."""
    if n_results is None:
        n_results = len(result_types) if result_types is not None else 1
    if result_types is not None and len(result_types) != n_results:
        raise UsageError(f"tpurun: {n_results} results but {len(result_types)} result types")
    for t in operands:
        if not isinstance(t, Tensor):
            raise TypeError(f"tpurun: an operand must be a tpurun.Tensor (Client.tensor makes one from an "
                            f"array), not {type(t).__name__}")
    if not isinstance(name, (str, bytes)) or not isinstance(attrs, (str, bytes, type(None))):
        raise TypeError("tpurun: the op name must be a str and attrs a str or None")
    n, a, types = _encode(name), _encode(attrs), _types_array(result_types)
    outs = (ctypes.c_void_p * max(n_results, 1))()
    h = client._enter()
    try:
        ops = _ptr_array([t._handle() for t in operands])
        if stream is None:
            rc = lib.tpu_op(h, n, a, ops, len(operands), types, outs, n_results)
        else:
            rc = lib.tpu_stream_op(stream._handle(), n, a, ops, len(operands), types, outs, n_results)
    finally:
        client._leave()
    _check(rc)
    res = [Tensor._wrap(client, outs[i]) for i in range(n_results)]
    return res[0] if n_results == 1 else res


class _Owned(_NotCopyable):
    """A handle of one of a client's C objects, released once: by release(),
    at garbage collection, or never once its client is closed (closing
    frees everything the client made)."""
    __slots__ = ("_client", "_h")
    _KIND = "object"
    _RELEASE = None  # the lib function that frees the handle

    def __init__(self, client, handle):
        self._client, self._h = client, handle

    def _handle(self):
        if self._h is None or self._client._h is None:
            state = "was released" if self._h is None else "belongs to a closed client"
            raise UsageError(f"tpurun: the {self._KIND} {state}")
        return self._h

    def _call(self, fn, *args):
        """fn(handle, *args) with the client held open."""
        self._client._enter()
        try:
            return fn(self._handle(), *args)
        finally:
            self._client._leave()

    def _drop(self):
        h, self._h = getattr(self, "_h", None), None
        if h is None:
            return
        try:
            self._client._enter()
        except TpuError:
            return  # closed (freed with the client) or another process's
        try:
            getattr(lib, self._RELEASE)(h)
        finally:
            self._client._leave()

    def release(self):
        """Frees the C object now rather than at garbage collection."""
        self._drop()

    def __del__(self):
        try:
            self._drop()
        except Exception:
            pass


class Tensor(_Owned):
    """A libtpurun tensor (TpuTensor): ref-counted, maybe not yet computed."""
    __slots__ = ("_type",)
    _KIND, _RELEASE = "tensor", "tpu_tensor_release"

    @classmethod
    def _wrap(cls, client, handle):
        t = cls(client, handle)
        t._type = None
        return t

    @property
    def type(self):
        """The type string, e.g. "2x3xf32"."""
        if self._type is None:
            self._type = self._call(lib.tpu_tensor_type).decode()
        return self._type

    @property
    def shape(self):
        return parse_type(self.type)[0]

    @property
    def element_type(self):
        return parse_type(self.type)[1]

    @property
    def nbytes(self):
        return self._call(lib.tpu_tensor_bytes)

    @property
    def chip(self):
        return self._call(lib.tpu_tensor_chip)

    def numpy(self, raw=False):
        """The values as a new NumPy array (waits for them).  bf16 comes back
        as float32 unless raw=True (the uint16 storage)."""
        shape, elem = self.shape, self.element_type
        dt = _ELEM_TO_NP.get(elem)
        if dt is None:
            raise UsageError(f"tpurun: element type {elem} has no NumPy dtype")
        out = np.empty(shape, dtype=dt)
        _check(self._call(lib.tpu_tensor_to_host, out.ctypes.data_as(ctypes.c_void_p), out.nbytes))
        if elem == "bf16" and not raw:
            return f32_from_bf16(out)
        return out

    def to_chip(self, chip):
        """A copy on another chip of the same client."""
        h = ctypes.c_void_p()
        _check(self._call(lib.tpu_tensor_to_chip, int(chip), ctypes.byref(h)))
        return Tensor._wrap(self._client, h.value)

    def __repr__(self):
        state = "released" if self._h is None else self.type
        return f"tpurun.Tensor({state})"


class Program(_Owned):
    """A compiled whole program (TpuProgram)."""
    __slots__ = ()
    _KIND, _RELEASE = "program", "tpu_program_release"

    def signature(self, function=None):
        """(number of parameters, number of results) of function (None: main)."""
        n_p, n_r = ctypes.c_int(), ctypes.c_int()
        _check(self._call(lib.tpu_program_signature, _text(function, "function"), ctypes.byref(n_p),
                          ctypes.byref(n_r)))
        return n_p.value, n_r.value

    def run(self, *args, function=None):
        """Runs function (None: main) on Tensors or arrays (copied in); returns the list of results."""
        n_params, n_results = self.signature(function)
        if len(args) != n_params:
            raise UsageError(f"tpurun: {function or 'main'} takes {n_params} arguments, {len(args)} given")
        tensors = [a if isinstance(a, Tensor) else self._client.tensor(a) for a in args]
        outs = (ctypes.c_void_p * max(n_results, 1))()
        self._client._enter()
        try:
            rc = lib.tpu_program_run(self._handle(), _text(function, "function"),
                                     _ptr_array([t._handle() for t in tensors]), len(tensors), outs, n_results)
        finally:
            self._client._leave()
        _check(rc)
        return [Tensor._wrap(self._client, outs[i]) for i in range(n_results)]

    __call__ = run


class Stream(_Owned):
    """An in-order queue of ops on one chip (TpuStream)."""
    __slots__ = ()
    _KIND, _RELEASE = "stream", "tpu_stream_destroy"

    def close(self):
        """Waits for the queue, then frees the stream."""
        self._drop()

    def op(self, name, operands=(), attrs=None, result_types=None, n_results=None):
        self._handle()
        return _run_op(self._client, self, name, operands, attrs, result_types, n_results)

    def sync(self):
        _check(self._call(lib.tpu_stream_sync))

    def record(self):
        """An Event completing when every op queued so far has."""
        h = ctypes.c_void_p()
        _check(self._call(lib.tpu_event_record, ctypes.byref(h)))
        return Event(self._client, h.value)

    def wait(self, event):
        """Ops queued after this start only once event has completed."""
        if not isinstance(event, Event):
            raise TypeError(f"tpurun: wait takes a tpurun.Event, not {type(event).__name__}")
        self._client._enter()
        try:
            rc = lib.tpu_stream_wait_event(self._handle(), event._handle())
        finally:
            self._client._leave()
        _check(rc)


class Event(_Owned):
    """A point in a stream's queue (TpuEvent)."""
    __slots__ = ()
    _KIND, _RELEASE = "event", "tpu_event_release"

    def sync(self):
        _check(self._call(lib.tpu_event_sync))

    def query(self):
        """True once complete."""
        r = self._call(lib.tpu_event_query)
        if r < 0:
            raise UsageError("tpurun: tpu_event_query refused the event")
        return r == 1
