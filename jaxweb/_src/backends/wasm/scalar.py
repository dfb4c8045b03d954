"""Scalar Wasm code for every primitive IR op and dtype.

`Emitter.compute(node)` leaves the node's value on the Wasm stack, reading its
operands from locals (or inline constants). Semantics match the reference
backend: integer ops wrap (narrow types re-normalized), trunc division with
x/0 = -1 (signed) or all ones (unsigned), x%0 = x and no traps on INT_MIN/-1,
saturating float->int casts (NaN -> 0), shifts by >= the width give 0 (or the
sign), NaN-propagating max/min, round half away from zero. Transcendental ops
never reach here: `mathlib` expands them into these primitives first.
"""
from __future__ import annotations

import math

from ...compiler import expr as E
from ...dtypes import DType, int_range
from .assembler import Func
from . import numerics as N
from .types import HALF, LOAD, NORMALIZE, bits, signed, vt

_ARITH = {"add": "add", "sub": "sub", "mul": "mul"}
_FLOAT_BIN = {"add": "add", "sub": "sub", "mul": "mul", "div": "div", "max": "max", "min": "min"}
_CMP_F = {"lt": "lt", "le": "le", "gt": "gt", "ge": "ge", "eq": "eq", "ne": "ne"}
_CMP_I = {"lt": "lt_{}", "le": "le_{}", "gt": "gt_{}", "ge": "ge_{}", "eq": "eq", "ne": "ne"}
_BITWISE = {"and": "and", "or": "or", "xor": "xor"}


class Emitter:
    """Pushes IR node values for one function; nodes computed earlier sit in locals."""

    def __init__(self, f: Func, in_base: int = 3):
        self.f = f
        self.in_base = in_base  # run(start, end, out0, .., in0, in1, ...): the first input's parameter
        self.local_of: dict[int, int] = {}
        self._scratch: dict[str, list[int]] = {}

    # ------------------------------------------------------------ operands
    def push(self, n: E.Expr) -> None:
        if n.op == "const":
            self.const(n.arg, n.dtype)
        else:
            self.f.get(self.local_of[id(n)])

    def const(self, v, dt: DType) -> None:
        t = vt(dt)
        if t == "i32":
            self.f.i32(int(v))
        elif t == "i64":
            self.f.i64(int(v))
        elif t == "f32":
            self._f32_const(float(v))
        else:
            self.f.f64(float(v))

    def _f32_const(self, v: float) -> None:
        if math.isnan(v) or math.isinf(v) or abs(v) <= 3.4028234663852886e38:
            try:
                self.f.f32(v)
                return
            except OverflowError:
                pass
        self.f.f32(math.copysign(math.inf, v))

    def scratch(self, t: str) -> int:
        """A temp local of type t; valid until the emitting rule returns."""
        return self.f.local(t)

    # ------------------------------------------------------------ helpers
    def normalize(self, dt: DType) -> None:
        for op in NORMALIZE.get(dt.name, ()):
            if isinstance(op, tuple):
                self.f.i32(op[1])
            else:
                self.f.emit(op)

    def fix(self, dt: DType) -> None:
        """Bring the computed value on the stack back into `dt`."""
        if dt.name in HALF:
            N.emit_round(self.f, dt.name, self.scratch("i32"))
        elif dt.kind in "iub":
            self.normalize(dt)

    # ------------------------------------------------------------ dispatch
    def compute(self, n: E.Expr) -> None:
        op = n.op
        if op in E.COMPARISONS:
            return self.compare(n)
        rule = getattr(self, "op_" + op, None)
        if rule is None:
            raise NotImplementedError(f"wasm codegen: op {op} on {n.dtype.name}")
        rule(n)

    # ------------------------------------------------------------ memory
    def op_load(self, n: E.Expr) -> None:
        f, dt = self.f, n.dtype
        index, valid = n.src[0], (n.src[1] if len(n.src) > 1 else None)
        f.get(self.in_base + n.arg)
        self.push(index)
        if vt(index.dtype) == "i64":
            f.emit("i32.wrap_i64")
        if valid is not None:  # invalid lanes read element 0: never out of bounds
            f.i32(0)
            self.push(valid)
            f.emit("select")
        if dt.itemsize > 1:
            f.i32(dt.itemsize.bit_length() - 1).emit("i32.shl")
        f.emit("i32.add").mem(LOAD[dt.name])
        self.from_storage(dt)
        if valid is not None:
            self.const(0, dt)
            self.push(valid)
            f.emit("select")

    def from_storage(self, dt: DType) -> None:
        if dt.name == "bfloat16":
            N.emit_bf16_bits_to_f32(self.f)
        elif dt.name == "float16":
            self.f.call(N.HELPERS["f16_to_f32"][0])

    def to_storage(self, dt: DType) -> None:
        if dt.name == "bfloat16":
            N.emit_f32_to_bf16_bits(self.f, self.scratch("i32"))
        elif dt.name == "float16":
            self.f.call(N.HELPERS["f32_to_f16"][0])

    # ------------------------------------------------------------ select
    def op_where(self, n: E.Expr) -> None:
        c, a, b = n.src
        self.push(a)
        self.push(b)
        self.push(c)
        self.f.emit("select")

    # ------------------------------------------------------------ binary
    def _bin(self, n: E.Expr, opname: str) -> None:
        a, b = n.src
        self.push(a)
        self.push(b)
        self.f.emit(f"{vt(a.dtype)}.{opname}")

    def op_add(self, n): self._arith(n, "add")
    def op_sub(self, n): self._arith(n, "sub")
    def op_mul(self, n): self._arith(n, "mul")

    def _arith(self, n: E.Expr, op: str) -> None:
        dt = n.dtype
        if dt.kind == "b":  # numpy: bool + is or, bool * is and
            self._bin(n, {"add": "or", "mul": "and", "sub": "xor"}[op])
            return
        self._bin(n, op)
        self.fix(dt)

    def op_div(self, n: E.Expr) -> None:
        if n.dtype.kind == "f":
            self._bin(n, "div")
            self.fix(n.dtype)
        else:
            self._int_divrem(n, "div")

    def op_rem(self, n: E.Expr) -> None:
        if n.dtype.kind == "f":
            self._fmod(n)
        else:
            self._int_divrem(n, "rem")

    def _int_divrem(self, n: E.Expr, op: str) -> None:
        """Trapping cases replaced: b == 0 and (signed) MIN / -1 divide by 1 instead."""
        f, dt = self.f, n.dtype
        a, b = n.src
        t = vt(dt)
        sfx = "s" if signed(dt) else "u"
        bs, sb = self.scratch(t), self.scratch(t)
        self.const(1, dt)
        self.push(b)
        f.tee(bs).get(bs).emit(f"{t}.eqz")
        if signed(dt) and dt.itemsize >= 4:
            self.push(a)
            self.const(int_range(dt)[0], dt)
            f.emit(f"{t}.eq")
            f.get(bs)
            self.const(-1, dt)
            f.emit(f"{t}.eq").emit("i32.and").emit("i32.or")
        f.emit("select").set(sb)  # safe divisor
        self.push(a)
        f.get(sb).emit(f"{t}.{op}_{sfx}")
        if op == "div":  # x / 0
            self.const(-1 if signed(dt) else (1 << bits(dt)) - 1, dt)
        else:  # x % 0
            self.push(a)
        f.get(bs).emit(f"{t}.eqz").emit("i32.eqz").emit("select")
        self.fix(dt)

    def _fmod(self, n: E.Expr) -> None:
        """C fmod: a - trunc(a/b)*b in f64 plus one correction step each way; exact when
        |a/b| < 2**27 (b is split so the products are exact). Float32 operands with a larger
        ratio are first reduced exactly (`_fmod_reduce`); float64 ones stay approximate there."""
        f, dt = self.f, n.dtype
        a, b = n.src
        wide = vt(dt) == "f32"
        la, lb, r, ab = (self.scratch("f64") for _ in range(4))
        for src, loc in ((a, la), (b, lb)):
            self.push(src)
            if wide:
                f.emit("f64.promote_f32")
            f.set(loc)
        f.get(lb).emit("f64.abs").set(ab)
        if wide:
            self._fmod_reduce(la, ab)
        # r = a - n*b with b split in two 26-bit halves, so n*b_hi is exact (n < 2**27)
        nq, bh = self.scratch("f64"), self.scratch("f64")
        f.get(la).get(lb).emit("f64.div").emit("f64.trunc").set(nq)
        f.get(lb).emit("i64.reinterpret_f64").i64(-(1 << 27)).emit("i64.and").emit("f64.reinterpret_i64").set(bh)
        f.get(la).get(nq).get(bh).emit("f64.mul").emit("f64.sub")
        f.get(nq).get(lb).get(bh).emit("f64.sub").emit("f64.mul").emit("f64.sub").set(r)
        # |r| >= |b|: step toward zero
        f.get(r).get(ab).get(r).emit("f64.copysign").emit("f64.sub").get(r)
        f.get(r).emit("f64.abs").get(ab).emit("f64.ge").emit("select").set(r)
        # sign of r differs from sign of a (r nonzero): step toward a
        f.get(r).get(ab).get(la).emit("f64.copysign").emit("f64.add").get(r)
        f.get(r).f64(0.0).emit("f64.ne")
        f.get(r).f64(0.0).emit("f64.lt").get(la).f64(0.0).emit("f64.lt").emit("i32.ne").emit("i32.and")
        f.emit("select").get(la).emit("f64.copysign")
        # fmod(finite, +-inf) = a
        f.get(la).get(ab).f64(math.inf).emit("f64.eq").get(la).get(la).emit("f64.sub").f64(0.0).emit("f64.eq")
        f.emit("i32.and").emit("i32.eqz").emit("select")
        if wide:
            f.emit("f32.demote_f64")
        self.fix(dt)

    def _fmod_reduce(self, la: int, ab: int) -> None:
        """|a| reduced modulo |b| 2**k, k falling 26 bits a step, while |a| >= |b| 2**27 (at most
        11 steps for float32 operands): each quotient has < 2**28 values, so its product with
        the 24-bit |b| 2**k and the difference from the remainder are exact in f64; `la`
        keeps its sign. Skipped for infinite or NaN a and zero, infinite or NaN b."""
        f = self.f
        r, t, q = (self.scratch("f64") for _ in range(3))
        f.get(la).emit("f64.abs").set(r)
        f.block().loop()
        # continue while r is finite, r >= ab 2**27 (false for NaN) and ab is finite and nonzero
        f.get(r).f64(math.inf).emit("f64.lt").get(r).get(ab).f64(2.0 ** 27).emit("f64.mul").emit("f64.ge")
        f.emit("i32.and").get(ab).f64(0.0).emit("f64.gt").emit("i32.and")
        f.emit("i32.eqz").br_if(1)
        # t = ab * 2**(e(r) - e(ab) - 26), the power of two built from its exponent bits
        f.get(ab)
        f.get(r).emit("i64.reinterpret_f64").i64(52).emit("i64.shr_u")
        f.get(ab).emit("i64.reinterpret_f64").i64(52).emit("i64.shr_u").emit("i64.sub")
        f.i64(1023 - 26).emit("i64.add").i64(52).emit("i64.shl").emit("f64.reinterpret_i64")
        f.emit("f64.mul").set(t)
        f.get(r).get(r).get(t).emit("f64.div").emit("f64.trunc").tee(q).get(t).emit("f64.mul").emit("f64.sub").set(r)
        f.get(r).get(t).emit("f64.add").get(r).get(r).f64(0.0).emit("f64.lt").emit("select").set(r)
        f.get(r).get(t).emit("f64.sub").get(r).get(r).get(t).emit("f64.ge").emit("select").set(r)
        f.br(0)
        f.end().end()
        f.get(r).get(la).emit("f64.copysign").set(la)

    def op_max(self, n): self._minmax(n, "max")
    def op_min(self, n): self._minmax(n, "min")

    def _minmax(self, n: E.Expr, op: str) -> None:
        dt = n.dtype
        if dt.kind == "f":
            self._bin(n, op)
            return
        a, b = n.src
        t = vt(dt)
        self.push(a)
        self.push(b)
        self.push(a)
        self.push(b)
        sfx = "" if dt.kind == "b" else ("_s" if signed(dt) else "_u")
        self.f.emit(f"{t}.{'gt' if op == 'max' else 'lt'}{sfx or '_u'}").emit("select")

    def op_and(self, n): self._bin(n, "and")
    def op_or(self, n): self._bin(n, "or")
    def op_xor(self, n): self._bin(n, "xor")

    def op_shl(self, n): self._shift(n, "shl")
    def op_shr_logical(self, n): self._shift(n, "shr_logical")
    def op_shr_arith(self, n): self._shift(n, "shr_arith")

    def _shift(self, n: E.Expr, op: str) -> None:
        """Wasm masks shift amounts; we want amounts >= width (or < 0) to give 0 or the sign."""
        f, dt = self.f, n.dtype
        a, b = n.src
        t, w = vt(dt), bits(dt)
        if b.is_const and 0 <= b.arg < w:  # a constant amount in range: the plain instruction
            self.push(a)
            if op == "shr_arith" and dt.kind == "u" and w < 32:
                f.emit("i32.extend8_s" if w == 8 else "i32.extend16_s")
            if op == "shr_logical" and t == "i32" and w < 32:
                f.i32((1 << w) - 1).emit("i32.and")
            self.push(b)
            f.emit(f"{t}.{ {'shl': 'shl', 'shr_arith': 'shr_s', 'shr_logical': 'shr_u'}[op] }")
            self.fix(dt)
            return
        amount, big = self.scratch(t), self.scratch("i32")
        self.push(b)
        f.tee(amount)
        self.const(w, dt)
        f.emit(f"{t}.ge_u").set(big)  # unsigned compare: negative amounts are huge
        self.push(a)
        if op == "shr_arith":
            if dt.kind == "u" and w < 32:
                f.emit("i32.extend8_s" if w == 8 else "i32.extend16_s")
            self.const(w - 1, dt)
            f.get(amount).get(big).emit("select").emit(f"{t}.shr_s")
        else:
            if op == "shr_logical" and t == "i32" and w < 32:
                f.i32((1 << w) - 1).emit("i32.and")
            f.get(amount).emit(f"{t}.{'shl' if op == 'shl' else 'shr_u'}")
            self.const(0, dt)
            f.get(big).emit("i32.eqz").emit("select")
        self.fix(dt)

    def op_pow(self, n: E.Expr) -> None:  # float pow is expanded by mathlib; ints too
        raise NotImplementedError("pow must be expanded by mathlib")

    # ------------------------------------------------------------ comparisons
    def compare(self, n: E.Expr) -> None:
        a, b = n.src
        dt = a.dtype
        t = vt(dt)
        if dt.kind == "f":
            name = _CMP_F[n.op]
        else:
            name = _CMP_I[n.op].format("s" if signed(dt) else "u")
        self.push(a)
        self.push(b)
        self.f.emit(f"{t}.{name}")

    # ------------------------------------------------------------ unary
    def op_neg(self, n: E.Expr) -> None:
        dt, t = n.dtype, vt(n.dtype)
        if dt.kind == "f":
            self.push(n.src[0])
            self.f.emit(f"{t}.neg")
            return
        self.const(0, dt)
        self.push(n.src[0])
        self.f.emit(f"{t}.sub")
        self.fix(dt)

    def op_abs(self, n: E.Expr) -> None:
        dt, t, x = n.dtype, vt(n.dtype), n.src[0]
        if dt.kind == "f":
            self.push(x)
            self.f.emit(f"{t}.abs")
        elif dt.kind == "i":
            self.const(0, dt)
            self.push(x)
            self.f.emit(f"{t}.sub")
            self.fix(dt)
            self.push(x)
            self.push(x)
            self.const(0, dt)
            self.f.emit(f"{t}.lt_s").emit("select")
        else:
            self.push(x)

    def op_sign(self, n: E.Expr) -> None:
        dt, t, x, f = n.dtype, vt(n.dtype), n.src[0], self.f
        if dt.kind == "f":  # x>0: 1, x<0: -1, else x (keeps NaN and signed zero)
            self.const(1.0, dt)
            self.const(-1.0, dt)
            self.push(x)
            self.push(x)
            self.const(0.0, dt)
            f.emit(f"{t}.lt").emit("select")
            self.push(x)
            self.const(0.0, dt)
            f.emit(f"{t}.gt").emit("select")
            return
        if dt.kind == "u" or dt.kind == "b":
            self.push(x)
            self.const(0, dt)
            f.emit(f"{t}.ne")
            if t == "i64":
                f.emit("i64.extend_i32_u")
            return
        self.push(x)
        self.const(0, dt)
        f.emit(f"{t}.gt_s")
        self.push(x)
        self.const(0, dt)
        f.emit(f"{t}.lt_s").emit("i32.sub")
        if t == "i64":
            f.emit("i64.extend_i32_s")

    def _float_unary(self, n: E.Expr, op: str, fix: bool = False) -> None:
        x = n.src[0]
        self.push(x)
        if n.dtype.kind == "f":
            self.f.emit(f"{vt(n.dtype)}.{op}")
            if fix:
                self.fix(n.dtype)

    def op_floor(self, n): self._float_unary(n, "floor")
    def op_ceil(self, n): self._float_unary(n, "ceil")
    def op_round_even(self, n): self._float_unary(n, "nearest")
    def op_sqrt(self, n): self._float_unary(n, "sqrt", fix=True)

    def op_round(self, n: E.Expr) -> None:
        """Half away from zero: trunc(x) + copysign(1, x) where |x - trunc(x)| >= 0.5."""
        dt, x, f = n.dtype, n.src[0], self.f
        if dt.kind != "f":
            self.push(x)
            return
        t = vt(dt)
        tr = self.scratch(t)
        self.push(x)
        f.emit(f"{t}.trunc").tee(tr)
        self.const(1.0, dt)
        self.push(x)
        f.emit(f"{t}.copysign").emit(f"{t}.add")
        f.get(tr)
        self.push(x)
        f.get(tr).emit(f"{t}.sub").emit(f"{t}.abs")
        self.const(0.5, dt)
        f.emit(f"{t}.ge").emit("select")

    def op_is_finite(self, n: E.Expr) -> None:
        x, f = n.src[0], self.f
        if x.dtype.kind != "f":
            f.i32(1)
            return
        t = vt(x.dtype)
        self.push(x)
        self.push(x)
        f.emit(f"{t}.sub")
        self.const(0.0, x.dtype)
        f.emit(f"{t}.eq")

    def op_not(self, n: E.Expr) -> None:
        dt, x = n.dtype, n.src[0]
        self.push(x)
        if dt.kind == "b":
            self.f.i32(1).emit("i32.xor")
            return
        self.const(-1, dt)
        self.f.emit(f"{vt(dt)}.xor")
        self.fix(dt)

    def op_population_count(self, n: E.Expr) -> None:
        dt, x, t = n.dtype, n.src[0], vt(n.dtype)
        self.push(x)
        if t == "i32" and bits(dt) < 32:
            self.f.i32((1 << bits(dt)) - 1).emit("i32.and")
        self.f.emit(f"{t}.popcnt")

    def op_clz(self, n: E.Expr) -> None:
        dt, x, t = n.dtype, n.src[0], vt(n.dtype)
        self.push(x)
        w = bits(dt)
        if t == "i32" and w < 32:
            self.f.i32((1 << w) - 1).emit("i32.and").emit("i32.clz").i32(32 - w).emit("i32.sub")
        else:
            self.f.emit(f"{t}.clz")

    def op_real(self, n): self.push(n.src[0])
    def op_conj(self, n): self.push(n.src[0])

    def op_imag(self, n: E.Expr) -> None:
        self.const(0, n.dtype)

    # ------------------------------------------------------------ conversions
    def op_cast(self, n: E.Expr) -> None:
        from .casts import emit_cast
        self.push(n.src[0])
        emit_cast(self, n.src[0].dtype, n.dtype)

    def op_bitcast(self, n: E.Expr) -> None:
        from .casts import emit_bitcast
        self.push(n.src[0])
        emit_bitcast(self, n.src[0].dtype, n.dtype)
