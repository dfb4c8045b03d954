"""A numpy-free quick subset of the newer library functions and APIs, with expected
values from the math module or by hand. Marked `pyodide` (it also runs inside Pyodide,
where there is no numpy) and `on_every_device`."""
import math

import pytest

import jaxweb as jax
import jaxweb.numpy as jnp

pytestmark = pytest.mark.pyodide


@pytest.fixture(autouse=True)
def _reference_backend():
    """The reference backend where there is one (CPython with numpy): inside Pyodide this
    runs on wasm, and here it stays within the wasm runtime's instance budget."""
    try:
        device = jax.devices("cpu")[0]
    except RuntimeError:
        yield
        return
    with jax.default_device(device):
        yield


def close(got, want, tol=1e-5):
    got = got.tolist() if hasattr(got, "tolist") else got
    if isinstance(want, (list, tuple)):
        assert len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            close(g, w, tol)
        return
    assert math.isclose(got, want, rel_tol=tol, abs_tol=tol), (got, want)


def test_select_piecewise_gcd():
    x = jnp.asarray([3.0, -1.0, 0.0])
    assert jnp.select([x > 0, x < 0], [x, -x * 2], 7).tolist() == [3.0, 2.0, 7.0]
    assert jnp.piecewise(x, [x < 0, x > 0], [lambda v: -v, lambda v: v * 10]).tolist() == [30.0, 1.0, 0.0]
    assert jnp.gcd(jnp.asarray([12, -18, 0, 1836311903]), jnp.asarray([8, 12, 5, 1134903170])).tolist() == [4, 6, 5, 1]
    assert jnp.lcm(4, 6).tolist() == 12


def test_frexp_ldexp_i0_sinc():
    sub = 1.25 * 2.0 ** -140  # a float32 subnormal, exactly representable
    m, e = jnp.frexp(jnp.asarray([3.0, sub, -0.375]))
    want = [math.frexp(3.0), math.frexp(sub), math.frexp(-0.375)]
    assert m.tolist() == [w[0] for w in want]
    assert e.tolist() == [w[1] for w in want]
    assert jnp.ldexp(jnp.float32(1.5), jnp.asarray([-148, 3])).tolist() == [math.ldexp(1.5, -148), 12.0]
    i0 = [sum((v / 2) ** (2 * k) / math.factorial(k) ** 2 for k in range(40)) for v in (0.5, 3.0, 9.0)]
    close(jnp.i0(jnp.asarray([0.5, 3.0, 9.0])), i0, 2e-6)
    d2 = jax.grad(jax.grad(jnp.sinc))(0.0)
    close(d2, -math.pi ** 2 / 3, 1e-5)


def test_polynomials_and_sampled_functions():
    close(jnp.polyval(jnp.asarray([1.0, -3.0, 2.0]), jnp.asarray([0.0, 1.0, 4.0])), [2.0, 0.0, 6.0])
    xs = [0.0, 1.0, 2.0, 3.0]
    close(jnp.polyfit(jnp.asarray(xs), jnp.asarray([2 * v * v - v + 1 for v in xs]), 2), [2.0, -1.0, 1.0], 1e-4)
    close(jnp.polymul(jnp.asarray([1.0, 1.0]), jnp.asarray([1.0, -1.0])), [1.0, 0.0, -1.0])
    close(jnp.interp(jnp.asarray([0.5, 2.0, 9.0]), jnp.asarray([0.0, 1.0, 3.0]), jnp.asarray([0.0, 2.0, 0.0])),
          [1.0, 1.0, 0.0])
    close(jnp.trapezoid(jnp.asarray([0.0, 1.0, 4.0])), 3.0)
    close(jnp.gradient(jnp.asarray([0.0, 1.0, 4.0, 9.0])), [1.0, 2.0, 4.0, 5.0])
    close(jnp.hanning(5), [0.0, 0.5, 1.0, 0.5, 0.0], 1e-6)
    h, xe, ye = jnp.histogram2d(jnp.asarray([0.1, 0.6, 0.9]), jnp.asarray([0.0, 1.0, 1.0]), bins=2)
    assert h.tolist() == [[1.0, 0.0], [0.0, 2.0]]


def test_einsum_cross_vectorize_fromfunction():
    a = jnp.arange(6.0).reshape(2, 3)
    close(jnp.einsum(a, [0, 1], a, [2, 1], [0, 2]), [[5.0, 14.0], [14.0, 50.0]])
    assert jnp.einsum_path("ij,jk->ik", a, a.T)[0] == [(0, 1)]
    assert jnp.cross(jnp.asarray([1, 0, 0]), jnp.asarray([0, 1, 0])).tolist() == [0, 0, 1]
    assert jnp.vectorize(lambda r: r.sum(), signature="(n)->()")(a).tolist() == [3.0, 12.0]
    assert jnp.fromfunction(lambda i, j: i * 10 + j, (2, 2), dtype=jnp.int32).tolist() == [[0, 1], [10, 11]]


def test_callbacks_check_grads_and_types():
    seen = []
    jax.jit(lambda x: jax.debug.callback(lambda v: seen.append(v.tolist()), x))(jnp.asarray([1.0, 2.0]))
    jax.vmap(lambda v: jax.debug.callback(lambda u: seen.append(u.tolist()), v))(jnp.arange(2))
    assert seen == [[1.0, 2.0], 0, 1]
    out = jax.jit(lambda x: jax.pure_callback(lambda v: v * 2, jax.ShapeDtypeStruct((2,), jnp.float32), x))(
        jnp.asarray([1.0, 2.0]))
    assert out.tolist() == [2.0, 4.0]
    jax.test_util.check_grads(lambda v: jnp.sin(v) * v, (jnp.asarray([0.3, 1.2]),), order=2)
    assert jax.typeof(1.0).weak_type and jax.jacfwd(lambda v: v * 2.0)(1.0).weak_type
    assert jnp.asarray([1.5, 2.0], jnp.float32).view(jnp.int32).tolist() == [1069547520, 1073741824]
    assert jnp.unique_counts(jnp.asarray([3, 1, 3])).counts.tolist() == [1, 2]
    assert repr(jnp.asarray([1.5, 2], jnp.bfloat16)) == "Array([1.5, 2], dtype=bfloat16)"
    assert jnp.can_cast(jnp.int8, jnp.float16) and jnp.promote_types(jnp.int64, jnp.uint64) == jnp.float64
