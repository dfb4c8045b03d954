"""Half-precision storage formats, as Wasm integer code.

float16 and bfloat16 values live in f32 while computing and are rounded back to
their format after every op (the reference backend's semantics). Both
conversions are done with integer ops so they are exact and identical on every
engine: round-to-nearest-even, NaN stays NaN, overflow gives inf, float16
subnormals handled. float16 conversion is long enough to be a helper function
(`HELPERS`) that kernels call; bfloat16 is a few ops, inlined.
"""
from __future__ import annotations

from .assembler import Func


def f32_to_f16_func() -> Func:
    """(f32) -> i32: the float16 bit pattern nearest to the argument."""
    f = Func(["f32"], ["i32"])
    u, a, sign = f.local("i32"), f.local("i32"), f.local("i32")
    f.get(0).emit("i32.reinterpret_f32").tee(u)
    f.i32(0x7FFFFFFF).emit("i32.and").set(a)
    f.get(u).i32(16).emit("i32.shr_u").i32(0x8000).emit("i32.and").set(sign)
    # NaN
    f.get(a).i32(0x7F800000).emit("i32.gt_u").if_()
    f.get(sign).i32(0x7E00).emit("i32.or").emit("return")
    f.end()
    # overflow (|x| >= 65520 rounds to inf)
    f.get(a).i32(0x477FF000).emit("i32.ge_u").if_()
    f.get(sign).i32(0x7C00).emit("i32.or").emit("return")
    f.end()
    # normal float16: rebias exponent, round the 13 dropped mantissa bits to even
    f.get(a).i32(0x38800000).emit("i32.ge_u").if_()
    f.get(a).i32(0x38000000 - 0xFFF).emit("i32.sub")
    f.get(a).i32(13).emit("i32.shr_u").i32(1).emit("i32.and").emit("i32.add")
    f.i32(13).emit("i32.shr_u").get(sign).emit("i32.or").emit("return")
    f.end()
    # subnormal or zero: units of 2^-24, rounded to nearest even by the FPU (exact scaling)
    f.get(a).emit("f32.reinterpret_i32").f32(2.0 ** 24).emit("f32.mul").emit("f32.nearest")
    f.emit("i32.trunc_f32_u").get(sign).emit("i32.or")
    return f


def f16_to_f32_func() -> Func:
    """(i32 float16 bits) -> f32, exactly."""
    f = Func(["i32"], ["f32"])
    e, s = f.local("i32"), f.local("i32")
    f.get(0).i32(10).emit("i32.shr_u").i32(0x1F).emit("i32.and").set(e)
    f.get(0).i32(0x8000).emit("i32.and").i32(16).emit("i32.shl").set(s)
    f.get(e).emit("i32.eqz").if_()  # zero / subnormal
    f.get(0).i32(0x3FF).emit("i32.and").emit("f32.convert_i32_u").f32(2.0 ** -24).emit("f32.mul")
    f.emit("i32.reinterpret_f32").get(s).emit("i32.or").emit("f32.reinterpret_i32").emit("return")
    f.end()
    f.get(0).i32(0x7FFF).emit("i32.and").i32(13).emit("i32.shl").i32(0x38000000).emit("i32.add")
    f.get(e).i32(31).emit("i32.eq").if_("i32")  # inf / NaN: exponent all ones
    f.i32(0x38000000)
    f.else_().i32(0)
    f.end()
    f.emit("i32.add").get(s).emit("i32.or").emit("f32.reinterpret_i32")
    return f


HELPERS = {"f32_to_f16": (1, f32_to_f16_func), "f16_to_f32": (2, f16_to_f32_func)}
"""name -> (function index in every kernel module, builder). Index 0 is `run`."""


def emit_f32_to_bf16_bits(f: Func, tmp: int) -> None:
    """f32 on the stack -> bfloat16 bits (i32) on the stack; `tmp` is an i32 local."""
    f.emit("i32.reinterpret_f32").set(tmp)
    # NaN: keep it quiet; else round to nearest even on the 16 dropped bits
    f.get(tmp).i32(16).emit("i32.shr_u").i32(0x40).emit("i32.or")
    f.get(tmp).i32(0x7FFF).emit("i32.add").get(tmp).i32(16).emit("i32.shr_u").i32(1).emit("i32.and")
    f.emit("i32.add").i32(16).emit("i32.shr_u")
    f.get(tmp).i32(0x7FFFFFFF).emit("i32.and").i32(0x7F800000).emit("i32.gt_u")
    f.emit("select")


def emit_bf16_bits_to_f32(f: Func) -> None:
    f.i32(16).emit("i32.shl").emit("f32.reinterpret_i32")


def emit_round(f: Func, dtype_name: str, tmp: int) -> None:
    """Round the f32 on the stack to float16/bfloat16 (leaving an f32)."""
    if dtype_name == "bfloat16":
        emit_f32_to_bf16_bits(f, tmp)
        emit_bf16_bits_to_f32(f)
    elif dtype_name == "float16":
        f.call(HELPERS["f32_to_f16"][0]).call(HELPERS["f16_to_f32"][0])
