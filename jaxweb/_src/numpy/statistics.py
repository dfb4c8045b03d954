"""numpy statistics over the reductions: cov, corrcoef, bincount, histogram, digitize.

`bincount` is a counting reduction (`counts[k] = sum_i w_i [x_i == k]`, one kernel,
O(n * length)); histograms locate bins with `searchsorted` and count with it.
Like JAX, bincount clips negative values to bin 0 and drops values >= length, and
needs a concrete `length` (taken from the data when not given, outside jit).
"""
from __future__ import annotations

__all__ = ["cov", "corrcoef", "bincount", "histogram", "histogram_bin_edges", "digitize"]

from typing import Any

from .. import core, dtypes
from .util import check_arraylike, ensure_array
from ..lax import (base as lax_base, complex as lax_complex, elementwise as lax_ew,
    structural as lax_st)
from . import reductions as _reductions, shape as _shape, ufuncs as _ufuncs
from .linalg_ops import matmul


def _float(x: Any) -> Any:
    x = ensure_array(x)
    dt = core.get_aval(x).dtype
    return x if dt.kind in "fc" else lax_ew.convert_element_type(x, dtypes.default_float())


def bincount(x: Any, weights: Any = None, minlength: int = 0, *, length: int | None = None) -> Any:
    """`jnp.bincount`: occurrences (or summed weights) of each non-negative integer."""
    check_arraylike("bincount", x)
    x = ensure_array(x)
    if core.get_aval(x).dtype.kind not in "iub":
        raise TypeError(f"x argument to bincount must have an integer type; got {core.get_aval(x).dtype.name}")
    if core.get_aval(x).ndim != 1:
        raise ValueError("only 1-dimensional input supported.")
    if length is None:
        top = int(core.concrete_or_error(_reductions.max(x), "the length of bincount (pass length=)")) \
            if core.get_aval(x).size else -1
        length = max(top + 1, int(minlength))
    n = core.get_aval(x).size
    xi = _ufuncs.clip(lax_ew.convert_element_type(x, dtypes.int32), 0, None)
    hit = _ufuncs.equal(lax_st.broadcast_in_dim(xi, (length, n), (1,)),
                        lax_ew.broadcasted_iota(dtypes.int32, (length, n), 0))
    if weights is None:
        return _reductions.sum(hit, axis=1, dtype=dtypes.default_int())
    w = ensure_array(weights)
    wb = lax_st.broadcast_in_dim(w, (length, n), (1,))
    return _reductions.sum(_ufuncs.where(hit, wb, lax_base.constant((), 0, core.get_aval(w).dtype)), axis=1)


def digitize(x: Any, bins: Any, right: bool = False, *, method: str | None = None) -> Any:
    """`jnp.digitize`: the bin index of each x, for increasing or decreasing bins."""
    from .sorting import searchsorted
    x, bins = ensure_array(x), ensure_array(bins)
    if core.get_aval(bins).ndim != 1:
        raise ValueError(f"digitize: bins must be a 1-dimensional array; got bins={bins}")
    n = core.get_aval(bins).shape[0]
    if n == 0:
        return lax_base.constant(core.get_aval(x).shape, 0, dtypes.int32)
    side = "left" if right else "right"
    up = searchsorted(bins, x, side=side)
    down = _ufuncs.subtract(lax_base.constant((), n, dtypes.int32), searchsorted(lax_st.rev(bins, (0,)), x, side=side))
    increasing = _ufuncs.greater_equal(bins[-1], bins[0])
    return _ufuncs.where(increasing, up, down)


def histogram_bin_edges(a: Any, bins: Any = 10, range: Any = None, weights: Any = None) -> Any:
    """`jnp.histogram_bin_edges`: `bins + 1` evenly spaced edges over `range` (or the data)."""
    a = _float(a)
    dt = core.get_aval(a).dtype
    if not isinstance(bins, int):
        return _float(bins)
    if range is None:
        lo, hi = _reductions.min(a), _reductions.max(a)
    else:
        lo, hi = (lax_base.constant((), float(v), dt) for v in range)
    same = _ufuncs.equal(lo, hi)
    lo = _ufuncs.where(same, _ufuncs.subtract(lo, lax_base.constant((), 0.5, dt)), lo)
    hi = _ufuncs.where(same, _ufuncs.add(hi, lax_base.constant((), 0.5, dt)), hi)
    steps = lax_ew.broadcasted_iota(dt, (bins + 1,), 0)
    width = _ufuncs.true_divide(_ufuncs.subtract(hi, lo), lax_base.constant((), bins, dt))
    edges = _ufuncs.add(lo, _ufuncs.multiply(steps, width))
    last = lax_ew.broadcasted_iota(dtypes.int32, (bins + 1,), 0)
    return _ufuncs.where(_ufuncs.equal(last, lax_base.constant((), bins, dtypes.int32)), hi, edges)


def histogram(a: Any, bins: Any = 10, range: Any = None, weights: Any = None,
              density: bool | None = None) -> tuple[Any, Any]:
    """`jnp.histogram`: (counts, bin_edges); the last bin includes its right edge."""
    from .sorting import searchsorted
    check_arraylike("histogram", a)
    a = lax_st.reshape(_float(a), (core.get_aval(ensure_array(a)).size,))
    edges = histogram_bin_edges(a, bins, range, weights)
    nb = core.get_aval(edges).shape[0]
    idx = searchsorted(edges, a, side="right")
    idx = _ufuncs.where(_ufuncs.equal(a, edges[-1]), lax_base.constant((), nb - 1, dtypes.int32), idx)
    w = None if weights is None else lax_st.reshape(_float(weights), (core.get_aval(a).size,))
    counts = bincount(idx, w, length=nb + 1)
    counts = lax_ew.convert_element_type(counts[1:-1], core.get_aval(edges).dtype)
    if density:
        widths = _ufuncs.subtract(edges[1:], edges[:-1])
        counts = _ufuncs.true_divide(_ufuncs.true_divide(counts, widths), _reductions.sum(counts))
    return counts, edges


def cov(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: int | None = None,
        fweights: Any = None, aweights: Any = None) -> Any:
    """`jnp.cov`: the covariance matrix of the variables in the rows (columns if not rowvar)."""
    x = _float(m)
    if core.get_aval(x).ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    x = lax_st.reshape(x, (1, core.get_aval(x).size)) if core.get_aval(x).ndim < 2 else x
    if not rowvar and core.get_aval(x).shape[0] != 1:
        x = lax_st.transpose(x, (1, 0))
    if y is not None:
        yy = _float(y)
        yy = lax_st.reshape(yy, (1, core.get_aval(yy).size)) if core.get_aval(yy).ndim < 2 else yy
        if not rowvar and core.get_aval(yy).shape[0] != 1:
            yy = lax_st.transpose(yy, (1, 0))
        x = _shape.concatenate([x, lax_ew.convert_element_type(yy, core.get_aval(x).dtype)], axis=0)
    ddof = ddof if ddof is not None else (0 if bias else 1)
    n = core.get_aval(x).shape[1]
    w = None
    if fweights is not None:
        w = _float(fweights)
    if aweights is not None:
        w = _float(aweights) if w is None else _ufuncs.multiply(w, _float(aweights))
    avg = _reductions.average(x, axis=1,
                              weights=None if w is None else lax_st.broadcast_in_dim(w, core.get_aval(x).shape, (1,)))
    if w is None:
        fact: Any = float(n - ddof)
    else:
        v1 = _reductions.sum(w)
        if ddof == 0:
            fact = v1
        elif aweights is None:
            fact = _ufuncs.subtract(v1, ddof)
        else:
            weighted = _reductions.sum(_ufuncs.multiply(w, _float(aweights)))
            fact = _ufuncs.subtract(v1, _ufuncs.true_divide(_ufuncs.multiply(ddof, weighted), v1))
    xc = _ufuncs.subtract(x, lax_st.broadcast_in_dim(avg, core.get_aval(x).shape, (0,)))
    xw = xc if w is None else _ufuncs.multiply(xc, lax_st.broadcast_in_dim(w, core.get_aval(x).shape, (1,)))
    c = _ufuncs.true_divide(matmul(xc, _ufuncs.conj(lax_st.transpose(xw, (1, 0)))), fact)  # conj: complex data
    return lax_st.reshape(c, ()) if core.get_aval(c).shape == (1, 1) else c


def corrcoef(x: Any, y: Any = None, rowvar: bool = True) -> Any:
    """`jnp.corrcoef`: the covariance normalized by the standard deviations, clipped to [-1, 1]."""
    c = cov(x, y, rowvar)
    if core.get_aval(c).ndim == 0:
        return _ufuncs.true_divide(c, c)
    k = core.get_aval(c).shape[0]
    std = _ufuncs.sqrt(_ufuncs.real(_shape.diagonal(c)))
    c = _ufuncs.true_divide(c, lax_st.broadcast_in_dim(std, (k, k), (0,)))
    c = _ufuncs.true_divide(c, lax_st.broadcast_in_dim(std, (k, k), (1,)))
    if core.get_aval(c).dtype.kind == "c":  # each part clipped, as numpy
        return lax_complex.complex(_ufuncs.clip(_ufuncs.real(c), -1, 1), _ufuncs.clip(_ufuncs.imag(c), -1, 1))
    return _ufuncs.clip(c, -1, 1)
