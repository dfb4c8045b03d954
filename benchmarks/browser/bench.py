# Python side of the browser benchmark: runs inside Pyodide (bench.mjs loads it).
# Times what a user would run: the op, then .block_until_ready(), after a first
# call that compiled the kernel(s). Returns per-run seconds.
import time

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb import lax

_dev = jax.devices("wasm")[0]
WARM_S = 0.25  # warm-up per round: at least this long (and `warm` calls), as for jax-js
_data = {}
_chain = jax.jit(lambda x: jnp.tanh(x * 1.5 + 0.5) * 2.0)


def _rand(shape, seed):
    n = 1
    for d in shape:
        n *= d
    with jax.default_device(_dev):
        return jnp.sin(jnp.arange(n, dtype=jnp.float32) * (0.7 + seed)).reshape(shape).block_until_ready()


def _fn(op, n):
    key = (op, n)
    if key not in _data:
        if op == "matmul":
            _data[key] = (_rand((n, n), 0), _rand((n, n), 1))
        elif op == "conv":
            _data[key] = (_rand((1, 64, 56, 56), 0), _rand((64, 64, 3, 3), 1))
        else:
            _data[key] = (_rand((n,), 0),)
    a = _data[key]
    return {
        "matmul": lambda: a[0] @ a[1],
        "conv": lambda: lax.conv_general_dilated(a[0], a[1], (1, 1), "SAME"),
        "chain": lambda: _chain(a[0]),
        "sum": lambda: jnp.sum(a[0]),
        "copy": lambda: -a[0],
    }[op]


def bench(op, n, reps, warm=2):
    fn = _fn(op, n)
    with jax.default_device(_dev):
        t0, done = time.perf_counter(), 0
        while done < warm or time.perf_counter() - t0 < WARM_S:  # engines tier up hot code late
            fn().block_until_ready()
            done += 1
        ts = []
        for _ in range(reps):
            t = time.perf_counter()
            fn().block_until_ready()
            ts.append(time.perf_counter() - t)
    return ts


def info():
    be = _dev.backend if hasattr(_dev, "backend") else None
    rt = getattr(be, "rt", None)
    return {"workers": getattr(rt, "workers", None), "features": sorted(getattr(be, "features", ()))}


def diag(n=256, reps=20):
    """Where the time of one n x n matmul goes (for tuning): whole op, tiny op, kernel alone."""
    be = _dev.backend
    out = {}
    med = lambda ts: sorted(ts)[len(ts) // 2] * 1e3  # noqa: E731
    out["op_ms"] = med(bench("matmul", n, reps))
    out["op16_ms"] = med(bench("matmul", 16, reps))
    a, b = _data[("matmul", n)]
    progs = [p for p in be._programs.values() if getattr(p, "mm", None) is not None and p.rows == n]
    p = progs[-1]
    from jaxweb._src.dispatch import contiguous_buffer
    h_out = be.alloc(n * n * 4)
    ha, hb = contiguous_buffer(a).handle, contiguous_buffer(b).handle
    ins = [ha, hb] if p.mm.a_slot == 0 else [hb, ha]

    def t(fn):
        fn()
        ts = []
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t0)
        return med(ts)
    out["execute_ms"] = t(lambda: be.execute(p, h_out, ins))
    out["one_thread_ms"] = t(lambda: be.rt.call(p.handle, (0, n, h_out, *ins)))
    out["split_ms"] = t(lambda: be.rt.call_split(p.handle, n, (h_out, *ins)))
    out["empty_split_ms"] = t(lambda: be.rt.call_split(p.handle, 2, (h_out, *ins)))
    from pyodide.ffi import to_js
    import array
    sh = be.rt._shim
    inst = be.rt._instances[p.handle]
    out["worker_only_ms"] = t(lambda: sh.callSplit(inst, to_js(array.array("i", [0, 0, n])), h_out, *ins))
    out["main_half_ms"] = t(lambda: sh.callSplit(inst, to_js(array.array("i", [0, n // 2, n // 2])), h_out, *ins))
    out["worker_half_ms"] = t(lambda: sh.callSplit(inst, to_js(array.array("i", [0, 0, n // 2])), h_out, *ins))
    import cProfile, io, pstats
    fn = _fn("matmul", n)
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(50):
        fn().block_until_ready()
    pr.disable()
    buf = io.StringIO()
    pstats.Stats(pr, stream=buf).sort_stats("tottime").print_stats(25)
    out["profile"] = buf.getvalue()
    out["op_again_ms"] = med(bench("matmul", n, reps))
    out["conv_op_ms"] = med(bench("conv", 0, reps))
    cp = [q for q in be._programs.values() if getattr(q, "mode", None) == "conv"][-1]
    x, w = _data[("conv", 0)]
    cins = [contiguous_buffer(x).handle, contiguous_buffer(w).handle]
    if cp.mm.x_slot == 1:
        cins = cins[::-1]
    c_out, staged = be.alloc(4 * 64 * 56 * 56), be.alloc(cp.pack.size * 4)
    out["conv_pad_ms"] = t(lambda: be.execute(cp.pack, staged, cins))
    out["conv_pad_mode"] = cp.pack.mode
    out["conv_compute_ms"] = t(lambda: be._split(cp, (c_out, cins[cp.mm.w_slot], staged)))
    be.free(c_out)
    be.free(staged)
    out["mode"] = p.mode
    out["packed"] = p.pack is not None
    out["workers"] = be.rt.workers
    be.free(h_out)
    return out


def result_bytes(op, n):
    """The op's result as raw little-endian bytes (checked against jax-js in the page)."""
    from jaxweb._src.dispatch import contiguous_buffer
    with jax.default_device(_dev):
        return bytes(contiguous_buffer(_fn(op, n)().block_until_ready()).read())


def input_bytes(op, n, i):
    """Input i of a case as raw bytes: jax-js gets exactly the same data."""
    from jaxweb._src.dispatch import contiguous_buffer
    _fn(op, n)
    return bytes(contiguous_buffer(_data[(op, n)][i]).read())
