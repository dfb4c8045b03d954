"""The jitted call's quick path (jitted._Jitted: the last call's argument structure matched by identity,
the trace's Executable kept, executable.call_kept): it must give what the full path gives."""
import numpy as np

import jaxweb
import jaxweb.numpy as jnp
from jaxweb._src import executable


def test_a_static_argument_after_a_call_without_it_retraces():
    """The remembered last call is only for calls without static arguments: f(x) then f(x, n=3)
    share the dynamic structure but not the trace."""
    f = jaxweb.jit(lambda x, n=1: x * n, static_argnames=("n",))
    x = jnp.arange(3.0)
    assert f(x).tolist() == [0.0, 1.0, 2.0]
    assert f(x, n=3).tolist() == [0.0, 3.0, 6.0]
    assert f(x).tolist() == [0.0, 1.0, 2.0]


def test_a_loop_matches_its_last_call_and_retraces_on_a_new_shape_or_dtype():
    f = jaxweb.jit(lambda p, s: {"w": p["w"] * s, "b": p["b"] + s})
    p = {"w": jnp.ones(4), "b": jnp.zeros(2)}
    for t in range(4):  # the outputs' avals are the next call's: matched by identity
        p = f(p, float(t + 1))
    np.testing.assert_allclose(np.asarray(p["w"]), np.full(4, 24.0))
    np.testing.assert_allclose(np.asarray(p["b"]), np.full(2, 10.0))
    q = f({"w": jnp.ones(5), "b": jnp.zeros(2)}, 2.0)  # a new shape: a new trace
    assert q["w"].shape == (5,)
    r = f({"w": jnp.ones(4, dtype=jnp.int32), "b": jnp.zeros(2)}, 2)  # a new dtype too
    assert r["w"].dtype == jnp.int32 and r["w"].tolist() == [2] * 4
    with jaxweb.enable_x64():  # another trace context
        s = f({"w": jnp.ones(4), "b": jnp.zeros(2)}, 2.0)
    assert s["w"].tolist() == [2.0] * 4


def test_kept_executables_are_few_and_cleared_with_the_caches():
    f = jaxweb.jit(lambda x: x + 1)
    for n in range(1, executable.MAX_KEPT + 5):
        assert f(jnp.zeros(n)).tolist() == [1.0] * n
    assert len(f._exes) <= executable.MAX_KEPT
    jaxweb.clear_caches()
    assert not f._exes and f._last is None


def test_donation_on_the_quick_path():
    f = jaxweb.jit(lambda x: x * 2, donate_argnums=0)
    x = jnp.arange(4.0)
    y = f(x)
    assert x.is_deleted() and y.tolist() == [0.0, 2.0, 4.0, 6.0]
    z = f(y)
    assert y.is_deleted() and z.tolist() == [0.0, 4.0, 8.0, 12.0]


def test_a_call_of_another_structure_with_the_same_leaves_retraces():
    """The last call's structure is matched without flattening (tree_util.leaves_as): another
    dict key, a list for a tuple, an OrderedDict for a dict, and a leaf that became None, a list,
    a namedtuple — each with the same leaves' avals — is another trace, as the full path says."""
    f = jaxweb.jit(lambda t: jaxweb.tree.map(lambda v: v + 1, t))
    x = jnp.zeros(2)
    assert set(f({"a": x, "b": (x, [x])})) == {"a", "b"}
    assert set(f({"a": x, "c": (x, [x])})) == {"a", "c"}
    assert isinstance(f({"a": x, "c": [x, [x]]})["c"], list)
    assert isinstance(f({"a": x, "c": [x, (x,)]})["c"][1], tuple)
    assert f({"a": x, "c": [x, (x,)], "d": None})["d"] is None
    assert f({"a": x, "c": [x, (x,)], "d": None})["a"].tolist() == [1.0, 1.0]
    import collections
    out = f(collections.OrderedDict([("c", [x, (x,)]), ("a", x), ("d", None)]))
    assert type(out) is collections.OrderedDict and list(out) == ["c", "a", "d"]
    # a leaf that became a node, right after a call with the leaf (the quick path's leaf check)
    nt = collections.namedtuple("NT", "u v")
    assert f({"a": x, "b": x})["b"].tolist() == [1.0, 1.0]
    out = f({"a": x, "b": [x]})
    assert isinstance(out["b"], list) and out["b"][0].tolist() == [1.0, 1.0]
    f({"a": x, "b": x})
    assert f({"a": x, "b": None})["b"] is None
    f({"a": x, "b": x})
    assert type(f({"a": x, "b": nt(x, x)})["b"]) is nt
