"""Arithmetic on pytrees (optax's `tree_utils` / `optax.tree`): the building blocks of
every optimizer, each a `tree_map` of elementwise jnp so that it fuses per leaf."""
from __future__ import annotations

import functools
import operator
from typing import Any

from ... import numpy as jnp
from ... import tree_util
from . import numerics

_is_none = lambda x: x is None  # noqa: E731  (None leaves: masked or absent updates)


def tree_add(tree_x: Any, tree_y: Any, *other_trees: Any) -> Any:
    return tree_util.tree_map(lambda *leaves: sum(leaves[1:], leaves[0]), tree_x, tree_y, *other_trees)


def tree_sub(tree_x: Any, tree_y: Any) -> Any:
    return tree_util.tree_map(operator.sub, tree_x, tree_y)


def tree_mul(tree_x: Any, tree_y: Any) -> Any:
    return tree_util.tree_map(operator.mul, tree_x, tree_y)


def tree_div(tree_x: Any, tree_y: Any) -> Any:
    return tree_util.tree_map(operator.truediv, tree_x, tree_y)


def tree_scale(scalar: Any, tree: Any) -> Any:
    return tree_util.tree_map(lambda x: scalar * x, tree)


def tree_add_scale(tree_x: Any, scalar: Any, tree_y: Any) -> Any:
    """`tree_x + scalar * tree_y`."""
    scalar = jnp.asarray(scalar)
    return tree_util.tree_map(lambda x, y: None if x is None else x + scalar * y,
                              tree_x, tree_y, is_leaf=_is_none)


def tree_vdot(tree_x: Any, tree_y: Any) -> Any:
    """The inner product of two trees (sum over all leaves)."""
    vdots = tree_util.tree_map(lambda a, b: jnp.sum(jnp.asarray(a) * jnp.asarray(b)), tree_x, tree_y)
    return tree_util.tree_reduce(operator.add, vdots, initializer=0)


def tree_sum(tree: Any, associative_reduction: bool = False) -> Any:
    sums = tree_util.tree_map(jnp.sum, tree)
    if associative_reduction:
        return tree_util.tree_reduce_associative(operator.add, sums, identity=0)
    return tree_util.tree_reduce(operator.add, sums, initializer=0)


def tree_max(tree: Any) -> Any:
    maxes = tree_util.tree_map(lambda a: None if jnp.size(a) == 0 else jnp.max(a), tree)
    return tree_util.tree_reduce(jnp.maximum, maxes, initializer=-float("inf"))


def tree_min(tree: Any) -> Any:
    mins = tree_util.tree_map(lambda a: None if jnp.size(a) == 0 else jnp.min(a), tree)
    return tree_util.tree_reduce(jnp.minimum, mins, initializer=float("inf"))


def tree_size(tree: Any) -> int:
    return sum(jnp.size(leaf) for leaf in tree_util.tree_leaves(tree))


def tree_conj(tree: Any) -> Any:
    return tree_util.tree_map(jnp.conj, tree)


def tree_real(tree: Any) -> Any:
    return tree_util.tree_map(jnp.real, tree)


def tree_norm(tree: Any, ord: Any = None, squared: bool = False) -> Any:
    """The norm of all leaves taken together (2-norm by default; 1 and inf too)."""
    if ord is None or ord == 2:
        sq = tree_sum(tree_util.tree_map(lambda x: jnp.square(x), tree))
        return jnp.array(sq if squared else jnp.sqrt(sq))
    if ord == 1:
        ret = tree_sum(tree_util.tree_map(jnp.abs, tree))
    elif ord in (float("inf"), "inf", "infinity"):
        ret = tree_max(tree_util.tree_map(jnp.abs, tree))
    else:
        raise ValueError(f"Unsupported ord: {ord}")
    return jnp.array(ret if not squared else jnp.square(ret))


def tree_l2_norm(tree: Any, squared: bool = False) -> Any:
    """optax's older name for `tree_norm(tree, squared=...)`."""
    return tree_norm(tree, squared=squared)


def tree_batch_shape(tree: Any, shape: tuple[int, ...] = ()) -> Any:
    return tree_util.tree_map(lambda x: jnp.broadcast_to(x, (*shape, *jnp.shape(x))), tree)


def tree_zeros_like(tree: Any, dtype: Any = None) -> Any:
    return tree_util.tree_map(lambda x: jnp.zeros_like(x, dtype=dtype), tree)


def tree_ones_like(tree: Any, dtype: Any = None) -> Any:
    return tree_util.tree_map(lambda x: jnp.ones_like(x, dtype=dtype), tree)


def tree_full_like(tree: Any, fill_value: Any, dtype: Any = None) -> Any:
    return tree_util.tree_map(lambda x: jnp.full_like(x, fill_value, dtype=dtype), tree)


def tree_clip(tree: Any, min_value: Any = None, max_value: Any = None) -> Any:
    return tree_util.tree_map(lambda g: jnp.clip(g, min_value, max_value), tree)


def tree_where(condition: Any, tree_x: Any, tree_y: Any) -> Any:
    return tree_util.tree_map(lambda x, y: jnp.where(condition, x, y), tree_x, tree_y)


def tree_allclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False) -> Any:
    leaves = tree_util.tree_leaves(tree_util.tree_map(
        lambda x, y: jnp.allclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan), a, b))
    return functools.reduce(operator.and_, leaves, True)


# ---------------------------------------------------------------- moments
def tree_update_moment(updates: Any, moments: Any, decay: Any, order: int) -> Any:
    """EMA of the `order`-th power: `(1 - decay) * g**order + decay * m`."""
    return tree_util.tree_map(
        lambda g, t: None if g is None else (1 - decay) * g ** order + decay * t,
        updates, moments, is_leaf=_is_none)


def tree_update_infinity_moment(updates: Any, moments: Any, decay: Any, eps: Any) -> Any:
    """`max(|g| + eps, decay * m)` (Adamax's infinity norm)."""
    return tree_util.tree_map(
        lambda g, t: g if g is None else jnp.maximum(jnp.abs(g) + eps, decay * t),
        updates, moments, is_leaf=_is_none)


def tree_update_moment_per_elem_norm(updates: Any, moments: Any, decay: Any, order: int) -> Any:
    """EMA of `|g|**order` (for real inputs, `g**order`)."""
    return tree_util.tree_map(
        lambda g, t: None if g is None else (1 - decay) * g ** order + decay * t,
        updates, moments, is_leaf=_is_none)


def tree_bias_correction(moment: Any, decay: Any, count: Any) -> Any:
    """`moment / (1 - decay**count)`, in each leaf's dtype."""
    correction = 1 - decay ** count
    return tree_util.tree_map(lambda t: t / jnp.asarray(correction).astype(t.dtype), moment)


# ---------------------------------------------------------------- dtypes
def tree_cast(tree: Any, dtype: Any) -> Any:
    if dtype is None:
        return tree
    return tree_util.tree_map(lambda t: t.astype(dtype), tree)


def tree_cast_like(tree: Any, other_tree: Any) -> Any:
    return tree_util.tree_map(lambda t, o: t.astype(o.dtype) if hasattr(o, "dtype") else t,
                              tree, other_tree)


def _lower(a: Any, b: Any) -> Any:
    if jnp.promote_types(a, b) == a:
        return b
    if jnp.promote_types(a, b) == b:
        return a
    raise ValueError(f"Cannot compare dtype of dtype1={a!r} and dtype2={b!r}. Neither {a} nor "
                     f"{b} can be promoted to the other.")


def _higher(a: Any, b: Any) -> Any:
    return b if _lower(a, b) == a else a


_DTYPE_HANDLERS = {"promote": jnp.promote_types, "highest": _higher, "lowest": _lower}


def tree_dtype(tree: Any, mixed_dtype_handler: str | None = None) -> Any:
    """The dtype of a tree's leaves; with mixed dtypes, 'promote', 'highest' or 'lowest'."""
    leaves = tree_util.tree_leaves(tree)
    if not leaves:
        return jnp.asarray(leaves).dtype
    dts = [jnp.asarray(x).dtype for x in leaves]
    if mixed_dtype_handler is None:
        bad = [f"Expected dtype={dts[0]!r} for {tree_util.keystr(p)} but got {jnp.asarray(x).dtype}."
               for p, x in tree_util.tree_leaves_with_path(tree) if jnp.asarray(x).dtype != dts[0]]
        if bad:
            raise ValueError("\n".join(bad))
        return dts[0]
    if mixed_dtype_handler not in _DTYPE_HANDLERS:
        raise ValueError(f"Invalid value for mixed_dtype_handler={mixed_dtype_handler!r}, possible "
                         f'values are: None, "promote", "highest", "lowest".')
    return functools.reduce(_DTYPE_HANDLERS[mixed_dtype_handler], dts)


def tree_get_all_with_path(tree: Any, key: Any) -> list:
    """`[(path, value)]` of every node of `tree` that is a NamedTuple/dict field named `key`."""
    found: list = []

    def visit(path, node):
        fields = getattr(node, "_fields", None)
        items = (zip(fields, node) if fields is not None else node.items() if isinstance(node, dict) else
                 enumerate(node) if isinstance(node, (list, tuple)) else ())
        for k, v in items:
            sub = path + ((tree_util.GetAttrKey(k) if fields is not None else tree_util.DictKey(k)
                           if isinstance(node, dict) else tree_util.SequenceKey(k)),)
            if k == key and (fields is not None or isinstance(node, dict)):
                found.append((sub, v))
            visit(sub, v)
    visit((), tree)
    return found


def tree_get(tree: Any, key: Any, default: Any = None) -> Any:
    """The unique field named `key` in `tree` (e.g. `tree_get(opt_state, "count")`)."""
    found = tree_get_all_with_path(tree, key)
    if len(found) > 1:
        raise KeyError(f"Found multiple values for '{key}' in {tree_util.tree_structure(tree)}.")
    return found[0][1] if found else default


__all__ = [n for n in dir() if n.startswith("tree_")]
abs_sq = numerics.abs_sq
