"""wasm backend vs the reference backend, op by op and dtype by dtype.

Each case builds a Kernel directly with the IR API over an odd-sized grid (not a
multiple of 4, so SIMD remainders run too), feeds both backends the same random
data (with special values: 0, -0, +-inf, NaN, integer extremes) and compares
outputs: bit-exact (NaN == NaN, -0 == 0) for arithmetic, a few ulp for
transcendental ops (computed in f64 and rounded, see mathlib).
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from jaxweb._src import dtypes
from jaxweb._src.compiler import expr as E
from jaxweb._src.compiler.kernel import Kernel, gidx, ridx

wasmtime = pytest.importorskip("wasmtime")

from jaxweb._src.backends.reference import ReferenceBackend, np_dtype  # noqa: E402
from jaxweb._src.backends.reference_ops import bf16_bits_to_f32  # noqa: E402
from jaxweb._src.backends.wasm.backend import WasmBackend  # noqa: E402

REF = ReferenceBackend()
WASM = WasmBackend()
N = 37

INTS = [dtypes.int8, dtypes.uint8, dtypes.int16, dtypes.uint16, dtypes.int32, dtypes.uint32,
        dtypes.int64, dtypes.uint64]
FLOATS = [dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64]
ALL = [dtypes.bool_] + INTS + FLOATS
TRANSCENDENTAL = set("""exp exp2 log log1p expm1 cbrt sin cos tan asin acos atan sinh cosh tanh
asinh acosh atanh erf erfc erf_inv lgamma digamma logistic pow atan2""".split())


# ---------------------------------------------------------------- harness
def rand(dt, n=N, seed=0, special=True, lo=None, hi=None):
    """Random storage bytes (as a numpy array of the storage dtype) for `dt`."""
    rng = np.random.default_rng(seed)
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(np.bool_)
    if dt.kind in "iu":
        info = np.iinfo(np.dtype(dt.name))
        v = rng.integers(info.min, info.max, n, dtype=np.int64 if dt.name != "uint64" else np.uint64,
                         endpoint=True)
        v = v.astype(np.dtype(dt.name))
        small = rng.integers(-3 if dt.kind == "i" else 0, 4, n).astype(np.dtype(dt.name))
        v = np.where(rng.random(n) < 0.4, small, v)
        if special and n >= 4:
            v[:2] = [info.min, info.max]
        return v
    lo = -10.0 if lo is None else lo
    hi = 10.0 if hi is None else hi
    v = rng.uniform(lo, hi, n) * np.where(rng.random(n) < 0.2, 1e3, 1.0)
    v = np.where(rng.random(n) < 0.15, np.round(v * 2) / 2, v)  # halves for rounding modes
    if special and n >= 8:
        v[:7] = [0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, -2.5]
    return to_storage(v, dt)


def to_storage(v, dt):
    if dt is dtypes.bfloat16:
        from jaxweb._src.backends.reference_ops import f32_to_bf16_bits
        return f32_to_bf16_bits(np.asarray(v, np.float32))
    return np.asarray(v).astype(np_dtype(dt))


def values(raw: bytes, dt):
    arr = np.frombuffer(raw, dtype=np_dtype(dt))
    if dt is dtypes.bfloat16:
        return bf16_bits_to_f32(arr)
    return arr


def run(backend, kernel, arrays):
    ins = []
    for a in arrays:
        h = backend.alloc(a.nbytes)
        backend.write(h, a.tobytes())
        ins.append(h)
    nbytes = kernel.size * kernel.out_dtype.itemsize
    out = backend.alloc(nbytes)
    backend.run(kernel, out, ins)
    backend.synchronize()
    res = bytes(backend.read(out, nbytes))
    for h in ins + [out]:
        backend.free(h)
    return values(res, kernel.out_dtype)


def assert_same(kernel, arrays, ulp=0.0, atol=0.0):
    want = run(REF, kernel, arrays)
    got = run(WASM, kernel, arrays)
    assert got.shape == want.shape
    if kernel.out_dtype.kind != "f":
        np.testing.assert_array_equal(got, want, err_msg=kernel.key)
        return
    g64, w64 = got.astype(np.float64), want.astype(np.float64)
    nan_ok = np.isnan(g64) == np.isnan(w64)
    assert nan_ok.all(), f"NaN mismatch at {np.nonzero(~nan_ok)[0][:5]}: {got[~nan_ok][:5]} vs {want[~nan_ok][:5]}\n{kernel.key}"
    fin = ~np.isnan(w64)
    if ulp == 0 and atol == 0:
        np.testing.assert_array_equal(g64[fin], w64[fin], err_msg=kernel.key)
        return
    spacing = np.abs(np.spacing(np.abs(want[fin]).astype(np.float32 if kernel.out_dtype.itemsize <= 4 else np.float64)))
    if kernel.out_dtype.name in ("float16", "bfloat16"):
        spacing = np.abs(w64[fin]) * (2.0 ** -10 if kernel.out_dtype.name == "float16" else 2.0 ** -7) + 1e-30
    err = np.abs(g64[fin] - w64[fin])
    same_inf = np.isinf(g64[fin]) & (g64[fin] == w64[fin])
    bad = ~same_inf & (err > ulp * spacing + atol)
    ins = [a[fin][bad][:4] for a in arrays if a.shape == fin.shape]
    assert not bad.any(), (f"{kernel.key}\nat {np.nonzero(fin)[0][bad][:4]} inputs {ins}\n"
                           f"got {got[fin][bad][:4]} want {want[fin][bad][:4]}")


def elementwise(expr_fn, in_dts, out_dt=None, n=N):
    g = gidx((n,))
    loads = [E.load(i, dt, g[0]) for i, dt in enumerate(in_dts)]
    body = expr_fn(*loads)
    return Kernel((n,), body, out_dt or body.dtype, tuple(in_dts))


# ---------------------------------------------------------------- binary and unary ops
BIN_INT = "add sub mul div rem max min and or xor shl shr_logical shr_arith lt le gt ge eq ne pow".split()
BIN_FLOAT = "add sub mul div rem max min lt le gt ge eq ne pow atan2 nextafter".split()
BIN_BOOL = "and or xor eq ne lt max min".split()


@pytest.mark.parametrize("dt", ALL, ids=lambda d: d.name)
def test_binary(dt):
    ops = BIN_BOOL if dt.kind == "b" else BIN_INT if dt.kind in "iu" else BIN_FLOAT
    for op in ops:
        a, b = rand(dt, seed=1), rand(dt, seed=2)
        if op in ("shl", "shr_logical", "shr_arith"):
            b = to_storage(np.random.default_rng(3).integers(0, dt.itemsize * 8 + 3, N), dt)
            if dt.kind == "i":
                b[:3] = [-1, -5, 100]
        if op == "rem" and dt.kind == "f":
            a, b = rand(dt, seed=1, special=False), rand(dt, seed=2, special=False, lo=0.5, hi=9)
        if op == "pow" and dt.kind in "iu":
            b = to_storage(np.random.default_rng(4).integers(-3 if dt.kind == "i" else 0, 9, N), dt)
            a[2:6] = to_storage(np.array([1, 0, 2, 3]), dt)
            if dt.kind == "i":
                a[6:9] = [-1, -1, -2]
        if op == "pow" and dt.kind == "f":
            a = rand(dt, seed=1, lo=-3, hi=3)
            b = to_storage(np.random.default_rng(5).choice([-2.0, -1.5, 0.0, 0.5, 1.0, 2.0, 3.0, 2.7, np.nan], N), dt)
        k = elementwise(lambda x, y: E.binary(op, x, y), [dt, dt])
        tol = 4 if op in TRANSCENDENTAL else 0
        if dt is dtypes.float64 and op == "pow":
            tol = 64
        if dt.name in ("float16", "bfloat16") and op in TRANSCENDENTAL:
            tol = 1
        assert_same(k, [a, b], ulp=tol)


F64_ULP = {"erf": 64, "erfc": 256, "erf_inv": 64, "lgamma": 64}  # Chebyshev fits / cancellation


UN_FLOAT = """neg abs sign floor ceil round round_even sqrt rsqrt is_finite exp exp2 log log1p expm1
cbrt sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh erf erfc erf_inv lgamma logistic
real imag conj""".split()
UN_INT = "neg abs sign not population_count clz".split()


@pytest.mark.parametrize("dt", ALL, ids=lambda d: d.name)
def test_unary(dt):
    ops = ["not"] if dt.kind == "b" else UN_INT if dt.kind in "iu" else UN_FLOAT
    for op in ops:
        a = rand(dt, seed=7, lo=-4, hi=4)
        k = elementwise(lambda x: E.unary(op, x), [dt])
        tol = 0
        if op in TRANSCENDENTAL:
            tol = 1 if dt.name in ("float16", "bfloat16") else 4
            if dt is dtypes.float64:
                tol = F64_ULP.get(op, 8)
            if op == "lgamma":  # near its zeros at 1 and 2 the relative error grows
                atol = 1e-6  # absolute error ~1e-15 near lgamma(1) = lgamma(2) = 0
                assert_same(k, [a], ulp=tol, atol=atol)
                continue
        assert_same(k, [a], ulp=tol)


def test_digamma():
    for dt in (dtypes.float32, dtypes.float64):
        a = rand(dt, seed=8, lo=-6, hi=12)
        assert_same(elementwise(lambda x: E.unary("digamma", x), [dt]), [a], ulp=8, atol=1e-6)


@pytest.mark.parametrize("src", ALL, ids=lambda d: d.name)
def test_casts(src):
    for dst in ALL:
        a = rand(src, seed=11, lo=-300, hi=300)
        k = elementwise(lambda x: E.cast(x, dst), [src])
        # f64 -> f16 rounds twice here (via f32) and once in numpy: allow 1 ulp
        assert_same(k, [a], ulp=1 if (src.itemsize == 8 and dst.name == "float16") else 0)


def test_bitcasts():
    groups = [[dtypes.int8, dtypes.uint8], [dtypes.int16, dtypes.uint16, dtypes.float16, dtypes.bfloat16],
              [dtypes.int32, dtypes.uint32, dtypes.float32], [dtypes.int64, dtypes.uint64, dtypes.float64]]
    for group in groups:
        for src, dst in itertools.product(group, group):
            a = rand(src, seed=12, special=src.kind != "f")
            if src.kind == "f":  # NaN payloads are not preserved through f32 compute: use numbers
                a = rand(src, seed=12, special=False)
            assert_same(elementwise(lambda x: E.bitcast(x, dst), [src]), [a])


def test_where_and_select_types():
    for dt in ALL:
        c, a, b = rand(dtypes.bool_, seed=1), rand(dt, seed=2), rand(dt, seed=3)
        assert_same(elementwise(lambda p, x, y: E.where(p, x, y), [dtypes.bool_, dt, dt]), [c, a, b])


def test_constants_and_indices():
    for dt in ALL:
        g = gidx((5, 7))
        body = E.where(E.binary("lt", g[0], g[1]), E.cast(g[0] * 7 + g[1], dt), E.const(3, dt))
        assert_same(Kernel((5, 7), body, dt, ()), [])


# ---------------------------------------------------------------- reductions
@pytest.mark.parametrize("op", ["add", "mul", "max", "min"])
def test_reductions(op):
    for dt in ALL:
        rows, cols = 5, 13
        g, r = gidx((rows,)), ridx((cols,))
        body = E.load(0, dt, g[0] * cols + r[0])
        a = rand(dt, n=rows * cols, seed=21, special=False, lo=0.5, hi=1.5)
        if dt.kind == "f":
            a[3] = to_storage(np.array([np.nan]), dt)[0]
        k = Kernel((rows,), body, dt, (dt,), (cols,), op)
        tol = 0 if dt.kind != "f" or op in ("max", "min") else 1
        assert_same(k, [a], ulp=tol * 8)


def test_reduction_epilogue_and_hoisting():
    f32 = dtypes.float32
    rows, cols = 6, 11
    g, r = gidx((rows, 3)), ridx((cols,))
    x = E.load(0, f32, g[0] * cols + r[0])
    s = E.load(1, f32, g[1])
    body = E.unary("exp", x * s)  # s is hoisted above the r loop
    epi = E.unary("log", E.acc(f32)) + E.cast(g[1], f32)
    k = Kernel((rows, 3), body, f32, (f32, f32), (cols,), "add", epi)
    assert_same(k, [rand(f32, rows * cols, 1, False, -2, 2), rand(f32, 3, 2, False, 0, 1)], ulp=4)


def test_scalar_and_empty_kernels():
    f32 = dtypes.float32
    k = Kernel((), E.load(0, f32, E.const(2, dtypes.int32)) * 2.0, f32, (f32,))
    assert_same(k, [rand(f32, 5, 1, False)])
    g = gidx((0, 3))
    k = Kernel((0, 3), E.load(0, f32, g[1]), f32, (f32,))
    assert run(WASM, k, [rand(f32, 3, 1, False)]).size == 0
    r = ridx((0,))
    k = Kernel((2,), E.load(0, f32, r[0]), f32, (f32,), (0,), "add")
    np.testing.assert_array_equal(run(WASM, k, [rand(f32, 1, 1, False)]), [0.0, 0.0])


def test_complex_kernels_are_a_codegen_error():
    """complex values reach backends as pairs of floats (compiler/complex_pairs.py): a kernel
    that still has a complex dtype is a compiler bug, reported, never run another way."""
    c64 = dtypes.complex64
    g = gidx((5,))
    k = Kernel((5,), E.binary("add", E.load(0, c64, g[0]), E.load(0, c64, g[0])), c64, (c64,))
    with pytest.raises(NotImplementedError):
        WASM.program(k)
