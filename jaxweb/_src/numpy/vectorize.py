"""`jnp.vectorize`: numpy's vectorize (with gufunc signatures), done with `vmap`.

The broadcast loop dimensions are mapped one `vmap` at a time from the innermost out;
an argument whose size is 1 along a loop dimension is not mapped there (in_axes None),
so nothing is materialized by broadcasting. Core dimensions named by the signature are
checked for consistent sizes, on the inputs and on what the function returns.
"""
from __future__ import annotations

__all__ = ["vectorize"]

import functools
import re
from typing import Any, Callable, Collection

from .. import core
from . import creation as _creation, shape as _shape
from ..api import vmap

_DIM = r"\w+"
_CORE = rf"(?:{_DIM}(?:,{_DIM})*)?"
_ARG = rf"\({_CORE}\)"
_ARGLIST = rf"{_ARG}(?:,{_ARG})*"
_SIGNATURE = rf"^{_ARGLIST}->{_ARGLIST}$"


def parse_signature(signature: str) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """'(m,n),(n)->(m)' -> ([('m', 'n'), ('n',)], [('m',)])."""
    sig = signature.replace(" ", "")
    if not re.match(_SIGNATURE, sig):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    ins, outs = sig.split("->")
    parse = lambda part: [tuple(re.findall(_DIM, arg)) for arg in re.findall(_ARG, part)]  # noqa: E731
    return parse(ins), parse(outs)


def _record_sizes(sizes: dict, shape: tuple, dims: tuple, context: str) -> None:
    if len(shape) < len(dims):
        raise ValueError(f"input with shape {shape} does not have enough dimensions for all core "
                         f"dimensions {dims} {context}")
    for name, n in zip(dims, shape[len(shape) - len(dims):] if dims else ()):
        if sizes.setdefault(name, n) != n:
            raise ValueError(f"inconsistent size for core dimension {name!r}: {n} vs {sizes[name]} {context}")


def _checked(func: Callable, sizes: dict, out_dims: list, context: str) -> Callable:
    def wrapped(*args: Any) -> Any:
        out = func(*args)
        outs = out if isinstance(out, tuple) else (out,)
        if len(outs) != len(out_dims):
            raise TypeError(f"wrong number of output arguments: expected {len(out_dims)}, got "
                            f"{len(outs)} {context}")
        local = dict(sizes)
        for o, dims in zip(outs, out_dims):
            shape = core.get_aval(_creation.asarray(o)).shape
            if len(shape) != len(dims):
                raise ValueError(f"output shape {shape} does not match core dimensions {dims} {context}")
            _record_sizes(local, shape, dims, context)
        return out
    return wrapped


def _apply_excluded(func: Callable, excluded: Collection, args: tuple, kwargs: dict) -> tuple:
    if not excluded:
        return func, args, kwargs
    static = [(i, args[i]) for i in sorted(e for e in excluded if isinstance(e, int)) if i < len(args)]
    dyn = [a for i, a in enumerate(args) if i not in excluded]
    static_kw = {k: v for k, v in kwargs.items() if k in excluded}
    dyn_kw = {k: v for k, v in kwargs.items() if k not in excluded}

    def f(*a: Any, **kw: Any) -> Any:
        a = list(a)
        for i, v in static:
            a.insert(i, v)
        return func(*a, **kw, **static_kw)
    return f, dyn, dyn_kw


def vectorize(pyfunc: Callable, *, excluded: Collection[int | str] = frozenset(),
              signature: str | None = None) -> Callable:
    """`jnp.vectorize`: `pyfunc` applied over the broadcast leading dimensions of its
    arguments (the trailing core dimensions of `signature` are passed whole)."""
    if any(not isinstance(e, (str, int)) for e in excluded):
        raise TypeError("jax.numpy.vectorize can only exclude integer or string arguments, "
                        f"but excluded={excluded!r}")
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise ValueError(f"excluded={excluded!r} contains negative numbers")

    @functools.wraps(pyfunc)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        context = f"on vectorized function with excluded={excluded!r} and signature={signature!r}"
        func, args, kwargs = _apply_excluded(pyfunc, excluded, args, kwargs)
        if kwargs:
            func = functools.partial(func, **kwargs)
        if signature is not None:
            in_dims, out_dims = parse_signature(signature)
            if len(in_dims) != len(args):
                raise TypeError(f"wrong number of positional arguments: expected {len(in_dims)}, "
                                f"got {len(args)} {context}")
        else:
            in_dims, out_dims = [()] * len(args), None
        nones = {i for i, a in enumerate(args) if a is None}
        if nones:
            if any(in_dims[i] for i in nones):
                raise ValueError(f"Cannot pass None at locations {nones} with signature={signature}")
            func, args, _ = _apply_excluded(func, nones, args, {})
            in_dims = [d for i, d in enumerate(in_dims) if i not in nones]
        args = [_creation.asarray(a) for a in args]
        sizes: dict = {}
        loop_shapes = []
        for a, dims in zip(args, in_dims):
            shape = core.get_aval(a).shape
            _record_sizes(sizes, shape, dims, context)
            loop_shapes.append(shape[:len(shape) - len(dims)])
        loop = _shape.broadcast_shapes(*loop_shapes) if loop_shapes else ()
        if out_dims is not None:
            func = _checked(func, sizes, out_dims, context)
        squeezed, filled = [], []
        for a, shape in zip(args, loop_shapes):
            filled.append(((1,) * (len(loop) - len(shape)) + shape)[::-1])
            ones = tuple(i for i, n in enumerate(shape) if n == 1)
            squeezed.append(_shape.squeeze(a, axis=ones) if ones else a)
        mapped, expand = func, []
        for neg, axis_sizes in enumerate(zip(*filled)):
            in_axes = tuple(None if n == 1 else 0 for n in axis_sizes)
            if all(ax is None for ax in in_axes):
                expand.append(len(loop) - 1 - neg)
            else:
                mapped = vmap(mapped, in_axes)
        result = mapped(*squeezed)
        if not expand:
            return result
        if isinstance(result, tuple):
            return tuple(_shape.expand_dims(r, tuple(expand)) for r in result)
        return _shape.expand_dims(result, tuple(expand))

    return wrapped
