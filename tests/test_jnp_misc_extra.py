"""einsum's sublist form and einsum_path, cross, vectorize, fromfunction/frombuffer/
fromstring, quantile's inverted_cdf with weights, argpartition's order, and the dtype
helpers (can_cast, isdtype, promote_types, issubdtype, strict promotion, jax.dtypes,
numpy accepting jaxweb's dtypes)."""
import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from rule_checker import check_grads, check_vmap


@pytest.fixture(autouse=True)
def _reference_backend():
    """Semantic checks on the numpy reference backend: they keep the suite within the wasm
    runtime's instance budget (the kernels themselves are tested on every device)."""
    with jax.default_device(jax.devices("cpu")[0]):
        yield

A = np.arange(6, dtype=np.float32).reshape(2, 3)
B = np.arange(12, dtype=np.float32).reshape(3, 4) - 3
C = np.arange(20, dtype=np.float32).reshape(4, 5) * 0.5


def close(got, want, **kw):
    np.testing.assert_allclose(np.asarray(got), want, **{"rtol": 1e-5, "atol": 1e-6, **kw})


def test_einsum_sublists_and_paths():
    m = np.arange(12, dtype=np.float32).reshape(3, 4)
    close(jnp.einsum(m, [0, 1], m, [2, 1], [0, 2]), np.einsum(m, [0, 1], m, [2, 1], [0, 2]))
    close(jnp.einsum(m, [Ellipsis, 1], [1]), m.sum(0))  # as JAX (numpy refuses this one)
    close(jnp.einsum(A, [0, 1], B, [1, 2], C, [2, 3], [0, 3]), A @ B @ C)
    for spec in ("ij,jk,kl->il", "ij,jk,kl", "ij,jk,kl->li", "ij,jk,kl->"):
        close(jnp.einsum(spec, A, B, C), np.einsum(spec, A, B, C), rtol=1e-5)
    close(jnp.einsum("ij,jk,kl->li", A, B, C, optimize=False), np.einsum("ij,jk,kl->li", A, B, C))
    assert jnp.einsum_path("ij,jk,kl->il", A, B, C)[0] == [(0, 1), (0, 1)]
    chain = [np.ones((10, 2)), np.ones((2, 10)), np.ones((10, 2)), np.ones((2, 10))]
    path, info = jnp.einsum_path("ab,bc,cd,de->ae", *chain)
    assert path == [(1, 2), (0, 2), (0, 1)]  # the paths JAX (opt_einsum's greedy) gives
    assert jnp.einsum_path("ab,bc,cd,de->ae", *[c.T for c in chain])[0] == [(0, 1)] * 3
    mats = [np.ones((3, 4)), np.ones((4, 5)), np.ones((5, 6)), np.ones((6, 2))]
    assert jnp.einsum_path("ab,bc,cd,de->ae", *mats)[0] == [(2, 3), (1, 2), (0, 1)]
    close(jnp.einsum("ab,bc,cd,de->ae", *mats), np.full((3, 2), 120.0))
    assert "Complete contraction:  ab,bc,cd,de->ae" in str(info) and info.opt_cost < info.naive_cost
    assert jnp.einsum_path("ij", A)[0] == [(0,)]
    check_grads(lambda a, b: jnp.einsum(a, [0, 1], b, [1, 2]), (A, B), order=1)


def test_cross_products():
    u = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    v = np.array([[0.0, 1.0, 0.0], [1.0, -1.0, 2.0]], np.float32)
    close(jnp.cross(u, v), np.cross(u, v))
    u0 = np.concatenate([u[:, :2], np.zeros((2, 1), np.float32)], 1)  # a 2-vector has z = 0
    close(jnp.cross(u[:, :2], v), np.cross(u0, v))
    close(jnp.cross(u.T, v.T, axis=0), np.cross(u.T, v.T, axis=0))
    close(jnp.cross(u, v, axisc=0), np.cross(u, v, axisc=0))
    close(jnp.cross(u, v[0]), np.cross(u, v[0]))
    two = jnp.cross(u[:, :2], v[:, :2])  # numpy 2 deprecates 2-vectors; JAX gives the z part
    close(two, u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0])
    assert jnp.cross(np.array([1, 2, 3]), np.array([4, 5, 6])).dtype == jnp.int32
    with pytest.raises(ValueError, match="must be either 2 or 3"):
        jnp.cross(np.ones(4), np.ones(4))
    check_vmap(jnp.cross, (u, v))


def test_vectorize_signatures_and_excluded():
    m = np.arange(12, dtype=np.float32).reshape(3, 4)
    v = np.arange(4, dtype=np.float32)
    close(jnp.vectorize(lambda a, b: a * 2 + b)(m, v), m * 2 + v)
    close(jnp.vectorize(lambda a, b: a @ b, signature="(n),(n)->()")(m, v), m @ v)
    close(jnp.vectorize(lambda a, b: a @ b, signature="(m,n),(n)->(m)")(m[None], v), (m @ v)[None])
    lo, hi = jnp.vectorize(lambda a: (a.min(), a.max()), signature="(n)->(),()")(m)
    close(lo, m.min(1))
    close(hi, m.max(1))
    close(jnp.vectorize(lambda a, k: a * k, excluded={1})(m, 3), m * 3)
    close(jnp.vectorize(lambda a, k=1: a * k, excluded={"k"})(m, k=2), m * 2)
    calls = []
    jnp.vectorize(lambda a: calls.append(a.shape) or a)(m[:, :1] + v)  # mapped, so scalars
    assert calls == [()]
    with pytest.raises(ValueError, match="inconsistent size for core dimension"):
        jnp.vectorize(lambda a, b: a @ b, signature="(n),(n)->()")(m, v[:3])
    with pytest.raises(ValueError, match="not a valid gufunc signature"):
        jnp.vectorize(lambda a: a, signature="bad")(m)


def test_array_from_functions_bytes_and_text():
    close(jnp.fromfunction(lambda i, j: i * 10 + j, (3, 4)), np.fromfunction(lambda i, j: i * 10 + j, (3, 4)))
    got = jnp.fromfunction(lambda i, j, k: i + j * k, (2, 3, 2), dtype=jnp.int32)
    np.testing.assert_array_equal(got, np.fromfunction(lambda i, j, k: i + j * k, (2, 3, 2), dtype=np.int32))
    raw = np.array([1.5, -2.0, 3.25], np.float32).tobytes()
    close(jnp.frombuffer(raw, dtype=jnp.float32), [1.5, -2.0, 3.25])
    np.testing.assert_array_equal(jnp.frombuffer(b"\x01\x02\x03\x04", dtype=jnp.uint8, count=2, offset=1), [2, 3])
    np.testing.assert_array_equal(jnp.frombuffer(b"\x01\x00\x02\x00", dtype=jnp.int16), [1, 2])
    with pytest.raises(ValueError, match="multiple of element size"):
        jnp.frombuffer(b"\x01\x02\x03", dtype=jnp.int16)
    np.testing.assert_array_equal(jnp.fromstring("1 2 3", dtype=int, sep=" "), [1, 2, 3])
    close(jnp.fromstring("1.5, 2, 3", sep=","), [1.5, 2, 3])
    np.testing.assert_array_equal(jnp.fromstring("1,2,3,4", dtype=jnp.int32, count=2, sep=","), [1, 2])
    for f in (jnp.fromiter, jnp.fromfile):
        with pytest.raises(NotImplementedError, match="non-pure"):
            f("x")


def test_quantile_inverted_cdf_weights_and_argpartition():
    w = np.array([1.0, 2.0, 0.5, 1.0, 3.0, 1.0], np.float32)
    q = np.array([0.0, 0.1, 0.5, 0.9, 1.0])
    close(jnp.quantile(X6, q, method="inverted_cdf"), np.quantile(X6, q, method="inverted_cdf"))
    close(jnp.quantile(X6, q, weights=w, method="inverted_cdf"),
          np.quantile(X6, q, weights=w, method="inverted_cdf"))
    m = (np.arange(12, dtype=np.float32).reshape(3, 4) % 5)
    close(jnp.quantile(m, 0.6, axis=0, weights=np.array([1.0, 2.0, 3.0]), method="inverted_cdf"),
          np.quantile(m, 0.6, axis=0, weights=np.broadcast_to([[1.0], [2.0], [3.0]], m.shape),
                      method="inverted_cdf"))
    close(jnp.percentile(X6, 40, weights=w, method="inverted_cdf"),
          np.percentile(X6, 40, weights=w, method="inverted_cdf"))
    xn = np.array([1.0, np.nan, 3.0, 2.0, -2.0], np.float32)
    close(jnp.nanquantile(xn, 0.5, method="inverted_cdf"), np.nanquantile(xn, 0.5, method="inverted_cdf"))
    assert np.isnan(float(jnp.quantile(xn, 0.5, method="inverted_cdf")))
    assert np.isnan(float(jnp.quantile(X6, 0.5, weights=-w, method="inverted_cdf")))
    with pytest.raises(NotImplementedError, match="Only method 'inverted_cdf' supports weights"):
        jnp.quantile(X6, 0.5, weights=w)
    with pytest.raises(ValueError, match="method can only be"):
        jnp.quantile(X6, 0.5, method="hazen")
    # JAX's argpartition: the kth+1 smallest ascending, then the others in index order
    np.testing.assert_array_equal(jnp.argpartition(X6, 2), [5, 1, 3, 0, 2, 4])
    np.testing.assert_array_equal(jnp.partition(X6, 2), [-4.0, -1.0, 0.0, 5.0, 3.0, 2.0])
    p = np.asarray(jnp.argpartition(m, 1, axis=0))
    assert np.all(np.take_along_axis(m, p, 0)[:2].max(0) <= np.take_along_axis(m, p, 0)[2])


X6 = np.array([3.0, -1.0, 2.0, 0.0, 5.0, -4.0], np.float32)


def test_dtype_helpers():
    assert jnp.can_cast(jnp.int32, jnp.float64) and not jnp.can_cast(jnp.int32, jnp.float32)
    assert jnp.can_cast(jnp.bfloat16, jnp.float16, "same_kind") and not jnp.can_cast(jnp.bfloat16, jnp.float16)
    assert jnp.can_cast(jnp.float32, jnp.int8, "unsafe") and not jnp.can_cast(jnp.int8, jnp.int16, "no")
    for a in ("bool", "int8", "uint16", "int32", "float16", "float32"):
        for b in ("bool", "int8", "int16", "uint32", "int64", "float32", "float64"):
            for casting in ("safe", "same_kind"):
                assert jnp.can_cast(a, b, casting) == np.can_cast(a, b, casting), (a, b, casting)
    with pytest.raises(TypeError, match="does not support Python ints"):
        jnp.can_cast(3, jnp.int8)
    assert jnp.isdtype(jnp.float32, "real floating") and jnp.isdtype(jnp.int8, ("integral", jnp.float32))
    assert not jnp.isdtype(jnp.bool_, "numeric") and jnp.isdtype(jnp.bfloat16, "numeric")
    with pytest.raises(ValueError, match="Unrecognized kind"):
        jnp.isdtype(jnp.float32, "bogus")
    assert jnp.promote_types(jnp.float64, jnp.float32) == jnp.float64  # not canonicalized
    assert jnp.promote_types(jnp.int64, jnp.uint64) == jnp.float64
    assert jnp.promote_types(jnp.uint32, jnp.int8) == jnp.int32  # JAX's x32 lattice
    assert jnp.issubdtype(jnp.float32, np.floating) and jnp.issubdtype(np.float32, jnp.inexact)
    assert jnp.issubdtype(jnp.floating, jnp.inexact) and not jnp.issubdtype(jnp.bool_, jnp.number)
    assert jax.dtypes.issubdtype(jax.dtypes.prng_key, jax.dtypes.extended)
    assert jax.dtypes.canonicalize_dtype(jnp.float64) == jnp.float32
    assert jax.dtypes.scalar_type_of(jnp.zeros(2, jnp.int8)) is int and jax.dtypes.itemsize_bits(jnp.bool_) == 8
    assert jnp.single == jnp.float32 and jnp.double == jnp.float64


def test_numpy_accepts_jaxweb_dtypes():
    assert np.dtype(jnp.float32) == np.float32 and np.zeros(3, jnp.int16).dtype == np.int16
    assert np.zeros(2, jnp.zeros(3).dtype).dtype == np.float32
    assert np.asarray(jnp.array([1, 2])).astype(jnp.float32).dtype == np.float32
    assert np.finfo(jnp.float32).eps == np.finfo(np.float32).eps
    assert np.issubdtype(jnp.float32, np.floating) and np.ones(2, jnp.bool_).dtype == np.bool_


def test_strict_dtype_promotion():
    i8, i16 = jnp.zeros(2, jnp.int8), jnp.zeros(2, jnp.int16)
    with jax.numpy_dtype_promotion("strict"):
        with pytest.raises(jax.dtypes.TypePromotionError, match="no available implicit dtype promotion path"):
            i8 + i16
        with pytest.raises(jax.dtypes.TypePromotionError):
            jnp.zeros(2, jnp.int32) + 1.0
        assert (jnp.zeros(2, jnp.float32) + 1.0).dtype == jnp.float32
        assert (i8 + 1).dtype == jnp.int8
        with pytest.raises(jax.dtypes.TypePromotionError):
            jnp.promote_types(jnp.int8, jnp.int16)
    assert (i8 + i16).dtype == jnp.int16
    with pytest.raises(ValueError, match="new enum value must be in"):
        jax.numpy_dtype_promotion("loose")
