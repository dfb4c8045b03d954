"""Every elementwise, reduction and cumulative primitive on every dtype it accepts, on
every code generator: a table that fails when a lowering is missing, not only when it
is wrong.

The reference backend (`cpu`) decides which dtypes a primitive accepts: where it raises
(a TypeError for sin of an int), the case is skipped; where it runs, the device under
test must run it too and agree. A missing lowering on a code generator shows up as a
NotImplementedError ("wasm codegen: op ... on ...") at compile time, which this table
turns into a failure naming the primitive and the dtype. webgpu joins with
JAXWEB_TEST_WEBGPU=1 (and skips 64-bit dtypes, which WGSL lacks).

Also the kernel-IR case behind issue 25's `op idx on int32`: an inner (row) reduction
whose body holds a nested reduction that depends on the vectorized index.
"""
from __future__ import annotations

import numpy as np
import pytest

import jaxweb
from jaxweb import lax

pytest.importorskip("wasmtime")

import os  # noqa: E402

NO_64BIT = {"float64", "int64", "uint64", "complex128"}

DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float16", "bfloat16", "float32", "float64", "complex64"]

UNARY = ["neg", "sign", "abs", "floor", "ceil", "round", "bitwise_not", "population_count", "clz",
         "exp", "exp2", "log", "log1p", "expm1", "sqrt", "rsqrt", "cbrt", "sin", "cos", "tan", "asin",
         "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc", "erf_inv",
         "lgamma", "digamma", "logistic", "is_finite", "square", "reciprocal"]
BINARY = ["add", "sub", "mul", "div", "rem", "pow", "max", "min", "nextafter", "atan2", "eq", "ne",
          "lt", "le", "gt", "ge", "bitwise_and", "bitwise_or", "bitwise_xor", "shift_left",
          "shift_right_logical", "shift_right_arithmetic"]
REDUCE = ["reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_and", "reduce_or", "argmax"]
CUMULATIVE = ["cumsum", "cumprod", "cummax", "cummin"]

def _available(platform: str) -> bool:
    try:
        return bool(jaxweb.devices(platform))
    except RuntimeError:
        return False


PLATFORMS = ["wasm"] + (["webgpu"] if os.environ.get("JAXWEB_TEST_WEBGPU") == "1" and _available("webgpu") else [])


def _operand(dtype: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    v = rng.uniform(-3, 3, (3, 5))
    if dtype == "bool":
        return v > 0
    if dtype.startswith(("int", "uint")):
        v = np.abs(v) + 1 if dtype.startswith("uint") or seed else v
        return np.round(v).astype(dtype)
    if dtype == "complex64":
        return (v + 1j * rng.uniform(-1, 1, (3, 5))).astype(np.complex64)
    return v.astype("float32") if dtype == "bfloat16" else v.astype(dtype)


def _call(name: str, dtype: str):
    x = jaxweb.numpy.asarray(_operand(dtype, 0)).astype(dtype)
    if name in UNARY:
        return getattr(lax, name)(x)
    if name in BINARY:
        return getattr(lax, name)(x, jaxweb.numpy.asarray(_operand(dtype, 1)).astype(dtype))
    if name == "argmax":
        return lax.argmax(x, 1, "int32")
    if name in REDUCE:
        return getattr(lax, name)(x, (1,))
    return getattr(lax, name)(x, 1)


def _run(platform: str, name: str, dtype: str) -> np.ndarray:
    with jaxweb.default_device(jaxweb.devices(platform)[0]):
        out = _call(name, dtype)
        return np.asarray(out.astype("float32") if out.dtype == jaxweb.numpy.bfloat16 else out)


CASES = [(n, d) for n in UNARY + BINARY + REDUCE + CUMULATIVE for d in DTYPES]


@pytest.mark.parametrize("platform", PLATFORMS)
def test_every_lowering_exists(platform):
    """One test per device (a few hundred tiny kernels): the failures name every gap."""
    missing, wrong = [], []
    for name, dtype in CASES:
        if platform == "webgpu" and dtype in NO_64BIT:
            continue
        try:
            want = _run("cpu", name, dtype)
        except (TypeError, ValueError, NotImplementedError):
            continue  # the primitive does not take this dtype
        try:
            got = _run(platform, name, dtype)
        except NotImplementedError as e:
            missing.append(f"{name}[{dtype}]: {e}")
            continue
        ok = got.dtype == want.dtype and got.shape == want.shape
        if ok and got.dtype.kind in "fc":
            tol = {"float16": 2e-3, "bfloat16": 2e-2}.get(dtype, 2e-5)
            ok = np.allclose(got, want, rtol=tol, atol=tol, equal_nan=True)
        elif ok:
            ok = np.array_equal(got, want)
        if not ok:
            wrong.append(f"{name}[{dtype}]")
    assert not missing, "missing lowerings:\n" + "\n".join(missing)
    assert not wrong, "lowerings disagreeing with the reference backend: " + ", ".join(wrong)


def test_wasm_inner_vector_loop_skips_nested_reductions():
    """out[i] = sum_j x[i, j] - max_k y[k, j]: the row sum would vectorize over j, but the
    nested max depends on j and has no vector form; the kernel must compile (it raised
    on an unbound index of the nested loop) and stay scalar."""
    from jaxweb._src import dtypes
    from jaxweb._src.backends.wasm import codegen
    from jaxweb._src.compiler import expr as E
    from jaxweb._src.compiler.kernel import Kernel
    f32 = dtypes.float32
    g0, r0, q = E.idx("g0", 5), E.idx("r0", 8), E.idx("q0_0", 6)
    i32 = g0.dtype
    x = E.load(0, f32, E.binary("add", E.binary("mul", g0, E.const(8, i32)), r0))
    y = E.load(1, f32, E.binary("add", E.binary("mul", q, E.const(8, i32)), r0))
    kernel = Kernel((5,), E.binary("sub", x, E.reduce("max", y, (q,))), None, (f32, f32), (8,), "add")
    wasm, mode = codegen.build_info(kernel, frozenset({"simd", "relaxed_simd"}))
    assert wasm[:4] == b"\0asm" and mode is None
