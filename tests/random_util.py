"""Shared by test_random.py and test_random_loops.py: the recorded JAX outputs
(tests/data/random_reference.json), their decoding, and the comparison rules.

Keys, bits and every integer-valued sampler must match JAX bit for bit. Float samplers
match bit for bit wherever the arithmetic is exact or follows XLA's rounding (fma
contraction, XLA's float32 log/log1p/exp/erf_inv, its algebraic rewrites); where XLA on
CPU uses functions jaxweb does not reproduce exactly, NEAR bounds the error and also
requires most elements to be identical, so a change of algorithm still fails:
  - tan (cauchy), pow (weibull_min, generalized_normal, ball, gamma's boost), erf
    (truncated_normal's bounds) and lgamma: XLA's approximations, ~1 ulp apart;
  - the gamma sampler's 1/sqrt: XLA uses the CPU's approximate rsqrt instruction plus
    Newton steps (hardware dependent), so gamma-based samples can differ by a few ulp;
  - reductions (dirichlet's softmax sum, ball's norm) add in XLA's vectorized order;
  - multivariate_normal/orthogonal use jaxweb's own small factorizations (no LAPACK);
  - float64 uses libm's log/exp in XLA, jaxweb's own (a few ulp) here.
"""
from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import numpy as np

import jaxweb.numpy as jnp
from jaxweb._src import config as _config

DATA = Path(__file__).resolve().parent / "data"
sys.path.insert(0, str(DATA))
from random_cases import CASES, ERRORS, run  # noqa: E402,F401

REF = json.loads((DATA / "random_reference.json").read_text())

# fn -> (rtol, atol, min fraction of bit-identical elements); absent means exact.
NEAR = {
    "normal": (2e-6, 0, 0.95), "truncated_normal": (2e-6, 1e-7, 0.75), "exponential": (2e-6, 0, 0.95),
    "laplace": (2e-6, 0, 0.95), "logistic": (2e-6, 1e-7, 0.95), "cauchy": (2e-6, 1e-7, 0.5),
    "gumbel": (2e-6, 1e-6, 0.95), "pareto": (2e-6, 0, 0.95), "rayleigh": (2e-6, 0, 0.95),
    "lognormal": (2e-6, 0, 0.95), "weibull_min": (2e-6, 0, 0.8), "gamma": (2e-6, 0, 0.6),
    "loggamma": (2e-6, 1e-7, 0.6), "beta": (2e-6, 1e-7, 0.5), "dirichlet": (2e-6, 1e-7, 0.5),
    "t": (2e-6, 1e-7, 0.5), "chisquare": (2e-6, 0, 0.5), "f": (2e-6, 0, 0.2),
    "generalized_normal": (2e-6, 1e-7, 0.3), "ball": (2e-6, 1e-7, 0.3), "grad_gamma": (2e-6, 1e-7, 0.0),
    "grad_loggamma": (2e-6, 1e-7, 0.0), "multivariate_normal": (1e-5, 1e-6, 0.5),
    "orthogonal": (1e-5, 1e-6, 0.0),
}
# Checked on every device (test_random.py): one case per distinct code path (bit
# widths, float formats, XLA's math, sorts, scans), at the shared shape (64,) so their
# kernels are shared. The rest run on the reference backend only: the Wasm runtime
# keeps every module it compiles and a store holds at most 10000, which the whole suite
# nearly needs already. Samplers with rejection loops: test_random_loops.py.
EVERY_DEVICE = frozenset({
    "PRNGKey64/1099511627783", "split/7/True", "split/7/False", "bits/uint8/True", "bits/uint16/False",
    "bits64/True", "uniform", "uniform/minmax", "uniform/f16", "uniform/bf16", "uniform/f64",
    "uniform/nonpartitionable", "normal", "truncated_normal", "exponential", "gumbel/highest", "maxwell",
    "randint", "randint/int64", "permutation/big", "choice/p",
})
LOOP_FNS = frozenset({"gamma", "loggamma", "grad_gamma", "grad_loggamma", "beta", "dirichlet", "t",
                      "chisquare", "f", "generalized_normal", "ball", "poisson", "binomial", "multinomial"})


def check_case(c: dict) -> None:
    """Run case `c` with jaxweb and compare with JAX's recorded output."""
    import jaxweb
    want = decode(REF["cases"][c["name"]])
    with flags(c):
        got = as_numpy(run(c, jaxweb))
    check_close(got, want, tolerance(c, want), c["name"])
F16_TOL = (2e-3, 1e-3, 0.9)  # half precision: XLA computes f32 internally, rounds once
F64_TOL = (1e-13, 0, 0.5)


def decode(entry: dict) -> np.ndarray:
    raw = base64.b64decode(entry["data"])
    name = entry["dtype"]
    store = {"bool": np.uint8, "bfloat16": np.uint16}.get(name) or np.dtype(name)
    a = np.frombuffer(raw, dtype=np.dtype(store).newbyteorder("<")).reshape(entry["shape"])
    if name == "bool":
        return a.astype(bool)
    if name == "bfloat16":
        return (a.astype(np.uint32) << 16).view(np.float32)
    return a.astype(np.dtype(store).newbyteorder("="))


def as_numpy(x) -> np.ndarray:
    if x.dtype == jnp.bfloat16:
        return np.asarray(x.astype(jnp.float32))
    return np.asarray(x)


class flags:
    """Run a case under its x64 / threefry_partitionable settings."""

    def __init__(self, c: dict):
        self.c = c

    def __enter__(self):
        self.stack = [_config.override("jax_enable_x64", self.c["x64"]),
                      _config.override("jax_threefry_partitionable", self.c["partitionable"])]
        for s in self.stack:
            s.__enter__()

    def __exit__(self, *exc):
        for s in reversed(self.stack):
            s.__exit__(*exc)


def tolerance(c: dict, want: np.ndarray):
    if want.dtype.kind != "f":
        return None
    if c["fn"] not in NEAR and c["fn"] not in ("uniform",):
        return None
    if want.dtype == np.float64:
        return F64_TOL if c["fn"] != "uniform" else None
    if c["name"].endswith(("/f16", "/bf16")):
        return F16_TOL if c["fn"] != "uniform" else None
    return NEAR.get(c["fn"])


def check_close(got: np.ndarray, want: np.ndarray, tol, name: str) -> None:
    assert got.shape == want.shape, (name, got.shape, want.shape)
    assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
    if tol is None:
        same = (got == want) | (np.isnan(got) & np.isnan(want)) if got.dtype.kind == "f" else got == want
        bad = np.flatnonzero(~np.asarray(same))
        assert bad.size == 0, f"{name}: {bad.size} of {got.size} differ, e.g. {got.flat[bad[:4]]} vs {want.flat[bad[:4]]}"
        return
    rtol, atol, min_exact = tol
    g, w = got.astype(np.float64), want.astype(np.float64)
    both_nan = np.isnan(g) & np.isnan(w)
    ok = both_nan | (g == w) | (np.abs(g - w) <= atol + rtol * np.abs(w))
    assert ok.all(), f"{name}: max rel err {np.nanmax(np.abs(g - w) / np.maximum(np.abs(w), 1e-30)):.3g}"
    exact = np.mean((got == want) | both_nan)
    assert exact >= min_exact, f"{name}: only {exact:.2f} of elements bit-identical (want >= {min_exact})"


