"""`jnp.ufunc` and `jnp.frompyfunc`: a scalar function as a numpy-style universal function,
with JAX's generic methods — `reduce` (a fori_loop over the axis), `accumulate` (a scan),
`outer` (two vmaps), `at` (a scan over the indices, so repeated indices apply in turn) and
`reduceat` — each jit-compiled once per ufunc and shape, as JAX's are.
"""
from __future__ import annotations

__all__ = ["frompyfunc", "ufunc"]

import functools
import operator
from typing import Any, Callable

from .. import dtypes
from ..api import eval_shape, jit, vmap
from ..lax import control_flow as lax_cf
from ..lax.elementwise import asarray
from . import creation, shape as shape_ops, ufuncs_math, vectorize as vec


def _moveaxis(x: Any, src: int, dst: int) -> Any:
    return shape_ops.moveaxis(x, src, dst)


class ufunc:
    """A universal function from a scalar function `func` of `nin` inputs and `nout` outputs."""

    def __init__(self, func: Callable[..., Any], /, nin: int, nout: int, *, name: str | None = None,
                 nargs: int | None = None, identity: Any = None, call: Callable | None = None,
                 reduce: Callable | None = None, accumulate: Callable | None = None,
                 at: Callable | None = None, reduceat: Callable | None = None) -> None:
        """`call`, `reduce`, `accumulate`, `at`, `reduceat`: fast paths replacing the generic
        loops (jnp.add.reduce is jnp.sum), as JAX's ufunc takes them; not part of equality."""
        self._func = func
        self.__doc__ = func.__doc__
        self.__name__ = name or func.__name__
        self.nin, self.nout = operator.index(nin), operator.index(nout)
        self.nargs = operator.index(nargs or nin)
        self.identity = identity
        self._fast = {"call": call, "reduce": reduce, "accumulate": accumulate, "at": at, "reduceat": reduceat}

    def _key(self) -> tuple:
        return (self._func, self.__name__, self.identity, self.nin, self.nout, self.nargs)

    def __hash__(self) -> int:
        return hash(self._key())

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ufunc) and self._key() == other._key()

    def __repr__(self) -> str:
        return f"<jnp.ufunc '{self.__name__}'>"

    def __call__(self, *args: Any, out: None = None, where: None = None) -> Any:
        if out is not None:
            raise NotImplementedError(f"out argument of {self}")
        if where is not None:
            raise NotImplementedError(f"where argument of {self}")
        if self._fast["call"] is not None:
            return self._fast["call"](*args)
        return _call(self, *args)

    def _binary(self, method: str) -> None:
        if self.nin != 2:
            raise ValueError(f"{method} only supported for binary ufuncs")
        if self.nout != 1:
            raise ValueError(f"{method} only supported for functions returning a single value")

    def reduce(self, a: Any, axis: int | None = 0, dtype: Any = None, out: None = None, keepdims: bool = False,
               initial: Any = None, where: Any = None) -> Any:
        """Fold the binary function over `axis` (from `initial`, or the identity, or the first element)."""
        self._binary("reduce")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduce()")
        if where is not None and self.identity is None and initial is None:
            raise ValueError(f"reduction operation {self.__name__!r} does not have an identity, so to use a "
                             "where mask one has to specify 'initial'.")
        if self._fast["reduce"] is not None:
            return self._fast["reduce"](a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where)
        if isinstance(axis, tuple):
            raise NotImplementedError("tuple of axes")
        return _reduce(self, asarray(a), axis, dtype, keepdims, initial, where)

    def accumulate(self, a: Any, axis: int = 0, dtype: Any = None, out: None = None) -> Any:
        """The running fold along `axis` (out[i] = f(out[i-1], a[i]))."""
        self._binary("accumulate")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.accumulate()")
        if self._fast["accumulate"] is not None:
            return self._fast["accumulate"](a, axis=axis, dtype=dtype)
        return _accumulate(self, asarray(a), axis, dtype)

    def outer(self, a: Any, b: Any, /) -> Any:
        """f applied to every pair (a[i...], b[j...]): shape a.shape + b.shape."""
        if self.nin != 2:
            raise ValueError("outer only supported for binary ufuncs")
        a, b = asarray(a), asarray(b)
        res = vmap(vmap(self, (None, 0)), (0, None))(a.ravel(), b.ravel())
        if self.nout == 1:
            return res.reshape(*a.shape, *b.shape)
        return tuple(r.reshape(*a.shape, *b.shape) for r in res)

    def at(self, a: Any, indices: Any, b: Any = None, /, *, inplace: bool = True) -> Any:
        """A copy of `a` with f applied at `indices` (with `b` for binary ufuncs), in order."""
        if inplace:
            raise NotImplementedError("Because JAX arrays are immutable, jnp.ufunc.at() cannot operate inplace like "
                                      "np.ufunc.at(). Instead, you can pass inplace=False and capture the result; "
                                      "e.g.\n>>> arr = jnp.add.at(arr, ind, val, inplace=False)\n")
        if self.nout != 1:
            raise ValueError("at only supported for functions returning a single value")
        if (b is None) != (self.nin == 1):
            raise ValueError(f"{self.__name__}.at() takes {'no' if self.nin == 1 else 'one'} value argument")
        if self._fast["at"] is not None:
            return self._fast["at"](asarray(a), indices, b)
        a = asarray(a)
        idx = indices if isinstance(indices, tuple) else (indices,)
        idx = tuple(asarray(i).ravel() if not isinstance(i, slice) else i for i in idx)
        n = next(i.shape[0] for i in idx if not isinstance(i, slice))
        vals = None if b is None else shape_ops.broadcast_to(asarray(b), (n,)) if asarray(b).ndim == 0 else asarray(b)

        def step(carry: Any, k: Any) -> tuple:
            where = tuple(i if isinstance(i, slice) else i[k] for i in idx)
            args = (carry[where],) if vals is None else (carry[where], vals[k])
            return carry.at[where].set(self(*args).astype(a.dtype)), None
        out, _ = lax_cf.scan(step, a, creation.arange(n))
        return out

    def reduceat(self, a: Any, indices: Any, axis: int = 0, dtype: Any = None, out: None = None) -> Any:
        """Reductions over the slices indices[i]:indices[i+1] along `axis` (numpy's rules)."""
        self._binary("reduceat")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduceat()")
        if self._fast["reduceat"] is not None:
            return self._fast["reduceat"](a, indices, axis=axis, dtype=dtype)
        a = _moveaxis(asarray(a), axis, 0)
        idx = [int(i) for i in asarray(indices).tolist()]
        rows = []
        for j, start in enumerate(idx):
            stop = idx[j + 1] if j + 1 < len(idx) else a.shape[0]
            first = a[start] if dtype is None else a[start].astype(dtype)  # each run folds from its first element
            rows.append(lax_cf.fori_loop(start + 1, stop, lambda i, acc: self(acc, a[i]).astype(acc.dtype), first)
                        if stop > start + 1 else first)
        return _moveaxis(shape_ops.stack(rows), 0, axis)


@functools.partial(jit, static_argnums=(0,))
def _call(u: ufunc, *args: Any) -> Any:
    return vec.vectorize(u._func)(*args)


@functools.partial(jit, static_argnums=(0, 2, 3, 4))
def _reduce(u: ufunc, arr: Any, axis: Any, dtype: Any, keepdims: bool, initial: Any, where: Any) -> Any:
    if initial is None:
        initial = u.identity
    one = creation.ones((), arr.dtype)
    dtype = eval_shape(u._func, one, one).dtype if dtype is None else dtypes.canonicalize_dtype(dtype)
    if where is not None:
        where = shape_ops.broadcast_to(asarray(where), arr.shape)
    if axis is None:
        final = (1,) * arr.ndim if keepdims else ()
        arr, where, axis = arr.ravel(), None if where is None else where.ravel(), 0
    else:
        axis = axis % arr.ndim
        final = (*arr.shape[:axis], 1, *arr.shape[axis + 1:]) if keepdims else arr.shape[:axis] + arr.shape[axis + 1:]
        arr = _moveaxis(arr, axis, 0)
        where = None if where is None else _moveaxis(where, axis, 0)
    if arr.shape[0] == 0:
        if initial is None:
            raise ValueError(f"zero-size array to reduction operation {u.__name__} which has no identity")
        return creation.full(final, initial, dtype)

    def body(i: Any, val: Any) -> Any:
        new = u(val, arr[i].astype(dtype))
        return new if where is None else ufuncs_math.where(where[i], new, val)
    start, first = (1, arr[0]) if initial is None else (0, initial)
    first = shape_ops.broadcast_to(asarray(first).astype(dtype), arr.shape[1:])
    result = lax_cf.fori_loop(start, arr.shape[0], body, first)
    return result.reshape(final) if keepdims else result


@functools.partial(jit, static_argnums=(0, 2, 3))
def _accumulate(u: ufunc, arr: Any, axis: int, dtype: Any) -> Any:
    one = creation.ones((), arr.dtype)
    dtype = eval_shape(u._func, one, one).dtype if dtype is None else dtypes.canonicalize_dtype(dtype)
    arr = _moveaxis(arr, axis % arr.ndim, 0)

    def step(carry: Any, x: Any) -> tuple:
        new = u(carry, x.astype(dtype))
        return new, new
    _, rest = lax_cf.scan(step, arr[0].astype(dtype), arr[1:])
    out = shape_ops.concatenate([arr[:1].astype(dtype), rest])
    return _moveaxis(out, 0, axis % arr.ndim)


def frompyfunc(func: Callable[..., Any], /, nin: int, nout: int, *, identity: Any = None) -> ufunc:
    """`jnp.frompyfunc`: a ufunc from a scalar function (traced, so it must use jnp/lax operations)."""
    return ufunc(func, nin, nout, identity=identity)
