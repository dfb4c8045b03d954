"""Kernel IR ALU nodes -> shader expressions, once for both GPU languages (WGSL, GLSL ES 3.00).

The webgpu and webgl devices compute in the same 32-bit types (float, int, uint, bool: narrow
dtypes are stored packed in 32-bit words and widened to them) and follow the reference
backend's semantics the same way: integer x/0 = -1 (all ones unsigned), x%0 = x, shifts by >=
the width give 0 (or the sign), NaN-propagating max/min, round half away from zero,
saturating float->int casts with NaN -> 0, narrow integers re-normalized and float16/bfloat16
rounded after every op, NaN tested by its bits (shader compilers fold `x != x`). Only the
spelling differs, so the rules below are written once against a `Dialect`: a subclass names
the types and spells select, bit casts, literals and the few builtins the two languages name
differently (webgpu/wgsl.py, webgl/glsl.py). Per-language choices stay with the subclass:
its `unary()` adds or replaces rules, `quotient`/`int_rem` say how integer division is made
safe (WGSL defines INT_MIN / -1 and `%`; GLSL ES leaves both open).
"""
from __future__ import annotations

import struct

from ... import dtypes
from ...compiler import expr as E
from ...dtypes import DType

BITS = {"int8": 8, "uint8": 8, "int16": 16, "uint16": 16}
_SIGNED_OF = {"uint8": dtypes.int8, "uint16": dtypes.int16, "uint32": dtypes.int32}
_KIND = {"float32": "F", "float16": "F", "bfloat16": "F", "int32": "I", "int16": "I", "int8": "I",
         "uint32": "U", "uint16": "U", "uint8": "U", "bool": "bool"}


def f32(v: float) -> float:
    """`v` rounded to float32."""
    return struct.unpack("<f", struct.pack("<f", v))[0]


def f32_bits(v) -> int:
    """The float32 bit pattern of `v` (overflow -> +-inf)."""
    try:
        return struct.unpack("<I", struct.pack("<f", float(v)))[0]
    except OverflowError:
        return 0x7f800000 if v > 0 else 0xff800000


class Dialect:
    """One shading language: its names (class attributes) and spellings (methods), and the
    op tables built from them (`BINARY`, `UNARY`, `op_text`)."""

    device = ""  # the device's platform name, for messages
    lang = ""    # the language, for messages
    F = I = U = ""  # float, int and uint type names

    def __init__(self):
        self.TYPE = {n: (getattr(self, k) if k != "bool" else "bool") for n, k in _KIND.items()}
        self.BINARY = {
            "add": self._arith("+", "||"), "sub": self._arith("-", "!="), "mul": self._arith("*", "&&"),
            "div": self._div, "rem": self._rem, "max": self._minmax("max"), "min": self._minmax("min"),
            "and": self._bitwise("&", "&&"), "or": self._bitwise("|", "||"), "xor": self._bitwise("^", "!="),
            "shl": self._shl, "shr_logical": self._shr_logical, "shr_arith": self._shr_arith,
            "lt": self._cmp("<"), "le": self._cmp("<="), "gt": self._cmp(">"), "ge": self._cmp(">="),
            "eq": self._cmp("=="), "ne": self._cmp("!="),
            "pow": lambda a, b, dt: self.fix(f"pow_({a}, {b})", dt),
            "atan2": lambda a, b, dt: self.fix(f"atan2_({a}, {b})", dt),
        }
        m = self._math
        self.UNARY = {
            "neg": self._neg, "abs": self._abs, "sign": self._sign, "floor": self._builtin("floor"),
            "ceil": self._builtin("ceil"), "round": self._builtin("round_away"), "sqrt": self._builtin("sqrt"),
            "exp2": m("exp2({a})"), "asin": m("asin_({a})", True), "acos": m("acos_({a})"),
            "atan": m("atan_({a})", True), "sinh": m("sinh({a})", True), "cosh": m("cosh({a})"),
            "asinh": m("asinh({a})", True), "acosh": m("acosh({a})"), "atanh": m("atanh({a})", True),
            "cbrt": self._cbrt, "is_finite": lambda a, dt: f"is_fin({a})", "not": self._not,
            "population_count": self._popcount, "clz": self._clz, **self.unary(),
        }

    # ------------------------------------------------------------ the spellings (per language)
    def unary(self) -> dict:
        """The language's own unary rules (round_even, sin, cos, tan, ...), over the shared ones."""
        return {}

    def sel(self, c: str, t: str, f: str) -> str:
        """`c ? t : f`."""
        raise NotImplementedError

    def either(self, a: str, b: str) -> str:
        """`a || b` of two conditions without side effects."""
        return f"{a} || {b}"

    def both(self, a: str, b: str) -> str:
        """`a && b` of two conditions without side effects."""
        return f"{a} && {b}"

    def declare(self, v: str, t: str, text: str) -> str:
        """The statement making local `v` of type `t` the value of `text`."""
        raise NotImplementedError

    def as_type(self, t: str, x: str) -> str:
        """int <-> uint keeping the bits (t is self.I or self.U)."""
        raise NotImplementedError

    def float_bits(self, x: str) -> str:
        """A float's bits as a uint."""
        raise NotImplementedError

    def bits_float(self, u: str) -> str:
        """The float whose bits are uint `u`."""
        raise NotImplementedError

    def float_literal(self, bits: str) -> str:
        """The float with bits `bits` (a uint literal, maybe XORed with the runtime-0 `opq`)."""
        raise NotImplementedError

    def int_literal(self, v: int) -> str:
        raise NotImplementedError

    def keep(self, x: str) -> str:
        """A float32 result kept as written: neither contracted into an fma nor reassociated."""
        raise NotImplementedError

    def f16_bits(self, x: str) -> str:
        """A float16-rounded float's 16 bits (as a uint)."""
        raise NotImplementedError

    def f16_value(self, u: str) -> str:
        """The float of float16 bits `u`."""
        raise NotImplementedError

    def narrow(self, text: str, s: int) -> str:
        """A 32-bit int sign-extended from its low 32 - `s` bits."""
        raise NotImplementedError

    popcount = clz = ""  # the builtins' (or helpers') names

    def quotient(self, a: str, b: str, dt: DType) -> str:
        """a / b truncated, b == 0 made harmless (the caller selects for it)."""
        one = "1u" if self.TYPE[dt.name] == self.U else self.int_literal(1)
        zero = "0u" if self.TYPE[dt.name] == self.U else self.int_literal(0)
        return f"{a} / {self.sel(f'({b} == {zero})', one, b)}"

    def int_rem(self, a: str, b: str, dt: DType) -> str:
        """a % b truncated (C's), b == 0 made harmless (the caller selects for it)."""
        return f"{a} - {b} * ({self.quotient(a, b, dt)})"

    # ------------------------------------------------------------ types, constants, bits
    def check_dtype(self, dt: DType, what: str = "") -> None:
        if dt.name not in self.TYPE:
            raise TypeError(
                f"the {self.device} device has no {dt.name} ({self.lang} has no 64-bit or complex types){what}: use "
                f"the wasm device for {dt.name} (jaxweb.devices('wasm'), or jaxweb.default_device(...)), or 32-bit "
                f"dtypes")

    def ty(self, dt: DType) -> str:
        self.check_dtype(dt)
        return self.TYPE[dt.name]

    @staticmethod
    def width(dt: DType) -> int:
        return BITS.get(dt.name, 32)

    def _zero(self, dt: DType) -> str:
        return "0u" if self.TYPE[dt.name] == self.U else self.int_literal(0)

    def const_text(self, v, dt: DType, opaque: bool = False) -> str:
        """A literal that is exact in the shader (floats through their bits: no const-eval
        surprises). `opaque`: XORed with `opq` (a runtime 0 the compiler cannot see), so that
        no shader compiler folds float arithmetic on it (lavapipe folded `x / 0.0` to 0)."""
        t = self.ty(dt)
        if t == "bool":
            return "true" if v else "false"
        if t == self.U:
            return f"{int(v) & 0xffffffff}u"
        if t == self.I:
            return self.int_literal(int(v))
        bits = f"{f32_bits(v):#010x}u"
        return self.float_literal(f"{bits} ^ opq" if opaque else bits)

    def fix(self, text: str, dt: DType) -> str:
        """`text` (a 32-bit value) brought back into `dt`: wrap narrow ints, round f16/bf16."""
        n = dt.name
        if n == "bfloat16":
            return f"bf16r({text})"
        if n == "float16":
            return f"f16r({text})"
        if n in ("int8", "int16"):
            return self.narrow(text, 32 - BITS[n])
        if n in ("uint8", "uint16"):
            return f"(({text}) & {(1 << BITS[n]) - 1}u)"
        return text

    def bits_of(self, x: str, dt: DType) -> str:
        """The uint pattern of a value of `dt` (low `width` bits significant)."""
        n, t = dt.name, self.TYPE[dt.name]
        if n == "bfloat16":
            return f"({self.float_bits(x)} >> 16u)"
        if n == "float16":
            return self.f16_bits(x)
        if n == "float32":
            return self.float_bits(x)
        if t == "bool":
            return self.sel(x, "1u", "0u")
        if t == self.U:
            return x
        return f"({self.as_type(self.U, x)} & {(1 << self.width(dt)) - 1 if self.width(dt) < 32 else 0xffffffff:#x}u)"

    def from_bits(self, u: str, dt: DType) -> str:
        """The value of `dt` whose pattern is the low bits of uint `u` (already masked)."""
        n, t = dt.name, self.TYPE[dt.name]
        if n == "bfloat16":
            return self.bits_float(f"({u}) << 16u")
        if n == "float16":
            return self.f16_value(u)
        if n == "float32":
            return self.bits_float(u)
        if t == "bool":
            return f"(({u}) != 0u)"
        if t == self.U:
            return u
        if n == "int32":
            return self.as_type(self.I, u)
        s = 32 - BITS[n]
        return f"({self.as_type(self.I, f'({u}) << {s}u')} >> {s}u)"

    def part_text(self, word: str, shift: str, dt: DType) -> str:
        """The narrow `dt` (8 or 16 bits) `shift` bits up in uint expression `word`."""
        return self.from_bits(f"(({word} >> {shift}) & {(1 << 8 * dt.itemsize) - 1:#x}u)", dt)

    # ------------------------------------------------------------ binary rules
    def _arith(self, sym: str, bool_op: str):
        def rule(a, b, dt):
            if dt.kind == "b":
                return f"({a} {bool_op} {b})"
            if dt.name == "float32":  # rounded here, as written: no contraction, no reassociation
                return self.keep(f"{a} {sym} {b}")
            return self.fix(f"({a} {sym} {b})", dt)
        return rule

    def _div(self, a, b, dt):
        if dt.kind == "f":
            return self.fix(f"({a} / {b})", dt)
        ones = f"{(1 << self.width(dt)) - 1}u" if self.TYPE[dt.name] == self.U else self.int_literal(-1)
        return self.fix(self.sel(f"({b} == {self._zero(dt)})", ones, self.quotient(a, b, dt)), dt)

    def _rem(self, a, b, dt):
        if dt.kind == "f":  # C fmod as a - b trunc(a / b) in f32 (inexact when |a/b| is large); fmod(x, inf) = x
            r = f"copysign_({a} - {b} * trunc({a} / {b}), {a})"
            return self.fix(self.sel(self.both(self.both(f"!is_fin({b})", f"!is_nan({b})"), f"is_fin({a})"), a, r), dt)
        return self.fix(self.sel(f"({b} == {self._zero(dt)})", a, self.int_rem(a, b, dt)), dt)

    def _minmax(self, fn: str):
        def rule(a, b, dt):
            if dt.kind == "f":
                return self.sel(f"is_nan({a}) || is_nan({b})", f"{a} + {b}", f"{fn}({a}, {b})")
            if dt.kind == "b":
                return f"({a} {'||' if fn == 'max' else '&&'} {b})"
            return f"{fn}({a}, {b})"
        return rule

    @staticmethod
    def _bitwise(sym: str, bool_op: str):
        return lambda a, b, dt: f"({a} {bool_op if dt.kind == 'b' else sym} {b})"

    def _shl(self, a, b, dt):
        return self.fix(self.sel(f"{self.U}({b}) >= {self.width(dt)}u", self._zero(dt),
                                 f"{a} << ({self.U}({b}) & 31u)"), dt)

    def _shr_logical(self, a, b, dt):
        shifted = self.sel(f"{self.U}({b}) >= {self.width(dt)}u", "0u",
                           f"{self.bits_of(a, dt)} >> ({self.U}({b}) & 31u)")
        return shifted if self.TYPE[dt.name] == self.U else self.from_bits(shifted, dt)

    def _shr_arith(self, a, b, dt):
        signed = a if self.TYPE[dt.name] == self.I else self.from_bits(self.bits_of(a, dt), _SIGNED_OF[dt.name])
        r = f"({signed} >> min({self.U}({b}), {self.width(dt) - 1}u))"
        return r if self.TYPE[dt.name] == self.I else self.fix(self.as_type(self.U, r), dt)

    def _cmp(self, sym: str):
        def rule(a, b, dt):
            if dt.kind == "b" and sym not in ("==", "!="):
                return f"({self.sel(a, '1u', '0u')} {sym} {self.sel(b, '1u', '0u')})"
            if dt.kind != "f":
                return f"({a} {sym} {b})"
            nan = f"(is_nan({a}) || is_nan({b}))"
            return f"(({a} != {b}) || {nan})" if sym == "!=" else f"(({a} {sym} {b}) && !{nan})"
        return rule

    # ------------------------------------------------------------ unary rules
    def _builtin(self, fn: str):
        return lambda a, dt: self.fix(f"{fn}({a})", dt)

    def _math(self, fn: str, odd: bool = False):
        """A math builtin (or helper) made to return NaN for NaN (and keep -0 where f(-0) = -0)."""
        def rule(a, dt):
            keep = self.either(f"is_nan({a})", f"{a} == 0.0") if odd else f"is_nan({a})"
            return self.fix(self.sel(keep, a, fn.format(a=a)), dt)
        return rule

    def _neg(self, a, dt):
        if dt.kind == "f":
            return f"(-{a})"
        return self.fix(f"({self._zero(dt)} - {a})", dt)

    def _abs(self, a, dt):
        return a if self.TYPE[dt.name] == self.U else self.fix(f"abs({a})", dt)

    def _sign(self, a, dt):
        if dt.kind == "f":
            return self.sel(self.either(f"is_nan({a})", f"{a} == 0.0"), a, f"sign({a})")
        return self.sel(f"{a} != 0u", "1u", "0u") if self.TYPE[dt.name] == self.U else f"sign({a})"

    def _not(self, a, dt):
        return f"(!{a})" if dt.kind == "b" else self.fix(f"(~{a})", dt)

    def _popcount(self, a, dt):
        return f"{self.TYPE[dt.name]}({self.popcount}({self.bits_of(a, dt)}))"

    def _clz(self, a, dt):
        return f"{self.TYPE[dt.name]}({self.clz}({self.bits_of(a, dt)}) - {32 - self.width(dt)}u)"

    def _cbrt(self, a, dt):
        return self.fix(self.sel(self.either(f"{a} == 0.0", f"!is_fin({a})"), a,
                                 f"sign({a}) * pow(abs({a}), 1.0 / 3.0)"), dt)

    # ------------------------------------------------------------ casts, op_text
    def _cast(self, x: str, src: DType, dst: DType) -> str:
        s, d = self.TYPE[src.name], self.TYPE[dst.name]
        c0 = self.const_text(0, src)
        if d == "bool":
            return f"({self.either(f'({x} != {c0})', f'is_nan({x})')})" if s == self.F else f"({x} != {c0})"
        if s == "bool":
            return self.sel(x, self.const_text(1, dst), self.const_text(0, dst))
        if d == self.F:
            return self.fix(x if s == self.F else f"{self.F}({x})", dst)
        if s == self.F:  # saturating, NaN -> 0
            lo, hi = dtypes.iinfo(dst).min, dtypes.iinfo(dst).max
            hi_f = float(hi) if hi < (1 << 24) else f32(hi)
            v = f"{d}(clamp({x}, {self.const_text(lo, src)}, {self.const_text(hi_f, src)}))"
            if hi_f > hi:  # 2**31 and 2**32 are not below the maximum: clamp under them, then saturate
                below = struct.unpack("<f", struct.pack("<I", f32_bits(hi_f) - 1))[0]
                v = self.sel(f"{x} >= {self.const_text(hi_f, src)}", self.const_text(hi, dst),
                             f"{d}(clamp({x}, {self.const_text(lo, src)}, {self.const_text(below, src)}))")
            return self.sel(f"is_nan({x})", self.const_text(0, dst), v)
        if s == d:
            return self.fix(x, dst)
        return self.fix(self.as_type(d, x), dst)  # int <-> uint: two's complement, then narrowed

    def _bitcast(self, x: str, src: DType, dst: DType) -> str:
        if src.itemsize != dst.itemsize:
            raise NotImplementedError(f"{self.device} codegen: bitcast {src.name} -> {dst.name}")
        return self.from_bits(self.bits_of(x, src), dst)

    def op_text(self, n: E.Expr, a: list[str]) -> str:
        """The expression for ALU node `n` over operand texts `a` (loads, indices, reduces are
        the caller's)."""
        op = n.op
        if op == "where":
            return self.sel(a[0], a[1], a[2])
        if op == "cast":
            return self._cast(a[0], n.src[0].dtype, n.dtype)
        if op == "bitcast":
            return self._bitcast(a[0], n.src[0].dtype, n.dtype)
        if op in self.BINARY:
            return self.BINARY[op](a[0], a[1], n.src[0].dtype)
        rule = self.UNARY.get(op)
        if rule is None:
            raise NotImplementedError(f"{self.device} codegen: op {op} on {n.dtype.name}")
        return rule(a[0], n.dtype)
