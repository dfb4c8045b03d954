"""Host value -> Array, in the runtime floor: what `jnp.asarray`, `device_put` and argument
handling all call for a Python scalar, a numpy array or scalar, or a nest of lists/tuples.

It lives below lax and numpy so that turning `1.0` in `jnp.add(x, 1.0)` into an Array never
climbs: an eager call goes numpy -> lax -> dispatch -> execution and back to here for its
constants. The cases that need array operations (a dtype change of an Array, bfloat16
rounding on the device, stacking a list of arrays) stay in `jnp.asarray`, which calls this
for the rest.
"""
from __future__ import annotations

from typing import Any, Sequence

from . import core, dtypes, hostdata
from .array import Array
from .device import Buffer, default_device


def check_int_range(flat: list, dt: dtypes.DType) -> None:
    """numpy's and JAX's OverflowError for a Python int that does not fit `dt`."""
    if dt.kind not in "iu":
        return
    lo, hi = dtypes.int_range(dt)
    for v in flat:
        if isinstance(v, int) and not isinstance(v, bool) and not lo <= v <= hi:
            raise OverflowError(f"Python integer {v} out of bounds for {dt.name}")


def from_python_scalar(a: Any, dtype: dtypes.DType | None) -> Array:
    """The 0-d Array of a Python bool/int/float/complex `a`, of canonical `dtype` (given: not
    weak) or of `a`'s own default (weak unless a bool). `jnp.float32(0.5)` comes straight here
    (an optimizer's bias correction, every step), past `jnp.asarray`'s checks for other inputs:
    a constant node, no device memory until it is needed."""
    if dtype is None:
        dt, weak = core.python_scalar_dtype(a), type(a) is not bool
    elif dtype is dtypes.float0:
        return Array.constant(core.ShapedArray((), dtype), default_device(), False)
    else:
        dt, weak = dtype, False
    if dt.kind in "iu":
        check_int_range([a], dt)
    aval = _SCALAR_AVALS.get((dt, weak))
    if aval is None:
        aval = _SCALAR_AVALS[(dt, weak)] = core.ShapedArray((), dt, weak)
    return Array.constant(aval, default_device(), hostdata.coerce_scalar(a, dt))


#: (dtype, weak) -> the 0-d aval of that type: avals never change, so every scalar of a type shares
#: one (`jnp.float32(v)` is made every step of a training loop)
_SCALAR_AVALS: dict = {}


def leaves(a: Any) -> list:
    """The non-sequence leaves of nested lists/tuples (arrays and numpy arrays are leaves)."""
    if isinstance(a, (list, tuple)):
        return [leaf for e in a for leaf in leaves(e)]
    return [a]


def _dedupe(vals: list) -> list:
    seen, out = set(), []
    for v in vals:
        k = type(v) if core.is_python_scalar(v) else (
            ("weak", v.dtype) if getattr(v, "weak_type", False) else v)
        if k not in seen:
            seen.add(k)
            out.append(v)
    return out


def sequence_dtype(flat: Sequence, dtype: dtypes.DType | None) -> dtypes.DType:
    """As JAX: one dtype for a whole nest, the promotion of every leaf (Python scalars
    weakly), and never a weak result (a list is not a weakly typed value)."""
    if any(v is None for v in flat):
        raise ValueError("None is not a valid value for jnp.array")
    for v in flat:
        if not core.is_python_scalar(v) and not hasattr(v, "dtype"):
            raise TypeError(f"Unexpected input type for array: {type(v)}")
    if dtype is not None:
        return dtype
    if not flat:
        return dtypes.default_float()
    typed = [v if core.is_python_scalar(v) or getattr(v, "weak_type", False) else dtypes.dtype(v) for v in flat]
    return dtypes.result_type(*_dedupe(typed))


def from_flat(flat: list, shape: tuple[int, ...], dt: dtypes.DType, weak: bool = False) -> Array:
    """An Array of row-major host values `flat` (written to a buffer on the default device)."""
    aval = core.ShapedArray(shape, dt, weak)
    device = default_device()
    buf = Buffer(device, aval.size, dt)
    if aval.size:
        buf.write(hostdata.pack(flat, dt))
    return Array.from_buffer(aval, buf)


def from_host(a: Any, dtype: Any = None) -> Array:
    """An Array of host value `a` (already an Array: itself) with JAX's dtype rules: a Python
    scalar is weakly typed unless `dtype` is given or it is a bool; a numpy value keeps its
    dtype (canonicalized); a nest of lists/tuples takes the promotion of its leaves."""
    if dtype is not None:
        dtype = dtypes.canonicalize_dtype(dtypes.dtype(dtype))
    if a is None:
        raise ValueError("None is not a valid value for jnp.array")
    if isinstance(a, Array) and dtype in (None, a.dtype):
        return a
    if core.is_python_scalar(a):
        return from_python_scalar(a, dtype)
    np = hostdata.numpy_or_none()
    if np is not None and isinstance(a, (np.ndarray, np.generic)):
        if a.dtype.name == "object":
            return from_host(a.tolist(), dtype)
        return Array.from_numpy(a, dtype or dtypes.canonicalize_dtype(dtypes.dtype(a.dtype.name)), default_device())
    if isinstance(a, (list, tuple)):
        flat_leaves = leaves(a)
        if any(getattr(v, "ndim", 0) or isinstance(v, (Array, core.Tracer)) for v in flat_leaves):
            raise TypeError("a list of arrays becomes one Array by stacking them: jnp.asarray does that")
        dt = sequence_dtype(flat_leaves, dtype)
        shape, flat = hostdata.flatten_nested(a)
        check_int_range(flat, dt)
        return from_flat([v.item() if hasattr(v, "item") else v for v in flat], shape, dt)
    if hasattr(a, "__array__"):
        return from_host(a.__array__(), dtype)
    if isinstance(a, range):
        return from_host(list(a), dtype)
    if not isinstance(a, (bytes, bytearray, str)):  # the buffer protocol (array.array), as JAX reads it
        try:                                          # through numpy; not bytes or text
            view = memoryview(a)
        except TypeError:
            view = None
        if view is not None:
            return from_host(np.asarray(view) if np is not None else view.tolist(), dtype)
    raise TypeError(f"Unexpected input type for array: {type(a)}")
