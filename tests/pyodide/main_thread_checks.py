"""Linear algebra and control flow with Python on a page's main thread, the wasm thread
pool on (tests/test_main_thread_page.py loads this into main_thread.html). No numpy:
results are checked by residuals computed in Python. Returns JSON [[name, ok, detail]].

The batched cases are big enough that their kernels are split over the pool (counted);
the last check terminates a worker, so a stalled pool must raise (naming the kernel)
instead of hanging the page, and the device must keep working afterwards."""
import json
import math
import time
import traceback

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb import lax
from jaxweb._src import host

DEV = jax.devices("wasm")[0]
RT = DEV.backend.rt
SPLITS = [0, False]  # split launches, counting installed


def _count_splits():
    split = RT.call_split

    def counted(*a, **k):
        SPLITS[0] += 1
        return split(*a, **k)
    RT.call_split = counted
    SPLITS[1] = True


def spd(n, batch=()):
    x = jnp.sin(jnp.arange(math.prod(batch) * n * n, dtype=jnp.float32) * 0.7).reshape(*batch, n, n)
    return x @ jnp.swapaxes(x, -1, -2) / n + jnp.eye(n, dtype=jnp.float32)


def rel(a, b):
    """max |a - b| / max |b| over all elements."""
    return float(jnp.max(jnp.abs(a - b)) / jnp.max(jnp.abs(b)))


def check_solve_8():
    """Eager, then jitted twice (the benchmark page froze after its first jitted call)."""
    a, b = spd(8), jnp.cos(jnp.arange(8, dtype=jnp.float32) * 0.3)
    f = jax.jit(jnp.linalg.solve)
    rs = [rel(a @ x, b) for x in (jnp.linalg.solve(a, b), f(a, b), f(a, b))]
    return max(rs) < 1e-4, "residuals " + ", ".join(f"{r:.1e}" for r in rs)


def check_solve_100_cost_analysis():
    """The freeze itself: `cost_analysis()` of a jitted solve walked nested reductions
    exponentially."""
    n = 100
    a, b = spd(n), jnp.ones((n, 1), jnp.float32)
    f = jax.jit(jnp.linalg.solve)
    r = rel(a @ f(a, b), b)
    c = f.lower(a, b).compile().cost_analysis()
    return r < 1e-4 and c["kernels"] >= 4, f"residual {r:.1e}, {c['kernels']:.0f} kernels"  # wasm: lu, 2 solves


def check_batched():
    a = spd(16, (1024,))  # 1024 x 16 x 16: kernels of 2^18..2^22 element-steps
    before = SPLITS[0]
    l = jnp.linalg.cholesky(a)
    r1 = rel(l @ jnp.swapaxes(l, -1, -2), a)
    x = jnp.linalg.solve(a, jnp.ones((1024, 16, 1), jnp.float32))
    r2 = rel(a @ x, jnp.ones((1024, 16, 1), jnp.float32))
    return r1 < 1e-5 and r2 < 1e-4 and SPLITS[0] > before, \
        f"cholesky {r1:.1e}, solve {r2:.1e}, {SPLITS[0] - before} split launches"


def check_qr_eigh():
    a = spd(12)
    q, r = jnp.linalg.qr(a)
    w, v = jnp.linalg.eigh(a)
    e1, e2 = rel(q @ r, a), rel((a @ v), v * w)
    return e1 < 1e-5 and e2 < 1e-4, f"qr {e1:.1e}, eigh {e2:.1e}"


def check_while_loop():
    x = jnp.ones((1 << 21,), jnp.float32)  # the body's kernels are split over the pool
    before = SPLITS[0]
    i, y = jax.jit(lambda x: lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * 2.0),
                                            (0, x)))(x)
    s = float(jnp.sum(y))
    return int(i) == 5 and s == 32.0 * (1 << 21) and SPLITS[0] > before, \
        f"i={int(i)}, sum={s}, {SPLITS[0] - before} split launches"


def check_stalled_pool_raises():
    """A terminated worker never finishes its chunk: the launch raises within the stall
    bound, the error names the kernel, and later work runs on this thread."""
    shim = host.shim().wasm
    old = shim.setStallMs(1500)
    try:
        x = jnp.arange(1 << 21, dtype=jnp.float32).block_until_ready()
        (x * 3.0 + 1.0).block_until_ready()  # its module is loaded in every worker now
        shim.poolTerminateWorker(0)
        t = time.perf_counter()
        try:
            (x * 3.0 + 1.0).block_until_ready()
            return False, "no error"
        except Exception as e:
            took = time.perf_counter() - t
            text = "".join(traceback.format_exception_only(e))
            named = "did not finish" in text and "while running kernel '" in text
        after = float(jnp.max(x * 2.0))  # split-sized: now run whole on this thread
        want = 2.0 * ((1 << 21) - 1)
        return named and took < 30 and after == want, f"{took:.1f} s: {text.strip()[-300:]}; after: {after}"
    finally:
        shim.setStallMs(old)


CHECKS = [
    ("solve_8", check_solve_8),
    ("solve_100_cost_analysis", check_solve_100_cost_analysis),
    ("batched_cholesky_solve_split", check_batched),
    ("qr_eigh", check_qr_eigh),
    ("while_loop_split", check_while_loop),
    ("stalled_pool_raises", check_stalled_pool_raises),  # last: it retires the pool
]


def names() -> str:
    return json.dumps([name for name, _ in CHECKS])


def run_one(name: str) -> str:
    """[name, ok, detail] of one check, as JSON."""
    if not SPLITS[1]:
        _count_splits()
    t = time.perf_counter()
    try:
        with jax.default_device(DEV):
            ok, detail = dict(CHECKS)[name]()
    except Exception as e:
        ok, detail = False, "".join(traceback.format_exception(e))[-1500:]
    return json.dumps([name, bool(ok), f"{detail} ({time.perf_counter() - t:.1f} s)"])
