"""Adaptive rescalings from gradient moments: Adam and its family, RMSProp, AdaGrad,
Yogi, RAdam, Lion, AdaBelief (optax's `scale_by_*` transformations).

Each follows optax's published formulas exactly: bias correction by `1 - b**t` with
the step `t` counted from 1, `eps` outside and `eps_root` inside the square root.
"""
from __future__ import annotations

from typing import Any, NamedTuple

from ... import lax, numpy as jnp, tree_util
from . import base, numerics, tree_utils as tu
from ..dtypes import canonicalize_dtype

_is_none = lambda x: x is None  # noqa: E731


def _canon(dtype: Any) -> Any:
    return None if dtype is None else canonicalize_dtype(dtype)


def _count0() -> Any:
    return jnp.zeros([], jnp.int32)


def _nesterov_mu_hat(mu: Any, updates: Any, b1: Any, count_inc: Any) -> Any:
    """NAdam's `b1 * m / (1 - b1^(t+1)) + (1 - b1) * g / (1 - b1^t)`."""
    return tree_util.tree_map(
        lambda m, g: b1 * m + (1 - b1) * g,
        tu.tree_bias_correction(mu, b1, numerics.safe_increment(count_inc)),
        tu.tree_bias_correction(updates, b1, count_inc))


def _adam_ratio(mu_hat: Any, nu_hat: Any, eps: Any, eps_root: Any) -> Any:
    return tree_util.tree_map(
        lambda m, v: None if m is None else m / (jnp.sqrt(v + eps_root) + eps),
        mu_hat, nu_hat, is_leaf=_is_none)


class ScaleByAdamState(NamedTuple):
    count: Any
    mu: Any
    nu: Any


def scale_by_adam(b1: Any = 0.9, b2: Any = 0.999, eps: Any = 1e-8, eps_root: Any = 0.0,
                  mu_dtype: Any = None, *, nesterov: bool = False) -> base.GradientTransformation:
    """Adam's rescaling `m_hat / (sqrt(v_hat + eps_root) + eps)` (NAdam with nesterov)."""
    mu_dtype = _canon(mu_dtype)

    def init_fn(params):
        return ScaleByAdamState(count=_count0(), mu=tu.tree_zeros_like(params, dtype=mu_dtype),
                                nu=tu.tree_zeros_like(params))

    def update_fn(updates, state, params=None):
        base.check_state(state, ScaleByAdamState, "scale_by_adam")
        mu = tu.tree_update_moment(updates, state.mu, b1, 1)
        nu = tu.tree_update_moment_per_elem_norm(updates, state.nu, b2, 2)
        count_inc = numerics.safe_increment(state.count)
        mu_hat = (_nesterov_mu_hat(mu, updates, b1, count_inc) if nesterov
                  else tu.tree_bias_correction(mu, b1, count_inc))
        nu_hat = tu.tree_bias_correction(nu, b2, count_inc)
        updates = _adam_ratio(mu_hat, nu_hat, eps, eps_root)
        return updates, ScaleByAdamState(count=count_inc, mu=tu.tree_cast(mu, mu_dtype),
                                         nu=tu.tree_cast_like(nu, state.nu))
    return base.GradientTransformation(init_fn, update_fn)


class ScaleByAmsgradState(NamedTuple):
    count: Any
    mu: Any
    nu: Any
    nu_max: Any


def scale_by_amsgrad(b1: Any = 0.9, b2: Any = 0.999, eps: Any = 1e-8, eps_root: Any = 0.0,
                     mu_dtype: Any = None, bias_correction_mu: bool = True,
                     bias_correction_nu: bool = True) -> base.GradientTransformation:
    """AMSGrad: Adam with the running maximum of the (corrected) second moment."""
    mu_dtype = _canon(mu_dtype)

    def init_fn(params):
        return ScaleByAmsgradState(count=_count0(), mu=tu.tree_zeros_like(params, dtype=mu_dtype),
                                   nu=tu.tree_zeros_like(params), nu_max=tu.tree_zeros_like(params))

    def update_fn(updates, state, params=None):
        base.check_state(state, ScaleByAmsgradState, "scale_by_amsgrad")
        mu = tu.tree_update_moment(updates, state.mu, b1, 1)
        nu = tu.tree_update_moment_per_elem_norm(updates, state.nu, b2, 2)
        count_inc = numerics.safe_increment(state.count)
        mu_hat = tu.tree_bias_correction(mu, b1, count_inc) if bias_correction_mu else mu
        nu_eff = tu.tree_bias_correction(nu, b2, count_inc) if bias_correction_nu else nu
        nu_max = tree_util.tree_map(jnp.maximum, state.nu_max, nu_eff)
        updates = _adam_ratio(mu_hat, nu_max, eps, eps_root)
        return updates, ScaleByAmsgradState(count=count_inc, mu=tu.tree_cast(mu, mu_dtype), nu=nu,
                                            nu_max=nu_max)
    return base.GradientTransformation(init_fn, update_fn)


def scale_by_adamax(b1: Any = 0.9, b2: Any = 0.999, eps: Any = 1e-8) -> base.GradientTransformation:
    """Adamax: the first moment over an infinity-norm second moment."""
    def init_fn(params):
        return ScaleByAdamState(count=_count0(), mu=tu.tree_zeros_like(params), nu=tu.tree_zeros_like(params))

    def update_fn(updates, state, params=None):
        base.check_state(state, ScaleByAdamState, "scale_by_adamax")
        count_inc = numerics.safe_increment(state.count)
        mu = tu.tree_update_moment(updates, state.mu, b1, 1)
        nu = tu.tree_update_infinity_moment(updates, state.nu, b2, eps)
        mu_hat = tu.tree_bias_correction(mu, b1, count_inc)
        updates = tree_util.tree_map(lambda m, v: m / v, mu_hat, nu)
        return updates, ScaleByAdamState(count=count_inc, mu=mu, nu=nu)
    return base.GradientTransformation(init_fn, update_fn)


def scale_by_yogi(b1: Any = 0.9, b2: Any = 0.999, eps: Any = 1e-3, eps_root: Any = 0.0,
                  initial_accumulator_value: Any = 1e-6) -> base.GradientTransformation:
    """Yogi: an additive (sign-controlled) second-moment update."""
    def init_fn(params):
        return ScaleByAdamState(count=_count0(), mu=tu.tree_full_like(params, initial_accumulator_value),
                                nu=tu.tree_full_like(params, initial_accumulator_value))

    def update_fn(updates, state, params=None):
        base.check_state(state, ScaleByAdamState, "scale_by_yogi")
        mu = tu.tree_update_moment(updates, state.mu, b1, 1)
        nu = tree_util.tree_map(lambda g, v: v - (1 - b2) * jnp.sign(v - g * g) * (g * g),
                                updates, state.nu)
        count_inc = numerics.safe_increment(state.count)
        mu_hat = tu.tree_bias_correction(mu, b1, count_inc)
        nu_hat = tu.tree_bias_correction(nu, b2, count_inc)
        return _adam_ratio(mu_hat, nu_hat, eps, eps_root), ScaleByAdamState(count=count_inc, mu=mu, nu=nu)
    return base.GradientTransformation(init_fn, update_fn)


def scale_by_radam(b1: Any = 0.9, b2: Any = 0.999, eps: Any = 1e-8, eps_root: Any = 0.0,
                   threshold: Any = 5.0, *, nesterov: bool = False) -> base.GradientTransformation:
    """Rectified Adam: the adaptive step only once the variance estimate is tractable
    (`rho_t >= threshold`), plain momentum before."""
    ro_inf = 2.0 / (1.0 - b2) - 1.0

    def init_fn(params):
        return ScaleByAdamState(count=_count0(), mu=tu.tree_zeros_like(params), nu=tu.tree_zeros_like(params))

    def update_fn(updates, state, params=None):
        base.check_state(state, ScaleByAdamState, "scale_by_radam")
        mu = tu.tree_update_moment(updates, state.mu, b1, 1)
        nu = tu.tree_update_moment_per_elem_norm(updates, state.nu, b2, 2)
        count_inc = numerics.safe_increment(state.count)
        b2t = b2 ** count_inc
        ro = ro_inf - 2 * count_inc * b2t / (1 - b2t)
        mu_hat = (_nesterov_mu_hat(mu, updates, b1, count_inc) if nesterov
                  else tu.tree_bias_correction(mu, b1, count_inc))
        nu_hat = tu.tree_bias_correction(nu, b2, count_inc)
        r = jnp.sqrt((ro - 4.0) * (ro - 2.0) * ro_inf / ((ro_inf - 4.0) * (ro_inf - 2.0) * ro))
        rect = tree_util.tree_map(lambda m, v: r.astype(m.dtype) * m / (jnp.sqrt(v + eps_root) + eps),
                                  mu_hat, nu_hat)
        updates = tree_util.tree_map(lambda t, f: jnp.where(ro >= threshold, t, f), rect, mu_hat)
        return updates, ScaleByAdamState(count=count_inc, mu=mu, nu=nu)
    return base.GradientTransformation(init_fn, update_fn)


class ScaleByBeliefState(NamedTuple):
    count: Any
    mu: Any
    nu: Any


def scale_by_belief(b1: Any = 0.9, b2: Any = 0.999, eps: Any = 1e-16, eps_root: Any = 1e-16, *,
                    nesterov: bool = False) -> base.GradientTransformation:
    """AdaBelief: the second moment of the prediction error `g - m`."""
    def init_fn(params):
        return ScaleByBeliefState(count=_count0(), mu=tu.tree_zeros_like(params), nu=tu.tree_zeros_like(params))

    def update_fn(updates, state, params=None):
        base.check_state(state, ScaleByBeliefState, "scale_by_belief")
        mu = tu.tree_update_moment(updates, state.mu, b1, 1)
        err = tu.tree_sub(updates, mu)
        nu = tu.tree_update_moment_per_elem_norm(err, state.nu, b2, 2)
        nu = tree_util.tree_map(lambda v: v + eps_root, nu)
        count_inc = numerics.safe_increment(state.count)
        mu_hat = (_nesterov_mu_hat(mu, updates, b1, count_inc) if nesterov
                  else tu.tree_bias_correction(mu, b1, count_inc))
        nu_hat = tu.tree_bias_correction(nu, b2, count_inc)
        return _adam_ratio(mu_hat, nu_hat, eps, 0.0), ScaleByBeliefState(count=count_inc, mu=mu, nu=nu)
    return base.GradientTransformation(init_fn, update_fn)


class ScaleByLionState(NamedTuple):
    count: Any
    mu: Any


_LION_MODES = {
    "hard": lambda x, beta: jnp.sign(x),
    "smooth": lambda x, beta: jnp.tanh(beta * x),
    "refined": lambda x, beta: jnp.where(jnp.abs(x) < 1.0, x, jnp.sign(x)),
}


def scale_by_lion(b1: Any = 0.9, b2: Any = 0.99, mu_dtype: Any = None, *, mode: str = "hard",
                  smooth_beta: float = 1.0) -> base.GradientTransformation:
    """Lion: the sign of an interpolation of gradient and momentum."""
    mu_dtype = _canon(mu_dtype)
    if mode not in _LION_MODES:
        raise ValueError(f'Unknown lion mode: {mode}. It needs to be one of ["hard", "smooth", "refined"].')
    comb = _LION_MODES[mode]

    def init_fn(params):
        return ScaleByLionState(count=_count0(), mu=tu.tree_zeros_like(params, dtype=mu_dtype))

    def update_fn(updates, state, params=None):
        base.check_state(state, ScaleByLionState, "scale_by_lion")
        new = tree_util.tree_map(lambda g, m: comb((1.0 - b1) * g + b1 * m, smooth_beta), updates, state.mu)
        mu = tu.tree_cast(tu.tree_update_moment(updates, state.mu, b2, 1), mu_dtype)
        return new, ScaleByLionState(count=numerics.safe_increment(state.count), mu=mu)
    return base.GradientTransformation(init_fn, update_fn)


class ScaleByRssState(NamedTuple):
    sum_of_squares: Any


def scale_by_rss(initial_accumulator_value: Any = 0.1, eps: Any = 1e-7) -> base.GradientTransformation:
    """AdaGrad: divide by the root of the sum of squared gradients."""
    def init_fn(params):
        return ScaleByRssState(sum_of_squares=tu.tree_full_like(params, initial_accumulator_value))

    def update_fn(updates, state, params=None):
        base.check_state(state, ScaleByRssState, "scale_by_rss")
        sos = tree_util.tree_map(lambda g, t: g * g + t, updates, state.sum_of_squares)
        inv = tree_util.tree_map(lambda t: jnp.where(t > 0, lax.rsqrt(t + eps), 0.0), sos)
        return tu.tree_mul(inv, updates), ScaleByRssState(sum_of_squares=sos)
    return base.GradientTransformation(init_fn, update_fn)


class ScaleByRmsState(NamedTuple):
    nu: Any


class ScaleByRmsWithCountState(NamedTuple):
    count: Any
    nu: Any


def _rms_scaling(nu_hat: Any, eps: Any, eps_in_sqrt: bool) -> Any:
    if eps_in_sqrt:
        return tree_util.tree_map(lambda n: lax.rsqrt(n + eps), nu_hat)
    return tree_util.tree_map(lambda n: 1 / (jnp.sqrt(n) + eps), nu_hat)


def scale_by_rms(decay: Any = 0.9, eps: Any = 1e-8, initial_scale: Any = 0.0, eps_in_sqrt: bool = True,
                 bias_correction: bool = False) -> base.GradientTransformation:
    """RMSProp: divide by the root of an EMA of squared gradients."""
    def init_fn(params):
        nu = tu.tree_full_like(params, initial_scale)
        return ScaleByRmsWithCountState(count=_count0(), nu=nu) if bias_correction else ScaleByRmsState(nu=nu)

    def update_fn(updates, state, params=None):
        base.check_state(state, ScaleByRmsWithCountState if bias_correction else ScaleByRmsState,
                         "scale_by_rms")
        nu = tu.tree_update_moment_per_elem_norm(updates, state.nu, decay, 2)
        if bias_correction:
            count_inc = numerics.safe_increment(state.count)
            nu_hat = tu.tree_bias_correction(nu, decay, count_inc)
        else:
            nu_hat = nu
        updates = tree_util.tree_map(lambda s, g: s * g, _rms_scaling(nu_hat, eps, eps_in_sqrt), updates)
        new = ScaleByRmsWithCountState(count=count_inc, nu=nu) if bias_correction else ScaleByRmsState(nu=nu)
        return updates, new
    return base.GradientTransformation(init_fn, update_fn)


class ScaleByRStdDevState(NamedTuple):
    mu: Any
    nu: Any


class ScaleByRStdDevWithCountState(NamedTuple):
    count: Any
    mu: Any
    nu: Any


def scale_by_stddev(decay: Any = 0.9, eps: Any = 1e-8, initial_scale: Any = 0.0, eps_in_sqrt: bool = True,
                    bias_correction: bool = False) -> base.GradientTransformation:
    """Centred RMSProp: divide by the root of the variance estimate `E[g^2] - E[g]^2`."""
    def init_fn(params):
        mu, nu = tu.tree_zeros_like(params), tu.tree_full_like(params, initial_scale)
        if bias_correction:
            return ScaleByRStdDevWithCountState(count=_count0(), mu=mu, nu=nu)
        return ScaleByRStdDevState(mu=mu, nu=nu)

    def update_fn(updates, state, params=None):
        base.check_state(state, ScaleByRStdDevWithCountState if bias_correction else ScaleByRStdDevState,
                         "scale_by_stddev")
        mu = tu.tree_update_moment(updates, state.mu, decay, 1)
        nu = tu.tree_update_moment_per_elem_norm(updates, state.nu, decay, 2)
        if bias_correction:
            count_inc = numerics.safe_increment(state.count)
            mu_hat = tu.tree_bias_correction(mu, decay, count_inc)
            nu_hat = tu.tree_bias_correction(nu, decay, count_inc)
        else:
            mu_hat, nu_hat = mu, nu
        var = tree_util.tree_map(lambda m, n: n - m * m, mu_hat, nu_hat)
        updates = tree_util.tree_map(lambda s, g: s * g, _rms_scaling(var, eps, eps_in_sqrt), updates)
        if bias_correction:
            return updates, ScaleByRStdDevWithCountState(count=count_inc, mu=mu, nu=nu)
        return updates, ScaleByRStdDevState(mu=mu, nu=nu)
    return base.GradientTransformation(init_fn, update_fn)
