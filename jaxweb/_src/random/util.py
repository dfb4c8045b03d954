"""Argument checks shared by the samplers, with JAX's rules and messages: shapes,
user dtypes (64-bit requests truncate with JAX's warning when x64 is off), and the
broadcast and safe-cast checks on distribution parameters."""
from __future__ import annotations

import builtins
import operator
import warnings
from typing import Any, Sequence

from .. import config, core, dtypes
from ..api import jit as api_jit
from ..device import default_device

Shape = Sequence[int]


class TypePromotionError(ValueError):
    """JAX's error for a parameter that cannot be cast safely to the sample dtype."""


def canonicalize_shape(shape: Any) -> tuple[int, ...]:
    """A shape argument as a tuple of ints (an int is a 1-d shape), or JAX's TypeError."""
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    try:
        out = tuple(operator.index(core.concrete_or_error(d, "a shape")) for d in shape)
    except (TypeError, core.ConcretizationTypeError):
        out = None
    if out is None:
        raise TypeError(f"Shapes must be 1D sequences of concrete values of integer type, got {shape}.")
    if any(d < 0 for d in out):
        raise TypeError(f"Shapes must be 1D sequences of nonnegative integers, got {shape}.")
    return out


_X64_WARNING = ("Explicitly requested dtype {} is not available, and will be truncated to dtype {}. "
                "To enable more dtypes, set the jax_enable_x64 configuration option or the "
                "JAX_ENABLE_X64 shell environment variable. See "
                "https://github.com/jax-ml/jax#current-gotchas for more.")

_PY_TYPES = {builtins.float: dtypes.default_float, builtins.int: dtypes.default_int,
             builtins.bool: lambda: dtypes.bool_, builtins.complex: dtypes.default_complex}


def user_dtype(dtype: Any) -> dtypes.DType:
    """A user's dtype argument, canonicalized: Python types give the default dtypes, and a
    64-bit request without x64 warns and truncates, as JAX's check_and_canonicalize_user_dtype."""
    if hasattr(dtype, "aval") or isinstance(dtype, core.Tracer):
        raise ValueError("Passing an array as a dtype argument is no longer supported; instead of "
                         "dtype=arr use dtype=arr.dtype.")
    if isinstance(dtype, type) and dtype in _PY_TYPES:
        return _PY_TYPES[dtype]()
    d = dtypes.dtype(dtype)
    if d.kind == "K":
        return d
    out = dtypes.canonicalize_dtype(d)
    if out is not d:
        warnings.warn(_X64_WARNING.format(d.name, out.name), stacklevel=4)
    return out


def shape_of(x: Any) -> tuple[int, ...]:
    """`np.shape` for array-likes: arrays, tracers, numpy values, scalars and nested lists."""
    s = getattr(x, "shape", None)
    if s is not None:
        return tuple(s)
    if isinstance(x, (list, tuple)):
        return (len(x), *shape_of(x[0])) if x else (0,)
    return ()


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """`lax.broadcast_shapes`: numpy broadcasting, with JAX's ValueError."""
    nd = builtins.max((len(s) for s in shapes), default=0)
    out = []
    for i in range(nd):
        sizes = {s[i - nd + len(s)] for s in shapes if i - nd + len(s) >= 0}
        sizes.discard(1)
        if len(sizes) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={[tuple(s) for s in shapes]}")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def check_shape(name: str, shape: tuple[int, ...], *param_shapes: Sequence[int]) -> None:
    """Parameter shapes must broadcast to exactly the requested sample shape."""
    if param_shapes:
        shape_ = broadcast_shapes(shape, *param_shapes)
        if tuple(shape) != shape_:
            raise ValueError(f"{name} parameter shapes must be broadcast-compatible with shape argument, "
                             "and the result of broadcasting the shapes must equal the shape argument, "
                             f"but got result {shape_} for shape argument {tuple(shape)}.")


def check_broadcast_shapes(name: str, shape: Any, *args: Any) -> tuple[int, ...]:
    """The sample shape: the parameters' broadcast shape when `shape` is None."""
    arg_shapes = [shape_of(a) for a in args]
    if shape is None:
        return broadcast_shapes(*arg_shapes) if arg_shapes else ()
    shape = canonicalize_shape(shape)
    check_shape(name, shape, *arg_shapes)
    return shape


def check_all_safe_to_cast(name: str, dtype: dtypes.DType, *args: Any) -> None:
    for arg in args:
        if dtypes.result_type(arg, dtype) != dtype:
            raise TypePromotionError(f"In arguments to {name}, cannot safely cast argument of type "
                                     f"{dtypes.result_type(arg)} to {dtype}")


def check_float_dtype(name: str, dtype: dtypes.DType, what: str = "a float dtype") -> None:
    if dtype.kind != "f":
        raise ValueError(f"dtype argument to `{name}` must be {what}, got {dtype}")


def threefry_partitionable() -> bool:
    return bool(config.read("jax_threefry_partitionable"))


_TRACE_FLAGS = ("jax_threefry_partitionable", "jax_enable_x64", "jax_default_prng_impl",
                "jax_use_high_dynamic_range_gumbel")


def jit(fun: Any = None, *, static_argnums: Any = (), static_argnames: Any = ()) -> Any:
    """`jax.jit` for the samplers' internals, traced once per default device and per
    setting of the flags the samplers read while tracing.

    A trace captures the constants it creates (on the device current at trace time) and
    the counter layout of `jax_threefry_partitionable`; jaxweb's jit cache keys on
    neither yet, so they are part of the static key here. Arguments are bound to
    `fun`'s signature and passed positionally, so static names and positions both work."""
    import functools
    import inspect


    if fun is None:
        return functools.partial(jit, static_argnums=static_argnums, static_argnames=static_argnames)
    sig = inspect.signature(fun)
    params = list(sig.parameters)
    nums = {static_argnums} if isinstance(static_argnums, int) else set(static_argnums)
    names = {static_argnames} if isinstance(static_argnames, str) else set(static_argnames)
    nums |= {params.index(n) for n in names}

    def on_device(context: Any, *args: Any) -> Any:
        return fun(*args)

    on_device.__name__ = getattr(fun, "__name__", "fun")
    jitted = api_jit(on_device, static_argnums=(0, *sorted(i + 1 for i in nums)))

    @functools.wraps(fun)
    def call(*args: Any, **kwargs: Any) -> Any:
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        return jitted((default_device(), *(config.read(f) for f in _TRACE_FLAGS)), *bound.args)

    call.clear_cache = jitted.clear_cache  # type: ignore[attr-defined]
    return call
