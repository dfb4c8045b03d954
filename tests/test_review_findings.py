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


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("src", ["int8", "uint8", "int16", "float16"])
def test_a_donated_narrow_input_is_not_overwritten_by_a_wider_output(platform, src):
    """Final read of 2026-12-05, FINDING 1: a float32[N] output took a donated int8[4N] input's
    memory in place (same bytes, the kernel reading it "at the element it writes") and wrote
    element j over the bytes of elements 4j..4j+3 before they were read (wasm: errors of 340)."""
    n = 64
    wide = 4 // np.dtype(src).itemsize
    xs = (np.arange(wide * n) % 100).astype(src)
    with jaxweb.default_device(jaxweb.devices(platform)[0]):
        f = jaxweb.jit(lambda x: x[:n].astype(jnp.float32) * 2.0, donate_argnums=0)
        got = np.asarray(f(jnp.asarray(xs)))
    np.testing.assert_array_equal(got, xs[:n].astype(np.float32) * 2.0)
