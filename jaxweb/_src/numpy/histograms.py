"""Multidimensional histograms: `histogramdd` and `histogram2d`.

Each coordinate is binned like `histogram` (searchsorted against its edges, the last
edge closing the last bin), the per-axis bin indices are combined with
`ravel_multi_index`, and one `bincount` over the combined index counts them; values
outside the edges land in the padding bins that are cut off at the end, as JAX does.
"""
from __future__ import annotations

__all__ = ["histogramdd", "histogram2d"]

import builtins
from typing import Any, Sequence

from .. import core, dtypes
from .util import check_arraylike, ensure_array, promote_dtypes
from . import (creation as _creation, indexing as _indexing, shape as _shape, sorting as _sorting,
    ufuncs as _ufuncs)
from ..lax import elementwise as lax
from .statistics import bincount, histogram_bin_edges


def _inexact(*args: Any) -> list:
    args = promote_dtypes(*[ensure_array(a) for a in args])
    if core.get_aval(args[0]).dtype.kind in "biu":
        args = [lax.convert_element_type(a, dtypes.default_float()) for a in args]
    return args


def histogramdd(sample: Any, bins: Any = 10, range: Sequence[Any] | None = None,
                weights: Any = None, density: bool | None = None) -> tuple[Any, list]:
    """`jnp.histogramdd`: counts of N points of D coordinates (sample shape (N, D)) in a
    D-dimensional grid of bins; returns (hist, [edges per dimension])."""
    if weights is None:
        check_arraylike("histogramdd", sample)
        (sample,) = _inexact(sample)
    else:
        check_arraylike("histogramdd", sample, weights)
        if core.get_aval(ensure_array(weights)).shape != core.get_aval(ensure_array(sample)).shape[:1]:
            raise ValueError("should have one weight for each sample.")
        sample, weights = _inexact(sample, weights)
    n, d = core.get_aval(sample).shape
    if range is not None and (len(range) != d or any(
            r is not None and len(r) != 2 for r in range)):
        raise ValueError(f"For sample.shape={(n, d)}, range must be a sequence of {d} pairs or "
                         f"Nones; got range={range}")
    if isinstance(bins, int) or getattr(bins, "ndim", None) == 0:
        per_dim = [bins] * d
    else:
        per_dim = list(bins)
        if len(per_dim) != d:
            raise ValueError("should be a bin for each dimension.")
    idx, edges = [], []
    for i in builtins.range(d):
        e = histogram_bin_edges(sample[:, i], per_dim[i], None if range is None else range[i], weights)
        k = _sorting.searchsorted(e, sample[:, i], side="right")
        idx.append(_ufuncs.where(sample[:, i] == e[-1], k - 1, k))
        edges.append(e)
    nbins = tuple(core.get_aval(e).shape[0] + 1 for e in edges)
    flat = _indexing.ravel_multi_index(tuple(idx), nbins, mode="clip")
    total = 1
    for b in nbins:
        total *= b
    hist = _shape.reshape(bincount(flat, weights, length=total), nbins)
    hist = hist[(slice(1, -1),) * d]
    if density:
        hist = hist.astype(core.get_aval(sample).dtype)
        hist = hist / hist.sum()
        for norm in _indexing.ix_(*[_shape.diff(e) for e in edges]):
            hist = hist / norm
    return hist, edges


def histogram2d(x: Any, y: Any, bins: Any = 10, range: Sequence[Any] | None = None,
                weights: Any = None, density: bool | None = None) -> tuple[Any, Any, Any]:
    """`jnp.histogram2d`: (hist, x_edges, y_edges) of points (x[i], y[i])."""
    check_arraylike("histogram2d", x, y)
    try:
        nb = len(bins)
    except TypeError:
        nb = 1
    if nb not in (1, 2):  # one edge array shared by both axes
        bins = [_creation.asarray(bins), _creation.asarray(bins)]
    hist, edges = histogramdd(_shape.transpose(_creation.asarray([x, y])), bins, range, weights, density)
    return hist, edges[0], edges[1]


