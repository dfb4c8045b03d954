"""Argument checks shared by jaxweb.nn and jaxweb.scipy, with JAX's error texts.

JAX's library functions reject lists and other non-arrays with
"<name> requires ndarray or scalar arguments, got <class 'list'> at position 0.";
`ensure_arraylike` raises exactly that and converts what it accepts.
"""
from __future__ import annotations

from typing import Any

from .. import core, dtypes
from ..numpy import util as np_util
from ..lax import elementwise as lax_ew


def check_arraylike(name: str, *args: Any) -> None:
    """Raise JAX's TypeError for the first argument that is not array-like."""
    for i, a in enumerate(args):
        if not np_util.is_arraylike(a):
            raise TypeError(f"{name} requires ndarray or scalar arguments, got {type(a)} at position {i}.")


def ensure_arraylike(name: str, *args: Any) -> Any:
    """Check the arguments, then return them as arrays (one value for one argument)."""
    check_arraylike(name, *args)
    out = [np_util.ensure_array(a) for a in args]
    return out[0] if len(out) == 1 else out


def promote_args_inexact(name: str, *args: Any) -> list:
    """`promote_args_inexact` of jnp, with JAX's message for non-array arguments."""
    check_arraylike(name, *args)
    return np_util.promote_args_inexact(name, *args)


def promote_dtypes_inexact(*args: Any) -> list:
    """Common inexact dtype without broadcasting (as JAX's promote_dtypes_inexact)."""
    args = np_util.promote_dtypes(*[np_util.ensure_array(a) if not core.is_python_scalar(a) else a
                                    for a in args])
    if not args:
        return args
    dt = core.get_aval(args[0]).dtype
    if dt.kind in "biu":
        args = [lax_ew.convert_element_type(a, dtypes.default_float(), core.get_aval(a).weak_type)
                for a in args]
    return [np_util.ensure_array(a) for a in args]


def dtype_of(x: Any) -> dtypes.DType:
    return core.get_aval(x).dtype

