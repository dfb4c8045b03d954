"""jaxweb computing on the wasm device inside Pyodide (kernels run by the JS engine).

Small end-to-end cases whose answers come from the math module, not numpy
(there is none here): elementwise transcendental functions, reductions,
matmul, and the transformations over them.
"""
import math

import pytest

import jaxweb as jax
import jaxweb.numpy as jnp


@pytest.fixture(autouse=True)
def _wasm_device():
    try:
        assert jax.default_backend() == "wasm"
    except RuntimeError as e:
        pytest.skip(f"no jaxweb device in Pyodide yet: {e}")


def close(a, b, tol=1e-6):
    return all(math.isclose(u, v, rel_tol=tol, abs_tol=tol) for u, v in zip(a, b))


@pytest.mark.parametrize("name,ref", [("exp", math.exp), ("sin", math.sin), ("tanh", math.tanh),
                                      ("log1p", math.log1p), ("sqrt", math.sqrt)])
def test_unary_float32(name, ref):
    xs = [0.0, 0.25, 0.5, 1.0, 2.0]
    got = getattr(jnp, name)(jnp.array(xs, dtype=jnp.float32)).tolist()
    assert close(got, [ref(v) for v in xs], 2e-6), (name, got)


def test_reductions_and_matmul():
    assert jnp.arange(10.0).sum().item() == 45.0
    assert int(jnp.argmax(jnp.array([1, 5, 2]))) == 1
    a = jnp.arange(6.0).reshape(2, 3)
    assert (a @ a.T).tolist() == [[5.0, 14.0], [14.0, 50.0]]
    assert a.max(axis=0).tolist() == [3.0, 4.0, 5.0]


def test_views_are_free_and_correct():
    a = jnp.arange(12).reshape(3, 4)
    assert a.T[1].tolist() == [1, 5, 9]
    assert a[:, ::-2].tolist() == [[3, 1], [7, 5], [11, 9]]
    assert jnp.broadcast_to(jnp.arange(3), (2, 3)).sum(axis=0).tolist() == [0, 2, 4]


def test_transformations():
    x = jnp.array([0.0, 0.5, 1.0], dtype=jnp.float32)
    g = jax.grad(lambda v: jnp.sum(jnp.tanh(v) ** 2))(x).tolist()
    want = [2 * math.tanh(v) * (1 - math.tanh(v) ** 2) for v in (0.0, 0.5, 1.0)]
    assert close(g, want, 1e-5), g
    assert jax.jit(lambda a, b: a * b + 1)(x, x).tolist() == [1.0, 1.25, 2.0]
    assert jax.vmap(jnp.dot)(jnp.ones((2, 3)), jnp.ones((2, 3))).tolist() == [3.0, 3.0]


def test_donation_copies_only_shared_buffers(monkeypatch):
    """The sole-holder check counts references (CPython 3.14's count differs from 3.11's):
    a shared donated buffer is copied, a training loop's own buffer is taken as it is."""
    from jaxweb._src import executable
    copies = []
    real = executable._copy_buffer
    monkeypatch.setattr(executable, "_copy_buffer", lambda b: copies.append(b) or real(b))
    step = jax.jit(lambda a: a * 2, donate_argnums=0)
    x = jnp.arange(4.0)
    y = x.copy()
    x.block_until_ready(), y.block_until_ready()
    assert step(x).tolist() == [0.0, 2.0, 4.0, 6.0] and y.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert len(copies) == 1
    p = jnp.arange(4.0)
    for _ in range(3):
        p = step(p)
    assert p.tolist() == [0.0, 8.0, 16.0, 24.0] and len(copies) == 1


def test_large_kernels_split_over_threads():
    """Big enough for the backend to split the outer loop over the worker pool (if any)."""
    from jaxweb._src import host
    rt = jax.devices()[0].backend.rt
    assert rt.name == "pyodide" and rt.workers == host.shim().host.wasmThreads
    n = 1 << 19
    x = jnp.arange(n, dtype=jnp.float32).reshape(512, 1024)
    y = (x * 2.0 + 1.0).sum(axis=1).tolist()
    want = [sum(2.0 * (r * 1024 + j) + 1 for j in range(1024)) for r in (0, 200, 511)]
    assert close([y[0], y[200], y[511]], want, 1e-6), (y[0], y[200], y[511], want)
    z = (x[:, :8] * 1.0).tolist()
    assert z[3] == [float(3 * 1024 + j) for j in range(8)]
