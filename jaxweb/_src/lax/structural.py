"""Structural primitives: broadcasting, reshapes, transposes, slices, padding.

Their lowerings are movement ops on Syms, which fold into ShapeTrackers: run
eagerly on an Array they return a view of the same buffer and launch no kernel.
"""
from __future__ import annotations

__all__ = ["broadcast_in_dim", "reshape", "transpose"]

from typing import Any, Sequence

from .. import core
from ..compiler.shapetracker import prod
from ..dispatch import def_lowering
from ..interpreters import rules as R

# ---------------------------------------------------------------- broadcast_in_dim
broadcast_in_dim_p = core.Primitive("broadcast_in_dim")


@core.def_abstract_eval(broadcast_in_dim_p)
def _broadcast_in_dim_abstract(x, *, shape, broadcast_dimensions):
    if len(broadcast_dimensions) != x.ndim:
        raise TypeError(f"broadcast_in_dim broadcast_dimensions must have length equal to operand "
                        f"ndim; got broadcast_dimensions {broadcast_dimensions} for operand ndim {x.ndim}.")
    for i, d in enumerate(broadcast_dimensions):
        if not 0 <= d < len(shape) or x.shape[i] not in (1, shape[d]):
            raise TypeError(f"broadcast_in_dim operand dimension sizes must either be 1, or be equal "
                            f"to their corresponding dimensions in the target broadcast shape; got "
                            f"operand of shape {x.shape}, target broadcast shape {shape}, "
                            f"broadcast_dimensions {broadcast_dimensions} ")
    if list(broadcast_dimensions) != sorted(set(broadcast_dimensions)):
        raise TypeError(f"broadcast_in_dim broadcast_dimensions must be strictly increasing; "
                        f"got broadcast_dimensions {broadcast_dimensions}")
    return x.update(shape=shape)


@def_lowering(broadcast_in_dim_p)
def _broadcast_in_dim_lower(x, *, shape, broadcast_dimensions):
    inter = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        inter[d] = x.shape[i]
    return x.reshape(tuple(inter)).expand(tuple(shape))


def broadcast_in_dim(x: Any, shape: Sequence[int], broadcast_dimensions: Sequence[int]) -> Any:
    shape, bd = tuple(int(d) for d in shape), tuple(int(d) for d in broadcast_dimensions)
    aval = core.get_aval(x)
    if aval.shape == shape and bd == tuple(range(len(shape))) and not core.is_python_scalar(x):
        return x
    if core.is_python_scalar(x):
        from .base import full
        return full(shape, x) if not bd else broadcast_in_dim_p.bind(x, shape=shape, broadcast_dimensions=bd)
    return broadcast_in_dim_p.bind(x, shape=shape, broadcast_dimensions=bd)


# ---------------------------------------------------------------- reshape
reshape_p = core.Primitive("reshape")


@core.def_abstract_eval(reshape_p)
def _reshape_abstract(x, *, new_sizes, dimensions=None):
    if prod(new_sizes) != x.size or any(d < 0 for d in new_sizes):
        raise TypeError(f"reshape total size must be unchanged, got new_sizes {tuple(new_sizes)} "
                        f"(of total size {prod(new_sizes)}) for shape {x.shape} (of total size {x.size}).")
    return x.update(shape=tuple(new_sizes))


@def_lowering(reshape_p)
def _reshape_lower(x, *, new_sizes, dimensions=None):
    if dimensions is not None:
        x = x.permute(dimensions)
    return x.reshape(tuple(new_sizes))


def reshape(x: Any, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None) -> Any:
    new_sizes = tuple(int(d) for d in new_sizes)
    dims = None if dimensions is None or tuple(dimensions) == tuple(range(len(dimensions))) else tuple(dimensions)
    if core.get_aval(x).shape == new_sizes and dims is None:
        return x
    return reshape_p.bind(x, new_sizes=new_sizes, dimensions=dims)


# ---------------------------------------------------------------- transpose
transpose_p = core.Primitive("transpose")


@core.def_abstract_eval(transpose_p)
def _transpose_abstract(x, *, permutation):
    if sorted(permutation) != list(range(x.ndim)):
        raise TypeError(f"transpose permutation isn't a permutation of operand dimensions, got "
                        f"permutation {tuple(permutation)} for operand shape {x.shape}.")
    return x.update(shape=tuple(x.shape[p] for p in permutation))


@def_lowering(transpose_p)
def _transpose_lower(x, *, permutation):
    return x.permute(permutation)


def transpose(x: Any, permutation: Sequence[int]) -> Any:
    permutation = tuple(int(p) for p in permutation)
    if permutation == tuple(range(len(permutation))) and core.get_aval(x).ndim == len(permutation):
        return x
    return transpose_p.bind(x, permutation=permutation)


_ = R  # rules for this family are registered by the structural-ops work
