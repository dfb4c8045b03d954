"""jaxweb.nn.initializers: the same key gives JAX's weights (recorded once from JAX
0.10.2, tests/data/jax_initializers_reference.json), and the distributions have the
variances the fan rules promise."""
import json
import math
import os
import sys

import numpy as np
import pytest

import jaxweb
import jaxweb.numpy as jnp
import jaxweb.random as jr
from jaxweb.nn import initializers as init
from initializer_cases import CASES



def _clear_random_jit_caches():
    for name, mod in list(sys.modules.items()):
        if name.startswith("jaxweb._src.random"):
            for obj in list(vars(mod).values()):
                if callable(getattr(obj, "clear_cache", None)):
                    obj.clear_cache()


@pytest.fixture(autouse=True, scope="module")
def _on_cpu():
    """On the reference backend: random's threefry compiles ~100 kernels per shape, more
    than the wasm runtime's instance budget for the whole suite affords (random itself is
    checked per device by its own tests). jaxweb.random's samplers are jitted and jit's
    cache keeps constants on the device that traced them, so the caches are cleared on
    the way in and out, before anything else runs them on another device."""
    _clear_random_jit_caches()
    with jaxweb.default_device(jaxweb.devices("cpu")[0]):
        yield
    _clear_random_jit_caches()

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "jax_initializers_reference.json")) as _f:
    REF = json.load(_f)["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_matches_jax(case):
    cid, name, kwargs, shape, dtype = case
    fn = getattr(init, name)
    make = fn if kwargs is None else fn(**kwargs)
    key = jr.PRNGKey(42)
    out = make(key, shape, dtype) if dtype else make(key, shape)
    want = REF[cid]
    assert str(out.dtype) == want["dtype"] and list(out.shape) == want["shape"]
    tol = 1e-3 if want["dtype"] == "float16" else 2e-6
    np.testing.assert_allclose(np.asarray(out).astype(np.float64).ravel(), want["values"], rtol=tol, atol=tol)


def test_variance_scaling_statistics():
    key = jr.PRNGKey(0)
    w = np.asarray(init.he_normal()(key, (100, 240)))
    assert abs(w.std() - math.sqrt(2 / 100)) < 0.05 * math.sqrt(2 / 100)
    assert np.abs(w).max() <= 2 * math.sqrt(2 / 100) / 0.87962566103423978 + 1e-6
    u = np.asarray(init.glorot_uniform()(key, (100, 240)))
    limit = math.sqrt(3 * 2 / 340)
    assert np.abs(u).max() <= limit and np.abs(u).max() > 0.95 * limit
    q = np.asarray(init.orthogonal()(key, (4, 6)))
    np.testing.assert_allclose(q @ q.T, np.eye(4), atol=1e-5)
    d = np.asarray(init.delta_orthogonal()(key, (3, 3, 4, 4)))
    assert np.count_nonzero(d[0]) == 0 and np.count_nonzero(d[2]) == 0
    np.testing.assert_allclose(d[1, 1] @ d[1, 1].T, np.eye(4), atol=1e-5)


def test_errors_and_protocol():
    key = jr.PRNGKey(0)
    with pytest.raises(ValueError, match="Can't compute input and output sizes of a 1-dimensional"):
        init.lecun_normal()(key, (5,))
    with pytest.raises(ValueError, match="invalid mode for variance scaling initializer: fan_max"):
        init.variance_scaling(1.0, "fan_max", "normal")(key, (2, 2))
    with pytest.raises(ValueError, match="invalid distribution for variance scaling initializer: cauchy"):
        init.variance_scaling(1.0, "fan_in", "cauchy")(key, (2, 2))
    with pytest.raises(ValueError, match="orthogonal initializer requires at least a 2D shape"):
        init.orthogonal()(key, (3,))
    with pytest.raises(ValueError, match="requires a 3D, 4D or 5D shape"):
        init.delta_orthogonal()(key, (3, 3))
    with pytest.raises(ValueError, match="`fan_in` must be less or equal than `fan_out`"):
        init.delta_orthogonal()(key, (3, 4, 2))
    assert isinstance(init.zeros, init.Initializer)
    assert init.orthogonal()(key, (0, 3)).shape == (0, 3)
    assert init.normal()(key, (2,), jnp.float16).dtype == jnp.float16
    assert init.xavier_normal is init.glorot_normal and init.kaiming_uniform is init.he_uniform
    assert jaxweb.jit(lambda k: init.lecun_uniform()(k, (3, 2)))(key).shape == (3, 2)
