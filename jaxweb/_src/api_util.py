"""Argument plumbing shared by the public transformations: pytree flattening of
functions, argnums selection, abstract values of example arguments."""
from __future__ import annotations

import inspect
import operator
from typing import Any, Callable, Sequence

from . import core, dtypes
from .array import Array
from .host_arrays import from_host
from .tree_util import PyTreeDef, tree_flatten, tree_unflatten


class OutStore:
    """Receives the output tree of a flattened function once it has run."""

    def __init__(self):
        self.tree: PyTreeDef | None = None


def flatten_fun(fun: Callable, in_tree: PyTreeDef, store: OutStore) -> Callable[..., list]:
    """`fun(*args, **kwargs)` as a function of the flat leaves of `(args, kwargs)`."""
    def flat_fun(*leaves: Any) -> list:
        args, kwargs = tree_unflatten(in_tree, list(leaves))
        out_leaves, store.tree = tree_flatten(fun(*args, **kwargs))
        return out_leaves
    return flat_fun


def flatten_fun_nokwargs(fun: Callable, in_tree: PyTreeDef, store: OutStore) -> Callable[..., list]:
    """`fun(*args)` as a function of the flat leaves of `args`."""
    def flat_fun(*leaves: Any) -> list:
        out_leaves, store.tree = tree_flatten(fun(*tree_unflatten(in_tree, list(leaves))))
        return out_leaves
    return flat_fun


def argnums_spec(argnums: Any) -> int | tuple[int, ...]:
    """A user's argnums as an int or a tuple of ints (numpy integers accepted, as in JAX)."""
    if hasattr(argnums, "__index__") and not isinstance(argnums, (tuple, list)):
        return operator.index(argnums)
    return tuple(operator.index(a) if hasattr(a, "__index__") else a for a in argnums)


def normalize_argnums(argnums: int | Sequence[int], nargs: int, name: str = "argnums") -> tuple[int, ...]:
    """`argnums` as a tuple of non-negative ints, with JAX's error when out of range."""
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for a in nums:
        if not isinstance(a, int):
            raise TypeError(f"{name} must be an int or a tuple of ints, got {argnums!r}")
        if not -nargs <= a < nargs:
            raise TypeError(f"differentiating with respect to {name}={argnums} requires at least "
                            f"{max(a + 1, -a)} positional arguments to be passed by the caller, "
                            f"but got only {nargs} positional arguments.")
    return tuple(a % nargs for a in nums)


def split_argnums(fun: Callable, args: tuple, argnums: tuple[int, ...], kwargs: dict
                  ) -> tuple[Callable, tuple]:
    """`fun` as a function of only the `argnums` arguments (others fixed), and those arguments."""
    def f_partial(*dyn: Any) -> Any:
        full = list(args)
        for i, v in zip(argnums, dyn):
            full[i] = v
        return fun(*full, **kwargs)
    return f_partial, tuple(args[i] for i in argnums)


def abstractify(x: Any) -> core.ShapedArray:
    """Abstract value of an argument: arrays, tracers, scalars, ShapeDtypeStructs."""
    if isinstance(x, core.ShapedArray):
        return x
    aval = getattr(x, "aval", None)
    if isinstance(aval, core.ShapedArray):
        return aval
    if hasattr(x, "shape") and hasattr(x, "dtype") and not hasattr(x, "__array__"):
        return core.ShapedArray(x.shape, dtypes.canonicalize_dtype(x.dtype), getattr(x, "weak_type", False))
    if not core.valid_jaxtype(x):
        raise TypeError(f"Argument {x!r} of type {type(x)} is not a valid JAX type.")
    return core.get_aval(x)


def as_array(x: Any) -> Any:
    """Python scalars and numpy values become (weakly typed where JAX says so) Arrays."""
    if isinstance(x, (core.Tracer, Array)):
        return x
    if not core.valid_jaxtype(x):
        raise TypeError(f"Argument {x!r} of type {type(x)} is not a valid JAX type.")
    return from_host(x)


def check_jit_args(fun: Callable, args: tuple, kwargs: dict, static_argnums: Sequence[int],
                   static_argnames: Sequence[str]) -> None:
    """JAX's error for a non-array argument of a jitted function (one not marked static)."""
    names = _positional_names(fun)
    static = {i % len(args) for i in static_argnums if -len(args) <= i < len(args)}
    named = [(names[i] if i < len(names) else f"args[{i}]", a) for i, a in enumerate(args) if i not in static]
    for path, leaf in named + [(k, v) for k, v in kwargs.items() if k not in static_argnames]:
        for x in tree_flatten(leaf)[0]:
            if not (isinstance(x, (core.Tracer, Array)) or core.valid_jaxtype(x)):
                raise TypeError(
                    f"Error interpreting argument to {fun} as an abstract array. The problematic value "
                    f"is of type {type(x)} and was passed to the function at path {path}.\nThis "
                    "typically means that a jit-wrapped function was called with a non-array argument, "
                    "and this argument was not marked as static using the static_argnums or "
                    "static_argnames parameters of jax.jit.")


def _positional_names(fun: Callable) -> list[str]:
    try:
        params = inspect.signature(fun).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
