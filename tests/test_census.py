"""The compile census: no compile depends on a runtime value (issue 22).

Each case runs a few warm calls, then many calls with new values (scalars that are not
the folded 0, 1, -1, 2; indices that move), counting what the backend compiles: the count
stays at zero, on every device. Values are checked against numpy on the last call. The
/mnist/ page's trainer compiles in later steps and epochs only what its first step did.
"""
import importlib.util
import pathlib
import sys

import numpy as np
import pytest

import jaxweb
import jaxweb.numpy as jnp
import jaxweb.optax as optax
from jaxweb import lax
from kernel_count import count_compiles

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _platforms():
    out = ["cpu", "wasm"]
    try:
        if jaxweb.devices("webgpu"):
            out.append("webgpu")
    except RuntimeError:
        pass
    return out


PLATFORMS = _platforms()
#: new values per case (a software GPU adapter compiles and runs slowly: a sample there)
VALUES = {"cpu": 6, "wasm": 12, "webgpu": 4}

x_np = np.linspace(-2, 2, 200, dtype=np.float32)


def _case_fns():
    """name -> fn(v, i) returning (jaxweb result, numpy expectation)."""
    tanh_jit = jaxweb.jit(lambda x, s: jnp.tanh(x * s) + s)
    ds_jit = jaxweb.jit(lambda x, i: lax.dynamic_slice(x, (i,), (16,)))
    scaled = jaxweb.jit(lambda x, s: x * s - 3)

    def at_set(x, v, i):
        want = x_np.copy()
        want[i] = v
        return x.at[i].set(v), want
    return {
        "eager x * s": lambda x, v, i: (x * v, x_np * np.float32(v)),
        "jit python scalar": lambda x, v, i: (tanh_jit(x, v), np.tanh(x_np * np.float32(v)) + np.float32(v)),
        "jit jnp.float32(v)": lambda x, v, i: (scaled(x, jnp.float32(v)), x_np * np.float32(v) - 3),
        "x.at[i].set(v)": at_set,
        "jit dynamic_slice": lambda x, v, i: (ds_jit(x, i), x_np[i:i + 16]),
        "x[i] * 2": lambda x, v, i: (x[i] * 2, x_np[i] * 2),
        "moving slice": lambda x, v, i: (x[i:i + 16] + 1, x_np[i:i + 16] + 1),
        "full + x": lambda x, v, i: (jnp.full(200, v) + x, np.float32(v) + x_np),
        "array creation": lambda x, v, i: (jnp.array([v, 2 * v, 3.5]) * x[:3] + jnp.asarray(np.float32(v)),
                                           np.array([v, 2 * v, 3.5], np.float32) * x_np[:3] + np.float32(v)),
        "arange * v": lambda x, v, i: (jnp.arange(200) * v + x, np.arange(200, dtype=np.float32) * np.float32(v) + x_np),
        "fori_loop array bounds": lambda x, v, i: (
            lax.fori_loop(jnp.int32(0), jnp.int32(i), lambda k, c: c * 0.5 + 1.0, x),
            _halvings(i)),
    }


def _halvings(n):
    c = x_np.copy()
    for _ in range(n):
        c = c * np.float32(0.5) + np.float32(1.0)
    return c


CASES = list(_case_fns())


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("case", CASES)
def test_no_compile_per_value(platform, case):
    fn = _case_fns()[case]
    with jaxweb.default_device(jaxweb.devices(platform)[0]):
        x = jnp.asarray(x_np)
        for k in range(3):
            np.asarray(fn(x, 0.75 + k, 5 + k)[0])
        with count_compiles() as made:
            for k in range(VALUES[platform]):
                got, want = fn(x, 1.25 + 0.37 * k, 9 + 3 * k)
                got = np.asarray(got)
        assert not made, [getattr(m, "name", m) for m in made]
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_optax_schedule_compiles_once(platform):
    """An eager Adam step under an exponentially decaying learning rate (a new value each
    step, from the step count in the optimizer state). The first steps compile variants:
    count 1 is a folded value, and a count equal to another constant of the step (the
    schedule's 3 transition steps) is one node with it, another graph."""
    opt = optax.adam(optax.exponential_decay(1e-2, 3, 0.7))
    with jaxweb.default_device(jaxweb.devices(platform)[0]):
        params = {"w": jnp.asarray(x_np[:64].reshape(8, 8)), "b": jnp.zeros(8)}
        state = opt.init(params)
        loss = lambda p: jnp.sum(jnp.tanh(p["w"] @ p["b"] + p["b"]) ** 2) + jnp.sum(p["w"] ** 2)

        def step(params, state):
            grads = jaxweb.grad(loss)(params)
            updates, state = opt.update(grads, state, params)
            return optax.apply_updates(params, updates), state
        for _ in range(5):
            params, state = step(params, state)
            np.asarray(params["w"])
        with count_compiles() as made:
            for _ in range(VALUES[platform]):
                params, state = step(params, state)
                np.asarray(params["w"])
        assert not made, [getattr(m, "name", m) for m in made]


def _trainer_module():
    name = "census_mnist_trainer"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "demos" / "mnist" / "trainer.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules[name]


def test_mnist_trainer_epoch_compiles_only_its_first_step():
    """The /mnist/ page's trainer (wasm, a small synthetic set), called as the page calls it
    (a few steps at a time, the count varying as the page sizes its chunks): the first call
    compiles the step and the shuffle's gather; the rest of the epoch and the next epochs (new
    shuffles, batches at new offsets, chunks of other lengths) compile nothing."""
    from test_pages_runtime import synthetic_mnist
    trainer = _trainer_module()
    source = (ROOT / "demos" / "mnist" / "models" / "mlp.py").read_text()
    with jaxweb.default_device(jaxweb.devices("wasm")[0]):
        t = trainer.Trainer(synthetic_mnist(), source, batch=32, lr=3e-3, eval_batch=32)
        t.train(4)
        with count_compiles() as made:
            for k in range(t.steps_per_epoch // 2):
                r = t.train((4, 3, 5, 4)[k % 4])
        assert r["epoch"] == 2 and r["step"] == 4 + 4 * (t.steps_per_epoch // 2)
        assert not made, [getattr(m, "name", m) for m in made]
