"""Shared argument handling for jnp functions: type promotion and broadcasting.

`promote_args(name, *args)` is what every numpy-style n-ary function calls: it
checks the arguments are array-like, promotes them to a common dtype with JAX's
weak-type rules, and broadcasts them to a common shape, naming the function and
shapes in any error.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

from .. import core, dtypes
from ..array import Array
from ..device import default_device
from ..hostdata import coerce_scalar
from ..lax import elementwise as lax_ew
from ..lax import structural as lax_st
from . import creation as _creation


def is_arraylike(x: Any) -> bool:
    return isinstance(x, (Array, core.Tracer)) or core.is_python_scalar(x) or \
        (hasattr(x, "__array__") and hasattr(x, "dtype")) or hasattr(x, "__jax_array__")


def check_arraylike(name: str, *args: Any) -> None:
    for i, a in enumerate(args):
        if not is_arraylike(a):
            raise TypeError(f"{name} requires ndarray or scalar arguments, got {type(a).__name__} at position {i}.")


def ensure_array(x: Any) -> Any:
    """Arrays and tracers pass through; scalars and numpy arrays become Arrays."""
    if isinstance(x, (Array, core.Tracer)):
        return x
    return _creation.asarray(x)


def broadcast_shapes(*shapes: Sequence[int], name: str = "broadcast_shapes") -> tuple[int, ...]:
    nd = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(nd):
        sizes = {s[i - nd + len(s)] for s in shapes if i - nd + len(s) >= 0}
        sizes.discard(1)
        if len(sizes) > 1:
            raise ValueError(f"{name}: incompatible shapes for broadcasting: "
                             f"{', '.join(str(tuple(s)) for s in shapes)}")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def _eager(args: Sequence[Any]) -> bool:
    """Whether ops on `args` run now (no transformation or staging is active)."""
    return not any(isinstance(a, core.Tracer) for a in args) and core.dynamic_trace is None \
        and len(core.trace_stack) == 1


def broadcast_to_shape(x: Any, shape: tuple[int, ...]) -> Any:
    aval = core.get_aval(x)
    if aval.shape == shape:
        return x
    if type(x) is Array and x.is_const() and _eager((x,)) and all(type(d) is int and d >= 0 for d in shape):
        # a constant stays one: no dispatch (bad shapes go on to broadcast_in_dim's checks)
        return _constant(aval.update(shape=shape), x.device, x._const)
    nd = len(shape)
    dims = tuple(range(nd - aval.ndim, nd))
    squeeze = [i for i, (d, n) in enumerate(zip(aval.shape, shape[nd - aval.ndim:])) if d != n and d != 1]
    if squeeze:
        raise ValueError(f"Incompatible shapes for broadcasting: {aval.shape} and requested shape {shape}")
    return lax_st.broadcast_in_dim(x, shape, dims)


def _check_python_int(v: int) -> None:
    """As JAX: a Python int operand must fit the default integer type (it is one)."""
    if -0x80000000 <= v <= 0x7FFFFFFF:  # fits either default
        return
    info = dtypes.iinfo(dtypes.default_int())
    if not info.min <= v <= info.max:
        raise OverflowError(f"Python int {v} too large to convert to {info.dtype.name} "
                            "(the default integer type of Python int operands)")


def promote_dtypes(*args: Any) -> list:
    """Convert arguments to their common (JAX-promoted) dtype, keeping weak types."""
    for a in args:
        if type(a) is int:
            _check_python_int(a)
    if len(args) < 2:
        return [ensure_array(a) for a in args]
    dt, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    eager = _eager(args)
    return [_scalar_const(a, dt, weak) if eager and core.is_python_scalar(a) and dt.kind != "c"
            else lax_ew.convert_element_type(a, dt, weak) if (core.is_python_scalar(a) or core.get_aval(a).dtype != dt
                                                               or core.get_aval(a).weak_type != weak)
            else a for a in args]


def _scalar_const(v: Any, dt: dtypes.DType, weak: bool) -> Array:
    """A Python scalar operand as the constant Array convert_element_type would give."""
    return _constant(core.ShapedArray((), dt, weak), default_device(), coerce_scalar(v, dt))


_CONSTANTS: dict[tuple, Array] = {}  # operands' constants, shared (eager code makes the same ones often)


def _constant(aval: core.ShapedArray, device: Any, value: Any) -> Array:
    key = (aval, id(device), type(value), repr(value))
    a = _CONSTANTS.get(key)
    if a is None:
        if len(_CONSTANTS) >= 512:
            _CONSTANTS.clear()
        a = _CONSTANTS[key] = Array.constant(aval, device, value)
    return a


def promote_args(name: str, *args: Any) -> list:
    """Promote dtypes, then broadcast shapes (numpy semantics)."""
    if core.dynamic_trace is None and len(core.trace_stack) == 1:
        fast = _eager_promote(name, args)
        if fast is not None:
            return fast
    return _promote_args(name, *args)


def _promote_args(name: str, *args: Any) -> list:
    check_arraylike(name, *args)
    args = [a if isinstance(a, (Array, core.Tracer)) or core.is_python_scalar(a) else ensure_array(a) for a in args]
    args = promote_dtypes(*args)
    shapes = [core.get_aval(a).shape for a in args]
    if len(set(shapes)) > 1:
        try:
            shape = broadcast_shapes(*shapes, name=name)
        except ValueError:  # JAX's type and text for operands that don't broadcast: equal
            # ranks reach lax (TypeError), others fail in rank promotion (ValueError)
            if len({len(s) for s in shapes}) == 1:
                raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                                f"{', '.join(str(tuple(s)) for s in shapes)}.") from None
            raise ValueError("Incompatible shapes for broadcasting: shapes="
                             f"{[tuple(s) for s in shapes]}") from None
        args = [broadcast_to_shape(a, shape) for a in args]
    return args


#: eager operands' promotion: (config, per-operand aval or scalar type) -> (dtype, weak, shape)
_PLANS: dict[tuple, tuple] = {}
_SCALARS = (int, float, bool)


def _eager_promote(name: str, args: tuple) -> list | None:
    """promote_args for concrete Arrays and Python int/float/bool operands, from a plan
    made once per operand signature (eager code calls the same ops on the same shapes
    again and again); None for anything else (the general path)."""
    sig = []
    for a in args:
        t = type(a)
        if t is Array:
            sig.append(a.aval)
        elif t in _SCALARS:
            sig.append(t)
        else:
            return None
    key = (dtypes.config.read("jax_enable_x64"), dtypes.config.read("jax_numpy_dtype_promotion"), *sig)
    plan = _PLANS.get(key)
    if plan is None:
        out = _promote_args(name, *args)
        avals = [core.get_aval(a) for a in out]
        if len(_PLANS) < 4096 and avals[0].dtype.kind != "c":
            _PLANS[key] = (avals[0].dtype, avals[0].weak_type, avals[0].shape)
        return out
    dt, weak, shape = plan
    out = []
    for a in args:
        if type(a) is Array:
            av = a.aval
            if av.dtype is not dt or av.weak_type != weak:
                a = lax_ew.convert_element_type(a, dt, weak)
            if av.shape != shape:
                a = broadcast_to_shape(a, shape)
        else:
            a = _broadcast_scalar(a, dt, weak, shape)
        out.append(a)
    return out


_SCALAR_OPERANDS: dict[tuple, Array] = {}  # (value, type, dtype, weak, shape, device) -> constant Array


def _broadcast_scalar(v: Any, dt: dtypes.DType, weak: bool, shape: tuple) -> Array:
    """Python scalar `v` as the constant operand (dtype `dt`, broadcast to `shape`)."""
    device = default_device()
    t = type(v)
    key = (v, t, dt, weak, shape, id(device), math.copysign(1.0, v) if t is float else 0)
    c = _SCALAR_OPERANDS.get(key)
    if c is None:
        if t is int:
            _check_python_int(v)
        c = broadcast_to_shape(_scalar_const(v, dt, weak), shape)
        if len(_SCALAR_OPERANDS) >= 512:
            _SCALAR_OPERANDS.clear()
        _SCALAR_OPERANDS[key] = c
    return c


def promote_args_inexact(name: str, *args: Any) -> list:
    """Like promote_args, then integers/bools become the default float (jnp.sin(1) is float)."""
    args = promote_args(name, *args)
    dt = core.get_aval(args[0]).dtype
    if dt.kind in "biu":
        args = [lax_ew.convert_element_type(a, dtypes.default_float(), core.get_aval(a).weak_type) for a in args]
    return args
