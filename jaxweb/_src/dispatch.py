"""Eager dispatch: run one primitive by lowering it to kernels on a device.

`def_lowering(prim)` registers a lowering rule (Syms in, Syms out) and makes the
eager implementation of `prim` "lower, then realize". Results that are pure views
of an input (movement ops) or constants come back without running any kernel.
"""
from __future__ import annotations

from functools import partial
from typing import Any, Callable

from . import core
from .array import Array
from .compiler.kernel import Kernel
from .compiler.lazy import BufSym, ConstSym, Sym, build_kernel
from .compiler.shapetracker import ShapeTracker
from .device import Buffer, Device, default_device

lowering_rules: dict[core.Primitive, Callable[..., Any]] = {}


def def_lowering(prim: core.Primitive):
    """Decorator: `fn(*syms, **params) -> Sym` (a list if multiple_results)."""
    def register(fn):
        lowering_rules[prim] = fn
        core.impl_rules[prim] = partial(eager_apply, prim)
        return fn
    return register


def device_of(args: tuple) -> Device:
    for a in args:
        if isinstance(a, Array):
            return a.device
    return default_device()


def to_sym(x: Any, device: Device) -> Sym:
    if isinstance(x, Array):
        if x.device is not device:
            x = device_put(x, device)
        return x.sym()
    aval = core.get_aval(x)
    if core.is_python_scalar(x):
        return ConstSym(x, aval.dtype, ())
    return device_put(x, device).sym()


#: (primitive, params, argument signature) -> (output aval, kernel, argument index per slot).
#: Eager mode runs the same small programs over and over; a hit skips abstract evaluation,
#: lowering and kernel building, leaving only the kernel launch.
_KERNELS: dict[tuple, tuple] = {}
_KERNELS_MAX = 4096


def eager_apply(prim: core.Primitive, *args: Any, **params: Any) -> Any:
    key = None if prim.multiple_results else _signature(prim, args, params)
    hit = _KERNELS.get(key) if key is not None else None
    device = device_of(args)
    if hit is not None:
        aval, kernel, arg_of_slot = hit
        return _launch(kernel, aval, device, [args[i]._buf for i in arg_of_slot])
    avals = [core.get_aval(a) for a in args]
    out_avals = prim.abstract_eval(*avals, **params)
    syms = [to_sym(a, device) for a in args]
    out = lowering_rules[prim](*syms, **params)
    if prim.multiple_results:
        return [materialize(s, a, device, prim) for s, a in zip(out, out_avals)]
    if key is not None and not isinstance(out, (BufSym, ConstSym)):
        return _build_and_cache(key, out, out_avals, device, prim, args)
    return materialize(out, out_avals, device, prim)


def _signature(prim: core.Primitive, args: tuple, params: dict) -> tuple | None:
    """A hashable description of everything a lowering depends on, or None."""
    sig, bufs = [], {}
    for a in args:
        if isinstance(a, Array):
            if a._buf is None:  # repr: 0.0 and -0.0 (and 1 and True) must not collide
                sig.append(("c", a.aval, repr(a._const)))
            else:
                sig.append(("b", a.aval, a._st, a._buf.dtype, bufs.setdefault(id(a._buf), len(bufs))))
        elif core.is_python_scalar(a):
            sig.append(("s", type(a), repr(a)))
        else:
            return None
    key = (prim, tuple(sorted(params.items())), tuple(sig))
    try:
        hash(key)
    except TypeError:  # unhashable params (lists, arrays): no caching
        return None
    return key


def _build_and_cache(key: tuple, sym: Sym, aval: core.ShapedArray, device: Device,
                     prim: core.Primitive, args: tuple) -> Array:
    _check_lowered(sym, aval, prim)
    kernel, inputs, nested = _kernel_of(sym, device, prim.name)
    arg_of_slot = [next((i for i, a in enumerate(args) if isinstance(a, Array) and a._buf is b), None)
                   for b in inputs]
    if not nested and None not in arg_of_slot:  # one kernel reading only the arguments
        if len(_KERNELS) >= _KERNELS_MAX:
            _KERNELS.clear()
        _KERNELS[key] = (aval, kernel, arg_of_slot)
    return _launch(kernel, aval, device, inputs)


def _launch(kernel: Kernel, aval: core.ShapedArray, device: Device, inputs: list) -> Array:
    out = _run(kernel, device, inputs)
    return Array(aval, device, buf=out, st=ShapeTracker.from_shape(aval.shape))


def _kernel_of(sym: Sym, device: Device, name: str) -> tuple[Kernel, list, int]:
    """The kernel computing `sym`, its input buffers by slot, and how many inner kernels
    (reductions it reads through a view) had to be realized first."""
    nested = 0

    def realize_inner(s: Sym) -> BufSym:
        nonlocal nested
        nested += 1
        return BufSym(realize(s, device, name), ShapeTracker.from_shape(s.shape), s.dtype)

    kernel, inputs = build_kernel(sym, realize_inner, name)
    return kernel, inputs, nested


def _run(kernel: Kernel, device: Device, inputs: list) -> Buffer:
    out = Buffer(device, kernel.size, kernel.out_dtype)
    if kernel.size:
        device.backend.run(kernel, out.handle, [b.handle for b in inputs])
    return out


def _check_lowered(sym: Sym, aval: core.ShapedArray, prim: Any) -> None:
    if sym.shape != aval.shape or sym.dtype is not aval.dtype:
        raise AssertionError(f"lowering of {prim} produced {sym.dtype.name}{list(sym.shape)}, "
                             f"expected {aval.str_short(False)}")


def materialize(sym: Sym, aval: core.ShapedArray, device: Device, prim: Any = None) -> Array:
    """An Array holding `sym`: a view, a constant, or a freshly computed buffer."""
    _check_lowered(sym, aval, prim)
    if isinstance(sym, BufSym):
        return Array(aval, device, buf=sym.buf, st=sym.st)
    if isinstance(sym, ConstSym):
        return Array(aval, device, const=sym.value)
    buf = realize(sym, device, getattr(prim, "name", "kernel"))
    return Array(aval, device, buf=buf, st=ShapeTracker.from_shape(aval.shape))


def realize(sym: Sym, device: Device, name: str = "kernel") -> Buffer:
    """Compute `sym` into a new contiguous buffer (plus any reductions it needs first)."""
    kernel, inputs, _ = _kernel_of(sym, device, name)
    return _run(kernel, device, inputs)


def contiguous_buffer(x: Array) -> Buffer:
    """A buffer holding exactly x's elements in row-major order (copying if it is a view)."""
    if x._buf is not None and x._st.is_contiguous and x._buf.size == x.size:
        return x._buf
    return realize(x.sym(), x.device, "copy")


def device_put(x: Any, device: Device | str | None = None) -> Array:
    """`jaxweb.device_put`: an Array of `x` on `device` (default device if None)."""
    from .numpy.creation import asarray  # late: the numpy layer is above dispatch
    if isinstance(device, str):
        from .device import devices
        device = devices(device)[0]
    device = device or default_device()
    if isinstance(x, Array):
        if x.device is device:
            return x
        data = x._host_bytes()
        buf = Buffer(device, x.size, x.dtype)
        buf.write(data)
        return Array(x.aval, device, buf=buf, st=ShapeTracker.from_shape(x.shape))
    from .config import override
    with override("jax_default_device", device):
        return asarray(x)
