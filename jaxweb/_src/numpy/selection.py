"""Choosing among several values per element: `select` and `piecewise`.

Both compute an index per element and pick with one `lax.select_n`, so they are one
fused kernel, differentiable in the chosen values and batchable. `select` takes the
first true condition (the default where none is); `piecewise` lets the last true
condition win, as numpy does, and calls each function through `vmap` over the
elements (JAX calls them through a vectorized `lax.switch`, which is the same thing).
"""
from __future__ import annotations

__all__ = ["select", "piecewise"]

import importlib
from typing import Any, Callable, Sequence

from .. import core, dtypes
from ..lax import elementwise as lax_ew
from ..lax import structural as lax_st
from .util import check_arraylike, ensure_array, promote_dtypes


def _jnp() -> Any:
    return importlib.import_module("jaxweb.numpy")


def select(condlist: Sequence[Any], choicelist: Sequence[Any], default: Any = 0) -> Any:
    """`jnp.select`: per element, the choice of the first true condition, else `default`."""
    if len(condlist) != len(choicelist):
        raise ValueError("condlist must have length equal to choicelist "
                         f"({len(condlist)} vs {len(choicelist)})")
    if len(condlist) == 0:
        raise ValueError("condlist must be non-empty")
    check_arraylike("select", *condlist, *choicelist, default)
    jnp = _jnp()
    conds = [ensure_array(c) for c in condlist]
    choices = promote_dtypes(ensure_array(default), *[ensure_array(c) for c in choicelist])
    # the default goes first with a False condition: argmax of all-False is 0
    stacked = jnp.stack(jnp.broadcast_arrays(False, *conds))
    idx = jnp.argmax(lax_ew.convert_element_type(stacked, dtypes.bool_), axis=0)
    return lax_ew.select_n(*jnp.broadcast_arrays(idx, *choices))


def piecewise(x: Any, condlist: Any, funclist: Sequence[Any], *args: Any, **kw: Any) -> Any:
    """`jnp.piecewise`: `funclist[i](x)` where `condlist[i]` holds (the last true one wins);
    a trailing extra entry of `funclist` is the default, otherwise the default is 0.
    Entries may be constants instead of functions; results take x's dtype."""
    check_arraylike("piecewise", x)
    jnp = _jnp()
    x = ensure_array(x)
    nc, nf = len(condlist), len(funclist)
    if nf == nc + 1:
        funcs = [funclist[-1], *funclist[:-1]]
    elif nf == nc:
        funcs = [0, *funclist]
    else:
        raise ValueError(f"with {nc} condition(s), either {nc} or {nc + 1} functions are expected; got {nf}")
    aval = core.get_aval(x)
    conds = jnp.asarray(condlist, dtype=dtypes.bool_)  # (nc, *condition shape)
    zero = jnp.zeros_like(conds[:1])
    index = jnp.argmax(jnp.cumsum(jnp.concatenate([zero, conds], axis=0), axis=0), axis=0)
    index, xb = jnp.broadcast_arrays(index, x)

    def branch(f: Any) -> Callable[[Any], Any]:
        if callable(f):
            return lambda v: lax_ew.convert_element_type(ensure_array(f(v, *args, **kw)), aval.dtype)
        return lambda v: lax_ew.convert_element_type(ensure_array(f), aval.dtype)

    branches = [branch(f) for f in funcs]

    def one(i: Any, v: Any) -> Any:
        return lax_ew.select_n(i, *[jnp.broadcast_to(b(v), ()) for b in branches])

    shape = core.get_aval(xb).shape
    if core.get_aval(xb).size == 0:
        return jnp.zeros(shape, aval.dtype)
    from ..api import vmap  # late: the api layer sits above jnp
    flat = vmap(one)(jnp.ravel(index), jnp.ravel(xb))
    return jnp.reshape(flat, shape)
