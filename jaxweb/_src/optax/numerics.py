"""Numerically safe helpers shared by the transformations (optax's `numerics`)."""
from __future__ import annotations

from typing import Any

from ... import numpy as jnp
from ... import tree_util


def abs_sq(x: Any) -> Any:
    """`|x|^2`: `x * x` for real x, `re^2 + im^2` (real) for complex x, as optax."""
    if not hasattr(x, "dtype"):
        raise ValueError(f"`abs_sq` accepts only NDarrays, got: {x}.")
    if jnp.iscomplexobj(x):
        return jnp.real(x) ** 2 + jnp.imag(x) ** 2
    return x * x


def safe_increment(count: Any) -> Any:
    """`count + 1`, saturating at the dtype's maximum instead of wrapping around."""
    dt = jnp.asarray(count).dtype
    if jnp.issubdtype(dt, jnp.integer):
        top = jnp.iinfo(dt).max
    elif jnp.issubdtype(dt, jnp.floating):
        top = jnp.finfo(dt).max
    else:
        raise ValueError(f'Cannot safely increment count with dtype {dt}, valid dtypes are '
                         f'subdtypes of "jnp.integer" or "jnp.floating".')
    top = jnp.array(top, dt)
    return jnp.where(count < top, count + jnp.array(1, dt), top)


safe_int32_increment = safe_increment


def _norm(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return jnp.sqrt(jnp.sum(abs_sq(x), axis=axis, keepdims=keepdims))


def safe_norm(x: Any, min_norm: Any, ord: Any = None, axis: Any = None,
              keepdims: bool = False) -> Any:
    """The 2-norm of `x`, but `min_norm` (with a zero gradient) where it is below it."""
    if ord not in (None, 2, "fro"):
        raise NotImplementedError(f"safe_norm: only the 2-norm is supported here, got ord={ord!r}")
    norm = _norm(x, axis, keepdims=True)
    x = jnp.where(norm <= min_norm, jnp.ones_like(x), x)
    norm = jnp.squeeze(norm, axis=axis) if not keepdims else norm
    masked = _norm(x, axis, keepdims)
    return jnp.where(norm <= min_norm, min_norm, masked)


def safe_root_mean_squares(x: Any, min_rms: Any) -> Any:
    """The RMS of `x`, but `min_rms` (with a zero gradient) where it is below it."""
    rms = jnp.sqrt(jnp.mean(abs_sq(x)))
    x = jnp.where(rms <= min_rms, jnp.ones_like(x), x)
    return jnp.where(rms <= min_rms, min_rms, jnp.sqrt(jnp.mean(abs_sq(x))))


def global_norm(updates: Any) -> Any:
    """The 2-norm of all leaves together (optax's deprecated alias of `tree_norm`)."""
    return jnp.sqrt(sum(jnp.sum(abs_sq(x)) for x in tree_util.tree_leaves(updates)))
