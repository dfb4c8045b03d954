"""Replaying recorded JAX cases: each case `(id, path, args, kwargs, mode)` calls the jaxweb
function at `path` (a value, or a vmapped gradient in one argument) and compares the result
with JAX's recorded output (dtype, weak type, shape, values; or the error type). Shared by
tests/test_jax_reference_nn_scipy.py and tests/test_jax_rest.py, which keep their own
tolerances (TOL: id -> (rtol, atol)) and deliberate differences (KNOWN: id -> {flat index: why})."""
import math

import numpy as np
import pytest

import jaxweb
import jaxweb.numpy as jnp
from case_args import build, lookup


def _decode(v):
    if isinstance(v, list):
        return [_decode(u) for u in v]
    return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}.get(v, v) if isinstance(v, str) else v


def run_case(path, args, kwargs, mode):
    fn = lookup(jaxweb, path)
    a = [build(v, jnp.asarray) for v in args]
    kw = {k: (build(v, jnp.asarray) if isinstance(v, tuple) else v) for k, v in kwargs.items()}
    if mode == "value":
        return fn(*a, **kw)
    argnum = {"grad": 0, "gradarg1": 1, "gradarg2": 2}[mode]
    axes = tuple(0 if i == argnum else None for i in range(len(a)))
    return jaxweb.vmap(jaxweb.grad(lambda *xs: fn(*xs, **kw), argnums=argnum), in_axes=axes)(*a)


def check(cid, got, want, tol, known):
    assert str(got.dtype) == want["dtype"], f"{cid}: dtype {got.dtype} vs JAX's {want['dtype']}"
    assert bool(got.aval.weak_type) == want["weak_type"], f"{cid}: weak_type differs from JAX's"
    assert list(got.shape) == want["shape"], f"{cid}: shape {got.shape} vs {want['shape']}"
    g = np.asarray(got).real.astype(np.float64).ravel()
    w = np.array(_decode(want["values"]), dtype=np.float64).ravel()
    skip = known.get(cid, {})
    keep = np.array([i not in skip for i in range(g.size)], dtype=bool)
    rtol, atol = tol.get(cid, (1e-5, 1e-7) if want["dtype"] != "float16" else (1e-3, 1e-3))
    np.testing.assert_allclose(g[keep], w[keep], rtol=rtol, atol=atol, equal_nan=True, err_msg=cid)
    if "imag" in want:  # complex results: the imaginary parts too
        gi = np.asarray(got).imag.astype(np.float64).ravel()
        wi = np.array(_decode(want["imag"]), dtype=np.float64).ravel()
        np.testing.assert_allclose(gi[keep], wi[keep], rtol=rtol, atol=atol, equal_nan=True, err_msg=cid + " (imag)")
    for i in skip:  # the deliberate differences stay differences (update KNOWN if they go)
        assert not np.isclose(g[i], w[i], rtol=rtol, atol=atol, equal_nan=True), f"{cid}[{i}] now matches JAX"


def replay(case, want, tol, known):
    """Run `case` and check it against JAX's recorded `want` (a list of them for a tuple)."""
    cid, path, args, kwargs, mode = case
    if "error" in want:
        with pytest.raises(Exception) as info:
            run_case(path, args, kwargs, mode)
        assert type(info.value).__name__ == want["error"], (cid, info.value)
        return
    got = run_case(path, args, kwargs, mode)
    if isinstance(got, (tuple, list)):
        assert isinstance(want, list) and len(want) == len(got), cid
        for g, w in zip(got, want):
            check(cid, g, w, tol, known)
    else:
        check(cid, got, want, tol, known)
