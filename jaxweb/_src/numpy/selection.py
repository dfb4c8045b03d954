"""Choosing among several values per element: `select` and `piecewise`.

Both compute an index per element and pick with one `lax.select_n`, so they are one
fused kernel, differentiable in the chosen values and batchable. `select` takes the
first true condition (the default where none is); `piecewise` lets the last true
condition win, as numpy does, and calls each function through `vmap` over the
elements (JAX calls them through a vectorized `lax.switch`, which is the same thing).
"""
from __future__ import annotations

__all__ = ["select", "piecewise"]

from typing import Any, Callable, Sequence

from .. import core, dtypes
from ..lax import elementwise as lax_ew
from .util import check_arraylike, ensure_array, promote_dtypes
from . import creation as _creation, reductions as _reductions, shape as _shape
from ..api import vmap


def select(condlist: Sequence[Any], choicelist: Sequence[Any], default: Any = 0) -> Any:
    """`jnp.select`: per element, the choice of the first true condition, else `default`."""
    if len(condlist) != len(choicelist):
        raise ValueError("condlist must have length equal to choicelist "
                         f"({len(condlist)} vs {len(choicelist)})")
    if len(condlist) == 0:
        raise ValueError("condlist must be non-empty")
    check_arraylike("select", *condlist, *choicelist, default)
    conds = [ensure_array(c) for c in condlist]
    choices = promote_dtypes(ensure_array(default), *[ensure_array(c) for c in choicelist])
    # the default goes first with a False condition: argmax of all-False is 0
    stacked = _shape.stack(_shape.broadcast_arrays(False, *conds))
    idx = _reductions.argmax(lax_ew.convert_element_type(stacked, dtypes.bool_), axis=0)
    return lax_ew.select_n(*_shape.broadcast_arrays(idx, *choices))


def piecewise(x: Any, condlist: Any, funclist: Sequence[Any], *args: Any, **kw: Any) -> Any:
    """`jnp.piecewise`: `funclist[i](x)` where `condlist[i]` holds (the last true one wins);
    a trailing extra entry of `funclist` is the default, otherwise the default is 0.
    Entries may be constants instead of functions; results take x's dtype."""
    check_arraylike("piecewise", x)
    x = ensure_array(x)
    nc, nf = len(condlist), len(funclist)
    if nf == nc + 1:
        funcs = [funclist[-1], *funclist[:-1]]
    elif nf == nc:
        funcs = [0, *funclist]
    else:
        raise ValueError(f"with {nc} condition(s), either {nc} or {nc + 1} functions are expected; got {nf}")
    aval = core.get_aval(x)
    conds = _creation.asarray(condlist, dtype=dtypes.bool_)  # (nc, *condition shape)
    zero = _creation.zeros_like(conds[:1])
    index = _reductions.argmax(_reductions.cumsum(_shape.concatenate([zero, conds], axis=0), axis=0), axis=0)
    index, xb = _shape.broadcast_arrays(index, x)

    def branch(f: Any) -> Callable[[Any], Any]:
        if callable(f):
            return lambda v: lax_ew.convert_element_type(ensure_array(f(v, *args, **kw)), aval.dtype)
        return lambda v: lax_ew.convert_element_type(ensure_array(f), aval.dtype)

    branches = [branch(f) for f in funcs]

    def one(i: Any, v: Any) -> Any:
        return lax_ew.select_n(i, *[_shape.broadcast_to(b(v), ()) for b in branches])

    shape = core.get_aval(xb).shape
    if core.get_aval(xb).size == 0:
        return _creation.zeros(shape, aval.dtype)
    flat = vmap(one)(_shape.ravel(index), _shape.ravel(xb))
    return _shape.reshape(flat, shape)
