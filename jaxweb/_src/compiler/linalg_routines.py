"""Dense factorizations as one backend routine per call, where the backend has them.

`lax.linalg` lowers cholesky, lu and triangular_solve by a shared blocked algorithm made
of ordinary kernels (`lax/linalg_algorithms.py`): it runs on every backend, but costs a
few small kernels per column. A backend that has its own programs for them declares so
as data (`LinalgCaps` on its `Capabilities`: the largest matrix each is used for, since
for large ones the blocked algorithm on the GEMM routine may be faster), and `lower`
then gives the primitive's result as the outputs of one `Routine` launch over the whole
batch (the routine's rows are the batch's matrices, so threads split a batch).

The launch is a `call` graph node (`kernel.Call` of kind "routine"): the scheduler gives
it contiguous buffers in and out and runs the Routine in place of the call, as it runs
a GEMM routine; no other path. float32 only; anything else keeps the blocked algorithm.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from .. import dtypes
from . import graph
from .kernel import Call, Routine
from .shapetracker import prod

F32 = dtypes.float32


@dataclass(frozen=True)
class LinalgCaps:
    """The largest n (of n x n matrices; of max(m, n) for lu) each routine is used for
    (0: the backend has no such routine)."""

    cholesky: int = 0
    lu: int = 0
    triangular_solve: int = 0


@dataclass(frozen=True)
class CholeskySpec:
    """L (batch, n, n) lower with L Lᵀ = A from A's lower triangle (zero above the
    diagonal; NaN in the whole lower triangle of a matrix that is not positive definite)."""

    n: int
    batch: int

    @property
    def flops(self) -> int:
        return self.batch * self.n ** 3 // 3


@dataclass(frozen=True)
class LuSpec:
    """lu (batch, m, n) packed, pivots (batch, min(m, n)), permutation (batch, m) int32."""

    m: int
    n: int
    batch: int

    @property
    def flops(self) -> int:
        m, n, k = self.m, self.n, min(self.m, self.n)
        return self.batch * (2 * m * n * k - (m + n) * k * k + 2 * k ** 3 // 3)


@dataclass(frozen=True)
class TrsmSpec:
    """Y = T⁻¹ B per matrix, T (m x m) read at a[i a_si + j a_sj] (its lower triangle when
    `lower`, else its upper; `unit`: ones on its diagonal), Y and B (m x k) row-major.
    Every triangular_solve is one such system (see `_trsm`)."""

    m: int
    k: int
    batch: int
    lower: bool
    unit: bool
    a_si: int
    a_sj: int

    @property
    def flops(self) -> int:
        return self.batch * self.m * self.m * self.k


def lower(name: str, nodes: Sequence[graph.Node], params: dict, caps: Any) -> list[graph.Node] | None:
    """The primitive `name`'s results as one routine launch, or None (then the blocked
    algorithm): when the backend declares the routine and the operands fit it."""
    linalg = getattr(caps, "linalg", None)
    if linalg is None or any(n.dtype is not F32 for n in nodes):
        return None
    rule = _RULES.get(name)
    return rule(nodes, params, linalg) if rule is not None else None


def _launch(routine: Routine, srcs: Sequence[graph.Node], out_types: list) -> list[graph.Node]:
    step = Call("routine", [], {"routine": routine}, routine.name, effects=[])
    return graph.call(step, list(srcs), out_types)


def _batch(shape: tuple) -> int:
    return prod(shape[:-2])


def _cholesky(nodes, params, caps: LinalgCaps):
    (a,) = nodes
    n = a.shape[-1]
    if n == 0 or n > caps.cholesky:
        return None
    spec = CholeskySpec(n, _batch(a.shape))
    r = Routine("cholesky_f32", spec, (F32,), (F32,), a.size, "cholesky")
    return _launch(r, [a], [(a.shape, F32)])


def _lu(nodes, params, caps: LinalgCaps):
    (a,) = nodes
    m, n = a.shape[-2:]
    if m == 0 or n == 0 or max(m, n) > caps.lu:
        return None
    batch = a.shape[:-2]
    spec = LuSpec(m, n, _batch(a.shape))
    i32 = dtypes.int32
    r = Routine("lu_f32", spec, (F32,), (F32, i32, i32), a.size, "lu")
    return _launch(r, [a], [(a.shape, F32), (batch + (min(m, n),), i32), (batch + (m,), i32)])


def _trsm(nodes, params, caps: LinalgCaps):
    """op(a) x = b (left) or x op(a) = b as T Y = B: on the right Y = xᵀ, B = bᵀ (a copy,
    so that the routine's rows of right-hand sides are contiguous) and T = op(a)ᵀ; T is a
    or aᵀ by strides, lower iff `lower` differs from "T is aᵀ"."""
    a, b = nodes
    m = a.shape[-1]
    if m == 0 or b.size == 0 or m > caps.triangular_solve:
        return None
    left = params["left_side"]
    swap = tuple(range(b.ndim - 2)) + (b.ndim - 1, b.ndim - 2)
    rhs = b if left else b.permute(swap)
    t_is_at = params["transpose_a"] != (not left)
    a_si, a_sj = (1, m) if t_is_at else (m, 1)
    spec = TrsmSpec(m, rhs.shape[-1], _batch(a.shape), params["lower"] != t_is_at, params["unit_diagonal"],
                    a_si, a_sj)
    r = Routine("trsm_f32", spec, (F32, F32), (F32,), b.size, "triangular_solve")
    (y,) = _launch(r, [a, rhs], [(rhs.shape, F32)])
    return [y if left else y.permute(swap)]


_RULES = {"cholesky": _cholesky, "lu": _lu, "triangular_solve": _trsm}
