"""The jnp functions that JAX makes `jnp.ufunc` objects (`jnp.add`, `jnp.multiply`, ...):
callable as before, with `nin`/`nout`/`identity` and the methods `reduce`, `accumulate`,
`outer`, `at`, `reduceat`. As in JAX, the common methods take fast paths (`jnp.add.reduce`
is `jnp.sum`, `jnp.add.accumulate` `jnp.cumsum`, `jnp.add.at` an `.at[].add`); the others
run the generic loops of `ufunc_class`. jaxweb's own code calls the plain functions of
`ufuncs`: only the public `jnp` names are the objects.
"""
from __future__ import annotations

__all__ = ["add", "multiply", "subtract", "maximum", "minimum", "negative", "bitwise_and", "bitwise_or",
           "bitwise_xor", "logical_and", "logical_or", "logical_xor", "logaddexp", "logaddexp2"]

import math
from typing import Any, Callable

from .. import dtypes
from . import reductions, ufuncs
from .ufunc_class import ufunc


def _as_bool_counts(op: str) -> Callable:
    """`.at` for add/multiply: a bool array counts in int32 and is cast back (JAX's rule)."""
    def at(a: Any, indices: Any, b: Any) -> Any:
        if a.dtype == dtypes.bool_:
            b = ufuncs.not_equal(b, 0).astype(dtypes.int32) if not isinstance(b, bool) else int(b)
            return getattr(a.astype(dtypes.int32).at[indices], op)(b).astype(dtypes.bool_)
        return getattr(a.at[indices], op)(b)
    return at


def _extreme(fn: Callable) -> Callable:
    """max/min as `reduce`: they take no dtype, so the result is cast to it."""
    def reduce(a: Any, axis: Any = 0, dtype: Any = None, keepdims: bool = False, initial: Any = None,
               where: Any = None) -> Any:
        out = fn(a, axis=axis, keepdims=keepdims, initial=initial, where=where)
        return out if dtype is None else out.astype(dtype)
    return reduce


def _binary(fn: Callable, identity: Any, **fast: Callable) -> ufunc:
    return ufunc(fn, 2, 1, name=fn.__name__, identity=identity, call=fn, **fast)


add = _binary(ufuncs.add, 0, reduce=reductions.sum, accumulate=reductions.cumsum, at=_as_bool_counts("add"))
multiply = _binary(ufuncs.multiply, 1, reduce=reductions.prod, accumulate=reductions.cumprod,
                   at=_as_bool_counts("multiply"))
subtract = _binary(ufuncs.subtract, None, at=lambda a, indices, b: a.at[indices].subtract(b))
maximum = _binary(ufuncs.maximum, None, reduce=_extreme(reductions.max))
minimum = _binary(ufuncs.minimum, None, reduce=_extreme(reductions.min))
bitwise_and = _binary(ufuncs.bitwise_and, -1)
bitwise_or = _binary(ufuncs.bitwise_or, 0)
bitwise_xor = _binary(ufuncs.bitwise_xor, 0)
logical_and = _binary(ufuncs.logical_and, True)
logical_or = _binary(ufuncs.logical_or, False)
logical_xor = _binary(ufuncs.logical_xor, False)
logaddexp = _binary(ufuncs.logaddexp, -math.inf)
logaddexp2 = _binary(ufuncs.logaddexp2, -math.inf)
negative = ufunc(ufuncs.negative, 1, 1, name="negative", call=ufuncs.negative)
