"""A jitted call that matches an earlier one replays its recorded commands (webgpu replay.py):
a training loop's steps after the first two are replays, their values the same as the cpu
backend's; recordings are dropped when a bind group or buffer they name goes; donated inputs,
views and the profiler keep working."""
from collections import OrderedDict

import numpy as np
import pytest

import jaxweb
import jaxweb.numpy as jnp
from donated_steps import run_adam, run_update
from jaxweb._src.backends.webgpu import codegen

try:
    GPU = jaxweb.devices("webgpu")[0]
except RuntimeError as e:  # no wgpu-py or no adapter here
    pytest.skip(f"no webgpu device: {e}", allow_module_level=True)
CPU = jaxweb.devices("cpu")[0]
rng = np.random.default_rng(7)


def _step(w, b, x, lr):
    def loss(w, b):
        return jnp.mean((jnp.tanh(x @ w + b) - 0.5) ** 2)
    gw, gb = jaxweb.grad(loss, argnums=(0, 1))(w, b)
    return w - lr * gw, b - lr * gb


def _train(device, steps, donate=False, between=None):
    w0 = rng.standard_normal((24, 16)).astype(np.float32)
    x0 = rng.standard_normal((32, 24)).astype(np.float32)
    out = {}
    for d in (CPU, device):
        with jaxweb.default_device(d):
            step = jaxweb.jit(_step, donate_argnums=(0, 1) if donate else ())
            w, b, x = jnp.asarray(w0), jnp.zeros(16), jnp.asarray(x0)
            for t in range(steps):
                w, b = step(w, b, x, 0.1 / (1 + t))  # a new Python scalar each step: still one program
                if between is not None and d is device:
                    between(t)
            out[d.platform] = (np.asarray(w), np.asarray(b))
    for r, g in zip(out["cpu"], out[device.platform]):
        np.testing.assert_allclose(g, r, rtol=2e-5, atol=1e-6)


def test_a_training_loop_replays():
    """Steps 1-3 record (the loop's two sets of buffers: step 3 gets step 1's), 4-5 replay; then
    the program keeps its temporaries (two new recordings), and every later step replays."""
    from jaxweb._src.backends.webgpu import replay
    be = GPU.backend
    before, kept = dict(be.stats), be.kept_bytes
    _train(GPU, 12)
    replays = be.stats["replays"] - before["replays"]
    assert replays == 12 - 5, be.stats
    assert be.kept_bytes > kept and replay.OWN_AFTER == 2


@pytest.mark.parametrize("donate", [False, True])
def test_recordings_are_dropped_when_what_they_bind_goes(donate):
    """Bind groups released (as the cache's LRU does) between steps: the next call records
    anew rather than replaying dead ids; values stay right, with donated inputs too."""
    be = GPU.backend

    def evict(t):
        if t % 3 == 1:
            for key in list(be._groups):
                be._release(be._groups.pop(key)[0])
    epoch = be.epoch
    _train(GPU, 7, donate=donate, between=evict)
    assert be.epoch > epoch


def test_kept_temporaries_go_back_with_their_program():
    import gc
    be = GPU.backend
    before = be.kept_bytes
    _train(GPU, 6)
    assert be.kept_bytes > before
    jaxweb.clear_caches()  # every compiled program goes (others may hold eager schedules)
    gc.collect()
    assert be.kept_bytes <= before


def test_no_replay_while_tracing(tmp_path):
    be = GPU.backend
    with jaxweb.default_device(GPU):
        f = jaxweb.jit(lambda a: a * 2 + 1)
        x = jnp.arange(8.0)
        for _ in range(3):
            f(x).block_until_ready()
        n = be.stats["replays"]
        with jaxweb.profiler.trace(str(tmp_path)):
            np.testing.assert_array_equal(np.asarray(f(x)), np.arange(8.0) * 2 + 1)
        assert be.stats["replays"] == n
        y = jnp.arange(12.0)[2:10]  # a view as the input: not recorded, still right
        for _ in range(3):
            np.testing.assert_array_equal(np.asarray(f(y)), np.arange(2.0, 10.0) * 2 + 1)


def test_a_queued_write_keeps_its_place():
    """`write_soon` (a jitted call's scalar argument, written with the call's submit): commands
    queued before it still read the old bytes, a read sees it, and a write queued for memory
    freed before the next submit is dropped (the pool may hand that memory out again)."""
    from jaxweb._src import dtypes
    from jaxweb._src.device import Buffer
    be = GPU.backend
    f32 = dtypes.float32
    a, b = Buffer(GPU, 4, f32), Buffer(GPU, 4, f32)
    a.write(np.ones(4, np.float32).tobytes())
    be.copy(b.handle, a.handle, 16)  # queued, reads a's ones
    be.write_soon(a.handle, np.full(4, 2, np.float32).tobytes())
    assert not be._pending
    assert np.frombuffer(bytes(a.read()), np.float32).tolist() == [2.0] * 4
    assert np.frombuffer(bytes(b.read()), np.float32).tolist() == [1.0] * 4
    c = Buffer(GPU, 4, f32)
    be.write_soon(c.handle, np.full(4, 3, np.float32).tobytes())
    assert be._writes
    del c
    assert not be._writes


@pytest.mark.parametrize("device", [CPU, GPU], ids=["cpu", "webgpu"])
def test_a_donated_output_shared_by_a_view_is_copied(device):
    """A jitted call's outputs get view nodes outside the hash-consing cache (graph.fresh_view):
    another array reading the same buffer (a reshape of the output) must still stop a donation
    from overwriting it."""
    with jaxweb.default_device(device):
        make = jaxweb.jit(lambda x: x * 2)
        bump = jaxweb.jit(lambda w: w + 1, donate_argnums=0)
        for _ in range(3):  # replayed calls too
            w = make(jnp.arange(12.0).reshape(3, 4))
            flat = w.reshape(12)
            out = bump(w)
            np.testing.assert_array_equal(np.asarray(flat), np.arange(12.0) * 2)
            np.testing.assert_array_equal(np.asarray(out), np.arange(12.0).reshape(3, 4) * 2 + 1)


def test_outputs_taken_in_one_step_all_or_none(monkeypatch):
    """`alloc_many` (a steady replay's outputs): pooled buffers first, each its preferred one when
    free; if one allocation fails, every buffer taken goes back to the pool."""
    from jaxweb._src.backends.gpu.device import size_class
    be = GPU.backend
    a, b = be.alloc(1000), be.alloc(5000)
    be.free(a)
    be.free(b)
    pooled = len(be.pool)
    got = be.alloc_many([1000, 5000], [(a,), (b,)])
    assert got == [a, b] and len(be.pool) == pooled - 2  # the very handles: nothing made
    for h in got:
        be.free(h)

    def refuse(nbytes):
        raise MemoryError("no memory for the test")
    monkeypatch.setattr(be, "alloc", refuse)
    with pytest.raises(MemoryError):  # the 3rd has no pooled buffer of its class (~97 MB): refused
        be.alloc_many([1000, 5000, (97 << 20) + 5], [(a,), (b,), ()])
    assert len(be.pool) == pooled and size_class(1000) == a.cap


def test_a_donated_adam_step_gives_the_undonated_values():
    """The kernels' own temporaries (a donated input's copy) never reuse memory the call's memory
    steps freed up front: it may still be read by a later kernel (the first layer's update)."""
    want, _ = run_adam(GPU, False, 5)
    for hold in (False, True):
        got, _ = run_adam(GPU, True, 5, hold)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


def test_a_donated_adam_step_replays():
    """Each output takes its own donated input's memory (paired as JAX pairs them, compiler/
    memory.py), so the step binds the same buffers every call and replays as the undonated one
    does: every call from the 8th (the 6th-7th record again once the temporaries are kept)."""
    want, plain = run_adam(GPU, False, 12)
    got, donated = run_adam(GPU, True, 12)
    assert donated == plain and donated[7:] == [1] * 5, (donated, plain)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def _copies(monkeypatch, be) -> list:
    """The sizes of the copies `be` records from now on (the list grows as it does)."""
    copies = []
    copy = be.copy

    def counted(dst, src, nbytes):
        copies.append(nbytes)
        copy(dst, src, nbytes)
    monkeypatch.setattr(be, "copy", counted)
    return copies


@pytest.mark.parametrize("tied", [True, False], ids=["in-place", "copies"])
def test_a_donated_update_copies_nothing(monkeypatch, tied):
    """Adam's elementwise updates write over their donated inputs (compiler/memory.py) and read
    them through their outputs' bindings (codegen.tie): no copy, so a step's dispatches stay in one
    compute pass. Reading from copies (`tie_in_place` off) takes one per input written over. The
    values are the undonated update's either way."""
    be = GPU.backend
    monkeypatch.setattr(be, "tie_in_place", tied)
    want = run_update(GPU, False, 4)
    copies = _copies(monkeypatch, be)
    got = run_update(GPU, True, 4)
    assert (copies == []) if tied else len(copies) >= 9, copies  # 3 kernels x 3 inputs
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_tie_reads_an_input_from_its_outputs_binding():
    """codegen.tie: the input's declaration goes, its uses read the output, later bindings move
    down one (`in1` is not `in10`); None where the two arrays' types differ."""
    code = ("@group(0) @binding(0) var<storage, read_write> out0: array<u32>;\n"
            "@group(0) @binding(1) var<storage, read> in0: array<vec4<u32>>;\n"
            "@group(0) @binding(2) var<storage, read> in1: array<u32>;\n"
            "@group(0) @binding(3) var<uniform> dims: vec4<u32>;\n"
            "fn main() { _ = &in0; _ = &in1; out0[0] = in1[0] + in10; }\n")
    shader = codegen.Shader(code, (1, 1, 1), 1, 2, dynamic=True)
    tied = codegen.tie(shader, {1: 0})
    assert tied.n_in == 1 and tied.code == code.replace(
        "@group(0) @binding(2) var<storage, read> in1: array<u32>;\n", "").replace(
        "@binding(3)", "@binding(2)").replace("in1;", "out0;").replace("in1[0]", "out0[0]")
    assert codegen.tie(shader, {0: 0}) is None  # a vec4 input, a u32 output


def test_an_untieable_in_place_kernel_reads_a_copy(monkeypatch):
    """Where the shader cannot read the input through its output's binding, the input is copied
    first, as before ties: values as undonated."""
    monkeypatch.setattr(codegen, "tie", lambda shader, ties: None)
    be = GPU.backend
    monkeypatch.setattr(be, "_programs", OrderedDict())  # no tied variants made by earlier tests
    copies = _copies(monkeypatch, be)
    want = run_update(GPU, False, 5)
    got = run_update(GPU, True, 5)
    assert copies
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_a_run_that_submits_midway_is_not_recorded(monkeypatch):
    """A run is recorded as the commands pending after its kernels; if something inside the run
    submitted what was pending (a copy the queue cannot do, which goes through the host: read,
    then write, each flushing first), the recording would hold only the tail and its replays
    would skip the kernels before it. Such a run is not recorded: values stay right."""
    be = GPU.backend
    want = run_update(GPU, False, 10)
    copy = be.copy

    def copy_then_flush(dst, src, nbytes):  # as the misaligned path does
        copy(dst, src, nbytes)
        be.flush()
    monkeypatch.setattr(be, "copy", copy_then_flush)
    monkeypatch.setattr(be, "tie_in_place", False)
    got = run_update(GPU, True, 10)  # donated updates: their in-place kernels read copies
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
