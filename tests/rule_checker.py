"""Generic checks of a function's transformation rules, for primitive tests.

    from rule_checker import check_jvp, check_vjp, check_vmap, check_grads
    check_grads(jnp.sin, (x,), order=2)          # jvp vs finite differences, vjp vs jvp
    check_vmap(lax.add, (xs, y), in_axes=(0, None))  # vmap vs a Python loop

- `check_jvp(f, args, eps, atol, rtol)`: jvp against central finite differences
  along a random tangent, in the arguments' precision (float32, or float64 under
  `jaxweb.config.update('jax_enable_x64', True)`).
- `check_vjp(f, args, atol, rtol)`: the dot-product test <vjp(ct), t> == <ct, jvp(t)>
  (transpose rules consistent with jvp rules).
- `check_vmap(f, args, in_axes, out_axes, atol, rtol)`: vmap against stacking the
  results of a Python loop over the mapped axis.
- `check_grads(f, args, order, modes, atol, rtol, eps)`: like `jax.test_util.check_grads`,
  recursively to `order` in modes "fwd" (jvp) and "rev" (vjp).

`f` takes positional array arguments (numpy or jaxweb arrays; integer/bool ones
are held fixed) and returns an array or a pytree of arrays. Random directions
come from a seeded generator, so failures reproduce.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

import jaxweb
import jaxweb.numpy as jnp
from jaxweb._src import dtypes
from jaxweb._src.lax.structural import full
from jaxweb.tree_util import tree_flatten, tree_unflatten

__all__ = ["check_jvp", "check_vjp", "check_vmap", "check_grads"]

_JVP_TOL = {"float16": 5e-2, "bfloat16": 1.5e-1, "float32": 1e-2, "float64": 1e-5}
_EXACT_TOL = {"float16": 1e-3, "bfloat16": 1e-2, "float32": 1e-5, "float64": 1e-12}
_EPS = {"float16": 3e-2, "bfloat16": 1e-1, "float32": 4e-3, "float64": 1e-5}


def _rng(seed: int = 0) -> np.random.RandomState:
    return np.random.RandomState(seed)


def _as_jax(x: Any) -> Any:
    return x if isinstance(x, jaxweb.Array) else jnp.asarray(x)


def _dtype_name(x: Any) -> str:
    """The dtype's name; a complex dtype's is that of its parts (tolerances, steps)."""
    return dtypes.real_part_dtype(dtypes.dtype(x.dtype)).name


def _is_complex(x: Any) -> bool:
    return dtypes.dtype(x.dtype).kind == "c"


def _is_float(x: Any) -> bool:
    """Differentiable: a float or complex leaf."""
    return dtypes.dtype(x.dtype).kind in "fc"


def _is_float0(x: Any) -> bool:
    return dtypes.dtype(x.dtype) is dtypes.float0


def _np64(x: Any) -> np.ndarray:
    a = np.asarray(x)
    return a.astype(np.float64) if a.dtype.kind in "fiub" else a.astype(np.complex128) if a.dtype.kind == "c" else a


def _rand_like(rng: np.random.RandomState, x: Any) -> Any:
    """A random array shaped/typed like `x` (a float0 zero for integer/bool `x`)."""
    if not _is_float(x):
        return full(x.shape, 0, dtypes.float0)
    if _is_complex(x):
        parts = rng.standard_normal((2,) + tuple(x.shape))
        return jnp.asarray((parts[0] + 1j * parts[1]).astype(np.complex64), dtype=x.dtype)
    return jnp.asarray(rng.standard_normal(x.shape).astype(np.float32), dtype=x.dtype)


def _as_cotangent(y: Any) -> Any:
    """`y` itself as a cotangent for a float output; the float0 zero for an integer one."""
    return y if _is_float(y) else full(y.shape, 0, dtypes.float0)


def _tol(xs: Sequence[Any], table: dict, given: float | None) -> float:
    if given is not None:
        return given
    names = [_dtype_name(x) for x in xs if _is_float(x) and _dtype_name(x) in table]
    return max((table.get(n, table["float32"]) for n in names), default=table["float32"])


def _leaves(tree: Any) -> list:
    return tree_flatten(tree)[0]


def _assert_close(actual: Any, expected: Any, atol: float, rtol: float, what: str) -> None:
    for i, (a, e) in enumerate(zip(_leaves(actual), _leaves(expected))):
        if hasattr(a, "dtype") and _is_float0(a):
            continue
        np.testing.assert_allclose(_np64(a), _np64(e), atol=atol, rtol=rtol, equal_nan=True,
                                   err_msg=f"{what} (output leaf {i})")


# ---------------------------------------------------------------- jvp
def _perturbed(args: Sequence[Any], tangents: Sequence[Any], eps: float) -> tuple[list, list, list]:
    """x + eps t and x - eps t rounded to each argument's dtype, and the tangent they
    really differ by, (x+ - x-) / 2 eps (exact even when rounding moved the points)."""
    plus, minus, t_eff = [], [], []
    for x, t in zip(args, tangents):
        if not _is_float(x):
            xp = xm = x
            te = t
        else:
            host = np.float64 if _dtype_name(x) == "float64" else np.float32
            if _is_complex(x):
                host = np.complex128 if host is np.float64 else np.complex64
            xp = jnp.asarray((_np64(x) + eps * _np64(t)).astype(host), dtype=x.dtype)
            xm = jnp.asarray((_np64(x) - eps * _np64(t)).astype(host), dtype=x.dtype)
            te = jnp.asarray(((_np64(xp) - _np64(xm)) / (2 * eps)).astype(host), dtype=x.dtype)
        plus.append(xp)
        minus.append(xm)
        t_eff.append(te)
    return plus, minus, t_eff


def numerical_jvp(f: Callable, args: Sequence[Any], tangents: Sequence[Any], eps: float) -> tuple[list, list]:
    """Central differences along `tangents`: the float output leaves' estimates (float64,
    None for integer outputs) and the effective tangents they correspond to."""
    plus, minus, t_eff = _perturbed(args, tangents, eps)
    out = [None if not _is_float(p) else (_np64(p) - _np64(m)) / (2 * eps)
           for p, m in zip(_leaves(f(*plus)), _leaves(f(*minus)))]
    return out, t_eff


def check_jvp(f: Callable, args: Sequence[Any], eps: float | None = None, atol: float | None = None,
              rtol: float | None = None, seed: int = 0) -> None:
    """Assert jvp(f) agrees with central finite differences along a random tangent.

    Step and tolerances follow the least precise float dtype among inputs and outputs."""
    args = [_as_jax(a) for a in args]
    rng = _rng(seed)
    tangents = [_rand_like(rng, x) for x in args]
    typed = args + _leaves(jaxweb.eval_shape(f, *args))
    eps = eps if eps is not None else _tol(typed, _EPS, None)
    tol_a, tol_r = _tol(typed, _JVP_TOL, atol), _tol(typed, _JVP_TOL, rtol)
    num, t_eff = numerical_jvp(f, args, tangents, eps)
    _, t_out = jaxweb.jvp(f, tuple(args), tuple(t_eff))
    pairs = [(t, n) for t, n in zip(_leaves(t_out), num) if n is not None and not _is_float0(t)]
    _assert_close([t for t, _ in pairs], [n for _, n in pairs], tol_a, tol_r, "jvp vs finite differences")


# ---------------------------------------------------------------- vjp
def _inner(xs: Sequence[Any], ys: Sequence[Any]) -> tuple[float, float]:
    """Sum of elementwise products over float leaves, and the sum of their magnitudes. For
    complex leaves the real part of the (unconjugated) products: JAX's transposes are those
    of real-linear maps under that pairing."""
    total, scale = 0.0, 0.0
    for x, y in zip(xs, ys):
        if _is_float0(x) or _is_float0(y):
            continue
        p = _np64(x) * _np64(y)
        total += float(np.real(np.sum(p)))
        scale += float(np.sum(np.abs(p)))
    return total, scale


def check_vjp(f: Callable, args: Sequence[Any], atol: float | None = None, rtol: float | None = None,
              seed: int = 0) -> None:
    """Assert the dot-product test <vjp(ct), t> == <ct, jvp(t)> for random t and ct."""
    args = [_as_jax(a) for a in args]
    rng = _rng(seed + 1)
    tangents = [_rand_like(rng, x) for x in args]
    out, t_out = jaxweb.jvp(f, tuple(args), tuple(tangents))
    out_leaves, out_tree = tree_flatten(out)
    cts = [_rand_like(rng, o) for o in out_leaves]
    _, f_vjp = jaxweb.vjp(f, *args)
    ct_in = f_vjp(tree_unflatten(out_tree, cts))
    lhs, s1 = _inner(_leaves(ct_in), tangents)
    rhs, s2 = _inner(cts, _leaves(t_out))
    typed = args + out_leaves
    tol_a, tol_r = _tol(typed, _EXACT_TOL, atol), _tol(typed, _EXACT_TOL, rtol)
    scale = max(s1, s2, 1.0)
    assert abs(lhs - rhs) <= tol_a * scale + tol_r * max(abs(lhs), abs(rhs)) * 10, \
        f"vjp/jvp dot-product test failed: <vjp(ct), t> = {lhs!r} but <ct, jvp(t)> = {rhs!r}"


# ---------------------------------------------------------------- vmap
def check_vmap(f: Callable, args: Sequence[Any], in_axes: Any = 0, out_axes: Any = 0,
               atol: float | None = None, rtol: float | None = None) -> None:
    """Assert vmap(f, in_axes, out_axes) equals a Python loop over the mapped axis, stacked.

    `in_axes` is an int, None, or one int/None per argument (flat arguments)."""
    axes = list(in_axes) if isinstance(in_axes, (tuple, list)) else [in_axes] * len(args)
    host = [np.asarray(a) for a in args]
    sizes = {h.shape[d] for h, d in zip(host, axes) if d is not None}
    assert len(sizes) == 1, f"check_vmap: mapped axes must agree in size, got {sizes}"
    size = sizes.pop()
    jargs = [_as_jax(a) for a in args]
    got = jaxweb.vmap(f, in_axes=tuple(axes), out_axes=out_axes)(*jargs)
    got_leaves, got_tree = tree_flatten(got)
    per_example = []
    for i in range(size):
        sl = [jnp.asarray(np.take(h, i, axis=d), dtype=a.dtype) if d is not None else a
              for h, a, d in zip(host, jargs, axes)]
        per_example.append(_leaves(f(*sl)))
    out_dims = out_axes if isinstance(out_axes, (tuple, list)) else [out_axes] * len(got_leaves)
    tol_a, tol_r = _tol(jargs, _EXACT_TOL, atol), _tol(jargs, _EXACT_TOL, rtol)
    for k, (g, od) in enumerate(zip(got_leaves, out_dims)):
        expected = np.stack([np.asarray(ex[k]) for ex in per_example])
        if od is None:
            expected = expected[0]
        else:
            expected = np.moveaxis(expected, 0, od)
        ref_dtype = dtypes.dtype(per_example[0][k].dtype) if size else dtypes.dtype(g.dtype)
        assert dtypes.dtype(g.dtype) is ref_dtype, \
            f"vmap output leaf {k} has dtype {g.dtype}, loop gives {ref_dtype}"
        assert tuple(g.shape) == expected.shape, \
            f"vmap output leaf {k} has shape {tuple(g.shape)}, loop gives {expected.shape}"
        np.testing.assert_allclose(_np64(g), _np64(expected), atol=tol_a, rtol=tol_r, equal_nan=True,
                                   err_msg=f"vmap vs loop (output leaf {k})")


# ---------------------------------------------------------------- check_grads
def check_grads(f: Callable, args: Sequence[Any], order: int = 1, modes: Sequence[str] = ("fwd", "rev"),
                atol: float | None = None, rtol: float | None = None, eps: float | None = None) -> None:
    """Check jvp ("fwd") and vjp ("rev") of `f` at `args`, and recursively up to `order`
    (the derivatives of `(x, t) -> jvp(f, x, t)` and of `x -> vjp(f, x)[1](f(x))`)."""
    args = [_as_jax(a) for a in args]
    if order < 1:
        return
    if "fwd" in modes:
        check_jvp(f, args, eps=eps, atol=atol, rtol=rtol)
        if order > 1:
            n = len(args)

            def f_jvp(*primals_tangents):
                return jaxweb.jvp(f, tuple(primals_tangents[:n]), tuple(primals_tangents[n:]))

            tangents = [_rand_like(_rng(7), x) for x in args]
            check_grads(f_jvp, [*args, *tangents], order - 1, modes, atol, rtol, eps)
    if "rev" in modes:
        check_vjp(f, args, atol=atol, rtol=rtol)
        if order > 1:
            def f_vjp(*primals):
                y, pullback = jaxweb.vjp(f, *primals)
                return pullback(jaxweb.tree_util.tree_map(_as_cotangent, y))

            check_grads(f_vjp, args, order - 1, modes, atol, rtol, eps)
