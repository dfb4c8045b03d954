"""Proofs of the review's findings (/work/notes/review.md, session of 2026-12-04): each test
shows a bug found in review, marked xfail(strict=True) with its reason until the owner fixes
it (then the marker goes and the test stays as the regression test)."""
import numpy as np
import pytest

import conftest
import jaxweb
import jaxweb.numpy as jnp

PLATFORMS = [p for p in ("cpu", "wasm", "webgpu") if conftest._available(p)]


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("donate", [(0,), (0, 1)])
def test_an_array_donated_and_passed_twice_keeps_its_values(platform, donate):
    with jaxweb.default_device(jaxweb.devices(platform)[0]):
        f = jaxweb.jit(lambda a, b: (a + 1, b * 2), donate_argnums=donate)
        x = jnp.arange(4.0) + 0  # a buffer of its own
        try:
            a, b = f(x, x)
        except ValueError:  # what JAX does ("donate the same buffer twice" / "also used by the call")
            return
        np.testing.assert_array_equal(np.asarray(a), [1.0, 2.0, 3.0, 4.0])
        np.testing.assert_array_equal(np.asarray(b), [0.0, 2.0, 4.0, 6.0])


def test_tied_parameters_in_a_donated_step():
    w = jnp.arange(4.0) + 0
    p = {"a": w, "b": w}
    step = jaxweb.jit(lambda p: {"a": p["a"] + 1, "b": p["b"] * 2}, donate_argnums=0)
    try:
        p = step(p)
    except ValueError:
        return
    np.testing.assert_array_equal(np.asarray(p["a"]), [1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(np.asarray(p["b"]), [0.0, 2.0, 4.0, 6.0])
