"""ONNX `Gelu` (exact form) in float32 arithmetic, as onnxruntime computes it.

x Φ(x) with Φ(x) = (1 + erf(x/√2)) / 2: `lax.erf` of a float32 is mathlib's float32 fast path
(`compiler/mathlib/fast32.py`, <= 1 ulp, vectorized on wasm), where `nn.gelu`'s exact form goes
through `lax.erfc`, computed in float64 lane by lane on wasm (~300 ns an element natively; a
transformer's GELU — BERT/MiniLM: 32 x 128 x 1536 values a layer — was a fifth of the model's
time). Φ would cancel to 0 for x < -√2, so there it is erfc(a)/2, a = -x/√2, with
erfc(a) = exp(-a²) R(1/a) / a, R ≈ a erfcx(a) on [1, 10] (degree 8, least squares on Chebyshev
nodes): relative error <= 4e-6 (the rounding of a² inside exp), down to exp's underflow, as
`nn.gelu`'s erfc.
"""
from __future__ import annotations

import jaxweb.lax as lax
import jaxweb.nn as nn
import jaxweb.numpy as jnp

_R = (0.08313344013669768, -0.45321359354854973, 1.0539688136585157, -1.3204933503518816,
      0.8584520943429879, -0.08577378464878971, -0.27205849493644385, -0.0006378414216662565,
      0.564206417946401)


def _horner(coefs: tuple, t):
    acc = jnp.full_like(t, coefs[0])
    for c in coefs[1:]:
        acc = acc * t + c
    return acc


def gelu(x, approximate: bool):
    """ONNX `Gelu`: x Φ(x) as the module doc says (`nn.gelu` when approximate or not float32)."""
    if approximate or x.dtype != jnp.float32:
        return nn.gelu(x, approximate=approximate)
    t = x * 0.7071067811865476
    a = jnp.maximum(-t, 1.0)
    tail = jnp.exp(-(a * a)) * _horner(_R, 1.0 / a) / a  # erfc(a), relative accuracy in the tail
    return x * jnp.where(t >= -1.0, 0.5 + 0.5 * lax.erf(t), 0.5 * tail)
