"""dtypes without numpy: jaxweb must run in Pyodide, where numpy is not available.

`DType` objects stand in for numpy dtypes (they compare equal to numpy dtypes,
strings and scalar types), `ScalarType` objects are what `jnp.float32` etc. are,
and `result_type` implements JAX's type promotion lattice with weak types.
"""
from __future__ import annotations

import builtins
import functools
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

    #: identity hash, run in C: a DType is a singleton per name (`__reduce__` keeps it one), and
    #: hashing one is on every scalar's path (graph keys, caches keyed by dtype) where a Python
    #: `__hash__` cost a call each time. Like numpy's dtypes, a DType equals its name but does not
    #: hash like it: `{"float32": v}[x.dtype]` is a KeyError, as with numpy (look up `x.dtype.name`)
    __hash__ = object.__hash__

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

    @property
    def dtype(self) -> Any:
        """numpy's dtype for this one when numpy is loaded (so `np.zeros(3, x.dtype)` works);
        jaxweb itself never needs numpy and never reads this."""
        return numpy_dtype(self)


def numpy_dtype(d: "DType") -> Any:
    """The numpy dtype equal to `d` if numpy (and, for bfloat16, ml_dtypes) is already
    imported, else `d` itself."""
    import sys
    np = sys.modules.get("numpy")
    if np is None:
        return d
    if d.name == "bfloat16":
        ml = sys.modules.get("ml_dtypes")
        return np.dtype(ml.bfloat16) if ml is not None else d
    if d.name == "float0":
        return np.dtype([("float0", "V")])
    return np.dtype(d.name)


class ScalarType:
    """The dtype-like behind `jnp.float32` & co. (`dt.type`). Calling one makes a 0-d array,
    which needs arrays: `jaxweb._src.numpy.scalar_types` gives every `dt.type` its `__call__`."""

    def __init__(self, dt: DType):
        self._dtype = dt
        self.__name__ = dt.name
        dt.type = self

    @property
    def dtype(self) -> Any:
        """numpy's dtype when numpy is loaded (numpy then accepts `jnp.float32` wherever it
        takes a dtype, as with JAX); jaxweb's own DType otherwise."""
        return numpy_dtype(self._dtype)

    def __repr__(self) -> str:
        return f"<class 'jaxweb.numpy.{self._dtype.name}'>"

    def __eq__(self, other: Any) -> bool:
        return self is other or (isinstance(other, DType) and other is self._dtype)

    def __hash__(self) -> int:
        return hash(self._dtype)


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
        return x._dtype
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
    if type(d) is not DType:  # a DType already (every scalar made): no _lookup call
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


_PARTS = {complex64: float32, complex128: float64}
_COMPLEX_OF = {float32: complex64, float64: complex128}


def real_part_dtype(d: DType) -> DType:
    """The float dtype of a complex dtype's parts (a real dtype is its own)."""
    return _PARTS.get(d, d)


def complex_of(d: DType) -> DType:
    """The complex dtype whose parts are float dtype `d` (float16/bfloat16: complex64)."""
    return d if d.kind == "c" else _COMPLEX_OF.get(d, complex64)


def issubdtype(a: Any, b: Any) -> bool:
    """Like `jnp.issubdtype`: `a` (a dtype or an abstract category) is `b` or below it.
    numpy's abstract classes (np.floating, ...) are accepted as their categories."""
    b, a = _as_category(b), _as_category(a)
    if isinstance(b, _Category):
        if isinstance(a, _Category):
            while a is not None:
                if a is b:
                    return True
                a = _PARENT.get(a)
            return False
        d = _lookup(a)
        return d.kind in _CATEGORIES.get(b, "") and d is not float0
    if isinstance(a, _Category):
        return False
    return _lookup(a) is _lookup(b)


def _as_category(x: Any) -> Any:
    """numpy's abstract scalar classes (np.floating, np.integer, ...) as our categories."""
    if isinstance(x, _Category):
        return x
    if isinstance(x, type) and getattr(x, "__module__", "") == "numpy":
        return _CATEGORY_BY_NAME.get(x.__name__, x)
    return x


class _Category:
    def __init__(self, name: str):
        self.__name__ = name

    def __repr__(self) -> str:
        return f"<class 'jaxweb.numpy.{self.__name__}'>"


generic, number, integer, signedinteger, unsignedinteger, inexact, floating, complexfloating, \
    character, flexible, extended, prng_key, object_ = (
        _Category(n) for n in ("generic", "number", "integer", "signedinteger", "unsignedinteger",
                               "inexact", "floating", "complexfloating", "character", "flexible",
                               "extended", "prng_key", "object_"))
_CATEGORIES = {generic: "biufc", number: "iufc", integer: "iu", signedinteger: "i",
               unsignedinteger: "u", inexact: "fc", floating: "f", complexfloating: "c",
               character: "", flexible: "", extended: "K", prng_key: "K", object_: ""}
# (kind "K": the typed PRNG key dtypes of jaxweb.random are the extended dtypes)
#: The category tree (numpy's, plus JAX's `extended` for key types).
_PARENT = {number: generic, integer: number, signedinteger: integer, unsignedinteger: integer,
           inexact: number, floating: inexact, complexfloating: inexact, flexible: generic,
           character: flexible, extended: generic, prng_key: extended, object_: generic}
_CATEGORY_BY_NAME = {c.__name__: c for c in _CATEGORIES}


class TypePromotionError(ValueError):
    """Raised when strict dtype promotion (`jax.numpy_dtype_promotion('strict')`) refuses
    an implicit promotion."""


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


def _upper_sets(lattice: dict) -> dict[Any, frozenset]:
    ups: dict[Any, frozenset] = {}

    def up(n):
        if n not in ups:
            s = {n}
            for m in lattice[n]:
                s |= up(m)
            ups[n] = frozenset(s)
        return ups[n]

    for n in lattice:
        up(n)
    return ups


_UP64 = _upper_sets(_LATTICE)
# Without x64, JAX avoids the one promotion forming a 64-bit type from 32-bit inputs:
# uint32 with int32 (or smaller signed ints) joins at int32, not int64.
_UP32 = _upper_sets({**_LATTICE, uint32: (int32, uint64)})
_WEAK_OF_KIND = {"b": bool_, "i": "i*", "u": "i*", "f": "f*", "c": "c*"}


def _least_upper_bound(nodes: list) -> Any:
    if config.read("jax_numpy_dtype_promotion") == "strict":
        ups = _STRICT_UP
    else:
        ups = _UP64 if config.read("jax_enable_x64") else _UP32
    common = frozenset.intersection(*(ups[n] for n in nodes))
    for c in common:  # the least element: every other element of `common` is above it
        if all(o in ups[c] for o in common):
            return c
    raise TypePromotionError(
        f"Input dtypes {tuple(_node_name(n) for n in nodes)} have no available implicit dtype "
        "promotion path when jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to "
        "the desired output type, or set jax_numpy_dtype_promotion=standard.")


def _node_name(n: Any) -> str:
    return {"i*": "<class 'int'>", "f*": "<class 'float'>", "c*": "<class 'complex'>"}.get(n, getattr(n, "name", n))


def _strict_upper_sets() -> dict[Any, frozenset]:
    """Strict promotion: a typed dtype joins only itself; Python scalars join their kind
    and the kinds above (an int with any float, a float with any complex)."""
    ints = {d for d in ALL if d.kind in "iu"}
    floats = {d for d in ALL if d.kind == "f"}
    cplx = {d for d in ALL if d.kind == "c"}
    ups: dict[Any, frozenset] = {d: frozenset({d}) for d in ALL}
    ups["c*"] = frozenset({"c*"} | cplx)
    ups["f*"] = frozenset({"f*", "c*"} | floats | cplx)
    ups["i*"] = frozenset({"i*", "f*", "c*"} | ints | floats | cplx)
    return ups


_STRICT_UP = _strict_upper_sets()


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


_RESULT_TYPES: dict[tuple, tuple] = {}  # (flags, per-argument kind) -> (dtype, weak): eager ops ask often


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
    key = (config.read("jax_enable_x64"), config.read("jax_numpy_dtype_promotion"),
           *(_memo_key(a) for a in args))
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


#: Python's scalar types promote as weak types (`promote_types('uint8', int)` is uint8)
_PY_WEAK = {builtins.int: "i*", builtins.float: "f*", builtins.complex: "c*"}


def promote_types(a: Any, b: Any) -> DType:
    """`jnp.promote_types`: promotion of two dtypes (never weak, and, as in JAX, not
    canonicalized: int64 with uint64 is float64 even without x64)."""
    lub = _least_upper_bound([_PY_WEAK.get(x) or _lookup(x) if isinstance(x, type) else _lookup(x)
                              for x in (a, b)])
    if isinstance(lub, builtins.str):  # e.g. int8 with uint64 joins at the weak float node
        lub = {"i*": int64, "f*": float64, "c*": complex128}[lub]
    return lub


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


@functools.cache
def int_range(d: DType) -> tuple[int, int]:
    """(min, max) of integer DType `d`: `iinfo`'s, computed once per dtype (a Python int made into
    a scalar of `d` is checked against them, every time: `jnp.int32(i)`)."""
    info = iinfo(d)
    return info.min, info.max
