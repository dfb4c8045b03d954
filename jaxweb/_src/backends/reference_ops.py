"""numpy implementations of the IR's ALU ops, casts and reductions (reference backend).

Semantics follow XLA/JAX on CPU: integer arithmetic wraps, integer division
truncates toward zero (x / 0 is -1, or all ones unsigned; x % 0 is x), integer
pow with a negative exponent is 0 except for bases 1 and -1, float-to-int
conversion saturates (NaN gives 0), shifts by the bit width or more give 0 (or
the sign for arithmetic right shifts), max/min propagate NaN, sign and the odd
functions keep the sign of zero. Ops are tables of small functions, keyed by IR
op name.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .. import dtypes
from ..dtypes import DType
from ..hostdata import f32_to_bf16_bits

BF16 = dtypes.bfloat16


# ---------------------------------------------------------------- bfloat16 and storage
def bf16_bits_to_f32(b: np.ndarray) -> np.ndarray:
    return (np.asarray(b, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def round_bf16(x: np.ndarray) -> np.ndarray:
    return bf16_bits_to_f32(f32_to_bf16_bits(x))


def compute_dtype(dt: DType) -> Any:
    """The numpy dtype values of `dt` are held in while computing."""
    return np.dtype("float32") if dt is BF16 else np.dtype(dt.name)


def from_storage(arr: np.ndarray, dt: DType) -> np.ndarray:
    return bf16_bits_to_f32(arr) if dt is BF16 else arr


def to_storage(arr: np.ndarray, dt: DType) -> np.ndarray:
    if dt is BF16:
        return f32_to_bf16_bits(arr)
    return np.asarray(arr).astype(compute_dtype(dt), copy=False)


def fix(x: Any, dt: DType) -> Any:
    """Round a computed value to its dtype (bfloat16 values live in float32)."""
    x = np.asarray(x)
    if dt is BF16:
        return round_bf16(x.astype(np.float32))
    return x.astype(compute_dtype(dt), copy=False)


def scalar(v: Any, dt: DType) -> np.ndarray:
    if dt is BF16:
        return round_bf16(np.asarray(v, dtype=np.float32))
    return np.asarray(v, dtype=compute_dtype(dt))


# ---------------------------------------------------------------- casts
def cast(x: Any, src: DType, dst: DType) -> np.ndarray:
    x = np.asarray(x)
    if dst.kind == "b":
        return x != 0
    if src.kind == "f" and dst.kind in "iu":
        info = np.iinfo(compute_dtype(dst))
        xf = np.trunc(np.nan_to_num(x.astype(np.float64), nan=0.0))
        hi = xf >= float(info.max)  # float(max) may round up past max for 64-bit types
        out = np.clip(np.where(hi, 0.0, xf), info.min, info.max).astype(compute_dtype(dst))
        return np.where(hi, compute_dtype(dst).type(info.max), out)
    if dst is BF16:
        return round_bf16(x.astype(np.float32))
    if dst.kind in "iu" and src.kind in "iub":
        return x.astype(np.int64).astype(compute_dtype(dst))  # wraps
    return x.astype(compute_dtype(dst))


def bitcast(x: Any, src: DType, dst: DType) -> np.ndarray:
    x = np.asarray(x)
    if src is BF16:
        x = f32_to_bf16_bits(x)
    store = np.dtype("uint16") if dst is BF16 else compute_dtype(dst)
    out = np.ascontiguousarray(x).view(store) if x.ndim else x.reshape(1).view(store)[0]
    return bf16_bits_to_f32(out) if dst is BF16 else out


# ---------------------------------------------------------------- unary ops
def _round_half_away(x):
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t)


def _vectorize(fn: Callable[[float], float]) -> Callable:
    vf = np.vectorize(fn, otypes=[np.float64])
    return lambda x: vf(x.astype(np.float64)).astype(x.dtype) if x.size else x


def _erf_inv_scalar(y: float) -> float:
    """Newton's method on erf(x) - y, or on erfc(x) - (1 - |y|) for |y| > 1/2: 1 - |y| is
    exact there, while erf(x) - y loses all precision as |y| nears 1."""
    if not -1.0 <= y <= 1.0 or math.isnan(y):
        return math.nan
    if y in (-1.0, 1.0):
        return math.copysign(math.inf, y)
    if y == 0.0:
        return y  # keeps the sign of zero
    a, x = abs(y), 0.0
    tail = a > 0.5
    if tail:  # a start on the right side of the root: -log(1 - a) >= x^2 for erfc(x) < 1/2
        x = math.sqrt(-math.log(1.0 - a))
    for _ in range(100):
        slope = 2.0 / math.sqrt(math.pi) * math.exp(-x * x)
        step = -(math.erfc(x) - (1.0 - a)) / slope if tail else (math.erf(x) - a) / slope
        x -= step
        if abs(step) <= 1e-17 * abs(x):
            break
    return math.copysign(x, y)


def _lgamma_scalar(x: float) -> float:
    try:
        return math.lgamma(x)
    except (ValueError, OverflowError):  # poles; lgamma(x > 2.55e305) overflows
        return math.inf


def _digamma_scalar(x: float) -> float:
    if math.isnan(x) or x == -math.inf:
        return math.nan
    if x <= 0 and x == math.floor(x):
        return math.nan
    r = 0.0
    if x < 0:  # reflection; tan has period 1 in x, so reduce x first (pi * x would round)
        return _digamma_scalar(1 - x) - math.pi / math.tan(math.pi * (x - round(x)))
    while x < 12:  # then 8 terms of the asymptotic series are exact to double precision
        r -= 1 / x
        x += 1
    f = 1 / (x * x)
    tail = 1 / 132 - f * (691 / 32760 - f * (1 / 12 - f * 3617 / 8160))
    return r + math.log(x) - 0.5 / x - f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (1 / 240 - f * tail))))


def _popcount(x):
    u = x.view(np.dtype(f"u{x.dtype.itemsize}")).astype(np.uint64)
    c = np.zeros(u.shape, np.uint64)
    for _ in range(x.dtype.itemsize * 8):
        c += u & 1
        u >>= 1
    return c.astype(x.dtype)


def _clz(x):
    bits = x.dtype.itemsize * 8
    u = x.view(np.dtype(f"u{x.dtype.itemsize}")).astype(np.uint64)
    n = np.full(u.shape, bits, np.int64)
    for b in range(bits):
        n = np.where((u >> b) & 1 == 1, bits - 1 - b, n)
    return n.astype(x.dtype)


UNARY: dict[str, Callable] = {
    "neg": np.negative, "abs": np.abs, "sign": np.sign, "floor": np.floor, "ceil": np.ceil,
    "round": _round_half_away, "round_even": np.rint, "exp": np.exp, "exp2": np.exp2,
    "log": np.log, "log1p": np.log1p, "expm1": np.expm1, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x), "cbrt": np.cbrt, "sin": np.sin, "cos": np.cos,
    "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh,
    "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh,
    "atanh": np.arctanh, "erf": _vectorize(math.erf), "erfc": _vectorize(math.erfc),
    "erf_inv": _vectorize(_erf_inv_scalar), "lgamma": _vectorize(_lgamma_scalar),
    "digamma": _vectorize(_digamma_scalar),
    "logistic": lambda x: np.where(x >= 0, 1 / (1 + np.exp(-x)), np.exp(x) / (1 + np.exp(x))),
    "is_finite": np.isfinite, "not": np.invert, "population_count": _popcount, "clz": _clz,
    "real": lambda x: x, "conj": lambda x: x, "imag": np.zeros_like,
}


def unary(op: str, x: Any, dt: DType) -> np.ndarray:
    x = np.asarray(x)
    if op == "sign" and dt.kind == "u":
        return (x != 0).astype(x.dtype)
    if op == "sign" and dt.kind == "f":
        return fix(np.where(x == 0, x, np.sign(x)), dt)  # sign(-0.0) is -0.0
    if op == "abs" and dt.kind == "i":
        return np.abs(x)  # wraps at the minimum, like XLA
    out = UNARY[op](x)
    if op == "is_finite":
        return out
    return fix(out, dt)


# ---------------------------------------------------------------- binary ops
def _wide(dt: DType) -> Any:
    """The numpy type integer division is done in: wide enough, same signedness."""
    return np.uint64 if dt.kind == "u" else np.int64


def _div(a, b, dt: DType):
    """Truncating division; x / 0 is -1 (signed) or all ones (unsigned), as XLA."""
    if dt.kind == "f":
        return np.true_divide(a, b)
    w = _wide(dt)
    a64, b64 = a.astype(w), b.astype(w)
    zero = b64 == 0
    safe = np.where(zero, w(1), b64)
    if dt.kind == "u":
        q = a64 // safe
    else:
        q = np.abs(a64) // np.abs(safe)  # wraps at the minimum, like the hardware
        q = np.where((a64 < 0) != (safe < 0), -q, q)
    return np.where(zero, w(-1) if dt.kind == "i" else np.iinfo(compute_dtype(dt)).max, q)


def _rem(a, b, dt: DType):
    """Remainder with the dividend's sign (C fmod); x % 0 is x."""
    if dt.kind == "f":
        return np.fmod(a, b)
    w = _wide(dt)
    a64, b64 = a.astype(w), b.astype(w)
    safe = np.where(b64 == 0, w(1), b64)
    r = np.fmod(a64, safe) if dt.kind == "i" else a64 % safe
    return np.where(b64 == 0, a64, r)


def _shift(op: str, a, b, dt: DType):
    bits, ut = dt.itemsize * 8, np.dtype(f"u{dt.itemsize}")
    shape = np.broadcast(a, b).shape
    a = np.ascontiguousarray(np.broadcast_to(a, shape)).reshape(-1)
    b = np.broadcast_to(b, shape).reshape(-1).astype(np.int64)
    big = (b < 0) | (b >= bits)
    sb = np.where(big, 0, b).astype(np.uint64)
    u = a.astype(compute_dtype(dt)).view(ut).astype(np.uint64)
    mask = np.uint64((1 << bits) - 1)
    if op == "shl":
        r = np.where(big, 0, (u << sb) & mask)
    elif op == "shr_logical":
        r = np.where(big, 0, u >> sb)
    else:
        s = u.astype(ut).view(np.dtype(f"i{dt.itemsize}")).astype(np.int64) >> np.where(big, bits - 1, b)
        r = s.astype(np.uint64) & mask
    return r.astype(np.uint64).astype(ut).view(compute_dtype(dt)).reshape(shape)


def _pow(a, b, dt: DType):
    """Float pow, or XLA's integer pow: wraps; negative powers give 0 except for bases 1, -1."""
    if dt.kind not in "iu":
        return np.power(a, b)
    w = _wide(dt)
    a64, b64 = a.astype(w), b.astype(w)
    if dt.kind == "u":
        return np.power(a64, b64)
    neg = b64 < 0
    out = np.power(a64, np.where(neg, 0, b64))
    odd = (b64 % 2) != 0
    at_neg = np.where(a64 == 1, 1, np.where(a64 == -1, np.where(odd, -1, 1), 0))
    return np.where(neg, at_neg, out)


def _nextafter(a, b, dt: DType):
    """The next representable value after a toward b, stepping the 16-bit patterns of
    float16/bfloat16 directly (a float32 detour would step by a float32 ulp)."""
    if dt is BF16 or dt.name == "float16":
        bits_dt = np.uint16
        x = f32_to_bf16_bits(a) if dt is BF16 else np.asarray(a, np.float16).view(np.uint16)
        y = np.asarray(b, np.float32)
        xa = np.asarray(a, np.float32)
        sign = x & 0x8000
        step_up = (y > xa) == (sign == 0)
        mag = x & 0x7FFF
        nxt = np.where(mag == 0, np.where(y > xa, 1, 0x8001), np.where(step_up, x + 1, x - 1)).astype(bits_dt)
        out = bf16_bits_to_f32(nxt) if dt is BF16 else nxt.view(np.float16)
        out = np.where(xa == y, b, out)  # equal: y itself (so nextafter(-0, 0) is 0)
        return np.where(np.isnan(xa) | np.isnan(y), np.nan, out)
    return np.nextafter(a, b)


def _signed_zero_order(fn: Callable, pick_neg: bool) -> Callable:
    """numpy's maximum/minimum return either zero for (0.0, -0.0); XLA's (and wasm's) order
    -0.0 below +0.0, so max(0.0, -0.0) is 0.0 and min is -0.0."""
    def op(a: Any, b: Any) -> np.ndarray:
        out = fn(a, b)
        if out.dtype.kind != "f":
            return out
        tie = (a == 0) & (b == 0)
        if not np.any(tie):
            return out
        either_neg = np.signbit(a) | np.signbit(b) if pick_neg else np.signbit(a) & np.signbit(b)
        return np.where(tie, np.where(either_neg, -0.0, 0.0).astype(out.dtype), out)
    return op


_maximum = _signed_zero_order(np.maximum, False)
_minimum = _signed_zero_order(np.minimum, True)


BINARY: dict[str, Callable] = {
    "add": lambda a, b, dt: np.add(a, b), "sub": lambda a, b, dt: np.subtract(a, b),
    "mul": lambda a, b, dt: np.multiply(a, b), "div": _div, "rem": _rem, "pow": _pow,
    "max": lambda a, b, dt: _maximum(a, b), "min": lambda a, b, dt: _minimum(a, b),
    "atan2": lambda a, b, dt: np.arctan2(a, b), "nextafter": _nextafter,
    "and": lambda a, b, dt: np.bitwise_and(a, b), "or": lambda a, b, dt: np.bitwise_or(a, b),
    "xor": lambda a, b, dt: np.bitwise_xor(a, b),
    "shl": lambda a, b, dt: _shift("shl", a, b, dt),
    "shr_logical": lambda a, b, dt: _shift("shr_logical", a, b, dt),
    "shr_arith": lambda a, b, dt: _shift("shr_arith", a, b, dt),
    "lt": lambda a, b, dt: np.less(a, b), "le": lambda a, b, dt: np.less_equal(a, b),
    "gt": lambda a, b, dt: np.greater(a, b), "ge": lambda a, b, dt: np.greater_equal(a, b),
    "eq": lambda a, b, dt: np.equal(a, b), "ne": lambda a, b, dt: np.not_equal(a, b),
}


def binary(op: str, a: Any, b: Any, dt: DType) -> np.ndarray:
    a, b = np.asarray(a), np.asarray(b)
    out = BINARY[op](a, b, dt)
    if op in ("lt", "le", "gt", "ge", "eq", "ne"):
        return out
    if dt.kind in "iu":
        return np.asarray(out).astype(np.int64, copy=False).astype(compute_dtype(dt)) \
            if np.asarray(out).dtype.kind != "u" else np.asarray(out).astype(compute_dtype(dt))
    return fix(out, dt)


# ---------------------------------------------------------------- reductions
_UFUNC = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}
_SIGNED_ZERO = {"max": _maximum, "min": _minimum}


def reduce(op: str, body: np.ndarray, dt: DType) -> np.ndarray:
    """Reduce along axis 1, keeping it (shape (n, 1))."""
    if dt.kind == "b":
        fn = {"add": np.logical_or, "mul": np.logical_and, "max": np.logical_or, "min": np.logical_and}[op]
        return fn.reduce(body, axis=1, keepdims=True)
    if dt.kind in "iu" and op in ("add", "mul"):
        return _UFUNC[op].reduce(body, axis=1, keepdims=True, dtype=body.dtype)
    out = _UFUNC[op].reduce(body, axis=1, keepdims=True)
    if op in _SIGNED_ZERO and body.dtype.kind == "f" and np.any(out == 0):  # -0.0 < 0.0, as in XLA
        zeros = body == 0
        if op == "max":  # +0.0 if any zero is positive
            zero = np.where(np.any(zeros & ~np.signbit(body), axis=1, keepdims=True), 0.0, -0.0)
        else:  # -0.0 if any zero is negative
            zero = np.where(np.any(zeros & np.signbit(body), axis=1, keepdims=True), -0.0, 0.0)
        out = np.where(out == 0, zero.astype(out.dtype), out)
    return fix(out, dt)


def combine(op: str, a: np.ndarray, b: np.ndarray, dt: DType) -> np.ndarray:
    if dt.kind == "b":
        return (a | b) if op in ("add", "max") else (a & b)
    return fix(_SIGNED_ZERO.get(op, _UFUNC[op])(a, b), dt)
