"""ShapeTracker against numpy: random chains of movement ops index the same elements."""
import random

import numpy as np
import pytest

from jaxweb._src import dtypes
from jaxweb._src.compiler import expr as E
from jaxweb._src.compiler.kernel import Kernel, gidx
from jaxweb._src.compiler.shapetracker import ShapeTracker, View
from jaxweb._src.backends.reference import ReferenceBackend


def _apply_np(a, op, arg):
    if op == "reshape":
        return a.reshape(arg)
    if op == "permute":
        return a.transpose(arg)
    if op == "expand":
        return np.broadcast_to(a, arg)
    if op == "shrink":
        return a[tuple(slice(lo, hi) for lo, hi in arg)]
    if op == "pad":
        return np.pad(a, arg)
    if op == "flip":
        return np.flip(a, arg) if arg else a
    if op == "stride":
        return a[tuple(slice(None, None, s) for s in arg)]
    raise AssertionError(op)


def _random_op(rng, shape):
    nd = len(shape)
    op = rng.choice(["reshape", "permute", "expand", "shrink", "pad", "flip", "stride"])
    if op == "reshape":
        n = int(np.prod(shape))
        divs = [d for d in range(1, n + 1) if n % d == 0] or [1]
        a = rng.choice(divs)
        rest = n // a if a else 0
        b = rng.choice([d for d in range(1, rest + 1) if rest % d == 0] or [1])
        new = (a, b, rest // b if b else 0)
        return op, tuple(d for d in new if d != 1 or rng.random() < 0.5) or (n,) if n else (0,)
    if op == "permute":
        p = list(range(nd))
        rng.shuffle(p)
        return op, tuple(p)
    if op == "expand":
        return op, tuple(rng.choice([1, 3]) if d == 1 else d for d in shape)
    if op == "shrink":
        out = []
        for d in shape:
            lo = rng.randint(0, d)
            out.append((lo, rng.randint(lo, d)))
        return op, tuple(out)
    if op == "pad":
        return op, tuple((rng.randint(0, 2), rng.randint(0, 2)) for _ in shape)
    if op == "flip":
        return op, tuple(i for i in range(nd) if rng.random() < 0.5)
    return op, tuple(rng.randint(1, 3) for _ in shape)


def _gather_with_tracker(st: ShapeTracker, base: np.ndarray) -> np.ndarray:
    g = gidx(st.shape)
    index, valid = st.index(g)
    body = E.load(0, dtypes.int32, index, valid)
    k = Kernel(st.shape, body, dtypes.int32, (dtypes.int32,))
    be = ReferenceBackend()
    out = be.alloc(k.size * 4)
    inp = be.alloc(base.size * 4)
    be.write(inp, base.astype("<i4").tobytes())
    be.run(k, out, [inp])
    return np.frombuffer(be.read(out, k.size * 4), dtype="<i4").reshape(st.shape)


@pytest.mark.parametrize("seed", range(60))
def test_random_movement_chains_match_numpy(seed):
    rng = random.Random(seed)
    shape = tuple(rng.randint(1, 4) for _ in range(rng.randint(1, 3)))
    base = np.arange(1, int(np.prod(shape)) + 1, dtype=np.int32)
    ref = base.reshape(shape)
    st = ShapeTracker.from_shape(shape)
    for _ in range(rng.randint(1, 6)):
        op, arg = _random_op(rng, st.shape)
        try:
            expected = _apply_np(ref, op, arg)
        except ValueError:
            continue
        st = getattr(st, op)(arg)
        ref = expected
        assert st.shape == ref.shape
    np.testing.assert_array_equal(_gather_with_tracker(st, base), ref)


def test_reshape_of_transpose_pushes_a_view_only_when_needed():
    st = ShapeTracker.from_shape((2, 3)).permute((1, 0))
    assert len(st.reshape((6,)).views) == 2           # not expressible on strides
    assert len(st.reshape((3, 2, 1)).views) == 1       # adding a unit dim is
    c = ShapeTracker.from_shape((4, 6))
    assert len(c.reshape((2, 2, 3, 2)).views) == 1 and c.reshape((24,)).is_contiguous


def test_view_index_simplifies_to_plain_arithmetic():
    st = ShapeTracker.from_shape((4, 6)).reshape((24,)).reshape((4, 6))
    g = gidx((4, 6))
    index, valid = st.index(g)
    assert valid.is_const and valid.arg is True
    assert index.render() == "add(mul(g0, 6:int32), g1)"


def test_pad_mask_and_flip_offsets():
    v = View.contiguous((3,)).pad(((2, 1),))
    assert v.shape == (6,) and v.mask == ((2, 5),) and v.offset == -2
    f = View.contiguous((3,)).flip((0,))
    assert f.strides == (-1,) and f.offset == 2
