"""Complex numbers: JAX's results (recorded in tests/data/jax_complex_reference.json from
tests/complex_cases.py) on every device; values against numpy; derivative rules against
finite differences and the dot-product test; complex values through jit, vmap, control
flow, host callbacks and x64; host conversions.

Complex arrays are interleaved float pairs that the compiler turns into real kernels
(jaxweb/_src/compiler/complex_pairs.py), so every device computes them with no code of
its own: these tests are what keeps that so. Every case runs at the shapes of the shared
prelude (one set of kernels per case), to keep the Wasm runtime's instance store small.
"""
import json
import math
import os

import numpy as np
import pytest

import jaxweb
import jaxweb.numpy as jnp
from jaxweb import lax
from complex_cases import CASES, PRELUDE
from rule_checker import check_grads, check_vmap

_HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(_HERE, "data", "jax_complex_reference.json")) as _f:
    REF = json.load(_f)["cases"]

#: float32 results of transcendental formulas: a few ulps of the largest part
RTOL, ATOL = 3e-6, 2e-6


def _decode(v):
    return float(v) if isinstance(v, str) else v


def _expected(leaf: dict) -> np.ndarray:
    vals = leaf["values"]
    if leaf["dtype"].startswith("complex"):
        flat = [complex(_decode(re), _decode(im)) for re, im in vals]
    else:
        flat = [_decode(v) for v in vals]
    return np.array(flat, dtype=leaf["dtype"] if leaf["dtype"] != "bfloat16" else np.float32).reshape(leaf["shape"])


def _env() -> dict:
    env = {"jax": jaxweb, "jnp": jnp, "lax": lax}
    exec(PRELUDE, env)
    return env


def _compare(name: str, got, ref: dict) -> None:
    leaves = jaxweb.tree_util.tree_leaves(got)
    assert len(leaves) == len(ref["leaves"]), name
    for g, r in zip(leaves, ref["leaves"]):
        assert jnp.dtype(g.dtype).name == r["dtype"], (name, g.dtype, r["dtype"])
        assert bool(getattr(g, "weak_type", False)) == r["weak_type"], (name, "weak_type")
        want = _expected(r)
        have = np.asarray(g)
        assert have.shape == want.shape, (name, have.shape, want.shape)
        if want.dtype.kind in "biu":
            np.testing.assert_array_equal(have, want, err_msg=name)
        else:
            scale = float(np.max(np.abs(want[np.isfinite(want)]), initial=1.0))
            np.testing.assert_allclose(have.astype(want.dtype), want, rtol=RTOL, atol=ATOL * scale,
                                       equal_nan=True, err_msg=name)


@pytest.mark.on_every_device
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_jax(name):
    ref = REF[name]
    env = _env()
    if "error" in ref:
        with pytest.raises(Exception) as info:
            eval(CASES[name], env)
        assert type(info.value).__name__ == ref["error"]
        assert str(info.value).splitlines()[0] == ref["message"]
        return
    _compare(name, eval(CASES[name], env), ref)


# ---------------------------------------------------------------- against numpy, every device
Z = np.array([1.5 + 0.5j, -0.3 + 2.0j, 0.7 - 1.1j, -2.0 - 0.4j, 0.05 + 0.02j, 3.0 + 0.0j], np.complex64)
W = np.array([0.4 - 1.0j, 2.0 + 2.0j, -1.0 + 0.5j, 1.5 - 3.0j, -0.6 + 0.2j, 1.0j], np.complex64)
UNARY = ("exp log log1p expm1 sqrt sin cos tan sinh cosh tanh arcsin arccos arctan arcsinh arccosh "
         "arctanh abs sign conj real imag angle square reciprocal exp2 log2 log10").split()


@pytest.mark.on_every_device
def test_functions_against_numpy():
    """All of them in one jitted program (few kernels), against numpy in complex128."""
    f = jaxweb.jit(lambda z: [getattr(jnp, n)(z) for n in UNARY])
    for name, got in zip(UNARY, f(Z)):
        want = getattr(np, name)(Z.astype(np.complex128))
        np.testing.assert_allclose(np.asarray(got), want, rtol=3e-6, atol=3e-6, err_msg=name)
        assert np.asarray(got).dtype == (np.float32 if np.isrealobj(want) else np.complex64), name


@pytest.mark.on_every_device
def test_arithmetic_and_comparisons_against_numpy():
    z, w = Z.astype(np.complex128), W.astype(np.complex128)
    got = jaxweb.jit(lambda a, b: (a + b, a - b, a * b, a / b, a ** b, a == b, a != b, a @ b))(Z, W)
    want = (z + w, z - w, z * w, z / w, z ** w, z == w, z != w, z @ w)
    for g, e in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), e, rtol=3e-6, atol=1e-6)


@pytest.mark.on_every_device
def test_eager_ops_fuse_and_match():
    """Eager code: each op is a pending node, the chain runs as one schedule when read."""
    z = jnp.asarray(Z)
    y = jnp.exp(z) * jnp.conj(z) - 2j / (z + 1)
    e = np.exp(Z.astype(complex)) * np.conj(Z) - 2j / (Z.astype(complex) + 1)
    np.testing.assert_allclose(np.asarray(y), e, rtol=3e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(jnp.sum(y.reshape(2, 3), axis=0)), e.reshape(2, 3).sum(0), rtol=1e-5)


def test_special_values_against_numpy():
    zs = np.array([0j, complex("inf"), complex("-inf"), complex("nan"), complex(0, math.inf), -1e-30 + 0j,
                   1e30 + 1e30j, 1e-30 + 1e-30j], np.complex64)
    for name in ("exp", "sqrt", "log", "abs"):
        with np.errstate(all="ignore"):
            want = getattr(np, name)(zs.astype(np.complex128))
        got = np.asarray(getattr(jnp, name)(zs))
        for part in (np.real, np.imag):  # separately: numpy compares infinite complex values whole
            np.testing.assert_allclose(part(got), part(want), rtol=1e-6, equal_nan=True, err_msg=name)


# ---------------------------------------------------------------- derivative rules
HOLOMORPHIC = ("exp log log1p expm1 sqrt sin cos tan sinh cosh tanh arcsin arctan arcsinh "
               "arctanh square reciprocal").split()


@pytest.mark.parametrize("name", HOLOMORPHIC + ["abs", "real", "imag", "conj", "angle"])
def test_unary_rules(name):
    """(sign's derivative is zero by definition, as in JAX: not checked against differences)"""
    check_grads(getattr(jnp, name), (Z[:4],), order=1 if name == "angle" else 2)


@pytest.mark.parametrize("fn", [lambda a, b: a * b, lambda a, b: a / b, lambda a, b: a ** b,
                                lambda a, b: jnp.sum(a * jnp.conj(b)), lambda a, b: lax.complex(jnp.real(a), jnp.imag(b)),
                                lambda a, b: a.reshape(2, 2) @ b.reshape(2, 2), lambda a, b: jnp.prod(a * b),
                                lambda a, b: jnp.where(jnp.abs(a) > 1, a, b)])
def test_binary_rules(fn):
    check_grads(fn, (Z[:4], W[:4]), order=2)


def test_mixed_real_complex_rules():
    check_grads(lambda x, z: jnp.abs(x * z) ** 2 + jnp.real(x * z), (np.float32([0.5, -1.5, 2.0]), Z[:3]), order=2)


def test_vmap_rules():
    check_vmap(lambda a, b: jnp.vdot(a, b) * jnp.exp(a), (Z.reshape(2, 3), W.reshape(2, 3)))
    check_vmap(lambda a: jnp.sort(a) + jnp.max(a), (Z.reshape(3, 2),), in_axes=1)


def test_grad_matches_finite_differences():
    """grad of a real function of a complex input is d/dx - i d/dy (JAX's convention)."""
    f = lambda z: jnp.abs(jnp.sin(z)) ** 2 + jnp.real(z * z)  # noqa: E731
    z0, eps = 0.7 - 0.4j, 1e-3
    g = complex(jaxweb.jit(jaxweb.grad(f))(jnp.complex64(z0)))
    dx = (float(f(jnp.complex64(z0 + eps))) - float(f(jnp.complex64(z0 - eps)))) / (2 * eps)
    dy = (float(f(jnp.complex64(z0 + eps * 1j))) - float(f(jnp.complex64(z0 - eps * 1j)))) / (2 * eps)
    assert abs(g - complex(dx, -dy)) < 1e-2


# ---------------------------------------------------------------- programs
def test_control_flow_and_callbacks_carry_complex():
    z = jnp.asarray(Z)
    c, ys = jaxweb.jit(lambda z: lax.scan(lambda c, u: (c * u, jnp.conj(c)), 1 + 0j, z))(z)
    acc, prefix = 1 + 0j, []
    for u in Z.astype(complex):
        prefix.append(np.conj(acc))
        acc = acc * u
    np.testing.assert_allclose(complex(c), acc, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(ys), prefix, rtol=1e-5)
    out = lax.cond(jnp.abs(z[0]) > 1, lambda v: v * 1j, lambda v: v, z)
    np.testing.assert_allclose(np.asarray(out), Z * 1j, rtol=1e-6)
    w = lax.while_loop(lambda v: jnp.abs(v[0]) < 10, lambda v: v * (1 + 1j), z)
    np.testing.assert_allclose(np.asarray(w), Z * (1 + 1j) ** 6, rtol=1e-5)  # |z0| = 1.58: six steps
    host = jaxweb.pure_callback(lambda v: np.asarray(v) * 2, jaxweb.ShapeDtypeStruct((6,), jnp.complex64), z)
    np.testing.assert_allclose(np.asarray(jaxweb.jit(lambda v: host + v)(z)), 3 * Z, rtol=1e-6)


def test_jit_donation_views_and_outputs():
    z = jnp.asarray(Z)
    f = jaxweb.jit(lambda v: (v, v[::-1].reshape(2, 3).T, jnp.real(v), v * 2), donate_argnums=0)
    same, t, re, twice = f(jnp.asarray(Z))
    np.testing.assert_array_equal(np.asarray(same), Z)
    np.testing.assert_array_equal(np.asarray(t), Z[::-1].reshape(2, 3).T)
    np.testing.assert_array_equal(np.asarray(re), Z.real)
    np.testing.assert_array_equal(np.asarray(twice), Z * 2)
    assert jnp.asarray(Z)[2:4].tolist() == [complex(v) for v in Z[2:4]] and z.shape == (6,)


@pytest.mark.on_every_device
def test_a_complex_output_returned_twice_is_freed_once():
    """Two outputs of one complex buffer share one owner: two would free it twice (webgpu's
    pool then handed the memory out twice: a KeyError in a later allocation)."""
    import gc
    dev = jnp.asarray(Z).device
    f = jaxweb.jit(lambda v: (v * 2, v * 2))
    x = jnp.asarray(Z)
    before = dev.memory_stats()["bytes_in_use"]
    a, b = f(x)
    np.testing.assert_array_equal(np.asarray(a), Z * 2)
    np.testing.assert_array_equal(np.asarray(b), Z * 2)
    del a, b
    gc.collect()
    assert dev.memory_stats()["bytes_in_use"] == before


def test_x64():
    jaxweb.config.update("jax_enable_x64", True)
    try:
        z = jnp.asarray(Z.astype(np.complex128) / 3)
        assert z.dtype == jnp.complex128 and (jnp.ones(2) + 1j).dtype == jnp.complex128
        assert (jnp.ones(6, jnp.float32) + jnp.asarray(Z)).dtype == jnp.complex64
        want = np.exp(Z.astype(np.complex128) / 3) @ np.log(Z.astype(np.complex128) / 3)
        np.testing.assert_allclose(complex(jnp.exp(z) @ jnp.log(z)), want, rtol=1e-13)
        g = jaxweb.grad(lambda v: jnp.abs(v) ** 2)(jnp.complex128(1 + 2j))
        assert g.dtype == jnp.complex128 and complex(g) == 2 - 4j
    finally:
        jaxweb.config.update("jax_enable_x64", False)


# ---------------------------------------------------------------- host data
def test_host_conversions():
    x = jnp.array([1 + 2j, -3.5j])
    assert x.dtype == jnp.complex64 and x.tolist() == [1 + 2j, -3.5j]
    assert complex(x[0]) == 1 + 2j and x[1].item() == -3.5j
    assert np.asarray(x).dtype == np.complex64 and np.asarray(x).tolist() == [1 + 2j, -3.5j]
    y = jnp.asarray(np.array([[1 + 1j], [2]], np.complex128))
    assert y.dtype == jnp.complex64 and y.shape == (2, 1) and y.tolist() == [[1 + 1j], [2 + 0j]]
    assert jnp.frombuffer(np.array([1 - 1j], np.complex64).tobytes(), jnp.complex64).tolist() == [1 - 1j]
    assert jnp.iscomplexobj(x) and not jnp.iscomplexobj(jnp.ones(2)) and jnp.iscomplexobj(1j)
    assert repr(x) == "Array([ 1.+2.j , -0.-3.5j], dtype=complex64)"  # -3.5j has a real part -0.0
    assert str(jnp.complex64(1.5 - 0.25j)) == "(1.5-0.25j)" and f"{jnp.complex64(2j)}" == "2j"
    assert math.isclose(abs(complex(jnp.asarray(3 + 4j) * 1)), 5)
    with pytest.raises(TypeError):
        float(x[0])
