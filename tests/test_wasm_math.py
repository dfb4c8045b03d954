"""Accuracy of the generated math functions vs CPython's `math` (f64, correctly
rounded to the tested dtype), in ulp, on dense samples of normal ranges.

The limits below are the documented accuracy of mathlib (f64 path, used for
float64 and for float32 ops without a fast path) and mathlib.fast32 (float32 fast
paths: exp, expm1, log, tanh, logistic). Also checks special values.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from jaxweb._src import dtypes
from jaxweb._src.compiler import expr as E
from jaxweb._src.compiler.kernel import Kernel, gidx

from test_wasm_ops import WASM, run

N = 4001


def _digamma(x):
    r = 0.0
    while x < 20:
        r -= 1 / x
        x += 1
    f = 1 / (x * x)
    return r + math.log(x) - 0.5 / x - f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (1 / 240 - f / 132))))


def _erfinv(y):
    lo, hi = -6.0, 6.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if math.erf(mid) < y:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


# op -> (reference, lo, hi, max ulp float32, max ulp float64)
CASES = {
    "exp": (math.exp, -87, 88, 2, 2),
    "exp2": (lambda x: 2.0 ** x, -120, 120, 1, 2),
    "expm1": (math.expm1, -10, 10, 4, 4),
    "log": (math.log, 1e-30, 1e30, 2, 2),
    "log1p": (math.log1p, -0.9, 100, 1, 4),
    "sin": (math.sin, -100, 100, 1, 2),
    "cos": (math.cos, -100, 100, 1, 2),
    "tan": (math.tan, -1.5, 1.5, 1, 4),
    "asin": (math.asin, -1, 1, 1, 4),
    "acos": (math.acos, -1, 1, 1, 4),
    "atan": (math.atan, -50, 50, 1, 4),
    "sinh": (math.sinh, -20, 20, 1, 4),
    "cosh": (math.cosh, -20, 20, 1, 2),
    "tanh": (math.tanh, -10, 10, 4, 4),
    "asinh": (math.asinh, -1e3, 1e3, 1, 4),
    "acosh": (math.acosh, 1, 1e3, 1, 4),
    "atanh": (math.atanh, -0.999, 0.999, 1, 4),
    "cbrt": (lambda x: math.copysign(abs(x) ** (1 / 3), x), -1e6, 1e6, 1, 4),
    "logistic": (lambda x: 1 / (1 + math.exp(-x)), -80, 80, 4, 4),
    "erf": (math.erf, -5, 5, 1, 64),
    "erfc": (math.erfc, -3, 9, 1, 256),
    "erf_inv": (_erfinv, -0.999, 0.999, 1, 64),
    "lgamma": (math.lgamma, 2.5, 30, 1, 256),
    "digamma": (_digamma, 2, 30, 1, 32),
}


def measure(op, dt):
    ref, lo, hi, *_ = CASES[op]
    nd = np.dtype(dt.name)
    x = np.linspace(lo, hi, N).astype(nd)
    g = gidx((N,))
    k = Kernel((N,), E.unary(op, E.load(0, dt, g[0])), dt, (dt,))
    got = run(WASM, k, [x]).astype(np.float64)
    want = np.array([ref(float(v)) for v in x]).astype(nd).astype(np.float64)
    ulp = np.spacing(np.abs(want).astype(nd)).astype(np.float64)
    return np.max(np.abs(got - want) / ulp)


@pytest.mark.parametrize("op", sorted(CASES))
def test_accuracy(op):
    for dt, limit in ((dtypes.float32, CASES[op][3]), (dtypes.float64, CASES[op][4])):
        err = measure(op, dt)
        assert err <= limit, f"{op} {dt.name}: {err} ulp > {limit}"


SPECIAL = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e-40, -1e-40, 1e-310, 100.0, -100.0, 1e30, -1e30]


@pytest.mark.parametrize("dt", [dtypes.float32, dtypes.float64], ids=lambda d: d.name)
def test_special_values(dt):
    nd = np.dtype(dt.name)
    x = np.array(SPECIAL, dtype=nd)
    g = gidx((len(SPECIAL),))
    for op in ("exp", "log", "expm1", "log1p", "tanh", "logistic", "sinh", "cosh", "atan", "erf", "erfc",
               "sqrt", "asinh", "cbrt"):
        k = Kernel((len(SPECIAL),), E.unary(op, E.load(0, dt, g[0])), dt, (dt,))
        got = run(WASM, k, [x])
        with np.errstate(all="ignore"):
            want = np.array([_np_ref(op, v) for v in x.astype(np.float64)]).astype(nd)
        same = (got == want) | (np.isnan(got) & np.isnan(want)) | (np.abs(got - want) <= np.maximum(4 * np.spacing(np.abs(want)), 1e-13 * np.abs(want)))
        assert same.all(), f"{op} {dt.name}: {x[~same]} -> {got[~same]} want {want[~same]}"


def _np_ref(op, v):
    fns = {"exp": np.exp, "log": np.log, "expm1": np.expm1, "log1p": np.log1p, "tanh": np.tanh,
           "logistic": lambda t: 1 / (1 + np.exp(-t)), "sinh": np.sinh, "cosh": np.cosh,
           "atan": np.arctan, "sqrt": np.sqrt, "asinh": np.arcsinh, "cbrt": np.cbrt,
           "erf": lambda t: math.erf(t) if not math.isnan(t) else math.nan,
           "erfc": lambda t: math.erfc(t) if not math.isnan(t) else math.nan}
    return fns[op](np.float64(v))
