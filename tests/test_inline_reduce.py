"""Short row reductions computed inside the kernel that reads them.

A backend without nested reductions in its loops (webgpu: one invocation per output) still
computes a short one inline, in every invocation that reads it, when it has at most
`Capabilities.inline_reduce` terms and each of its values is recomputed at most that often
(`lower.KernelLowering._not_inlined`): a 10-class softmax is one kernel, not three. The
values are checked on every device against numpy; the kernel counts on webgpu, and on every
device that a reduction made a buffer only while its reader was fused elsewhere (the labels'
one-hot row sum of a log-softmax gradient) is tried again inline (`schedule._demotable`).
"""
import dataclasses

import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb._src import device as _device
from jaxweb._src.compiler.kernel import Routine

pytestmark = pytest.mark.on_every_device  # see conftest.py
rng = np.random.default_rng(7)
EXTENTS = (1, 3, 10, 32, 33, 64, 65, 100)


def randn(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def close(got, want, tol=2e-5):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=tol, atol=tol)


def kernels(f, *args) -> list:
    return jax.jit(f).lower(*args).compile()._exe.schedule.kernels


def _np_softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@pytest.fixture(autouse=True)
def gpu_rows_inline(kernel_platform):
    """On webgpu, a GPU's inline_reduce (a software adapter here has none: its invocations are
    CPU work), with the schedules and programs made under other capabilities dropped."""
    if kernel_platform != "webgpu":
        yield
        return
    from jaxweb._src import execution
    from jaxweb._src.backends.webgpu import codegen
    dev = _device.default_device()
    be = dev.backend
    saved = be.capabilities
    be.capabilities = dataclasses.replace(saved, inline_reduce=codegen.INLINE_REDUCE)
    execution._TEMPLATES.pop(id(dev), None)
    be._programs.clear()
    try:
        yield
    finally:
        be.capabilities = saved
        execution._TEMPLATES.pop(id(dev), None)
        be._programs.clear()


def _inline_limit() -> int:
    caps = _device.default_device().backend.capabilities
    return 1 << 30 if caps.nested_reduce else caps.inline_reduce


@pytest.mark.parametrize("n", EXTENTS)
def test_softmax_logsumexp_and_row_max_of_odd_extents(n):
    """Several outputs, each reading the same row reductions (max, sum of exp)."""
    x = randn(37, n)

    def f(x):
        return jax.nn.softmax(x), jax.nn.logsumexp(x, axis=1), x.max(1), jax.nn.log_softmax(x)
    sm, lse, mx, lsm = jax.jit(f)(x)
    m = x.max(1, keepdims=True)
    want_lse = (m + np.log(np.exp(x - m).sum(1, keepdims=True)))[:, 0]
    close(sm, _np_softmax(x))
    close(lse, want_lse, 1e-5)
    close(mx, x.max(1))
    close(lsm, x - want_lse[:, None], 1e-5)


@pytest.mark.parametrize("n", EXTENTS)
def test_layer_norm_rows(n):
    """Mean, then the variance around it (a nested reduction reading another), per row."""
    x, g, b = randn(29, n), randn(n), randn(n)

    def f(x, g, b):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / jnp.sqrt(var + 1e-5) * g + b
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    close(jax.jit(f)(x, g, b), (x - mu) / np.sqrt(var + 1e-5) * g + b, 1e-4)


def test_row_reductions_of_other_ops_and_dtypes():
    """An integer row sum, a row min, a count of positives, a row argmax, all per element."""
    x = randn(23, 7)
    k = rng.integers(-50, 50, (23, 7)).astype(np.int32)

    def f(x, k):
        return (k - k.sum(1, keepdims=True), x - x.min(1, keepdims=True),
                jnp.where(x > 0, (x > 0).sum(1, keepdims=True), 0), jnp.argmax(x, axis=1)[:, None] + 0 * k)
    a, b, c, d = jax.jit(f)(x, k)
    np.testing.assert_array_equal(np.asarray(a), k - k.sum(1, keepdims=True))
    close(b, x - x.min(1, keepdims=True))
    np.testing.assert_array_equal(np.asarray(c), np.where(x > 0, (x > 0).sum(1, keepdims=True), 0))
    np.testing.assert_array_equal(np.asarray(d), np.broadcast_to(x.argmax(1)[:, None], (23, 7)))


def test_nested_reduction_beside_a_top_level_one():
    """A product's epilogue reading a row max of its left operand, and a row sum whose terms
    are scaled by another row reduction (computed once per row, outside the sum's loop)."""
    x, w = randn(33, 12), randn(12, 20)

    def f(x, w):
        y = x @ w + x.max(1, keepdims=True)
        z = (x * x.min(1, keepdims=True)).sum(1)
        return y, z
    y, z = jax.jit(f)(x, w)
    close(y, x @ w + x.max(1, keepdims=True), 1e-4)
    close(z, (x * x.min(1, keepdims=True)).sum(1), 1e-4)


def test_a_product_stays_a_gemm_beside_a_row_reduction():
    """A product's epilogue reading a short row reduction keeps the backend's GEMM routine (it
    computes no nested reduction): the row reduction is then a kernel of its own."""
    x, w = randn(64, 32), randn(32, 48)
    f = lambda x, w: x @ w + x.min(1, keepdims=True)
    close(jax.jit(f)(x, w), x @ w + x.min(1, keepdims=True), 1e-4)
    caps = _device.default_device().backend.capabilities
    if caps.gemm is not None and not caps.nested_reduce:
        launches = jax.jit(f).lower(x, w).compile()._exe.schedule.launches
        assert any(isinstance(k, Routine) for k in launches), [k.name for k in launches]


def test_short_softmax_is_one_kernel_where_inlined():
    """Within the bound: one kernel. Past it (33 terms on webgpu): the row reductions are
    kernels of their own (on wasm, nested loops: at most two kernels either way)."""
    limit = _inline_limit()
    for n in (10, 32, 33):
        ks = kernels(jax.nn.softmax, randn(40, n))
        if n <= limit:
            assert len(ks) <= (1 if limit < 1 << 30 else 2), (n, [k.name for k in ks])
        else:
            assert len(ks) >= 2, (n, [k.name for k in ks])


def test_a_row_reduction_read_far_more_often_than_its_extent_stays_a_kernel():
    """A 4-term row sum broadcast over 300 elements per row: recomputed 300 times per value,
    past the bound (webgpu): computed once, in a kernel of its own."""
    x = randn(16, 4)
    f = lambda x: x.sum(1)[:, None] * jnp.ones((16, 300))
    got = jax.jit(f)(x)
    close(got, np.broadcast_to(x.sum(1)[:, None], (16, 300)))
    caps = _device.default_device().backend.capabilities
    if not caps.nested_reduce:
        assert len(kernels(f, x)) == 2


def test_one_hot_row_sum_of_a_log_softmax_gradient_is_not_a_kernel():
    """The gradient of a log-softmax cross-entropy sums the one-hot labels per row: realized in
    the scheduler's first pass (its reader was then fused into every product), it is retried
    inline, so no kernel reads only the labels."""
    x, w = randn(50, 16), randn(16, 10)
    y = rng.integers(0, 10, (50,)).astype(np.int32)

    def loss(w, x, y):
        return -(jax.nn.log_softmax(x @ w) * jax.nn.one_hot(y, 10)).sum() / y.shape[0]
    f = jax.value_and_grad(loss)
    ks = kernels(f, w, x, y)
    only_labels = [k for k in ks if k.in_dtypes == (jnp.int32,)]
    if _inline_limit() >= 10:
        assert not only_labels, [k.name for k in ks]
    lv, g = jax.jit(f)(w, x, y)
    z = x @ w
    p = _np_softmax(z)
    oh = np.eye(10, dtype=np.float32)[y]
    close(lv, -(np.log(p) * oh).sum() / 50, 1e-5)
    close(g, x.T @ (p - oh) / 50, 1e-4)


def test_rows_of_bool_narrow_and_nan_values():
    """any / all rows, an int8 row sum (wrapping), a uint8 row max, a float16 row max, a row
    product, a row max meeting NaN (it propagates), each read per element."""
    x = randn(13, 9)
    k8 = rng.integers(-50, 50, (13, 9)).astype(np.int8)
    u8 = rng.integers(0, 200, (13, 9)).astype(np.uint8)
    h = x.astype(np.float16)

    def f(x, k8, u8, h):
        return (jnp.any(x > 1, axis=1, keepdims=True) & (x > 0), jnp.all(x > -2, axis=1, keepdims=True) | (x > 0),
                k8 - k8.sum(1, keepdims=True, dtype=jnp.int8), u8.max(1, keepdims=True) - u8,
                h - h.max(1, keepdims=True), x * jnp.prod(x, axis=1, keepdims=True),
                x - jnp.max(jnp.where(x > 1.5, jnp.nan, x), axis=1, keepdims=True))
    got = jax.jit(f)(x, k8, u8, h)
    nan_max = np.where(x > 1.5, np.nan, x).max(1, keepdims=True)
    want = (np.any(x > 1, 1, keepdims=True) & (x > 0), np.all(x > -2, 1, keepdims=True) | (x > 0),
            k8 - k8.sum(1, keepdims=True, dtype=np.int8), u8.max(1, keepdims=True) - u8,
            h - h.max(1, keepdims=True), x * np.prod(x, 1, keepdims=True), x - nan_max)
    for g, w in zip(got[:5], want[:5]):
        np.testing.assert_array_equal(np.asarray(g), w)
    close(got[5], want[5], 1e-5)
    np.testing.assert_array_equal(np.isnan(np.asarray(got[6])), np.isnan(want[6]))
