"""Array creation: asarray/array from Python values, numpy arrays and Arrays; zeros, ones, full."""
from __future__ import annotations

__all__ = ["copy", "asarray", "array", "full", "zeros", "ones", "empty", "arange", "linspace", "logspace",
           "geomspace", "eye", "identity", "tri", "tril", "triu", "meshgrid", "full_like",
           "zeros_like", "ones_like", "empty_like"]

import functools
import math
from typing import Any, Callable

from .. import core, device as _device, dtypes, host_arrays, hostdata
from ..host_arrays import from_host
from ..array import Array
from ..lax import base as lax_base, elementwise as lax_ew
from .shape import stack
from ..lax.structural import full as lax_full, reshape, broadcast_in_dim, transpose, copy as lax_copy
from .util import broadcast_to_shape, broadcast_shapes, check_arraylike
from .ufuncs import power, exp, log, sign, abs as abs_


def _on_device(fn: Callable) -> Callable:
    """A creation function's `device=` (a Device, or a sharding of one device): the array is made
    with that device as the default, and a concrete result elsewhere (an Array passed through)
    is copied there, as JAX places it. Under a trace the device is the trace's."""
    @functools.wraps(fn)
    def placed(*args: Any, device: Any = None, **kwargs: Any) -> Any:
        if device is None:
            return fn(*args, **kwargs)
        if not isinstance(device, _device.Device) and hasattr(device, "device_set"):
            (device,) = device.device_set
        with _device.use_device(device):
            out = fn(*args, **kwargs)
        if isinstance(out, Array) and out.device is not device:
            out = out.to_device(device)
        return out
    return placed


def _shape_tuple(shape: Any) -> tuple[int, ...]:
    """A creation function's shape, with JAX's TypeErrors for bad or negative sizes."""
    out = core.canonicalize_shape(shape)
    if any(d < 0 for d in out):
        raise TypeError(f"broadcast_in_dim shape must have every element be nonnegative, got {out}.")
    return out


@_on_device
def asarray(a: Any, dtype: Any = None, order: str | None = None, *, copy: bool | None = None,
            device: Any = None) -> Any:
    """`jnp.asarray`: an Array from array-like input (no copy for Arrays). Host values go
    through `host_arrays.from_host`; here are the cases that need array operations."""
    if dtype is not None:
        dtype = dtypes.canonicalize_dtype(dtypes.dtype(dtype))
    if core.is_python_scalar(a):  # `jnp.asarray(0.5)`: straight to its 0-d constant
        return host_arrays.from_python_scalar(a, dtype)
    if a is None:
        raise ValueError("None is not a valid value for jnp.array")
    if hasattr(a, "__jax_array__"):
        a = a.__jax_array__()
    if isinstance(a, (Array, core.Tracer)):
        return a if dtype is None else lax_ew.convert_element_type(a, dtype)
    np = hostdata.numpy_or_none()
    is_numpy = np is not None and isinstance(a, (np.ndarray, np.generic))
    if is_numpy and dtype is dtypes.bfloat16 and a.dtype.name not in ("bfloat16", "object"):  # round on the device
        return lax_ew.convert_element_type(from_host(a.astype(np.float32)), dtype)
    if not is_numpy and not isinstance(a, (list, tuple)) and hasattr(a, "__array__"):
        return asarray(a.__array__(), dtype)
    if isinstance(a, (list, tuple)):
        leaves = host_arrays.leaves(a)
        if any(getattr(v, "ndim", 0) or isinstance(v, (Array, core.Tracer)) for v in leaves):
            dtype = host_arrays.sequence_dtype(leaves, dtype)
            return stack([asarray(e, dtype) for e in a]) if a else asarray([], dtype)
    return from_host(a, dtype)


@_on_device
def array(object: Any, dtype: Any = None, copy: bool = True, order: str | None = "K", ndmin: int = 0,
          *, device: Any = None) -> Any:
    """`jnp.array`: a new array (`copy=True`, the default) that shares nothing the caller can
    lose through donation."""
    out = asarray(object, dtype)
    if copy and out is object:
        out = lax_copy(out)
    if ndmin > out.ndim:
        out = reshape(out, (1,) * (ndmin - out.ndim) + tuple(out.shape))
    return out


@_on_device
def full(shape: Any, fill_value: Any, dtype: Any = None, *, device: Any = None) -> Any:
    shape = _shape_tuple(shape)
    if dtype is None and not core.is_python_scalar(fill_value):
        fill = asarray(fill_value)
        return broadcast_to_shape(fill, shape) if fill.ndim else lax_full(shape, fill, fill.dtype)
    if dtype is None:  # a Python scalar: weakly typed, as in JAX
        return lax_full(shape, fill_value)
    dt = dtypes.canonicalize_dtype(dtype)
    if getattr(fill_value, "ndim", 0):
        return broadcast_to_shape(asarray(fill_value, dt), shape)
    return lax_full(shape, fill_value, dt)


@_on_device
def zeros(shape: Any, dtype: Any = None, *, device: Any = None) -> Any:
    return lax_full(_shape_tuple(shape), 0, dtypes.canonicalize_dtype(dtype or dtypes.default_float()))


@_on_device
def ones(shape: Any, dtype: Any = None, *, device: Any = None) -> Any:
    return lax_full(_shape_tuple(shape), 1, dtypes.canonicalize_dtype(dtype or dtypes.default_float()))


@_on_device
def empty(shape: Any, dtype: Any = None, *, device: Any = None) -> Any:
    return zeros(shape, dtype)


# ---------------------------------------------------------------- ranges
def _concrete_scalar(x: Any, what: str) -> Any:
    x = core.concrete_or_error(x, f"the {what} argument of jnp.arange")
    return x.item() if hasattr(x, "item") and not core.is_python_scalar(x) else x


@_on_device
def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None, *,
           device: Any = None) -> Any:
    """`jnp.arange`: evenly spaced values in [start, stop); int32 for integer arguments,
    float32 for float ones (x64 off). Computed on the device from an iota."""
    if start is None:
        raise TypeError("must be real number, not NoneType")
    args = [a for a in (start, stop, step) if a is not None]
    for a in args:
        if getattr(a, "ndim", 0):
            raise TypeError("jnp.arange: arguments must be scalars.")
    if dtype is None:
        dt = dtypes.result_type(*[a if core.is_python_scalar(a) else dtypes.dtype(a) for a in args])
    else:
        dt = dtypes.canonicalize_dtype(dtype)
    start, stop, step = (None if a is None else _concrete_scalar(a, n)
                         for a, n in ((start, "start"), (stop, "stop"), (step, "step")))
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    if step == 0:
        raise ZeroDivisionError("jnp.arange: step cannot be zero")
    size = max(0, math.ceil((stop - start) / step))
    if dt.kind in "iu" and all(isinstance(v, int) for v in (start, step)):
        out = lax_ew.iota(dt, size)
        out = lax_ew.mul(out, step) if step != 1 else out
        return lax_ew.add(out, start) if start != 0 else out
    calc = dt if dt.kind == "f" and dt not in lax_base.LOW_FLOATS else dtypes.default_float()
    out = lax_ew.add(lax_ew.mul(lax_ew.iota(calc, size), float(step)), float(start))
    return lax_ew.convert_element_type(out, dt)


def _inexact_dtype(*args: Any) -> dtypes.DType:
    dt = dtypes.result_type(*args, dtypes.default_float())
    return dt if dt.kind in "fc" else dtypes.default_float()


@_on_device
def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype: Any = None, axis: int = 0, *, device: Any = None) -> Any:
    """`jnp.linspace`: `num` evenly spaced samples over [start, stop] (or [start, stop)).

    start/stop may be arrays: samples run along `axis` of the broadcast result; the
    last sample is exactly `stop` when `endpoint`."""
    num = int(core.concrete_or_error(num, "the num argument of jnp.linspace"))
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    calc = _inexact_dtype(start, stop)
    start, stop = (lax_ew.convert_element_type(asarray(v), calc) for v in (start, stop))
    bshape = broadcast_shapes(start.shape, stop.shape, name="linspace")
    start, stop = (broadcast_to_shape(v, bshape) for v in (start, stop))
    div = (num - 1) if endpoint else num
    step = lax_ew.div(lax_ew.sub(stop, start), float(div)) if div > 0 else \
        lax_ew.full_like(start, math.nan)
    out_shape = (num,) + bshape
    lead = tuple(range(1, len(out_shape)))
    s, e, st = (broadcast_in_dim(v, out_shape, lead) for v in (start, stop, step))
    i = lax_ew.broadcasted_iota(calc, out_shape, 0)
    out = lax_ew.add(s, lax_ew.mul(i, st)) if div > 0 else s
    if endpoint and num > 1:
        out = lax_ew.select(lax_ew.eq(i, float(num - 1)), e, out)
    axis = lax_base.canonical_axes([axis], len(out_shape))[0]
    if axis:
        perm = list(range(1, len(out_shape)))
        perm.insert(axis, 0)
        out = transpose(out, perm)
    dt = dtypes.canonicalize_dtype(dtype) if dtype is not None else calc
    if dt.kind in "iu":
        out = lax_ew.floor(out)
    out = lax_ew.convert_element_type(out, dt)
    return (out, step) if retstep else out


def logspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, base: Any = 10.0,
             dtype: Any = None, axis: int = 0) -> Any:
    """`jnp.logspace`: base ** linspace(start, stop)."""
    calc = _inexact_dtype(start, stop)
    exps = linspace(start, stop, num, endpoint=endpoint, dtype=calc, axis=axis)
    out = power(lax_ew.convert_element_type(asarray(base), calc), exps)
    return lax_ew.convert_element_type(out, dtypes.canonicalize_dtype(dtype) if dtype is not None else calc)


def geomspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None,
              axis: int = 0) -> Any:
    """`jnp.geomspace`: a geometric progression from start to stop (same signs)."""
    calc = _inexact_dtype(start, stop)
    start, stop = (lax_ew.convert_element_type(asarray(v), calc) for v in (start, stop))
    sgn = sign(start)
    out = exp(linspace(log(abs_(start)), log(abs_(stop)), num, endpoint=endpoint, axis=0))
    out = lax_ew.mul(out, broadcast_in_dim(sgn, out.shape, tuple(range(1, out.ndim))))
    first = broadcast_in_dim(start, out.shape, tuple(range(1, out.ndim)))
    idx0 = lax_ew.broadcasted_iota(dtypes.int32, out.shape, 0)
    out = lax_ew.select(lax_ew.eq(idx0, 0), first, out)
    if endpoint and num > 1:
        last = broadcast_in_dim(stop, out.shape, tuple(range(1, out.ndim)))
        out = lax_ew.select(lax_ew.eq(idx0, num - 1), last, out)
    axis = lax_base.canonical_axes([axis], out.ndim)[0]
    if axis:
        perm = list(range(1, out.ndim))
        perm.insert(axis, 0)
        out = transpose(out, perm)
    return lax_ew.convert_element_type(out, dtypes.canonicalize_dtype(dtype) if dtype is not None else calc)


# ---------------------------------------------------------------- matrices
def _dim(n: Any, what: str) -> int:
    n = int(core.concrete_or_error(n, f"the {what} argument"))
    if n < 0:
        raise ValueError(f"negative dimensions are not allowed, got {what}={n}")
    return n


def _diagonal_mask(N: int, M: int, k: int, cmp: str) -> Any:
    """Bool (N, M) mask comparing col - row with k (cmp: 'eq', 'le' or 'ge')."""
    row = lax_ew.broadcasted_iota(dtypes.int32, (N, M), 0)
    col = lax_ew.broadcasted_iota(dtypes.int32, (N, M), 1)
    return getattr(lax_ew, cmp)(lax_ew.sub(col, row), int(k))


@_on_device
def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = None, *, device: Any = None) -> Any:
    """`jnp.eye`: ones on the k-th diagonal."""
    N = _dim(N, "N")
    M = N if M is None else _dim(M, "M")
    dt = dtypes.canonicalize_dtype(dtype) if dtype is not None else dtypes.default_float()
    return lax_ew.convert_element_type(_diagonal_mask(N, M, int(k), "eq"), dt)


def identity(n: int, dtype: Any = None) -> Any:
    """`jnp.identity`: the n x n identity matrix."""
    return eye(n, dtype=dtype)


def tri(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> Any:
    """`jnp.tri`: ones at and below the k-th diagonal."""
    N = _dim(N, "N")
    M = N if M is None else _dim(M, "M")
    dt = dtypes.canonicalize_dtype(dtype) if dtype is not None else dtypes.default_float()
    return lax_ew.convert_element_type(_diagonal_mask(N, M, int(k), "le"), dt)


def _triangle(m: Any, k: int, cmp: str, name: str) -> Any:
    m = asarray(m)
    if m.ndim < 2:
        raise ValueError(f"{name} requires an array of at least two dimensions, got {m.ndim}")
    N, M = m.shape[-2:]
    mask = broadcast_in_dim(_diagonal_mask(N, M, int(k), cmp), m.shape, (m.ndim - 2, m.ndim - 1))
    return lax_ew.select(mask, m, lax_ew.zeros_like(m))


def tril(m: Any, k: int = 0) -> Any:
    """`jnp.tril`: zero the elements above the k-th diagonal (of the last two axes)."""
    return _triangle(m, k, "le", "tril")


def triu(m: Any, k: int = 0) -> Any:
    """`jnp.triu`: zero the elements below the k-th diagonal (of the last two axes)."""
    return _triangle(m, k, "ge", "triu")


def meshgrid(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> list:
    """`jnp.meshgrid`: coordinate grids from 1-D arrays ('xy': Cartesian, 'ij': matrix)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    arrs = [asarray(x) for x in xi]
    for a in arrs:
        if a.ndim != 1:
            raise ValueError(f"Arguments to jax.numpy.meshgrid must be 1D, got shape {a.shape}")
    sizes = [a.shape[0] for a in arrs]
    if indexing == "xy" and len(arrs) >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    axes = list(range(len(arrs)))
    if indexing == "xy" and len(arrs) >= 2:
        axes[0], axes[1] = 1, 0
    out = []
    for a, ax in zip(arrs, axes):
        if sparse:
            shape = [1] * len(arrs)
            shape[ax] = a.shape[0]
            out.append(reshape(a, tuple(shape)))
        else:
            out.append(broadcast_in_dim(a, tuple(sizes), (ax,)))
    return out


# ---------------------------------------------------------------- *_like
@_on_device
def full_like(a: Any, fill_value: Any, dtype: Any = None, shape: Any = None, *,
              device: Any = None) -> Any:
    """`jnp.full_like`: an array like `a` (shape, dtype, weak type) filled with fill_value."""
    check_arraylike("full_like", a)
    aval = core.get_aval(a)
    shape = aval.shape if shape is None else _shape_tuple(shape)
    dt = aval.dtype if dtype is None else dtypes.canonicalize_dtype(dtype)
    if getattr(fill_value, "ndim", 0):
        return broadcast_to_shape(asarray(fill_value, dt), shape)
    out = lax_full(shape, fill_value, dt)
    if dtype is None and aval.weak_type:
        out.aval = out.aval.update(weak_type=True)
    return out


@_on_device
def zeros_like(a: Any, dtype: Any = None, shape: Any = None, *, device: Any = None) -> Any:
    """`jnp.zeros_like`."""
    return full_like(a, 0, dtype, shape)


@_on_device
def ones_like(a: Any, dtype: Any = None, shape: Any = None, *, device: Any = None) -> Any:
    """`jnp.ones_like`."""
    return full_like(a, 1, dtype, shape)


@_on_device
def empty_like(a: Any, dtype: Any = None, shape: Any = None, *, device: Any = None) -> Any:
    """`jnp.empty_like` (zeros: jaxweb arrays are always initialized)."""
    return full_like(a, 0, dtype, shape)


def copy(a: Any, order: str | None = None) -> Any:
    """`jnp.copy`: a new array with the same values (arrays are immutable, so rarely needed)."""
    return lax_copy(asarray(a))
