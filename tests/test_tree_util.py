"""Tests for jaxweb.tree_util / jaxweb.tree: flatten/unflatten round trips for every node
kind, treedef behaviour, registration APIs, key paths, mismatch errors and Partial."""
import collections
import dataclasses
import functools
import operator

import pytest

from jaxweb import tree
from jaxweb import tree_util as tu
from jaxweb.tree_util import (
    DictKey, FlattenedIndexKey, GetAttrKey, Partial, PyTreeDef, SequenceKey,
)

Point = collections.namedtuple("Point", ["x", "y"])


pytestmark = pytest.mark.pyodide  # numpy-free: also runs inside Pyodide


class Pair(tuple):
    """A tuple subclass without `_fields`: a leaf, as in JAX."""


# ----------------------------------------------------------------------------- basics

@pytest.mark.parametrize("t, leaves", [
    (1, [1]),
    ((1, 2), [1, 2]),
    ([1, [2, (3,)]], [1, 2, 3]),
    ({"b": 2, "a": 1}, [1, 2]),
    (None, []),
    ((), []),
    ([], []),
    ({}, []),
    (Point(1, (2, 3)), [1, 2, 3]),
    (collections.OrderedDict([("b", 2), ("a", 1)]), [2, 1]),
    (collections.defaultdict(list, {"b": 2, "a": 1}), [1, 2]),
    ([{"a": (1, None)}, Point([2], {"z": 3, "y": 4}), None], [1, 2, 4, 3]),
])
def test_round_trip(t, leaves):
    got, treedef = tu.tree_flatten(t)
    assert got == leaves
    assert treedef.num_leaves == len(leaves)
    back = tu.tree_unflatten(treedef, got)
    assert back == t
    assert type(back) is type(t)
    assert tu.tree_structure(back) == treedef


def test_round_trip_replaces_leaves():
    t = {"w": [1, 2], "b": (3, None), "p": Point(4, 5)}
    leaves, treedef = tu.tree_flatten(t)
    assert leaves == [3, 4, 5, 1, 2]
    out = treedef.unflatten([10 * x for x in leaves])
    assert out == {"w": [10, 20], "b": (30, None), "p": Point(40, 50)}
    assert type(out["p"]) is Point


def test_none_is_an_empty_node():
    assert tu.tree_leaves([None, 1]) == [1]
    assert tu.tree_leaves(None) == []
    assert tu.tree_map(lambda x: x + 1, [None, 1, (None,)]) == [None, 2, (None,)]
    assert tu.tree_structure(None).num_leaves == 0
    assert tu.tree_structure(None).num_nodes == 1
    assert repr(tu.tree_structure(None)) == "PyTreeDef(None)"
    assert tu.tree_structure([None]) != tu.tree_structure([1])


def test_dict_sorted_order_and_restored_dict():
    d = {"c": 3, "a": 1, "b": 2}
    leaves, treedef = tu.tree_flatten(d)
    assert leaves == [1, 2, 3]
    out = treedef.unflatten(["A", "B", "C"])
    assert out == {"a": "A", "b": "B", "c": "C"}
    assert type(out) is dict
    assert list(out) == ["a", "b", "c"]
    # insertion order does not matter for plain dicts
    assert tu.tree_structure({"a": 1, "b": 2}) == tu.tree_structure({"b": 0, "a": 0})
    # integer keys sort numerically
    assert tu.tree_leaves({10: "x", 2: "y"}) == ["y", "x"]


def test_ordered_dict_keeps_insertion_order():
    od = collections.OrderedDict([("z", 1), ("a", 2)])
    leaves, treedef = tu.tree_flatten(od)
    assert leaves == [1, 2]
    out = treedef.unflatten([5, 6])
    assert type(out) is collections.OrderedDict
    assert list(out.items()) == [("z", 5), ("a", 6)]
    assert treedef != tu.tree_structure({"z": 1, "a": 2})
    assert treedef != tu.tree_structure(collections.OrderedDict([("a", 1), ("z", 2)]))


def test_defaultdict_keeps_factory():
    dd = collections.defaultdict(list, {"b": 1, "a": 2})
    leaves, treedef = tu.tree_flatten(dd)
    assert leaves == [2, 1]
    out = treedef.unflatten([7, 8])
    assert type(out) is collections.defaultdict
    assert out.default_factory is list
    assert dict(out) == {"a": 7, "b": 8}
    assert out["missing"] == []


def test_namedtuple_and_plain_tuple_subclass():
    p = Point(1, 2)
    assert tu.tree_leaves(p) == [1, 2]
    assert tu.tree_structure(p) != tu.tree_structure((1, 2))
    assert tu.tree_map(lambda v: v * 3, p) == Point(3, 6)
    assert type(tu.tree_map(lambda v: v, p)) is Point
    # a tuple subclass without _fields is a leaf
    pair = Pair((1, 2))
    assert tu.tree_leaves([pair]) == [pair]


def test_treedef_repr():
    assert repr(tu.tree_structure((1, {"a": 2, "b": None}))) == \
        "PyTreeDef((*, {'a': *, 'b': None}))"
    assert repr(tu.tree_structure((1,))) == "PyTreeDef((*,))"
    assert repr(tu.tree_structure([1, [2]])) == "PyTreeDef([*, [*]])"
    assert repr(tu.tree_structure(5)) == "PyTreeDef(*)"
    assert repr(tu.tree_structure(Point(1, 2))) == \
        "PyTreeDef(CustomNode(namedtuple[Point], [*, *]))"
    assert str(tu.tree_structure(collections.OrderedDict(b=1))) == \
        "PyTreeDef(CustomNode(OrderedDict[('b',)], [*]))"


def test_treedef_hash_eq_and_properties():
    a = tu.tree_structure({"x": [1, 2], "y": None})
    b = tu.tree_structure({"y": None, "x": ["p", "q"]})
    c = tu.tree_structure({"x": [1, 2, 3], "y": None})
    assert a == b and hash(a) == hash(b)
    assert a != c
    assert a != "not a treedef"
    assert len({a, b, c}) == 2
    assert {a: 1}[b] == 1
    assert a.num_leaves == 2
    assert a.num_nodes == 5  # dict, list, 2 leaves, None
    kids = a.children()
    assert kids == [tu.tree_structure([0, 0]), tu.tree_structure(None)]
    assert tu.treedef_children(a) == kids
    assert kids[0].num_leaves == 2
    assert a.node_data() == (dict, ("x", "y"))
    assert tu.tree_structure(1).node_data() is None
    assert tu.tree_structure(1).children() == []


def test_treedef_is_leaf():
    assert tu.treedef_is_leaf(tu.tree_structure(1))
    assert tu.treedef_is_leaf(tu.tree_structure(None))
    assert not tu.treedef_is_leaf(tu.tree_structure([1]))


def test_unflatten_wrong_leaf_count():
    treedef = tu.tree_structure([1, (2, 3)])
    with pytest.raises(ValueError, match="Too few leaves.*expected 3, got 2"):
        treedef.unflatten([1, 2])
    with pytest.raises(ValueError, match="Too many leaves.*expected 3, got 4"):
        tu.tree_unflatten(treedef, [1, 2, 3, 4])
    # any iterable of leaves is accepted
    assert treedef.unflatten(iter([4, 5, 6])) == [4, (5, 6)]


def test_flatten_up_to():
    treedef = tu.tree_structure([1, {"a": 2}])
    assert treedef.flatten_up_to([(1, 2), {"a": [3]}]) == [(1, 2), [3]]
    with pytest.raises(ValueError, match="Dict key mismatch"):
        treedef.flatten_up_to([1, {"b": 2}])
    with pytest.raises(ValueError, match="Expected list, got"):
        treedef.flatten_up_to(((1,), {"a": 2}))
    with pytest.raises(ValueError, match="Expected None, got 3"):
        tu.tree_structure([None]).flatten_up_to([3])


def test_compose_and_treedef_tuple():
    outer = tu.tree_structure([0, 0])
    inner = tu.tree_structure((0, {"k": 0}))
    comp = outer.compose(inner)
    assert comp == tu.tree_structure([(1, {"k": 2}), (3, {"k": 4})])
    assert comp.num_leaves == 4
    tt = tu.treedef_tuple([outer, inner])
    assert tt == tu.tree_structure(([1, 2], (3, {"k": 4})))
    assert tt.num_leaves == 4


def test_build_tree():
    treedef = tu.tree_structure({"a": 1, "b": [2, 3]})
    assert tu.build_tree(treedef, [10, [20, 30]]) == {"a": 10, "b": [20, 30]}
    assert tu.build_tree(tu.tree_structure(Point(1, 2)), ("u", "v")) == Point("u", "v")


# ----------------------------------------------------------------------------- map & co

def test_tree_map_multiple_trees_and_prefix():
    a = {"x": 1, "y": (2, 3)}
    b = {"x": 10, "y": (20, 30)}
    assert tu.tree_map(operator.add, a, b) == {"x": 11, "y": (22, 33)}
    assert tree.map(lambda p, q, r: p + q + r, [1], [2], [3]) == [6]
    # leaves of the first tree may stand for whole subtrees of the others
    assert tu.tree_map(lambda p, q: (p, q), [1, 2], [(3, 4), {"k": 5}]) == \
        [(1, (3, 4)), (2, {"k": 5})]


def test_tree_map_structure_mismatch_errors():
    with pytest.raises(ValueError, match=r"List arity mismatch: 3 != 2") as info:
        tu.tree_map(lambda p, q: p, [1, 2], [1, 2, 3])
    msg = str(info.value)
    assert "PyTreeDef([*, *])" in msg and "PyTreeDef([*, *, *])" in msg
    with pytest.raises(ValueError, match=r"Tuple arity mismatch"):
        tree.map(lambda p, q: p, (1, 2), (1,))
    with pytest.raises(ValueError, match=r"(?s)Dict key mismatch.*\{'a': \*\}"):
        tu.tree_map(lambda p, q: p, {"a": 1}, {"b": 1})
    with pytest.raises(ValueError, match="Expected tuple, got"):
        tu.tree_map(lambda p, q: p, (1, 2), [1, 2])
    with pytest.raises(ValueError, match="Expected None"):
        tu.tree_map(lambda p, q: p, [None], [1])
    with pytest.raises(ValueError, match="Named tuple type mismatch"):
        Other = collections.namedtuple("Other", "x y")
        tu.tree_map(lambda p, q: p, Point(1, 2), Other(1, 2))


def test_is_leaf():
    t = [(1, 2), {"a": (3, 4)}, None]
    is_pair = lambda x: isinstance(x, tuple)  # noqa: E731
    assert tu.tree_leaves(t, is_leaf=is_pair) == [(1, 2), (3, 4)]
    assert tree.leaves(t, is_leaf=lambda x: x is None) == [1, 2, 3, 4, None]
    assert tu.tree_map(sum, t, is_leaf=is_pair) == [3, {"a": 7}, None]
    assert tu.tree_structure(t, is_leaf=is_pair).num_leaves == 2
    assert tu.tree_reduce(operator.add, t, (), is_leaf=is_pair) == (1, 2, 3, 4)
    assert tu.tree_all([0, (1,)], is_leaf=is_pair) is False
    leaves, treedef = tree.flatten(t, is_leaf=is_pair)
    assert treedef.unflatten(leaves) == t
    # is_leaf on the root makes the whole tree one leaf
    assert tu.tree_leaves(t, is_leaf=lambda x: isinstance(x, list)) == [t]


def test_tree_reduce_all_and_all_leaves():
    assert tu.tree_reduce(operator.add, [1, (2, 3)]) == 6
    assert tree.reduce(operator.add, [1, (2, 3)], 10) == 16
    assert tu.tree_reduce(max, {"a": 4, "b": [9, 1]}) == 9
    assert tu.tree_all([True, (1, {"a": "x"})]) is True
    assert tree.all([True, (0,)]) is False
    assert tu.tree_all([None]) is True
    assert tu.all_leaves([1, "s", 2.0]) is True
    assert tu.all_leaves([1, (2,)]) is False
    assert tu.all_leaves([None]) is False
    assert tu.all_leaves([(1,), 2], is_leaf=lambda x: isinstance(x, tuple)) is True


def test_tree_transpose():
    t = [(1, "a"), (2, "b"), (3, "c")]
    outer = tu.tree_structure([0, 0, 0])
    inner = tu.tree_structure((0, 0))
    assert tu.tree_transpose(outer, inner, t) == ([1, 2, 3], ["a", "b", "c"])
    assert tree.transpose(outer, None, t) == ([1, 2, 3], ["a", "b", "c"])
    d = {"p": {"m": 1, "n": 2}, "q": {"m": 3, "n": 4}}
    od = tu.tree_structure({"p": 0, "q": 0})
    idef = tu.tree_structure({"m": 0, "n": 0})
    assert tu.tree_transpose(od, idef, d) == {"m": {"p": 1, "q": 3}, "n": {"p": 2, "q": 4}}
    with pytest.raises(TypeError, match="Mismatch"):
        tu.tree_transpose(outer, inner, [(1, 2), (3, 4)])


# ----------------------------------------------------------------------------- custom nodes

class Box:
    def __init__(self, value, label):
        self.value, self.label = value, label

    def __eq__(self, other):
        return type(other) is Box and (self.value, self.label) == (other.value, other.label)


tu.register_pytree_node(Box, lambda b: ((b.value,), b.label),
                        lambda label, children: Box(children[0], label))


@tu.register_pytree_node_class
class Vec:
    def __init__(self, xs, name):
        self.xs, self.name = list(xs), name

    def tree_flatten(self):
        return self.xs, self.name

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(children, aux)


class Keyed:
    def __init__(self, a, b):
        self.a, self.b = a, b


tu.register_pytree_with_keys(
    Keyed, lambda k: (((GetAttrKey("a"), k.a), (GetAttrKey("b"), k.b)), None),
    lambda aux, ch: Keyed(*ch))


def test_register_pytree_node():
    b = Box([1, 2], "lbl")
    leaves, treedef = tu.tree_flatten({"k": b})
    assert leaves == [1, 2]
    out = treedef.unflatten([3, 4])
    assert out == {"k": Box([3, 4], "lbl")}
    assert tu.tree_structure(Box(1, "x")) != tu.tree_structure(Box(1, "y"))
    assert repr(tu.tree_structure(Box(1, "x"))) == "PyTreeDef(CustomNode(Box['x'], [*]))"
    assert tu.tree_map(operator.add, Box(1, "x"), Box(2, "x")) == Box(3, "x")
    with pytest.raises(ValueError, match="Mismatch custom node data"):
        tu.tree_map(operator.add, Box(1, "x"), Box(2, "y"))
    with pytest.raises(ValueError, match="Custom node type mismatch"):
        tu.tree_map(operator.add, Box(1, "x"), (2,))
    with pytest.raises(ValueError, match="Duplicate"):
        tu.register_pytree_node(Box, lambda b: ((), None), lambda a, c: Box(None, None))


def test_register_pytree_node_class():
    v = Vec([1, (2, 3)], "v")
    leaves, treedef = tu.tree_flatten(v)
    assert leaves == [1, 2, 3]
    out = tu.tree_map(lambda x: -x, v)
    assert isinstance(out, Vec) and out.xs == [-1, (-2, -3)] and out.name == "v"
    assert [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(v)] == \
        ["[<flat index 0>]", "[<flat index 1>][0]", "[<flat index 1>][1]"]


def test_register_pytree_with_keys():
    k = Keyed(1, [2])
    assert tu.tree_leaves(k) == [1, 2]
    paths = [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(k)]
    assert paths == [".a", ".b[0]"]
    out = tu.tree_map(lambda x: x * 2, k)
    assert (out.a, out.b) == (2, [4])


def test_register_dataclass_inferred_and_explicit():
    @tu.register_dataclass
    @dataclasses.dataclass
    class State:
        w: object
        b: object
        name: str = dataclasses.field(default="s", metadata=dict(static=True))

    s = State(1, (2, 3), "net")
    leaves, treedef = tu.tree_flatten(s)
    assert leaves == [1, 2, 3]
    assert treedef.unflatten([4, 5, 6]) == State(4, (5, 6), "net")
    assert tu.tree_structure(State(1, 2, "a")) != tu.tree_structure(State(1, 2, "b"))
    assert [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(s)] == [".w", ".b[0]", ".b[1]"]

    @functools.partial(tu.register_dataclass, data_fields=["x"], meta_fields=["n"])
    @dataclasses.dataclass(frozen=True)
    class Explicit:
        x: object
        n: int

    e = tu.tree_map(lambda v: v + 1, Explicit(1, 7))
    assert e == Explicit(2, 7)

    @dataclasses.dataclass
    class Dropped:
        x: object
        cache: object = None

    tu.register_dataclass(Dropped, ["x"], [], drop_fields=["cache"])
    assert tu.tree_map(lambda v: v * 2, Dropped(3, "c")) == Dropped(6, None)


def test_register_dataclass_errors():
    @dataclasses.dataclass
    class Bad:
        x: int
        y: int

    with pytest.raises(ValueError, match="Missing fields: \\['y'\\]"):
        tu.register_dataclass(Bad, data_fields=["x"], meta_fields=[])
    with pytest.raises(TypeError, match="both be specified"):
        tu.register_dataclass(Bad, data_fields=["x", "y"])


def test_register_static():
    @tu.register_static
    class Cfg:
        def __init__(self, n):
            self.n = n

        def __eq__(self, other):
            return isinstance(other, Cfg) and other.n == self.n

        def __hash__(self):
            return hash(self.n)

    t = [Cfg(3), 1]
    leaves, treedef = tu.tree_flatten(t)
    assert leaves == [1]
    out = treedef.unflatten([2])
    assert out[0] == Cfg(3) and out[1] == 2
    assert tu.tree_structure([Cfg(3), 0]) != tu.tree_structure([Cfg(4), 0])


# ----------------------------------------------------------------------------- paths

def test_paths_and_keystr():
    t = [{"a": 1, "b": Point(2, (3,))}, None, 4]
    pairs, treedef = tu.tree_flatten_with_path(t)
    assert [leaf for _, leaf in pairs] == [1, 2, 3, 4]
    assert pairs[0][0] == (SequenceKey(0), DictKey("a"))
    assert pairs[2][0] == (SequenceKey(0), DictKey("b"), GetAttrKey("y"), SequenceKey(0))
    assert treedef == tu.tree_structure(t)
    assert [tu.keystr(p) for p, _ in pairs] == \
        ["[0]['a']", "[0]['b'].x", "[0]['b'].y[0]", "[2]"]
    assert tu.keystr(pairs[2][0], simple=True, separator="/") == "0/b/y/0"
    assert str(FlattenedIndexKey(3)) == "[<flat index 3>]"
    assert repr(SequenceKey(1)) == "SequenceKey(idx=1)"
    assert DictKey("a") == DictKey("a") and hash(GetAttrKey("x")) == hash(GetAttrKey("x"))
    od = collections.OrderedDict([("z", 1)])
    assert tree.leaves_with_path(od) == [((DictKey("z"),), 1)]


def test_map_with_path():
    t = {"a": [1, 2], "b": 3}
    out = tu.tree_map_with_path(lambda p, x: tu.keystr(p) + "=" + str(x), t)
    assert out == {"a": ["['a'][0]=1", "['a'][1]=2"], "b": "['b']=3"}
    out2 = tree.map_with_path(lambda p, x, y: x + y, t, {"a": [10, 20], "b": 30})
    assert out2 == {"a": [11, 22], "b": 33}
    pairs, _ = tree.flatten_with_path(t, is_leaf=lambda x: isinstance(x, list))
    assert pairs == [((DictKey("a"),), [1, 2]), ((DictKey("b"),), 3)]
    by_depth = tu.tree_leaves_with_path(t, is_leaf=lambda p, x: len(p) == 1,
                                        is_leaf_takes_path=True)
    assert [leaf for _, leaf in by_depth] == [[1, 2], 3]
    with pytest.raises(ValueError, match="Dict key mismatch"):
        tu.tree_map_with_path(lambda p, x, y: x, t, {"a": [1, 2]})


# ----------------------------------------------------------------------------- Partial

def test_partial_is_a_pytree():
    def f(a, b, c=0):
        return a + b + c

    p = Partial(f, 1, c=10)
    assert p(2) == 13
    leaves, treedef = tu.tree_flatten(p)
    assert leaves == [1, 10]
    q = treedef.unflatten([100, 1000])
    assert isinstance(q, Partial)
    assert q(2) == 1102
    assert q.func is f
    doubled = tu.tree_map(lambda x: x * 2, p)
    assert doubled(0) == 22
    assert tu.tree_structure(Partial(f, 5)) == tu.tree_structure(Partial(f, 6))
    assert tu.tree_structure(Partial(f, 5)) != tu.tree_structure(Partial(f, 5, 6))


def test_partial_of_partial_keeps_inner_args_static():
    def g(a, b):
        return a * 10 + b

    inner = functools.partial(g, 3)
    p = Partial(inner, 4)
    assert p() == 34
    assert tu.tree_leaves(p) == [4]
    assert tu.tree_map(lambda x: x + 1, p)() == 35


def test_treedef_is_plain_class():
    assert isinstance(tu.tree_structure([1]), PyTreeDef)


def test_broadcast_reduce_associative_and_one_level():
    """The helpers optax-style code uses: prefix broadcasting (masks, labels), a balanced
    reduction, one-level flattening."""
    assert tree.broadcast({"a": True, "b": False}, {"a": [1, 2], "b": (3,)}) == {"a": [True, True], "b": (False,)}
    assert tu.tree_broadcast(7, {"x": [1, None, 2]}) == {"x": [7, None, 7]}
    calls = []
    assert tree.reduce_associative(lambda a, b: calls.append((a, b)) or a + b, [1, 2, 3, 4, 5]) == 15
    assert calls[:2] == [(1, 2), (3, 4)]  # pairs first: log depth
    assert tree.reduce_associative(lambda a, b: a + b, [], identity=0) == 0
    with pytest.raises(TypeError):
        tree.reduce_associative(lambda a, b: a + b, [])
    assert tu.flatten_one_level({"b": 1, "a": [2]}) == (([2], 1), ("a", "b"))
    assert tu.flatten_one_level(None) == ((), None)
    with pytest.raises(ValueError, match="can't tree-flatten"):
        tu.flatten_one_level(1.0)
    assert tu.is_tree_node(None) and tu.is_tree_node((1,)) and not tu.is_tree_node(1)


def test_leaves_as_matches_a_structure_or_says_none():
    """`leaves_as(treedef, tree)`: the leaves where `tree` has exactly that structure of tuples,
    lists, dicts and None; None where anything differs (a jitted call's quick path)."""
    from jaxweb._src.tree_util import leaves_as
    t = ({"b": 1, "a": (2, [3, None])}, [4])
    _, td = tu.tree_flatten(t)
    assert leaves_as(td, ({"a": (5, [6, None]), "b": 7}, [8])) == [5, 6, 7, 8]
    for other in [({"b": 1, "c": (2, [3, None])}, [4]), ({"b": 1, "a": [2, [3, None]]}, [4]),
                  ({"b": 1, "a": (2, [3, 9])}, [4]), ({"b": 1, "a": (2, [(3,), None])}, [4]),
                  ({"b": 1, "a": (2, [3, None]), "z": 0}, [4]), ({"b": 1, "a": (2, [3, None])}, [4, 5]),
                  (collections.OrderedDict(b=1, a=(2, [3, None])), [4]), ({"b": 1, "a": (2, [3, None])},)]:
        assert leaves_as(td, other) is None, other
    assert leaves_as(tu.tree_flatten(1)[1], 1) is None  # a leaf alone: flattened the ordinary way
