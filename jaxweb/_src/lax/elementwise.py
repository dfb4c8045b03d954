"""Elementwise primitives: arithmetic, math functions, comparisons, bitwise, casts.

Each primitive is defined in one line with `unop`/`binop` (base.py), followed by
its JVP/transpose and batching rules. Float16/bfloat16 compute in float32.
"""
from __future__ import annotations

__all__ = ["add", "sub", "mul", "neg", "sin", "cos", "exp", "lt", "convert_element_type"]

from typing import Any

from .. import core, dtypes
from ..compiler import lazy
from ..dispatch import def_lowering
from ..interpreters import rules as R
from . import base
from .base import ANY, FLOAT, NUM, binop, unop

# ---------------------------------------------------------------- arithmetic
add_p = binop("add", NUM)
R.defbroadcasting(add_p)
sub_p = binop("sub", NUM)
R.defbroadcasting(sub_p)
mul_p = binop("mul", NUM)
R.defbroadcasting(mul_p)
neg_p = unop("neg", NUM)
R.defvectorized(neg_p)

# ---------------------------------------------------------------- math
sin_p = unop("sin", FLOAT)
R.defvectorized(sin_p)
cos_p = unop("cos", FLOAT)
R.defvectorized(cos_p)
exp_p = unop("exp", FLOAT)
R.defvectorized(exp_p)

# ---------------------------------------------------------------- comparisons
lt_p = binop("lt", ANY, result_dtype=dtypes.bool_)
R.defbroadcasting(lt_p)
R.defnondifferentiable(lt_p)

# ---------------------------------------------------------------- casts
convert_element_type_p = core.Primitive("convert_element_type")


@core.def_abstract_eval(convert_element_type_p)
def _convert_abstract(x, *, new_dtype, weak_type=False):
    return x.update(dtype=new_dtype, weak_type=weak_type)


@def_lowering(convert_element_type_p)
def _convert_lower(x, *, new_dtype, weak_type=False):
    return x.cast(new_dtype)


R.defvectorized(convert_element_type_p)


def convert_element_type(x: Any, new_dtype: Any, weak_type: bool = False) -> Any:
    """`lax.convert_element_type`; a no-op when dtype and weak type already match."""
    new_dtype = dtypes.canonicalize_dtype(new_dtype)
    aval = core.get_aval(x)
    if aval.dtype is new_dtype and aval.weak_type == weak_type and not core.is_python_scalar(x):
        return x
    if core.is_python_scalar(x):
        return base.full((), x, new_dtype) if not weak_type else _weak_scalar(x, new_dtype)
    return convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=bool(weak_type))


def _weak_scalar(x: Any, dtype: Any) -> Any:
    out = base.full((), x, dtype)
    out.aval = out.aval.update(weak_type=True)
    return out


# ---------------------------------------------------------------- wrappers
def _binary_wrapper(prim: core.Primitive):
    def fn(x: Any, y: Any) -> Any:
        x, y = _promote_scalars(x, y)
        return prim.bind(x, y)
    fn.__name__ = prim.name
    return fn


def _promote_scalars(x: Any, y: Any) -> tuple[Any, Any]:
    """lax-style operands: Python scalars take the other operand's dtype; 0-d broadcast."""
    if core.is_python_scalar(x) and not core.is_python_scalar(y):
        x = _weak_scalar(x, core.get_aval(y).dtype)
    elif core.is_python_scalar(y) and not core.is_python_scalar(x):
        y = _weak_scalar(y, core.get_aval(x).dtype)
    elif core.is_python_scalar(x) and core.is_python_scalar(y):
        dt = dtypes.result_type(x, y)
        x, y = _weak_scalar(x, dt), _weak_scalar(y, dt)
    ax, ay = core.get_aval(x), core.get_aval(y)
    if ax.shape != ay.shape and (ax.ndim == 0 or ay.ndim == 0):
        from .structural import broadcast_in_dim
        if ax.ndim == 0:
            x = broadcast_in_dim(x, ay.shape, ())
        else:
            y = broadcast_in_dim(y, ax.shape, ())
    return x, y


add = _binary_wrapper(add_p)
sub = _binary_wrapper(sub_p)
mul = _binary_wrapper(mul_p)
lt = _binary_wrapper(lt_p)
neg = neg_p.bind
sin = sin_p.bind
cos = cos_p.bind
exp = exp_p.bind
