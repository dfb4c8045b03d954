"""The rest of jax (issue 25, part 3) against JAX 0.10.2's recorded outputs, on every device:
jax.image, the lax helpers and scipy.special functions of tests/jax_rest_cases.py (dtype,
weak type, shape, values and error types), plus the transformations JAX's versions support."""
import json
import os

import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from jax_rest_cases import CASES
from test_jax_reference_nn_scipy import _check, _run

pytestmark = pytest.mark.on_every_device

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "jax_rest_reference.json")) as _f:
    REF = json.load(_f)["cases"]
#: case id -> (rtol, atol): jax.image sums up to ~20 float32 products per pixel (values up to
#: 7) in another order than XLA's dot: a few ulps (1 ulp of 4.0 is 4.8e-7) apart
TOL = {c[0]: (1e-5, 2e-6) for c in CASES if c[0].startswith("image.")} | {
    "image.resize.int32.cubic": (1e-5, 1e-4), "image.resize.uint8.linear": (1e-5, 1e-4)}  # values up to 255


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_matches_jax(case):
    cid, path, args, kwargs, mode = case
    want = REF[cid]
    if "error" in want:
        with pytest.raises(Exception) as info:
            _run(path, args, kwargs, mode)
        assert type(info.value).__name__ == want["error"], (cid, info.value)
        return
    got = _run(path, args, kwargs, mode)
    for g, w in zip(got, want) if isinstance(got, tuple) else [(got, want)]:
        _check(cid, g, w, TOL)


def test_image_resize_differentiates_and_batches():
    img = jnp.asarray(np.arange(20.0, dtype=np.float32).reshape(4, 5) % 7)
    # d/dimg sum(resize(img) * w) = the transposed weights applied to w: JAX 0.10.2's values
    w = jnp.asarray(np.linspace(-1, 1, 21, dtype=np.float32).reshape(3, 7))
    g = jax.grad(lambda x: (jax.image.resize(x, (3, 7), "linear") * w).sum())(img)
    np.testing.assert_allclose(g, np.asarray(GRAD_LINEAR, np.float32), rtol=1e-5, atol=1e-6)
    batched = jax.vmap(lambda x: jax.image.resize(x, (3, 7), "cubic"))(jnp.stack([img, img * 2]))
    np.testing.assert_allclose(batched[1], 2 * jax.image.resize(img, (3, 7), "cubic"), rtol=1e-5, atol=1e-5)
    jitted = jax.jit(lambda x: jax.image.resize(x, (2, 9), "lanczos3"))(img)
    np.testing.assert_allclose(jitted, jax.image.resize(img, (2, 9), "lanczos3"), rtol=1e-5, atol=1e-5)
    assert jax.image.ResizeMethod.from_string("bicubic") is jax.image.ResizeMethod.CUBIC


GRAD_LINEAR = [[-0.97, -0.7599999, -0.77, -0.5000001, -0.43], [-0.6085714, -0.4185714, -0.33, -0.1214286, 0.0085714],
               [-0.0085715, 0.1214285, 0.3299999, 0.4185714, 0.6085714], [0.4300001, 0.5000001, 0.77, 0.7600002, 0.9700001]]
