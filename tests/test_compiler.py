"""The compiler: fusion decisions (kernel counts), values against eager execution and
numpy on every device, linear-time lowering, memory planning, donation, inspection."""
import logging
import time

import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb import lax
from jaxweb._src import device as _device
from jaxweb._src.compiler import graph
from jaxweb._src.compiler.memory import live_bytes
from jaxweb._src.compiler.schedule import schedule
from jaxweb._src.device import default_device

from kernel_count import count_kernels

pytestmark = pytest.mark.on_every_device  # see conftest.py
rng = np.random.default_rng(0)


def randn(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def compiled(f, *args):
    return jax.jit(f).lower(*args).compile()


def fused_kernels(f, *args) -> int:
    """Kernels the scheduler made (before a backend's routines expand them)."""
    return len(compiled(f, *args)._exe.schedule.kernels)


def close(got, want, tol=2e-5):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=tol, atol=tol)


def softmax(x):
    e = jnp.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def layer_norm(x, g, b):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) * lax.rsqrt(var + 1e-5) * g + b


def adam(params, grads, m, v, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    m = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, m, grads)
    v = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, v, grads)
    params = jax.tree.map(lambda p, m, v: p - lr * m / (jnp.sqrt(v) + eps), params, m, v)
    return params, m, v


def test_hypot_is_one_kernel():
    x, y = randn(1000), randn(1000)
    f = lambda x, y: jnp.sqrt(x ** 2 + y ** 2)
    assert fused_kernels(f, x, y) == 1
    close(jax.jit(f)(x, y), np.hypot(x, y))


def test_dense_relu_is_one_kernel():
    x, w, b = randn(32, 48), randn(48, 40), randn(40)
    f = lambda x, w, b: jnp.maximum(x @ w + b, 0)
    assert fused_kernels(f, x, w, b) == 1
    close(jax.jit(f)(x, w, b), np.maximum(x @ w + b, 0), 1e-4)


def _nests_reductions() -> bool:
    """Whether the default device's code generator computes a reduction inside another
    kernel's loops (webgpu's does not: a softmax's max and sum are kernels of their own)."""
    return _device.default_device().backend.capabilities.nested_reduce


def test_softmax_and_layer_norm_take_at_most_two_kernels():
    x, g, b = randn(64, 33), randn(33), randn(33)
    limit = 2 if _nests_reductions() else 3
    assert fused_kernels(softmax, x) <= limit
    assert fused_kernels(layer_norm, x, g, b) <= limit
    e = np.exp(x - x.max(-1, keepdims=True))
    close(jax.jit(softmax)(x), e / e.sum(-1, keepdims=True))
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    close(jax.jit(layer_norm)(x, g, b), (x - mu) / np.sqrt(var + 1e-5) * g + b, 1e-4)


def test_large_softmax_computes_its_exp_once_where_the_backend_shares_it():
    """Attention's softmax: exp(x - max) is summed by one kernel and divided by another. Where
    the backend says a transcendental costs more than its round trip (wasm), a large one is
    computed once into a buffer; a small one (an MLP's 10-class softmax) stays recomputed."""
    from jaxweb._src.compiler import expr as E
    from jaxweb._src.compiler.schedule import SHARED_MIN_SIZE

    def exps(x):  # exp nodes over the kernels: one per place an element's exp is computed
        ks = compiled(softmax, x)._exe.schedule.kernels
        return sum(e.op == "exp" for k in ks for e in E.walk_all(k.outs + ((k.body,) if k.reduce_op else ())))
    big, small = randn(4, 128, SHARED_MIN_SIZE // 512), randn(64, 10)
    share = default_device().backend.capabilities.share_transcendentals
    assert exps(big) == (1 if share else 2)
    assert exps(small) == 2
    for x in (big, small):
        e = np.exp(x - x.max(-1, keepdims=True))
        close(jax.jit(softmax)(x), e / e.sum(-1, keepdims=True))


def test_adam_update_is_one_multi_output_kernel_per_leaf():
    params = {"w": randn(20, 30), "b": randn(30), "c": randn(3, 4, 5)}
    grads = jax.tree.map(lambda p: p * 0.5 + 1, params)
    m = jax.tree.map(lambda p: p * 0.1, params)
    v = jax.tree.map(lambda p: np.abs(p) * 0.01, params)
    sched = compiled(adam, params, grads, m, v)._exe.schedule
    assert len(sched.kernels) == 3 and all(len(k.outs) == 3 for k in sched.kernels)
    got = jax.jit(adam)(params, grads, m, v)
    with jax.disable_jit():
        want = adam(params, grads, m, v)
    for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
        close(a, b)


def _mlp_step(params, x, labels, lr=0.1):
    def loss(params):
        h = x
        for w, b in params[:-1]:
            h = jnp.maximum(h @ w + b, 0)
        w, b = params[-1]
        logits = h @ w + b
        logp = logits - jnp.log(jnp.exp(logits - logits.max(-1, keepdims=True)).sum(-1, keepdims=True)) \
            - logits.max(-1, keepdims=True)
        return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=1))
    value, grads = jax.value_and_grad(loss)(params)
    return value, jax.tree.map(lambda p, g: p - lr * g, params, grads)


def test_mnist_mlp_training_step_kernel_count():
    sizes = [784, 256, 128, 10]
    params = [(randn(m, n) * 0.05, np.zeros(n, np.float32)) for m, n in zip(sizes[:-1], sizes[1:])]
    x, labels = randn(8, 784), rng.integers(0, 10, 8).astype(np.int32)
    sched = compiled(_mlp_step, params, x, labels)._exe.schedule
    # forward: 3 dense layers; loss: log-softmax + mean; backward: 2 masked matmuls per layer
    # plus bias sums; SGD updates fused into the kernels producing the gradients where possible
    # (webgpu: 3 more, the log-softmax's and bias sums' reductions as kernels of their own)
    assert len(sched.kernels) <= (16 if _nests_reductions() else 19), [k.name for k in sched.kernels]
    value, new = jax.jit(_mlp_step)(params, x, labels)
    with jax.disable_jit():
        want_value, want = _mlp_step(params, x, labels)
    close(value, want_value, 1e-4)
    for a, b in zip(jax.tree.leaves(new), jax.tree.leaves(want)):
        close(a, b, 1e-4)


def test_eager_ops_fuse_until_observed():
    x = jnp.asarray(np.arange(100, dtype=np.float32))
    with count_kernels() as ks:
        y = x
        for _ in range(100):
            y = y + 1
        v = np.asarray(y)
    assert len(ks) == 1
    np.testing.assert_array_equal(v, np.arange(100) + 100)


def test_repeated_eager_flushes_reuse_their_schedule(monkeypatch):
    """A training loop's eager step is the same graph on new buffers each time: the second
    flush is a template hit (no scheduling), binds the new buffers, and keeps constants,
    leaf aliasing and output order apart."""
    from jaxweb._src import execution
    calls = []
    real = execution.schedule
    monkeypatch.setattr(execution, "schedule", lambda *a, **k: calls.append(1) or real(*a, **k))

    def step(a, b, c):
        return np.asarray(jnp.tanh(a * 2.0 + b) - c.sum())

    rng = np.random.default_rng(0)
    args = [rng.normal(size=(8, 16)).astype(np.float32), rng.normal(size=(8, 16)).astype(np.float32),
            rng.normal(size=(5,)).astype(np.float32)]
    want = lambda a, b, c: np.tanh(a * 2 + b) - c.sum()  # noqa: E731
    step(*map(jnp.asarray, args))
    n = len(calls)
    for _ in range(3):
        args = [a + 1 for a in args]
        got = step(*map(jnp.asarray, args))
        np.testing.assert_allclose(got, want(*args), rtol=1e-5, atol=1e-5)
    assert len(calls) == n, "a repeated eager step was scheduled again"
    a = jnp.asarray(args[0])
    np.testing.assert_allclose(step(a, a, jnp.asarray(args[2])), want(args[0], args[0], args[2]), rtol=1e-5, atol=1e-5)
    assert len(calls) == n + 1, "one buffer read twice is a different program from two buffers"
    x = jnp.asarray(args[0])
    for c in (3.0, 4.0, -0.0, 0.0):
        np.testing.assert_array_equal(np.asarray(x * c), args[0] * np.float32(c))
        assert str(np.asarray(x * c)[0, 0]) == str(args[0][0, 0] * np.float32(c))


def test_reused_eager_schedules_hold_no_buffers():
    """The flush template cache keeps programs, not the arrays its first flush read."""
    import gc
    dev = default_device()
    big = np.arange(1 << 18, dtype=np.float32)
    gc.collect()
    before = dev.memory_stats()["bytes_in_use"]
    for _ in range(2):  # a new graph (its template made), then a cache hit
        x = jnp.asarray(big)
        np.testing.assert_allclose(np.asarray(jnp.sqrt(x * 3.0 + 0.375)), np.sqrt(big * 3 + 0.375), rtol=1e-6)
        del x
    gc.collect()
    assert dev.memory_stats()["bytes_in_use"] == before


def test_shared_reduction_is_computed_once():
    """A row sum used by two kernels of different shapes is its own kernel, not recomputed."""
    # rows summing far from 0 (x / s is ill-conditioned where a row of normal draws sums near 0:
    # which draws this test gets depends on the tests run before it in its process)
    x = np.abs(randn(30, 40)) + 0.5

    def f(x):
        s = x.sum(1)
        return x / s[:, None], s[None, :] * jnp.ones((5, 1))
    ks = compiled(f, x)._exe.schedule.kernels
    from kernel_count import reduction_extents
    assert sum(len(reduction_extents(k)) for k in ks) == 1
    a, b = jax.jit(f)(x)
    close(a, x / x.sum(1)[:, None])
    close(b, np.broadcast_to(x.sum(1), (5, 30)), 1e-4)


def test_deep_graphs_lower_in_linear_time(capped):
    """s = sin(s) + cos(s) shares s twice per step: a tree would double per step; the graph
    and the kernel's text grow linearly (lowering alone: no kernel-size cap)."""
    capped(None)
    def chain(n):
        def f(s):
            for _ in range(n):
                s = jnp.sin(s) + jnp.cos(s)
            return s
        return f
    x = randn(16)
    k16 = compiled(chain(16), x)._exe.schedule.kernels
    k32 = compiled(chain(32), x)._exe.schedule.kernels
    assert len(k16) == len(k32) == 1
    assert len(k32[0].key) < 2.2 * len(k16[0].key)
    deep = chain(100)
    close(jax.jit(deep)(x), _np_chain(x, 100), 1e-4)


def _np_chain(x, n):
    s = x.astype(np.float64)
    for _ in range(n):
        s = np.sin(s) + np.cos(s)
    return s


def test_a_thousand_op_chain_schedules_without_recursion_limits():
    x = jnp.asarray(randn(8))
    y = x
    for _ in range(1000):
        y = y * 1.0001
    close(y, np.asarray(x) * 1.0001 ** 1000, 1e-3)


def test_jitted_20_layer_mlp_peak_memory_is_close_to_its_largest_live_set():
    ws = [randn(64, 64) * 0.1 for _ in range(20)]
    x = randn(256, 64)

    def f(ws, x):
        for w in ws:
            x = jnp.tanh(x @ w)
        return x.sum()
    c = compiled(f, ws, x)
    live = live_bytes(c._exe.schedule)
    dev = default_device()
    args = [jnp.asarray(w) for w in ws], jnp.asarray(x)
    jax.block_until_ready(args)
    before = dev.memory_stats()
    c(*args).block_until_ready()
    after = dev.memory_stats()
    if "peak_bytes_in_use" in after and after["peak_bytes_in_use"] > before["peak_bytes_in_use"]:
        assert after["peak_bytes_in_use"] - before["bytes_in_use"] <= 1.5 * live + 4096
    assert live <= 3 * 256 * 64 * 4  # never more than a few activations at once


def test_donated_arguments_are_reused_and_deleted():
    p, g = jnp.asarray(randn(1000)), jnp.asarray(randn(1000))
    step = jax.jit(lambda p, g: p - 0.5 * g, donate_argnums=0)
    want = np.asarray(p) - 0.5 * np.asarray(g)
    q = step(p, g)
    close(q, want)
    assert p.is_deleted()
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        p + 1
    exe = next(iter(jax._src.executable._CACHE[step.trace(q, g)].values()))
    assert exe.schedule.reused


@pytest.mark.parametrize("where", ["cpu", "wasm"])
def test_donation_never_overwrites_another_arrays_value(where, monkeypatch):
    """Equal values share storage (copies, views, arrays realized from one lazy value): a
    donated buffer that another array reads is copied first, as JAX's copies are separate; a
    buffer only the donated array holds is still taken without a copy."""
    from jaxweb._src import executable
    copies = []
    real = executable._copy_buffer
    monkeypatch.setattr(executable, "_copy_buffer", lambda b: copies.append(b) or real(b))
    step = jax.jit(lambda a: a * 2, donate_argnums=0)
    with jax.default_device(jax.devices(where)[0]):
        base = np.arange(6, dtype=np.float32)
        for make in (lambda x: x.copy(), jnp.array, jnp.copy, lambda x: x[::-1], lambda x: x[1:], lambda x: x.reshape(2, 3),
                     lambda x: x + 0):
            x = jnp.arange(6.0)
            y = make(x)
            x.block_until_ready(), y.block_until_ready()
            close(step(x), 2 * base)
            close(y, np.asarray(make(base)))
            assert x.is_deleted() and not y.is_deleted()
        n = len(copies)
        p = jnp.arange(6.0)
        for _ in range(3):  # a training loop hands the step its only reference
            p = step(p)
        close(p, 8 * base)
        assert len(copies) == n
        exe = next(iter(executable._CACHE[step.trace(p)].values()))
        assert exe.schedule.reused


def test_cost_analysis_and_compiled_text():
    x, w = randn(16, 32), randn(32, 8)
    c = compiled(lambda x, w: jnp.tanh(x @ w), x, w)
    cost = c.cost_analysis()
    assert cost["flops"] >= 2 * 16 * 32 * 8 and cost["bytes accessed"] >= (16 * 32 + 32 * 8 + 16 * 8) * 4
    assert cost["kernels"] >= 1 and cost["transcendentals"] >= 16 * 8
    assert "tanh" in c.as_text()
    assert "dot_general" in jax.jit(lambda x, w: jnp.tanh(x @ w)).lower(x, w).as_text()


def test_cost_of_nested_reductions_is_exact_and_walks_each_once():
    """Each reduction's body is walked once: walking through nested bodies from every
    enclosing reduction was exponential in the depth (`cost_analysis()` of a jitted
    40 x 40 `solve` never returned; a page calling it froze)."""
    from jaxweb._src import dtypes
    from jaxweb._src.compiler import expr as E
    from jaxweb._src.compiler.cost import kernel_cost
    from jaxweb._src.compiler.kernel import Kernel
    f32 = dtypes.float32
    g = E.idx("g0", 3)
    v = E.load(0, f32, g)
    depth = 60
    for d in range(depth):  # v <- sum over r_d (extent 2) of (v * x[r_d]) + 1
        r = E.idx(f"r{d}", 2)
        v = E.reduce("add", E.binary("add", E.binary("mul", v, E.load(0, f32, r)), E.const(1.0, f32)), (r,))
    k = Kernel((3,), v, f32, (f32,))
    flops, trans = kernel_cost(k)
    want = 0  # one evaluation: c_d = 2 * (c_{d-1} + 2 + 1), c_0 = 0
    for _ in range(depth):
        want = 2 * (want + 3)
    assert (flops, trans) == (3 * want, 0)


def test_cost_analysis_of_a_jitted_solve_returns():
    n = 40
    x = np.sin(np.arange(n * n, dtype=np.float32) * 0.7).reshape(n, n)
    a, b = x @ x.T / n + np.eye(n, dtype=np.float32), np.ones((n, 1), np.float32)
    cost = compiled(jnp.linalg.solve, a, b).cost_analysis()
    from jaxweb._src.device import default_device
    routines = default_device().backend.capabilities.linalg is not None  # lu + 2 solves, one launch each
    assert cost["kernels"] > (3 if routines else 10) and cost["flops"] >= 2 * n ** 3 / 3


def test_log_compiles_names_the_function(caplog):
    jax.config.update("jax_log_compiles", True)
    try:
        with caplog.at_level(logging.WARNING, logger="jaxweb"):
            def my_function(x):
                return x * 3
            jax.jit(my_function)(randn(7))
    finally:
        jax.config.update("jax_log_compiles", False)
    assert any("Compiling my_function" in r.getMessage() for r in caplog.records)


def test_binding_limit_cuts_wide_kernels():
    from jaxweb._src.compiler.kernel import Capabilities
    xs = [jnp.asarray(randn(4)) for _ in range(20)]
    total = xs[0]
    for x in xs[1:]:
        total = total + x * 2.0
    sched = schedule([total._node], Capabilities(max_buffers=6))
    assert all(len(k.in_dtypes) + len(k.outs) <= 6 for k in sched.kernels)
    close(total, np.asarray(xs[0]) + 2 * sum(np.asarray(x) for x in xs[1:]), 1e-4)


def test_binding_limit_counts_lifted_parameter_blocks():
    """An eager flush lifts runtime scalars into a parameter block, a binding the graph does
    not show: the cuts leave room for it (webgpu's int32 bitwise reductions, 32 bit-plane
    reductions and a block of shift counts, could not be scheduled)."""
    from jaxweb._src.compiler.kernel import Capabilities
    xs = [jnp.asarray(randn(4)) for _ in range(12)]
    total = xs[0]
    for i, x in enumerate(xs[1:]):
        total = total + x * (2.5 + i)
    sched = schedule([total._node], Capabilities(max_buffers=6), lift=True)
    assert all(len(k.in_dtypes) + len(k.outs) <= 6 for k in sched.kernels)
    close(total, np.asarray(xs[0]) + sum((2.5 + i) * np.asarray(x) for i, x in enumerate(xs[1:])), 1e-4)


@pytest.fixture
def capped():
    """Sets the default device's kernel-size cap (`Capabilities.max_kernel_nodes`, nodes counted
    unweighted; None: no cap, also where the device has one: webgl) for a test."""
    import dataclasses
    be = default_device().backend
    saved = be.capabilities
    yield lambda cap: setattr(be, "capabilities", dataclasses.replace(saved, max_kernel_nodes=cap, node_weights=None))
    be.capabilities = saved


def _chain(x, w):
    t = x * x + w  # shared by every step below: cut once, not recomputed per part
    y = x
    for i in range(24):
        y = jnp.tanh(y * t + 0.25 * i) - y * 0.5
    return y


def test_kernel_size_cap_splits_fused_kernels(capped):
    """A backend's cap on kernel size splits a fused chain into kernels within it (cutting
    at the shared operand rather than recomputing it), and the values do not change."""
    from jaxweb._src.compiler.kernel_size import kernel_nodes
    x, w = randn(300), randn(300)
    capped(None)
    want = np.asarray(jax.jit(_chain)(x, w))
    (one,) = compiled(_chain, x, w)._exe.schedule.kernels
    size = kernel_nodes(one)
    cap = size // 3
    capped(cap)
    ks = compiled(lambda x, w: _chain(x, w), x, w)._exe.schedule.kernels
    assert len(ks) >= 3 and all(kernel_nodes(k) <= cap for k in ks), [kernel_nodes(k) for k in ks]
    assert sum(kernel_nodes(k) for k in ks) < 1.2 * size  # no part computed twice
    got = jax.jit(lambda x, w: _chain(x, w))(x, w)
    np.testing.assert_array_equal(np.asarray(got), want)
    ref = x.astype(np.float64)
    for i in range(24):
        ref = np.tanh(ref * (x * x + w.astype(np.float64)) + 0.25 * i) - ref * 0.5
    close(got, ref, 1e-4)


def test_kernel_size_cap_in_reductions_and_eager_flushes(capped):
    """Under a cap a reduction's elementwise producer is cut into kernels of their own, and
    eager flushes (runtime scalars lifted) split alike."""
    from jaxweb._src.compiler.kernel_size import kernel_nodes
    x, w = randn(40, 50), randn(40, 50)
    capped(None)
    want = np.asarray(jax.jit(lambda x, w: _chain(x, w).sum(1))(x, w))
    capped(60)
    ks = compiled(lambda x, w: _chain(x, w).sum(1), x, w)._exe.schedule.kernels
    assert len(ks) > 1 and all(kernel_nodes(k) <= 60 for k in ks)
    close(jax.jit(lambda x, w: _chain(x, w).sum(1))(x, w), want, 1e-5)
    with count_kernels() as eager:
        got = np.asarray(_chain(jnp.asarray(x), jnp.asarray(w)))
    assert len(eager) > 1 and all(kernel_nodes(k) <= 60 for k in eager if k.name != "kernel")
    close(got, np.asarray(jax.jit(_chain)(x, w)), 1e-5)


def test_scan_runs_its_compiled_body_per_step_without_retracing():
    traces = []

    def body(c, x):
        traces.append(1)
        return c * 0.5 + x, c

    @jax.jit
    def f(c, xs):
        return lax.scan(body, c, xs)
    c0, xs = randn(3), randn(50, 3)
    carry, ys = f(c0, xs)
    ref_c, ref_ys = c0.astype(np.float64), []
    for x in xs:
        ref_ys.append(ref_c)
        ref_c = ref_c * 0.5 + x
    close(carry, ref_c, 1e-4)
    close(ys, np.stack(ref_ys), 1e-4)
    n = len(traces)
    f(c0, xs)
    assert len(traces) == n  # cached: neither traced nor scheduled again
    assert n <= 2


def test_graph_nodes_are_hash_consed():
    x = jnp.asarray(randn(4))
    a, b = jnp.sin(x) * 2, jnp.sin(x) * 2
    assert a._node is b._node
    assert graph.toposort([a._node])[-1] is a._node


def test_compile_failures_name_the_kernel(monkeypatch):
    backend = default_device().backend
    orig = type(backend).compile

    def broken(self, kernel):
        raise ValueError("codegen exploded")
    monkeypatch.setattr(type(backend), "compile", broken)
    try:
        with pytest.raises(ValueError) as ei:
            jax.jit(lambda x: jnp.exp(x) * 7.5 + 1.25)(randn(9)).block_until_ready()
    finally:
        monkeypatch.setattr(type(backend), "compile", orig)
    notes = " ".join(getattr(ei.value, "__notes__", []))
    assert "exp" in notes and "compiling kernel" in notes


def test_eager_per_op_cost_stays_flat(monkeypatch):
    """Not a timing test: the work per eager op (graph nodes built) is constant."""
    x = jnp.asarray(randn(10))
    y = x
    n0 = len(graph._NODES) + len(graph._CACHE)  # hash-consed nodes, buffer leaves
    for _ in range(200):
        y = y + 1.0
    assert len(graph._NODES) + len(graph._CACHE) - n0 <= 3 * 200
    time.sleep(0)


def test_donated_memory_taken_by_any_output_of_a_multi_output_kernel():
    """An output written into a donated input's memory must not change what the kernel's
    other outputs read of that input (all values are computed before anything is stored)."""
    P, G, M, V = (np.abs(randn(64, 40)) for _ in range(4))

    def upd(p, g, m, v):
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        return m, v, p - 1e-3 * m / (jnp.sqrt(v) + 1e-8)
    want = None
    for donate in [(), (0,), (0, 2, 3), (2,)]:
        f = jax.jit(upd, donate_argnums=donate)
        p, g, m, v = (jnp.asarray(a) for a in (P, G, M, V))
        for _ in range(3):
            m, v, p = f(p, g, m, v)
        got = [np.asarray(a) for a in (m, v, p)]
        if want is None:
            want = got
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)


def test_slicing_loop_shares_modules_across_leading_extents(kernel_platform):
    """Shape polymorphism (issue 9): on wasm the leading extent is `run`'s loop bound, so
    kernels are compiled for its next power of two and shared by every smaller size; on
    webgpu a kernel keeps its static pipeline for the first extent and the widened one
    (extent in a uniform) serves the rest of its power of two."""
    dev = jax.devices(kernel_platform)[0]
    stats = getattr(dev.backend, "stats", {"kernels": 0})
    key, limit = ("kernels", 16) if "kernels" in stats else ("pipelines", 22)
    base = jnp.arange(800.0).block_until_ready()
    before = stats[key]
    for n in range(1, 301):
        y = (base[:n] * 2.0 + 1.0).block_until_ready()
        if n in (1, 5, 8, 9, 63, 64, 65, 299, 300):  # below, at and past the widening edges
            np.testing.assert_array_equal(np.asarray(y), np.arange(n) * 2.0 + 1.0)
    # 7 sizes below regrid.WIDEN_FROM, then one per power of two (webgpu: up to three) (300 before)
    assert stats[key] - before <= limit
    for n in (9, 100, 257):  # expressions that name the extent (reversal, a mask) stay exact
        np.testing.assert_array_equal(np.asarray(jnp.flip(base[:n]) + 1.0), np.arange(n)[::-1] + 1.0)
        np.testing.assert_array_equal(np.asarray(jnp.pad(base[:n], (2, 3)) * 3.0),
                                      np.pad(np.arange(n), (2, 3)) * 3.0)
        m = base[: n * 3].reshape(n, 3)
        np.testing.assert_array_equal(np.asarray(m.sum(1)), np.arange(n * 3.0).reshape(n, 3).sum(1))
