"""Value conversions (`cast`) and bit reinterpretations (`bitcast`) as Wasm code.

Float -> int casts saturate with NaN -> 0 (Wasm's `trunc_sat`, then a clamp for
narrow types); int -> int wraps (re-normalization); casts into float16/bfloat16
round to nearest even. The value to convert is on the stack; so is the result.
"""
from __future__ import annotations

from ...dtypes import DType, int_range
from . import numerics as N
from .types import bits, signed, vt


def emit_cast(em, src: DType, dst: DType) -> None:
    f = em.f
    ts, td = vt(src), vt(dst)
    if dst.kind == "b":
        if src.kind == "b":
            return
        if src.kind == "f":
            em.const(0.0, src)
            f.emit(f"{ts}.ne")
        else:
            f.emit(f"{ts}.eqz").emit("i32.eqz")
        return
    if dst.kind in "iu":
        if src.kind == "f":
            _float_to_int(em, src, dst)
        elif ts == "i32" and td == "i64":
            f.emit("i64.extend_i32_s" if signed(src) else "i64.extend_i32_u")
        elif ts == "i64" and td == "i32":
            f.emit("i32.wrap_i64")
            em.normalize(dst)
        elif td == "i32":
            em.normalize(dst)
        return
    # dst is a float
    if src.kind in "iub":
        f.emit(f"{td}.convert_{ts}_{'s' if signed(src) else 'u'}")
    elif ts == "f32" and td == "f64":
        f.emit("f64.promote_f32")
    elif ts == "f64" and td == "f32":
        f.emit("f32.demote_f64")
    if dst.name in ("float16", "bfloat16") and src is not dst:
        em.fix(dst)


def _float_to_int(em, src: DType, dst: DType) -> None:
    f = em.f
    ts, td = vt(src), vt(dst)
    w = bits(dst)
    if w >= 32:
        f.emit(f"{td}.trunc_sat_{ts}_{'s' if signed(dst) else 'u'}")
        return
    lo, hi = int_range(dst)
    tmp = em.scratch("i32")
    f.emit(f"i32.trunc_sat_{ts}_s").set(tmp)
    # clamp to [lo, hi]
    f.i32(lo).get(tmp).get(tmp).i32(lo).emit("i32.lt_s").emit("select").set(tmp)
    f.i32(hi).get(tmp).get(tmp).i32(hi).emit("i32.gt_s").emit("select")


def emit_bitcast(em, src: DType, dst: DType) -> None:
    f = em.f
    ts, td = vt(src), vt(dst)
    if src.itemsize != dst.itemsize:
        raise NotImplementedError(f"bitcast {src.name} -> {dst.name}")
    if src.itemsize >= 4:
        if ts != td:
            f.emit({("i32", "f32"): "f32.reinterpret_i32", ("f32", "i32"): "i32.reinterpret_f32",
                    ("i64", "f64"): "f64.reinterpret_i64", ("f64", "i64"): "i64.reinterpret_f64"}[(ts, td)])
        return
    # 8/16-bit: go through the raw bit pattern (zero-extended i32)
    if src.name == "float16":
        f.call(N.HELPERS["f32_to_f16"][0])
    elif src.name == "bfloat16":
        f.emit("i32.reinterpret_f32").i32(16).emit("i32.shr_u")
    else:
        f.i32((1 << (8 * src.itemsize)) - 1).emit("i32.and")
    if dst.name == "float16":
        f.call(N.HELPERS["f16_to_f32"][0])
    elif dst.name == "bfloat16":
        N.emit_bf16_bits_to_f32(f)
    else:
        em.normalize(dst)
