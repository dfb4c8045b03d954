"""`jax.jit`: the jitted-function class and its call path.

Split from api.py (which keeps the other transformations) because the call path is
the hot loop of every training step: `_Jitted.__call__` finds the trace for the
arguments (by identity for a loop's repeated call, by avals otherwise) and runs
the Executable it keeps for that trace (`executable.call_kept`). Static and
donated arguments are resolved here once, at `jit(...)` time.
"""
from __future__ import annotations

import functools
import inspect
import operator
import weakref
from typing import Any, Callable, Sequence

from . import core
from .array import Array
from .config import trace_context, read
from .api_util import OutStore, as_array, check_jit_args, flatten_fun
from .jaxpr import ClosedJaxpr, convert_constvars_jaxpr, trace_to_closed_jaxpr
from .executable import call_kept, device_for
from .pjit import jit_call
from .stages import Lowered
from .shape_dtype_struct import ShapeDtypeStruct
from .tree_util import leaves_as, tree_flatten, tree_unflatten

__all__ = ["jit", "clear_jit_caches", "MAX_TRACES"]


def static_split(fun: Callable, args: tuple, kwargs: dict, static_argnums: tuple[int, ...],
                  static_argnames: tuple[str, ...]) -> tuple[Callable, tuple, dict, tuple]:
    """`fun` of the dynamic arguments only, those arguments, and the static ones (a cache key)."""
    nums = tuple(i % len(args) for i in static_argnums if -len(args) <= i < len(args))
    static_pos = tuple((i, args[i]) for i in nums)
    static_kw = tuple(sorted((k, v) for k, v in kwargs.items() if k in static_argnames))
    dyn_args = tuple(a for i, a in enumerate(args) if i not in nums)
    dyn_kwargs = {k: v for k, v in kwargs.items() if k not in static_argnames}

    def f_dyn(*d_args, **d_kwargs):
        it = iter(d_args)
        full = [dict(static_pos)[i] if i in nums else next(it) for i in range(len(args))]
        return fun(*full, **d_kwargs, **dict(static_kw))
    return f_dyn, dyn_args, dyn_kwargs, (static_pos, static_kw)



#: traces a jitted function keeps (per function; their compiled programs live as long as they do)
MAX_TRACES = 256


#: Every live jitted function, so that `jax.clear_caches` can drop their traces.
_JITTED: "weakref.WeakSet[_Jitted]" = weakref.WeakSet()


def clear_jit_caches() -> None:
    """Drop the traces (and with them the programs) of every live jitted function."""
    for f in list(_JITTED):
        f.clear_cache()


_ARRAY = {Array}
_AVAL = operator.attrgetter("aval")


class _Jitted:
    """`jit(fun)`: trace once per (argument structure, avals, static args), then run the jaxpr.

    Calls run the jaxpr compiled for the arguments' device (`executable.py`)."""

    def __init__(self, fun: Callable, static_argnums: tuple[int, ...], static_argnames: tuple[str, ...],
                 donate_argnums: tuple[int, ...] = (), donate_argnames: tuple[str, ...] = ()):
        functools.update_wrapper(self, fun)
        self._fun, self._static_argnums, self._static_argnames = fun, static_argnums, static_argnames
        self._donate_argnums, self._donate_argnames = donate_argnums, donate_argnames
        self._cache: dict = {}
        self._fast: dict = {}  # (avals, trace context) -> (jaxpr, out tree) of all-Array positional calls
        self._exes: dict = {}  # `_run`'s Executables (executable.call_kept)
        self._last: tuple | None = None  # (in tree, avals, trace context, trace) of the last call (no statics)
        self._name = getattr(fun, "__name__", "fun")
        self._donations: dict = {}  # (argument structure, count) -> `_donated` flags
        _JITTED.add(self)

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def _jaxpr(self, args: tuple, kwargs: dict) -> tuple[ClosedJaxpr, Any, list, Any]:
        """(the trace, its output structure, the flat arguments, their structure — None where a call
        of positional Arrays found its trace without flattening them)."""
        fast = not kwargs and not self._static_argnums and not self._static_argnames and \
            _ARRAY.issuperset(map(type, args))
        if fast:  # the common call: positional Arrays (no pytree to flatten)
            key = (tuple(map(_AVAL, args)), trace_context())
            hit = self._fast.get(key)
            if hit is not None:
                return hit[0], hit[1], list(args), None
        closed, out_tree, flat, in_tree = self._trace(args, kwargs)
        if fast and not any(isinstance(c, core.Tracer) for c in closed.consts):
            if len(self._fast) >= MAX_TRACES:
                del self._fast[next(iter(self._fast))]
            self._fast[key] = (closed, out_tree)
        return closed, out_tree, flat, in_tree

    def _trace(self, args: tuple, kwargs: dict) -> tuple[ClosedJaxpr, Any, list, Any]:
        if self._static_argnums or self._static_argnames:
            f_dyn, dyn_args, dyn_kwargs, static = static_split(
                self._fun, args, kwargs, self._static_argnums, self._static_argnames)
        else:
            f_dyn, dyn_args, dyn_kwargs, static = self._fun, args, kwargs, ((), ())
        last = self._last  # a loop calls with what the last call had (its outputs' very avals)
        if static[0] or static[1]:
            last = None  # (static arguments are part of the trace's key: the full path compares them)
        flat = leaves_as(last[0], (dyn_args, dyn_kwargs)) if last is not None else None
        if flat is not None:  # the last call's structure: no need to flatten and compare
            in_tree = last[0]
        else:
            flat, in_tree = tree_flatten((dyn_args, dyn_kwargs))
        if not set(map(type, flat)) <= _ARRAY and \
                not all(type(x) is Array or isinstance(x, core.Tracer) for x in flat):
            check_jit_args(self._fun, args, kwargs, self._static_argnums, self._static_argnames)
            flat = [as_array(x) for x in flat]
        avals = tuple(map(_AVAL, flat))
        if last is not None and last[1] == avals \
                and (last[0] is in_tree or last[0] == in_tree) and last[2] == trace_context():
            self._last = (in_tree, avals, last[2], last[3])  # the next call compares by identity
            return last[3][0], last[3][1], flat, in_tree
        try:
            # static values with their types: 1, True and 1.0 are equal but trace differently
            typed = tuple(tuple((k, type(v), v) for k, v in part) for part in static)
            key = (in_tree, avals, typed, trace_context())
            hash(key)
        except TypeError as e:
            bad = _unhashable(static)
            raise ValueError(f"Non-hashable static arguments are not supported. An error occurred "
                             f"while trying to hash an object of type {type(bad)}, {bad!r}. The "
                             f"error was:\nTypeError: {e}") from None
        hit = self._cache.get(key)
        if hit is None:
            store = OutStore()
            closed = trace_to_closed_jaxpr(flatten_fun(f_dyn, in_tree, store), list(avals))
            hit = (closed, store.tree)
            if not any(isinstance(c, core.Tracer) for c in closed.consts):
                if len(self._cache) >= MAX_TRACES:  # bounded: the oldest trace (and its programs) go
                    del self._cache[next(iter(self._cache))]
                self._cache[key] = hit
        if not typed[0] and not typed[1] and key in self._cache:  # no static arguments
            self._last = (in_tree, avals, key[3], hit)
        return hit[0], hit[1], flat, in_tree

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if read("jax_disable_jit"):
            return self._fun(*args, **kwargs)
        closed, out_tree, flat, in_tree = self._jaxpr(args, kwargs)
        donated = self._donated_of(in_tree, args, kwargs) if self._donate_argnums or self._donate_argnames else ()
        if closed.consts and any(isinstance(c, core.Tracer) for c in closed.consts):  # closes over traced values
            jaxpr, consts = convert_constvars_jaxpr(closed)
            closed, flat = ClosedJaxpr(jaxpr, []), [*consts, *flat]
            donated = (False,) * len(consts) + tuple(donated) if donated else ()
        return tree_unflatten(out_tree, self._run(closed, flat, donated))

    def _run(self, closed: ClosedJaxpr, flat: list, donated: tuple) -> list:
        """`jit_call`; when nothing traces and every argument is a concrete Array, straight to the
        Executable this function keeps for the trace (`executable.call_kept`: no bind, no lookup)."""
        if core.dynamic_trace is not None or not flat or not set(map(type, flat)) <= _ARRAY:
            return [as_array(o) for o in jit_call(closed, flat, self._name, donated)]
        return call_kept(self._exes, closed, flat, donated, self._name)

    def _donated_of(self, in_tree: Any, args: tuple, kwargs: dict) -> tuple[bool, ...]:
        """`_donated`, kept per argument structure `in_tree` (the one `_jaxpr` flattened; None:
        positional Arrays, not flattened): a training loop's donated step would otherwise flatten
        each argument again, every call."""
        if in_tree is None:
            return self._donated(args, kwargs)
        key = (in_tree, len(args))
        flags = self._donations.get(key)
        if flags is None:
            if len(self._donations) >= MAX_TRACES:
                self._donations.clear()
            flags = self._donations[key] = self._donated(args, kwargs)
        return flags

    def _donated(self, args: tuple, kwargs: dict) -> tuple[bool, ...]:
        """Per flat dynamic argument: whether it is (inside) a donated argument."""
        flags: list[bool] = []
        for i, a in enumerate(args):
            if i % max(len(args), 1) in self._static_argnums or i - len(args) in self._static_argnums:
                continue
            flags += [i in self._donate_argnums or i - len(args) in self._donate_argnums] * len(tree_flatten(a)[0])
        for k in sorted(kwargs):  # dict leaves flatten in sorted key order
            if k not in self._static_argnames:
                flags += [k in self._donate_argnames] * len(tree_flatten(kwargs[k])[0])
        return tuple(flags)

    def lower(self, *args: Any, **kwargs: Any) -> Lowered:
        """The jaxpr these arguments trace to, ready to `.compile()` for their device."""
        closed, out_tree, flat, _ = self._jaxpr(args, kwargs)
        if any(isinstance(c, core.Tracer) for c in closed.consts):
            raise TypeError("jit(f).lower(...) of a function closing over traced values")
        in_tree = tree_flatten(static_split(self._fun, args, kwargs, self._static_argnums,
                                             self._static_argnames)[1:3])[1]
        return Lowered(closed, in_tree, out_tree, device_for(flat), self._name)

    def eval_shape(self, *args: Any, **kwargs: Any) -> Any:
        closed, out_tree, _, _ = self._jaxpr(args, kwargs)
        return tree_unflatten(out_tree, [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
                                         for a in closed.out_avals])

    def trace(self, *args: Any, **kwargs: Any) -> ClosedJaxpr:
        return self._jaxpr(args, kwargs)[0]

    def clear_cache(self) -> None:
        self._cache.clear()
        self._fast.clear()
        self._exes.clear()
        self._donations.clear()
        self._last = None


def _unhashable(static: tuple) -> Any:
    """The first static argument value that cannot be hashed (JAX's error names it)."""
    for part in static:
        for _, value in part:
            try:
                hash(value)
            except TypeError:
                return value
    return static


def _names_to_nums(fun: Callable, names: tuple[str, ...]) -> tuple[int, ...]:
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        return ()
    return tuple(i for i, p in enumerate(params) if p.name in names
                 and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


def _nums_to_names(fun: Callable, nums: tuple[int, ...]) -> tuple[str, ...]:
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        return ()
    return tuple(p.name for i, p in enumerate(params) if i in nums
                 and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


def jit(fun: Callable | None = None, *, static_argnums: int | Sequence[int] | None = None,
        static_argnames: str | Sequence[str] | None = None, donate_argnums: Any = None,
        donate_argnames: Any = None, keep_unused: bool = False, device: Any = None,
        backend: Any = None, inline: bool = False, in_shardings: Any = None,
        out_shardings: Any = None, abstracted_axes: Any = None) -> Any:
    """`jax.jit`: a traced-and-cached version of `fun` (usable as a decorator, with or without arguments)."""
    if fun is None:
        return functools.partial(jit, static_argnums=static_argnums, static_argnames=static_argnames,
                                 donate_argnums=donate_argnums, donate_argnames=donate_argnames)
    donums = () if donate_argnums is None else (
        (donate_argnums,) if isinstance(donate_argnums, int) else tuple(donate_argnums))
    donames = () if donate_argnames is None else (
        (donate_argnames,) if isinstance(donate_argnames, str) else tuple(donate_argnames))
    nums = () if static_argnums is None else (
        (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums))
    names = () if static_argnames is None else (
        (static_argnames,) if isinstance(static_argnames, str) else tuple(static_argnames))
    _check_static_spec(fun, nums, names)
    nums = tuple(sorted(set(nums) | set(_names_to_nums(fun, names))))
    names = tuple(sorted(set(names) | set(_nums_to_names(fun, nums))))
    donames = tuple(sorted(set(donames) | set(_nums_to_names(fun, donums))))
    donums = tuple(sorted(set(donums) | set(_names_to_nums(fun, donames))))
    return _Jitted(fun, nums, names, donums, donames)


def _check_static_spec(fun: Callable, nums: tuple, names: tuple) -> None:
    """JAX's errors for static_argnums/static_argnames the signature cannot have."""
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        return
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return
    n_pos = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
    if any(not -n_pos <= i < n_pos for i in nums):
        raise ValueError(f"Jitted function has static_argnums={nums}, but only accepts {n_pos} "
                         "positional arguments.")
    bad = set(names) - {p.name for p in params if p.kind != p.POSITIONAL_ONLY}
    if bad:
        raise ValueError(f"Jitted function has invalid argnames {bad} in static_argnames. "
                         "Function does not take these args.")

