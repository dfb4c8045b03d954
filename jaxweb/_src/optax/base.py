"""The core types of optax: GradientTransformation, states, chain, apply_updates.

A transformation is a pair of pure functions (`init(params) -> state`,
`update(updates, state, params) -> (updates, state)`) and states are pytrees, so
optimizers compose, jit and checkpoint like any other JAX value.
"""
from __future__ import annotations

import collections
from typing import Any, Callable, NamedTuple

from ... import numpy as jnp
from ... import tree_util

PyTree = Any
Params = Any
Updates = Any
OptState = Any
Schedule = Callable[[Any], Any]
ScalarOrSchedule = Any

NO_PARAMS_MSG = ("You are using a transformation that requires the current value of parameters, "
                 "but you are not passing `params` when calling `update`.")


class GradientTransformation(NamedTuple):
    """optax's `(init, update)` pair."""
    init: Callable[[Params], OptState]
    update: Callable[..., tuple[Updates, OptState]]


class GradientTransformationExtraArgs(GradientTransformation):
    """A transformation whose `update` accepts extra keyword arguments (e.g. `value`)."""


class EmptyState(NamedTuple):
    """The state of a stateless transformation."""


def init_empty_state(params: Params) -> EmptyState:
    del params
    return EmptyState()


def state_error(where: str, expected: str, state: Any) -> ValueError:
    """The error for a state that another transformation made (a common mix-up when
    states are rebuilt or optimizers swapped)."""
    return ValueError(
        f"{where}: expected the state made by this transformation's init ({expected}), got "
        f"{type(state).__name__}: {_short(state)}. Was this state created by a different "
        f"optimizer? Call init(params) of this optimizer to make a fresh state.")


def check_state(state: Any, expected: type | tuple, where: str) -> None:
    """Raise a clear ValueError unless `state` is an instance of `expected`."""
    if not isinstance(state, expected):
        names = " or ".join(t.__name__ for t in (expected if isinstance(expected, tuple) else (expected,)))
        raise state_error(where, names, state)


def _short(x: Any, limit: int = 120) -> str:
    text = repr(tree_util.tree_map(lambda leaf: f"{getattr(leaf, 'dtype', type(leaf).__name__)}"
                                   f"{list(getattr(leaf, 'shape', ()))}", x))
    return text if len(text) <= limit else text[:limit] + "..."


def identity() -> GradientTransformation:
    """Leave updates unchanged."""
    return GradientTransformation(init_empty_state, lambda updates, state, params=None: (updates, state))


def set_to_zero() -> GradientTransformation:
    """Replace every update by zeros (freezes parameters, e.g. in `multi_transform`)."""
    def update_fn(updates, state, params=None):
        return tree_util.tree_map(jnp.zeros_like, updates), state
    return GradientTransformation(init_empty_state, update_fn)


def stateless(f: Callable[[Updates, Params | None], Updates]) -> GradientTransformation:
    """A transformation from a function of `(updates, params)`."""
    def update_fn(updates, state, params=None):
        return f(updates, params), EmptyState()
    return GradientTransformation(init_empty_state, update_fn)


def stateless_with_tree_map(f: Callable[[Any, Any], Any]) -> GradientTransformation:
    """A transformation applying `f(update_leaf, param_leaf)` leaf by leaf."""
    def update_fn(updates, state, params=None):
        if params is not None:
            return tree_util.tree_map(f, updates, params), EmptyState()
        return tree_util.tree_map(lambda u: f(u, None), updates), EmptyState()
    return GradientTransformation(init_empty_state, update_fn)


def with_extra_args_support(tx: GradientTransformation) -> GradientTransformationExtraArgs:
    """Wrap `tx` so that its update accepts (and ignores) extra keyword arguments."""
    if isinstance(tx, GradientTransformationExtraArgs):
        return tx

    def update(updates, state, params=None, **extra_args):
        return tx.update(updates, state, params)
    return GradientTransformationExtraArgs(tx.init, update)


def chain(*args: GradientTransformation) -> GradientTransformationExtraArgs:
    """Apply transformations in sequence; the state is the tuple of their states."""
    transforms = [with_extra_args_support(t) for t in args]

    def init_fn(params):
        return tuple(t.init(params) for t in transforms)

    def update_fn(updates, state, params=None, **extra_args):
        if not isinstance(state, tuple) or len(state) != len(transforms):
            got = f"a {type(state).__name__} of {len(state)}" if isinstance(state, tuple) else type(state).__name__
            raise ValueError(
                f"chain of {len(transforms)} transformations: the state must be the tuple of "
                f"{len(transforms)} states that init(params) returns, got {got}. The number of "
                f"updates and states has to be the same in chain! Make sure you have called init "
                f"first, and that the state comes from this optimizer.")
        new_state = []
        for s, t in zip(state, transforms):
            updates, s = t.update(updates, s, params, **extra_args)
            new_state.append(s)
        return updates, tuple(new_state)
    return GradientTransformationExtraArgs(init_fn, update_fn)


def named_chain(*args: tuple[str, GradientTransformation]) -> GradientTransformationExtraArgs:
    """`chain` with named states (an OrderedDict keyed by the names)."""
    names = [name for name, _ in args]
    if len(names) != len(set(names)):
        raise ValueError(f"Named transformations must have unique names, but got {names}")
    transforms = [(name, with_extra_args_support(t)) for name, t in args]

    def init_fn(params):
        return collections.OrderedDict((name, t.init(params)) for name, t in transforms)

    def update_fn(updates, state, params=None, **extra_args):
        new_state = collections.OrderedDict()
        for name, t in transforms:
            if name not in state:
                raise state_error("named_chain", f"a state with key {name!r}", state)
            updates, new_state[name] = t.update(updates, state[name], params, **extra_args)
        return updates, new_state
    return GradientTransformationExtraArgs(init_fn, update_fn)


def apply_updates(params: Params, updates: Updates) -> Params:
    """`params + updates` leaf by leaf, keeping each parameter's dtype (None params stay None)."""
    return tree_util.tree_map(
        lambda p, u: None if p is None else jnp.asarray(p + u).astype(jnp.asarray(p).dtype),
        params, updates, is_leaf=lambda x: x is None)


def incremental_update(new_tensors: Params, old_tensors: Params, step_size: Any) -> Params:
    """Polyak averaging: `step_size * new + (1 - step_size) * old`."""
    return tree_util.tree_map(
        lambda n, o: None if n is None else step_size * n + (1.0 - step_size) * o,
        new_tensors, old_tensors, is_leaf=lambda x: x is None)


def periodic_update(new_tensors: Params, old_tensors: Params, steps: Any, update_period: int) -> Params:
    """`new_tensors` every `update_period` steps, else `old_tensors`."""
    take = steps % update_period == 0
    return tree_util.tree_map(lambda n, o: jnp.where(take, n, o), new_tensors, old_tensors)
