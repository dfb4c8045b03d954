"""Top-level API beyond the transformations: typeof, device_get/device_put, test_util,
print_saved_residuals and checkpoint policies, custom_gradient, refs, lax extras."""
import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb import lax
from jaxweb.ad_checkpoint import checkpoint_name, print_saved_residuals
from rule_checker import check_vmap


@pytest.fixture(autouse=True)
def _reference_backend():
    """Semantic checks on the numpy reference backend: they keep the suite within the wasm
    runtime's instance budget (the kernels themselves are tested on every device)."""
    with jax.default_device(jax.devices("cpu")[0]):
        yield


def test_typeof_device_get_device_put():
    assert jax.typeof(1.0) == jax.ShapedArray((), jnp.float32, weak_type=True)
    assert jax.typeof(jnp.ones((2, 3), jnp.int8)).shape == (2, 3)
    seen = []
    jax.jit(lambda x: seen.append(jax.typeof(x)) or x)(jnp.ones(2))
    assert seen[0].shape == (2,) and seen[0].dtype == jnp.float32
    host = jax.device_get({"a": jnp.arange(3), "b": 2})
    assert isinstance(host["a"], np.ndarray) and host["a"].tolist() == [0, 1, 2] and host["b"] == 2
    tree = jax.device_put({"w": np.ones(2, np.float32), "n": [1, 2.5]})
    assert isinstance(tree["w"], jax.Array) and tree["n"][1].dtype == jnp.float32
    with pytest.raises(ValueError, match="only accepts `None`, `jax.sharding.Sharding`, `jax.Device`"):
        jax.device_put(jnp.ones(2), 42)
    assert jax.process_count() == 1 and jax.process_index() == 0 and jax.local_device_count() >= 1
    with jax.debug_nans(True), jax.transfer_guard("disallow"), jax.default_matmul_precision("highest"):
        assert jax.config.jax_debug_nans is True
    assert jax.config.jax_debug_nans is False


def test_check_grads_accepts_and_rejects():
    jax.test_util.check_grads(lambda x, y: jnp.sin(x) * y ** 2, (np.float32(0.7), np.float32(1.3)), order=2)
    jax.test_util.check_grads(lambda x: jnp.tanh(x).sum(), (np.linspace(-1, 1, 4).astype(np.float32),),
                              order=1, modes=("rev",))

    @jax.custom_jvp
    def wrong(x):
        return jnp.sin(x)
    wrong.defjvp(lambda p, t: (jnp.sin(p[0]), 2 * jnp.cos(p[0]) * t[0]))  # twice the derivative
    with pytest.raises(AssertionError, match="JVP tangent"):
        jax.test_util.check_grads(wrong, (np.float32(0.5),), order=1, modes=("fwd",))


def test_print_saved_residuals_and_policies(capsys):
    def f(x, y):
        a = jnp.sin(x)
        b = checkpoint_name(a * y, "b")
        return jnp.sum(jnp.cos(b) * x)
    x = jnp.ones(3)
    print_saved_residuals(f, x, x)
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == ["f32[3] from the argument x", "f32[3] from the argument y"]
    assert any("output of sin" in ln for ln in lines) and any("output of cos" in ln for ln in lines)
    print_saved_residuals(jax.checkpoint(f), x, x)
    assert capsys.readouterr().out.splitlines() == ["f32[3] from the argument x", "f32[3] from the argument y"]
    policy = jax.checkpoint_policies.save_any_names_but_these("c")
    print_saved_residuals(jax.checkpoint(f, policy=policy), x, x)
    assert capsys.readouterr().out.splitlines()[-1] == "f32[3] named 'b'"
    print_saved_residuals(jax.checkpoint(f, policy=jax.checkpoint_policies.save_any_names_but_these("b")), x, x)
    assert not any("named" in ln for ln in capsys.readouterr().out.splitlines())
    both = jax.checkpoint_policies.save_from_both_policies(jax.checkpoint_policies.save_only_these_names("b"),
                                                            jax.checkpoint_policies.nothing_saveable)
    g1 = jax.grad(f)(x, x)
    np.testing.assert_allclose(jax.grad(jax.checkpoint(f, policy=both))(x, x), g1, rtol=1e-6)
    assert bool(jax.ad_checkpoint.Saveable) and not bool(jax.ad_checkpoint.Recompute)


def test_custom_gradient_and_refs():
    @jax.custom_gradient
    def clipped(x):
        return x ** 2, lambda g: (jnp.clip(g * 2 * x, -1.0, 1.0),)
    assert float(jax.grad(clipped)(3.0)) == 1.0 and float(clipped(3.0)) == 9.0
    r = jax.new_ref(jnp.zeros(3))
    r[1] = 5.0
    r[...] = r[...] + 1
    assert r[...].tolist() == [1.0, 6.0, 1.0] and r.shape == (3,)

    def fill(x):  # a ref used within one traced function
        ref = jax.new_ref(jnp.zeros_like(x))
        ref[0] = x[1]
        return jax.freeze(ref)
    assert jax.jit(fill)(jnp.arange(3.0)).tolist() == [1.0, 0.0, 0.0]
    frozen = jax.new_ref(1.0)
    jax.freeze(frozen)
    with pytest.raises(ValueError, match="frozen"):
        frozen[...]


def test_lax_extras():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    np.testing.assert_array_equal(lax.tile(x, (2, 1)), np.tile(x, (2, 1)))
    with pytest.raises(TypeError, match="reps length must be equal to the ndim"):
        lax.tile(x, (2,))
    a, b = lax.split(np.arange(10), (3, 7))
    assert a.tolist() == [0, 1, 2] and b.shape == (7,)
    np.testing.assert_array_equal(lax.stack([x, x], 1), np.stack([x, x], 1))
    assert [u.tolist() for u in lax.unstack(x, 1)] == [[0, 3], [1, 4], [2, 5]]
    for dt in (np.int8, np.uint8, np.int16, np.int32, np.uint32):
        info = np.iinfo(dt)
        p = np.array([info.min, -7, 3, info.max, 123], np.int64).clip(info.min, info.max).astype(dt)
        q = np.array([info.max, 3, -3, info.max, 45], np.int64).clip(info.min, info.max).astype(dt)
        want = ((p.astype(object) * q.astype(object)) >> (8 * np.dtype(dt).itemsize))
        np.testing.assert_array_equal(np.asarray(lax.mulhi(p, q)).astype(object), want.astype(dt).astype(object))
    assert lax.broadcast_shapes((2, 1), (3,)) == (2, 3)
    np.testing.assert_array_equal(lax.index_take(x, (np.array([0, 1]), np.array([2, 0])), (0, 1)), [2, 3])
    np.testing.assert_allclose(lax.bessel_i0e(np.array([0.0, 1.0, 10.0], np.float32)),
                               np.i0([0.0, 1.0, 10.0]) * np.exp(-np.array([0.0, 1.0, 10.0])), rtol=1e-6)
    m = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(lax.broadcast_in_dim(m, (3, 2), (1, 0)), m.T)
    np.testing.assert_array_equal(lax.broadcast_in_dim(m, (3, 4, 2), (2, 0)), np.broadcast_to(m.T[:, None, :], (3, 4, 2)))
    check_vmap(lambda v: lax.broadcast_in_dim(v, (3, 2), (1, 0)), (np.stack([m, 2 * m]),))
    with pytest.raises(TypeError, match="operand dimension sizes must either be 1"):
        lax.broadcast_in_dim(m, (3, 3), (1, 0))
    with pytest.raises(TypeError, match="does not accept dtype float32"):
        lax.real(m)


def test_shape_dtype_struct_helpers():
    s = jax.ShapeDtypeStruct((2, 3), jnp.float32)
    assert len(s) == 2 and s.ndim == 2 and s.size == 6 and not s.is_ref
    assert s.update(shape=(4,)) == jax.ShapeDtypeStruct((4,), jnp.float32)
    assert s.update(dtype=jnp.int32).dtype == jnp.int32 and s.update(weak_type=True).weak_type
    assert jax.ShapeDtypeStruct.like(jnp.ones(2, jnp.int8)) == jax.ShapeDtypeStruct((2,), jnp.int8)
    assert jax.ShapeDtypeStruct.like(1.0).weak_type
    assert jax.eval_shape(lambda x: x.sum(0), s) == jax.ShapeDtypeStruct((3,), jnp.float32)
    assert hash(s) == hash(jax.ShapeDtypeStruct((2, 3), jnp.float32))
    with pytest.raises(TypeError, match="unsized"):
        len(jax.ShapeDtypeStruct((), jnp.float32))


def test_tree_helpers():
    import dataclasses
    pairs, aux = jax.tree_util.flatten_one_level_with_keys({"a": 1, "b": (2, 3)})
    assert [(str(k), v) for k, v in pairs] == [("['a']", 1), ("['b']", (2, 3))] and aux == ("a", "b")

    @jax.tree_util.register_dataclass
    @dataclasses.dataclass
    class Op:
        x: object
        op: str = jax.tree.static(default="add")
    leaves, treedef = jax.tree_util.tree_flatten(Op(jnp.ones(2), "mul"))
    assert len(leaves) == 1 and jax.tree_util.tree_unflatten(treedef, [5]).op == "mul"


def test_clear_caches_drops_traces_and_programs():
    traces = []
    f = jax.jit(lambda x: (traces.append(1), x * 2)[1])
    f(jnp.ones(3))
    f(jnp.ones(3))
    assert len(traces) == 1
    jax.clear_caches()
    assert f(jnp.ones(3)).tolist() == [2.0, 2.0, 2.0]
    assert len(traces) == 2
    assert jnp.linalg.inv(jnp.eye(2) * 2).tolist() == [[0.5, 0.0], [0.0, 0.5]]  # linalg re-traces its algorithm
