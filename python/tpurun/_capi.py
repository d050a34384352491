"""ctypes declarations of libtpurun's C API (runtime/tpurun.h, DESIGN.md §9).

The library is found, in order, at $TPURUN_LIBRARY; beside the package
after `make install` (PREFIX/lib/libtpurun.so, the package being in
PREFIX/lib/pythonX.Y/site-packages, or PREFIX/lib/pythonX.Y/dist-packages
for Debian's python3 under /usr/local);
in the source tree's build directory (python/../build/libtpurun.so, or
$TPURUN_BUILD_DIR); then wherever the dynamic loader finds "libtpurun".
"""
import ctypes
import ctypes.util
import os

c_int, c_size_t, c_char_p, c_void_p, c_uint64 = (ctypes.c_int, ctypes.c_size_t, ctypes.c_char_p,
                                                  ctypes.c_void_p, ctypes.c_uint64)
P = ctypes.POINTER


class ClientOptions(ctypes.Structure):
    """TpuClientOptions, field for field."""
    _fields_ = [("struct_size", c_size_t), ("target", c_char_p), ("chips", c_int), ("mode", c_int),
                ("cache_dir", c_char_p), ("threads", c_int), ("no_disk_cache", c_int), ("no_nan_check", c_int),
                ("opt_level", c_int), ("fused_max_ops", c_int), ("hbm_bytes", c_uint64),
                ("cache_max_bytes", c_uint64)]


def _candidates():
    """The paths to try for libtpurun.so, in the order the module docstring gives."""
    env = os.environ.get("TPURUN_LIBRARY")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    # Installed: PREFIX/lib/python3*/{site,dist}-packages/tpurun -> PREFIX/lib.
    yield os.path.join(here, "..", "..", "..", "libtpurun.so")
    build = os.environ.get("TPURUN_BUILD_DIR")
    if build:
        yield os.path.join(build, "libtpurun.so")
    yield os.path.join(here, "..", "..", "build", "libtpurun.so")
    found = ctypes.util.find_library("tpurun")
    if found:
        yield found


def _load():
    """The first candidate that loads; ImportError naming every path tried."""
    tried = []
    for path in _candidates():
        if os.path.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            return ctypes.CDLL(os.path.normpath(path) if os.path.sep in path else path)
        except OSError as e:
            tried.append(f"{path} ({e})")
    raise ImportError("tpurun: libtpurun.so not found; build it with `make` or set TPURUN_LIBRARY. Tried: "
                      + ", ".join(tried))


lib = _load()

_SIGNATURES = {
    "tpu_version": (c_char_p, []),
    "tpu_client_create": (c_int, [P(ClientOptions), P(c_void_p)]),
    "tpu_client_destroy": (None, [c_void_p]),
    "tpu_error": (c_char_p, [c_void_p]),
    "tpu_client_chips": (c_int, [c_void_p]),
    "tpu_client_mode": (c_int, [c_void_p]),
    "tpu_client_set_mode": (c_int, [c_void_p, c_int]),
    "tpu_tensor_from_host": (c_int, [c_void_p, c_char_p, c_void_p, c_size_t, P(c_void_p)]),
    "tpu_tensor_from_host_on": (c_int, [c_void_p, c_int, c_char_p, c_void_p, c_size_t, P(c_void_p)]),
    "tpu_tensor_to_host": (c_int, [c_void_p, c_void_p, c_size_t]),
    "tpu_tensor_type": (c_char_p, [c_void_p]),
    "tpu_tensor_bytes": (c_size_t, [c_void_p]),
    "tpu_tensor_chip": (c_int, [c_void_p]),
    "tpu_tensor_to_chip": (c_int, [c_void_p, c_int, P(c_void_p)]),
    "tpu_tensor_retain": (None, [c_void_p]),
    "tpu_tensor_release": (None, [c_void_p]),
    "tpu_op": (c_int, [c_void_p, c_char_p, c_char_p, P(c_void_p), c_int, P(c_char_p), P(c_void_p), c_int]),
    "tpu_sync": (c_int, [c_void_p]),
    "tpu_stream_create": (c_int, [c_void_p, c_int, P(c_void_p)]),
    "tpu_stream_destroy": (None, [c_void_p]),
    "tpu_stream_op": (c_int, [c_void_p, c_char_p, c_char_p, P(c_void_p), c_int, P(c_char_p), P(c_void_p),
                              c_int]),
    "tpu_stream_sync": (c_int, [c_void_p]),
    "tpu_event_record": (c_int, [c_void_p, P(c_void_p)]),
    "tpu_stream_wait_event": (c_int, [c_void_p, c_void_p]),
    "tpu_event_sync": (c_int, [c_void_p]),
    "tpu_event_query": (c_int, [c_void_p]),
    "tpu_event_release": (None, [c_void_p]),
    "tpu_program_compile": (c_int, [c_void_p, c_char_p, c_size_t, P(c_void_p)]),
    "tpu_program_run": (c_int, [c_void_p, c_char_p, P(c_void_p), c_int, P(c_void_p), c_int]),
    "tpu_program_signature": (c_int, [c_void_p, c_char_p, P(c_int), P(c_int)]),
    "tpu_program_release": (None, [c_void_p]),
    "tpu_metrics_json": (c_int, [c_void_p, c_char_p, c_size_t]),
}

for _name, (_res, _args) in _SIGNATURES.items():
    _fn = getattr(lib, _name)
    _fn.restype, _fn.argtypes = _res, _args
