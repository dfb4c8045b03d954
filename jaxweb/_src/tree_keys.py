"""Key paths of pytrees, as JAX names and prints them (`jax.tree_util.keystr`): the entries
`tree_flatten_with_path` pairs with each leaf. Apart from tree_util so that it stays one job
(and under ~800 lines); tree_util re-exports every name here."""
from __future__ import annotations

import dataclasses
from typing import Any


@dataclasses.dataclass(frozen=True)
class SequenceKey:
    """Path entry for the `idx`-th element of a tuple or list; prints as `[idx]`."""
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"

    def _simple(self):
        return str(self.idx)


@dataclasses.dataclass(frozen=True)
class DictKey:
    """Path entry for a dict value; prints as `['key']` (repr of the key)."""
    key: Any

    def __str__(self):
        return f"[{self.key!r}]"

    def _simple(self):
        return str(self.key)


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    """Path entry for an attribute (namedtuple field, dataclass field); prints as `.name`."""
    name: str

    def __str__(self):
        return f".{self.name}"

    def _simple(self):
        return str(self.name)


@dataclasses.dataclass(frozen=True)
class FlattenedIndexKey:
    """Path entry for the `key`-th child of a custom node registered without keys."""
    key: int

    def __str__(self):
        return f"[<flat index {self.key}>]"

    def _simple(self):
        return str(self.key)


KeyEntry = Any
KeyPath = tuple


def keystr(keys, *, simple: bool = False, separator: str = "") -> str:
    """Format a key path like JAX: `keystr((SequenceKey(0), DictKey('a'))) == "[0]['a']"`.

    With `simple=True` each key prints bare (`0`, `a`), joined by `separator`.
    """
    if simple:
        return separator.join([k._simple() if hasattr(k, "_simple") else str(k) for k in keys])
    return separator.join([str(k) for k in keys])
