"""A jitted call that matches an earlier one replays its prebuilt launches (backends/wasm/replay.py):
a training loop's steps replay after the first few, their values exactly those of the same steps
run without replay (and close to the cpu backend's), with donated inputs, views among the inputs
and split (threaded) launches; recordings go when a module is unloaded or the memory grows; a
kernel that fails in a replay is named; nothing is recorded while the profiler traces or for
schedules with host steps. The allocator's preferred addresses (what makes a loop's buffers
repeat) are tested at the end."""
import numpy as np
import pytest

import jaxweb
import jaxweb.numpy as jnp
from donated_steps import run_adam
from test_memory import FakeRuntime  # pages only
from jaxweb._src.backends.wasm import replay
from jaxweb._src.backends.wasm.allocator import ALIGN, Allocator
from jaxweb._src.backends.wasm.backend import WasmBackend
from jaxweb._src.device import Device

WASM = jaxweb.devices("wasm")[0]
CPU = jaxweb.devices("cpu")[0]
BE = WASM.backend
rng = np.random.default_rng(11)


@pytest.fixture
def no_replay():
    """Run the body with the replay off (restored after)."""
    replay.ENABLED = False
    try:
        yield
    finally:
        replay.ENABLED = True


def _mlp_init(sizes=(784, 64, 32, 10)):
    p = {}
    for i, (m, n) in enumerate(zip(sizes[:-1], sizes[1:])):
        p[f"w{i}"] = (rng.standard_normal((m, n)) / m ** 0.5).astype(np.float32)
        p[f"b{i}"] = np.zeros(n, np.float32)
    return p


def _mlp_step(p, mu, x, y, bc):
    """The MNIST step of benchmarks/bench_wasm_replay.py, smaller: relu MLP, log-softmax NLL,
    momentum with a bias correction passed as a 0-d array."""
    def loss(p):
        a = x
        for i in range(3):
            a = a @ p[f"w{i}"] + p[f"b{i}"]
            a = jaxweb.nn.relu(a) if i < 2 else jaxweb.nn.log_softmax(a)
        return -(a * jaxweb.nn.one_hot(y, 10)).sum() / y.shape[0]
    l, g = jaxweb.value_and_grad(loss)(p)
    mu = jaxweb.tree.map(lambda m, g: 0.9 * m + 0.1 * g, mu, g)
    p = jaxweb.tree.map(lambda w, m: w - 0.05 * m * bc, p, mu)
    return p, mu, l


def _run_mlp(device, steps, batch=128, donate=False):
    p0 = _mlp_init()
    x0 = rng.standard_normal((batch, 784)).astype(np.float32)
    y0 = rng.integers(0, 10, batch)
    with jaxweb.default_device(device):
        step = jaxweb.jit(_mlp_step, donate_argnums=(0, 1) if donate else ())
        p = {k: jnp.asarray(v) for k, v in p0.items()}
        mu = {k: jnp.zeros_like(v) for k, v in p.items()}
        x, y = jnp.asarray(x0), jnp.asarray(y0)
        losses = []
        for t in range(1, steps + 1):
            p, mu, l = step(p, mu, x, y, jnp.float32(1 / (1 - 0.9 ** t)))
            losses.append(float(l))
        return {k: np.asarray(v) for k, v in p.items()}, losses


@pytest.mark.parametrize("donate", [False, True])
def test_the_mnist_step_replays_and_gives_the_first_runs_values(no_replay, donate):
    """Replay off, then on, from the same data: bit-identical parameters and losses (a replay
    runs the same launches), with the parameters donated or not; the cpu backend agrees
    closely. Its big products are split over the worker threads (wasmtime's pool; Pyodide's:
    tests/pyodide/inside)."""
    rng_state = rng.bit_generator.state
    want, want_l = _run_mlp(WASM, 8, donate=donate)
    replay.ENABLED = True
    rng.bit_generator.state = rng_state
    before = BE.stats["replays"]
    calls = []
    encode = BE.rt.encode
    BE.rt.encode = lambda launches: calls.append(launches) or encode(launches)
    try:
        got, got_l = _run_mlp(WASM, 8, donate=donate)
    finally:
        del BE.rt.encode
    assert BE.stats["replays"] - before >= 4, BE.stats
    assert got_l == want_l
    for k in want:
        np.testing.assert_array_equal(got[k], want[k])
    if getattr(BE.rt, "workers", 1) > 1:
        assert any(align is not None for launches in calls for _, _, _, align in launches), "no split launch"
    rng.bit_generator.state = rng_state
    ref, ref_l = _run_mlp(CPU, 8)
    np.testing.assert_allclose(got_l, ref_l, rtol=1e-4)
    for k in ref:  # sums in another order; a hidden unit near relu's kink differs more (here: 1 of 64)
        assert np.linalg.norm(got[k] - ref[k]) <= 2e-3 * np.linalg.norm(ref[k]), k


def _step(w, b, x, lr):
    def loss(w, b):
        return jnp.mean((jnp.tanh(x @ w + b) - 0.5) ** 2)
    gw, gb = jaxweb.grad(loss, argnums=(0, 1))(w, b)
    return w - lr * gw, b - lr * gb


def _train(steps, donate=False, between=None, view=False):
    """(wasm's w, b after `steps`, cpu's): `view` passes x as a slice of a bigger array."""
    w0 = rng.standard_normal((24, 16)).astype(np.float32)
    x0 = rng.standard_normal((40, 24)).astype(np.float32)
    out = []
    for d in (WASM, CPU):
        with jaxweb.default_device(d):
            step = jaxweb.jit(_step, donate_argnums=(0, 1) if donate else ())
            w, b, xs = jnp.asarray(w0), jnp.zeros(16), jnp.asarray(x0)
            for t in range(steps):
                x = xs[t % 8: t % 8 + 32] if view else xs[:32]
                w, b = step(w, b, x, 0.1 / (1 + t))  # a new Python scalar each step: still one program
                if between is not None and d is WASM:
                    between(t)
            out.append((np.asarray(w), np.asarray(b)))
    for g, r in zip(*out):
        np.testing.assert_allclose(g, r, rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("donate", [False, True])
def test_a_training_loop_replays(donate):
    """Step 1 runs as ever, 2-4 record (the loop's two sets of addresses settle), the rest replay."""
    before = BE.stats["replays"]
    _train(12, donate=donate)
    assert BE.stats["replays"] - before >= 12 - 4, BE.stats


def test_views_among_the_inputs():
    """x a different slice each step (its copy is a new buffer): values stay right."""
    _train(10, view=True)


def _module(params: list, *body: str) -> int:
    """A module loaded on the wasm runtime: run(params) = body."""
    from jaxweb._src.backends.wasm.assembler import Func, Module
    m = Module(shared=getattr(BE.rt, "shared", False))
    f = Func(params)
    for op in body:
        f.emit(op)
    m.add(f, export="run")
    return BE.rt.load(m.encode())


def _unload_a_module() -> None:
    """Load a module and unload it (what the program cache's LRU does to old kernels)."""
    BE.rt.unload(_module(["i32"]))


def test_recordings_go_when_a_module_is_unloaded():
    """A module unloaded between steps changes the runtime's epoch: the next call records
    anew instead of replaying dead handles; values stay right."""
    def unload_one(t):
        if t % 3 == 1:
            _unload_a_module()
    before = BE.stats["replays"]
    _train(10, between=unload_one)
    assert BE.stats["replays"] - before <= 10 - 4 - 3  # the calls after each unload recorded again


def test_a_memory_grow_drops_recordings():
    with jaxweb.default_device(WASM):
        f = jaxweb.jit(lambda a, b: jnp.tanh(a @ b) + 1.0)
        a, b = jnp.ones((16, 16)), jnp.ones((16, 16))
        for _ in range(4):
            f(a, b).block_until_ready()
        n, epoch = BE.stats["replays"], BE.rt.epoch
        BE.rt.grow(1)
        assert BE.rt.epoch != epoch
        np.testing.assert_allclose(np.asarray(f(a, b)), np.tanh(np.full((16, 16), 16.0)) + 1, rtol=1e-6)
        assert BE.stats["replays"] == n  # recorded anew
        f(a, b).block_until_ready()
        assert BE.stats["replays"] == n + 1


def test_a_kernel_that_fails_in_a_replay_is_named():
    """A replayed launch that traps raises with the kernel's name, as an unbatched launch's
    error does. (Made to trap by swapping its module for one that runs `unreachable`, named
    as the backend names the modules it compiles: an address past the memory would not do,
    wasmtime 50 panics on faults in a shared memory.)"""
    if BE.rt.name != "wasmtime":
        pytest.skip("edits wasmtime's encoded launches (Pyodide's: tests/pyodide/inside/check_wasm_runtime.py)")
    old = {id(p) for p in _plans()}
    with jaxweb.default_device(WASM):
        f = jaxweb.jit(lambda a: jnp.sin(a) * 2.0)
        a = jnp.ones(256)
        for _ in range(4):
            f(a).block_until_ready()
        recs = [r for p in _plans() if id(p) not in old for r in p.recordings.values()]
        assert recs
        trap = _module(["i32"] * 4, "unreachable")
        BE._name(trap, "the_trapping_kernel")
        for r in recs:  # (epoch, (runtime's epoch, thread, [(handle, chunks, looked-up run)]))
            r[1][2][:] = [(trap, chunks, BE.rt._direct(trap, chunks)) for _, chunks, _ in r[1][2]]
        import faulthandler
        on = faulthandler.is_enabled()
        faulthandler.disable()  # pytest's handler takes the trap's signal before wasmtime can
        try:
            with pytest.raises(Exception, match="unreachable") as e:
                f(a).block_until_ready()
        finally:
            if on:
                faulthandler.enable()
        assert "while running kernel 'the_trapping_kernel' on the wasm device" in e.value.__notes__
    BE.rt.unload(trap)


def _plans():
    """The replay plans of live prepared schedules (by walking the garbage collector's objects)."""
    import gc
    return [o for o in gc.get_objects() if isinstance(o, replay.Plan)]


def test_no_replay_while_tracing(tmp_path):
    """While the profiler traces, each launch runs alone (it is timed): a program that replays
    outside the trace runs its kernels one by one inside it, with the same values."""
    n0 = BE.stats["replays"]
    with jaxweb.default_device(WASM):
        g = jaxweb.jit(lambda a, b: jnp.exp(a) @ b - 1.0)
        a = jnp.full((8, 8), 0.5)
        outs = [np.asarray(g(a, a)) for _ in range(4)]
        assert BE.stats["replays"] > n0
        n = BE.stats["replays"]
        with jaxweb.profiler.trace(str(tmp_path)):
            traced = np.asarray(g(a, a))
    assert BE.stats["replays"] == n
    np.testing.assert_array_equal(traced, outs[-1])


def test_host_steps_are_not_recorded():
    """A while loop (run by the executor between kernels) is not replayed; its body's
    sub-schedule may be (wasmtime: no batch to keep it in), and the values stay right."""
    with jaxweb.default_device(WASM):
        f = jaxweb.jit(lambda x, n: jaxweb.lax.while_loop(lambda c: c[1] < n, lambda c: (c[0] * 1.5 + 1, c[1] + 1),
                                                          (x, 0))[0])
        x = jnp.arange(4.0)
        want = np.arange(4.0, dtype=np.float32)
        for _ in range(5):
            want = want * 1.5 + 1
        for _ in range(4):
            np.testing.assert_allclose(np.asarray(f(x, 5)), want, rtol=1e-6)
    assert not any(p.recordings for p in _plans() if not p.ok)


# ---------------------------------------------------------------- the allocator's preferences
def test_a_preferred_address_inside_a_free_block_is_taken_there():
    h = Allocator(FakeRuntime())
    a, b, c = h.alloc(1000), h.alloc(1000), h.alloc(1000)
    h.free(a)
    h.free(b)  # one free block [a, c)
    h.prefer = (b,)
    assert h.alloc(500) == b
    h.prefer = ()
    assert h.alloc(900) == a  # the split-off part before it is still free
    assert h.alloc(512) == b + 512  # and the part after it
    assert h.used[c] == 1024


def test_a_preferred_address_past_the_top_or_taken_falls_back():
    h = Allocator(FakeRuntime())
    a = h.alloc(256)
    h.prefer = (a, h.top + 10 * ALIGN)  # a is in use: the next preference, past the top
    p = h.alloc(256)
    assert p == a + 256 + 10 * ALIGN
    assert h.alloc(10 * ALIGN) == a + 256  # the gap below it became a free block
    h.prefer = (a,)
    q = h.alloc(128)  # nothing preferred is free: the ordinary choice
    assert q not in (a, p)
    h.prefer = ()
    for ptr in (a, p, q):
        h.free(ptr)
    assert h.in_use == 10 * ALIGN


def test_preferences_mixed_with_plain_allocations_find_free_memory_exactly():
    """The sorted free-block starts are kept only while preferences come (dropped by a plain
    allocation, rebuilt by the next preference): with both mixed at random, a preferred address
    that lies in a free block with room is always taken there, and one that does not never is."""
    import random
    rng = random.Random(5)
    h = Allocator(FakeRuntime())
    live: list[int] = []
    for step in range(3000):
        if live and rng.random() < 0.45:
            h.free(live.pop(rng.randrange(len(live))))
            continue
        size = Allocator.block_bytes(rng.randrange(1, 4096))
        want = rng.randrange(ALIGN, h.top + 8 * ALIGN) // ALIGN * ALIGN if rng.random() < 0.6 else None
        fits = want is not None and (want >= h.top or any(
            s <= want and want + size <= s + n for s, n in h.free_at.items()))
        h.prefer = (want,) if want is not None else ()
        ptr = h.alloc(size)
        h.prefer = ()
        assert (ptr == want) == fits, (step, want, ptr)
        live.append(ptr)
        assert h.starts in (None, sorted(h.free_at)) and (want is not None or h.starts is None), step
    for ptr in live:
        h.free(ptr)
    assert h.in_use == 0 and h.top == ALIGN


def test_kept_temporaries_go_back_with_their_program():
    """From its second run a program keeps its temporaries (its replays allocate only their
    outputs); clearing the caches gives them back."""
    import gc
    before = BE.kept_bytes
    allocs = BE.allocator.num_allocs
    with jaxweb.default_device(WASM):
        f = jaxweb.jit(lambda a, b: (jnp.tanh(a @ b) @ b).sum(0) + 1.0)
        a, b = jnp.ones((64, 64)), jnp.full((64, 64), 0.01)
        want = np.asarray(f(a, b))
        for _ in range(4):
            np.testing.assert_array_equal(np.asarray(f(a, b)), want)
        assert BE.kept_bytes > before
        allocs = BE.allocator.num_allocs
        f(a, b).block_until_ready()
        assert BE.allocator.num_allocs - allocs == 1  # its one output
    del f
    jaxweb.clear_caches()
    gc.collect()
    assert BE.kept_bytes <= before  # (and those of programs other tests left)


def test_bytes_written_soon_reach_the_next_replay():
    """`write_soon` (a jitted call's scalar argument) is seen by the replay that follows it."""
    import struct
    with jaxweb.default_device(WASM):
        f = jaxweb.jit(lambda a, s: a * s + 1.0)
        a, s = jnp.arange(4.0), jnp.asarray(np.float32(2.0))
        for _ in range(4):
            f(a, s).block_until_ready()
        n = BE.stats["replays"]
        BE.write_soon(s.held_buffer().handle, struct.pack("<f", 3.0))
        np.testing.assert_array_equal(np.asarray(f(a, s)), np.arange(4.0) * 3 + 1)
        assert BE.stats["replays"] == n + 1


def test_alloc_many_prefers_and_is_all_or_nothing():
    from jaxweb._src.errors import ResourceExhaustedError
    h = Allocator(FakeRuntime(), limit=1 << 16)
    a, b = h.alloc(1024), h.alloc(1024)
    h.free(a)
    h.free(b)
    got = h.alloc_many([512, 512], [(b,), (a,)])
    assert got == [b, a] and h.prefer == ()
    used = h.in_use
    with pytest.raises(ResourceExhaustedError):
        h.alloc_many([256, 1 << 17], [(), ()])
    assert h.in_use == used and h.prefer == ()


def test_an_unload_during_a_call_waits_for_it():
    """A module unloaded while a call runs (a garbage-collector finalizer, or another thread)
    is unloaded when the call ends: a raw call holds its store's context."""
    rt = BE.rt
    if rt.name != "wasmtime":
        pytest.skip("wasmtime's stores")
    h = _module(["i32"] * 3)
    rt._enter()
    try:
        epoch = rt.epoch
        rt.unload(h)
        assert rt.epoch == epoch and h in rt._deferred
    finally:
        rt._leave()
    assert rt.epoch != epoch and not rt._deferred


@pytest.mark.parametrize("fn", [lambda x: x, lambda x, y=None: (x, x), lambda x: (x, jnp.float32(2.0))])
def test_programs_that_allocate_nothing_replay(fn):
    """Outputs that are inputs or constants: no allocation at all in a steady call."""
    with jaxweb.default_device(WASM):
        f = jaxweb.jit(fn)
        x = jnp.arange(5.0)
        for _ in range(5):
            out = f(x)
        for o in jaxweb.tree.leaves(out):
            assert np.asarray(o).size in (1, 5)



def test_a_donated_adam_step_replays_as_the_undonated_one():
    """Parameters and both moments (same shapes) donated: each output takes its own input's
    memory (compiler/memory.py pairs them as JAX does), not a rotating other's, so the call binds
    the same addresses each step and replays as the undonated step does, with the same values.
    On a wasm device of its own: the step at which a loop's addresses settle depends on how the
    free memory lies, which the frees of earlier tests (and when collections ran) would decide."""
    dev = Device("wasm", 31, WasmBackend())
    want, plain = run_adam(dev, False, 10)
    got, donated = run_adam(dev, True, 10)
    assert donated == plain and donated[4:] == [1] * 6, (donated, plain)
    held, _ = run_adam(dev, True, 10, hold=True)  # a second reference: the donation copies first
    for g, h, w in zip(got, held, want):
        np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(h, w)


def test_outputs_preferences_survive_switching_between_the_lean_and_the_stepwise_path():
    """replay_steps: take_outputs keeps each output's last two handles as two lists (no pair per
    buffer per call); memory_steps spreads them back into pairs first, so either path prefers
    what the other one allocated."""
    from jaxweb._src.backends import replay_steps as rs
    had, outs, asked = {}, [5, 6], []

    def many(sizes, older, old, what):
        asked.append((list(older), list(old)))
        return [f"h{len(asked)}{b}" for b in outs]
    for _ in range(3):
        rs.take_outputs(outs, [4, 4], [], had, [], many)
    assert asked == [([None, None], [None, None]), ([None, None], ["h15", "h16"]),
                     (["h15", "h16"], ["h25", "h26"])]
    wanted = []
    rs.memory_steps([(0, 5, 4, "x")], had, [], lambda n, what: "m5", lambda h, n: None, {5: 4},
                    lambda was: wanted.append(was))
    assert wanted == [("h25", "h35"), ()] and had[5] == ("h35", "m5") and had[6] == ("h26", "h36")
    rs.take_outputs(outs, [4, 4], [], had, [], many)
    assert asked[-1] == (["h35", "h26"], ["m5", "h36"])


def test_outputs_taken_back_as_two_calls_ago_reuse_that_calls_dicts_only_with_the_same_inputs():
    """take_outputs: the very outputs list of two calls ago (what `Allocator.many` hands back in a
    steady loop) with equal inputs gets that call's live dict again; other inputs, a new one."""
    from jaxweb._src.backends import replay_steps as rs
    had, outs, sets = {}, [2, 3], [["a2", "a3"], ["b2", "b3"]]
    turn = iter(range(100))

    def many(sizes, older, old, what):
        return sets[next(turn) % 2]
    first = rs.take_outputs(outs, [4, 4], [(3, 0)], had, ["x", "y"], many)
    second = rs.take_outputs(outs, [4, 4], [(3, 0)], had, ["x", "y"], many)
    third = rs.take_outputs(outs, [4, 4], [(3, 0)], had, ["x", "y"], many)
    assert third[0] is first[0] and second[0] is not first[0]
    assert first[0] == {0: "x", 1: "y", 2: "a2", 3: "x"} and first[2] == {3}
    other = rs.take_outputs(outs, [4, 4], [(3, 0)], had, ["z", "y"], many)
    assert other[0] is not second[0] and other[0] == {0: "z", 1: "y", 2: "b2", 3: "z"}
