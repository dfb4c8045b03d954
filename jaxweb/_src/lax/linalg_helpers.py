"""The array helpers `lax.linalg`'s rules and algorithms are written with, on lax primitives.

JAX's `lax/linalg.py` never imports `jax.numpy`, and neither do `lax.linalg` and
`lax.linalg_algorithms` here: the few numpy-style operations they need (a `where` and a
batched `matmul` that broadcast and promote like jnp's, triangle masks, diagonals, gathers
along an axis, argsort) are these small functions over lax. Python operators and indexing
on arrays and tracers (`x * 0.5`, `rows > cols`, `x[..., i, :]`, `x.astype`) stay as they
are: they are the array's own methods, as in JAX's lax code.
"""
from __future__ import annotations

from typing import Any, Sequence

from .. import core, dtypes
from . import complex as cx, elementwise as ew, reductions as red, sorting as srt, structural as st
from .dot import dot_general


def shape(x: Any) -> tuple[int, ...]:
    return core.get_aval(x).shape


def is_complex(x: Any) -> bool:
    return core.get_aval(x).dtype.kind == "c"


def _axis(axis: int, ndim: int) -> int:
    return axis % ndim if ndim else 0


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """numpy's broadcast of shapes (trailing dimensions aligned, 1 stretches)."""
    nd = max(len(s) for s in shapes)
    out = []
    for dims in zip(*((1,) * (nd - len(s)) + tuple(s) for s in shapes)):
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1:
            raise ValueError(f"shapes {shapes} do not broadcast")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def broadcast_to(x: Any, to: Sequence[int]) -> Any:
    """x broadcast to shape `to` (numpy's rule)."""
    s, to = shape(x), tuple(to)
    if s == to:
        return x
    lead = len(to) - len(s)
    keep = [i for i, d in enumerate(s) if d == to[lead + i]]
    x = st.reshape(x, [s[i] for i in keep]) if len(keep) != len(s) else x
    return st.broadcast_in_dim(x, to, [lead + i for i in keep])


def promote(*xs: Any) -> list:
    """xs in their common dtype (jnp's promotion: Python scalars are weak) and shape."""
    dt, weak = dtypes.result_type(*xs, return_weak_type_flag=True)
    xs = [ew.convert_element_type(x, dt, weak_type=weak) for x in xs]
    to = broadcast_shapes(*(shape(x) for x in xs))
    return [broadcast_to(x, to) for x in xs]


def where(cond: Any, x: Any, y: Any) -> Any:
    """`jnp.where(cond, x, y)`: broadcasting, x and y promoted together."""
    x, y = promote(x, y)
    to = broadcast_shapes(shape(cond), shape(x))
    return ew.select(broadcast_to(cond, to), broadcast_to(x, to), broadcast_to(y, to))


def maximum(x: Any, y: Any) -> Any:
    return ew.max(*promote(x, y))


def conj(x: Any) -> Any:
    """The complex conjugate; a real x as it is."""
    return cx.conj(x) if is_complex(x) else x


def real(x: Any) -> Any:
    return cx.real(x) if is_complex(x) else x


def imag(x: Any) -> Any:
    return cx.imag(x) if is_complex(x) else ew.full_like(x, 0)


def abs2(x: Any) -> Any:
    """|x|², real (x * conj(x) without the square root)."""
    return real(x * conj(x))


def moveaxis(x: Any, src: int, dst: int) -> Any:
    nd = len(shape(x))
    perm = [i for i in range(nd) if i != _axis(src, nd)]
    perm.insert(_axis(dst, nd), _axis(src, nd))
    return st.transpose(x, perm)


def mT(x: Any) -> Any:
    """The transpose of the last two axes."""
    return moveaxis(x, -1, -2)


def H(x: Any) -> Any:
    """The conjugate transpose (the transpose for real x)."""
    return conj(mT(x))


def arange(n: int, dtype: Any = dtypes.int32) -> Any:
    return ew.iota(dtype, n)


def grid(n: int, m: int | None = None) -> tuple[Any, Any]:
    """(rows, cols): the row and column indices of an n x m matrix, as (n, 1) and (1, m),
    for triangle and diagonal masks (`rows > cols` ...)."""
    return st.reshape(arange(n), (n, 1)), st.reshape(arange(n if m is None else m), (1, n if m is None else m))


def eye(n: int, dtype: Any) -> Any:
    rows, cols = grid(n)
    return ew.convert_element_type(rows == cols, dtype)


def matmul(a: Any, b: Any) -> Any:
    """`jnp.matmul` of (stacks of) matrices, both at least 2-D, batch dimensions broadcast."""
    dt = dtypes.result_type(a, b)
    a, b = ew.convert_element_type(a, dt), ew.convert_element_type(b, dt)
    sa, sb = shape(a), shape(b)
    batch = broadcast_shapes(sa[:-2], sb[:-2])
    a, b = broadcast_to(a, batch + sa[-2:]), broadcast_to(b, batch + sb[-2:])
    nb = len(batch)
    return dot_general(a, b, (((nb + 1,), (nb,)), (tuple(range(nb)), tuple(range(nb)))))


def vecmat(v: Any, m: Any) -> Any:
    """Σ_j v[..., j] m[..., j, k] (the einsum '...j,...jk->...k')."""
    return matmul(v[..., None, :], m)[..., 0, :]


def matvec(m: Any, v: Any) -> Any:
    """Σ_j m[..., i, j] v[..., j] (the einsum '...ij,...j->...i')."""
    return matmul(m, v[..., :, None])[..., :, 0]


def sum(x: Any, axis: int | Sequence[int], keepdims: bool = False) -> Any:  # noqa: A001
    nd = len(shape(x))
    axes = tuple(sorted(_axis(a, nd) for a in ((axis,) if isinstance(axis, int) else axis)))
    out = red.reduce_sum(x, axes)
    return st.expand_dims(out, axes) if keepdims else out


def _axes(x: Any, axis: int | None) -> tuple[int, ...]:
    nd = len(shape(x))
    return tuple(range(nd)) if axis is None else (_axis(axis, nd),)


def any(x: Any, axis: int | None = None) -> Any:  # noqa: A001
    return red.reduce_or(x, _axes(x, axis))


def all(x: Any, axis: int | None = None) -> Any:  # noqa: A001
    return red.reduce_and(x, _axes(x, axis))


def diagonal(x: Any, axis1: int = -2, axis2: int = -1) -> Any:
    """x's diagonal over axis1 and axis2, appended as the last axis (jnp.diagonal): the
    two axes moved last and flattened, then every (n + 1)-th element."""
    nd = len(shape(x))
    a1, a2 = _axis(axis1, nd), _axis(axis2, nd)
    x = st.transpose(x, [i for i in range(nd) if i not in (a1, a2)] + [a1, a2])
    *batch, m, n = shape(x)
    k = min(m, n)
    flat = st.reshape(x, tuple(batch) + (m * n,))
    zeros = (0,) * len(batch)
    return st.slice(flat, zeros + (0,), tuple(batch) + (max((k - 1) * (n + 1) + 1, 0),), (1,) * len(batch) + (n + 1,))


def take(x: Any, idx: Any, axis: int) -> Any:
    """x's entries at the 1-D in-range index vector idx along `axis` (jnp.take)."""
    s = shape(x)
    ax = _axis(axis, len(s))
    to = s[:ax] + shape(idx) + s[ax + 1:]
    return srt.gather_along(x, st.broadcast_in_dim(idx, to, (ax,)), ax)


def take_along_axis(x: Any, idx: Any, axis: int) -> Any:
    """jnp.take_along_axis with in-range indices: idx broadcast against x off `axis`."""
    s, si = shape(x), shape(idx)
    ax = _axis(axis, len(s))
    return srt.gather_along(x, broadcast_to(idx, s[:ax] + (si[ax],) + s[ax + 1:]), ax)


def argsort(x: Any, axis: int = -1) -> Any:
    """The stable ascending sorting permutation along `axis` (int32)."""
    ax = _axis(axis, len(shape(x)))
    return srt.sort_key_val(x, ew.broadcasted_iota(dtypes.int32, shape(x), ax), ax, True)[1]


def argmax(x: Any, axis: int) -> Any:
    return red.argmax(x, _axis(axis, len(shape(x))), dtypes.int32)


def concatenate(xs: Sequence[Any], axis: int) -> Any:
    xs = [ew.convert_element_type(x, dtypes.result_type(*xs)) for x in xs]
    return st.concatenate(xs, _axis(axis, len(shape(xs[0]))))


def pad_end(x: Any, widths: Sequence[int]) -> Any:
    """x with zeros after its last `widths[i]` entries on each of its trailing axes."""
    lead = len(shape(x)) - len(widths)
    return st.pad(x, ew.full_like(x, 0, shape=()), [(0, 0, 0)] * lead + [(0, w, 0) for w in widths])


def zeros_like(x: Any) -> Any:
    return ew.full_like(x, 0)


def isfinite(x: Any) -> Any:
    """Finite (both parts, for a complex x)."""
    return ew.is_finite(cx.real(x)) & ew.is_finite(cx.imag(x)) if is_complex(x) else ew.is_finite(x)


#: the same operations under jnp's names, for the algorithms' formulas
sqrt, abs, reshape, full = ew.sqrt, ew.abs, st.reshape, st.full  # noqa: A001
