"""JAX's type promotion table, entry by entry, plus weak types, finfo/iinfo, dtype equality.

The tables were generated with JAX 0.10 (`jnp.promote_types` for two dtypes,
`jax.dtypes.result_type(..., return_weak_type_flag=True)`; `i*` is a Python int, `f*`
a Python float; a trailing `*` marks a weakly typed result).
"""
import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb._src import dtypes


pytestmark = pytest.mark.on_every_device  # see conftest.py


_X32 = {
    'b1': 'b1 u1 u2 u4 i1 i2 i4 bf16 f2 f4 i4* f4*',
    'u1': 'u1 u1 u2 u4 i2 i2 i4 bf16 f2 f4 u1 f4*',
    'u2': 'u2 u2 u2 u4 i4 i4 i4 bf16 f2 f4 u2 f4*',
    'u4': 'u4 u4 u4 u4 i4 i4 i4 bf16 f2 f4 u4 f4*',
    'i1': 'i1 i2 i4 i4 i1 i2 i4 bf16 f2 f4 i1 f4*',
    'i2': 'i2 i2 i4 i4 i2 i2 i4 bf16 f2 f4 i2 f4*',
    'i4': 'i4 i4 i4 i4 i4 i4 i4 bf16 f2 f4 i4 f4*',
    'bf16': 'bf16 bf16 bf16 bf16 bf16 bf16 bf16 bf16 f4 f4 bf16 bf16',
    'f2': 'f2 f2 f2 f2 f2 f2 f2 f4 f2 f4 f2 f2',
    'f4': 'f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4',
    'i*': 'i4* u1 u2 u4 i1 i2 i4 bf16 f2 f4 i4* f4*',
    'f*': 'f4* f4* f4* f4* f4* f4* f4* bf16 f2 f4 f4* f4*',
}
_X64 = {
    'b1': 'b1 u1 u2 u4 i1 i2 i4 bf16 f2 f4 u8 i8 f8 i8* f8*',
    'u1': 'u1 u1 u2 u4 i2 i2 i4 bf16 f2 f4 u8 i8 f8 u1 f8*',
    'u2': 'u2 u2 u2 u4 i4 i4 i4 bf16 f2 f4 u8 i8 f8 u2 f8*',
    'u4': 'u4 u4 u4 u4 i8 i8 i8 bf16 f2 f4 u8 i8 f8 u4 f8*',
    'i1': 'i1 i2 i4 i8 i1 i2 i4 bf16 f2 f4 f8* i8 f8 i1 f8*',
    'i2': 'i2 i2 i4 i8 i2 i2 i4 bf16 f2 f4 f8* i8 f8 i2 f8*',
    'i4': 'i4 i4 i4 i8 i4 i4 i4 bf16 f2 f4 f8* i8 f8 i4 f8*',
    'bf16': 'bf16 bf16 bf16 bf16 bf16 bf16 bf16 bf16 f4 f4 bf16 bf16 f8 bf16 bf16',
    'f2': 'f2 f2 f2 f2 f2 f2 f2 f4 f2 f4 f2 f2 f8 f2 f2',
    'f4': 'f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f8 f4 f4',
    'u8': 'u8 u8 u8 u8 f8* f8* f8* bf16 f2 f4 u8 f8* f8 u8 f8*',
    'i8': 'i8 i8 i8 i8 i8 i8 i8 bf16 f2 f4 f8* i8 f8 i8 f8*',
    'f8': 'f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8',
    'i*': 'i8* u1 u2 u4 i1 i2 i4 bf16 f2 f4 u8 i8 f8 i8* f8*',
    'f*': 'f8* f8* f8* f8* f8* f8* f8* bf16 f2 f4 f8* f8* f8 f8* f8*',
}
_DT = {"b1": "bool", "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64", "i1": "int8",
       "i2": "int16", "i4": "int32", "i8": "int64", "bf16": "bfloat16", "f2": "float16",
       "f4": "float32", "f8": "float64"}
_WEAK = {"i*": 1, "f*": 1.0}


def _operand(name):
    return _WEAK[name] if name in _WEAK else dtypes.dtype(_DT[name])


def _cases(table):
    names = list(table)
    return [(a, b, want) for a in names for b, want in zip(names, table[a].split())]


def _check(a, b, want):
    weak = want.endswith("*")
    want_dt = _DT[want.rstrip("*")]
    got, got_weak = dtypes.result_type(_operand(a), _operand(b), return_weak_type_flag=True)
    assert (got.name, got_weak) == (want_dt, weak), (a, b)
    if a not in _WEAK and b not in _WEAK and not weak:
        assert jnp.promote_types(_DT[a], _DT[b]) == want_dt


@pytest.mark.parametrize("a,b,want", _cases(_X32))
def test_promotion_table_x32(a, b, want):
    _check(a, b, want)


@pytest.mark.parametrize("a,b,want", _cases(_X64))
def test_promotion_table_x64(a, b, want):
    with jax.enable_x64():
        _check(a, b, want)


def test_promotion_is_symmetric():
    for table in (_X32, _X64):
        names = list(table)
        grid = {(a, b): w for a in names for b, w in zip(names, table[a].split())}
        assert all(grid[a, b] == grid[b, a] for a, b in grid)


def test_promote_types_signed_with_uint64():
    with jax.enable_x64():
        assert jnp.promote_types(jnp.int8, jnp.uint64) == jnp.float64


@pytest.mark.parametrize("a,b,want,weak", [
    (jnp.float16, 1.0, "float16", False), (jnp.uint8, 1, "uint8", False),
    (jnp.bfloat16, 2, "bfloat16", False), (jnp.int8, 3.5, "float32", True),
    (jnp.bool_, 1, "int32", True), (jnp.int16, True, "int16", False)])
def test_weak_scalars_in_arithmetic(a, b, want, weak):
    x = a(1)
    assert (x + b).dtype == want
    assert (b * x).dtype == want
    assert (x + b).weak_type == weak


def test_weak_results():
    assert jnp.asarray(1).weak_type and jnp.asarray(1.0).weak_type
    assert (jnp.asarray(1.0) + 1).weak_type
    assert not jnp.float32(1).weak_type
    assert (jnp.float16(1) + 1.0).dtype == jnp.float16
    assert float(jnp.float16(1) + 1.0) == 2.0


def test_finfo_values():
    f32 = jnp.finfo(jnp.float32)
    assert (f32.eps, f32.max, f32.tiny, f32.bits) == (
        float(np.finfo(np.float32).eps), float(np.finfo(np.float32).max),
        float(np.finfo(np.float32).tiny), 32)
    f16 = jnp.finfo(jnp.float16)
    assert (f16.eps, f16.max, f16.tiny) == (float(np.finfo(np.float16).eps),
                                            float(np.finfo(np.float16).max),
                                            float(np.finfo(np.float16).tiny))
    bf = jnp.finfo(jnp.bfloat16)
    assert (bf.eps, bf.max, bf.tiny, bf.bits) == (2.0 ** -7, 3.3895313892515355e38, 2.0 ** -126, 16)
    assert jnp.finfo(jnp.float64).eps == float(np.finfo(np.float64).eps)
    with pytest.raises(ValueError):
        jnp.finfo(jnp.int32)


def test_iinfo_values():
    for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"):
        got, want = jnp.iinfo(name), np.iinfo(name)
        assert (got.min, got.max, got.bits) == (int(want.min), int(want.max), want.bits)
    with pytest.raises(ValueError):
        jnp.iinfo(jnp.float32)


def test_dtype_equality():
    assert jnp.float32 == np.float32 or jnp.dtype(jnp.float32) == np.float32
    assert jnp.dtype("float32") == np.dtype("float32")
    assert jnp.dtype(jnp.int8) == "int8"
    assert jnp.zeros(2).dtype == np.float32
    assert jnp.zeros(2).dtype == "float32"
    assert jnp.zeros(2, jnp.bfloat16).dtype == jnp.bfloat16
    assert jnp.zeros(2).dtype != jnp.int32
    assert jnp.dtype("bfloat16").itemsize == 2
    with pytest.raises(TypeError):
        jnp.dtype("floaty")


def test_dtype_hashing():
    """A dtype is one object per name and hashes by identity (as cheap as a C call: every scalar
    made hashes one), consistently with the scalar type that equals it."""
    import pickle
    dt = jnp.zeros(2).dtype
    assert {jnp.float32: "f"}[dt] == "f" and {dt: "f"}[jnp.float32] == "f"
    assert pickle.loads(pickle.dumps(dt)) is dt
    assert hash(jnp.dtype("float32")) == hash(dt) and len({dt, jnp.dtype("f4"), jnp.float32}) == 1
    assert dt == "float32"
    assert type(dt).__hash__ is object.__hash__  # identity, in C
    with pytest.raises(KeyError):  # equal to its name but not hashed like it, as numpy's dtypes
        {"float32": 1}[dt]


def test_canonicalization_x64():
    assert jnp.zeros(2, jnp.float64).dtype == jnp.float32
    assert jnp.asarray(np.arange(3, dtype=np.int64)).dtype == jnp.int32
    with jax.enable_x64():
        assert jnp.zeros(2, jnp.float64).dtype == jnp.float64
        assert jnp.asarray(1.0).dtype == jnp.float64
        assert jnp.arange(3).dtype == jnp.int64


def test_issubdtype():
    assert jnp.issubdtype(jnp.int8, jnp.integer)
    assert jnp.issubdtype(jnp.bfloat16, jnp.floating)
    assert not jnp.issubdtype(jnp.uint8, jnp.signedinteger)
    assert jnp.issubdtype(jnp.float16, jnp.inexact)


def test_scalar_types_of_python_scalars():
    """`jnp.float32(0.5)` & co. take a quick path for a Python scalar (an optimizer's bias
    correction each step): the same 0-d array as `jnp.asarray(x, dtype)`: strong dtype,
    canonicalized without x64, the value cast as numpy casts, the default device."""
    a = jnp.float32(0.5)
    assert (a.dtype, a.weak_type, a.shape, repr(a)) == (jnp.float32, False, (), "Array(0.5, dtype=float32)")
    assert jnp.int32(7.9).item() == 7 and jnp.int8(-1).item() == -1 and jnp.bool_(2).item() is True
    assert jnp.complex64(1 + 2j).item() == 1 + 2j and jnp.bfloat16(1).dtype == jnp.bfloat16
    assert jnp.float64(0.1).dtype == jnp.float32 and jnp.int64(3).dtype == jnp.int32
    with jax.enable_x64():
        assert jnp.float64(0.1).dtype == jnp.float64 and jnp.float64(0.1).item() == 0.1
    with pytest.raises(OverflowError):
        jnp.uint8(300)
    dev = jax.devices()[-1]
    with jax.default_device(dev):
        assert jnp.float32(2).device == dev
    for st in (jnp.float32, jnp.float16, jnp.int32, jnp.uint32, jnp.bool_, jnp.complex64):
        for x in (0.5, -0.0, float("nan"), 3, -1, True, 7.9):
            if st in (jnp.uint32,) and x == -1:
                continue
            got, want = st(x), jnp.asarray(x, dtype=st)
            assert (repr(got), got.dtype, got.weak_type, got.device) == \
                (repr(want), want.dtype, want.weak_type, want.device), (st, x)
