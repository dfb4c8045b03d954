"""The Python half of the ONNX benchmark page (benchmarks/browser/onnx.html): jaxweb.onnx
running a model jitted on a device, timed as page_timing.py times every jaxweb case.

The page fetches each model's bytes and writes them to /tmp; this module loads them with
jaxweb.onnx, builds the inputs (the same bytes the onnxruntime-web side gets) and times
`jit(model.apply)` with the result waited for each call."""
from __future__ import annotations

import math
import struct
import time

import jaxweb as jax
import jaxweb.numpy as jnp
import jaxweb.onnx
from page_timing import timed  # noqa: F401  (beside this file in the page's /tmp)

_MODELS: dict = {}
_LAST: dict = {}  # (model, device) -> the last call's output (compared without another call)


def input_bytes(kind: str, shape: list) -> bytes:
    """Deterministic inputs: images in [-1, 1), token ids in [1000, 30000) with a mask of ones
    (the last quarter of each odd row padded), as little-endian float32 / int64 bytes."""
    n = math.prod(shape)
    if kind == "images":
        return struct.pack(f"<{n}f", *(math.sin(i * 0.7311) for i in range(n)))
    if kind == "ids":
        return struct.pack(f"<{n}q", *(1000 + (i * 7919) % 29000 for i in range(n)))
    b, t = shape
    return struct.pack(f"<{n}q", *(0 if (r % 2 and c >= t - t // 4) else 1 for r in range(b) for c in range(t)))


def load(name: str, path: str, feeds: dict, device: str) -> None:
    """Load /tmp/<model> and prepare its jitted call on `device` with `feeds`
    ({input name: (kind, shape)})."""
    model = jaxweb.onnx.load(path)
    dev = jax.devices(device)[0]
    with jax.default_device(dev):
        args = {}
        for k, (kind, shape) in feeds.items():
            raw = input_bytes(kind, shape)
            if kind == "images":
                vals = struct.unpack(f"<{len(raw) // 4}f", raw)
                args[k] = jnp.asarray(vals, jnp.float32).reshape(shape)
            else:
                vals = struct.unpack(f"<{len(raw) // 8}q", raw)
                args[k] = jnp.asarray(vals, jnp.int32).reshape(shape)
        params = jax.device_put(model.params, dev)
    fn = jax.jit(lambda p, a: model.apply(p, **a))
    _MODELS[(name, device)] = (fn, params, args, dev)


def first(name: str, device: str) -> float:
    """Seconds of the first call (trace, schedule, codegen, compiles, then the run)."""
    fn, params, args, dev = _MODELS[(name, device)]
    with jax.default_device(dev):
        t0 = time.perf_counter()
        _LAST[(name, device)] = _wait(fn(params, args))
        return time.perf_counter() - t0


def bench(name: str, device: str, reps: int, warm: int = 2) -> list:
    """`reps` timed calls after `warm` warm-up ones (at least WARM_S seconds of them, if any)."""
    fn, params, args, dev = _MODELS[(name, device)]
    with jax.default_device(dev):
        return timed(lambda: _LAST.__setitem__((name, device), _wait(fn(params, args))), reps, warm)


def _wait(out):
    for o in (out if isinstance(out, tuple) else (out,)):
        o.block_until_ready()
    return out


def output_bytes(name: str, device: str) -> bytes:
    """The last call's first output as float32 bytes (the page compares them with onnxruntime-web's)."""
    out = _LAST[(name, device)]
    out = out[0] if isinstance(out, tuple) else out
    return struct.pack(f"<{out.size}f", *out.reshape(-1).tolist())
