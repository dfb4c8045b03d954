"""Pytrees: flattening nested containers to a list of leaves and back (like `jax.tree_util`).

Every transformed function call flattens its arguments and unflattens its results, so the
core is kept small and fast:

* a registry dict maps a type to a `_NodeType` record (how to flatten/unflatten it);
* a `PyTreeDef` wraps a nested tuple `node = (node_type, aux_data, children)`, where each
  child is again a node and a leaf is `_LEAF` (None).  Plain tuples hash and compare in C,
  so treedefs are cheap to hash (jit cache keys) and to compare.

Built-in nodes, as in JAX: tuple, list, dict (children in sorted key order), None (a node
with no children, not a leaf), namedtuples (any tuple subclass with `_fields`),
collections.OrderedDict (insertion order) and collections.defaultdict.  Anything else that
is not registered is a leaf.
"""
from __future__ import annotations

import collections
import dataclasses
import functools
from itertools import islice, repeat
from typing import Any, Callable, Iterable

from .tree_keys import (DictKey, FlattenedIndexKey, GetAttrKey, KeyEntry, KeyPath,  # noqa: F401  (re-exported)
                        SequenceKey, keystr)

_LEAF = None  # the node standing for one leaf inside a PyTreeDef


class _NodeType:
    """Registry record for one kind of node.

    `flatten(x) -> (children, aux)`, `unflatten(aux, children_tuple) -> x`.  Key paths come
    from `flatten_with_keys(x) -> ([(key, child), ...], aux)` when given, else from
    `keys(aux, n_children)`, else are `FlattenedIndexKey`s.  `kind` ('tuple', 'list',
    'dict', 'none', 'namedtuple' or 'custom') picks the repr and `flatten_up_to` checks.
    """

    __slots__ = ("type", "kind", "flatten", "unflatten", "flatten_with_keys", "keys")

    def __init__(self, type_, kind, flatten, unflatten, flatten_with_keys=None, keys=None):
        self.type, self.kind, self.flatten, self.unflatten = type_, kind, flatten, unflatten
        self.flatten_with_keys, self.keys = flatten_with_keys, keys


_registry: dict[type, _NodeType] = {}


# ----------------------------------------------------------------------------- built-ins

def _sorted_keys(d) -> tuple:
    """Dict keys in sorted order, as JAX does; keys that do not compare (1 and 'a') raise
    JAX's ValueError."""
    try:
        return tuple(sorted(d))
    except TypeError:
        raise ValueError("Comparator raised exception while sorting pytree dictionary keys.") from None


def _dict_flatten(x):
    keys = _sorted_keys(x)
    return [x[k] for k in keys], keys


def _defaultdict_flatten(x):
    keys = tuple(sorted(x))  # JAX lets the TypeError of incomparable keys through here
    return [x[k] for k in keys], (x.default_factory, keys)


_seq_keys = lambda aux, n: map(SequenceKey, range(n))  # noqa: E731
_dict_keys = lambda aux, n: map(DictKey, aux)  # noqa: E731
_TUPLE = _NodeType(tuple, "tuple", lambda x: (x, None), lambda a, c: c, keys=_seq_keys)
_LIST = _NodeType(list, "list", lambda x: (x, None), lambda a, c: list(c), keys=_seq_keys)
_DICT = _NodeType(dict, "dict", _dict_flatten, lambda a, c: dict(zip(a, c)), keys=_dict_keys)
_NONE = _NodeType(type(None), "none", lambda x: ((), None), lambda a, c: None)
_NAMEDTUPLE = _NodeType(tuple, "namedtuple", lambda x: (x, type(x)), lambda a, c: a(*c),
                        keys=lambda aux, n: map(GetAttrKey, aux._fields))
_NONE_NODE = (_NONE, None, ())
for _n in (_TUPLE, _LIST, _DICT, _NONE):
    _registry[_n.type] = _n
_registry[collections.OrderedDict] = _NodeType(
    collections.OrderedDict, "custom", lambda x: (list(x.values()), tuple(x)),
    lambda a, c: collections.OrderedDict(zip(a, c)), keys=_dict_keys)
_registry[collections.defaultdict] = _NodeType(
    collections.defaultdict, "custom", _defaultdict_flatten,
    lambda a, c: collections.defaultdict(a[0], zip(a[1], c)),
    keys=lambda aux, n: map(DictKey, aux[1]))


def _lookup(x):
    """The node type of `x`, or None when `x` is a leaf."""
    h = _registry.get(type(x))
    if h is None and isinstance(x, tuple) and hasattr(type(x), "_fields"):
        return _NAMEDTUPLE
    return h


# ----------------------------------------------------------------------------- flattening

def _flatten(x, leaves, is_leaf):
    """Append the leaves of `x` to `leaves`; return the node describing `x`."""
    if is_leaf is not None and is_leaf(x):
        leaves.append(x)
        return _LEAF
    t = type(x)
    if t is tuple:
        return (_TUPLE, None, _children(x, leaves, is_leaf))
    if t is list:
        return (_LIST, None, _children(x, leaves, is_leaf))
    if t is dict:
        keys = _sorted_keys(x)
        return (_DICT, keys, _children([x[k] for k in keys], leaves, is_leaf))
    if x is None:
        return _NONE_NODE
    h = _registry.get(t)
    if h is None:
        if isinstance(x, tuple) and hasattr(t, "_fields"):
            h = _NAMEDTUPLE
        else:
            leaves.append(x)
            return _LEAF
    children, aux = h.flatten(x)
    return (h, aux, _children(children, leaves, is_leaf))


def _children(cs, leaves, is_leaf) -> tuple:
    """The nodes of a container's children `cs` (a tuple's, list's, dict's or registered node's), as
    `_flatten` makes them; a child
    that is plainly a leaf (no registered type, not None, no tuple) is appended here, without a
    call: a jitted call flattens its arguments every call."""
    if is_leaf is not None:
        return tuple([_flatten(c, leaves, is_leaf) for c in cs])
    out = []
    for c in cs:
        if type(c) in _registry or isinstance(c, tuple):
            out.append(_flatten(c, leaves, None))
        else:
            leaves.append(c)
            out.append(_LEAF)
    return tuple(out)


def _leaves_as(node, x, leaves) -> bool:
    """Append `x`'s leaves to `leaves` where `x` has the structure `node` of tuples, lists, dicts
    and leaves only (`leaves_as`, which then checks that no leaf is a node); False where it differs."""
    h, aux, children = node
    t = type(x)
    if h is _NONE:
        return x is None
    if h is _DICT:
        if t is not dict or len(x) != len(aux):
            return False
        try:
            if not any(children):  # leaves only (a dict of parameters)
                leaves += map(x.__getitem__, aux)
                return True
            x = [x[k] for k in aux]
        except KeyError:
            return False
    elif not (h is _TUPLE and t is tuple or h is _LIST and t is list) or len(x) != len(children):
        return False
    if not any(children):  # leaves only: taken whole (C speed)
        leaves += x
        return True
    for c, n in zip(x, children):
        if n is _LEAF:
            leaves.append(c)
        elif not _leaves_as(n, c, leaves):
            return False
    return True


def _flatten_with_path(x, path, out, is_leaf, takes_path):
    """Like `_flatten`, appending `(key_path, leaf)` pairs to `out`."""
    if is_leaf is not None and (is_leaf(path, x) if takes_path else is_leaf(x)):
        out.append((path, x))
        return _LEAF
    h = _lookup(x)
    if h is None:
        out.append((path, x))
        return _LEAF
    if h.flatten_with_keys is not None:
        keyed, aux = h.flatten_with_keys(x)
    else:
        children, aux = h.flatten(x)
        children = list(children)
        n = len(children)
        keyed = zip(h.keys(aux, n) if h.keys else map(FlattenedIndexKey, range(n)), children)
    return (h, aux, tuple([_flatten_with_path(c, path + (k,), out, is_leaf, takes_path)
                           for k, c in keyed]))


def _unflatten(node, it):
    if node is _LEAF:
        return next(it)
    h, aux, children = node
    if not any(children):  # leaves only (a dict of parameters): taken at C speed
        return h.unflatten(aux, tuple(islice(it, len(children))))
    return h.unflatten(aux, tuple([next(it) if c is _LEAF else _unflatten(c, it) for c in children]))


def _count(node, internal: int) -> int:
    """Leaves (internal=0) or all nodes (internal=1) under `node`."""
    if node is _LEAF:
        return 1
    return internal + sum([_count(c, internal) for c in node[2]])


def _node_repr(node) -> str:
    if node is _LEAF:
        return "*"
    h, aux, children = node
    kind = h.kind
    parts = [_node_repr(c) for c in children]
    if kind == "tuple":
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    if kind == "list":
        return "[" + ", ".join(parts) + "]"
    if kind == "dict":
        return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(aux, parts)) + "}"
    if kind == "none":
        return "None"
    if kind == "namedtuple":
        return f"CustomNode(namedtuple[{aux.__name__}], [{', '.join(parts)}])"
    return f"CustomNode({h.type.__name__}[{aux!r}], [{', '.join(parts)}])"


def _children_up_to(h, aux, n, x):
    """Children of `x` matched against a node `(h, aux, <n children>)`, or ValueError
    saying how `x` differs (messages follow JAX's)."""
    kind = h.kind
    if kind == "tuple" or kind == "list":
        if not isinstance(x, h.type):
            raise ValueError(f"Expected {kind}, got {x!r}.")
        if len(x) != n:
            raise ValueError(f"{kind.capitalize()} arity mismatch: {len(x)} != {n}; "
                             f"{kind}: {x!r}.")
        return list(x)
    if kind == "dict":
        if not isinstance(x, dict):
            raise ValueError(f"Expected dict, got {x!r}.")
        keys = _sorted_keys(x)
        if keys != aux:
            raise ValueError(f"Dict key mismatch; expected keys: {list(aux)!r}; dict: {x!r}.")
        return [x[k] for k in aux]
    if kind == "none":
        if x is not None:
            raise ValueError(f"Expected None, got {x!r}.")
        return []
    if kind == "namedtuple":
        if not (isinstance(x, tuple) and hasattr(type(x), "_fields")):
            raise ValueError(f"Expected named tuple, got {x!r}.")
        if type(x) is not aux:
            raise ValueError(f"Named tuple type mismatch: expected type: {aux.__name__!r}, "
                             f"got type: {type(x).__name__!r}.")
        if len(x) != n:
            raise ValueError(f"Named tuple arity mismatch: {len(x)} != {n}; tuple: {x!r}.")
        return list(x)
    if type(x) is not h.type:
        raise ValueError(f"Custom node type mismatch; expected type: {h.type!r}; "
                         f"value: {x!r}.")
    children, aux2 = h.flatten(x)
    children = list(children)
    if not _aux_equal(aux, aux2):
        raise ValueError(f"Mismatch custom node data: {aux!r} != {aux2!r}; value: {x!r}.")
    if len(children) != n:
        raise ValueError(f"Custom type arity mismatch: {len(children)} != {n}; value: {x!r}.")
    return children


def _aux_equal(a, b) -> bool:
    return a is b or bool(a == b)


def _flatten_up_to(node, x, out):
    if node is _LEAF:
        out.append(x)
        return
    h, aux, children = node
    for c, sub in zip(children, _children_up_to(h, aux, len(children), x)):
        _flatten_up_to(c, sub, out)


def _compose(node, inner):
    if node is _LEAF:
        return inner
    h, aux, children = node
    return (h, aux, tuple([_compose(c, inner) for c in children]))


def _from_iterable(node, xs):
    if node is _LEAF:
        return xs
    h, aux, children = node
    xs = list(xs)
    if len(xs) != len(children):
        raise ValueError(f"Arity mismatch between trees: {len(xs)} != {len(children)}")
    return h.unflatten(aux, tuple([_from_iterable(c, x) for c, x in zip(children, xs)]))


def _skeleton(node):
    """`node` with each unhashable aux data replaced by its type: a hash for treedefs whose
    custom nodes keep dicts or lists as aux data (as JAX, which hashes no aux data)."""
    if node is _LEAF:
        return node
    h, aux, children = node
    try:
        hash(aux)
    except TypeError:
        aux = type(aux)
    return h, aux, tuple(_skeleton(c) for c in children)


class PyTreeDef:
    """The structure of a pytree (everything but its leaves).

    Hashable and comparable with ==, so it can key caches.  Built by `tree_flatten` /
    `tree_structure`; `unflatten(leaves)` rebuilds a tree of this structure.
    """

    __slots__ = ("_node", "_num_leaves", "_hash")

    def __init__(self, node, num_leaves: int | None = None):
        self._node = node
        self._num_leaves = _count(node, 0) if num_leaves is None else num_leaves
        self._hash = None

    @property
    def num_leaves(self) -> int:
        return self._num_leaves

    @property
    def num_nodes(self) -> int:
        """Number of nodes including leaves and None nodes (as JAX counts them)."""
        return _count(self._node, 1)

    def unflatten(self, leaves: Iterable) -> Any:
        """Build the tree with this structure whose leaves are `leaves` (in order)."""
        if not isinstance(leaves, (list, tuple)):
            leaves = list(leaves)
        if len(leaves) != self._num_leaves:
            few = "few" if len(leaves) < self._num_leaves else "many"
            raise ValueError(f"Too {few} leaves for PyTreeDef; expected {self._num_leaves}, "
                             f"got {len(leaves)}.")
        return _unflatten(self._node, iter(leaves))

    def flatten_up_to(self, tree) -> list:
        """Split `tree` at this structure's leaves: this treedef must be a prefix of the
        tree's; each returned element is the (possibly non-leaf) subtree found there."""
        out: list = []
        _flatten_up_to(self._node, tree, out)
        return out

    def children(self) -> list["PyTreeDef"]:
        """The treedefs of the root node's children ([] for a leaf or None)."""
        if self._node is _LEAF:
            return []
        return [PyTreeDef(c) for c in self._node[2]]

    def node_data(self):
        """`(type, aux_data)` of the root node, or None for a leaf."""
        if self._node is _LEAF:
            return None
        h, aux, _ = self._node
        if h.kind == "namedtuple":
            return aux, None
        return h.type, aux

    def compose(self, inner: "PyTreeDef") -> "PyTreeDef":
        """The treedef of this structure with every leaf replaced by `inner`."""
        return PyTreeDef(_compose(self._node, inner._node),
                         self._num_leaves * inner._num_leaves)

    def from_iterable_tree(self, xs):
        """See `build_tree`."""
        return _from_iterable(self._node, xs)

    def __eq__(self, other):
        if not isinstance(other, PyTreeDef):
            return NotImplemented
        return self._node == other._node

    def __hash__(self):
        h = self._hash
        if h is None:
            try:
                h = hash(self._node)
            except TypeError:  # unhashable aux data (a dict): equality still compares it
                h = hash(_skeleton(self._node))
            self._hash = h
        return h

    def __repr__(self):
        return f"PyTreeDef({_node_repr(self._node)})"


# ----------------------------------------------------------------------------- public API

def tree_flatten(tree, is_leaf: Callable[[Any], bool] | None = None):
    """`(leaves, treedef)` of `tree`; `is_leaf(x)` True stops descent at `x`."""
    leaves: list = []
    node = _flatten(tree, leaves, is_leaf)
    return leaves, PyTreeDef(node, len(leaves))


def leaves_as(treedef: PyTreeDef, tree) -> list | None:
    """`tree_flatten(tree)[0]` where `tree`'s structure is `treedef`, made of tuples, lists, dicts
    and leaves; else None. Cheaper than flattening and comparing: no node is made and no dict's
    keys sorted (a jitted call's arguments have the last call's structure, every call)."""
    leaves: list = []
    node = treedef._node
    if node is _LEAF or not _leaves_as(node, tree, leaves):
        return None
    types = set(map(type, leaves))  # a node now where a leaf was: another structure
    if not _registry.keys().isdisjoint(types) or any(map(issubclass, types, repeat(tuple))):
        return None
    return leaves


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable):
    """Rebuild a tree of structure `treedef` from `leaves`."""
    return treedef.unflatten(leaves)


def tree_leaves(tree, is_leaf=None) -> list:
    """The leaves of `tree` in flattening order (None is a node, so it has no leaves)."""
    leaves: list = []
    _flatten(tree, leaves, is_leaf)
    return leaves


def tree_structure(tree, is_leaf=None) -> PyTreeDef:
    """The `PyTreeDef` of `tree`."""
    return tree_flatten(tree, is_leaf)[1]


def _rest_up_to(treedef, rest, name="tree_map"):
    """Leaves of each extra tree, split at `treedef`'s leaves; a ValueError naming both
    structures when one does not have `treedef` as a prefix."""
    out = []
    for i, r in enumerate(rest, 1):
        try:
            out.append(treedef.flatten_up_to(r))
        except ValueError as e:
            raise ValueError(
                f"{e}\n{name}: the first tree has structure {treedef} but tree {i} of the "
                f"rest has structure {tree_structure(r)}; every tree must have the first "
                f"tree's structure (or have it as a prefix).") from None
    return out


def tree_map(f: Callable, tree, *rest, is_leaf=None):
    """Apply `f` to the leaves of `tree` (and the matching subtrees of each of `rest`),
    returning a tree of the same structure as `tree`."""
    leaves, treedef = tree_flatten(tree, is_leaf)
    if not rest:
        return treedef.unflatten([f(x) for x in leaves])
    others = _rest_up_to(treedef, rest)
    return treedef.unflatten([f(*xs) for xs in zip(leaves, *others)])


_NO_INIT = object()


def tree_reduce(function: Callable, tree, initializer=_NO_INIT, is_leaf=None):
    """`functools.reduce(function, tree_leaves(tree), [initializer])`."""
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _NO_INIT:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_all(tree, *, is_leaf=None) -> bool:
    """True when every leaf is truthy."""
    return all(tree_leaves(tree, is_leaf))


def tree_flatten_with_path(tree, is_leaf=None, is_leaf_takes_path: bool = False):
    """`([(key_path, leaf), ...], treedef)`; a key path is a tuple of key entries."""
    out: list = []
    node = _flatten_with_path(tree, (), out, is_leaf, is_leaf_takes_path)
    return out, PyTreeDef(node, len(out))


def tree_leaves_with_path(tree, is_leaf=None, is_leaf_takes_path: bool = False) -> list:
    """`[(key_path, leaf), ...]` of `tree`."""
    return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


def tree_map_with_path(f: Callable, tree, *rest, is_leaf=None,
                       is_leaf_takes_path: bool = False):
    """Like `tree_map`, but calls `f(key_path, leaf, *rest_leaves)`."""
    pairs, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
    others = _rest_up_to(treedef, rest, "tree_map_with_path")
    return treedef.unflatten([f(p, x, *xs) for (p, x), *xs in zip(pairs, *others)])


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None,
                   pytree_to_transpose):
    """Turn a tree of structure outer∘inner into one of structure inner∘outer.

    `inner_treedef=None` infers it from the first outer subtree.
    """
    flat, treedef = tree_flatten(pytree_to_transpose)
    if inner_treedef is None:
        inner_treedef = tree_structure(outer_treedef.flatten_up_to(pytree_to_transpose)[0])
    expected = outer_treedef.compose(inner_treedef)
    if treedef != expected:
        raise TypeError(f"Mismatch\n{treedef}\n != \n{expected}")
    n_in, n_out = inner_treedef.num_leaves, outer_treedef.num_leaves
    rows = [flat[i * n_in:(i + 1) * n_in] for i in range(n_out)]
    columns = [outer_treedef.unflatten([row[j] for row in rows]) for j in range(n_in)]
    return inner_treedef.unflatten(columns)


def all_leaves(iterable: Iterable, is_leaf=None) -> bool:
    """True when every element of `iterable` is a leaf (None is not a leaf)."""
    items = list(iterable)
    if is_leaf is None:
        return all(x is not None and _lookup(x) is None for x in items)
    leaves = tree_leaves(items, is_leaf)
    return len(leaves) == len(items) and all(a is b for a, b in zip(leaves, items))


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    """True for a treedef with a single node (a leaf, or None / an empty container)."""
    return treedef.num_nodes == 1


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
    """The child treedefs of the root node."""
    return treedef.children()


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
    """The treedef of a tuple whose elements have the given treedefs."""
    treedefs = list(treedefs)
    return PyTreeDef((_TUPLE, None, tuple([t._node for t in treedefs])),
                     sum(t.num_leaves for t in treedefs))


def build_tree(treedef: PyTreeDef, xs):
    """Build a tree of `treedef`'s node types from nested iterables `xs`: each internal
    node's entry is an iterable of its children's entries; a leaf's entry is used as is."""
    return treedef.from_iterable_tree(xs)


def broadcast_prefix(prefix_tree, full_tree, is_leaf=None) -> list:
    """For each leaf of `full_tree`, the leaf of `prefix_tree` above it (used for prefix
    arguments such as vmap's `in_axes`; pass `is_leaf=lambda x: x is None` to make None a
    leaf of the prefix)."""
    prefix_leaves, prefix_def = tree_flatten(prefix_tree, is_leaf)
    out: list = []
    for p, sub in zip(prefix_leaves, _rest_up_to(prefix_def, [full_tree], "prefix")[0]):
        out.extend([p] * len(tree_leaves(sub)))
    return out


def tree_broadcast(prefix_tree, full_tree, is_leaf=None):
    """`prefix_tree` with each of its leaves repeated over the matching subtree of
    `full_tree`: the result has `full_tree`'s structure (JAX's `tree_util.tree_broadcast`;
    optax-style masks and labels are such prefixes)."""
    prefix_leaves, prefix_def = tree_flatten(prefix_tree, is_leaf)
    subtrees = _rest_up_to(prefix_def, [full_tree], "tree_broadcast")[0]
    return prefix_def.unflatten([tree_map(lambda _, p=p: p, sub) for p, sub in zip(prefix_leaves, subtrees)])


def tree_reduce_associative(operation: Callable, tree, *, identity=_NO_INIT, is_leaf=None):
    """Reduce the leaves with an associative `operation` as a balanced tree (log depth,
    which keeps long float sums more accurate than a left fold); `identity` is the
    result for a tree without leaves."""
    leaves = tree_leaves(tree, is_leaf)
    if not leaves:
        if identity is _NO_INIT:
            raise TypeError("tree_reduce_associative: the tree has no leaves and no identity was given")
        return identity
    while len(leaves) > 1:
        paired = [operation(leaves[i], leaves[i + 1]) for i in range(0, len(leaves) - 1, 2)]
        leaves = paired + ([leaves[-1]] if len(leaves) % 2 else [])
    return leaves[0]


def is_tree_node(x) -> bool:
    """True when `x` is a pytree node (a container, None, a registered type), not a leaf."""
    return x is None or _lookup(x) is not None


def flatten_one_level(tree):
    """`(children, aux_data)` of the root node; ValueError for a leaf."""
    if tree is None:
        return (), None
    leaves, treedef = tree_flatten(tree, is_leaf=lambda x: x is not tree)
    if treedef_is_leaf(treedef) and not is_tree_node(tree):
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    return tuple(leaves), treedef.node_data()[1] if treedef.node_data() is not None else None


def flatten_one_level_with_keys(tree):
    """`(((key, child), ...), aux_data)` of the root node; ValueError for a leaf."""
    children, aux = flatten_one_level(tree)
    if tree is None:
        return (), aux
    pairs, _ = tree_flatten_with_path(tree, is_leaf=lambda x: x is not tree)
    return tuple((path[0], child) for (path, _), child in zip(pairs, children)), aux


def static(**kwargs):
    """`jax.tree.static`: a dataclass field that `register_dataclass` treats as static
    (metadata static=True); arguments as `dataclasses.field`."""
    import dataclasses
    metadata = dict(kwargs.pop("metadata", None) or {}, static=True)
    return dataclasses.field(metadata=metadata, **kwargs)


# ----------------------------------------------------------------------------- registration

def _register(nodetype, flatten, unflatten, flatten_with_keys=None, keys=None):
    if nodetype in _registry:
        raise ValueError(f"Duplicate custom PyTreeDef type registration for {nodetype}.")
    _registry[nodetype] = _NodeType(nodetype, "custom", flatten, unflatten,
                                    flatten_with_keys, keys)


def register_pytree_node(nodetype: type, flatten_func: Callable, unflatten_func: Callable,
                         flatten_with_keys_func: Callable | None = None) -> None:
    """Make `nodetype` a pytree node: `flatten_func(x) -> (children, aux_data)` and
    `unflatten_func(aux_data, children) -> x`.  aux_data must be hashable and comparable
    (it is part of the treedef)."""
    _register(nodetype, flatten_func, unflatten_func, flatten_with_keys_func)


def register_pytree_with_keys(nodetype: type, flatten_with_keys: Callable,
                              unflatten_func: Callable,
                              flatten_func: Callable | None = None) -> None:
    """Like `register_pytree_node` but flattening gives `([(key, child), ...], aux)` so
    key paths name the children."""
    if flatten_func is None:
        def flatten_func(x):
            keyed, aux = flatten_with_keys(x)
            return [c for _, c in keyed], aux
    _register(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def register_pytree_node_class(cls):
    """Class decorator: `cls.tree_flatten(self) -> (children, aux)` and classmethod
    `cls.tree_unflatten(aux, children)`."""
    register_pytree_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)
    return cls


def register_pytree_with_keys_class(cls):
    """Class decorator: `cls.tree_flatten_with_keys(self)` and `cls.tree_unflatten`."""
    flatten = (lambda x: x.tree_flatten()) if hasattr(cls, "tree_flatten") else None
    register_pytree_with_keys(cls, lambda x: x.tree_flatten_with_keys(), cls.tree_unflatten,
                              flatten)
    return cls


def register_dataclass(nodetype=None, data_fields=None, meta_fields=None, drop_fields=()):
    """Register a dataclass(-like) type: `data_fields` are children, `meta_fields` go in
    the (static) aux data.  With neither given, fields come from `dataclasses.fields`:
    those with `metadata=dict(static=True)` are meta, other `init=True` fields data.
    Usable as a decorator; rebuilding calls `nodetype(**fields)`."""
    if nodetype is None:
        return lambda cls: register_dataclass(cls, data_fields, meta_fields, drop_fields)
    if (data_fields is None) != (meta_fields is None):
        raise TypeError("register_dataclass: data_fields and meta_fields must both be "
                        "specified when either is specified.")
    is_dc = dataclasses.is_dataclass(nodetype)
    if data_fields is None and not is_dc:
        raise TypeError(f"register_dataclass: {nodetype} is not a dataclass, so "
                        "data_fields and meta_fields are required.")
    init = [f for f in dataclasses.fields(nodetype) if f.init and f.name not in drop_fields
            ] if is_dc else []
    if data_fields is None:
        data_fields = [f.name for f in init if not f.metadata.get("static", False)]
        meta_fields = [f.name for f in init if f.metadata.get("static", False)]
    data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)
    expected, given = {f.name for f in init}, {*data_fields, *meta_fields}
    if is_dc and given != expected:
        raise ValueError("data_fields and meta_fields must include all dataclass fields with "
                         f"init=True and only them. Missing fields: {sorted(expected - given)}."
                         f" Unexpected fields: {sorted(given - expected)}.")

    def flatten(x):
        return [getattr(x, n) for n in data_fields], tuple(getattr(x, n) for n in meta_fields)

    def unflatten(meta, data):
        return nodetype(**dict(zip(meta_fields, meta)), **dict(zip(data_fields, data)))

    _register(nodetype, flatten, unflatten, keys=lambda aux, n: map(GetAttrKey, data_fields))
    return nodetype


def register_static(cls):
    """Register `cls` as a pytree with no children: instances live in the treedef
    (static), so they must be hashable."""
    register_pytree_node(cls, lambda x: ((), x), lambda aux, _: aux)
    return cls


# ----------------------------------------------------------------------------- Partial

class _StaticPartial:
    """Wraps a functools.partial given to `Partial` so its arguments stay static (part of
    the func in the treedef) instead of being merged into the pytree children."""

    __slots__ = ("wrapped",)

    def __init__(self, wrapped):
        self.wrapped = wrapped

    def __call__(self, *args, **kwargs):
        return self.wrapped(*args, **kwargs)

    def __eq__(self, other):  # two shims around the same partial are the same static func
        return isinstance(other, _StaticPartial) and self.wrapped == other.wrapped

    def __hash__(self):
        return hash(self.wrapped)

    def __repr__(self):
        return repr(self.wrapped)


class Partial(functools.partial):
    """A functools.partial that is a pytree: the bound positional and keyword arguments
    are its children, the function is static aux data.  Can be passed through jit/vmap."""

    def __new__(cls, func, *args, **kwargs):
        if isinstance(func, functools.partial):
            func = _StaticPartial(func)
        return super().__new__(cls, func, *args, **kwargs)


register_pytree_node(Partial, lambda p: ((p.args, p.keywords), p.func),
                     lambda func, xs: Partial(func, *xs[0], **xs[1]))


class PyTreeRegistry:
    """`jax.tree_util.default_registry`: the registry the tree functions use, with the
    methods of JAX's PyTreeRegistry (flatten, flatten_one_level, ..., register_node)."""

    def flatten(self, tree, leaf_predicate=None):
        return tree_flatten(tree, is_leaf=leaf_predicate)

    def flatten_with_path(self, tree, leaf_predicate=None):
        pairs, treedef = tree_flatten_with_path(tree, is_leaf=leaf_predicate)
        return pairs, treedef

    def flatten_one_level(self, tree):
        return None if not is_tree_node(tree) else flatten_one_level(tree)

    def flatten_one_level_with_keys(self, tree):
        return None if not is_tree_node(tree) else flatten_one_level_with_keys(tree)

    def is_node(self, nodetype: type) -> bool:
        """Whether instances of `nodetype` are pytree nodes."""
        return nodetype in (tuple, list, dict, type(None)) or nodetype in _registry

    def register_node(self, nodetype, flatten_func, unflatten_func, flatten_with_keys_func=None) -> None:
        register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys_func)

    def register_dataclass_node(self, nodetype, data_fields, meta_fields) -> None:
        register_dataclass(nodetype, data_fields, meta_fields)

    def __repr__(self) -> str:
        return "<jaxweb PyTreeRegistry (the default registry)>"


default_registry = PyTreeRegistry()
