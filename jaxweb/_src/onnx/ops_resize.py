"""Resize and Upsample, separably: for each resized axis the host works out which input
positions each output position reads and with which weights (nearest, linear or cubic,
every coordinate_transformation_mode, antialiasing, exclude_outside); the device then does
a gather (nearest) or a small matrix product (linear, cubic) along that axis."""
from __future__ import annotations

import math

import jaxweb.numpy as jnp

from .registry import op, unsupported
from .util import arr, axes as norm_axes


def _source_coord(mode: str, x: int, scale: float, n_in: int, n_out: int, roi: tuple) -> float:
    if mode == "half_pixel":
        return (x + 0.5) / scale - 0.5
    if mode == "half_pixel_symmetric":
        adjust = n_out / (scale * n_in)
        center = n_in / 2
        return center * (1 - adjust) + (x + 0.5) / scale - 0.5
    if mode == "pytorch_half_pixel":
        return (x + 0.5) / scale - 0.5 if n_out > 1 else 0.0
    if mode == "align_corners":  # the unrounded output length when scales were given
        n_f = n_in * scale
        return 0.0 if n_out == 1 or n_f == 1 else x * (n_in - 1) / (n_f - 1)
    if mode == "asymmetric":
        return x / scale
    if mode == "tf_crop_and_resize":
        start, end = roi
        if n_out > 1:
            return start * (n_in - 1) + x * (end - start) * (n_in - 1) / (n_out - 1)
        return 0.5 * (start + end) * (n_in - 1)
    raise ValueError(f"Resize: unknown coordinate_transformation_mode {mode!r}")


_NEAREST = {
    "round_prefer_floor": lambda v: math.floor(v) if v - math.floor(v) == 0.5 else round(v),
    "round_prefer_ceil": lambda v: math.ceil(v) if v - math.floor(v) == 0.5 else round(v),
    "floor": math.floor, "ceil": math.ceil,
}


def _cubic(a: float):
    def k(d: float) -> float:
        d = abs(d)
        if d <= 1:
            return ((a + 2) * d - (a + 3)) * d * d + 1
        if d < 2:
            return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
        return 0.0
    return k


def _taps(node, v: float, scale: float, n_in: int) -> list[tuple[int, float]]:
    """(input index, weight) pairs that make one output position."""
    mode = node.attr("mode", "nearest")
    if mode == "nearest":
        rule = _NEAREST.get(node.attr("nearest_mode", "round_prefer_floor"))
        return [(min(max(int(rule(v)), 0), n_in - 1), 1.0)]
    radius, kern = (1, lambda d: max(1 - abs(d), 0.0)) if mode == "linear" else (
        2, _cubic(node.attr("cubic_coeff_a", -0.75)))
    s = min(scale, 1.0) if node.attr("antialias", 0) else 1.0
    base, t = math.floor(v), v - math.floor(v)
    start = math.floor(-radius / s) + 1
    taps = [(base + o, kern((o - t) * s)) for o in range(start, 2 - start)]
    if node.attr("exclude_outside", 0):
        taps = [(i, w if 0 <= i < n_in else 0.0) for i, w in taps]
    total = sum(w for _, w in taps)
    if node.attr("antialias", 0) or node.attr("exclude_outside", 0):
        taps = [(i, w / total) for i, w in taps] if total else taps
    return [(min(max(i, 0), n_in - 1), w) for i, w in taps]


def _resize_axis(node, x, a: int, n_out: int, scale: float, roi: tuple):
    n_in = x.shape[a]
    mode = node.attr("coordinate_transformation_mode", "half_pixel")
    coords = [_source_coord(mode, i, scale, n_in, n_out, roi) for i in range(n_out)]
    outside = [mode == "tf_crop_and_resize" and not (0 <= c <= n_in - 1) for c in coords]
    rows = [_taps(node, c, scale, n_in) for c in coords]
    if node.attr("mode", "nearest") == "nearest":
        y = jnp.take(x, jnp.asarray([r[0][0] for r in rows], jnp.int32), axis=a)
    else:
        w = [[0.0] * n_in for _ in range(n_out)]
        for o, taps in enumerate(rows):
            for i, wt in taps:
                w[o][i] += wt
        y = jnp.moveaxis(jnp.tensordot(jnp.moveaxis(x, a, -1), jnp.asarray(w, x.dtype).T, axes=1), -1, a)
    if any(outside):
        shape = [1] * x.ndim
        shape[a] = n_out
        mask = jnp.asarray(outside).reshape(shape)
        y = jnp.where(mask, jnp.asarray(node.attr("extrapolation_value", 0.0), y.dtype), y)
    return y


def _policy_sizes(node, in_shape, ax, sizes):
    policy = node.attr("keep_aspect_ratio_policy", "stretch")
    if policy == "stretch":
        return sizes, [o / i for o, i in zip(sizes, (in_shape[a] for a in ax))]
    ratios = [o / in_shape[a] for o, a in zip(sizes, ax)]
    s = min(ratios) if policy == "not_larger" else max(ratios)
    return [int(math.floor(s * in_shape[a] + 0.5)) for a in ax], [s] * len(ax)


def resize(node, x, roi=None, scales=None, sizes=None):
    x = arr(x)
    if node.attr("mode", "nearest") not in ("nearest", "linear", "cubic"):
        raise unsupported(node, f"mode {node.attr('mode')!r}")
    ax = norm_axes(node.attr("axes"), x.ndim) if node.attr("axes") is not None else list(range(x.ndim))
    if sizes is not None and sizes.size:
        out_sizes, scale_list = _policy_sizes(node, x.shape, ax, sizes.ints())
    else:
        scale_list = [float(v) for v in scales.values]
        out_sizes = [int(math.floor(x.shape[a] * s)) for a, s in zip(ax, scale_list)]
    k = len(ax)
    roi_vals = [float(v) for v in roi.values] if roi is not None and roi.size else [0.0] * k + [1.0] * k
    for j, a in enumerate(ax):
        if out_sizes[j] != x.shape[a] or scale_list[j] != 1.0 or node.attr(
                "coordinate_transformation_mode") == "tf_crop_and_resize":
            x = _resize_axis(node, x, a, out_sizes[j], scale_list[j], (roi_vals[j], roi_vals[j + k]))
    return x


class _Legacy:
    """An Upsample / Resize-10 node seen as a Resize with their fixed coordinate rules."""

    def __init__(self, node):
        self.node = node
        self.attrs = {"mode": node.attr("mode", "nearest"), "coordinate_transformation_mode": "asymmetric",
                      "nearest_mode": "floor"}
        self.op_type, self.opset, self.name = node.op_type, node.opset, node.name

    def attr(self, name, default=None):
        return self.attrs.get(name, default)


class _Scales:
    def __init__(self, values):
        self.values, self.size = list(values), len(values)


op("Resize", since=10, static=(1,))(lambda node, x, scales: resize(_Legacy(node), x, None, scales))
op("Resize", since=11, static=(1, 2, 3))(resize)
op("Upsample", since=7)(lambda node, x: resize(_Legacy(node), x, None, _Scales(node.attr("scales"))))
op("Upsample", since=9, static=(1,))(lambda node, x, scales: resize(_Legacy(node), x, None, scales))
