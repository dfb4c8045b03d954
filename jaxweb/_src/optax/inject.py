"""`inject_hyperparams`: make an optimizer's numeric hyperparameters part of its state,
so that they can be read (`state.hyperparams['learning_rate']`), changed between steps
without re-jitting, or driven by schedules."""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Iterable, NamedTuple

from ... import numpy as jnp
from ..array import ArrayType
from . import base, numerics
from . import tree_utils as tu


class InjectHyperparamsState(NamedTuple):
    count: Any
    hyperparams: dict
    inner_state: Any


class InjectStatefulHyperparamsState(NamedTuple):
    count: Any
    hyperparams: dict
    hyperparams_states: dict
    inner_state: Any


class WrappedScheduleState(NamedTuple):
    count: Any


class WrappedSchedule:
    """A plain schedule `f(count)` as a stateful one (the state counts steps)."""

    def __init__(self, schedule_fn: Callable[[Any], Any]):
        self.schedule_fn = schedule_fn

    def init(self) -> WrappedScheduleState:
        return WrappedScheduleState(count=jnp.zeros([], jnp.int32))

    def update(self, state: WrappedScheduleState, **extra_args: Any) -> WrappedScheduleState:
        return WrappedScheduleState(count=numerics.safe_increment(state.count))

    def __call__(self, state: WrappedScheduleState, **extra_args: Any) -> Any:
        return self.schedule_fn(state.count)


def _is_stateful_schedule(x: Any) -> bool:
    return all(callable(getattr(x, n, None)) for n in ("init", "update", "__call__"))


def _convert_floats(x: Any, dtype: Any) -> Any:
    if isinstance(x, ArrayType) and not getattr(x, "weak_type", False):
        return x
    current = x.dtype if hasattr(x, "dtype") else type(x)
    if jnp.issubdtype(current, jnp.floating):
        return jnp.asarray(x, dtype=dtype)
    return x


def _numeric(value: Any) -> bool:
    return isinstance(value, (int, float, ArrayType)) or hasattr(value, "__array__")


def inject_hyperparams(inner_factory: Callable[..., base.GradientTransformation],
                       static_args: str | Iterable[str] = (),
                       hyperparam_dtype: Any = None) -> Callable[..., base.GradientTransformationExtraArgs]:
    """Wrap an optimizer factory so numeric arguments (and schedules, evaluated each step)
    live in `state.hyperparams`; `static_args` names arguments kept as Python values."""
    static_args = {static_args} if isinstance(static_args, str) else set(static_args)
    signature = inspect.signature(inner_factory)
    if not static_args.issubset(signature.parameters):
        raise ValueError("`static_args` must specify a subset of `inner_factory`'s parameters. Given "
                         f"`static_args`: {static_args}. `inner_factory` parameters: "
                         f"{set(signature.parameters.keys())}")

    @functools.wraps(inner_factory)
    def wrapped_transform(*args: Any, **kwargs: Any) -> base.GradientTransformationExtraArgs:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        sched_hps, numeric_hps, other_hps = {}, {}, {}
        for name, value in bound.arguments.items():
            if name in static_args or isinstance(value, bool):
                other_hps[name] = value
            elif _is_stateful_schedule(value) and not isinstance(value, ArrayType):
                sched_hps[name] = value
            elif callable(value):
                sched_hps[name] = WrappedSchedule(value)
            elif _numeric(value):
                numeric_hps[name] = value
            else:
                other_hps[name] = value

        def dtype_of(params):
            return hyperparam_dtype if hyperparam_dtype is not None else tu.tree_dtype(params, "highest")

        def init_fn(params):
            dtype = dtype_of(params)
            hparams = {k: jnp.asarray(_convert_floats(v, dtype)) for k, v in numeric_hps.items()}
            states = {k: f.init() for k, f in sched_hps.items()}
            hparams.update({k: _convert_floats(f(states[k]), dtype) for k, f in sched_hps.items()})
            return InjectStatefulHyperparamsState(count=jnp.zeros([], jnp.int32), hyperparams=hparams,
                                                  hyperparams_states=states,
                                                  inner_state=inner_factory(**other_hps, **hparams).init(params))

        def update_fn(updates, state, params=None, **extra_args):
            base.check_state(state, (InjectStatefulHyperparamsState,), "inject_hyperparams")
            dtype = dtype_of(params if params is not None else updates)
            hparams = {k: _convert_floats(v, dtype) for k, v in state.hyperparams.items()}
            hparams.update({k: _convert_floats(f(state.hyperparams_states[k], **extra_args), dtype)
                            for k, f in sched_hps.items()})
            states = {k: f.update(state.hyperparams_states[k], **extra_args) for k, f in sched_hps.items()}
            inner = base.with_extra_args_support(inner_factory(**other_hps, **hparams))
            updates, inner_state = inner.update(updates, state.inner_state, params, **extra_args)
            return updates, InjectStatefulHyperparamsState(count=numerics.safe_increment(state.count),
                                                           hyperparams=hparams, hyperparams_states=states,
                                                           inner_state=inner_state)
        return base.GradientTransformationExtraArgs(init_fn, update_fn)
    return wrapped_transform


def inject_stateful_hyperparams(inner_factory: Callable[..., base.GradientTransformation],
                                static_args: str | Iterable[str] = (),
                                hyperparam_dtype: Any = None) -> Callable[..., base.GradientTransformationExtraArgs]:
    """Deprecated in optax: the same as `inject_hyperparams`."""
    return inject_hyperparams(inner_factory, static_args, hyperparam_dtype)
