"""The `jax.tree` namespace: short names for the pytree utilities in `jaxweb.tree_util`.

`map(f, tree, *rest, is_leaf=None)`, `leaves(tree, is_leaf=None)`, `structure`, `flatten`,
`unflatten(treedef, leaves)`, `reduce(function, tree, initializer=..., is_leaf=None)`,
`all(tree, *, is_leaf=None)`, `transpose(outer_treedef, inner_treedef, tree)`, and the
`*_with_path` variants.  These are the same functions as the `tree_*` ones (no wrapper
layer, so no extra call cost).
"""
from jaxweb._src.tree_util import (
    tree_all as all,
    tree_broadcast as broadcast,
    tree_flatten as flatten,
    tree_flatten_with_path as flatten_with_path,
    tree_leaves as leaves,
    tree_leaves_with_path as leaves_with_path,
    tree_map as map,
    tree_map_with_path as map_with_path,
    tree_reduce as reduce,
    tree_reduce_associative as reduce_associative,
    tree_structure as structure,
    tree_transpose as transpose,
    tree_unflatten as unflatten,
)
from jaxweb._src.tree_util import static  # noqa: E402

__all__ = [
    "all", "broadcast", "flatten", "flatten_with_path", "leaves", "leaves_with_path", "map",
    "map_with_path", "reduce", "reduce_associative", "static", "structure", "transpose", "unflatten",
]
