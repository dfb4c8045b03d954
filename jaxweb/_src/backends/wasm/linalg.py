"""The wasm backend's factorization routines: one module per call, the whole batch in it.

`compiler/linalg_routines.py` hands `lax.linalg`'s cholesky, lu and triangular_solve to
these where the backend declares them (`LinalgCaps`), instead of the blocked algorithm's
few kernels per column. Each module exports run(start, end, outs..., ins...) over the
matrices [start, end) of the batch (threads split a batch), all buffers contiguous:

- cholesky_f32 (L, A): row by row (Cholesky–Banachiewicz), L[i, j] = (A[i, j] -
  L[i, :j]·L[j, :j]) / L[j, j], the dot products of contiguous rows in f32x4 lanes, four
  rows i at a time against each earlier row j (read once for the four); zeros above the
  diagonal; a matrix whose diagonal is not all finite (not positive definite) gets NaN in
  its whole lower triangle, as JAX returns it. Only A's lower triangle is read.
- lu_f32 (lu, pivots, perm, A): partial pivoting with LAPACK's pivots (the first largest
  |a|, a NaN winning as in argmax; a zero pivot leaves its column as is), by panels of
  PANEL columns: the trailing rows get one rank-PANEL update per panel (f32x4 lanes), so
  they stream through memory once per panel rather than once per column.
- trsm_f32 (Y, T, B): Y = B, then substitution in place, forward for a lower T and
  backward for an upper one: Y[i] -= T[i, j] Y[j] over the solved rows j (8 at a time,
  one pass over Y[i]), then Y[i] /= T[i, i]; T is read by strides (so transposes are
  free), Y's rows (the right-hand sides) are f32x4 lanes.
"""
from __future__ import annotations

from ...compiler.linalg_routines import CholeskySpec, LuSpec, TrsmSpec
from .assembler import Func
from .tile import inc, loop_while, module


class _Asm:
    """A Func with helpers for counted loops, pointers and the f32x4 inner loops."""

    def __init__(self, nparams: int, features: frozenset):
        self.f = Func(["i32"] * nparams)
        self.fma = "relaxed_simd" in features
        self.features = features
        self.v = [self.f.local("v128") for _ in range(8)]
        self.tmp = self.f.local("i32")
        self.y = self.f.local("v128")

    def i32(self) -> int:
        return self.f.local("i32")

    def f32(self) -> int:
        return self.f.local("f32")

    def loop(self, i: int, lo, hi, body) -> None:
        """for i in [lo, hi): body()  (lo, hi: callables pushing an i32)."""
        f = self.f
        lo()
        f.set(i)
        loop_while(f, lambda: (f.get(i), hi(), f.emit("i32.lt_s")), lambda: (body(), inc(f, i, 1)))

    def ptr(self, dst: int, base: int, index, scale: int = 4) -> None:
        """dst = base + index() * scale (bytes)."""
        f = self.f
        f.get(base)
        index()
        f.i32(scale).emit("i32.mul").emit("i32.add").set(dst)

    def madd(self, acc: int, a, b) -> None:
        """acc += a() * b()  (f32x4; a and b push v128s)."""
        f = self.f
        if self.fma:
            a()
            b()
            f.get(acc).emit("f32x4.relaxed_madd").set(acc)
        else:
            f.get(acc)
            a()
            b()
            f.emit("f32x4.mul").emit("f32x4.add").set(acc)

    def _begin(self, pa: int, pb: int, base: int, count: int, p: int, q: int, e: int) -> None:
        """Zero the four accumulators; p, q = pa, pb; e = base + 4 count (where p or q stops)."""
        f = self.f
        for a in self.v[:4]:
            f.v128_const(bytes(16)).set(a)
        f.get(pa).set(p)
        f.get(pb).set(q)
        f.get(base).get(count).i32(2).emit("i32.shl").emit("i32.add").set(e)

    def dot(self, pa: int, pb: int, count: int, out: int, p: int, q: int, e: int) -> None:
        """out = the sum of the products of the `count` (a local) f32s at pa.. and pb.., 16 then
        4 lanes at a time (four accumulators), then one at a time."""
        f, v = self.f, self.v
        self._begin(pa, pb, pa, count, p, q, e)

        def wide(lanes: int) -> None:
            for u in range(lanes // 4):
                self.madd(v[u], lambda u=u: f.get(p).mem("v128.load", 16 * u, 2),
                          lambda u=u: f.get(q).mem("v128.load", 16 * u, 2))
            inc(f, p, 4 * lanes)
            inc(f, q, 4 * lanes)
        for lanes in (16, 4):
            loop_while(f, lambda lanes=lanes: f.get(p).i32(4 * lanes).emit("i32.add").get(e).emit("i32.le_u"),
                       lambda lanes=lanes: wide(lanes))
        f.get(v[0]).get(v[1]).emit("f32x4.add").get(v[2]).get(v[3]).emit("f32x4.add").emit("f32x4.add").set(v[0])
        for lane in range(4):
            f.get(v[0]).lane("f32x4.extract_lane", lane)
            if lane:
                f.emit("f32.add")
        f.set(out)

        def tail():
            f.get(out).get(p).mem("f32.load", 0, 2).get(q).mem("f32.load", 0, 2).emit("f32.mul")
            f.emit("f32.add").set(out)
            inc(f, p, 4)
            inc(f, q, 4)
        loop_while(f, lambda: f.get(p).get(e).emit("i32.lt_u"), tail)

    def dot4(self, prow: int, pb: int, count: int, outs: list, row_bytes: int, p: int, q: int, e: int) -> None:
        """outs[r] = the dot of count f32s at prow + r row_bytes.. (r < 4) with those at pb..:
        four rows against one, which is loaded once for all four."""
        f, v = self.f, self.v
        self._begin(prow, pb, pb, count, p, q, e)

        def wide():
            f.get(q).mem("v128.load", 0, 2).set(self.y)
            for r in range(4):
                self.madd(v[r], lambda r=r: f.get(p).mem("v128.load", r * row_bytes, 2), lambda: f.get(self.y))
            inc(f, p, 16)
            inc(f, q, 16)
        loop_while(f, lambda: f.get(q).i32(16).emit("i32.add").get(e).emit("i32.le_u"), wide)
        for r in range(4):
            for lane in range(4):
                f.get(v[r]).lane("f32x4.extract_lane", lane)
                if lane:
                    f.emit("f32.add")
            f.set(outs[r])

        def tail():
            for r in range(4):
                f.get(outs[r]).get(p).mem("f32.load", r * row_bytes, 2).get(q).mem("f32.load", 0, 2)
                f.emit("f32.mul").emit("f32.add").set(outs[r])
            inc(f, p, 4)
            inc(f, q, 4)
        loop_while(f, lambda: f.get(q).get(e).emit("i32.lt_u"), tail)

    def rank_update(self, dst: int, src: int, count: int, facs: list, row_bytes: int, p: int, q: int,
                    e: int) -> None:
        """dst[c] -= sum_r facs[r] * src[c + r row_bytes / 4] over count f32s (len(facs) <= 8
        rows of src, row_bytes apart): one pass over dst for a rank-len(facs) update."""
        f, v = self.f, self.v
        for r, fac in enumerate(facs):
            f.get(fac).emit("f32x4.splat").set(v[r])
        f.get(dst).set(p)
        f.get(src).set(q)
        f.get(dst).get(count).i32(2).emit("i32.shl").emit("i32.add").set(e)

        def wide():
            f.get(p).mem("v128.load", 0, 2).set(self.y)
            for r in range(len(facs)):
                if self.fma:
                    f.get(v[r]).get(q).mem("v128.load", r * row_bytes, 2).get(self.y)
                    f.emit("f32x4.relaxed_nmadd").set(self.y)
                else:
                    f.get(self.y).get(v[r]).get(q).mem("v128.load", r * row_bytes, 2).emit("f32x4.mul")
                    f.emit("f32x4.sub").set(self.y)
            f.get(p).get(self.y).mem("v128.store", 0, 2)
            inc(f, p, 16)
            inc(f, q, 16)
        loop_while(f, lambda: f.get(p).i32(16).emit("i32.add").get(e).emit("i32.le_u"), wide)

        def one():
            f.get(p)
            f.get(p).mem("f32.load", 0, 2)
            for r, fac in enumerate(facs):
                f.get(fac).get(q).mem("f32.load", r * row_bytes, 2).emit("f32.mul").emit("f32.sub")
            f.mem("f32.store", 0, 2)
            inc(f, p, 4)
            inc(f, q, 4)
        loop_while(f, lambda: f.get(p).get(e).emit("i32.lt_u"), one)

    def rows_op(self, dst: int, src: int, count: int, scal: int, op: str, p: int, q: int, e: int) -> None:
        """For count f32s at dst.. (and src..): op "axpy" dst -= scal * src, "div" dst /= scal,
        "swap" dst <-> src; f32x4 lanes, then one at a time."""
        f, v = self.f, self.v
        f.get(dst).set(p)
        f.get(src).set(q)
        f.get(dst).get(count).i32(2).emit("i32.shl").emit("i32.add").set(e)
        if op != "swap":
            f.get(scal).emit("f32x4.splat").set(v[3])

        def vec():
            if op == "axpy":
                f.get(p).get(p).mem("v128.load", 0, 2).get(v[3]).get(q).mem("v128.load", 0, 2)
                f.emit("f32x4.mul").emit("f32x4.sub").mem("v128.store", 0, 2)
            elif op == "div":
                f.get(p).get(p).mem("v128.load", 0, 2).get(v[3]).emit("f32x4.div").mem("v128.store", 0, 2)
            else:
                f.get(p).mem("v128.load", 0, 2).set(v[0])
                f.get(p).get(q).mem("v128.load", 0, 2).mem("v128.store", 0, 2)
                f.get(q).get(v[0]).mem("v128.store", 0, 2)
            inc(f, p, 16)
            inc(f, q, 16)
        loop_while(f, lambda: f.get(p).i32(16).emit("i32.add").get(e).emit("i32.le_u"), vec)

        def one():
            if op == "axpy":
                f.get(p).get(p).mem("f32.load", 0, 2).get(scal).get(q).mem("f32.load", 0, 2)
                f.emit("f32.mul").emit("f32.sub").mem("f32.store", 0, 2)
            elif op == "div":
                f.get(p).get(p).mem("f32.load", 0, 2).get(scal).emit("f32.div").mem("f32.store", 0, 2)
            else:
                f.get(p).mem("i32.load", 0, 2).set(self.tmp)
                f.get(p).get(q).mem("i32.load", 0, 2).mem("i32.store", 0, 2)
                f.get(q).get(self.tmp).mem("i32.store", 0, 2)
            inc(f, p, 4)
            inc(f, q, 4)
        loop_while(f, lambda: f.get(p).get(e).emit("i32.lt_u"), one)

    def batch(self, bases: list[tuple[int, int, int]], body) -> None:
        """for b in [start, end): local = param + b * bytes for each (local, param, bytes); body()."""
        f = self.f
        b = self.i32()

        def each():
            for local, param, nbytes in bases:
                f.get(param).get(b).i32(nbytes).emit("i32.mul").emit("i32.add").set(local)
            body()
        self.loop(b, lambda: f.get(0), lambda: f.get(1), each)

    def build(self) -> bytes:
        return module(self.f, self.features)


def build(routine: str, spec, features: frozenset) -> bytes:
    return _BUILDERS[routine](spec, features)


def _const(f: Func, v: int):
    return lambda: f.i32(v)


def _get(f: Func, i: int):
    return lambda: f.get(i)


def _cholesky(s: CholeskySpec, features: frozenset) -> bytes:
    """Rows in blocks of 4: their entries left of the block from 4-row dot products (each
    earlier row read once for the four), then each row's entries in the block one by one."""
    a = _Asm(4, features)
    f, n = a.f, s.n
    pl, pa, i, j, pi, pj, p, q, e, ok, ib, par = (a.i32() for _ in range(12))
    dot, d = a.f32(), a.f32()
    sums = [a.f32() for _ in range(4)]

    def entry(jl):  # push &L[i, j] and A[i, j] - L[i, :j]·L[j, :j] (j: the local jl)
        a.dot(pi, pj, jl, dot, p, q, e)
        f.get(pi).get(jl).i32(2).emit("i32.shl").emit("i32.add")
        f.get(pa).get(i).i32(n).emit("i32.mul").get(jl)
        f.emit("i32.add").i32(2).emit("i32.shl").emit("i32.add").mem("f32.load", 0, 2)
        f.get(dot).emit("f32.sub")

    def column():
        a.ptr(pj, pl, lambda: f.get(j), 4 * n)
        entry(j)
        f.get(pj).get(j).i32(2).emit("i32.shl").emit("i32.add").mem("f32.load", 0, 2).emit("f32.div")
        f.mem("f32.store", 0, 2)

    def zero():
        f.get(pi).get(j).i32(2).emit("i32.shl").emit("i32.add").f32(0.0).mem("f32.store", 0, 2)

    def row(jstart):  # row i from column jstart on (the columns before it are done)
        a.ptr(pi, pl, lambda: f.get(i), 4 * n)
        a.loop(j, jstart, _get(f, i), column)
        f.get(pi).set(pj)
        entry(i)
        f.emit("f32.sqrt").mem("f32.store", 0, 2)
        a.loop(j, lambda: f.get(i).i32(1).emit("i32.add"), _const(f, n), zero)

    def block_column():  # L[i0 + r, j] for the block's 4 rows, j < i0
        a.ptr(pj, pl, lambda: f.get(j), 4 * n)
        a.dot4(pi, pj, j, sums, 4 * n, p, q, e)
        f.get(pj).get(j).i32(2).emit("i32.shl").emit("i32.add").mem("f32.load", 0, 2).set(d)
        f.get(j).i32(2).emit("i32.shl").set(q)
        for r in range(4):
            f.get(pi).get(q).emit("i32.add")
            f.get(par).get(q).emit("i32.add").mem("f32.load", r * 4 * n, 2).get(sums[r]).emit("f32.sub")
            f.get(d).emit("f32.div").mem("f32.store", r * 4 * n, 2)

    def block():  # rows i0 = 4 ib .. i0 + 3
        f.get(ib).i32(2).emit("i32.shl").set(i)
        a.ptr(pi, pl, lambda: f.get(i), 4 * n)
        a.ptr(par, pa, lambda: f.get(i), 4 * n)
        a.loop(j, _const(f, 0), _get(f, i), block_column)
        f.get(ib).i32(2).emit("i32.shl").set(ok)  # the block's first row: where its rows go on
        for r in range(4):
            f.get(ok).i32(r).emit("i32.add").set(i)
            row(lambda: f.get(ok))

    def check():  # ok &= (d - d == 0): the diagonal is finite
        f.get(pl).get(i).i32(4 * (n + 1)).emit("i32.mul").emit("i32.add").mem("f32.load", 0, 2).set(d)
        f.get(ok).get(d).get(d).emit("f32.sub").f32(0.0).emit("f32.eq").emit("i32.and").set(ok)

    def nan_row():
        a.ptr(pi, pl, lambda: f.get(i), 4 * n)
        a.loop(j, _const(f, 0), lambda: f.get(i).i32(1).emit("i32.add"),
               lambda: f.get(pi).get(j).i32(2).emit("i32.shl").emit("i32.add").f32_bits(0x7FC00000)
               .mem("f32.store", 0, 2))

    def matrix():
        a.loop(ib, _const(f, 0), _const(f, n // 4), block)
        a.loop(i, _const(f, n // 4 * 4), _const(f, n), lambda: row(_const(f, 0)))
        f.i32(1).set(ok)
        a.loop(i, _const(f, 0), _const(f, n), check)
        f.get(ok).emit("i32.eqz").if_()
        a.loop(i, _const(f, 0), _const(f, n), nan_row)
        f.end()
    a.batch([(pl, 2, 4 * n * n), (pa, 3, 4 * n * n)], matrix)
    return a.build()


PANEL = 8  # columns per LU panel: the trailing rows get one rank-8 update per panel


def _lu(s: LuSpec, features: frozenset) -> bytes:
    """Panels of PANEL columns: each column's pivot search, whole-row swap and scaling,
    with the updates kept inside the panel; then the panel's U rows to the right
    (U12 = L11⁻¹ A12) and one rank-PANEL update of every trailing row (A22 -= L21 U12),
    so the trailing matrix streams through memory once per panel, not once per column."""
    a = _Asm(6, features)
    f, m, n = a.f, s.m, s.n
    k = min(m, n)
    plu, ppiv, pperm, pa, i, j, j0, piv, pj, pd, pi, p, q, e, cnt, t = (a.i32() for _ in range(16))
    best, v, pivot, fac = (a.f32() for _ in range(4))
    facs = [a.f32() for _ in range(PANEL)]

    def at(row, col):  # push &LU[row, col]
        f.get(plu)
        row()
        f.i32(n).emit("i32.mul")
        col()
        f.emit("i32.add").i32(2).emit("i32.shl").emit("i32.add")

    def search():
        at(lambda: f.get(i), lambda: f.get(j))
        f.mem("f32.load", 0, 2).emit("f32.abs").set(v)
        f.get(v).get(best).emit("f32.gt")
        f.get(v).get(v).emit("f32.ne").get(best).get(best).emit("f32.eq").emit("i32.and").emit("i32.or")
        f.if_()
        f.get(i).set(piv)
        f.get(v).set(best)
        f.end()

    def eliminate(later: int):  # row i > j: its factor, and the panel's `later` columns after j
        at(lambda: f.get(i), lambda: f.get(j))
        f.set(t)
        f.get(t).mem("f32.load", 0, 2).set(fac)
        f.get(pivot).f32(0.0).emit("f32.ne").if_()
        f.get(fac).get(pivot).emit("f32.div").set(fac)
        f.get(t).get(fac).mem("f32.store", 0, 2)
        f.end()
        for c in range(1, later + 1):
            f.get(t).get(t).mem("f32.load", 4 * c, 2).get(fac).get(pd).mem("f32.load", 4 * c, 2)
            f.emit("f32.mul").emit("f32.sub").mem("f32.store", 4 * c, 2)

    def column(r: int, width: int):  # column j = j0 + r of a panel of `width` columns
        f.get(j0).i32(r).emit("i32.add").set(j)
        a.ptr(pj, plu, lambda: f.get(j), 4 * n)
        f.get(j).set(piv)
        at(lambda: f.get(j), lambda: f.get(j))
        f.mem("f32.load", 0, 2).emit("f32.abs").set(best)
        a.loop(i, lambda: f.get(j).i32(1).emit("i32.add"), _const(f, m), search)
        f.get(ppiv).get(j).i32(2).emit("i32.shl").emit("i32.add").get(piv).mem("i32.store", 0, 2)
        f.get(piv).get(j).emit("i32.ne").if_()
        a.ptr(pi, plu, lambda: f.get(piv), 4 * n)
        f.i32(n).set(cnt)
        a.rows_op(pj, pi, cnt, fac, "swap", p, q, e)
        a.ptr(pi, pperm, lambda: f.get(j))
        a.ptr(t, pperm, lambda: f.get(piv))
        f.i32(1).set(cnt)
        a.rows_op(pi, t, cnt, fac, "swap", p, q, e)
        f.end()
        at(lambda: f.get(j), lambda: f.get(j))
        f.set(pd)
        f.get(pd).mem("f32.load", 0, 2).set(pivot)
        a.loop(i, lambda: f.get(j).i32(1).emit("i32.add"), _const(f, m), lambda: eliminate(width - 1 - r))

    def right_of(row):  # push &LU[row, j0 + width]: set by `panel` as t's offset
        at(row, lambda: f.get(j0).get(cnt).emit("i32.add"))

    def panel(width: int):
        for r in range(width):
            column(r, width)
        f.i32(width).set(cnt)  # column offset of the right part (right_of)
        right_of(lambda: f.get(j0))
        f.set(pd)  # &U[j0, j0 + width]
        f.i32(n - width).get(j0).emit("i32.sub").set(cnt)  # the right part's width
        for r in range(1, width):  # U12 rows: row j0 + r -= L[j0 + r, j0 + q] * row j0 + q
            f.get(pd).i32(4 * n * r).emit("i32.add").set(pi)
            for qq in range(r):
                at(lambda: f.get(j0).i32(r).emit("i32.add"), lambda: f.get(j0).i32(qq).emit("i32.add"))
                f.mem("f32.load", 0, 2).set(fac)
                f.get(pd).i32(4 * n * qq).emit("i32.add").set(t)
                a.rows_op(pi, t, cnt, fac, "axpy", p, q, e)

        def trailing():  # row i -= L[i, j0:j0 + width] U12
            at(lambda: f.get(i), lambda: f.get(j0))
            f.set(t)
            for r in range(width):
                f.get(t).mem("f32.load", 4 * r, 2).set(facs[r])
            f.get(t).i32(4 * width).emit("i32.add").set(pi)
            a.rank_update(pi, pd, cnt, facs[:width], 4 * n, p, q, e)
        a.loop(i, lambda: f.get(j0).i32(width).emit("i32.add"), _const(f, m), trailing)

    def matrix():
        f.get(plu).get(pa).i32(4 * m * n).emit("memory.copy")
        a.loop(i, _const(f, 0), _const(f, m),
               lambda: f.get(pperm).get(i).i32(2).emit("i32.shl").emit("i32.add").get(i).mem("i32.store", 0, 2))
        f.i32(0).set(j0)
        loop_while(f, lambda: f.get(j0).i32(PANEL).emit("i32.add").i32(k).emit("i32.le_s"),
                   lambda: (panel(PANEL), inc(f, j0, PANEL)))
        if k % PANEL:
            panel(k % PANEL)
    a.batch([(plu, 2, 4 * m * n), (ppiv, 3, 4 * k), (pperm, 4, 4 * m), (pa, 5, 4 * m * n)], matrix)
    return a.build()


def _trsm(s: TrsmSpec, features: frozenset) -> bytes:
    """Each row of Y takes the solved rows 8 at a time (one rank-8 update), then the rest."""
    a = _Asm(5, features)
    f, m, k = a.f, s.m, s.k
    px, pt, pb, ii, jj, i, j, xi, xj, p, q, e, cnt = (a.i32() for _ in range(13))
    t = a.f32()
    facs = [a.f32() for _ in range(8)]

    def order(dst, src, last: int = 0):  # dst = src (lower: forward) or m - 1 - last - src (backward)
        f.get(src) if s.lower else f.i32(m - 1 - last).get(src).emit("i32.sub")
        f.set(dst)

    def tval(ix, jx, off: int = 0):  # push T[ix, jx + off]
        f.get(pt).get(ix).i32(s.a_si).emit("i32.mul").get(jx).i32(s.a_sj).emit("i32.mul").emit("i32.add")
        f.i32(2).emit("i32.shl").emit("i32.add").mem("f32.load", 4 * off * s.a_sj, 2)

    def update8():  # Y[i] -= T[i, j..j + 7] Y[j..j + 7], rows j.. the 8 solved ones from jj on
        order(j, jj, 7)
        for r in range(8):
            tval(i, j, r)
            f.set(facs[r])
        a.ptr(xj, px, lambda: f.get(j), 4 * k)
        a.rank_update(xi, xj, cnt, facs, 4 * k, p, q, e)
        inc(f, jj, 8)

    def update():
        order(j, jj)
        tval(i, j)
        f.set(t)
        a.ptr(xj, px, lambda: f.get(j), 4 * k)
        a.rows_op(xi, xj, cnt, t, "axpy", p, q, e)
        inc(f, jj, 1)

    def solve_row():
        order(i, ii)
        a.ptr(xi, px, lambda: f.get(i), 4 * k)
        f.i32(0).set(jj)
        loop_while(f, lambda: f.get(jj).i32(8).emit("i32.add").get(ii).emit("i32.le_s"), update8)
        loop_while(f, lambda: f.get(jj).get(ii).emit("i32.lt_s"), update)
        if not s.unit:
            tval(i, i)
            f.set(t)
            a.rows_op(xi, xi, cnt, t, "div", p, q, e)

    def matrix():
        f.get(px).get(pb).i32(4 * m * k).emit("memory.copy")
        f.i32(k).set(cnt)
        a.loop(ii, _const(f, 0), _const(f, m), solve_row)
    a.batch([(px, 2, 4 * m * k), (pt, 3, 4 * m * m), (pb, 4, 4 * m * k)], matrix)
    return a.build()


_BUILDERS = {"cholesky_f32": _cholesky, "lu_f32": _lu, "trsm_f32": _trsm}
