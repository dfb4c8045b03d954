"""Products: matmul, dot, vdot, inner, outer, tensordot, einsum, kron, vecdot, matvec, vecmat,
and the 1-d sliding products convolve and correlate.

All are `dot_general` (or `conv_general_dilated`) after type promotion, with
broadcasting done by views.
`einsum` parses the subscripts (with `...`), sums out labels private to one
operand, then contracts operands pairwise left to right (`optimize` is accepted
and ignored: the order is always left to right).
"""
from __future__ import annotations

__all__ = ["matmul", "dot", "vdot", "inner", "outer", "tensordot", "einsum", "kron", "vecdot",
           "matvec", "vecmat", "convolve", "correlate", "cross"]

from typing import Any, Sequence

from .. import core, dtypes
from ..lax import (dot as lax_dot, reductions as lax_red, base as lax_base, complex as lax_complex,
    elementwise as lax_ew, structural as lax_st)
from .reductions import check_no_out
from .util import broadcast_shapes, broadcast_to_shape, check_arraylike, promote_dtypes
from . import creation as _creation, shape as _shapes, ufuncs as _ufuncs
from .ufuncs import multiply
from ..lax.convolution import conv_general_dilated


def _shape(x: Any) -> tuple[int, ...]:
    return core.get_aval(x).shape


def _promote(name: str, *args: Any) -> list:
    check_arraylike(name, *args)
    return promote_dtypes(*args)


def _dot_general(a: Any, b: Any, dn: Any, preferred_element_type: Any = None) -> Any:
    return lax_dot.dot_general(a, b, dn, preferred_element_type=preferred_element_type)


def matmul(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """`jnp.matmul` / `@`: 1-d operands are promoted to matrices, batch dims broadcast."""
    a, b = _promote("matmul", a, b)
    sa, sb = _shape(a), _shape(b)
    if not sa or not sb:
        raise ValueError(f"matmul: Input operand {0 if not sa else 1} does not have enough dimensions "
                         f"(has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)")
    a2 = lax_st.reshape(a, (1,) + sa) if len(sa) == 1 else a
    b2 = lax_st.reshape(b, sb + (1,)) if len(sb) == 1 else b
    sa2, sb2 = _shape(a2), _shape(b2)
    batch = broadcast_shapes(sa2[:-2], sb2[:-2], name="matmul")
    a2 = broadcast_to_shape(a2, batch + sa2[-2:])
    b2 = broadcast_to_shape(b2, batch + sb2[-2:])
    nb = len(batch)
    bd = tuple(range(nb))
    out = _dot_general(a2, b2, (((nb + 1,), (nb,)), (bd, bd)), preferred_element_type)
    shape = batch + sa2[-2:-1] * (len(sa) > 1) + sb2[-1:] * (len(sb) > 1)
    return lax_st.reshape(out, shape) if shape != _shape(out) else out


def dot(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """`jnp.dot`: scalars multiply; otherwise contract a's last axis with b's second-to-last."""
    a, b = _promote("dot", a, b)
    sa, sb = _shape(a), _shape(b)
    if not sa or not sb:
        return multiply(a, b)
    cb = len(sb) - 2 if len(sb) > 1 else 0
    return _dot_general(a, b, (((len(sa) - 1,), (cb,)), ((), ())), preferred_element_type)


def vdot(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """`jnp.vdot`: the dot product of the flattened operands, the first one conjugated."""
    a, b = _promote("vdot", a, b)
    if core.get_aval(a).dtype.kind == "c":
        a = lax_complex.conj(a)
    a, b = lax_st.reshape(a, (core.get_aval(a).size,)), lax_st.reshape(b, (core.get_aval(b).size,))
    return _dot_general(a, b, (((0,), (0,)), ((), ())), preferred_element_type)


def inner(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """`jnp.inner`: contract the last axes of both operands."""
    a, b = _promote("inner", a, b)
    sa, sb = _shape(a), _shape(b)
    if not sa or not sb:
        return multiply(a, b)
    return _dot_general(a, b, (((len(sa) - 1,), (len(sb) - 1,)), ((), ())), preferred_element_type)


def outer(a: Any, b: Any, out: None = None) -> Any:
    """`jnp.outer`: out[i, j] = ravel(a)[i] * ravel(b)[j]."""
    check_no_out("outer", out)
    a, b = _promote("outer", a, b)
    a = lax_st.reshape(a, (core.get_aval(a).size, 1))
    b = lax_st.reshape(b, (1, core.get_aval(b).size))
    return multiply(a, b)


def tensordot(a: Any, b: Any, axes: int | Sequence[Any] = 2, *, precision: Any = None,
              preferred_element_type: Any = None) -> Any:
    """`jnp.tensordot`: contract the last `axes` dims of a with the first of b, or given pairs."""
    a, b = _promote("tensordot", a, b)
    na, nb = len(_shape(a)), len(_shape(b))
    if isinstance(axes, int):
        if axes < 0 or axes > min(na, nb):
            raise TypeError(f"Number of tensordot axes (axes {axes}) exceeds input ranks ({na} and {nb})")
        ca, cb = tuple(range(na - axes, na)), tuple(range(axes))
    else:
        if len(axes) != 2:
            raise TypeError(f"tensordot requires axes to be an int or a pair of sequences, got {axes}")
        xa, xb = axes
        xa = (xa,) if isinstance(xa, int) else tuple(xa)
        xb = (xb,) if isinstance(xb, int) else tuple(xb)
        if len(xa) != len(xb):
            raise TypeError(f"tensordot requires axes lists to have equal length, got {xa} and {xb}.")
        ca = tuple(x % na for x in xa)
        cb = tuple(x % nb for x in xb)
    return _dot_general(a, b, ((ca, cb), ((), ())), preferred_element_type)


def vecdot(x1: Any, x2: Any, /, *, axis: int = -1, precision: Any = None,
           preferred_element_type: Any = None) -> Any:
    """`jnp.vecdot`: the dot product along `axis`, broadcasting the other dims; the first
    argument is conjugated (the Array API's definition, as JAX)."""
    x1, x2 = _promote("vecdot", x1, x2)
    if core.get_aval(x1).dtype.kind == "c":
        x1 = lax_complex.conj(x1)
    s1, s2 = _shape(x1), _shape(x2)
    ax1, ax2 = axis % len(s1), axis % len(s2)
    if s1[ax1] != s2[ax2]:
        raise ValueError(f"axes must match; got shapes {s1} and {s2} with axis={axis}")
    x1 = lax_st.transpose(x1, tuple(i for i in range(len(s1)) if i != ax1) + (ax1,))
    x2 = lax_st.transpose(x2, tuple(i for i in range(len(s2)) if i != ax2) + (ax2,))
    batch = broadcast_shapes(_shape(x1)[:-1], _shape(x2)[:-1], name="vecdot")
    n = s1[ax1]
    x1, x2 = broadcast_to_shape(x1, batch + (n,)), broadcast_to_shape(x2, batch + (n,))
    bd = tuple(range(len(batch)))
    return _dot_general(x1, x2, (((len(batch),), (len(batch),)), (bd, bd)), preferred_element_type)


def matvec(x1: Any, x2: Any, /) -> Any:
    """`jnp.matvec`: matrix (..., m, n) times vector (..., n)."""
    x1, x2 = _promote("matvec", x1, x2)
    out = matmul(x1, lax_st.reshape(x2, _shape(x2) + (1,)))
    return lax_st.reshape(out, _shape(out)[:-1])


def vecmat(x1: Any, x2: Any, /) -> Any:
    """`jnp.vecmat`: vector (..., m) times matrix (..., m, n)."""
    x1, x2 = _promote("vecmat", x1, x2)
    out = matmul(lax_st.reshape(x1, _shape(x1)[:-1] + (1, _shape(x1)[-1])), x2)
    return lax_st.reshape(out, _shape(out)[:-2] + _shape(out)[-1:])


def kron(a: Any, b: Any) -> Any:
    """`jnp.kron`: the Kronecker product (ranks aligned by leading 1s)."""
    a, b = _promote("kron", a, b)
    sa, sb = _shape(a), _shape(b)
    nd = max(len(sa), len(sb))
    sa, sb = (1,) * (nd - len(sa)) + sa, (1,) * (nd - len(sb)) + sb
    ai = lax_st.reshape(a, tuple(d for n in sa for d in (n, 1)))
    bi = lax_st.reshape(b, tuple(d for n in sb for d in (1, n)))
    return lax_st.reshape(multiply(ai, bi), tuple(x * y for x, y in zip(sa, sb)))


# ---------------------------------------------------------------- convolve / correlate
_CORR_PADDING = {"valid": lambda m: (0, 0), "same": lambda m: (m // 2, m - 1 - m // 2),
                 "full": lambda m: (m - 1, m - 1)}


def _correlate(name: str, a: Any, v: Any, mode: str, flip: bool, pet: Any) -> Any:
    """c[k] = sum_j a[j + k] * w[j], w = v (reversed for convolve), as a 1-d convolution;
    numpy swaps the operands when v is longer (reversing a correlation's output)."""
    check_arraylike(name, a, v)
    a, v = promote_dtypes(a, v)
    if core.get_aval(a).dtype.kind not in "fc":
        a = lax_ew.convert_element_type(a, dtypes.default_float())
        v = lax_ew.convert_element_type(v, dtypes.default_float())
    if not flip and core.get_aval(v).dtype.kind == "c":  # numpy's correlation conjugates v
        v = lax_complex.conj(v)
    if len(_shape(a)) != 1 or len(_shape(v)) != 1:
        raise ValueError(f"{name}() only support 1-dimensional inputs.")
    if not _shape(a)[0] or not _shape(v)[0]:
        raise ValueError(f"{name}: inputs cannot be empty, got shapes {_shape(a)} and {_shape(v)}.")
    if mode not in _CORR_PADDING:
        raise ValueError(f"mode must be one of ['full', 'same', 'valid'], got {mode!r}")
    swapped = _shape(v)[0] > _shape(a)[0]
    if swapped:
        a, v = v, a
    if flip:
        v = lax_st.rev(v, (0,))
    m = _shape(v)[0]
    out = conv_general_dilated(lax_st.reshape(a, (1, 1, _shape(a)[0])), lax_st.reshape(v, (1, 1, m)),
                               (1,), (_CORR_PADDING[mode](m),), preferred_element_type=pet)
    out = lax_st.reshape(out, _shape(out)[2:])
    return lax_st.rev(out, (0,)) if swapped and not flip else out


def correlate(a: Any, v: Any, mode: str = "valid", *, precision: Any = None,
              preferred_element_type: Any = None) -> Any:
    """`jnp.correlate` of 1-d arrays (mode 'valid', 'same' or 'full')."""
    return _correlate("correlate", a, v, mode, False, preferred_element_type)


def convolve(a: Any, v: Any, mode: str = "full", *, precision: Any = None,
             preferred_element_type: Any = None) -> Any:
    """`jnp.convolve` of 1-d arrays (mode 'full', 'same' or 'valid')."""
    return _correlate("convolve", a, v, mode, True, preferred_element_type)


# ---------------------------------------------------------------- einsum
def _parse(subscripts: str, shapes: list[tuple[int, ...]]) -> tuple[list[str], str]:
    """Input label strings and the output labels, with `...` replaced by private labels."""
    subscripts = subscripts.replace(" ", "")
    if "->" in subscripts:
        lhs, out = subscripts.split("->")
    else:
        lhs, out = subscripts, None
    ins = lhs.split(",")
    if len(ins) != len(shapes):
        raise ValueError(f"einsum: {len(ins)} operand subscripts given for {len(shapes)} operands")
    nell = 0
    for s, shape in zip(ins, shapes):
        if "..." in s:
            nell = max(nell, len(shape) - (len(s) - 3))
    ell = "".join(chr(0x100 + i) for i in range(nell))
    expanded = []
    for k, (s, shape) in enumerate(zip(ins, shapes)):
        if "..." in s:
            n = len(shape) - (len(s) - 3)
            s = s.replace("...", ell[nell - n:])
        if len(s) != len(shape):
            raise ValueError(f"einsum: operand {k} has {len(shape)} dims but subscripts '{s}' name {len(s)}")
        expanded.append(s)
    if out is None:
        counts: dict[str, int] = {}
        for s in expanded:
            for c in s:
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    else:
        out = out.replace("...", ell)
    return expanded, out


def _label_sizes(labels: list[str], shapes: list[tuple[int, ...]]) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for k, (s, shape) in enumerate(zip(labels, shapes)):
        for c, n in zip(s, shape):
            prev = sizes.get(c, 1)
            if n != 1 and prev != 1 and n != prev:
                raise ValueError(f"Size of label '{c}' for operand {k} ({n}) does not match previous "
                                 f"terms ({prev}).")
            sizes[c] = max(prev, n) if n != 1 else prev
    return sizes


def _diagonal(x: Any, s: str) -> tuple[Any, str]:
    """Take diagonals for labels repeated within one operand ('ii' -> 'i')."""
    jnp_where = _ufuncs.where
    while len(set(s)) != len(s):
        c = next(c for c in s if s.count(c) > 1)
        i, j = s.index(c), s.index(c, s.index(c) + 1)
        shape = _shape(x)
        mask = lax_ew.eq(lax_ew.broadcasted_iota(dtypes.int32, shape, i),
                         lax_ew.broadcasted_iota(dtypes.int32, shape, j))
        x = lax_red.reduce_sum(jnp_where(mask, x, lax_base.constant((), 0, core.get_aval(x).dtype)), (j,))
        s = s[:j] + s[j + 1:]
    return x, s


def _sum_private(x: Any, s: str, keep: set) -> tuple[Any, str]:
    axes = tuple(i for i, c in enumerate(s) if c not in keep)
    if not axes:
        return x, s
    return lax_red.reduce_sum(x, axes), "".join(c for c in s if c in keep)


def _expand_to(x: Any, s: str, sizes: dict[str, int]) -> Any:
    target = tuple(sizes[c] for c in s)
    return broadcast_to_shape(x, target) if _shape(x) != target else x


def _contract(a: Any, sa: str, b: Any, sb: str, keep: set, pet: Any) -> tuple[Any, str]:
    batch = [c for c in sa if c in sb and c in keep]
    contract = [c for c in sa if c in sb and c not in keep]
    fa = [c for c in sa if c not in sb]
    fb = [c for c in sb if c not in sa]
    dn = ((tuple(sa.index(c) for c in contract), tuple(sb.index(c) for c in contract)),
          (tuple(sa.index(c) for c in batch), tuple(sb.index(c) for c in batch)))
    return _dot_general(a, b, dn, pet), "".join(batch + fa + fb)


def einsum(subscripts: Any, *operands: Any, out: None = None, optimize: Any = "optimal",
           precision: Any = None, preferred_element_type: Any = None) -> Any:
    """`jnp.einsum` with explicit or implicit output, `...`, repeated labels, broadcasting and
    the sublist form; operands are contracted pairwise along `einsum_path`'s greedy path
    (or the path given as `optimize`)."""
    from .einsum_path import einsum_path, is_sublist_form, sublists_to_subscripts
    check_no_out("einsum", out)
    if is_sublist_form(subscripts):
        subscripts, operands = sublists_to_subscripts((subscripts, *operands))
    ops = _promote("einsum", *operands)
    shapes = [_shape(o) for o in ops]
    labels, out_labels = _parse(subscripts, shapes)
    sizes = _label_sizes(labels, shapes)
    for c in out_labels:
        if c not in sizes:
            raise ValueError(f"einsum: output subscript '{c}' does not appear in the inputs")
    items = []
    for x, s in zip(ops, labels):
        x, s = _diagonal(x, s)
        items.append((_expand_to(x, s, sizes), s))
    if len(items) > 1:
        path, _ = einsum_path(subscripts, *ops, optimize=optimize if optimize is not True else "greedy")
        for pair in path:
            if len(pair) != 2:
                continue
            (x, s), (y, t) = (items[k] for k in pair)
            rest = [it for k, it in enumerate(items) if k not in pair]
            later = set(out_labels).union(*(set(u) for _, u in rest))
            x, s = _sum_private(x, s, later | set(t))
            y, t = _sum_private(y, t, later | set(s))
            items = rest + [_contract(x, s, y, t, later, preferred_element_type)]
    (x, s), = items
    x, s = _sum_private(x, s, set(out_labels))
    perm = tuple(s.index(c) for c in out_labels)
    return lax_st.transpose(x, perm) if perm != tuple(range(len(perm))) else x


def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: int | None = None) -> Any:
    """`jnp.cross`: the cross product of 3-vectors (2-vectors get a zero third component;
    two 2-vectors give the scalar z component) along the given axes."""
    check_arraylike("cross", a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = promote_dtypes(a, b)
    a, b = _shapes.moveaxis(a, axisa, -1), _shapes.moveaxis(b, axisb, -1)
    if _shape(a)[-1] not in (2, 3) or _shape(b)[-1] not in (2, 3):
        raise ValueError("Dimension must be either 2 or 3 for cross product")
    if _shape(a)[-1] == 2 and _shape(b)[-1] == 2:
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    a0, a1, b0, b1 = a[..., 0], a[..., 1], b[..., 0], b[..., 1]
    a2 = a[..., 2] if _shape(a)[-1] == 3 else _creation.zeros_like(a0)
    b2 = b[..., 2] if _shape(b)[-1] == 3 else _creation.zeros_like(b0)
    c = _shapes.stack(_shapes.broadcast_arrays(a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0))
    return _shapes.moveaxis(c, 0, axisc)
