"""Float helpers that reproduce how JAX (XLA on CPU) computes the samplers' arithmetic.

Bit-identical samples need the same rounding as XLA, not merely accurate math:

* XLA's CPU code generator contracts `a * b + c` into one fused multiply-add. jaxweb has
  no fma primitive, so `fma` emulates it with error-free transformations (Dekker's
  product, Knuth's two-sum) in the operands' own dtype: exact except in rare
  double-rounding cases, on every device (no float64 needed, so also WebGPU).
* `erf_inv` is XLA's: Giles' single-precision polynomial (in float32 also for f16
  and bf16), or his double-precision one for float64, evaluated with fma as XLA
  does. jaxweb's own lax.erf_inv is more accurate, but differs from JAX by up to
  ~60 ulp; this one differs only where XLA's log1p rounds differently from ours.
"""
from __future__ import annotations

from typing import Any

import math

from .. import core, dtypes
from ..custom_derivatives import custom_jvp
from ..lax import _modules as lax
from ..device import default_device

# Veltkamp splitting constants 2^ceil(p/2) + 1 for a p-bit significand.
_SPLIT = {"float16": 2.0 ** 6 + 1, "bfloat16": 2.0 ** 4 + 1, "float32": 2.0 ** 12 + 1,
          "float64": 2.0 ** 27 + 1}


def _split(a: Any, factor: float) -> tuple[Any, Any]:
    c = lax.mul(a, factor)
    hi = lax.sub(c, lax.sub(c, a))
    return hi, lax.sub(a, hi)


def two_prod(a: Any, b: Any) -> tuple[Any, Any]:
    """p, e with p = fl(a * b) and a * b = p + e exactly (Dekker)."""
    factor = _SPLIT[core.get_aval(a).dtype.name]
    p = lax.mul(a, b)
    ah, al = _split(a, factor)
    bh, bl = _split(b, factor)
    e = lax.add(lax.add(lax.add(lax.sub(lax.mul(ah, bh), p), lax.mul(ah, bl)), lax.mul(al, bh)),
                lax.mul(al, bl))
    return p, e


def two_sum(a: Any, b: Any) -> tuple[Any, Any]:
    """s, t with s = fl(a + b) and a + b = s + t exactly (Knuth)."""
    s = lax.add(a, b)
    bb = lax.sub(s, a)
    t = lax.add(lax.sub(a, lax.sub(s, bb)), lax.sub(b, bb))
    return s, t


# Platforms whose kernels compute float64: there a float32 fma is one float64 product (exact)
# and sum, rounded once to float32 (double rounding on ties only, ~2^-29 of cases), 6 ops
# instead of ~26. Elsewhere (WebGPU) the error-free transformations below.
_F64_PLATFORMS = frozenset({"cpu", "wasm"})


def _convert(x: Any, dtype: Any) -> Any:
    """convert_element_type without x64 canonicalization: float64 temporaries even with x64 off."""
    return lax.convert_element_type_p.bind(x, new_dtype=dtype, weak_type=False)


def _fma_impl(a: Any, b: Any, c: Any) -> Any:
    dt = core.get_aval(a).dtype
    if dt != dtypes.float64 and default_device().platform in _F64_PLATFORMS:
        wide = [_convert(x, dtypes.float64) for x in (a, b, c)]
        return _convert(lax.add(lax.mul(wide[0], wide[1]), wide[2]), dt)
    if dt in (dtypes.float16, dtypes.bfloat16):  # XLA computes these in float32
        return _convert(_fma_impl(*(_convert(x, dtypes.float32) for x in (a, b, c))), dt)
    p, e = two_prod(a, b)
    s, t = two_sum(p, c)
    # a*b + c = s + t + e exactly; a zero correction keeps s as is (and the sign of a zero s).
    r = lax.add(t, e)
    return lax.select(lax.eq(r, 0.0), s, lax.add(s, r))


_fma = custom_jvp(_fma_impl)
_fma.defjvps(lambda ta, out, a, b, c: lax.mul(ta, b), lambda tb, out, a, b, c: lax.mul(a, tb),
             lambda tc, out, a, b, c: tc)


def fma(a: Any, b: Any, c: Any) -> Any:
    """a * b + c with one rounding (see the module docstring). Same-dtype operands that
    broadcast (Python scalars allowed); differentiable as a * b + c."""
    return _fma(*_same_shape(a, b, c))


def _same_shape(*xs: Any) -> list:
    arrays = [x for x in xs if not core.is_python_scalar(x)]
    dt = core.get_aval(arrays[0]).dtype
    shape = max((core.get_aval(x).shape for x in arrays), key=len)
    out = []
    for x in xs:
        if core.is_python_scalar(x):
            x = lax.full(shape, x, dt)
        elif core.get_aval(x).shape != shape:
            x = lax.broadcast_in_dim(x, shape, tuple(range(len(shape) - core.get_aval(x).ndim, len(shape))))
        out.append(x)
    return out


# ---------------------------------------------------------------- erf_inv (Giles, as XLA)
_ERFINV32 = (  # w < 5, w >= 5
    (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
     -0.00125372503, -0.00417768164, 0.246640727, 1.50140941),
    (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
     -0.0076224613, 0.00943887047, 1.00167406, 2.83297682),
)
_ERFINV64 = (  # w < 6.25 (23 terms), w < 16 (19 terms), w >= 16 (17 terms)
    (-3.6444120640178196996e-21, -1.685059138182016589e-19, 1.2858480715256400167e-18,
     1.115787767802518096e-17, -1.333171662854620906e-16, 2.0972767875968561637e-17,
     6.6376381343583238325e-15, -4.0545662729752068639e-14, -8.1519341976054721522e-14,
     2.6335093153082322977e-12, -1.2975133253453532498e-11, -5.4154120542946279317e-11,
     1.051212273321532285e-09, -4.1126339803469836976e-09, -2.9070369957882005086e-08,
     4.2347877827932403518e-07, -1.3654692000834678645e-06, -1.3882523362786468719e-05,
     0.0001867342080340571352, -0.00074070253416626697512, -0.0060336708714301490533,
     0.24015818242558961693, 1.6536545626831027356),
    (2.2137376921775787049e-09, 9.0756561938885390979e-08, -2.7517406297064545428e-07,
     1.8239629214389227755e-08, 1.5027403968909827627e-06, -4.013867526981545969e-06,
     2.9234449089955446044e-06, 1.2475304481671778723e-05, -4.7318229009055733981e-05,
     6.8284851459573175448e-05, 2.4031110387097893999e-05, -0.0003550375203628474796,
     0.00095328937973738049703, -0.0016882755560235047313, 0.0024914420961078508066,
     -0.0037512085075692412107, 0.005370914553590063617, 1.0052589676941592334,
     3.0838856104922207635),
    (-2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
     -3.7894654401267369937e-09, 7.6157012080783393804e-09, -1.4960026627149240478e-08,
     2.9147953450901080826e-08, -6.7711997758452339498e-08, 2.2900482228026654717e-07,
     -9.9298272942317002539e-07, 4.5260625972231537039e-06, -1.9681778105531670567e-05,
     7.5995277030017761139e-05, -0.00021503011930044477347, -0.00013871931833623122026,
     1.0103004648645343977, 4.8499064014085844221),
)


def _full_like(x: Any, v: float) -> Any:
    aval = core.get_aval(x)
    return lax.full(aval.shape, v, aval.dtype)


def _erf_inv32(x: Any) -> Any:
    w = lax.neg(log1p(lax.mul(lax.neg(x), x)))
    lt = lax.lt(w, 5.0)
    w = lax.select(lt, lax.sub(w, 2.5), lax.sub(lax.sqrt(w), 3.0))
    small, large = _ERFINV32
    coef = lambda i: lax.select(lt, _full_like(x, small[i]), _full_like(x, large[i]))  # noqa: E731
    p = coef(0)
    for i in range(1, len(small)):
        p = fma(p, w, coef(i))
    return p


def _erf_inv64(x: Any) -> Any:
    w = lax.neg(log1p(lax.mul(lax.neg(x), x)))
    lt_6_25, lt_16 = lax.lt(w, 6.25), lax.lt(w, 16.0)
    c1, c2, c3 = _ERFINV64

    def coef(i: int) -> Any:
        c = _full_like(x, c1[i])
        if i < 19:
            c = lax.select(lt_6_25, c, _full_like(x, c2[i]))
        if i < 17:
            c = lax.select(lt_16, c, _full_like(x, c3[i]))
        return c

    shift = lax.select(lt_16, _full_like(x, 3.25), _full_like(x, 5.0))
    w = lax.select(lt_6_25, lax.sub(w, 3.125), lax.sub(lax.sqrt(w), shift))
    p = coef(0)
    for i in range(1, 17):
        p = fma(p, w, coef(i))
    for i in range(17, 19):
        p = lax.select(lt_16, fma(p, w, coef(i)), p)
    for i in range(19, 23):
        p = lax.select(lt_6_25, fma(p, w, coef(i)), p)
    return p


@custom_jvp
def erf_inv(x: Any) -> Any:
    """XLA's erf_inv (Giles' approximations), elementwise; derivative sqrt(pi)/2 exp(y^2)."""
    dt = core.get_aval(x).dtype
    if dt in (dtypes.float16, dtypes.bfloat16):
        return lax.convert_element_type(erf_inv(lax.convert_element_type(x, dtypes.float32)), dt)
    p = _erf_inv64(x) if dt == dtypes.float64 else _erf_inv32(x)
    big = dtypes.finfo(dt).max
    return lax.select(lax.eq(lax.abs(x), 1.0), lax.mul(x, big), lax.mul(p, x))


# ---------------------------------------------------------------- log, log1p, exp (XLA CPU, f32)
# XLA's CPU backend computes float32 log and exp with Cephes-style polynomials (fused
# multiply-adds throughout) and log1p with a Cephes rational function below sqrt(2) - 1;
# float16/bfloat16 go through float32. Other dtypes use jaxweb's own functions.
_LOG_P = (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1, 1.4249322787E-1,
          -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1)
_LOG_Q1, _LOG_Q2 = -2.12194440e-4, 0.693359375
_LOG1P_DEN = (1.0, 1.5062909083469192043167E1, 8.3047565967967209469434E1, 2.2176239823732856465394E2,
              3.0909872225312059774938E2, 2.1642788614495947685003E2, 6.0118660497603843919306E1)
_LOG1P_NUM = (4.5270000862445199635215E-5, 4.9854102823193375972212E-1, 6.5787325942061044846969E0,
              2.9911919328553073277375E1, 6.0949667980987787057556E1, 5.7112963590585538103336E1,
              2.0039553499201281259648E1)
_EXP_P = (1.9875691500E-4, 1.3981999507E-3, 8.3334519073E-3, 4.1665795894E-2, 1.6666665459E-1,
          5.0000001201E-1)
F32, I32 = dtypes.float32, dtypes.int32


def _via_f32(fn, lax_fn):
    def op(x: Any) -> Any:
        dt = core.get_aval(x).dtype
        if dt == F32:
            return fn(x)
        if dt in (dtypes.float16, dtypes.bfloat16):
            return lax.convert_element_type(fn(lax.convert_element_type(x, F32)), dt)
        return lax_fn(x)
    op.__name__ = fn.__name__.lstrip("_")
    return op


def _log32(x: Any) -> Any:
    shape = core.get_aval(x).shape
    full = lambda v: lax.full(shape, v, F32)  # noqa: E731
    t = lax.max(x, full(1.1754943508222875e-38))  # flush denormals as XLA does
    bits = lax.bitcast_convert_type(t, I32)
    e = lax.add(lax.convert_element_type(lax.sub(lax.shift_right_logical(bits, 23), 0x7F), F32), 1.0)
    t = lax.bitcast_convert_type(lax.bitwise_or(lax.bitwise_and(bits, ~0x7F800000), 0x3F000000), F32)
    small = lax.lt(t, 0.707106781186547524)
    t = lax.add(lax.sub(t, 1.0), lax.select(small, t, full(0.0)))
    e = lax.sub(e, lax.select(small, full(1.0), full(0.0)))
    x2 = lax.mul(t, t)
    x3 = lax.mul(x2, t)
    p = _LOG_P
    y = fma(fma(t, full(p[0]), full(p[1])), t, full(p[2]))
    y1 = fma(fma(t, full(p[3]), full(p[4])), t, full(p[5]))
    y2 = fma(fma(t, full(p[6]), full(p[7])), t, full(p[8]))
    y = lax.mul(fma(fma(y, x3, y1), x3, y2), x3)
    y = lax.add(y, lax.mul(_LOG_Q1, e))
    t = lax.sub(t, lax.mul(0.5, x2))
    t = lax.add(lax.add(t, y), lax.mul(_LOG_Q2, e))
    nan = lax.le(x, 0.0) | lax.ne(x, x)
    t = lax.select(nan, full(float("nan")), t)
    t = lax.select(lax.eq(x, 0.0), full(float("-inf")), t)
    return lax.select(lax.eq(x, float("inf")), full(float("inf")), t)


def _poly(x: Any, coeffs: tuple, full) -> Any:
    p = full(coeffs[0])
    for c in coeffs[1:]:
        p = fma(p, x, full(c))
    return p


def _log1p32(x: Any) -> Any:
    shape = core.get_aval(x).shape
    full = lambda v: lax.full(shape, v, F32)  # noqa: E731
    large = _log32(lax.add(x, 1.0))
    x2 = lax.mul(x, x)
    r = lax.div(_poly(x, _LOG1P_NUM, full), _poly(x, _LOG1P_DEN, full))
    r = fma(full(-0.5), x2, lax.mul(lax.mul(x, x2), r))
    return lax.select(lax.lt(lax.abs(x), 0.41421356237309504880), lax.add(x, r), large)


def _exp32(x: Any) -> Any:
    shape = core.get_aval(x).shape
    full = lambda v: lax.full(shape, v, F32)  # noqa: E731
    x = lax.clamp(-87.8, x, 88.8)
    n = lax.clamp(-127.0, lax.floor(fma(x, full(1.44269504088896341), full(0.5))), 127.0)
    x = fma(full(-0.693359375), n, x)
    x = fma(full(2.12194440e-4), n, x)
    z = fma(x, full(_EXP_P[0]), full(_EXP_P[1]))
    for c in _EXP_P[2:]:
        z = fma(z, x, full(c))
    z = lax.add(fma(z, lax.mul(x, x), x), 1.0)
    pow2 = lax.bitcast_convert_type(lax.shift_left(lax.add(lax.convert_element_type(n, I32), 0x7F), 23), F32)
    return lax.mul(z, pow2)


erf_inv.defjvps(lambda t, y, x: lax.mul(t, lax.mul(math.sqrt(math.pi) / 2, lax.exp(lax.mul(y, y)))))

# The derivatives are the functions' own (the bit manipulations inside have none).
log = custom_jvp(_via_f32(_log32, lax.log))
log.defjvps(lambda t, y, x: lax.div(t, x))
log1p = custom_jvp(_via_f32(_log1p32, lax.log1p))
log1p.defjvps(lambda t, y, x: lax.div(t, lax.add(x, 1.0)))
exp = custom_jvp(_via_f32(_exp32, lax.exp))
exp.defjvps(lambda t, y, x: lax.mul(t, y))


# ---------------------------------------------------------------- XLA's algebraic rewrites
def div(x: Any, y: Any) -> Any:
    """x / y as XLA computes it: a division by a broadcast scalar becomes a multiplication
    by its reciprocal (XLA's algebraic simplifier does this, changing the rounding)."""
    if core.get_aval(y).ndim == 0 and core.get_aval(x).ndim > 0:
        return lax.mul(x, lax.div(lax.full((), 1.0, core.get_aval(y).dtype), y))
    return lax.div(x, y)


# nextafter of a stop_gradient'ed value (truncated_normal's clip bounds): jaxweb's JVP
# trace runs a rule even when every tangent is a symbolic zero, and nextafter has none,
# so the zero derivative is spelled out here.
nextafter_nodiff = custom_jvp(lambda x, y: lax.nextafter(x, y))
nextafter_nodiff.defjvps(lambda t, out, x, y: lax.mul(t, 0.0), lambda t, out, x, y: lax.mul(t, 0.0))
