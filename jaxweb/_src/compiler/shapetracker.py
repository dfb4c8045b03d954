"""ShapeTracker: movement ops as index arithmetic, so views never copy.

A `View` maps an index in its shape to a flat buffer offset
(`offset + sum(i * stride)`) and a validity mask (per-dimension [lo, hi) ranges;
outside them the element reads as zero, which is how `pad` works). A
`ShapeTracker` is a stack of views: when a reshape cannot be expressed on the
current strides (say, merging transposed dims), a new view is pushed on top and
the index is unflattened through the one below. Kernels read every input through
its ShapeTracker, so reshape/transpose/broadcast/slice/pad/flip chains cost nothing.

Index arithmetic is int32 where every value it can take fits, and int64 where a view
spans more than 2**31 - 1 elements (a sum over a broadcast of 2**31 + 1 ones reads
one buffer element, but its validity test counts past int32): the choice follows
each view's bounds, and the final buffer index narrows back to int32 when its own
bounds fit, so backends pay for wide arithmetic only where it is needed.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Sequence

from .. import dtypes
from . import expr as E

Mask = tuple[tuple[int, int], ...]


def prod(xs: Sequence[int]) -> int:
    n = 1
    for x in xs:
        n *= x
    return n


def strides_for(shape: Sequence[int]) -> tuple[int, ...]:
    """Row-major strides in elements; size-1 dims get stride 0 (they never move)."""
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc if d != 1 else 0)
        acc *= d
    return tuple(reversed(out))


@dataclass(frozen=True)
class View:
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int = 0
    mask: Mask | None = None

    @staticmethod
    def contiguous(shape: Sequence[int]) -> "View":
        shape = tuple(shape)
        return View(shape, strides_for(shape), 0, None)

    @property
    def is_contiguous(self) -> bool:
        return self.offset == 0 and self.mask is None and self.strides == strides_for(self.shape)

    def index(self, idxs: Sequence[E.Expr]) -> tuple[E.Expr, E.Expr]:
        """(flat buffer index, validity) at the given index expressions."""
        span = abs(self.offset) + sum((n - 1) * abs(st) for n, st in zip(self.shape, self.strides) if n > 0)
        it = index_dtype(span, *idxs)
        idxs = [E.cast(ix, it) for ix in idxs]
        index = E.const(self.offset, it)
        valid = E.const(True, dtypes.bool_)
        for k, (ix, st) in enumerate(zip(idxs, self.strides)):
            if st != 0 and self.shape[k] != 1:
                index = index + ix * st
            if self.mask is not None:
                lo, hi = self.mask[k]
                if lo > 0:
                    valid = valid & (ix >= lo)
                if hi < self.shape[k]:
                    valid = valid & (ix < hi)
        return index, valid

    # -- movement ops on one view
    def permute(self, order: Sequence[int]) -> "View":
        return View(tuple(self.shape[i] for i in order), tuple(self.strides[i] for i in order),
                    self.offset, None if self.mask is None else tuple(self.mask[i] for i in order))

    def expand(self, shape: Sequence[int]) -> "View":
        strides = tuple(0 if s != n else st for s, n, st in zip(self.shape, shape, self.strides))
        mask = None
        if self.mask is not None:
            mask = tuple(m if s == n else ((0, n) if m != (0, 0) else (0, 0))
                         for m, s, n in zip(self.mask, self.shape, shape))
        return View(tuple(shape), strides, self.offset, mask)

    def shrink(self, bounds: Sequence[tuple[int, int]]) -> "View":
        offset = self.offset + sum(lo * st for (lo, _), st in zip(bounds, self.strides))
        shape = tuple(hi - lo for lo, hi in bounds)
        mask = None
        if self.mask is not None:
            mask = tuple((min(max(ml - lo, 0), hi - lo), min(max(mh - lo, 0), hi - lo))
                         for (ml, mh), (lo, hi) in zip(self.mask, bounds))
        return View(shape, self.strides, offset, _clean_mask(mask, shape))

    def pad(self, widths: Sequence[tuple[int, int]]) -> "View":
        offset = self.offset - sum(b * st for (b, _), st in zip(widths, self.strides))
        shape = tuple(n + b + a for n, (b, a) in zip(self.shape, widths))
        base = self.mask or tuple((0, n) for n in self.shape)
        mask = tuple((lo + b, hi + b) for (lo, hi), (b, _) in zip(base, widths))
        return View(shape, self.strides, offset, _clean_mask(mask, shape))

    def flip(self, axes: Sequence[int]) -> "View":
        strides, offset, mask = list(self.strides), self.offset, None if self.mask is None else list(self.mask)
        for a in axes:
            n = self.shape[a]
            if n > 0:
                offset += (n - 1) * strides[a]
            strides[a] = -strides[a]
            if mask is not None:
                lo, hi = mask[a]
                mask[a] = (n - hi, n - lo)
        return View(self.shape, tuple(strides), offset, None if mask is None else tuple(mask))

    def stride(self, steps: Sequence[int]) -> "View":
        """Take every `step`-th element along each dim (steps > 0)."""
        shape = tuple((n + s - 1) // s for n, s in zip(self.shape, steps))
        strides = tuple(st * s for st, s in zip(self.strides, steps))
        mask = None
        if self.mask is not None:
            mask = tuple(((lo + s - 1) // s, (hi + s - 1) // s) for (lo, hi), s in zip(self.mask, steps))
        return View(shape, strides, self.offset, _clean_mask(mask, shape))

    def reshape(self, shape: tuple[int, ...]) -> "View | None":
        """The same view with a new shape, or None if the strides cannot express it."""
        if self.shape == shape:
            return self
        if 0 in shape or 0 in self.shape:
            return View.contiguous(shape) if self.offset == 0 and self.mask is None else None
        if self.mask is not None:
            return self._reshape_masked(shape)
        old = [(n, st) for n, st in zip(self.shape, self.strides) if n != 1]
        new_strides, i = [], 0
        j = 0
        new = list(shape)
        while j < len(new):
            if new[j] == 1:
                new_strides.append(0)
                j += 1
                continue
            # group old dims [i, i2) and new dims [j, j2) with equal products
            i2, j2, po, pn = i + 1, j + 1, old[i][0], new[j]
            while po != pn:
                if po < pn:
                    po *= old[i2][0]
                    i2 += 1
                else:
                    pn *= new[j2]
                    j2 += 1
            for k in range(i, i2 - 1):  # the old group must be contiguous in memory
                if old[k][1] != old[k + 1][1] * old[k + 1][0]:
                    return None
            st = old[i2 - 1][1]
            group = []
            for n in reversed(new[j:j2]):
                group.append(st if n != 1 else 0)
                st *= n
            new_strides.extend(reversed(group))
            i, j = i2, j2
        return View(shape, tuple(new_strides), self.offset, None)

    def _reshape_masked(self, shape: tuple[int, ...]) -> "View | None":
        old_core = [(n, st, m) for n, st, m in zip(self.shape, self.strides, self.mask) if n != 1]
        if [n for n, _, _ in old_core] != [n for n in shape if n != 1]:
            return None
        if any(m == (0, 0) for n, m in zip(self.shape, self.mask) if n == 1):
            return None
        it = iter(old_core)
        strides, mask = [], []
        for n in shape:
            if n == 1:
                strides.append(0)
                mask.append((0, 1))
            else:
                _, st, m = next(it)
                strides.append(st)
                mask.append(m)
        return View(shape, tuple(strides), self.offset, tuple(mask))


def _clean_mask(mask: Mask | None, shape: tuple[int, ...]) -> Mask | None:
    if mask is None or all(m == (0, n) for m, n in zip(mask, shape)):
        return None
    return mask


@dataclass(frozen=True)
class ShapeTracker:
    """A stack of views; views[-1] is what the consumer indexes."""

    views: tuple[View, ...]

    @staticmethod
    def from_shape(shape: Sequence[int]) -> "ShapeTracker":
        return ShapeTracker((View.contiguous(tuple(shape)),))

    @property
    def shape(self) -> tuple[int, ...]:
        return self.views[-1].shape

    @functools.cached_property
    def is_contiguous(self) -> bool:  # cached: a jitted call asks it of each argument's view
        return len(self.views) == 1 and self.views[0].is_contiguous

    def _top(self, v: View) -> "ShapeTracker":
        return ShapeTracker(self.views[:-1] + (v,))

    def permute(self, order: Sequence[int]) -> "ShapeTracker":
        return self._top(self.views[-1].permute(tuple(order)))

    def expand(self, shape: Sequence[int]) -> "ShapeTracker":
        return self._top(self.views[-1].expand(tuple(shape)))

    def shrink(self, bounds: Sequence[tuple[int, int]]) -> "ShapeTracker":
        return self._top(self.views[-1].shrink(tuple(bounds)))

    def pad(self, widths: Sequence[tuple[int, int]]) -> "ShapeTracker":
        """Pad with non-negative widths (negative ones are shrinks: see `pad_or_shrink`)."""
        return self._top(self.views[-1].pad(tuple(widths)))

    def flip(self, axes: Sequence[int]) -> "ShapeTracker":
        return self._top(self.views[-1].flip(tuple(axes)))

    def stride(self, steps: Sequence[int]) -> "ShapeTracker":
        return self._top(self.views[-1].stride(tuple(steps)))

    def reshape(self, shape: Sequence[int]) -> "ShapeTracker":
        shape = tuple(shape)
        if prod(shape) != prod(self.shape):
            raise ValueError(f"cannot reshape {self.shape} to {shape}")
        v = self.views[-1].reshape(shape)
        if v is not None:
            return self._top(v)
        return ShapeTracker(self.views + (View.contiguous(shape),))

    def index(self, idxs: Sequence[E.Expr]) -> tuple[E.Expr, E.Expr]:
        """(flat buffer index, validity) of the element at `idxs`, through all views."""
        index, valid = self.views[-1].index(idxs)
        for view in reversed(self.views[:-1]):
            sub = unflatten(index, view.shape)
            index, v2 = view.index(sub)
            valid = valid & v2
        return narrow(index), valid


def index_dtype(span: int, *idxs: E.Expr) -> dtypes.DType:
    """int64 when index values up to `span` (or any of `idxs`) do not fit int32."""
    wide = span > E.INT32_MAX or any(ix.dtype is dtypes.int64 for ix in idxs)
    return dtypes.int64 if wide else dtypes.int32


def narrow(index: E.Expr) -> E.Expr:
    """An int64 index whose bounds fit int32, as int32 (exact by its bounds)."""
    if index.dtype is dtypes.int64 and -E.INT32_MAX - 1 <= index.vmin and index.vmax <= E.INT32_MAX:
        return E.cast(index, dtypes.int32)
    return index


def unflatten(flat: E.Expr, shape: Sequence[int]) -> list[E.Expr]:
    """Row-major multi-index of a flat index expression."""
    out = []
    for n in reversed(shape):
        out.append(flat % n if n != 1 else E.const(0, flat.dtype))
        flat = flat // n if n != 1 else flat
    return list(reversed(out))
