"""Integer and index samplers: randint, permutation, choice, categorical.

randint is JAX's modulus method on two words of random bits (always sampled in at
least 32 bits); permutation sorts by fresh 32-bit random keys, as many rounds as
JAX's static collision bound asks; choice and categorical use inverse-CDF search
and the Gumbel-max / Gumbel-top-k tricks, exactly as JAX composes them.
"""
from __future__ import annotations

import math
from operator import index
from typing import Any, Sequence

import jaxweb.numpy as jnp

from .. import core, dtypes
from ..lax import _modules as lax
from . import xla_math
from .floats import uniform
from .keys import PRNGKeyArray
from .prng import check_prng_key, internal_split, random_bits
from .threefry import UINT_DTYPES
from .univariate import gumbel
from .util import jit, canonicalize_shape, check_shape, shape_of, user_dtype

Shape = Sequence[int]


def _canonicalize_axis(axis: int, ndim: int) -> int:
    axis = index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def _const(like: Any, v: int) -> Any:
    return lax.full((), v, core.get_aval(like).dtype)


def _convert_and_clip_integer(val: Any, dtype: dtypes.DType) -> Any:
    """Convert an integer array to `dtype`, clipping to its range instead of wrapping."""
    vdt = core.get_aval(val).dtype
    lo = max(dtypes.iinfo(dtype).min, dtypes.iinfo(vdt).min)
    hi = min(dtypes.iinfo(dtype).max, dtypes.iinfo(vdt).max)
    return jnp.clip(val, _const(val, lo), _const(val, hi)).astype(dtype)


def _full(x: Any, shape: tuple[int, ...]) -> Any:
    return x if core.get_aval(x).shape == shape else jnp.broadcast_to(x, shape)


@jit(static_argnums=(3, 4))
def _randint(key: PRNGKeyArray, minval: Any, maxval: Any, shape: tuple[int, ...], dtype: dtypes.DType) -> Any:
    check_shape("randint", shape, core.get_aval(minval).shape, core.get_aval(maxval).shape)
    if minval.dtype.kind not in "iu":
        minval = minval.astype(int)
    if maxval.dtype.kind not in "iu":
        maxval = maxval.astype(int)
    # maxval above dtype's range (randint(key, s, 0, 256, 'uint8')) widens the span by one
    top = _convert_and_clip_integer(jnp.asarray(dtypes.iinfo(dtype).max, dtype), maxval.dtype)
    maxval_out_of_range = lax.gt(maxval, top)
    minval = _full(_convert_and_clip_integer(minval, dtype), shape)
    maxval = _full(_convert_and_clip_integer(maxval, dtype), shape)
    maxval_out_of_range = _full(maxval_out_of_range, shape)
    nbits = dtypes.iinfo(dtype).bits
    if nbits not in (8, 16, 32, 64):
        raise TypeError(f"randint only accepts 8-, 16-, 32-, or 64-bit dtypes, got {dtype}")
    # Twice the bits of the dtype, to reduce the modulus bias for spans that are not powers of 2.
    k1, k2 = internal_split(key)
    higher_bits, lower_bits = random_bits(k1, nbits, shape), random_bits(k2, nbits, shape)
    unsigned = UINT_DTYPES[nbits]
    span = lax.convert_element_type(lax.sub(maxval, minval), unsigned)
    span = lax.select(lax.le(maxval, minval), lax.full(shape, 1, unsigned), span)  # maxval <= minval: minval
    span = lax.select(lax.bitwise_and(maxval_out_of_range, lax.gt(maxval, minval)), lax.add(span, 1), span)
    # 2**nbits % span, via (a * b) % n = ((a % n) * (b % n)) % n to stay in nbits
    multiplier = lax.rem(lax.full(shape, 2 ** (nbits // 2), unsigned), span)
    multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
    offset = lax.add(lax.mul(lax.rem(higher_bits, span), multiplier), lax.rem(lower_bits, span))
    offset = lax.rem(offset, span)
    return lax.add(minval, lax.convert_element_type(offset, dtype))


def randint(key: Any, shape: Shape, minval: Any, maxval: Any, dtype: Any = None, *,
            out_sharding: Any = None) -> Any:
    """Uniform random integers in [minval, maxval) (int32 by default, int64 with x64)."""
    key, _ = check_prng_key("randint", key)
    dtype = user_dtype(int if dtype is None else dtype)
    shape = canonicalize_shape(shape)
    if dtype.kind not in "iu":
        raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
    info = dtypes.iinfo(dtype)
    sample_dtype = dtype
    if info.bits < 32:  # sample in 32 bits so small types are not biased
        sample_dtype = dtypes.int32
        minval = jnp.clip(jnp.asarray(minval).astype("int32"), int(info.min), int(info.max))
        maxval = jnp.clip(jnp.asarray(maxval).astype("int32"), int(info.min), int(info.max) + 1)
    return _randint(key, minval, maxval, shape, sample_dtype).astype(dtype)


# ---------------------------------------------------------------- permutation
@jit(static_argnums=(2,))
def _shuffle(key: PRNGKeyArray, x: Any, axis: int) -> Any:
    # Sort by random 32-bit keys, repeated with fresh keys until all elements are
    # likely to have drawn distinct key strings (tjablin's static bound, as JAX).
    size = core.get_aval(x).size
    num_rounds = int(math.ceil(3 * math.log(max(1, size)) / math.log(2 ** 32 - 1)))
    for _ in range(num_rounds):
        key, subkey = internal_split(key)
        sort_keys = random_bits(subkey, 32, core.get_aval(x).shape)
        _, x = lax.sort_key_val(sort_keys, x, axis)
    return x


def permutation(key: Any, x: Any, axis: int = 0, independent: bool = False, *,
                out_sharding: Any = None) -> Any:
    """A random permutation of arange(x) (integer x) or of x along `axis`."""
    key, _ = check_prng_key("permutation", key)
    if not (hasattr(x, "dtype") or core.is_python_scalar(x) or isinstance(x, (list, tuple))):
        raise TypeError(f"permutation requires ndarray or scalar arguments, got {type(x).__name__} at position 0.")
    ndim = len(shape_of(x))
    axis = _canonicalize_axis(axis, ndim or 1)
    if not ndim:
        dt = core.get_aval(x).dtype if not isinstance(x, (list, tuple)) else jnp.asarray(x).dtype
        if dt.kind not in "iu":
            raise TypeError("x must be an integer or at least 1-dimensional")
        r = index(core.concrete_or_error(x, "argument x of jax.random.permutation()"))
        return _shuffle(key, jnp.arange(r), axis)
    x = jnp.asarray(x)
    if independent or ndim == 1:
        return _shuffle(key, x, axis)
    ind = _shuffle(key, jnp.arange(x.shape[axis]), 0)
    return jnp.take(x, ind, axis, unique_indices=True)


# ---------------------------------------------------------------- choice
def choice(key: Any, a: Any, shape: Shape = (), replace: bool = True, p: Any = None, axis: int = 0,
           mode: str | None = None) -> Any:
    """Random samples of `a` (or of arange(a) for an int), with or without replacement,
    uniformly or with probabilities `p`."""
    key, _ = check_prng_key("choice", key)
    if not isinstance(shape, Sequence):
        raise TypeError(f"shape argument of jax.random.choice must be a sequence, got {shape}")
    arr = jnp.asarray(a)
    if arr.ndim == 0:
        n_inputs = index(core.concrete_or_error(a, "The error occurred in jax.random.choice()"))
    else:
        axis = _canonicalize_axis(axis, arr.ndim)
        n_inputs = arr.shape[axis]
    shape = canonicalize_shape(shape)
    n_draws = math.prod(shape)
    if n_draws == 0:
        return jnp.zeros(shape, dtype=arr.dtype)
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(f"Cannot take a larger sample (size {n_draws}) than population (size {n_inputs}) "
                         "when 'replace=False'")
    if p is None:
        if replace:
            ind = randint(key, shape, 0, n_inputs)
            result = ind if arr.ndim == 0 else jnp.take(arr, ind, axis)
        else:
            slices = (slice(None),) * axis + (slice(n_draws),)
            result = permutation(key, n_inputs if arr.ndim == 0 else arr, axis)[slices]
    else:
        p_arr = jnp.asarray(p)
        if p_arr.dtype.kind not in "fc":
            p_arr = p_arr.astype(dtypes.default_float())
        if p_arr.shape != (n_inputs,):
            raise ValueError("p must be None or a 1D vector with the same size as a.shape[axis]. "
                             f"p has shape {p_arr.shape} and a.shape[axis] is {n_inputs}.")
        if replace:
            p_cuml = jnp.cumsum(p_arr)
            r = p_cuml[-1] * (1 - uniform(key, shape, dtype=p_cuml.dtype))
            ind = jnp.searchsorted(p_cuml, r).astype(int)
        else:  # Gumbel top-k
            g = gumbel(key, (n_inputs,), dtype=p_arr.dtype, mode=mode) + xla_math.log(p_arr)
            ind = lax.top_k(g, k=n_draws)[1].astype(int)
        result = ind if arr.ndim == 0 else jnp.take(arr, ind, axis)
    return result.reshape(shape if arr.ndim == 0 else
                          arr.shape[0:axis] + tuple(shape) + arr.shape[axis + 1:])


# ---------------------------------------------------------------- categorical
def categorical(key: Any, logits: Any, axis: int = -1, shape: Shape | None = None, replace: bool = True,
                mode: str | None = None, *, out_sharding: Any = None) -> Any:
    """Samples of categorical distributions with unnormalized log-probabilities `logits`
    along `axis` (Gumbel-max; Gumbel-top-k without replacement)."""
    key, _ = check_prng_key("categorical", key)
    logits = jnp.asarray(logits)
    nd = logits.ndim
    ax = _canonicalize_axis(axis, nd)
    batch_shape = tuple(d for i, d in enumerate(logits.shape) if i != ax)
    if shape is None:
        shape = batch_shape
    else:
        shape = canonicalize_shape(shape)
        check_shape("categorical", shape, batch_shape)
    shape_prefix = shape[:len(shape) - len(batch_shape)]
    if replace:
        if axis >= 0:
            axis -= nd
        logits_shape = list(shape[len(shape) - len(batch_shape):])
        logits_shape.insert(axis % nd, logits.shape[axis])
        g = gumbel(key, (*shape_prefix, *logits_shape), logits.dtype, mode=mode)
        return jnp.argmax(g + lax.expand_dims(logits, tuple(range(len(shape_prefix)))), axis=axis)
    logits = logits + gumbel(key, logits.shape, logits.dtype, mode=mode)
    k = math.prod(shape_prefix)
    if k > logits.shape[ax]:
        raise ValueError(f"Number of samples without replacement ({k}) cannot exceed number of "
                         f"categories ({logits.shape[ax]}).")
    _, indices = lax.top_k(jnp.moveaxis(logits, ax, -1), k)
    dimensions = (indices.ndim - 1, *range(indices.ndim - 1))
    return lax.reshape(indices, shape, dimensions)
