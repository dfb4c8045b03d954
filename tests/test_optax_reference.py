"""jaxweb.optax against optax itself: every case in tests/data/optax_cases.py, run for
several steps, must give optax's updates, parameters and final state (same leaf paths,
dtypes, shapes and values). The expected values were recorded once with optax 0.2.8 /
JAX 0.10.2 by tests/data/record_optax.py; neither is a test dependency."""
import json
import math
import sys
from pathlib import Path

import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
import jaxweb.optax as optax

DATA = Path(__file__).resolve().parent / "data"
sys.path.insert(0, str(DATA))
import optax_cases as C  # noqa: E402

REF = json.loads((DATA / "optax_reference.json").read_text())
REFS = {"__mask_w__": lambda tree: {"b": False, "w": True}}


def tree_of(flat):
    return {k: jnp.asarray(v, jnp.float32).reshape(C.PARAM_SHAPES[k]) for k, v in flat.items()}


def leaves_with_paths(tree):
    out = []
    for path, leaf in jax.tree_util.tree_flatten_with_path(tree)[0]:
        leaf = jnp.asarray(leaf)
        out.append([jax.tree_util.keystr(path), str(leaf.dtype), list(leaf.shape), leaf.reshape(-1).tolist()])
    return out


def assert_leaves_match(got, want, what, rtol=2e-5):
    assert [g[:3] for g in got] == [w[:3] for w in want], f"{what}: leaf paths/dtypes/shapes differ"
    for (path, dtype, _, g), (_, _, _, w) in zip(got, want):
        scale = max([abs(v) for v in w if isinstance(v, float) and math.isfinite(v)] + [1e-30])
        for i, (a, b) in enumerate(zip(g, w)):
            if isinstance(b, float) and math.isnan(b):
                assert math.isnan(a), f"{what} {path}[{i}]: {a} != nan"
            elif isinstance(b, float):
                assert math.isclose(a, b, rel_tol=rtol, abs_tol=rtol * scale), f"{what} {path}[{i}]: {a} != {b}"
            else:
                assert a == b, f"{what} {path}[{i}]: {a} != {b}"


def run(name, update=None):
    case = REF["cases"][name]
    opt = C.build(optax, case["spec"], REFS)
    params = tree_of(C.params0())
    state = opt.init(params)
    update = update or opt.update
    for t, want in enumerate(case["updates"]):
        g = tree_of(C.grads(t, case["nonfinite_at"]))
        updates, state = update(g, state, params)
        params = optax.apply_updates(params, updates)
        assert_leaves_match(leaves_with_paths(updates), want, f"{name} step {t} updates")
    assert_leaves_match(leaves_with_paths(params), case["params"], f"{name} final params")
    assert_leaves_match(leaves_with_paths(state), case["state"], f"{name} final state")


@pytest.mark.parametrize("name", sorted(REF["cases"]))
def test_case_matches_optax(name):
    run(name)


@pytest.mark.parametrize("name", ["adam", "adamw_masked", "lamb", "lars_nesterov_masked", "adafactor",
                                  "multisteps_3", "apply_if_finite", "inject_adam", "multi_transform",
                                  "rmsprop_centered_momentum", "radam", "chain_clip_adamw"])
def test_case_matches_optax_under_jit(name):
    opt = C.build(optax, REF["cases"][name]["spec"], REFS)
    run(name, jax.jit(opt.update))


def test_reference_was_recorded_with_optax():
    assert REF["versions"]["optax"] == "0.2.8" and REF["steps"] == C.STEPS >= 3
    assert set(REF["cases"]) == set(C.OPTIMIZERS) | set(C.TRANSFORMS) | set(C.NONFINITE)


@pytest.mark.parametrize("name", sorted(REF["schedules"]))
def test_schedule_matches_optax_at_boundaries(name):
    case = REF["schedules"][name]
    sched = C.build(optax, case["spec"])
    for step, want_py, want_arr in zip(case["steps"], case["python_int"], case["int32"]):
        got_py = float(sched(step))
        got_arr = sched(jnp.asarray(step, jnp.int32))
        assert math.isclose(got_py, want_py, rel_tol=1e-6, abs_tol=1e-7), (step, got_py, want_py)
        assert math.isclose(float(got_arr), want_arr, rel_tol=1e-6, abs_tol=1e-7), (step, float(got_arr), want_arr)
    jitted = jax.jit(sched)
    assert all(math.isclose(float(jitted(jnp.asarray(s, jnp.int32))), w, rel_tol=1e-6, abs_tol=1e-7)
               for s, w in zip(case["steps"], case["int32"]))


def loss_input(x):
    if isinstance(x, dict) and "int" in x:
        return jnp.asarray(x["int"], jnp.int32)
    if isinstance(x, dict) and "lit" in x:
        return jnp.asarray(x["lit"], jnp.float32)
    if isinstance(x, dict) and "log_softmax" in x:
        z = jnp.asarray(x["log_softmax"], jnp.float32)
        return z - jnp.log(jnp.sum(jnp.exp(z), axis=-1, keepdims=True))
    return jnp.asarray(x, jnp.float32) if isinstance(x, list) else x


@pytest.mark.parametrize("name", sorted(REF["losses"]))
def test_loss_and_its_gradient_match_optax(name):
    case = REF["losses"][name]
    fn = getattr(optax.losses, case["fn"])
    xs = [loss_input(a) for a in case["args"]]
    out = fn(*xs, **case["kwargs"])
    assert list(out.shape) == case["shape"]
    for a, b in zip(out.reshape(-1).tolist(), case["value"]):
        assert math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6), (name, a, b)
    if case["grad"] is not None:
        g = jax.grad(lambda first: jnp.sum(fn(first, *xs[1:], **case["kwargs"])))(xs[0])
        for a, b in zip(g.reshape(-1).tolist(), case["grad"]):
            assert math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6), (name, "grad", a, b)
