"""The rest of jax.lax that applies on one device (issue 25): collectives over a named
vmap axis (all_gather, ppermute, pshuffle, pbroadcast, psum_scatter, axis_size), the
special functions (igamma, igammac, igamma_grad_a, random_gamma_grad, polygamma, zeta,
betainc) and the primitives JAX exports. Expected values were printed by JAX 0.10.2."""
import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb import lax

pytestmark = pytest.mark.on_every_device

X = np.arange(6.0, dtype=np.float32).reshape(3, 2)


def _named(f, x=X):
    return np.asarray(jax.vmap(f, axis_name="i")(x))


def test_all_gather():
    g = _named(lambda v: lax.all_gather(v, "i"))
    assert g.shape == (3, 3, 2) and (g == X[None]).all()
    assert _named(lambda v: lax.all_gather(v, "i", tiled=True)).shape == (3, 6)
    np.testing.assert_array_equal(_named(lambda v: lax.all_gather(v, "i", axis=1))[0], X.T)


def test_permutations():
    np.testing.assert_array_equal(_named(lambda v: lax.ppermute(v, "i", [(0, 1), (1, 2), (2, 0)])), X[[2, 0, 1]])
    np.testing.assert_array_equal(_named(lambda v: lax.ppermute(v, "i", [(0, 1)])), [[0, 0], [0, 1], [0, 0]])
    np.testing.assert_array_equal(_named(lambda v: lax.pshuffle(v, "i", [2, 0, 1])), X[[2, 0, 1]])
    np.testing.assert_array_equal(_named(lambda v: lax.pbroadcast(v, "i", 1)), X[[1, 1, 1]])
    grad = jax.grad(lambda v: jax.vmap(lambda u: lax.ppermute(u, "i", [(0, 1), (1, 0)]) * jnp.arange(2.0),
                                       axis_name="i")(v).sum())(jnp.ones(2))
    np.testing.assert_array_equal(grad, [1.0, 1.0])
    with pytest.raises(ValueError, match="unique"):
        _named(lambda v: lax.ppermute(v, "i", [(0, 1), (2, 1)]))


def test_psum_scatter_and_axis_size():
    np.testing.assert_array_equal(_named(lambda v: lax.psum_scatter(v, "i"), np.arange(9.0).reshape(3, 3)), [9, 12, 15])
    np.testing.assert_array_equal(_named(lambda v: lax.psum_scatter(v, "i", tiled=True), np.ones((3, 6))),
                                  np.full((3, 2), 3.0))
    np.testing.assert_array_equal(_named(lambda v: lax.axis_size("i") + 0 * v[0]), [3, 3, 3])


def test_special_functions():
    np.testing.assert_allclose(lax.igamma(2.0, 1.5), 0.44217455, rtol=1e-6)
    np.testing.assert_allclose(lax.igammac(2.0, 1.5), 1 - 0.44217455, rtol=1e-6)
    np.testing.assert_allclose(lax.igamma_grad_a(2.0, 1.5), -0.3134886, rtol=1e-5)
    np.testing.assert_allclose(lax.random_gamma_grad(2.0, 1.5), 0.936639, rtol=1e-5)
    np.testing.assert_allclose(lax.zeta(2.0, 1.0), 1.644934, rtol=1e-6)
    np.testing.assert_allclose(lax.polygamma(jnp.array([0.0, 1.0, 2.0]), jnp.array([1.0, 2.0, 3.0])),
                               [-0.5772154, 0.64493406, -0.15411383], rtol=1e-5)
    np.testing.assert_allclose(lax.betainc(2.0, 3.0, 0.4), 0.5248004, rtol=1e-6)


def test_primitives_are_exported():
    for name in ["psum_p", "pmax_p", "pmin_p", "axis_index_p", "all_gather_p", "ppermute_p", "stop_gradient_p"]:
        assert getattr(lax, name).name == name[:-2]
