# Python side of the GPU benchmark page (webgpu.mjs loads it into Pyodide): the webgpu
# device, or the one `use(name)` picks (webgl: bench_webgl_browser.py).
# Each case returns per-run seconds as a user sees them (the result waited for), after
# warm-up calls that compiled everything. Inputs are deterministic; jax-js gets the same bytes.

import jaxweb as jax
import jaxweb.numpy as jnp

import mlp_bench as mlp
from page_timing import det, timed

_dev = None
HYPOT_N = 1 << 20
_state = {}


def use(name):
    """Benchmark device `name` (before any other call)."""
    global _dev
    _dev = jax.devices(name)[0]


def _det(shape, seed, scale=1.0):
    return det(_dev, shape, seed, scale)


def _inputs(n=None):
    if "x" not in _state:
        _state.update(mlp.inputs(_dev))
    if "h1" not in _state:
        _state.update(h1=_det((HYPOT_N,), 40, 3.0), h2=_det((HYPOT_N,), 41, 3.0))
    if n is not None and ("a", n) not in _state:
        _state["a", n], _state["b", n] = _det((n, n), 30, 0.1), _det((n, n), 31, 0.1)
    return _state


_jmm = jax.jit(lambda a, b: a @ b)
_jhypot = jax.jit(jnp.hypot)


def bench(case, n, reps):
    s = _inputs(n or None)
    with jax.default_device(_dev):
        if case == "matmul":
            return timed(lambda: _jmm(s["a", n], s["b", n]).block_until_ready(), reps)
        if case == "hypot":
            return timed(lambda: _jhypot(s["h1"], s["h2"]).block_until_ready(), reps)
        if case == "mnist_jit":
            return timed(mlp.trainer(mlp.jstep, _dev, s), reps)
    raise ValueError(case)


def input_bytes(name, n=0):
    """An input's bytes: params.i.j, x, y, a, b (n x n), h1, h2 (hypot's)."""
    s = _inputs(n or None)
    arr = s[name, n] if name in ("a", "b") else mlp.input_array(s, name)
    return bytes(arr.contiguous_buffer().read())


def check_matmul(n):
    """max |jaxweb - reference| of one product (float64 sums on the host, no numpy here)."""
    s = _inputs(n)
    with jax.default_device(_dev):
        c = _jmm(s["a", n], s["b", n])
        row = c[n // 3].tolist()
        a = s["a", n][n // 3].tolist()
        bt = s["b", n].T.tolist()
    return max(abs(row[j] - sum(x * y for x, y in zip(a, bt[j]))) for j in range(0, n, max(1, n // 16)))


def mnist_losses(steps):
    """The losses of `steps` jitted training steps from the initial parameters (cross-check)."""
    return mlp.losses(_dev, _inputs(), steps)


def adapter():
    info = dict(_dev.backend.rt.info)
    info.setdefault("architecture", "")
    info.setdefault("description", info.get("renderer", ""))
    return dict(info, tiling=repr(getattr(_dev.backend, "tiling", "webgl texel GEMM")))
