"""Kernels and schedules: what every backend consumes.

A `Kernel` computes one output buffer over an index space. Loop indices `g0..gN`
span the output shape (written row-major); if the kernel reduces, indices
`r0..rM` span `reduce_shape`, `body` is combined over them with `reduce_op`, and
`epilogue` (an expression over `acc` and the `g` indices) gives the stored value.
Without a reduction, `body` is the stored value. Inputs are buffers by slot
number, read only through `load` nodes. `key` is the kernel's full text: the cache
key for compiled programs on every backend.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .. import dtypes
from ..dtypes import DType
from . import expr as E
from .shapetracker import prod


@dataclass(frozen=True, eq=False)
class Kernel:
    shape: tuple[int, ...]
    body: E.Expr
    out_dtype: DType
    in_dtypes: tuple[DType, ...]
    reduce_shape: tuple[int, ...] = ()
    reduce_op: str | None = None
    epilogue: E.Expr | None = None
    name: str = "kernel"
    key: str = field(init=False, repr=False)

    def __post_init__(self):
        assert self.reduce_op is None or self.reduce_op in E.REDUCE_OPS
        red = f" reduce {self.reduce_op}{list(self.reduce_shape)}: {self.body.render()}" if self.reduce_op else ""
        val = (self.epilogue or E.acc(self.body.dtype)).render() if self.reduce_op else self.body.render()
        ins = ",".join(d.name for d in self.in_dtypes)
        object.__setattr__(self, "key", f"{self.out_dtype.name}{list(self.shape)}({ins}){red} -> {val}")

    @property
    def size(self) -> int:
        return prod(self.shape)

    @property
    def value(self) -> E.Expr:
        """The stored expression (the epilogue when reducing)."""
        if self.reduce_op is None:
            return self.body
        return self.epilogue if self.epilogue is not None else E.acc(self.body.dtype)

    def __repr__(self) -> str:
        return f"Kernel<{self.name}: {self.key}>"


def gidx(shape: tuple[int, ...]) -> list[E.Expr]:
    return [E.idx(f"g{i}", n) for i, n in enumerate(shape)]


def ridx(shape: tuple[int, ...]) -> list[E.Expr]:
    return [E.idx(f"r{i}", n) for i, n in enumerate(shape)]


REDUCE_IDENTITY = {
    "add": lambda dt: 0,
    "mul": lambda dt: 1,
    "max": lambda dt: _lowest(dt),
    "min": lambda dt: _highest(dt),
}


def _lowest(dt: DType) -> Any:
    if dt.kind == "f":
        return float("-inf")
    if dt.kind == "b":
        return False
    return dtypes.iinfo(dt).min


def _highest(dt: DType) -> Any:
    if dt.kind == "f":
        return float("inf")
    if dt.kind == "b":
        return True
    return dtypes.iinfo(dt).max


def identity(op: str, dt: DType) -> E.Expr:
    return E.const(REDUCE_IDENTITY[op](dt), dt)


# ---------------------------------------------------------------- schedules
@dataclass(frozen=True)
class Alloc:
    buf: Any
    nbytes: int


@dataclass(frozen=True)
class Run:
    kernel: Kernel
    out: Any
    inputs: tuple


@dataclass(frozen=True)
class Free:
    buf: Any


Step = Alloc | Run | Free
