"""Kernels over another output grid: the same computation with its g indices rewritten.

Backends use these before compiling: `squeeze_leading` drops leading axes of extent 1
(wasm threads split the first real axis), `widen_leading` rounds the leading extent up to
a power of two so that one program serves many extents (shape polymorphism).
"""
from __future__ import annotations

from . import expr as E
from .kernel import Kernel


def squeeze_leading(kernel: Kernel) -> Kernel:
    """The same kernel without leading output axes of extent 1 (same memory layout).

    Threads split a kernel's first output axis, so a (1, C, H, W) kernel would
    otherwise always run on one thread."""
    shape = tuple(kernel.shape)
    k = 0
    while k < len(shape) - 1 and shape[k] == 1:
        k += 1
    if k == 0:
        return kernel
    return _regrid(kernel, shape[k:], lambda i, n: E.const(0, n.dtype) if i < k else E.idx(f"g{i - k}", shape[i]))


#: leading extents are compiled as the next power of two from this size on (shape polymorphism)
WIDEN_FROM = 8


def widen_leading(kernel: Kernel) -> Kernel:
    """The kernel compiled for a leading extent rounded up to a power of two.

    A backend whose programs take the first output axis' extent as a run-time parameter
    (wasm: `run`'s bounds; webgpu: a uniform) runs a kernel valid for g0 in [0, 2^k) at
    any extent up to 2^k: `x[:n] * 2` for every n of a slicing loop shares a handful of
    programs instead of compiling one per size.
    Substituting the wider index re-simplifies under the wider bounds, so the module is
    exact on every row it runs; where the expressions name the extent themselves (a
    mask, a reversed index), the widened keys simply stay distinct."""
    shape = tuple(kernel.shape)
    if not shape or shape[0] < WIDEN_FROM or shape[0] > 1 << 30:
        return kernel
    wide = 1 << (shape[0] - 1).bit_length()
    if wide == shape[0]:
        return kernel
    return _regrid(kernel, (wide,) + shape[1:], lambda i, n: E.idx("g0", wide) if i == 0 else n)


def _regrid(kernel: Kernel, shape: tuple, index) -> Kernel:
    """`kernel` over the output grid `shape`, its g indices replaced by `index(i, node)`."""
    roots = list(kernel.outs) + ([kernel.body] if kernel.reduce_op else [])
    mapping = {id(n): index(int(n.arg[0][1:]), n) for n in E.walk_all(roots)
               if n.op == "idx" and n.arg[0][0] == "g"}
    outs = tuple(E.substitute(o, mapping) for o in kernel.outs)
    body = E.substitute(kernel.body, mapping) if kernel.reduce_op else None
    return Kernel(shape, body, None, kernel.in_dtypes, kernel.reduce_shape, kernel.reduce_op,
                  name=kernel.name, outs=outs)
