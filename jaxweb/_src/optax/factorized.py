"""Adafactor's factored second moments: for a matrix-like leaf keep only row and column
means of the squared gradients (O(n + m) memory instead of O(n m))."""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

from ... import numpy as jnp
from ... import tree_util
from . import base, numerics


def _decay_rate_pow(i: Any, exponent: Any = 0.8) -> Any:
    t = jnp.array(i + 1, jnp.float32)
    return 1.0 - t ** (-exponent)


def _factored_dims(shape: tuple, factored: bool, min_dim_size_to_factor: int) -> tuple[int, int] | None:
    """The two largest axes (second largest first), or None if not worth factoring."""
    if not factored or len(shape) < 2:
        return None
    order = sorted(range(len(shape)), key=lambda i: shape[i])
    if shape[order[-2]] < min_dim_size_to_factor:
        return None
    return order[-2], order[-1]


class _UpdateResult:
    """One leaf's results (a plain object: a leaf for tree_map, as optax's dataclass)."""
    __slots__ = ("update", "v_row", "v_col", "v")

    def __init__(self, update, v_row, v_col, v):
        self.update, self.v_row, self.v_col, self.v = update, v_row, v_col, v


class FactoredState(NamedTuple):
    count: Any
    v_row: Any
    v_col: Any
    v: Any


def scale_by_factored_rms(factored: bool = True, decay_rate: Any = 0.8, step_offset: Any = 0,
                          min_dim_size_to_factor: int = 128, epsilon: Any = 1e-30,
                          decay_rate_fn: Callable[[Any, Any], Any] = _decay_rate_pow) -> base.GradientTransformation:
    """Adafactor's rescaling by a (factored) RMS of past gradients."""
    def to_state(count, results):
        pick = lambda name: tree_util.tree_map(lambda o: getattr(o, name), results)  # noqa: E731
        return FactoredState(count=count, v_row=pick("v_row"), v_col=pick("v_col"), v=pick("v"))

    def init_one(param):
        dims = _factored_dims(param.shape, factored, min_dim_size_to_factor)
        one = jnp.zeros((1,), dtype=param.dtype)
        if dims is not None:
            d1, d0 = dims
            row = jnp.zeros(tuple(s for i, s in enumerate(param.shape) if i != d0), param.dtype)
            col = jnp.zeros(tuple(s for i, s in enumerate(param.shape) if i != d1), param.dtype)
            return _UpdateResult(one, row, col, one)
        return _UpdateResult(one, one, one, jnp.zeros_like(param))

    def init_fn(params):
        return to_state(jnp.zeros([], jnp.int32), tree_util.tree_map(init_one, params))

    def update_one(grad, v_row, v_col, v, param, step):
        dtype = param.dtype
        rate = decay_rate_fn(step - step_offset, decay_rate)
        new_v_row = new_v_col = new_v = jnp.zeros((1,), dtype=dtype)
        dims = _factored_dims(param.shape, factored, min_dim_size_to_factor)
        grad_sqr = numerics.abs_sq(grad) + epsilon
        if dims is not None:
            d1, d0 = dims
            new_v_row = (rate * v_row + (1.0 - rate) * jnp.mean(grad_sqr, axis=d0)).astype(dtype)
            new_v_col = (rate * v_col + (1.0 - rate) * jnp.mean(grad_sqr, axis=d1)).astype(dtype)
            reduced_d1 = d1 - 1 if d1 > d0 else d1
            row_col_mean = jnp.mean(new_v_row, axis=reduced_d1, keepdims=True)
            row_factor = (new_v_row / row_col_mean) ** (-0.5)
            col_factor = new_v_col ** (-0.5)
            update = grad * jnp.expand_dims(row_factor, axis=d0) * jnp.expand_dims(col_factor, axis=d1)
        else:
            new_v = (rate * v + (1.0 - rate) * grad_sqr).astype(dtype)
            update = grad * new_v ** (-0.5)
        return _UpdateResult(update, new_v_row, new_v_col, new_v)

    def update_fn(grads, state, params):
        if params is None:
            raise ValueError(base.NO_PARAMS_MSG)
        base.check_state(state, FactoredState, "scale_by_factored_rms")
        out = tree_util.tree_map(lambda *a: update_one(*a, state.count),
                                 grads, state.v_row, state.v_col, state.v, params)
        updates = tree_util.tree_map(lambda o: o.update, out)
        return updates, to_state(numerics.safe_increment(state.count), out)
    return base.GradientTransformation(init_fn, update_fn)
