"""jax's multi-device API on one device (issue 25): meshes and shardings keep arrays whole,
shard_map/pmap/smap run the function with the named axes (of size 1) bound, a map over
more devices than exist raises as JAX does; jax.ops segment reductions; jax.monitoring;
jax.errors' remaining types; the new modules load lazily."""
import subprocess
import sys

import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb import lax


def test_mesh_shardings_and_device_put():
    mesh = jax.make_mesh((1,), ("x",))
    s = jax.NamedSharding(mesh, jax.P("x"))
    x = jax.device_put(jnp.arange(4.0), s)
    np.testing.assert_array_equal(x, [0, 1, 2, 3])
    assert mesh.shape == {"x": 1} and s.is_fully_replicated() and s.num_devices == 1
    np.testing.assert_array_equal(jax.reshard(x, s), x)
    with pytest.raises(ValueError, match="Number of devices 1 must equal"):
        jax.make_mesh((2,), ("x",))
    with pytest.raises(ValueError, match="not found in mesh"):
        jax.NamedSharding(mesh, jax.P("y"))


def test_shard_map_pmap_and_smap_bind_their_axes():
    mesh = jax.make_mesh((1,), ("x",))
    f = jax.shard_map(lambda v: lax.psum(v, "x") + lax.axis_index("x"), mesh=mesh, in_specs=jax.P("x"),
                      out_specs=jax.P())
    np.testing.assert_array_equal(f(jnp.arange(4.0)), [0, 1, 2, 3])
    with jax.sharding.set_mesh(mesh):
        np.testing.assert_array_equal(jax.shard_map(lambda v: v * 2, in_specs=jax.P(), out_specs=jax.P())(
            jnp.ones(2)), [2, 2])
    np.testing.assert_array_equal(jax.pmap(lambda v: lax.pmean(v, "i"), axis_name="i")(jnp.ones((1, 3))),
                                  np.ones((1, 3)))
    with pytest.raises(ValueError, match="requires 2 logical devices, but only 1"):
        jax.pmap(lambda v: v)(jnp.ones((2, 3)))
    np.testing.assert_array_equal(jax.smap(lambda v: lax.psum(v, "s"), axis_name="s")(jnp.ones(3)), np.ones(3))
    a = jax.make_array_from_single_device_arrays((2,), jax.NamedSharding(mesh, jax.P()), [jnp.ones(2)])
    b = jax.make_array_from_process_local_data(jax.NamedSharding(mesh, jax.P()), np.zeros(3))
    assert a.shape == (2,) and b.shape == (3,)


def test_segment_reductions():
    ids = jnp.array([0, 0, 1, 2, 2])
    np.testing.assert_array_equal(jax.ops.segment_sum(jnp.arange(5.0), ids, 4), [1, 2, 7, 0])
    np.testing.assert_array_equal(jax.ops.segment_prod(jnp.arange(1.0, 6.0), ids), [2, 3, 20])
    np.testing.assert_array_equal(jax.ops.segment_max(jnp.arange(5), jnp.array([0, 0, 1, 2, 7]), 4),
                                  [1, 2, 3, np.iinfo(np.int32).min])
    np.testing.assert_array_equal(jax.ops.segment_min(jnp.arange(5.0), ids, 4), [0, 2, 3, np.inf])
    g = jax.grad(lambda d: jax.ops.segment_sum(d, ids, 3).sum())(jnp.ones(5))
    np.testing.assert_array_equal(g, np.ones(5))


def test_monitoring_errors_and_version():
    seen = []
    jax.monitoring.register_event_listener(lambda event, **kw: seen.append((event, kw)))
    jax.monitoring.record_event("/my/event", tag=1)
    jax.monitoring.clear_event_listeners()
    jax.monitoring.record_event("/ignored")
    assert seen == [("/my/event", {"tag": 1})]
    assert issubclass(jax.errors.KeyReuseError, jax.errors.JAXTypeError)
    assert issubclass(jax.errors.JAXTypeError, TypeError) and issubclass(jax.errors.JAXIndexError, IndexError)
    assert jax.version.jax_version == "0.10.2"


def test_new_modules_are_lazy():
    code = ("import sys, jaxweb; names = ['sharding', 'ops', 'monitoring', 'version', 'stages', 'scipy', "
            "'_src.sharding', '_src.ops']; print([n for n in names if 'jaxweb.' + n in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_prng_flags_as_context_managers():
    """jax.threefry_partitionable(False) draws JAX's non-partitionable bits (values from JAX 0.10.2)."""
    with jax.threefry_partitionable(False):
        np.testing.assert_allclose(jax.random.uniform(jax.random.key(0), (2,)), [0.21629536, 0.8041241], rtol=1e-6)
    np.testing.assert_allclose(jax.random.uniform(jax.random.key(0), (2,)), [0.947667, 0.9785799], rtol=1e-6)
    with pytest.raises(NotImplementedError, match="rbg"):
        jax.default_prng_impl("rbg")
    with jax.legacy_prng_key("error"), pytest.raises(Exception):
        jax.random.uniform(jax.random.PRNGKey(0))
    assert jax.stages.Lowered is type(jax.jit(lambda x: x).lower(1.0))
