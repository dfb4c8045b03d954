"""Count samplers with rejection loops: poisson (Knuth below lambda = 10, Hormann's
transformed rejection above), binomial (geometric-sum inversion for n p <= 10, BTRS
above) and multinomial (a scan of binomials), with JAX's loops and key use.

Each loop runs over the whole sample array until every element is done, elements
that finished keeping their value (as in JAX, whose loops are array-wide too).
"""
from __future__ import annotations

from typing import Any, Sequence

import jaxweb.numpy as jnp

from .. import core, dtypes
from ..lax import _modules as lax
from . import xla_math
from .floats import _uniform
from .keys import PRNGKeyArray
from .prng import check_prng_key, default_prng_impl, internal_split
from .util import jit, canonicalize_shape, check_shape, shape_of, user_dtype

Shape = Sequence[int]
F32 = dtypes.float32
fma = xla_math.fma


def _full_like(x: Any, v: Any, dtype: Any = None, shape: Any = None) -> Any:
    aval = core.get_aval(x)
    return lax.full(aval.shape if shape is None else tuple(shape), v, aval.dtype if dtype is None else dtype)


def _isnan(x: Any) -> Any:
    return lax.ne(x, x)


# ---------------------------------------------------------------- poisson
@jit(static_argnums=(2, 3, 4))
def _poisson_knuth(key: PRNGKeyArray, lam: Any, shape: tuple[int, ...], dtype: dtypes.DType,
                   max_iters: int) -> Any:
    """Count uniforms until their product drops below exp(-lam)."""
    def body(carry):
        i, k, rng, log_prod = carry
        rng, subkey = internal_split(rng)
        k = lax.select(lax.gt(log_prod, lax.neg(lam)), lax.add(k, 1), k)
        u = _uniform(subkey, 0.0, 1.0, shape, F32)
        return lax.add(i, 1), k, rng, lax.add(log_prod, xla_math.log(u))

    def cond(carry):
        i, _, _, log_prod = carry
        return jnp.any(lax.gt(log_prod, lax.neg(lam))) & lax.lt(i, max_iters)

    init = (lax.full((), 0, dtype), _full_like(lam, 0, dtype, shape), key, _full_like(lam, 0.0, F32, shape))
    k = lax.while_loop(cond, body, init)[1]
    return lax.sub(k, 1).astype(dtype)


@jit(static_argnums=(2, 3, 4))
def _poisson_rejection(key: PRNGKeyArray, lam: Any, shape: tuple[int, ...], dtype: dtypes.DType,
                       max_iters: int) -> Any:
    """Hormann's transformed rejection with squeeze (PTRS), for lam >= 10."""
    log_lam = xla_math.log(lam)
    b = fma(_full_like(lam, 2.53), lax.sqrt(lam), 0.931)  # XLA fuses these products and sums
    a = fma(_full_like(lam, 0.02483), b, -0.059)
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def body(carry):
        i, k_out, accepted, key = carry
        key, subkey_0, subkey_1 = internal_split(key, 3)
        u = _uniform(subkey_0, 0.0, 1.0, shape, lam.dtype) - 0.5
        v = _uniform(subkey_1, 0.0, 1.0, shape, lam.dtype)
        u_shifted = 0.5 - abs(u)
        k = lax.floor(fma(2 * a / u_shifted + b, u, lam) + 0.43)
        s = xla_math.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t = fma(k, log_lam, -lam) - lax.lgamma(k + 1)
        accept1 = (u_shifted >= 0.07) & (v <= v_r)
        reject = (k < 0) | ((u_shifted < 0.013) & (v > u_shifted))
        accept2 = s <= t
        accept = accept1 | (~reject & accept2)
        return i + 1, lax.select(accept, k, k_out), accepted | accept, key

    def cond(carry):
        i, _, accepted, _ = carry
        return jnp.any(~accepted) & (i < max_iters)

    init = (lax.full((), 0, dtype), _full_like(lam, -1.0, lam.dtype, shape),
            _full_like(lam, False, dtypes.bool_, shape), key)
    k = lax.while_loop(cond, body, init)[1]
    return k.astype(dtype)


@jit(static_argnums=(2, 3))
def _poisson(key: PRNGKeyArray, lam: Any, shape: tuple[int, ...], dtype: dtypes.DType) -> Any:
    use_knuth = _isnan(lam) | (lam < 10)
    lam_knuth = lax.select(use_knuth, lam, _full_like(lam, 0.0))
    # rejection accepts at least 89% of proposals; its unused lanes get an easy lambda
    lam_rejection = lax.select(use_knuth, _full_like(lam, 1e5), lam)
    max_iters = dtypes.iinfo(dtype).max  # insanely conservative, as JAX
    result = lax.select(use_knuth, _poisson_knuth(key, lam_knuth, shape, dtype, max_iters),
                        _poisson_rejection(key, lam_rejection, shape, dtype, max_iters))
    return lax.select(lam == 0, jnp.zeros_like(result), result)


def poisson(key: Any, lam: Any, shape: Shape | None = None, dtype: Any = None, *,
            out_sharding: Any = None) -> Any:
    """Poisson(lam) random counts (int32 by default, int64 with x64)."""
    key, _ = check_prng_key("poisson", key)
    dtype = user_dtype(int if dtype is None else dtype)
    if key._impl is not default_prng_impl():
        raise NotImplementedError(f"`poisson` is only implemented for the threefry2x32 RNG, not {key._impl}")
    shape = canonicalize_shape(shape) if shape is not None else shape_of(lam)
    lam = lax.convert_element_type(jnp.broadcast_to(lam, shape), F32)
    return _poisson(key, lam, shape, dtype)


# ---------------------------------------------------------------- binomial
_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                  0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                  0.00925546218271273, 0.00833056343336287)


def _stirling_approx_tail(k: Any) -> Any:
    """log(k!) minus its Stirling approximation: tabulated for k <= 9, series above."""
    table = jnp.array(_STIRLING_TAIL, dtype=k.dtype)
    use_table = k <= 9
    k = lax.clamp(lax.full((), 0.0, k.dtype), k, lax.full((), 9.0, k.dtype))
    kp1sq = (k + 1) * (k + 1)
    approx = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    k = jnp.floor(k)
    return lax.select(use_table, table[jnp.asarray(k, dtype="int32")], approx)


def _binomial_inversion(key: PRNGKeyArray, count: Any, prob: Any, shape: tuple[int, ...],
                        dtype: dtypes.DType, max_iters: Any) -> Any:
    """Sum geometric waiting times until they pass `count` (for count * prob <= 10)."""
    log1minusprob = xla_math.log1p(-prob)

    def body(carry):
        i, num_geom, geom_sum, key = carry
        subkey, key = internal_split(key)
        num_geom_out = lax.select(geom_sum <= count, num_geom + 1, num_geom)
        u = _uniform(subkey, 0.0, 1.0, shape, prob.dtype)
        geom = jnp.ceil(xla_math.log(u) / log1minusprob)
        return i + 1, num_geom_out, geom_sum + geom, key

    def cond(carry):
        i, _, geom_sum, _ = carry
        return jnp.any(geom_sum <= count) & (i < max_iters)

    init = (lax.full((), 0, dtypes.default_int()), _full_like(prob, 0.0, prob.dtype, shape),
            _full_like(prob, 0.0, prob.dtype, shape), key)
    k = lax.while_loop(cond, body, init)[1]
    return (k - 1).astype(dtype)


def _btrs(key: PRNGKeyArray, count: Any, prob: Any, shape: tuple[int, ...], dtype: dtypes.DType,
          max_iters: Any) -> Any:
    """Hormann's BTRS transformed rejection (for count * prob > 10)."""
    stddev = jnp.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = jnp.floor((count + 1) * prob)

    def body(carry):
        i, k_out, accepted, key = carry
        key, subkey_0, subkey_1 = internal_split(key, 3)
        u = _uniform(subkey_0, 0.0, 1.0, shape, prob.dtype)
        v = _uniform(subkey_1, 0.0, 1.0, shape, prob.dtype)
        u = u - 0.5
        us = 0.5 - jnp.abs(u)
        accept1 = (us >= 0.07) & (v <= v_r)
        k = jnp.floor((2 * a / us + b) * u + c)
        reject = (k < 0) | (k > count)
        v = xla_math.log(v * alpha / (a / (us * us) + b))
        log = xla_math.log
        ub = ((m + 0.5) * log((m + 1) / (r * (count - m + 1)))
              + (count + 1) * log((count - m + 1) / (count - k + 1))
              + (k + 0.5) * log(r * (count - k + 1) / (k + 1))
              + _stirling_approx_tail(m) + _stirling_approx_tail(count - m)
              - _stirling_approx_tail(k) - _stirling_approx_tail(count - k))
        accept = accept1 | (~reject & (v <= ub))
        return i + 1, lax.select(accept, k, k_out), accepted | accept, key

    def cond(carry):
        i, _, accepted, _ = carry
        return jnp.any(~accepted) & (i < max_iters)

    init = (lax.full((), 0, dtypes.default_int()), _full_like(prob, -1.0, prob.dtype, shape),
            jnp.full(shape, False, bool), key)
    return lax.while_loop(cond, body, init)[1].astype(dtype)


@jit(static_argnums=(3, 4))
def _binomial(key: PRNGKeyArray, count: Any, prob: Any, shape: Any, dtype: dtypes.DType) -> Any:
    if shape is None:
        shape = jnp.broadcast_shapes(core.get_aval(count).shape, core.get_aval(prob).shape)
    else:
        check_shape("binomial", shape, core.get_aval(count).shape, core.get_aval(prob).shape)
    if prob.dtype.kind not in "fc":
        prob = prob.astype(dtypes.default_float())
    count = lax.convert_element_type(count, prob.dtype)
    count, prob = jnp.broadcast_to(count, shape), jnp.broadcast_to(prob, shape)
    p_lt_half = prob < 0.5
    q = lax.select(p_lt_half, prob, 1.0 - prob)
    count_nan_or_neg = _isnan(count) | (count < 0.0)
    count_inf = jnp.isinf(count)
    q_is_nan = _isnan(q)
    q_l_0 = q < 0.0
    q = lax.select(q_is_nan | q_l_0, _full_like(q, 0.01), q)
    use_inversion = count_nan_or_neg | (count * q <= 10.0)
    count = jnp.floor(count)  # as np.random.binomial does for float counts
    count_inv = lax.select(use_inversion, count, _full_like(count, 0.0))
    count_btrs = lax.select(use_inversion, _full_like(count, 1e4), count)
    q_btrs = lax.select(use_inversion, _full_like(q, 0.5), q)
    max_iters = lax.full((), dtypes.finfo(dtype).max, dtype)
    samples = lax.select(use_inversion, _binomial_inversion(key, count_inv, q, shape, dtype, max_iters),
                         _btrs(key, count_btrs, q_btrs, shape, dtype, max_iters))
    invalid = q_l_0 | q_is_nan | count_nan_or_neg  # nan p or nan/negative n give nan
    samples = lax.select(invalid, jnp.full_like(samples, float("nan"), dtype), samples)
    samples = lax.select(count_inf & (~invalid), jnp.full_like(samples, float("inf"), dtype), samples)
    return lax.select(p_lt_half | count_nan_or_neg | q_is_nan | count_inf, samples,
                      count.astype(dtype) - samples)


def binomial(key: Any, n: Any, p: Any, shape: Shape | None = None, dtype: Any = None) -> Any:
    """Binomial(n, p) random counts, as floats (float32 by default)."""
    key, _ = check_prng_key("binomial", key)
    dtype = user_dtype(float if dtype is None else dtype)
    if dtype.kind != "f":
        raise ValueError(f"dtype argument to `binomial` must be a float dtype, got {dtype}")
    if shape is not None:
        shape = canonicalize_shape(shape)
    return _binomial(key, n, p, shape, dtype)


def multinomial(key: Any, n: Any, p: Any, *, shape: Shape | None = None, dtype: Any = None,
                unroll: int | bool = 1) -> Any:
    """Multinomial(n, p) counts over the last axis of p, one binomial per outcome."""
    key, _ = check_prng_key("multinomial", key)
    n, p = jnp.asarray(n), jnp.asarray(p)
    dt = jnp.result_type(n, p)
    if dt.kind not in "fc":
        dt = dtypes.default_float()
    n, p = n.astype(dt), p.astype(dt)
    shape = p.shape if shape is None else canonicalize_shape(shape)
    n = jnp.broadcast_to(n, shape[:-1])
    p = jnp.broadcast_to(p, shape)

    def step(remainder, ratio_key):
        ratio, k = ratio_key
        count = binomial(k, remainder, ratio.clip(0, 1), dtype=remainder.dtype)
        return remainder - count, count

    p = jnp.moveaxis(p, -1, 0)
    remaining = lax.cumsum(p, 0, reverse=True)
    ratios = p / jnp.where(remaining == 0, 1, remaining)
    keys = internal_split(key, ratios.shape[0])
    _, counts = lax.scan(step, n, (ratios, keys), unroll=unroll)
    return jnp.moveaxis(counts, 0, -1).astype(user_dtype(float if dtype is None else dtype))
