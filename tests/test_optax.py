"""jaxweb.optax by hand: formulas worked out from optax's documentation, state checks,
jit, masking with None leaves, hyperparameter injection. Numpy-free (marked `pyodide`:
also runs inside Pyodide); the comparison with optax itself is test_optax_reference.py."""
import math

import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
import jaxweb.optax as optax

pytestmark = pytest.mark.pyodide


def close(got, want, tol=1e-6):
    got = got.tolist() if hasattr(got, "tolist") else got
    if isinstance(want, (list, tuple)):
        assert len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            close(g, w, tol)
        return
    assert math.isclose(got, want, rel_tol=tol, abs_tol=tol), (got, want)


def test_adam_two_steps_by_hand():
    lr, b1, b2, eps = 0.1, 0.9, 0.999, 1e-8
    params = {"x": jnp.asarray([1.0, -2.0])}
    opt = optax.adam(lr)
    state = opt.init(params)
    m = v = [0.0, 0.0]
    x = [1.0, -2.0]
    for t, g in enumerate([[0.5, -1.0], [0.25, 2.0]], start=1):
        m = [b1 * mi + (1 - b1) * gi for mi, gi in zip(m, g)]
        v = [b2 * vi + (1 - b2) * gi * gi for vi, gi in zip(v, g)]
        want = [-lr * (mi / (1 - b1 ** t)) / (math.sqrt(vi / (1 - b2 ** t)) + eps) for mi, vi in zip(m, v)]
        updates, state = opt.update({"x": jnp.asarray(g)}, state, params)
        close(updates["x"], want, 1e-5)
        params = optax.apply_updates(params, updates)
        x = [xi + ui for xi, ui in zip(x, want)]
    close(params["x"], x, 1e-5)
    assert state[0].count.tolist() == 2 and state[0].count.dtype == jnp.int32
    close(state[0].mu["x"], m, 1e-6)


def test_sgd_momentum_and_nesterov_by_hand():
    g = jnp.asarray([1.0, 2.0])
    for nesterov, want2 in ((False, [-0.15, -0.3]), (True, [-0.175, -0.35])):
        opt = optax.sgd(0.1, momentum=0.5, nesterov=nesterov)
        state = opt.init(g)
        u1, state = opt.update(g, state)
        u2, state = opt.update(g, state)
        close(u1, [-0.15, -0.3] if nesterov else [-0.1, -0.2])
        close(u2, want2)


def test_adamw_weight_decay_respects_mask_and_is_scaled_by_lr():
    params = {"w": jnp.asarray([2.0]), "b": jnp.asarray([2.0])}
    zero = {"w": jnp.zeros(1), "b": jnp.zeros(1)}
    opt = optax.adamw(0.5, weight_decay=0.1, mask={"w": True, "b": False})
    updates, _ = opt.update(zero, opt.init(params), params)
    close(updates["w"], [-0.5 * 0.1 * 2.0])
    close(updates["b"], [0.0])
    with pytest.raises(ValueError, match="params"):
        opt.update(zero, opt.init(params))


def test_state_from_another_optimizer_is_a_clear_error():
    params = {"w": jnp.ones(3)}
    with pytest.raises(ValueError, match="different optimizer"):
        optax.adam(0.1).update(params, optax.sgd(0.1, momentum=0.9).init(params), params)
    with pytest.raises(ValueError, match="chain of 3 transformations"):
        optax.adamw(0.1).update(params, optax.adam(0.1).init(params), params)
    with pytest.raises(ValueError, match="scale_by_rms"):
        optax.scale_by_rms().update(params, optax.scale_by_rss().init(params), params)


def test_optimizer_state_is_a_pytree_that_jits():
    params = {"w": jnp.arange(4.0), "b": jnp.zeros(2)}
    opt = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(optax.warmup_cosine_decay_schedule(
        0.0, 0.1, 2, 10)))

    def step(params, state):
        grads = jax.grad(lambda p: jnp.sum(p["w"] ** 2) + jnp.sum(p["b"] - 1.0))(params)
        updates, state = opt.update(grads, state, params)
        return optax.apply_updates(params, updates), state

    state = opt.init(params)
    p_eager, s_eager = step(params, state)
    p_jit, s_jit = jax.jit(step)(params, state)
    assert jax.tree.structure(s_jit) == jax.tree.structure(s_eager)
    close(p_jit["w"], p_eager["w"].tolist())
    close(p_jit["b"], p_eager["b"].tolist())
    assert s_jit[1][0].count.tolist() == 1


def test_none_leaves_pass_through():
    params = {"w": jnp.ones(2), "frozen": None}
    opt = optax.adam(0.1)
    state = opt.init(params)
    updates, state = opt.update({"w": jnp.ones(2), "frozen": None}, state, params)
    assert updates["frozen"] is None
    assert optax.apply_updates(params, updates)["frozen"] is None
    got = jax.tree.map(lambda x: "none" if x is None else "leaf", state[0].mu, is_leaf=lambda x: x is None)
    assert got == {"w": "leaf", "frozen": "none"}


def test_masked_keeps_no_state_for_masked_leaves():
    params = {"a": jnp.ones(2), "b": jnp.ones(3)}
    opt = optax.masked(optax.adam(0.1), {"a": True, "b": False})
    state = opt.init(params)
    assert isinstance(state.inner_state[0].mu["b"], optax.MaskedNode)
    updates, _ = opt.update({"a": jnp.ones(2), "b": jnp.full(3, 7.0)}, state, params)
    close(updates["b"], [7.0, 7.0, 7.0])
    close(updates["a"], [-0.1, -0.1], 1e-5)


def test_multi_transform_freezes_a_group():
    params = {"enc": jnp.ones(2), "head": jnp.ones(2)}
    opt = optax.multi_transform({"train": optax.sgd(1.0), "freeze": optax.set_to_zero()},
                                {"enc": "freeze", "head": "train"})
    updates, state = opt.update({"enc": jnp.ones(2), "head": jnp.ones(2)}, opt.init(params), params)
    close(updates["enc"], [0.0, 0.0])
    close(updates["head"], [-1.0, -1.0])
    with pytest.raises(ValueError, match="no corresponding transformation"):
        optax.multi_transform({"train": optax.sgd(1.0)}, {"enc": "x", "head": "train"}).init(params)


def test_multisteps_accumulates_mean_and_applies_every_k():
    opt = optax.MultiSteps(optax.sgd(1.0), every_k_schedule=3)
    params = jnp.zeros(1)
    state = opt.init(params)
    outs = []
    for g in (1.0, 2.0, 6.0, 4.0):
        u, state = opt.update(jnp.asarray([g]), state, params)
        outs.append(u.tolist()[0])
    assert outs == [0.0, 0.0, -3.0, 0.0]
    assert state.gradient_step.tolist() == 1 and state.mini_step.tolist() == 1
    assert not bool(opt.has_updated(state))


def test_apply_if_finite_skips_nan_steps():
    opt = optax.apply_if_finite(optax.sgd(1.0, momentum=0.5), max_consecutive_errors=1)
    params = jnp.zeros(2)
    state = opt.init(params)
    u, state = opt.update(jnp.asarray([1.0, float("nan")]), state, params)
    assert u.tolist() == [0.0, 0.0] and state.notfinite_count.tolist() == 1
    close(state.inner_state[0].trace, [0.0, 0.0])
    u, state = opt.update(jnp.asarray([1.0, 1.0]), state, params)
    close(u, [-1.0, -1.0])
    assert state.total_notfinite.tolist() == 1 and bool(state.last_finite)


def test_inject_hyperparams_reads_and_overrides_learning_rate():
    opt = optax.inject_hyperparams(optax.sgd)(learning_rate=optax.linear_schedule(1.0, 0.0, 4))
    params = jnp.zeros(1)
    state = opt.init(params)
    lrs = []
    for _ in range(3):
        u, state = opt.update(jnp.ones(1), state, params)
        lrs.append(-u.tolist()[0])
    close(lrs, [1.0, 0.75, 0.5])
    close(state.hyperparams["learning_rate"], 0.5)
    fixed = optax.inject_hyperparams(optax.adam)(learning_rate=0.1)
    s = fixed.init(params)
    s.hyperparams["learning_rate"] = jnp.asarray(0.01)
    u, _ = fixed.update(jnp.ones(1), s, params)
    close(u, [-0.01], 1e-5)


@pytest.mark.parametrize("sched,points", [
    (optax.warmup_cosine_decay_schedule(0.0, 1.0, 4, 8, end_value=0.2),
     {0: 0.0, 2: 0.5, 4: 1.0, 6: 0.2 + 0.8 * 0.5, 8: 0.2, 100: 0.2}),
    (optax.piecewise_constant_schedule(1.0, {2: 0.5, 4: 0.5}), {0: 1.0, 1: 1.0, 2: 0.5, 3: 0.5, 4: 0.25}),
    (optax.exponential_decay(1.0, 2, 0.5, staircase=True), {0: 1.0, 1: 1.0, 2: 0.5, 3: 0.5, 4: 0.25}),
    (optax.linear_schedule(1.0, 0.0, 4, transition_begin=2), {0: 1.0, 2: 1.0, 3: 0.75, 6: 0.0, 9: 0.0}),
    (optax.join_schedules([optax.constant_schedule(3.0), optax.linear_schedule(2.0, 0.0, 2)], [5]),
     {4: 3.0, 5: 2.0, 6: 1.0, 7: 0.0}),
])
def test_schedule_boundaries_by_hand(sched, points):
    for step, want in points.items():
        close(sched(step), want, 1e-6)
        close(sched(jnp.asarray(step, jnp.int32)), want, 1e-6)


def test_losses_by_hand():
    logits = jnp.asarray([[0.0, math.log(3.0)]])
    close(optax.softmax_cross_entropy(logits, jnp.asarray([[0.0, 1.0]])), [-math.log(0.75)])
    close(optax.softmax_cross_entropy_with_integer_labels(logits, jnp.asarray([0])), [-math.log(0.25)])
    close(optax.sigmoid_binary_cross_entropy(jnp.asarray([0.0, 100.0]), jnp.asarray([1.0, 1.0])),
          [math.log(2.0), 0.0])
    close(optax.l2_loss(jnp.asarray([3.0]), jnp.asarray([1.0])), [2.0])
    close(optax.huber_loss(jnp.asarray([0.5, 3.0]), delta=1.0), [0.125, 2.5])
    close(optax.cosine_similarity(jnp.asarray([[1.0, 0.0]]), jnp.asarray([[1.0, 1.0]])), [math.sqrt(0.5)])


def test_tree_utils():
    a, b = {"x": jnp.asarray([3.0, 4.0])}, {"x": jnp.asarray([1.0, 1.0])}
    close(optax.tree_utils.tree_norm(a), 5.0)
    close(optax.tree.norm(a, squared=True), 25.0)
    close(optax.tree_utils.tree_vdot(a, b), 7.0)
    close(optax.tree.add_scale(a, 2.0, b)["x"], [5.0, 6.0])
    close(optax.global_norm(a), 5.0)
    assert optax.tree_utils.tree_get(optax.adam(0.1).init(a), "count").tolist() == 0
    assert optax.tree.dtype({"a": jnp.ones(1, jnp.bfloat16), "b": jnp.ones(1)}, "highest") == jnp.float32
    assert optax.safe_increment(jnp.asarray(2 ** 31 - 1, jnp.int32)).tolist() == 2 ** 31 - 1


def test_apply_updates_keeps_param_dtype():
    p = {"h": jnp.ones(2, jnp.bfloat16)}
    out = optax.apply_updates(p, {"h": jnp.full(2, 0.5, jnp.float32)})
    assert out["h"].dtype == jnp.bfloat16 and out["h"].tolist() == [1.5, 1.5]


def test_losses_with_where_match_optax():
    """Values printed by optax 0.2.8 for the same inputs."""
    logits = jnp.asarray([[1.0, 2.0, 3.0], [0.5, 0.1, -1.0]])
    where = jnp.asarray([[True, True, False], [True, True, True]])
    close(optax.softmax_cross_entropy(logits, jnp.asarray([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]), where=where),
          [0.31326163, 0.6384007], 1e-6)
    close(optax.softmax_cross_entropy_with_integer_labels(logits, jnp.asarray([1, 0]), where=where),
          [0.3132615, 0.6384007], 1e-6)
