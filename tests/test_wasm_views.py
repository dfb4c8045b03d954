"""wasm vs reference on view-shaped reads and on random kernels (fuzz).

Views come from ShapeTracker movement ops (flip = negative strides, pad = masks,
expand = broadcasting, shrink, permute, reshape that pushes a second view), so
index arithmetic, validity masks and out-of-range indices under a false mask are
all exercised. Invalid loads must not trap, however far out of range they point.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from jaxweb._src import dtypes
from jaxweb._src.compiler import expr as E
from jaxweb._src.compiler.kernel import Kernel, gidx, ridx
from jaxweb._src.compiler.shapetracker import ShapeTracker, prod

from test_wasm_ops import WASM, assert_same, rand, run

F32, I32 = dtypes.float32, dtypes.int32


def view_kernel(st: ShapeTracker, base_size: int, dt=F32):
    g = gidx(st.shape)
    index, valid = st.index(g)
    return Kernel(st.shape, E.load(0, dt, index, valid), dt, (dt,)), base_size


def test_flip_negative_strides():
    st = ShapeTracker.from_shape((5, 7)).flip((0, 1))
    k, n = view_kernel(st, 35)
    assert_same(k, [rand(F32, n, 1)])


def test_pad_masks_and_shrink():
    st = ShapeTracker.from_shape((5, 7)).pad(((2, 1), (0, 3))).shrink(((1, 7), (2, 10)))
    for dt in (F32, dtypes.int8, dtypes.bfloat16, dtypes.float16, dtypes.int64, dtypes.bool_):
        k, n = view_kernel(st, 35, dt)
        assert_same(k, [rand(dt, n, 2)])


def test_broadcast_and_permute():
    st = ShapeTracker.from_shape((3, 1, 5)).expand((3, 4, 5)).permute((2, 0, 1))
    k, n = view_kernel(st, 15)
    assert_same(k, [rand(F32, n, 3)])


def test_reshape_of_transposed_pushes_a_view():
    st = ShapeTracker.from_shape((6, 5)).permute((1, 0)).reshape((3, 10))
    assert len(st.views) == 2
    k, n = view_kernel(st, 30)
    assert_same(k, [rand(F32, n, 4)])


def test_invalid_loads_never_trap():
    """A masked load whose index is wildly out of range reads 0 and does not trap."""
    g = gidx((9,))
    for far in (-(1 << 30), (1 << 30), 10 ** 9, -1):
        index = g[0] * 1000003 + far
        valid = E.binary("lt", g[0], E.const(0, I32)) | E.binary("gt", g[0], E.const(100, I32))
        k = Kernel((9,), E.load(0, F32, index, valid) + 1.0, F32, (F32,))
        np.testing.assert_array_equal(run(WASM, k, [rand(F32, 4, 1, False)]), np.ones(9, np.float32))


def test_odd_sizes_and_empty():
    for n in (0, 1, 3, 5, 17, 63):
        g = gidx((n,))
        k = Kernel((n,), E.load(0, F32, g[0]) * 3.0 + E.load(1, F32, g[0]), F32, (F32, F32))
        a, b = rand(F32, max(n, 1), 1, False), rand(F32, max(n, 1), 2, False)
        assert_same(k, [a, b])


# ---------------------------------------------------------------- fuzz
def random_view(rng: random.Random, shape: tuple) -> tuple[ShapeTracker, int]:
    """A ShapeTracker that ends at `shape`, built backwards from a random base."""
    nd = len(shape)
    st_shape = list(shape)
    ops = []
    # decide: some dims broadcast (base 1), some padded, some flipped
    base = []
    for i, n in enumerate(shape):
        kind = rng.choice(["plain", "plain", "bcast", "pad", "shrink"])
        if kind == "bcast" or n == 0:
            base.append(1 if n else 0)
        elif kind == "pad" and n >= 2:
            lo = rng.randint(0, min(2, n - 1))
            hi = rng.randint(0, min(2, n - 1 - lo))
            base.append(n - lo - hi)
            ops.append(("pad", i, lo, hi))
        elif kind == "shrink":
            lo, hi = rng.randint(0, 2), rng.randint(0, 2)
            base.append(n + lo + hi)
            ops.append(("shrink", i, lo, hi))
        else:
            base.append(n)
    perm = list(range(nd))
    rng.shuffle(perm)
    inv = [perm.index(i) for i in range(nd)]
    st = ShapeTracker.from_shape(tuple(base[p] for p in perm)).permute(inv)
    cur = list(base)
    for op, i, lo, hi in ops:
        if op == "pad":
            w = [(0, 0)] * nd
            w[i] = (lo, hi)
            st = st.pad(tuple(w))
            cur[i] += lo + hi
        else:
            b = [(0, c) for c in cur]
            b[i] = (lo, cur[i] - hi)
            st = st.shrink(tuple(b))
            cur[i] -= lo + hi
    st = st.expand(tuple(shape))
    flips = tuple(i for i in range(nd) if rng.random() < 0.3)
    if flips:
        st = st.flip(flips)
    if rng.random() < 0.3 and prod(shape) > 0:
        st = st.reshape((prod(shape),)).reshape(tuple(shape))
    return st, max(prod(base), 1)


def random_expr(rng, leaves, depth):
    if depth == 0 or rng.random() < 0.25:
        return rng.choice(leaves)
    r = rng.random()
    a = random_expr(rng, leaves, depth - 1)
    if r < 0.55:
        b = random_expr(rng, leaves, depth - 1)
        op = rng.choice(["add", "sub", "mul", "max", "min", "div"] if a.dtype.kind == "f"
                        else ["add", "sub", "mul", "max", "min", "div", "rem", "xor", "shl"])
        return E.binary(op, a, b)
    if r < 0.75:
        op = rng.choice(["neg", "abs", "floor", "exp", "sin", "tanh"] if a.dtype.kind == "f" else ["neg", "abs", "not"])
        return E.unary(op, a)
    if r < 0.9:
        b, c = random_expr(rng, leaves, depth - 1), random_expr(rng, leaves, depth - 1)
        return E.where(E.binary("lt", a, b), b, c)
    return E.cast(E.cast(a, I32 if a.dtype.kind == "f" else F32), a.dtype)


def random_kernel(seed: int):
    rng = random.Random(seed)
    dt = rng.choice([F32, F32, I32, dtypes.float64, dtypes.int16])
    out_shape = tuple(rng.choice([1, 2, 3, 4, 5, 7]) for _ in range(rng.randint(0, 3)))
    red_shape = tuple(rng.choice([1, 3, 4, 6]) for _ in range(rng.randint(0, 2))) if rng.random() < 0.5 else ()
    full = out_shape + red_shape
    idxs = gidx(out_shape) + ridx(red_shape)
    leaves, arrays, in_dts = [], [], []
    for slot in range(rng.randint(1, 3)):
        st, size = random_view(rng, full)
        index, valid = st.index(idxs)
        leaves.append(E.load(slot, dt, index, valid))
        arrays.append(rand(dt, size, seed * 10 + slot, special=False, lo=-3, hi=3))
        in_dts.append(dt)
    leaves.append(E.const(rng.choice([1, 2, -3]), dt))
    if out_shape:
        leaves.append(E.cast(idxs[0], dt))
    body = random_expr(rng, leaves, 4)
    if red_shape:
        op = rng.choice(["add", "max", "min"])
        epi = E.acc(dt) * E.const(2, dt) if rng.random() < 0.5 else None
        return Kernel(out_shape, body, dt, tuple(in_dts), red_shape, op, epi), arrays
    return Kernel(out_shape, body, dt, tuple(in_dts)), arrays


@pytest.mark.parametrize("seed", range(60))
def test_fuzz(seed):
    k, arrays = random_kernel(seed)
    assert_same(k, arrays, ulp=16, atol=1e-9)
