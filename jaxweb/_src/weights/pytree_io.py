"""Whole pytrees in and out of one safetensors file, structure kept.

Each leaf is stored under its key path written with dots (`params.layers.0.w`), which
other tools read as ordinary tensor names; the tree's structure goes into the file's
metadata (`jaxweb.tree`) so that dicts, lists, tuples and None come back as they were.
Loading with `like=template` (recommended: it restores namedtuples such as optimizer
states and custom nodes too) checks every path, shape and dtype of the template against
the file before any array is built, and names the first path that does not match.
"""
from __future__ import annotations

import json
from typing import Any, Mapping

from ... import tree_util, safetensors
from .. import dtypes
from .rawarrays import format_error

TREE_KEY = "jaxweb.tree"
_PY_SCALARS = {bool: "bool", int: "int", float: "float"}
_PY_TYPES = {v: k for k, v in _PY_SCALARS.items()}


def _entry_name(k: Any) -> str:
    for attr in ("key", "name", "idx"):
        if hasattr(k, attr):
            return str(getattr(k, attr))
    return str(k)


def leaf_name(path: tuple) -> str:
    """The tensor name of a key path: its entries joined with dots ('_' for the root)."""
    return ".".join(_entry_name(k) for k in path) if path else "_"


def flat_named(tree: Any) -> list[tuple[str, tuple, Any]]:
    """`[(name, path, leaf)]` in flattening order; duplicate names are an error."""
    out, seen = [], {}
    for path, leaf in tree_util.tree_flatten_with_path(tree)[0]:
        name = leaf_name(path)
        if name in seen:
            raise ValueError(f"two leaves get the tensor name {name!r}: {tree_util.keystr(seen[name])} and "
                             f"{tree_util.keystr(path)} (rename a key containing '.')")
        seen[name] = path
        out.append((name, path, leaf))
    return out


def encode_structure(tree: Any) -> Any:
    """A JSON description of the tree's containers (leaves numbered in flattening order)."""
    counter = iter(range(1 << 62))

    def enc(x: Any) -> Any:
        if x is None:
            return {"t": "none"}
        if not tree_util.is_tree_node(x):
            node = {"t": "leaf", "i": next(counter)}
            if type(x) in _PY_SCALARS:
                node["py"] = _PY_SCALARS[type(x)]
            return node
        children, aux = tree_util.flatten_one_level(x)
        kids = [enc(c) for c in children]
        if isinstance(x, dict) and type(x) is dict:
            keys = list(aux)
            if not all(isinstance(k, (str, int)) and not isinstance(k, bool) for k in keys):
                return {"t": "node", "type": type(x).__qualname__, "c": kids}
            return {"t": "dict", "k": keys, "c": kids}
        if type(x) in (list, tuple):
            return {"t": type(x).__name__, "c": kids}
        if isinstance(x, tuple) and hasattr(x, "_fields"):
            return {"t": "namedtuple", "type": type(x).__qualname__, "fields": list(x._fields), "c": kids}
        return {"t": "node", "type": type(x).__qualname__, "c": kids}
    return enc(tree)


def decode_structure(node: Any, leaves: list, name: str) -> Any:
    """Rebuild a tree from `encode_structure`'s description and the leaves in order."""
    kind = node.get("t") if isinstance(node, dict) else None
    if kind == "none":
        return None
    if kind == "leaf":
        leaf = leaves[node["i"]]
        return _PY_TYPES[node["py"]](leaf.item()) if "py" in node else leaf
    if kind in ("dict", "list", "tuple"):
        kids = [decode_structure(c, leaves, name) for c in node["c"]]
        if kind == "dict":
            return dict(zip(node["k"], kids))
        return kids if kind == "list" else tuple(kids)
    if kind in ("namedtuple", "node"):
        raise ValueError(f"{name}: the tree contains a {node['type']} node, which only a template can "
                         f"rebuild: pass like=<a tree of the same structure> (e.g. optimizer.init(params))")
    raise format_error(name, f"corrupt {TREE_KEY} metadata (node {node!r:.100})")


def save_tree(target: Any, tree: Any) -> None:
    named = flat_named(tree)
    tensors = {}
    for name, path, leaf in named:
        if leaf is not None and not (hasattr(leaf, "dtype") or type(leaf) in _PY_SCALARS):
            raise TypeError(f"cannot save the leaf at {tree_util.keystr(path)}: {type(leaf).__name__} is not an array")
        tensors[name] = leaf
    meta = {TREE_KEY: json.dumps({"version": 1, "names": [n for n, _, _ in named],
                                  "tree": encode_structure(tree)}, separators=(",", ":"))}
    safetensors.save_file(tensors, target, metadata=meta)


def _check_against_template(infos: Mapping[str, Any], like: Any, name: str) -> list:
    named = flat_named(like)
    for leaf_name_, path, leaf in named:
        where = tree_util.keystr(path) or "the root"
        if leaf_name_ not in infos:
            raise ValueError(f"{name}: {where} (tensor {leaf_name_!r}) is not in the file; the file has "
                             f"{sorted(infos)[:8]}{'...' if len(infos) > 8 else ''}")
        want = tuple(getattr(leaf, "shape", ()))
        got = tuple(infos[leaf_name_].shape)
        if want != got:
            raise ValueError(f"{name}: {where} has shape {list(got)} in the file but {list(want)} in the template")
    extra = sorted(set(infos) - {n for n, _, _ in named})
    if extra:
        raise ValueError(f"{name}: tensor {extra[0]!r} in the file has no place in the template "
                         f"(the structures differ{f'; {len(extra)} such tensors' if len(extra) > 1 else ''})")
    return named


def restore(reader: Any, infos: Mapping[str, Any], metadata: Mapping[str, str] | None, like: Any,
            name: str) -> Any:
    """The tree from an open reader (`get_tensor(name)`), shaped by `like` or the metadata."""
    if like is not None:
        named = _check_against_template(infos, like, name)
        leaves = []
        for leaf_name_, _, leaf in named:
            arr = reader.get_tensor(leaf_name_)
            if type(leaf) in _PY_SCALARS:
                leaves.append(type(leaf)(arr.item()))
            elif hasattr(leaf, "dtype") and dtypes.dtype(leaf.dtype) != arr.dtype:
                leaves.append(arr.astype(leaf.dtype))
            else:
                leaves.append(arr)
        return tree_util.tree_structure(like).unflatten(leaves)
    if metadata and TREE_KEY in metadata:
        try:
            desc = json.loads(metadata[TREE_KEY])
            names = desc["names"]
        except (ValueError, KeyError, TypeError):
            raise format_error(name, f"corrupt {TREE_KEY} metadata") from None
        if sorted(names) != sorted(infos):
            raise format_error(name, f"{TREE_KEY} metadata names {len(names)} tensors, the file has {len(infos)}")
        _check_decodable(desc["tree"], name)
        return decode_structure(desc["tree"], [reader.get_tensor(n) for n in names], name)
    return {k: reader.get_tensor(k) for k in infos}


def _check_decodable(node: Any, name: str) -> None:
    """Raise before reading any tensor if the structure needs a template."""
    if isinstance(node, dict) and node.get("t") in ("namedtuple", "node"):
        decode_structure(node, [], name)
    for c in node.get("c", []) if isinstance(node, dict) else []:
        _check_decodable(c, name)
