"""float32 `Erf` (and so `Gelu`) in float32 arithmetic, as onnxruntime computes them.

`lax.erf` of a float32 is computed in float64 and rounded once (`compiler/mathlib`: <= 1
ulp); on wasm that float64 code runs lane by lane, ~300 ns an element natively, and a
transformer's GELU (BERT/MiniLM: 32 x 128 x 1536 values a layer) spent a fifth of the
model's time in it. Here erf is three polynomials in float32, which the wasm backend
vectorizes (4 lanes) and every device runs as plain multiply-adds: <= 1.3 ulp from the
correctly rounded erf over all float32 (measured against scipy in float64; onnxruntime's
MLAS erf is a float32 approximation too). Other dtypes keep `lax.erf`.

The coefficients are least-squares fits on Chebyshev nodes (numpy, float64):
  |x| < 1:         erf(x) = x + x * P(x²),  P ≈ erf(x)/x - 1           (1.29 ulp)
  1 <= |x| < 2.25: erf(x) = 1 - Q1(|x| - 1.625),  Q1 ≈ erfc            (0.87 ulp)
  2.25 <= |x| < 4: erf(x) = 1 - Q2(|x| - 3.125),  Q2 ≈ erfc            (0.61 ulp)
  |x| >= 4:        ±1 (erfc(4) = 1.5e-8 is below half an ulp of 1)
Gelu's Φ(x) = (1 + erf(x/√2)) / 2 would cancel to 0 for x < -√2, so there it is erfc(a)/2,
a = -x/√2, with erfc(a) = exp(-a²) R(1/a) / a, R ≈ a erfcx(a) on [1, 10] (degree 8): relative
error <= 4e-6 (the rounding of a² inside exp), down to exp's underflow, as `nn.gelu`'s erfc.
"""
from __future__ import annotations

import jaxweb.lax as lax
import jaxweb.nn as nn
import jaxweb.numpy as jnp

_P = (7.933493809335637e-05, -0.0008034846623647191, 0.005191218373900515, -0.02685539944983032,
      0.1128362572501413, -0.3761262987766596, 0.1283791665931498)
_Q1 = (-0.001273625249504253, 0.0008722769340751984, 0.006130521728775807, -0.014510151570739682,
       0.0021441226400333896, 0.04973177748356646, -0.11484126171716019, 0.13076680162000376,
       -0.08047224647663234, 0.02155627154000135)
_Q2 = (-1.1247641540880382e-05, 9.775829085650667e-05, -0.0002775118864740699, 0.00046266275900147216,
       -0.0005732450726069993, 0.0005545719071487863, -0.00040052940059258406, 0.00020266790181051357,
       -6.473914042064515e-05, 9.892088901309243e-06)

_R = (0.08313344013669768, -0.45321359354854973, 1.0539688136585157, -1.3204933503518816,
      0.8584520943429879, -0.08577378464878971, -0.27205849493644385, -0.0006378414216662565,
      0.564206417946401)


def _horner(coefs: tuple, t):
    acc = jnp.full_like(t, coefs[0])
    for c in coefs[1:]:
        acc = acc * t + c
    return acc


def erf(x):
    """erf(x): float32 polynomials for float32 x (see the module doc), else `lax.erf`."""
    if x.dtype != jnp.float32:
        return lax.erf(x)
    a = jnp.abs(x)
    small = x + x * _horner(_P, x * x)  # odd: keeps -0.0
    tail = jnp.where(a < 2.25, 1.0 - _horner(_Q1, a - 1.625), 1.0 - _horner(_Q2, a - 3.125))
    tail = jnp.where(a >= 4.0, 1.0, tail)  # NaN stays NaN (the comparisons are false)
    return jnp.where(a < 1.0, small, jnp.copysign(tail, x))


def gelu(x, approximate: bool):
    """ONNX `Gelu`: x Φ(x) with this erf (or `nn.gelu`'s tanh form when approximate)."""
    if approximate or x.dtype != jnp.float32:
        return nn.gelu(x, approximate=approximate)
    t = x * 0.7071067811865476
    a = jnp.maximum(-t, 1.0)
    tail = jnp.exp(-(a * a)) * _horner(_R, 1.0 / a) / a  # erfc(a), relative accuracy in the tail
    return x * jnp.where(t >= -1.0, 0.5 + 0.5 * erf(t), 0.5 * tail)
