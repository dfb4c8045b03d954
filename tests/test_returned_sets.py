"""Returned sets (memory.py): on webgpu a dead jitted-call output only notes its memory in
`Device.returned`; the next replayed call asking for exactly those buffers takes them straight
back, anything else hands them back the ordinary way first. Values, statistics and the pool
must be what they were without it."""
import gc

import numpy as np
import pytest

import jaxweb
import jaxweb.numpy as jnp
from jaxweb._src import memory
from jaxweb._src.backends.gpu.device import Handle

try:
    GPU = jaxweb.devices("webgpu")[0]
except RuntimeError as e:  # no wgpu-py or no adapter here
    pytest.skip(f"no webgpu device: {e}", allow_module_level=True)
CPU = jaxweb.devices("cpu")[0]


def _step(w, b, x, lr):
    def loss(w, b):
        return jnp.mean((jnp.tanh(x @ w + b) - 0.5) ** 2)
    lv, (gw, gb) = jaxweb.value_and_grad(loss, argnums=(0, 1))(w, b)
    return w - lr * gw, b - lr * gb, lv


def _loop(device, steps, keep=None, donate=False):
    """`steps` calls of a jitted step on `device` (keeping every step's outputs in `keep`)."""
    rng = np.random.default_rng(3)
    w0 = rng.standard_normal((24, 16)).astype(np.float32)
    x0 = rng.standard_normal((32, 24)).astype(np.float32)
    with jaxweb.default_device(device):
        step = jaxweb.jit(_step, donate_argnums=(0, 1) if donate else ())
        w, b, x = jnp.asarray(w0), jnp.zeros(16), jnp.asarray(x0)
        losses = []
        for t in range(steps):
            w, b, lv = step(w, b, x, 0.1 / (1 + t))
            losses.append(float(lv))
            if keep is not None:
                keep.append((w, lv) if donate else (w, b, lv))
        return np.asarray(w), np.asarray(b), losses


@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("donate", [False, True])
def test_a_loop_takes_its_outputs_memory_back_with_the_values_unchanged(monkeypatch, keep, donate):
    """A steady loop's calls take the buffers its outputs had two calls ago straight back (no
    pool: the backend's `alloc_many` is not asked); with every step's outputs kept alive there
    is nothing to take back (nor a replay), and the ordinary path runs. Either way the values
    are the cpu's."""
    be = GPU.backend
    asked, back = [], []
    many, taken_back = be.alloc_many, memory._taken_back
    monkeypatch.setattr(be, "alloc_many", lambda sizes, prefer: asked.append(len(sizes)) or many(sizes, prefer))
    monkeypatch.setattr(memory, "_taken_back", lambda *a: back.append(taken_back(*a)) or back[-1])
    kept: list = []
    got = _loop(GPU, 14, kept if keep else None, donate)
    want = _loop(CPU, 14, None, donate)
    np.testing.assert_allclose(got[0], want[0], rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], want[1], rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(got[2], want[2], rtol=2e-5, atol=1e-6)
    if keep:
        assert not any(back), back
    else:  # from the call after the program keeps its temporaries (replay.OWN_AFTER), every call
        assert len(asked) <= 1 and len(back) >= 14 - 8 and all(back[1:]), (asked, back)


def test_statistics_count_dead_outputs_as_freed():
    """Memory noted in `Device.returned` is handed back before statistics are read: deleting a
    call's outputs lowers bytes_in_use by exactly their bytes, as a free does."""
    kept: list = []
    _loop(GPU, 10, kept)
    gc.collect()
    before = GPU.memory_stats()["bytes_in_use"]
    last = kept[-1]
    nbytes = sum(a.nbytes for a in last)
    for a in last:
        a.delete()
    del kept[-1], last, a
    gc.collect()
    assert GPU.memory_stats()["bytes_in_use"] == before - nbytes
    assert not GPU.returned


def test_other_allocations_hand_noted_memory_back_first():
    """Any other allocation on the device first frees the noted memory the ordinary way (so the
    pool can give it out), and a CPU device notes nothing."""
    kept: list = []
    _loop(GPU, 6, kept)
    kept.clear()
    gc.collect()
    assert GPU.returned
    pooled = len(GPU.backend.pool)
    with jaxweb.default_device(GPU):
        y = jnp.asarray(np.ones(7, np.float32))
    assert not GPU.returned and len(GPU.backend.pool) >= pooled
    assert float(y.sum()) == 7.0
    assert CPU.returned is None


def test_reusable_refuses_lost_dead_or_written_memory(monkeypatch):
    """`reusable`: a call's buffers made by a device since lost, gone from the runtime, or with a
    write queued for them (that write would land in memory handed out again), go back through `free` instead."""
    be = GPU.backend
    a, b = be.alloc(1000), be.alloc(1000)
    try:
        assert be.reusable([a, b])
        old = Handle(a.buf, a.cap, gen=be.gen - 1)
        assert not be.reusable([old, b])
        monkeypatch.setattr(be.rt, "alive", lambda buf: buf is not a.buf)  # gone from the runtime
        assert not be.reusable([a, b]) and be.reusable([b])
        monkeypatch.undo()
        be.write_soon(b, b"\0\0\0\0")
        assert not be.reusable([a, b]) and be.reusable([a])
    finally:
        be.flush()
        be.free(a)
        be.free(b)
