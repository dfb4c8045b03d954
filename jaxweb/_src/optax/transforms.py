"""Elementary transformations: scaling (fixed, scheduled, learning rate, trust ratio),
momentum (`trace`, `ema`), weight decay, clipping, gradient accumulation every k steps."""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

from ... import numpy as jnp, tree_util
from . import base, numerics, tree_utils as tu
from .moments import _canon, _count0
from .wrappers import masked

_is_none = lambda x: x is None  # noqa: E731


def scale(step_size: Any) -> base.GradientTransformation:
    """Multiply every update by `step_size`."""
    def update_fn(updates, state, params=None):
        return tree_util.tree_map(lambda g: step_size * g, updates), state
    return base.GradientTransformation(base.init_empty_state, update_fn)


class ScaleByScheduleState(NamedTuple):
    count: Any


def scale_by_schedule(step_size_fn: Callable[[Any], Any]) -> base.GradientTransformation:
    """Multiply by `step_size_fn(count)`; `count` starts at 0 and counts updates."""
    def init_fn(params):
        return ScaleByScheduleState(count=_count0())

    def update_fn(updates, state, params=None):
        base.check_state(state, ScaleByScheduleState, "scale_by_schedule")
        step_size = step_size_fn(state.count)
        updates = tree_util.tree_map(lambda g: jnp.array(step_size, dtype=g.dtype) * g, updates)
        return updates, ScaleByScheduleState(count=numerics.safe_increment(state.count))
    return base.GradientTransformation(init_fn, update_fn)


def scale_by_learning_rate(learning_rate: Any = None, *, flip_sign: bool = True) -> base.GradientTransformation:
    """Scale by `-learning_rate` (a number or a schedule); identity for None."""
    if learning_rate is None:
        return base.identity()
    m = -1 if flip_sign else 1
    if callable(learning_rate):
        return scale_by_schedule(lambda count: m * learning_rate(count))
    return scale(m * learning_rate)


def scale_by_trust_ratio(min_norm: Any = 0.0, trust_coefficient: Any = 1.0,
                         eps: Any = 0.0) -> base.GradientTransformation:
    """LARS/LAMB's layer-wise rescaling by `||param|| / ||update||` (1 where either is 0)."""
    def update_fn(updates, state, params):
        if params is None:
            raise ValueError(base.NO_PARAMS_MSG)

        def one(u, p):
            p_norm = numerics.safe_norm(p, min_norm)
            u_norm = numerics.safe_norm(u, min_norm)
            ratio = trust_coefficient * p_norm / (u_norm + eps)
            zero = jnp.logical_or(p_norm == 0.0, u_norm == 0.0)
            return u * jnp.where(zero, jnp.array(1.0, dtype=p.dtype), ratio)
        return tree_util.tree_map(one, updates, params), state
    return base.GradientTransformation(base.init_empty_state, update_fn)


def scale_by_param_block_norm(min_scale: Any = 1e-3) -> base.GradientTransformation:
    """Multiply each update by its parameter's norm (at least `min_scale`)."""
    def update_fn(updates, state, params):
        if params is None:
            raise ValueError(base.NO_PARAMS_MSG)
        return tree_util.tree_map(lambda u, p: u * numerics.safe_norm(p, min_scale), updates, params), state
    return base.GradientTransformation(base.init_empty_state, update_fn)


def scale_by_param_block_rms(min_scale: Any = 1e-3) -> base.GradientTransformation:
    """Multiply each update by its parameter's RMS (at least `min_scale`; Adafactor)."""
    def update_fn(updates, state, params):
        if params is None:
            raise ValueError(base.NO_PARAMS_MSG)
        return tree_util.tree_map(lambda u, p: u * numerics.safe_root_mean_squares(p, min_scale),
                                  updates, params), state
    return base.GradientTransformation(base.init_empty_state, update_fn)


def scale_by_sign() -> base.GradientTransformation:
    """Replace updates by their sign (signSGD)."""
    def update_fn(updates, state, params=None):
        return tree_util.tree_map(jnp.sign, updates), state
    return base.GradientTransformation(base.init_empty_state, update_fn)


def centralize() -> base.GradientTransformation:
    """Subtract the mean over all but the first axis from each update of rank > 1."""
    def sub_mean(g):
        return g - g.mean(tuple(range(1, g.ndim)), keepdims=True) if g.ndim > 1 else g

    def update_fn(updates, state, params=None):
        return tree_util.tree_map(sub_mean, updates), state
    return base.GradientTransformation(base.init_empty_state, update_fn)


def normalize_by_update_norm(scale_factor: Any = 1.0, eps: Any = 1e-6) -> base.GradientTransformation:
    """Divide by the global norm of the updates (plus eps), times `scale_factor`."""
    def update_fn(updates, state, params=None):
        g_norm = (tu.tree_norm(updates) + eps) / scale_factor
        return tree_util.tree_map(lambda g: g / g_norm, updates), state
    return base.GradientTransformation(base.init_empty_state, update_fn)


# ---------------------------------------------------------------- momentum
class TraceState(NamedTuple):
    trace: Any


def trace(decay: Any, nesterov: bool = False, accumulator_dtype: Any = None) -> base.GradientTransformation:
    """Momentum: `t = g + decay * t` (Nesterov: `g + decay * t_new`)."""
    accumulator_dtype = _canon(accumulator_dtype)

    def init_fn(params):
        return TraceState(trace=tu.tree_zeros_like(params, dtype=accumulator_dtype))

    def update_fn(updates, state, params=None):
        base.check_state(state, TraceState, "trace")
        f = lambda g, t: g + decay * t  # noqa: E731
        new_trace = tree_util.tree_map(lambda g, t: None if g is None else f(g, t),
                                       updates, state.trace, is_leaf=_is_none)
        updates = tree_util.tree_map(f, updates, new_trace) if nesterov else new_trace
        return updates, TraceState(trace=tu.tree_cast(new_trace, accumulator_dtype))
    return base.GradientTransformation(init_fn, update_fn)


class EmaState(NamedTuple):
    count: Any
    ema: Any


def ema(decay: Any, debias: bool = True, accumulator_dtype: Any = None) -> base.GradientTransformation:
    """An exponential moving average of the updates (debiased by default)."""
    accumulator_dtype = _canon(accumulator_dtype)

    def init_fn(params):
        return EmaState(count=_count0(), ema=tu.tree_zeros_like(params, dtype=accumulator_dtype))

    def update_fn(updates, state, params=None):
        base.check_state(state, EmaState, "ema")
        updates = new_ema = tu.tree_update_moment(updates, state.ema, decay, 1)
        count_inc = numerics.safe_increment(state.count)
        if debias:
            updates = tu.tree_bias_correction(new_ema, decay, count_inc)
        return updates, EmaState(count=count_inc, ema=tu.tree_cast(new_ema, accumulator_dtype))
    return base.GradientTransformation(init_fn, update_fn)


# ---------------------------------------------------------------- weight decay
class WeightDecaySchedule(NamedTuple):
    count: Any


def add_decayed_weights(weight_decay: Any = 0.0, mask: Any = None) -> base.GradientTransformation:
    """Add `weight_decay * params` (decoupled weight decay); `mask` limits it to some leaves."""
    scheduled = callable(weight_decay)

    def init_fn(params):
        return WeightDecaySchedule(count=_count0()) if scheduled else base.EmptyState()

    def update_fn(updates, state, params):
        if params is None:
            raise ValueError(base.NO_PARAMS_MSG)
        base.check_state(state, WeightDecaySchedule if scheduled else base.EmptyState, "add_decayed_weights")
        new_state = WeightDecaySchedule(numerics.safe_increment(state.count)) if scheduled else state
        if isinstance(weight_decay, (int, float)) and weight_decay == 0.0:
            return updates, new_state
        s = weight_decay(state.count) if scheduled else weight_decay
        updates = tree_util.tree_map(lambda g, p: None if g is None else g + s * p,
                                     updates, params, is_leaf=_is_none)
        return updates, new_state
    tx = base.GradientTransformation(init_fn, update_fn)
    if mask is not None:
        return masked(tx, mask)
    return tx


# ---------------------------------------------------------------- clipping
def clip(max_delta: Any) -> base.GradientTransformation:
    """Clip every update element to [-max_delta, max_delta]."""
    def update_fn(updates, state, params=None):
        return tu.tree_clip(updates, -max_delta, max_delta), state
    return base.GradientTransformation(base.init_empty_state, update_fn)


def clip_by_block_rms(threshold: Any) -> base.GradientTransformation:
    """Scale each leaf down so that its RMS is at most `threshold`."""
    def one(u):
        return u / jnp.maximum(1.0, jnp.sqrt(jnp.mean(u * u)) / threshold)

    def update_fn(updates, state, params=None):
        return tree_util.tree_map(one, updates), state
    return base.GradientTransformation(base.init_empty_state, update_fn)


def clip_by_global_norm(max_norm: Any) -> base.GradientTransformation:
    """Scale all updates down together so that their global 2-norm is at most `max_norm`."""
    def update_fn(updates, state, params=None):
        g_norm = tu.tree_norm(updates)
        trigger = jnp.squeeze(g_norm < max_norm)
        updates = tree_util.tree_map(
            lambda t: jnp.where(trigger, t, t / g_norm.astype(t.dtype) * max_norm), updates)
        return updates, state
    return base.GradientTransformation(base.init_empty_state, update_fn)


# ---------------------------------------------------------------- accumulation
class ApplyEvery(NamedTuple):
    count: Any
    grad_acc: Any


def apply_every(k: int = 1) -> base.GradientTransformation:
    """Accumulate updates and emit their sum every k steps (zeros in between)."""
    def init_fn(params):
        return ApplyEvery(count=_count0(), grad_acc=tu.tree_zeros_like(params))

    def update_fn(updates, state, params=None):
        base.check_state(state, ApplyEvery, "apply_every")
        c = state.count % k
        acc = c != 0
        grad_acc = tree_util.tree_map(lambda g, ga: acc * ga + g, updates, state.grad_acc)
        emit = c == k - 1
        updates = tree_util.tree_map(lambda ga: emit * ga, grad_acc)
        return updates, ApplyEvery(count=numerics.safe_increment(state.count) % k, grad_acc=grad_acc)
    return base.GradientTransformation(init_fn, update_fn)
