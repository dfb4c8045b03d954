"""`jax.ShapeDtypeStruct`: an abstract array (shape, dtype, weak type) standing in for a
real one — what `eval_shape` returns, and what `pure_callback` and `jit(...).trace`
take to describe arrays without making them."""
from __future__ import annotations

from typing import Any, Sequence

from . import core, dtypes


class ShapeDtypeStruct:
    """An abstract array argument or result: shape, dtype (and weak_type, sharding)."""

    __slots__ = ("shape", "dtype", "sharding", "weak_type")

    def __init__(self, shape: Sequence[int], dtype: Any, sharding: Any = None, weak_type: bool = False):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = dtypes.dtype(dtype)
        self.sharding, self.weak_type = sharding, weak_type

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: core.ShapedArray(self.shape, self.dtype).size)
    is_ref = property(lambda self: False)
    format = property(lambda self: None)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def update(self, shape: Any = None, dtype: Any = None, sharding: Any = None,
               weak_type: Any = None) -> "ShapeDtypeStruct":
        """A copy with the given fields replaced."""
        return ShapeDtypeStruct(self.shape if shape is None else shape,
                                self.dtype if dtype is None else dtype,
                                self.sharding if sharding is None else sharding,
                                self.weak_type if weak_type is None else weak_type)

    @classmethod
    def like(cls, x: Any) -> "ShapeDtypeStruct":
        """The ShapeDtypeStruct of an array (or anything with an abstract value)."""
        aval = core.get_aval(x)
        return cls(aval.shape, aval.dtype, weak_type=aval.weak_type)

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{weak})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ShapeDtypeStruct) and (self.shape, self.dtype, self.weak_type) == \
            (other.shape, other.dtype, other.weak_type)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.weak_type))
