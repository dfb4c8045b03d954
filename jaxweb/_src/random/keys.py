"""Typed PRNG key arrays: `jax.random.key(0)` is a 0-d array of dtype `key<fry>`.

A key array is a thin pytree wrapper over its uint32 key data (shape
`(*shape, 2)` for threefry): its one child is the data, its aux data the PRNG
implementation. So jit, vmap, grad and tree utilities see a plain uint32 leaf
and rebuild the key array on the way out, without the Array or tracer layers
knowing keys exist. Key arrays index, reshape and iterate like arrays of keys
and compare with ==, but have no arithmetic (as in JAX).
"""
from __future__ import annotations

import math
from typing import Any, Callable, NamedTuple

from .. import dtypes
from ..tree_util import register_pytree_node
from ..numpy.indexing import take
from ..numpy import reductions


class PRNGImpl(NamedTuple):
    """A PRNG: its key data shape and its operations on one raw key (see threefry.py)."""
    key_shape: tuple[int, ...]
    seed: Callable
    split: Callable
    random_bits: Callable
    fold_in: Callable
    name: str = "<unnamed>"
    tag: str = "?"

    def __hash__(self) -> int:
        return hash(self.tag)

    def __str__(self) -> str:
        return self.tag


prngs: dict[str, PRNGImpl] = {}


def register_prng(impl: PRNGImpl) -> None:
    if impl.name in prngs:
        raise ValueError(f"PRNG with name {impl.name} already registered: {impl}")
    prngs[impl.name] = impl


class KeyDType(dtypes.DType):
    """The dtype of key arrays, `key<tag>`: an extended dtype (kind "K"), a subdtype of
    `prng_key`, itemsize that of the key data. One instance per PRNG implementation."""

    __slots__ = ("_impl",)
    _instances: dict[PRNGImpl, "KeyDType"] = {}

    def __new__(cls, impl: PRNGImpl):
        inst = cls._instances.get(impl)
        if inst is None:
            inst = object.__new__(cls)
            dtypes.DType.__init__(inst, f"key<{impl.tag}>", "K", 4 * math.prod(impl.key_shape), "")
            inst._impl = impl
            cls._instances[impl] = inst
        return inst

    def __init__(self, impl: PRNGImpl):
        pass

    def __repr__(self) -> str:
        return self.name

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, KeyDType) and other._impl == self._impl

    def __hash__(self) -> int:
        return hash((KeyDType, self._impl))

    def __reduce__(self):
        return (KeyDType, (self._impl,))


def check_key_data(impl: PRNGImpl, data: Any) -> None:
    """JAX's checks (and messages) on the data of a key array."""
    if not all(hasattr(data, a) for a in ("ndim", "shape", "dtype")):
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data to have ndim, "
                        f"shape, and dtype attributes. Got {data}")
    if data.ndim < 1:
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.ndim >= 1; "
                        f"got ndim={data.ndim}")
    nd = len(impl.key_shape)
    if tuple(data.shape[-nd:]) != impl.key_shape:
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.shape to end with "
                        f"{impl.key_shape}; got shape={tuple(data.shape)} for impl={impl.name}")
    if data.dtype not in (dtypes.uint32, dtypes.float0):
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.dtype = uint32; "
                        f"got dtype={data.dtype}")


class PRNGKeyArray:
    """An array of PRNG keys over uint32 key data (see the module docstring)."""

    __slots__ = ("_impl", "_base_array")
    __array_priority__ = 100
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, impl: PRNGImpl, key_data: Any):
        check_key_data(impl, key_data)
        self._impl, self._base_array = impl, key_data

    @classmethod
    def _unchecked(cls, impl: PRNGImpl, key_data: Any) -> "PRNGKeyArray":
        """Rebuild from a pytree child, which tree utilities may replace by anything."""
        out = object.__new__(cls)
        out._impl, out._base_array = impl, key_data
        return out

    # ------------------------------------------------------------------ metadata
    @property
    def _nkey(self) -> int:
        return len(self._impl.key_shape)

    shape = property(lambda self: tuple(self._base_array.shape[:-self._nkey]))
    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: math.prod(self.shape))
    dtype = property(lambda self: KeyDType(self._impl))
    itemsize = property(lambda self: self.dtype.itemsize)
    nbytes = property(lambda self: self.itemsize * self.size)
    device = property(lambda self: self._base_array.device)

    @property
    def T(self) -> "PRNGKeyArray":
        return self.transpose()

    def devices(self) -> set:
        return self._base_array.devices()

    def block_until_ready(self) -> "PRNGKeyArray":
        self._base_array.block_until_ready()
        return self

    def copy(self) -> "PRNGKeyArray":
        return PRNGKeyArray(self._impl, self._base_array.copy())

    # ------------------------------------------------------------------ as a sequence
    def _wrap(self, data: Any) -> "PRNGKeyArray":
        return PRNGKeyArray(self._impl, data)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d key array")
        return (self[i] for i in range(self.shape[0]))

    def __getitem__(self, idx: Any) -> "PRNGKeyArray":
        idx = idx if isinstance(idx, tuple) else (idx,)
        return self._wrap(self._base_array[(*idx, *(slice(None),) * self._nkey)])

    def reshape(self, *shape: Any, order: str = "C") -> "PRNGKeyArray":
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        shape = tuple(int(d) for d in shape)
        if -1 in shape:
            known = math.prod(d for d in shape if d != -1)
            shape = tuple(self.size // known if d == -1 else d for d in shape)
        return self._wrap(self._base_array.reshape(*shape, *self._impl.key_shape, order=order))

    def ravel(self, order: str = "C") -> "PRNGKeyArray":
        return self.reshape(self.size, order=order)

    flatten = ravel

    def squeeze(self, axis: Any = None) -> "PRNGKeyArray":
        if axis is None:
            axis = tuple(i for i, d in enumerate(self.shape) if d == 1)
        axis = (axis,) if isinstance(axis, int) else tuple(axis)
        return self._wrap(self._base_array.squeeze(tuple(a % self.ndim for a in axis)))

    def transpose(self, *axes: Any) -> "PRNGKeyArray":
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        nd = self.ndim
        perm = tuple(a % nd for a in axes) if axes else tuple(reversed(range(nd)))
        return self._wrap(self._base_array.transpose(*perm, *range(nd, nd + self._nkey)))

    def swapaxes(self, a: int, b: int) -> "PRNGKeyArray":
        perm = list(range(self.ndim))
        perm[a % self.ndim], perm[b % self.ndim] = perm[b % self.ndim], perm[a % self.ndim]
        return self.transpose(perm)

    def take(self, indices: Any, axis: int | None = None) -> "PRNGKeyArray":
        if axis is None:
            return self.ravel().take(indices, 0)
        return self._wrap(take(self._base_array, indices, axis=axis % self.ndim))

    # ------------------------------------------------------------------ comparisons
    def _compare(self, other: Any, negate: bool) -> Any:
        if not isinstance(other, PRNGKeyArray) or other._impl != self._impl:
            raise TypeError(f"key array comparison needs two key arrays of dtype {self.dtype}, "
                            f"got {getattr(other, 'dtype', type(other).__name__)}")
        axes = tuple(range(-self._nkey, 0))
        eq = reductions.all(self._base_array == other._base_array, axis=axes)
        return ~eq if negate else eq

    def __eq__(self, other: Any) -> Any:  # type: ignore[override]
        return self._compare(other, False)

    def __ne__(self, other: Any) -> Any:  # type: ignore[override]
        return self._compare(other, True)

    # ------------------------------------------------------------------ conversions JAX refuses
    def __bool__(self) -> bool:
        raise TypeError("key array cannot be converted to boolean.")

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        raise TypeError("JAX array with PRNGKey dtype cannot be converted to a NumPy array. Use "
                        "jax.random.key_data(arr) if you wish to extract the underlying integer array.")

    def __repr__(self) -> str:
        return f"Array({self.shape}, dtype={self.dtype.name}) overlaying:\n{self._base_array}"

    def __str__(self) -> str:
        return repr(self)


_OPERATOR_NAMES = {  # dunder -> the lax name JAX's error message uses
    "add": "add", "sub": "sub", "mul": "mul", "truediv": "div", "floordiv": "floor_divide",
    "mod": "rem", "pow": "pow", "matmul": "matmul", "and": "and", "or": "or", "xor": "xor",
    "lshift": "shift_left", "rshift": "shift_right_arithmetic", "lt": "lt", "le": "le",
    "gt": "gt", "ge": "ge", "neg": "neg", "pos": "pos", "abs": "abs", "invert": "not"}


def _no_arithmetic(dunder: str, name: str) -> Callable:
    def op(self, *args: Any) -> Any:
        others = "".join(f", {getattr(a, 'dtype', type(a).__name__)}" for a in args)
        raise TypeError(f"{name} does not accept dtypes {self.dtype}{others}.")
    op.__name__ = dunder
    return op


for _op, _name in _OPERATOR_NAMES.items():
    setattr(PRNGKeyArray, f"__{_op}__", _no_arithmetic(f"__{_op}__", _name))
    if _op not in ("neg", "pos", "abs", "invert", "lt", "le", "gt", "ge"):
        setattr(PRNGKeyArray, f"__r{_op}__", _no_arithmetic(f"__r{_op}__", _name))


register_pytree_node(PRNGKeyArray, lambda k: ((k._base_array,), k._impl),
                     lambda impl, children: PRNGKeyArray._unchecked(impl, children[0]))


def is_key_array(x: Any) -> bool:
    return isinstance(x, PRNGKeyArray)
