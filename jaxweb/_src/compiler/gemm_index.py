"""The index space of a product kernel, as the GEMM routines see it: batch, rows, columns.

A fused product kernel `out[g0, .., gn] = sum_r0 A(..) * B(..)` may have any number of
output dims (attention's `(b, h, t, t)` scores), and a dim may reach the factors only
through `g // c` and `g % c` (a product whose output is already the `(b, t, h * d)`
reshape of its transposed heads). `space` splits such a dim in two (the row-major order
of the output is unchanged by it) and drops dims of extent 1, so that every dim of the
product is a loop index of its own, read affinely where the operand is a view. `groups`
then sorts them: columns are the dims only B reads, rows the dims only A reads, batch
dims the rest (both read them; or one operand is broadcast along them). Where the output
ends with the columns, preceded by the rows, the routine's C `(batch, M, N)` is the
output's own layout; else C is a temporary its epilogue kernel reorders.

Each group is flattened row-major to one routine index (`unflatten` renames it back into
the dims), and an operand is read in place only where its strides collapse the same way
(`collapse`): `(h, t)` rows of a contiguous `(h, t, d)` operand are one stride `d`; the
`(b, h)` batch of heads sliced out of a `(b, t, 3 h d)` projection is not (it is staged).
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import dtypes
from . import expr as E
from .kernel import Kernel
from .shapetracker import prod


@dataclass
class Space:
    """The product's dims: `order` (virtual index names in the output's row-major order),
    `ext` (their extents), `body` (the kernel's body over them and r0), and how each
    relates to the kernel's own indices: `virt` (name -> expression of the g's) and
    `orig` (g name -> expression of the virtual indices)."""

    order: list
    ext: dict
    body: E.Expr
    virt: dict
    orig: dict


def _split_of(body: E.Expr, name: str, n: int) -> int | None:
    """c if index `name` is read only as `name // c` and `name % c` (c a proper divisor of n)."""
    cs = set()
    for node in E.walk(body):
        for pos, s in enumerate(node.src):
            if s.op == "idx" and s.arg[0] == name:
                if node.op not in ("div", "rem") or pos != 0 or not node.src[1].is_const:
                    return None
                cs.add(node.src[1].arg)
    if len(cs) != 1:
        return None
    c = cs.pop()
    return c if 1 < c < n and n % c == 0 else None


def space(kernel: Kernel) -> Space:
    """`kernel`'s product index space (see the module doc)."""
    body, order, ext, virt, orig, subst = kernel.body, [], {}, {}, {}, {}
    nodes = list(E.walk(body))
    for i, n in enumerate(kernel.shape):
        g = E.idx(f"g{i}", n)
        if n == 1:
            orig[g.arg[0]] = E.const(0, g.dtype)
            subst.update({id(x): orig[g.arg[0]] for x in nodes if x is g})
            continue
        c = _split_of(body, g.arg[0], n)
        parts = [(f"v{i}", n, g)] if c is None else [(f"v{i}h", n // c, g // c), (f"v{i}l", c, g % c)]
        for name, m, of_g in parts:
            order.append(name)
            ext[name] = m
            virt[name] = of_g
        v = [E.idx(name, m) for name, m, _ in parts]
        orig[g.arg[0]] = v[0] if c is None else v[0] * c + v[1]
        for x in nodes:
            if x is g:
                subst[id(x)] = v[0]
            elif c is not None and x.op in ("div", "rem") and x.src[0] is g:
                subst[id(x)] = v[0] if x.op == "div" else v[1]
    return Space(order, ext, E.substitute(body, subst) if subst else body, virt, orig)


@dataclass
class Groups:
    """The dims of each routine index (outer first) and whether the routine's C is the
    output's own layout (batch dims, then rows, then columns, in the output's order)."""

    batch: list
    rows: list
    cols: list
    direct: bool


def groups(sp: Space, a_names: set, b_names: set) -> Groups | None:
    """Batch, row and column dims of the product A(a_names) * B(b_names), or None."""
    only_a = [d for d in sp.order if d in a_names and d not in b_names]
    only_b = [d for d in sp.order if d in b_names and d not in a_names]
    n = len(sp.order)

    def run(dims: list, only: list, other: set) -> int:
        """How many of the last dims are the group (those of `only`; else one read by neither)."""
        k = next((i for i, d in enumerate(reversed(dims)) if d not in only), len(dims))
        return k or int(bool(dims) and dims[-1] not in other)
    ncol = run(sp.order, only_b, a_names)
    nrow = run(sp.order[:n - ncol], only_a, b_names) if ncol < n else 0
    if ncol and nrow:  # ... rows, cols at the end: C is the output
        cut = n - ncol - nrow
        return Groups(sp.order[:cut], sp.order[cut:n - ncol], sp.order[n - ncol:], True)
    if not only_a or not only_b:
        return None
    return Groups([d for d in sp.order if d not in only_a and d not in only_b], only_a, only_b, False)


def size(dims: list, ext: dict) -> int:
    return prod([ext[d] for d in dims])


def collapse(strides: dict, dims: list, ext: dict) -> int | None:
    """The one stride of `dims` flattened row-major, if the strides allow it (0 for none)."""
    if not dims:
        return 0
    for outer, inner in zip(dims, dims[1:]):
        if strides.get(outer, 0) != ext[inner] * strides.get(inner, 0):
            return None
    return strides.get(dims[-1], 0)


def unflatten(flat: E.Expr, dims: list, ext: dict) -> dict:
    """{dim: its index} for the row-major position `flat` over `dims`."""
    out, inner = {}, 1
    for d in reversed(dims):
        q = flat if inner == 1 else flat // inner
        out[d] = q if d == dims[0] else q % ext[d]
        inner *= ext[d]
    return out


def flatten(dims: list, ext: dict, of: dict) -> E.Expr:
    """The row-major position over `dims` of their indices `of[dim]`."""
    out = None
    for d in dims:
        out = of[d] if out is None else out * ext[d] + of[d]
    return out if out is not None else E.const(0, dtypes.int32)


def rename(e: E.Expr, to: dict) -> E.Expr:
    """`e` with its loop indices named in `to` replaced by their expressions there."""
    subst = {id(n): to[n.arg[0]] for n in E.walk(e) if n.op == "idx" and n.arg[0] in to}
    return E.substitute(e, subst) if subst else e
