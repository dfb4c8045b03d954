"""Reduction primitives: reduce_sum/prod/max/min/and/or, argmax/argmin, cumulative ops."""
from __future__ import annotations

__all__ = ["reduce_sum"]

from typing import Any, Sequence

from .. import core
from ..dispatch import def_lowering
from . import base

reduce_sum_p = core.Primitive("reduce_sum")


@core.def_abstract_eval(reduce_sum_p)
def _reduce_abstract(x, *, axes):
    base.check_dtype("reduce_sum", x, base.NUM)
    return x.update(shape=tuple(d for i, d in enumerate(x.shape) if i not in axes))


@def_lowering(reduce_sum_p)
def _reduce_sum_lower(x, *, axes):
    return x.reduce("add", axes)


def reduce_sum(x: Any, axes: Sequence[int]) -> Any:
    axes = base.canonical_axes(axes, core.get_aval(x).ndim)
    return reduce_sum_p.bind(x, axes=tuple(sorted(set(axes))))
