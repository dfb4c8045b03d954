"""Kernel IR expressions: hash-consing, typing and index simplification."""
import pytest

from jaxweb._src import dtypes
from jaxweb._src.compiler import expr as E

pytestmark = pytest.mark.pyodide  # numpy-free: also runs inside Pyodide
i32 = dtypes.int32


def test_hash_consing_shares_identical_nodes():
    x = E.idx("g0", 10)
    assert (x * 3 + 1) is (x * 3 + 1)
    assert E.const(0.0, dtypes.float32) is not E.const(-0.0, dtypes.float32)


def test_constant_folding_and_identities():
    x = E.idx("g0", 10)
    assert (E.const(2, i32) * 3).arg == 6
    assert (x + 0) is x and (x * 1) is x and (x * 0).arg == 0
    assert E.binary("div", E.const(-7, i32), E.const(2, i32)).arg == -3  # truncation, like lax.div


def test_bounds_drive_divmod_simplification():
    x, y = E.idx("g0", 4), E.idx("g1", 6)
    flat = x * 6 + y
    assert (flat // 6) is x and (flat % 6) is y
    assert (y // 6).arg == 0 and (y % 6) is y
    assert (flat < 24).arg is True and (flat >= 0).arg is True


def test_float_ops_are_not_simplified_unsafely():
    f = E.load(0, dtypes.float32, E.idx("g0", 3))
    zero = E.const(0.0, dtypes.float32)
    assert E.binary("mul", f, zero).op == "mul"  # NaN * 0 is NaN
    assert E.binary("add", f, zero).op == "add"  # -0.0 + 0.0 is 0.0


def test_comparisons_are_bool_and_where_folds():
    x = E.idx("g0", 5)
    c = E.binary("lt", x, E.const(3, i32))
    assert c.dtype is dtypes.bool_
    a, b = E.const(1.0, dtypes.float32), E.const(2.0, dtypes.float32)
    assert E.where(E.const(True, dtypes.bool_), a, b) is a


def test_integer_constants_wrap_to_their_dtype():
    assert E.const(256 + 5, dtypes.uint8).arg == 5
    assert E.const(128, dtypes.int8).arg == -128


def test_graph_nodes_are_hash_consed_while_they_live():
    """Equal graph nodes are one object while one lives: -0.0 and 0.0 are two constants, a NaN
    is one, complex parts keep their signs; a node's entry goes with it, and a dead node's late
    callback leaves a newer node's entry alone (graph._mk)."""
    import weakref

    from jaxweb._src.compiler import graph
    f32, c64 = dtypes.float32, dtypes.complex64
    a = graph.const(1234.0625, f32)  # a value no other test's node holds (its entry must go with it)
    assert graph.const(1234.0625, f32) is a and graph.const(1234.0625, f32, (2,)) is not a
    zero, nan = graph.const(0.0, f32), graph.const(float("nan"), f32)
    assert graph.const(-0.0, f32) is not zero and graph.const(0.0, f32) is zero
    assert graph.const(float("nan"), f32) is nan
    cz = graph.const(complex(0.0, 0.0), c64)
    assert graph.const(complex(0.0, -0.0), c64) is not cz and graph.const(complex(0.0, 0.0), c64) is cz
    (key,) = [k for k, r in graph._NODES.items() if r() is a]
    graph._forget(graph._NODES, key, weakref.ref(a))  # another (older) reference's callback
    assert graph._NODES[key]() is a
    del a
    assert key not in graph._NODES
