"""`jax.test_util`: check_grads, check_jvp, check_vjp — autodiff against finite differences.

As in JAX, each check uses one random direction (a fixed-seed Gaussian, so it is
reproducible) instead of a full Jacobian: the JVP is compared with a central difference
f(x + eps t) - f(x - eps t) over 2 eps, and the VJP with the JVP through the inner
product <t, vjp(c)> = <jvp(t), c>. Tolerances default per dtype to JAX's
(float32: 2e-3, float64: 1e-5, ...), scaled by the number of elements. Written with
jnp and the standard library only, so it also runs without numpy.
"""
from __future__ import annotations

import functools
import random
from typing import Any, Callable, Sequence

import jaxweb.numpy as jnp

from . import core, dtypes
from .tree_util import tree_leaves, tree_map, tree_structure
from .api import jvp, linearize, vjp

EPS = 1e-4
#: JAX's default gradient tolerances per dtype name.
DEFAULT_GRADIENT_TOLERANCE = {"bfloat16": 1e-1, "float16": 1e-2, "float32": 2e-3, "float64": 1e-5,
                              "complex64": 1e-3, "complex128": 1e-5}


def _dtype(x: Any) -> dtypes.DType:
    return dtypes.canonicalize_dtype(core.get_aval(x).dtype)


def _tolerance(dt: dtypes.DType, tol: Any) -> float:
    if tol is None:
        return DEFAULT_GRADIENT_TOLERANCE.get(dt.name, 0.0)
    if isinstance(tol, dict):
        table = {dtypes.dtype(k).name: v for k, v in tol.items()}
        return table.get(dt.name, DEFAULT_GRADIENT_TOLERANCE.get(dt.name, 0.0))
    return float(tol)


def _rand_like(rng: random.Random, x: Any) -> Any:
    aval = core.get_aval(x)
    values = [rng.gauss(0.0, 1.0) for _ in range(aval.size)]
    out = jnp.reshape(jnp.asarray(values, dtype=aval.dtype), aval.shape)
    return float(out) if core.is_python_scalar(x) else out


def _check_close(xs: Any, ys: Any, atol: Any, rtol: Any, err_msg: str) -> None:

    def close(a: Any, b: Any) -> None:
        a, b = jnp.asarray(a), jnp.asarray(b)
        if a.shape != b.shape:
            raise AssertionError(f"{err_msg}: shapes differ: {a.shape} vs {b.shape}")
        at = max(_tolerance(_dtype(a), atol), _tolerance(_dtype(b), atol)) * max(a.size, 1)
        rt = max(_tolerance(_dtype(a), rtol), _tolerance(_dtype(b), rtol)) * max(b.size, 1)
        a32, b32 = (v.astype(dtypes.float32) if _dtype(v).itemsize < 4 else v for v in (a, b))
        diff = jnp.where(a32 == b32, 0.0, jnp.abs(a32 - b32))
        bad = diff > at + rt * jnp.abs(b32)
        if bool(jnp.any(bad)):
            raise AssertionError(
                f"\nNot equal to tolerance rtol={rt:g}, atol={at:g}\n{err_msg}\n"
                f"Mismatched elements: {int(jnp.sum(bad))} / {a.size}\n"
                f"Max absolute difference: {float(jnp.max(diff))}\n x: {a}\n y: {b}")
    if tree_structure(xs) != tree_structure(ys):
        raise AssertionError(f"{err_msg}: tree structures differ: {tree_structure(xs)} vs "
                             f"{tree_structure(ys)}")
    tree_map(close, xs, ys)


def _scale(xs: Any, a: float) -> Any:
    return tree_map(lambda x: x * a, xs)


def numerical_jvp(f: Callable, primals: Sequence[Any], tangents: Sequence[Any], eps: float = EPS) -> Any:
    """The central difference (f(x + eps t) - f(x - eps t)) / (2 eps)."""
    delta = _scale(tangents, eps)
    pos = f(*tree_map(lambda x, d: x + d, tuple(primals), tuple(delta)))
    neg = f(*tree_map(lambda x, d: x - d, tuple(primals), tuple(delta)))
    return tree_map(lambda p, n: jnp.where(p == n, 0.0, p - n) * (0.5 / eps), pos, neg)


def _inner(xs: Any, ys: Any) -> Any:
    parts = [jnp.sum(jnp.asarray(x, dtype=dtypes.float32 if _dtype(x).itemsize < 4 else None)
                     * jnp.asarray(y)) for x, y in zip(tree_leaves(xs), tree_leaves(ys))]
    total = parts[0] if parts else jnp.asarray(0.0)
    for p in parts[1:]:
        total = total + p
    return total


def check_jvp(f: Callable, f_jvp: Callable, args: Sequence[Any], atol: Any = None, rtol: Any = None,
              eps: float = EPS, err_msg: str = "") -> None:
    """`jax.test_util.check_jvp`: `f_jvp(args, tangents)` against finite differences."""
    rng = random.Random(0)
    tangent = tree_map(functools.partial(_rand_like, rng), tuple(args))
    v_out, t_out = f_jvp(tuple(args), tangent)
    _check_close(v_out, f(*args), atol, rtol, f"{err_msg} primal" if err_msg else "primal")
    expected = numerical_jvp(f, args, tangent, eps)
    _check_close(t_out, expected, atol, rtol, f"{err_msg} tangent" if err_msg else "tangent")


def check_vjp(f: Callable, f_vjp: Callable, args: Sequence[Any], atol: Any = None, rtol: Any = None,
              eps: float = EPS, err_msg: str = "") -> None:
    """`jax.test_util.check_vjp`: `f_vjp(*args)` against finite differences, through the
    inner-product identity <t, vjp(c)> = <jvp(t), c>."""
    rng = random.Random(0)
    v_out, vjp_fun = f_vjp(*args)
    _check_close(v_out, f(*args), atol, rtol, f"{err_msg} primal" if err_msg else "primal")
    tangent = tree_map(functools.partial(_rand_like, rng), tuple(args))
    tangent_out = numerical_jvp(f, args, tangent, eps)
    cotangent = tree_map(functools.partial(_rand_like, rng), v_out)
    cotangent_out = vjp_fun(cotangent)
    _check_close(_inner(tangent, cotangent_out), _inner(tangent_out, cotangent), atol, rtol,
                 f"{err_msg} cotangent projection" if err_msg else "cotangent projection")


def check_grads(f: Callable, args: Sequence[Any], order: int, modes: Sequence[str] = ("fwd", "rev"),
                atol: Any = None, rtol: Any = None, eps: float | None = None) -> None:
    """`jax.test_util.check_grads`: forward and/or reverse derivatives of f at args, up to
    `order`, against finite differences in one random direction; AssertionError if not."""
    args = tuple(args)
    eps = eps or EPS

    def jvp_from_lin(fun: Callable, primals: tuple, tangents: tuple) -> tuple:
        out, f_lin = linearize(fun, *primals)
        return out, f_lin(*tangents)

    def run(fun: Callable, a: tuple, k: int, msg: str = "") -> None:
        if "fwd" in modes:
            m = f"JVP of {msg}" if msg else "JVP"
            check_jvp(fun, functools.partial(jvp, fun), a, atol, rtol, eps, m)
            if k > 1:
                run(functools.partial(jvp, fun), (a, a), k - 1, m)
        if "rev" in modes:
            m = f"VJP of {msg}" if msg else "VJP"
            check_vjp(fun, functools.partial(vjp, fun), a, atol, rtol, eps, m)
            if k > 1:
                def f_vjp(*xs: Any) -> Any:
                    out, pullback = vjp(fun, *xs)
                    return pullback(out)
                run(f_vjp, a, k - 1, m)
        if "lin" in modes:
            m = f"LIN of {msg}" if msg else "LIN"
            check_jvp(fun, functools.partial(jvp_from_lin, fun), a, atol, rtol, eps, m)
            if k > 1:
                run(functools.partial(jvp_from_lin, fun), (a, a), k - 1, m)

    run(f, args, order)
