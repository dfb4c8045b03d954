"""Mutable array references (`jax.new_ref`, `jax.Ref`, the `jax.ref` module) and `jax.ds`.

A Ref holds an immutable Array and replaces it on every write (`.at[idx].set`), so reads
after a write see the new value and arrays read earlier keep theirs, as JAX's refs
behave. Eager code and code traced in one function can use refs; a ref passed into `jit`
as an argument is not supported yet. `jax.ds(start, size)` indexes one axis of a ref from
a start that may be traced (a dynamic slice of static size), as in JAX's state API.
"""
from __future__ import annotations

import dataclasses
from typing import Any

from . import core
from .lax.structural import full
from .lax.elementwise import asarray
from .lax.indexing import dynamic_slice_in_dim, dynamic_update_slice_in_dim
from .lax.structural import broadcast_in_dim

__all__ = ["AbstractRef", "Ref", "Slice", "addupdate", "ds", "empty_ref", "free_ref", "freeze", "get", "new_ref",
           "set", "swap"]


@dataclasses.dataclass(frozen=True)
class Slice:
    """`size` elements from `start` (an int or a traced scalar) every `stride` (JAX's
    state indexing `Slice`; `jax.ds` builds one)."""
    start: Any
    size: int
    stride: int = 1


def ds(start: Any, size: Any = None, stride: Any = None) -> Any:
    """`jax.ds` (dslice): `ds(None)` is `:`, `ds(j)` is `:j`, `ds(i, j)` is `i:i+j`,
    `ds(i, j, s)` is `i:i+j:s` (with a traced `i`, a dynamic slice of static size j)."""
    if start is None:
        return slice(None)
    if stride is None:
        stride = 1
    if not isinstance(stride, int):
        raise ValueError("Non-static stride in `dslice`")
    if size is None:
        if not isinstance(start, int):
            raise ValueError("Non-static `dslice`")
        return Slice(0, start, stride)
    return Slice(start, size, stride)


class AbstractRef:
    """The abstract value of a Ref (`jax.typeof(ref)`): the type of the array it holds."""

    __slots__ = ("inner_aval",)

    def __init__(self, inner_aval: core.ShapedArray):
        self.inner_aval = inner_aval

    shape = property(lambda self: self.inner_aval.shape)
    dtype = property(lambda self: self.inner_aval.dtype)
    ndim = property(lambda self: self.inner_aval.ndim)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, AbstractRef) and other.inner_aval == self.inner_aval

    def __hash__(self) -> int:
        return hash(("Ref", self.inner_aval))

    def __repr__(self) -> str:
        return f"Ref{{{self.inner_aval.str_short()}}}"

    __str__ = __repr__


def _has_slice(idx: Any) -> bool:
    return isinstance(idx, Slice) or isinstance(idx, tuple) and any(isinstance(i, Slice) for i in idx)


def _split(idx: Any, ndim: int) -> tuple[tuple, list]:
    """(a static index with the Slice axes left whole, [(axis, Slice)]) for an index of
    ints, slices and Slices (no arrays, None or Ellipsis next to a Slice)."""
    parts = idx if isinstance(idx, tuple) else (idx,)
    static, dynamic, axis = [], [], 0
    for p in parts:
        if p is None or p is Ellipsis or hasattr(p, "shape") and not isinstance(p, Slice):
            raise NotImplementedError("jaxweb: a jax.ds index combines only with ints and slices")
        if isinstance(p, Slice):
            dynamic.append((axis, p))
            static.append(slice(None))
        else:
            static.append(p)
        if not isinstance(p, int):
            axis += 1
    return tuple(static), dynamic


def _read(value: Any, idx: Any) -> Any:
    if not _has_slice(idx):
        return value if idx is Ellipsis or idx == () else value[idx]
    static, dynamic = _split(idx, value.ndim)
    value = value[static]
    for axis, s in dynamic:
        value = dynamic_slice_in_dim(value, s.start, (s.size - 1) * s.stride + 1 if s.size else 0, axis)
        if s.stride != 1:
            value = value[(slice(None),) * axis + (slice(None, None, s.stride),)]
    return value


class Ref:
    """`jax.Ref`: a mutable array. `r[...]` reads, `r[idx] = v` writes, `freeze(r)` ends it."""

    __slots__ = ("_value", "_frozen")

    def __init__(self, value: Any):
        self._value = asarray(value)
        self._frozen = False

    def _check(self) -> None:
        if self._frozen:
            raise ValueError("this Ref was frozen (jax.freeze) and can no longer be used")

    shape = property(lambda self: self._value.shape)
    dtype = property(lambda self: self._value.dtype)
    ndim = property(lambda self: self._value.ndim)
    size = property(lambda self: self._value.size)
    aval = property(lambda self: core.get_aval(self._value))

    def __getitem__(self, idx: Any) -> Any:
        self._check()
        return _read(self._value, idx)

    def __setitem__(self, idx: Any, value: Any) -> None:
        self._check()
        if idx is Ellipsis or idx == ():
            v = asarray(value, self._value.dtype)
            shape = self._value.shape
            new = v if v.shape == shape else broadcast_in_dim(v, shape, tuple(range(len(shape) - v.ndim, len(shape))))
        elif _has_slice(idx):
            new = self._write_dynamic(idx, value)
        else:
            new = self._value.at[idx].set(value)
        self._value = new

    def _write_dynamic(self, idx: Any, value: Any) -> Any:
        """A write through jax.ds indices (stride 1, all static parts whole-axis slices)."""
        static, dynamic = _split(idx, self._value.ndim)
        if any(s != slice(None) for s in static) or any(s.stride != 1 for _, s in dynamic):
            raise NotImplementedError("jaxweb: a write through jax.ds takes unit strides and whole other axes")
        shape = list(self._value.shape)
        for axis, s in dynamic:
            shape[axis] = s.size
        v = asarray(value, self._value.dtype)
        if tuple(v.shape) != tuple(shape):
            v = broadcast_in_dim(v, tuple(shape), tuple(range(len(shape) - v.ndim, len(shape))))
        if len(dynamic) != 1:
            raise NotImplementedError("jaxweb: a write through jax.ds takes one jax.ds axis")
        axis, s = dynamic[0]
        return dynamic_update_slice_in_dim(self._value, v, s.start, axis)

    def get(self) -> Any:
        return self[...]

    def set(self, value: Any) -> None:
        self[...] = value

    def swap(self, value: Any, idx: Any = Ellipsis) -> Any:
        old = self[idx]
        self[idx] = value
        return old

    def addupdate(self, value: Any, idx: Any = Ellipsis) -> None:
        self._check()
        if idx is Ellipsis or idx == ():
            self._value = self._value + value
        elif _has_slice(idx):
            self[idx] = self[idx] + value
        else:
            self._value = self._value.at[idx].add(value)

    def __repr__(self) -> str:
        return f"Ref({self._value!r})"


def new_ref(init_val: Any, *, memory_space: Any = None, kind: Any = None) -> Ref:
    """`jax.new_ref`: a mutable array holding `init_val`."""
    return Ref(init_val)


def empty_ref(ty: Any, *, memory_space: Any = None) -> Ref:
    """`jax.empty_ref`: a ref of `ty`'s shape and dtype (zero-filled here)."""
    return Ref(full(ty.shape, 0, ty.dtype))


def freeze(ref: Ref) -> Any:
    """`jax.freeze`: the ref's final value; the ref can no longer be used."""
    value = ref[...]
    ref._frozen = True
    return value


def free_ref(ref: Ref) -> None:
    """`jax.free_ref`: end the ref's lifetime."""
    ref._frozen = True


def _index(idx: Any) -> Any:
    return Ellipsis if idx is None else idx


def get(ref: Ref, idx: Any = None) -> Any:
    """`jax.ref.get`: `ref[idx]` (the whole value when idx is None)."""
    return ref[_index(idx)]


def set(ref: Ref, idx: Any, value: Any) -> None:  # noqa: A001  (JAX's name)
    """`jax.ref.set`: `ref[idx] = value`."""
    ref[_index(idx)] = value


def swap(ref: Ref, idx: Any, value: Any) -> Any:
    """`jax.ref.swap`: write value at idx and return what was there."""
    return ref.swap(value, _index(idx))


def addupdate(ref: Ref, idx: Any, x: Any) -> None:
    """`jax.ref.addupdate`: `ref[idx] += x`."""
    ref.addupdate(x, _index(idx))
