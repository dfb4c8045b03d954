"""numpy sorting and order statistics over `lax.sort`: sort, argsort, lexsort, partition,
searchsorted, median, quantile, percentile and their nan-ignoring versions.

Descending order reverses the axis, sorts ascending (stable), and reverses back,
which keeps equal elements in their original order, as JAX does. Quantiles sort
the reduced elements into one trailing axis and pick (and interpolate) order
statistics with a gather along it.
"""
from __future__ import annotations

__all__ = ["sort", "sort_complex", "argsort", "lexsort", "partition", "argpartition", "searchsorted", "median",
           "nanmedian", "quantile", "nanquantile", "percentile", "nanpercentile"]

from typing import Any, Sequence

from .. import core, dtypes
from ..lax import base as lax_base
from ..lax import sorting as lax_sort
from .reductions import canonical_axis, check_no_out
from .util import check_arraylike, ensure_array, promote_dtypes


def _shape(x: Any) -> tuple[int, ...]:
    return core.get_aval(x).shape


def _prepare(name: str, a: Any, axis: int | None) -> tuple[Any, int]:
    check_arraylike(name, a)
    x = ensure_array(a)
    if axis is None:
        return lax_st.reshape(x, (core.get_aval(x).size,)), 0
    if core.get_aval(x).ndim == 0:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension 0")
    (ax,) = lax_base.canonical_axes([axis], core.get_aval(x).ndim)
    return x, ax


def sort(a: Any, axis: int | None = -1, *, kind: Any = None, order: Any = None, stable: bool = True,
         descending: bool = False) -> Any:
    """`jnp.sort`: ascending with NaNs last; descending is the ascending sort reversed, as in
    JAX (NaNs first, and equal keys such as 0.0 and -0.0 in reverse order of appearance)."""
    if order is not None:
        raise TypeError("'order' argument to sort is not supported.")
    x, ax = _prepare("sort", a, axis)
    out = lax_sort.sort(x, dimension=ax)
    return lax_st.rev(out, (ax,)) if descending else out


def sort_complex(a: Any) -> Any:
    """`jnp.sort_complex`: sorted along the last axis (numpy's order), as a complex array."""
    x = sort(a)
    return lax_ew.convert_element_type(x, dtypes.complex_of(dtypes.dtype(x)) if dtypes.dtype(x).kind in "fc"
                                       else dtypes.default_complex())


def argsort(a: Any, axis: int | None = -1, *, kind: Any = None, order: Any = None, stable: bool = True,
            descending: bool = False) -> Any:
    """`jnp.argsort`: the stable sorting permutation, as the default int."""
    if order is not None:
        raise TypeError("'order' argument to argsort is not supported.")
    x, ax = _prepare("argsort", a, axis)
    shape = _shape(x)
    iota = lax_ew.broadcasted_iota(dtypes.default_int(), shape, ax)
    if not descending:
        return lax_sort.sort((x, iota), dimension=ax, num_keys=1)[1]
    perm = lax_sort.sort((lax_st.rev(x, (ax,)), iota), dimension=ax, num_keys=1)[1]
    return _ufuncs.subtract(lax_base.constant((), shape[ax] - 1, dtypes.default_int()), lax_st.rev(perm, (ax,)))


def lexsort(keys: Sequence[Any], axis: int = -1) -> Any:
    """`jnp.lexsort`: sort by the last key first, then the one before it, and so on."""
    keys = [ensure_array(k) for k in keys]
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if len({_shape(k) for k in keys}) != 1:
        raise ValueError("all keys need to be the same shape")
    shape = _shape(keys[0])
    if not shape:
        raise TypeError("lexsort keys must have at least one dimension")
    (ax,) = lax_base.canonical_axes([axis], len(shape))
    iota = lax_ew.broadcasted_iota(dtypes.default_int(), shape, ax)
    return lax_sort.sort(tuple(keys[::-1]) + (iota,), dimension=ax, num_keys=len(keys))[-1]


def _partition_sorted(a: Any, kth: int, axis: int, operand_is_index: bool) -> Any:
    """JAX's partition order: the kth+1 smallest ascending, then the rest — descending
    for `partition`, in index order for `argpartition` (JAX's top_k proxy) — as one sort
    keyed by (group, rank within the group)."""
    x, ax = _prepare("partition", a, axis)
    n = _shape(x)[ax]
    kth = int(core.concrete_or_error(kth, "kth in partition"))
    if not -n <= kth < n:
        raise ValueError(f"kth(={kth}) out of bounds {n}")
    kth %= n
    rank_up = argsort(argsort(x, axis=ax), axis=ax)
    iota = lax_ew.broadcasted_iota(dtypes.default_int(), _shape(x), ax)
    rank_rest = iota if operand_is_index else argsort(argsort(x, axis=ax, descending=True), axis=ax)
    top = _ufuncs.greater(rank_up, kth)
    key = _ufuncs.where(top, rank_rest, rank_up)
    payload = iota if operand_is_index else x
    return lax_sort.sort((top, key, payload), dimension=ax, num_keys=2)[-1]


def partition(a: Any, kth: int, axis: int = -1) -> Any:
    """`jnp.partition`: element kth in its sorted place, smaller ones before, larger after."""
    return _partition_sorted(a, kth, axis, False)


def argpartition(a: Any, kth: int, axis: int = -1) -> Any:
    """`jnp.argpartition`: the indices that `partition` would take."""
    return _partition_sorted(a, kth, axis, True)


def searchsorted(a: Any, v: Any, side: str = "left", sorter: Any = None, *, method: str = "scan") -> Any:
    """`jnp.searchsorted`: insertion indices of v into sorted 1-d a (NaNs sort last)."""
    if side not in ("left", "right"):
        raise ValueError(f"{side!r} is an invalid value for keyword 'side'. Expected one of ['left', 'right']")
    a, v = ensure_array(a), ensure_array(v)
    if core.get_aval(a).ndim != 1:
        raise ValueError("a should be 1-dimensional")
    if sorter is not None:
        a = lax_sort.gather_along(a, ensure_array(sorter), 0)
    a, v = promote_dtypes(a, v)
    vb = lax_st.reshape(v, _shape(v) + (1,))
    if side == "left":
        before = _ufuncs.less(a, vb)
        if core.get_aval(a).dtype.kind == "f":
            before = _ufuncs.logical_or(before, _ufuncs.logical_and(_ufuncs.isnan(vb),
                                                                    _ufuncs.logical_not(_ufuncs.isnan(a))))
    else:
        before = _ufuncs.less_equal(a, vb)
        if core.get_aval(a).dtype.kind == "f":
            before = _ufuncs.logical_or(before, _ufuncs.isnan(vb))
    return _reductions.sum(before, axis=-1, dtype=dtypes.default_int())


# ---------------------------------------------------------------- order statistics
_METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf")


def _weights_like(w: Any, x: Any, axis: Any) -> Any:
    """Weights broadcast to x's shape (given either with x's shape or the reduced axes')."""
    wa, xa = core.get_aval(w), core.get_aval(x)
    if wa.shape == xa.shape:
        return w
    if axis is None:
        raise ValueError("Weights shape must match 'a' shape when axis is None.")
    axes = canonical_axis(axis, xa.ndim)
    want = tuple(xa.shape[i] for i in axes)
    if wa.shape != want:
        raise ValueError(f"Weights shape {wa.shape} must match reduction axes {want}")
    return lax_st.broadcast_in_dim(w, xa.shape, tuple(axes))


def _quantile(name: str, a: Any, q: Any, axis: Any, method: str, keepdims: bool, ignore_nan: bool,
              weights: Any = None) -> Any:
    if method not in _METHODS:
        raise ValueError("method can only be 'linear', 'lower', 'higher', 'midpoint', 'nearest' or "
                         "'inverted_cdf'")
    check_arraylike(name, a, q)
    x = ensure_array(a)
    if core.get_aval(x).dtype.kind == "c":
        raise ValueError("quantile does not support complex input, as the operation is poorly defined.")
    if weights is not None:
        check_arraylike(name, weights)
        if method != "inverted_cdf":
            raise NotImplementedError(f"{method} doesn't support weights. Only method "
                                      "'inverted_cdf' supports weights.")
    dt = dtypes.result_type(core.get_aval(x).dtype, core.get_aval(ensure_array(q)).dtype, dtypes.default_float())
    dt = dt if dt.kind == "f" else dtypes.default_float()
    x, qa = lax_ew.convert_element_type(x, dt), lax_ew.convert_element_type(ensure_array(q), dt)
    if core.get_aval(qa).ndim > 1:
        raise ValueError(f"q must be have rank <= 1, got shape {core.get_aval(qa).shape}")
    w = None
    if method == "inverted_cdf":
        w = _creation.ones_like(x) if weights is None else \
            _weights_like(lax_ew.convert_element_type(ensure_array(weights), dt), x, axis)
    shape = _shape(x)
    axes = canonical_axis(axis, len(shape))
    keep = tuple(i for i in range(len(shape)) if i not in axes)
    rest = tuple(shape[i] for i in keep)
    n = 1
    for i in axes:
        n *= shape[i]
    qs = _shape(qa)
    out_rest = tuple(1 if i in axes else d for i, d in enumerate(shape)) if keepdims else rest
    if n == 0:
        return lax_base.constant(qs + out_rest, float("nan"), dt)
    flat = lax_st.reshape(lax_st.transpose(x, keep + axes), rest + (n,))
    nq = core.get_aval(qa).size
    qf = lax_st.broadcast_in_dim(lax_st.reshape(qa, (nq,)), rest + (nq,), (len(rest),))
    if w is not None:
        wflat = lax_st.reshape(lax_st.transpose(w, keep + axes), rest + (n,))
        res = _inverted_cdf(flat, wflat, qf, n, len(rest), ignore_nan)
        res = lax_st.transpose(res, (len(rest),) + tuple(range(len(rest))))
        return lax_st.reshape(res, qs + out_rest)
    s = lax_sort.sort(flat, dimension=len(rest))
    if ignore_nan:
        count = _reductions.sum(_ufuncs.logical_not(_ufuncs.isnan(flat)), axis=-1, dtype=dt)
        valid = lax_st.broadcast_in_dim(count, rest + (nq,), tuple(range(len(rest))))
    else:
        valid = lax_base.constant(rest + (nq,), n, dt)
    pos = _ufuncs.multiply(qf, _ufuncs.subtract(valid, lax_base.constant((), 1, dt)))

    def at(p):
        idx = _ufuncs.clip(lax_ew.convert_element_type(p, dtypes.int32), 0, n - 1)
        return lax_sort.gather_along(s, idx, len(rest))
    lo, hi = _ufuncs.floor(pos), _ufuncs.ceil(pos)
    v_lo, v_hi = at(lo), at(hi)
    if method == "linear":
        res = _ufuncs.add(v_lo, _ufuncs.multiply(_ufuncs.subtract(v_hi, v_lo), _ufuncs.subtract(pos, lo)))
    elif method == "lower":
        res = v_lo
    elif method == "higher":
        res = v_hi
    elif method == "midpoint":
        res = _ufuncs.multiply(_ufuncs.add(v_lo, v_hi), lax_base.constant((), 0.5, dt))
    else:  # JAX rounds exact halves down (numpy rounds them to the even index)
        res = _ufuncs.where(_ufuncs.greater(_ufuncs.subtract(pos, lo), lax_base.constant((), 0.5, dt)), v_hi, v_lo)
    nan = lax_base.constant((), float("nan"), dt)
    if ignore_nan:
        res = _ufuncs.where(_ufuncs.equal(valid, lax_base.constant((), 0, dt)), nan, res)
    else:
        any_nan = _reductions.any(_ufuncs.isnan(flat), axis=-1)
        res = _ufuncs.where(lax_st.broadcast_in_dim(any_nan, rest + (nq,), tuple(range(len(rest)))), nan, res)
    res = lax_st.transpose(res, (len(rest),) + tuple(range(len(rest))))
    return lax_st.reshape(res, qs + out_rest)


def _inverted_cdf(flat: Any, w: Any, qf: Any, n: int, ax: int, ignore_nan: bool) -> Any:
    """numpy's 'inverted_cdf' quantile with weights: the first sorted element whose
    cumulative weight reaches q * total. Negative or NaN weights give NaN, as do NaN data
    (unless ignored) and all-NaN slices."""
    dt = core.get_aval(flat).dtype
    xs, ws = lax_sort.sort((flat, w), dimension=ax, num_keys=1)
    bad_w = _ufuncs.logical_or(ws < 0, _ufuncs.isnan(ws))
    nan_x = _ufuncs.isnan(xs)
    clean = _ufuncs.where(_ufuncs.logical_or(bad_w, nan_x), lax_base.constant((), 0, dt), ws)
    cum = _reductions.cumsum(clean, axis=ax)
    total = cum[..., -1:]
    target = qf * total  # rest + (nq,)
    below = _ufuncs.less(cum[..., None, :], target[..., :, None])  # rest + (nq, n)
    idx = _reductions.sum(below, axis=-1, dtype=dtypes.int32)
    valid = _reductions.sum(_ufuncs.logical_not(nan_x), axis=-1, dtype=dtypes.int32) if ignore_nan else \
        lax_base.constant(core.get_aval(flat).shape[:-1], n, dtypes.int32)
    idx = _ufuncs.clip(idx, 0, _ufuncs.maximum(valid - 1, 0)[..., None])
    res = lax_sort.gather_along(xs, idx, ax)
    force = _reductions.any(bad_w, axis=-1)
    force = _ufuncs.logical_or(force, _ufuncs.equal(valid, 0) if ignore_nan else _reductions.any(nan_x, axis=-1))
    return _ufuncs.where(force[..., None], lax_base.constant((), float("nan"), dt), res)


def quantile(a: Any, q: Any, axis: Any = None, out: None = None, overwrite_input: bool = False,
             method: str = "linear", keepdims: bool = False, *, weights: Any = None,
             interpolation: Any = None) -> Any:
    """`jnp.quantile` (q in [0, 1]); NaN where the data has a NaN. `weights` (method
    'inverted_cdf' only) weigh each element."""
    check_no_out("quantile", out)
    return _quantile("quantile", a, q, axis, interpolation or method, keepdims, False, weights)


def nanquantile(a: Any, q: Any, axis: Any = None, out: None = None, overwrite_input: bool = False,
                method: str = "linear", keepdims: bool = False, *, weights: Any = None,
                interpolation: Any = None) -> Any:
    """`jnp.nanquantile`: quantiles of the non-NaN elements."""
    check_no_out("nanquantile", out)
    return _quantile("nanquantile", a, q, axis, interpolation or method, keepdims, True, weights)


def _percent(q: Any) -> Any:
    q = ensure_array(q)
    dt = core.get_aval(q).dtype if core.get_aval(q).dtype.kind == "f" else dtypes.default_float()
    return _ufuncs.true_divide(lax_ew.convert_element_type(q, dt), lax_base.constant((), 100, dt))


def percentile(a: Any, q: Any, axis: Any = None, out: None = None, overwrite_input: bool = False,
               method: str = "linear", keepdims: bool = False, *, weights: Any = None,
               interpolation: Any = None) -> Any:
    """`jnp.percentile` (q in [0, 100])."""
    check_no_out("percentile", out)
    return quantile(a, _percent(q), axis, method=interpolation or method, keepdims=keepdims,
                    weights=weights)


def nanpercentile(a: Any, q: Any, axis: Any = None, out: None = None, overwrite_input: bool = False,
                  method: str = "linear", keepdims: bool = False, *, weights: Any = None,
                  interpolation: Any = None) -> Any:
    """`jnp.nanpercentile`."""
    check_no_out("nanpercentile", out)
    return nanquantile(a, _percent(q), axis, method=interpolation or method, keepdims=keepdims,
                       weights=weights)


def median(a: Any, axis: Any = None, out: None = None, overwrite_input: bool = False,
           keepdims: bool = False) -> Any:
    """`jnp.median`: the mean of the middle order statistics; NaN if any element is NaN."""
    check_no_out("median", out)
    return quantile(a, 0.5, axis, keepdims=keepdims)


def nanmedian(a: Any, axis: Any = None, out: None = None, overwrite_input: bool = False,
              keepdims: bool = False) -> Any:
    """`jnp.nanmedian`: the median of the non-NaN elements."""
    check_no_out("nanmedian", out)
    return nanquantile(a, 0.5, axis, keepdims=keepdims)


from .setops import *  # noqa: E402,F401,F403  (unique, isin & co., listed in jaxweb.numpy)
from .setops import __all__ as _setops_all  # noqa: E402
from ..lax import elementwise as lax_ew
from ..lax import structural as lax_st
from . import creation as _creation
from . import reductions as _reductions
from . import ufuncs as _ufuncs

__all__ = __all__ + _setops_all
