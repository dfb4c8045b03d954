"""2-D convolutions on a backend's GEMM-family routines: recognizing them and staging.

conv_general_dilated lowers to one reduction kernel over output (n, co, ho, wo) and
reduced (ci, kh, kw): where(in-bounds, X(n, ci, ho + kh - p, wo + kw - p) * W[co, ci, kh, kw], 0),
where X may be any fused expression of the input (the previous layer's activation).
When the backend declares the routines (`GemmCaps.conv`):

- stride 1, no dilation (the X factor depends on (ho, kh) and (wo, kw) only through
  ho + kh and wo + kw, checked on sample points, boundaries included): `pad_kernel`
  evaluates the X factor at kh = kw = 0 over the padded grid (a zero-padded copy of X,
  an ordinary kernel) and the backend's "conv_f32" routine runs the implicit GEMM;
- any other 2-D conv (strides, dilations, odd padding) whose weights flatten to one
  stride (OIHW, say): im2col gathers the X factor straight into the packed-B layout of
  the GEMM routine (`gemm.py`), the weights being its A.

An epilogue (bias, activation) or an output computed wider than it is (widths are
rounded up to whole `nr`-column tiles) becomes a last ordinary kernel, as for GEMM.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from .. import dtypes
from . import expr as E
from .gemm import F32, GemmCaps, GemmSpec, Temp, affine, epilogue, remap_loads
from .kernel import Kernel, Routine, gidx


@dataclass(frozen=True)
class ConvSpec:
    """What the direct-conv routine reads: out (Nb, Co, Ho, Wo8) from W (in place, by
    strides) and the zero-padded input (Nb, Ci, Ho + KH - 1, Wo8 + KW - 1)."""

    shape: tuple          # (Nb, Co, Ho, Wo)
    rshape: tuple         # (Ci, KH, KW)
    w_off: int
    w_sco: int
    w_sci: int
    w_skh: int
    w_skw: int
    nr: int = 8

    @property
    def M(self) -> int:
        return self.shape[1]

    @property
    def wo8(self) -> int:
        """Output width rounded up to whole tiles: the row stride as computed."""
        return -(-self.shape[3] // self.nr) * self.nr

    @property
    def padded(self) -> tuple:
        nb, co, ho, wo = self.shape
        ci, kh, kw = self.rshape
        return (nb, ci, ho + kh - 1, self.wo8 + kw - 1)

    @property
    def work(self) -> int:
        n = 1
        for d in self.shape + self.rshape:
            n *= d
        return n

    @property
    def flops(self) -> int:
        return 2 * self.work


@dataclass
class _Factors:
    spec: ConvSpec
    w_slot: int
    xexpr: E.Expr  # the X factor (masked), an Expr over g0, r0, g2, r1, g3, r2


def _names(e: E.Expr) -> set:
    return {n.arg[0] for n in E.walk(e) if n.op == "idx"}


def _factor(kernel: Kernel, nr: int) -> _Factors | None:
    """W (an affine load) and the X factor of a 2-D conv-shaped kernel, or None."""
    if (kernel.reduce_op != "add" or len(kernel.shape) != 4 or len(kernel.reduce_shape) != 3
            or kernel.body.dtype is not F32):
        return None
    nb, co, ho, wo = kernel.shape
    ci, kh, kw = kernel.reduce_shape
    if co < 4 or ci * kh * kw < 8 or any(e.op == "reduce" for e in E.walk_all(kernel.outs + (kernel.body,))):
        return None
    body, cond = kernel.body, None
    if body.op == "where":
        cond, body, zero = body.src
        if not (zero.op == "const" and zero.arg == 0):
            return None
    if body.op != "mul":
        return None
    for lw, lx in (body.src, body.src[::-1]):
        if lw.op != "load" or len(lw.src) != 1 or lw.dtype is not F32:
            continue
        c = affine(lw.src[0])
        if c is None or set(c) - {"", "g1", "r0", "r1", "r2"} or any(v < 0 for v in c.values()):
            continue
        xexpr = lx if cond is None else E.where(cond, lx, E.const(0.0, lx.dtype))
        if "g1" in _names(xexpr):
            return None
        spec = ConvSpec(tuple(kernel.shape), tuple(kernel.reduce_shape), c.get("", 0), c.get("g1", 0),
                        c.get("r0", 0), c.get("r1", 0), c.get("r2", 0), nr)
        return _Factors(spec, lw.arg, xexpr)
    return None


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


# integer / boolean ops of index expressions, with the IR's semantics (truncating div / rem)
_OPS = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": _trunc_div, "rem": lambda a, b: a - b * _trunc_div(a, b), "max": max, "min": min,
    "lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
    "and": lambda a, b: a and b, "or": lambda a, b: a or b, "not": lambda a: not a,
    "neg": lambda a: -a,
}


class _Opaque(Exception):
    """The X factor does something the point evaluator does not model."""


def _at(xexpr: E.Expr, n, c, h, kh, w, kw):
    """The X factor at one point: 0.0 (masked), or a symbolic value (nested tuples of
    float ops over ("load", slot, index) leaves) comparable for equality."""
    env = {"g0": n, "r0": c, "g2": h, "r1": kh, "g3": w, "r2": kw}
    memo: dict = {}

    def ev(e):
        v = memo.get(id(e), memo)
        if v is not memo:
            return v
        op = e.op
        if op == "idx":
            v = env[e.arg[0]]
        elif op == "const":
            v = e.arg
        elif op == "where" and e.src[0].dtype.kind == "b" and e.src[0].op != "load":
            v = ev(e.src[1]) if ev(e.src[0]) else ev(e.src[2])
        elif op == "load":
            if e.src[0].dtype.kind == "f" or any(n.op == "load" for n in E.walk(e.src[0])):
                raise _Opaque(op)  # a gather (a load feeding an index): not modelled
            v = ("load", e.arg, ev(e.src[0])) if len(e.src) == 1 or ev(e.src[1]) else 0.0
        elif e.dtype.kind == "f" or (e.src and e.src[0].dtype.kind == "f"):
            v = (op, e.dtype.name, *(ev(x) for x in e.src))  # float ops: symbolic
        elif op in _OPS:
            v = _OPS[op](*(ev(x) for x in e.src))
        else:
            raise _Opaque(op)
        memo[id(e)] = v
        return v
    return ev(xexpr)


def _shift_invariant(f: _Factors) -> bool:
    nb, co, ho, wo = f.spec.shape
    ci, KH, KW = f.spec.rshape
    hs = sorted({0, 1, ho // 2, ho - 2, ho - 1} & set(range(ho)))
    ws = sorted({0, 1, 7, wo // 2, wo - 2, wo - 1} & set(range(wo)))
    for n in sorted({0, nb - 1}):
        for c in sorted({0, ci - 1}):
            for h in hs:
                for w in ws:
                    for kh in range(KH):
                        for kw in range(KW):
                            try:
                                a = _at(f.xexpr, n, c, h, kh, w, kw)
                                b = _at(f.xexpr, n, c, h + kh, 0, w + kw, 0)
                            except (_Opaque, TypeError, ZeroDivisionError):
                                return False
                            if a != b:
                                return False
    return True


def _stage(shape: tuple, expr: E.Expr, subst: dict[int, E.Expr], ins: Sequence[Any], name: str
           ) -> tuple[Kernel, list]:
    used = sorted({n.arg for n in E.walk(expr) if n.op == "load"})
    body = remap_loads(expr, {s: i for i, s in enumerate(used)}, subst)
    k_ins = [ins[s] for s in used]
    return Kernel(shape, body, None, tuple(v.dtype for v in k_ins), name=name), k_ins


def pad_kernel(f: _Factors, ins: Sequence[Any], name: str) -> tuple[Kernel, list]:
    """Xpad[n, ci, hp, wp] = the X factor at (ho, kh) = (hp, 0), (wo, kw) = (wp, 0);
    0 in the columns past Wo + KW - 1 that only rounding Wo up to wo8 adds."""
    spec = f.spec
    g = gidx(spec.padded)
    zero = E.const(0, g[0].dtype)
    wp_real = spec.shape[3] + spec.rshape[2] - 1
    wcol = g[3] if spec.wo8 == spec.shape[3] else E.binary("min", g[3], E.const(wp_real - 1, g[3].dtype))
    repl = {"g0": g[0], "r0": g[1], "g2": g[2], "r1": zero, "g3": wcol, "r2": zero}
    subst = {id(n): repl[n.arg[0]] for n in E.walk(f.xexpr) if n.op == "idx" and n.arg[0] in repl}
    k, k_ins = _stage(spec.padded, f.xexpr, subst, ins, f"{name}_pad")
    if spec.wo8 != spec.shape[3]:
        body = E.where(E.binary("lt", g[3], E.const(wp_real, g[3].dtype)), k.body, E.const(0.0, F32))
        k = Kernel(spec.padded, body, None, k.in_dtypes, name=k.name)
    return k, k_ins


def _im2col(f: _Factors, mm: GemmSpec, ins: Sequence[Any], name: str) -> tuple[Kernel, list]:
    """B'[(n,) strip, k, l] = X factor at n, (ci, kh, kw) = unravel(k), (ho, wo) = divmod(nr strip + l, Wo)."""
    nb, co, ho, wo = f.spec.shape
    ci, KH, KW = f.spec.rshape
    nr = mm.nr
    shape = (mm.N8 // nr, mm.K, nr) if nb == 1 else (nb, mm.N8 // nr, mm.K, nr)
    g = gidx(shape)
    i32 = g[0].dtype
    c = lambda v: E.const(v, i32)  # noqa: E731
    strip, k, lane = g[-3:]
    j = strip * nr + lane
    jc = j if mm.N8 == mm.N else E.binary("min", j, c(mm.N - 1))
    repl = {"g0": g[0] if nb > 1 else c(0), "g2": E.binary("div", jc, c(wo)), "g3": E.binary("rem", jc, c(wo)),
            "r0": E.binary("div", k, c(KH * KW)), "r1": E.binary("rem", E.binary("div", k, c(KW)), c(KH)),
            "r2": E.binary("rem", k, c(KW))}
    subst = {id(n): repl[n.arg[0]] for n in E.walk(f.xexpr) if n.op == "idx" and n.arg[0] in repl}
    kern, k_ins = _stage(shape, f.xexpr, subst, ins, f"{name}_im2col")
    if mm.N8 != mm.N:
        body = E.where(E.binary("lt", j, c(mm.N)), kern.body, E.const(0.0, F32))
        kern = Kernel(shape, body, None, kern.in_dtypes, name=kern.name)
    return kern, k_ins


def expand(kernel: Kernel, ins: Sequence[Any], outs: Sequence[Any], caps: GemmCaps) -> list | None:
    """The launches running conv kernel `kernel` on the routines, or None."""
    f = _factor(kernel, caps.nr)
    if f is None:
        return None
    sp = f.spec
    nb, co, ho, wo = sp.shape
    ci, KH, KW = sp.rshape
    if caps.conv and _shift_invariant(f):
        k, k_ins = pad_kernel(f, ins, kernel.name)
        routine = Routine("conv_f32", sp, (F32, F32), (F32,), sp.work, f"{kernel.name}_conv")
        stride, rows, width = sp.wo8, nb * co * ho, wo
    elif sp.w_skw > 0 and sp.w_skh == KW * sp.w_skw and sp.w_sci == KH * KW * sp.w_skw and sp.w_sco > 0:
        mm = GemmSpec(co, ho * wo, ci * KH * KW, sp.w_off, sp.w_sco, sp.w_skw, B=nb, nr=caps.nr)
        k, k_ins = _im2col(f, mm, ins, kernel.name)
        routine = Routine("gemm_f32", mm, (F32, F32), (F32,), nb * co * ho * wo, f"{kernel.name}_gemm")
        stride, rows, width = mm.N8, nb * co, ho * wo
    else:
        return None
    staged = Temp(k.size, F32)
    return [(k, [staged], k_ins)] + _finish(kernel, routine, [ins[f.w_slot], staged], ins, outs, stride, rows, width)


def _finish(kernel: Kernel, routine: Routine, operands: list, ins: Sequence[Any], outs: Sequence[Any],
            stride: int, rows: int, width: int) -> list:
    """The routine's launch, writing the output directly, or a temporary C `stride` wide that
    an epilogue kernel reads as the accumulator (C row r = the output's rows of `width`)."""
    if len(kernel.outs) == 1 and kernel.outs[0] is E.acc(F32) and stride == width:
        return [(routine, [outs[0]], operands)]
    c_val = Temp(rows * stride, F32)
    g = gidx(kernel.shape)
    flat = E.const(0, dtypes.int32)
    for i, n in zip(g, kernel.shape):
        flat = flat * n + i
    index = (flat // width) * stride + flat % width if stride != width else flat
    return [(routine, [c_val], operands), epilogue(kernel, c_val, index, ins, outs)]
