"""Learning-rate schedules: functions of the step count, written with jnp so that they
work on Python ints and on traced int32 counts alike (optax's formulas and boundaries:
a boundary step already belongs to the next piece)."""
from __future__ import annotations

import math
from typing import Any, Callable, Iterable, Sequence

from ... import numpy as jnp

Schedule = Callable[[Any], Any]


def constant_schedule(value: Any) -> Schedule:
    return lambda count: value


def polynomial_schedule(init_value: Any, end_value: Any, power: Any, transition_steps: int,
                        transition_begin: int = 0) -> Schedule:
    """`(init - end) * (1 - t / steps) ** power + end`, t clipped to [0, steps]."""
    if transition_steps <= 0:
        return lambda count: init_value
    transition_begin = max(transition_begin, 0)

    def schedule(count):
        count = jnp.clip(count - transition_begin, 0, transition_steps)
        frac = 1 - count / transition_steps
        return (init_value - end_value) * frac ** power + end_value
    return schedule


def linear_schedule(init_value: Any, end_value: Any, transition_steps: int,
                    transition_begin: int = 0) -> Schedule:
    return polynomial_schedule(init_value, end_value, 1, transition_steps, transition_begin)


def piecewise_constant_schedule(init_value: Any, boundaries_and_scales: dict[int, float] | None = None) -> Schedule:
    """`init_value` times every scale whose boundary is at or below the count."""
    if boundaries_and_scales is not None and not all(s >= 0.0 for s in boundaries_and_scales.values()):
        raise ValueError("`piecewise_constant_schedule` expects non-negative scale factors")

    def schedule(count):
        v = init_value
        for threshold, scale in sorted((boundaries_and_scales or {}).items()):
            indicator = jnp.maximum(0.0, jnp.sign(threshold - count))
            v = v * indicator + (1 - indicator) * scale * v
        return v
    return schedule


def exponential_decay(init_value: Any, transition_steps: int, decay_rate: float, transition_begin: int = 0,
                      staircase: bool = False, end_value: Any = None) -> Schedule:
    """`init * decay_rate ** ((count - begin) / steps)` (floored with staircase), bounded by end_value."""
    if transition_steps <= 0 or decay_rate == 0:
        return lambda count: init_value
    transition_begin = max(transition_begin, 0)
    clip_fn = None if end_value is None else (jnp.maximum if decay_rate < 1.0 else jnp.minimum)

    def schedule(count):
        dec = count - transition_begin
        p = dec / transition_steps
        if staircase:
            p = jnp.floor(p)
        value = jnp.where(dec <= 0, init_value, init_value * jnp.power(decay_rate, p))
        return value if clip_fn is None else clip_fn(value, end_value)
    return schedule


def cosine_decay_schedule(init_value: Any, decay_steps: int, alpha: Any = 0.0, exponent: Any = 1.0) -> Schedule:
    """`init * ((1 - alpha) * (0.5 * (1 + cos(pi * t / steps))) ** exponent + alpha)`."""
    if not decay_steps > 0:
        raise ValueError(f"The cosine_decay_schedule requires positive decay_steps, got decay_steps={decay_steps!r}.")

    def schedule(count):
        steps = float(decay_steps)
        count = float(count) if isinstance(count, int) else count
        count = jnp.minimum(count, steps)
        decay = 0.5 * (1 + jnp.cos(math.pi * count / steps))
        return init_value * ((1 - alpha) * decay ** exponent + alpha)
    return schedule


def join_schedules(schedules: Sequence[Schedule], boundaries: Sequence[int]) -> Schedule:
    """`schedules[i](count - boundaries[i-1])` between consecutive boundaries."""
    def schedule(step):
        out = schedules[0](step)
        for boundary, sched in zip(boundaries, schedules[1:]):
            out = jnp.where(step < boundary, out, sched(step - boundary))
        return out
    return schedule


def warmup_constant_schedule(init_value: Any, peak_value: Any, warmup_steps: int) -> Schedule:
    return linear_schedule(init_value, peak_value, warmup_steps)


def warmup_cosine_decay_schedule(init_value: Any, peak_value: Any, warmup_steps: int, decay_steps: int,
                                 end_value: Any = 0.0, exponent: Any = 1.0) -> Schedule:
    """Linear warmup to `peak_value`, then cosine decay to `end_value` at `decay_steps`
    (which counts the warmup steps)."""
    alpha = 0.0 if peak_value == 0.0 else end_value / peak_value
    return join_schedules([linear_schedule(init_value, peak_value, warmup_steps),
                           cosine_decay_schedule(peak_value, decay_steps - warmup_steps, alpha, exponent)],
                          [warmup_steps])


def warmup_exponential_decay_schedule(init_value: Any, peak_value: Any, warmup_steps: int, transition_steps: int,
                                      decay_rate: Any, transition_begin: int = 0, staircase: bool = False,
                                      end_value: Any = None) -> Schedule:
    return join_schedules([linear_schedule(init_value, peak_value, warmup_steps),
                           exponential_decay(peak_value, transition_steps, decay_rate, transition_begin,
                                             staircase, end_value)], [warmup_steps])


def sgdr_schedule(cosine_kwargs: Iterable[dict[str, Any]]) -> Schedule:
    """Warm restarts: consecutive warmup-cosine schedules."""
    schedules, boundaries, step = [], [], 0
    for kwargs in cosine_kwargs:
        schedules.append(warmup_cosine_decay_schedule(**kwargs))
        step += kwargs["decay_steps"]
        boundaries.append(step)
    return join_schedules(schedules, boundaries[:-1])


_INTERPOLATE = {
    "linear": lambda start, end, pct: (end - start) * pct + start,
    "cosine": lambda start, end, pct: end + (start - end) / 2.0 * (jnp.cos(math.pi * pct) + 1),
}


def piecewise_interpolate_schedule(interpolate_type: str, init_value: Any,
                                   boundaries_and_scales: dict[int, float] | None = None) -> Schedule:
    """Interpolate (linearly or by cosine) between values scaled at each boundary."""
    if interpolate_type not in _INTERPOLATE:
        raise ValueError("`interpolate_type` must be either 'cosine' or 'linear'")
    interp = _INTERPOLATE[interpolate_type]
    if boundaries_and_scales:
        boundaries, scales = zip(*sorted(boundaries_and_scales.items()))
        if not all(s >= 0.0 for s in scales):
            raise ValueError("`piecewise_interpolate_schedule` expects non-negative scale factors")
    else:
        boundaries, scales = (), ()

    def schedule(count):
        bounds = jnp.stack([jnp.asarray(b) for b in (0,) + boundaries])
        values = jnp.cumprod(jnp.stack([jnp.asarray(v, jnp.float32) for v in (init_value,) + scales]))
        sizes = jnp.maximum(bounds[1:] - bounds[:-1], 1)
        indicator = jnp.logical_and(bounds[:-1] <= count, count < bounds[1:])
        pct = (count - bounds[:-1]) / sizes
        vals = interp(values[:-1], values[1:], pct)
        return jnp.sum(indicator * vals) + (bounds[-1] <= count) * values[-1]
    return schedule


def linear_onecycle_schedule(transition_steps: int, peak_value: Any, pct_start: float = 0.3, pct_final: float = 0.85,
                             div_factor: float = 25.0, final_div_factor: float = 1e4) -> Schedule:
    if transition_steps <= 0:
        raise ValueError("A linear onecycle schedule was set with a non-positive `transition_steps`")
    return piecewise_interpolate_schedule("linear", peak_value / div_factor, {
        int(pct_start * transition_steps): div_factor, int(pct_final * transition_steps): 1.0 / div_factor,
        transition_steps: 1.0 / final_div_factor})


def cosine_onecycle_schedule(transition_steps: int, peak_value: Any, pct_start: float = 0.3,
                             div_factor: float = 25.0, final_div_factor: float = 1e4) -> Schedule:
    if transition_steps <= 0:
        raise ValueError("A linear onecycle schedule was set with a non-positive `transition_steps`")
    return piecewise_interpolate_schedule("cosine", peak_value / div_factor, {
        int(pct_start * transition_steps): div_factor, int(transition_steps): 1.0 / (div_factor * final_div_factor)})


__all__ = [n for n in dir() if n.endswith("_schedule") or n in ("exponential_decay", "join_schedules")]
