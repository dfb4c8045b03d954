"""Array creation: asarray/array from Python values, numpy arrays and Arrays; zeros, ones, full."""
from __future__ import annotations

__all__ = ["asarray", "array", "full", "zeros", "ones", "empty"]

from typing import Any, Sequence

from .. import core, dtypes, hostdata
from ..array import Array
from ..compiler.shapetracker import ShapeTracker
from ..device import Buffer, default_device
from ..lax import base as lax_base
from ..lax import elementwise as lax_ew


def _shape_tuple(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (int,)) or hasattr(shape, "__index__") and not isinstance(shape, (tuple, list)):
        shape = (shape,)
    out = tuple(int(core.concrete_or_error(d, "a shape")) for d in shape)
    if any(d < 0 for d in out):
        raise ValueError(f"negative dimensions are not allowed: {out}")
    return out


def _from_host(flat: list, shape: tuple[int, ...], dt: dtypes.DType, weak: bool = False) -> Array:
    aval = core.ShapedArray(shape, dt, weak)
    device = default_device()
    buf = Buffer(device, aval.size, dt)
    if aval.size:
        buf.write(hostdata.pack(flat, dt))
    return Array(aval, device, buf=buf, st=ShapeTracker.from_shape(shape))


def _check_int_range(flat: list, dt: dtypes.DType) -> None:
    if dt.kind not in "iu":
        return
    info = dtypes.iinfo(dt)
    for v in flat:
        if isinstance(v, int) and not isinstance(v, bool) and not info.min <= v <= info.max:
            raise OverflowError(f"Python int {v} too large to convert to {dt.name}")


def asarray(a: Any, dtype: Any = None, order: str | None = None, *, copy: bool | None = None,
            device: Any = None) -> Any:
    """`jnp.asarray`: an Array from array-like input (no copy for Arrays)."""
    if dtype is not None:
        dtype = dtypes.canonicalize_dtype(dtypes.dtype(dtype))
        if dtype.kind == "c":
            raise TypeError("jaxweb does not support complex dtypes yet (got complex dtype).")
    if hasattr(a, "__jax_array__"):
        a = a.__jax_array__()
    if isinstance(a, (Array, core.Tracer)):
        return a if dtype is None else lax_ew.convert_element_type(a, dtype)
    if core.is_python_scalar(a):
        if isinstance(a, complex):
            raise TypeError("jaxweb does not support complex numbers yet.")
        dt = dtype or core.get_aval(a).dtype
        if dtype is None:
            _check_int_range([a], dt)
        return lax_base.full((), a, dt) if dtype is not None else _weak(a, dt)
    np = hostdata.numpy_or_none()
    if np is not None and isinstance(a, (np.ndarray, np.generic)):
        src = dtypes.dtype(a.dtype.name) if a.dtype.name != "object" else None
        if src is None:
            return asarray(a.tolist(), dtype)
        dt = dtype or dtypes.canonicalize_dtype(src)
        if dt.kind == "c":
            raise TypeError("jaxweb does not support complex dtypes yet.")
        aval = core.ShapedArray(a.shape, dt)
        dev = default_device()
        buf = Buffer(dev, aval.size, dt)
        if aval.size:
            buf.write(hostdata.from_numpy(a, dt))
        return Array(aval, dev, buf=buf)
    if isinstance(a, (list, tuple)):
        return _from_sequence(a, dtype)
    if hasattr(a, "__array__"):
        return asarray(a.__array__(), dtype)
    raise TypeError(f"Unexpected input type for array: {type(a)}")


def _weak(a: Any, dt: dtypes.DType) -> Array:
    out = lax_base.full((), a, dt)
    out.aval = out.aval.update(weak_type=True)
    return out


def _from_sequence(a: Sequence, dtype: Any) -> Any:
    if _has_arrays(a):
        from .shape import stack  # arrays or tracers inside: build with jnp ops
        return stack([asarray(e, dtype) for e in a]) if a else asarray([], dtype)
    shape, flat = hostdata.flatten_nested(a)
    for v in flat:
        if not core.is_python_scalar(v) and not hasattr(v, "dtype"):
            raise TypeError(f"Unexpected input type for array: {type(v)}")
    if dtype is None:
        if flat:
            leaves = [v if core.is_python_scalar(v) else dtypes.dtype(v) for v in flat]
            dtype = dtypes.result_type(*_dedupe(leaves))
        else:
            dtype = dtypes.default_float()
        _check_int_range(flat, dtype)
    flat = [v.item() if hasattr(v, "item") else v for v in flat]
    return _from_host(flat, shape, dtype)


def _dedupe(leaves: list) -> list:
    seen, out = set(), []
    for v in leaves:
        k = type(v) if core.is_python_scalar(v) else v
        if k not in seen:
            seen.add(k)
            out.append(v)
    return out


def _has_arrays(a: Any) -> bool:
    if isinstance(a, (Array, core.Tracer)):
        return True
    if isinstance(a, (list, tuple)):
        return any(_has_arrays(e) for e in a)
    return False


def array(object: Any, dtype: Any = None, copy: bool = True, order: str | None = "K", ndmin: int = 0,
          *, device: Any = None) -> Any:
    """`jnp.array`."""
    out = asarray(object, dtype)
    if ndmin > out.ndim:
        from ..lax.structural import reshape
        out = reshape(out, (1,) * (ndmin - out.ndim) + tuple(out.shape))
    return out


def full(shape: Any, fill_value: Any, dtype: Any = None, *, device: Any = None) -> Any:
    shape = _shape_tuple(shape)
    if dtype is None and not core.is_python_scalar(fill_value):
        fill = asarray(fill_value)
        from .util import broadcast_to_shape
        return broadcast_to_shape(fill, shape) if fill.ndim else lax_base.full(shape, fill, fill.dtype)
    dt = dtypes.canonicalize_dtype(dtype) if dtype is not None else dtypes.dtype(type(fill_value), canonicalize=True)
    if getattr(fill_value, "ndim", 0):
        from .util import broadcast_to_shape
        return broadcast_to_shape(asarray(fill_value, dt), shape)
    return lax_base.full(shape, fill_value, dt)


def zeros(shape: Any, dtype: Any = None, *, device: Any = None) -> Any:
    return lax_base.full(_shape_tuple(shape), 0, dtypes.canonicalize_dtype(dtype or dtypes.default_float()))


def ones(shape: Any, dtype: Any = None, *, device: Any = None) -> Any:
    return lax_base.full(_shape_tuple(shape), 1, dtypes.canonicalize_dtype(dtype or dtypes.default_float()))


def empty(shape: Any, dtype: Any = None, *, device: Any = None) -> Any:
    return zeros(shape, dtype)
