"""dtypes without numpy: jaxweb must run in Pyodide, where numpy is not available.

`DType` objects stand in for numpy dtypes (they compare equal to numpy dtypes,
strings and scalar types), `ScalarType` objects are what `jnp.float32` etc. are,
and `result_type` implements JAX's type promotion lattice with weak types.
"""
from __future__ import annotations

import builtins
from typing import Any

from . import config


class DType:
    """A dtype: name, kind ('b', 'i', 'u', 'f', 'c'), item size and struct format."""

    __slots__ = ("name", "kind", "itemsize", "fmt", "type")

    def __init__(self, name: str, kind: str, itemsize: int, fmt: str):
        self.name, self.kind, self.itemsize, self.fmt = name, kind, itemsize, fmt
        self.type: ScalarType | None = None

    def __repr__(self) -> str:
        return f"dtype('{self.name}')"

    def __str__(self) -> str:
        return self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, DType):
            return other is self
        try:
            return _lookup(other) is self
        except TypeError:
            return False

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

    def __reduce__(self):
        return (dtype, (self.name,))

    @property
    def bits(self) -> int:
        return self.itemsize * 8

    @property
    def char(self) -> str:
        return self.fmt

    @property
    def str(self) -> str:  # numpy-style '<f4'
        return "<" + self.kind + builtins.str(self.itemsize)


class ScalarType:
    """What `jnp.float32` is: a dtype-like callable that makes 0-d arrays."""

    def __init__(self, dt: DType):
        self.dtype = dt
        self.__name__ = dt.name
        dt.type = self

    def __repr__(self) -> str:
        return f"<class 'jaxweb.numpy.{self.dtype.name}'>"

    def __call__(self, x: Any = 0) -> Any:
        from .numpy.creation import asarray  # late import: numpy layer sits above
        return asarray(x, dtype=self.dtype)

    def __eq__(self, other: Any) -> bool:
        return self is other or (isinstance(other, DType) and other is self.dtype)

    def __hash__(self) -> int:
        return hash(self.dtype)


def _make(name: str, kind: str, itemsize: int, fmt: str) -> DType:
    d = DType(name, kind, itemsize, fmt)
    ScalarType(d)
    return d


bool_ = _make("bool", "b", 1, "?")
int8 = _make("int8", "i", 1, "b")
int16 = _make("int16", "i", 2, "h")
int32 = _make("int32", "i", 4, "i")
int64 = _make("int64", "i", 8, "q")
uint8 = _make("uint8", "u", 1, "B")
uint16 = _make("uint16", "u", 2, "H")
uint32 = _make("uint32", "u", 4, "I")
uint64 = _make("uint64", "u", 8, "Q")
float16 = _make("float16", "f", 2, "e")
bfloat16 = _make("bfloat16", "f", 2, "H")  # stored as raw bits
float32 = _make("float32", "f", 4, "f")
float64 = _make("float64", "f", 8, "d")
complex64 = _make("complex64", "c", 8, "")
complex128 = _make("complex128", "c", 16, "")
float0 = _make("float0", "V", 0, "")  # tangent type of integer inputs (see JAX)

ALL: tuple[DType, ...] = (bool_, int8, int16, int32, int64, uint8, uint16, uint32,
                          uint64, float16, bfloat16, float32, float64, complex64,
                          complex128)
_BY_NAME = {d.name: d for d in ALL + (float0,)}
_ALIASES = {"bool_": bool_, "?": bool_, "b1": bool_, "i1": int8, "i2": int16, "i4": int32,
            "i8": int64, "u1": uint8, "u2": uint16, "u4": uint32, "u8": uint64,
            "f2": float16, "f4": float32, "f8": float64, "bf16": bfloat16,
            "c8": complex64, "c16": complex128, "float": float64, "int": int64,
            "half": float16, "single": float32, "double": float64}
_NUMERIC_STRS = ("<", ">", "=", "|")


def _lookup(x: Any) -> DType:
    """Resolve a dtype-like to a DType without canonicalization."""
    if isinstance(x, DType):
        return x
    if isinstance(x, ScalarType):
        return x.dtype
    if x is builtins.bool:
        return bool_
    if x is builtins.int:
        return int64
    if x is builtins.float:
        return float64
    if x is builtins.complex:
        return complex128
    if isinstance(x, builtins.str):
        s = x[1:] if x[:1] in _NUMERIC_STRS else x
        d = _BY_NAME.get(s) or _ALIASES.get(s)
        if d is not None:
            return d
        raise TypeError(f"data type {x!r} not understood")
    name = getattr(x, "name", None)  # numpy dtype, ml_dtypes, numpy scalar types
    if name is None and isinstance(x, type):
        name = getattr(x, "__name__", None)
    if name is None and hasattr(x, "dtype"):
        name = getattr(x.dtype, "name", None)
    if isinstance(name, builtins.str) and name in _BY_NAME:
        return _BY_NAME[name]
    raise TypeError(f"Cannot interpret {x!r} as a data type")


def canonicalize_dtype(d: Any) -> DType:
    """Map 64-bit types to 32-bit ones unless x64 is enabled (JAX's `jax_enable_x64`)."""
    d = _lookup(d)
    if not config.read("jax_enable_x64"):
        d = _X32.get(d, d)
    return d


_X32 = {float64: float32, int64: int32, uint64: uint32, complex128: complex64}


def dtype(x: Any, *, canonicalize: bool = False) -> DType:
    """`jnp.dtype`: the dtype of a dtype-like or of a value."""
    if x is None:
        raise TypeError("Cannot determine dtype of None")
    if isinstance(x, (DType, ScalarType, builtins.str, type)):
        d = _lookup(x)
    elif hasattr(x, "dtype"):
        d = _lookup(x.dtype)
    elif isinstance(x, builtins.bool):
        d = bool_
    elif isinstance(x, builtins.int):
        d = int64
    elif isinstance(x, builtins.float):
        d = float64
    elif isinstance(x, builtins.complex):
        d = complex128
    else:
        d = _lookup(x)
    return canonicalize_dtype(d) if canonicalize else d


def default_int() -> DType:
    return int64 if config.read("jax_enable_x64") else int32


def default_float() -> DType:
    return float64 if config.read("jax_enable_x64") else float32


def default_complex() -> DType:
    return complex128 if config.read("jax_enable_x64") else complex64


def issubdtype(a: Any, b: Any) -> bool:
    """Like `jnp.issubdtype`; accepts the abstract categories below."""
    if b in _CATEGORIES:
        return _lookup(a).kind in _CATEGORIES[b] and _lookup(a) is not float0
    return _lookup(a) is _lookup(b)


class _Category:
    def __init__(self, name: str):
        self.__name__ = name

    def __repr__(self) -> str:
        return f"<class 'jaxweb.numpy.{self.__name__}'>"


generic, number, integer, signedinteger, unsignedinteger, inexact, floating, complexfloating = (
    _Category(n) for n in ("generic", "number", "integer", "signedinteger",
                           "unsignedinteger", "inexact", "floating", "complexfloating"))
# Extended dtypes (JAX's `jax.dtypes.extended`): typed PRNG key arrays (kind "K", see
# jaxweb/_src/random/keys.py) are their only members.
extended, prng_key = _Category("extended"), _Category("prng_key")
_CATEGORIES = {generic: "biufc", number: "iufc", integer: "iu", signedinteger: "i",
               unsignedinteger: "u", inexact: "fc", floating: "f", complexfloating: "c",
               extended: "K", prng_key: "K"}


def is_float(d: DType) -> bool:
    return d.kind == "f"


def is_int(d: DType) -> bool:
    return d.kind in "iu"


# ---- the promotion lattice (JAX's "Type promotion semantics" design note) ----
# Nodes are DTypes plus the weak categories "i*", "f*", "c*" of Python scalars.
_LATTICE: dict[Any, tuple] = {
    bool_: ("i*",), "i*": (uint8, int8), uint8: (int16, uint16), uint16: (int32, uint32),
    uint32: (int64, uint64), uint64: ("f*",), int8: (int16,), int16: (int32,),
    int32: (int64,), int64: ("f*",), "f*": ("c*", bfloat16, float16), bfloat16: (float32,),
    float16: (float32,), float32: (float64, complex64), float64: (complex128,),
    "c*": (complex64,), complex64: (complex128,), complex128: (),
}


def _upper_sets() -> dict[Any, frozenset]:
    ups: dict[Any, frozenset] = {}

    def up(n):
        if n not in ups:
            s = {n}
            for m in _LATTICE[n]:
                s |= up(m)
            ups[n] = frozenset(s)
        return ups[n]

    for n in _LATTICE:
        up(n)
    return ups


_UP = _upper_sets()
_WEAK_OF_KIND = {"b": bool_, "i": "i*", "u": "i*", "f": "f*", "c": "c*"}


def _least_upper_bound(nodes: list) -> Any:
    common = frozenset.intersection(*(_UP[n] for n in nodes))
    for c in common:  # the least element: every other element of `common` is above it
        if all(o in _UP[c] for o in common):
            return c
    raise TypeError(f"no common type for {nodes}")


def _node_of(x: Any) -> tuple[Any, DType | None]:
    """Lattice node of one argument to result_type."""
    if isinstance(x, builtins.bool):
        return bool_, None
    if isinstance(x, builtins.int):
        return "i*", None
    if isinstance(x, builtins.float):
        return "f*", None
    if isinstance(x, builtins.complex):
        return "c*", None
    if getattr(x, "weak_type", False):
        d = _lookup(x.dtype)
        return _WEAK_OF_KIND[d.kind], d
    if isinstance(x, (DType, ScalarType, builtins.str, type)) or hasattr(x, "dtype"):
        return dtype(x), None
    return dtype(x), None


_RESULT_TYPES: dict[tuple, tuple] = {}  # (x64, per-argument kind) -> (dtype, weak): eager ops ask often


def _memo_key(x: Any) -> Any:
    t = type(x)
    if t is builtins.int or t is builtins.float or t is builtins.bool or t is builtins.complex:
        return t
    aval = getattr(x, "aval", None)
    dt = getattr(aval, "dtype", None)
    return (dt, aval.weak_type) if isinstance(dt, DType) else None


def result_type(*args: Any, return_weak_type_flag: bool = False):
    """JAX's `jnp.result_type`: promotion with weak types, then canonicalization."""
    if not args:
        raise ValueError("at least one array or dtype is required")
    key = (config.read("jax_enable_x64"),) + tuple(_memo_key(a) for a in args)
    hit = _RESULT_TYPES.get(key) if None not in key else None
    if hit is None:
        hit = _result_type(args)
        if None not in key and len(_RESULT_TYPES) < 4096:
            _RESULT_TYPES[key] = hit
    return hit if return_weak_type_flag else hit[0]


def _result_type(args: tuple) -> tuple:
    nodes = [_node_of(a)[0] for a in args]
    lub = _least_upper_bound(nodes)
    weak = isinstance(lub, builtins.str)
    if weak:
        out = {"i*": default_int(), "f*": default_float(), "c*": default_complex()}[lub]
    else:
        out = canonicalize_dtype(lub)
    return out, weak


def promote_types(a: Any, b: Any) -> DType:
    """`jnp.promote_types`: promotion of two dtypes (never weak)."""
    lub = _least_upper_bound([_lookup(a), _lookup(b)])
    if isinstance(lub, builtins.str):  # e.g. int8 with uint64 joins at the weak float node
        lub = {"i*": int64, "f*": float64, "c*": complex128}[lub]
    return canonicalize_dtype(lub)


# ---- finfo / iinfo ----
class finfo:
    """Machine limits of a floating-point dtype (subset of numpy's finfo)."""

    _TABLE = {  # bits, nmant, minexp, maxexp
        "float16": (16, 10, -14, 16), "bfloat16": (16, 7, -126, 128),
        "float32": (32, 23, -126, 128), "float64": (64, 52, -1022, 1024),
    }

    def __init__(self, dt: Any):
        d = dtype(dt)
        if d.kind == "c":
            d = {complex64: float32, complex128: float64}[d]
        if d.name not in self._TABLE:
            raise ValueError(f"data type {d} not inexact")
        self.dtype = d
        self.bits, self.nmant, minexp, maxexp = self._TABLE[d.name]
        self.minexp, self.maxexp = minexp, maxexp
        self.eps = 2.0 ** -self.nmant
        self.epsneg = 2.0 ** -(self.nmant + 1)
        self.max = (2 - 2.0 ** -self.nmant) * 2.0 ** (maxexp - 1)
        self.min = -self.max
        self.tiny = self.smallest_normal = 2.0 ** minexp
        self.smallest_subnormal = 2.0 ** (minexp - self.nmant)
        self.resolution = {10: 1e-3, 7: 1e-2, 23: 1e-6, 52: 1e-15}[self.nmant]

    def __repr__(self) -> str:
        return f"finfo(resolution={self.resolution}, min={self.min:e}, max={self.max:e}, dtype={self.dtype})"


class iinfo:
    """Limits of an integer dtype."""

    def __init__(self, dt: Any):
        d = dtype(dt)
        if d.kind not in "iub":
            raise ValueError(f"Invalid integer data type {d.name!r}.")
        self.dtype, self.bits = d, d.itemsize * 8
        if d.kind == "i":
            self.min, self.max = -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1
        elif d.kind == "u":
            self.min, self.max = 0, (1 << self.bits) - 1
        else:
            self.min, self.max = 0, 1

    def __repr__(self) -> str:
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"
