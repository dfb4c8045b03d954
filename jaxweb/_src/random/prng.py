"""Key construction and key operations: key, PRNGKey, split, fold_in, bits, key_data,
wrap_key_data, key_impl, key_dtype, clone.

Every public function accepts typed keys (`key(0)`, dtype key<fry>) and legacy raw
keys (`PRNGKey(0)`, uint32[2]) and returns the kind it was given, as JAX does with
`jax_enable_custom_prng` off (its default); `jax_legacy_prng_key` ("allow", "warn",
"error") governs raw keys. Internally everything works on typed keys.
"""
from __future__ import annotations

import warnings
from typing import Any, Hashable, Sequence, Union

from .. import config, core, dtypes
from ..array import Array
from ..device import default_device
from ..dispatch import device_put
from ..numpy import creation
from . import threefry
from .keys import KeyDType, PRNGImpl, PRNGKeyArray, prngs, register_prng
from .util import canonicalize_shape, user_dtype

threefry_prng_impl = PRNGImpl(key_shape=(2,), seed=threefry.seed, split=threefry.split,
                              random_bits=threefry.random_bits, fold_in=threefry.fold_in,
                              name="threefry2x32", tag="fry")
register_prng(threefry_prng_impl)


class PRNGSpec:
    """Specifies a PRNG key implementation (JAX's opaque wrapper of a PRNGImpl)."""

    __slots__ = ("_impl",)

    def __init__(self, impl: PRNGImpl):
        self._impl = impl

    def __repr__(self) -> str:
        return f"PRNGSpec({self._impl.name!r})"

    def __str__(self) -> str:
        return str(self._impl)

    def __hash__(self) -> int:
        return hash(self._impl)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, PRNGSpec) and self._impl == other._impl


PRNGSpecDesc = Union[str, PRNGSpec, PRNGImpl, Hashable]


def default_prng_impl() -> PRNGImpl:
    """The implementation named by `jax_default_prng_impl`."""
    name = config.read("jax_default_prng_impl")
    if name not in prngs:
        raise ValueError(f"unrecognized PRNG implementation {name!r} in jax_default_prng_impl; "
                         f"jaxweb has {sorted(prngs)}")
    return prngs[name]


def resolve_prng_impl(spec: Any) -> PRNGImpl:
    if spec is None:
        return default_prng_impl()
    if type(spec) is PRNGImpl:
        return spec
    if type(spec) is PRNGSpec:
        return spec._impl
    if isinstance(spec, KeyDType):
        return spec._impl
    if type(spec) is str:
        if spec in prngs:
            return prngs[spec]
        keys_fmt = ", ".join(f'"{s}"' for s in prngs)
        raise ValueError(f'unrecognized PRNG implementation "{spec}". Did you mean one of: {keys_fmt}?')
    raise TypeError(f"unrecognized type {type(spec)} for specifying PRNG implementation.")


def key_dtype(impl_spec: Any = None) -> KeyDType:
    """The dtype of key arrays of a PRNG implementation."""
    return KeyDType(resolve_prng_impl(impl_spec))


# ---------------------------------------------------------------- typed / raw keys
def _arraylike(x: Any) -> bool:
    return (isinstance(x, (Array, core.Tracer)) or core.is_python_scalar(x)
            or (hasattr(x, "__array__") and hasattr(x, "dtype")))


def wrap(data: Any, impl: PRNGImpl) -> PRNGKeyArray:
    if not isinstance(data, (Array, core.Tracer)) and hasattr(data, "dtype") and hasattr(data, "shape"):
        data = creation.asarray(data)  # numpy key data
    return PRNGKeyArray(impl, data)


def check_prng_key(name: str, key: Any, *, allow_batched: bool = False) -> tuple[PRNGKeyArray, bool]:
    """The typed key for `key`, and whether it was a raw key that had to be wrapped."""
    if isinstance(key, PRNGKeyArray):
        typed, wrapped = key, False
    elif _arraylike(key):
        typed, wrapped = wrap(key, default_prng_impl()), True
        mode = config.read("jax_legacy_prng_key")
        msg = ("Legacy uint32 key array passed as key to jax.random function. Please create keys "
               "using jax.random.key(). If use of a raw key array was intended, set "
               'jax_legacy_prng_key="allow".')
        if mode == "error":
            raise ValueError(msg)
        if mode == "warn":
            warnings.warn(msg, stacklevel=3)
        elif config.read("jax_enable_custom_prng"):
            warnings.warn("Raw arrays as random keys to jax.random functions are deprecated. "
                          "Assuming valid threefry2x32 key for now.", FutureWarning, stacklevel=3)
    else:
        raise TypeError(f"unexpected PRNG key type {type(key)}")
    data = typed._base_array
    if isinstance(data, Array) and data.device is not default_device():
        # computations run on the default device; bring the key there (jaxweb's eager
        # kernel cache assumes all operands of a primitive live on one device)
        typed = PRNGKeyArray(typed._impl, device_put(data, default_device()))
    if not allow_batched and typed.ndim:
        raise ValueError(f"{name} accepts a single key, but was given a key array of shape "
                         f"{typed.shape} != (). Use jax.vmap for batching.")
    return typed, wrapped


def return_prng_keys(wrapped: bool, key: PRNGKeyArray) -> Any:
    if config.read("jax_enable_custom_prng"):
        return key
    return key._base_array if wrapped else key


# ---------------------------------------------------------------- seeding
def _seed_array(seed: Any) -> Any:
    """A seed as an integer array. Python ints go through int64 as in JAX: out of its
    range is an OverflowError, and without x64 they wrap to int32."""
    if isinstance(seed, int) and not isinstance(seed, bool):
        if not -2 ** 63 <= seed < 2 ** 63:
            raise OverflowError("Python int too large to convert to C long")
        bits = 64 if config.read("jax_enable_x64") else 32
        seed = (seed + 2 ** (bits - 1)) % 2 ** bits - 2 ** (bits - 1)
        return creation.asarray(seed, dtype=dtypes.default_int())
    return seed if isinstance(seed, (Array, core.Tracer)) else creation.asarray(seed)


def random_seed(seed: Any, impl: PRNGImpl) -> PRNGKeyArray:
    seed = _seed_array(seed)
    offset = config.read("jax_random_seed_offset")
    if offset:
        seed = seed + offset
    return PRNGKeyArray(impl, impl.seed(seed))


def _key(ctor_name: str, seed: Any, impl_spec: Any) -> PRNGKeyArray:
    impl = resolve_prng_impl(impl_spec)
    if isinstance(seed, PRNGKeyArray):
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given a PRNG key.")
    shape = getattr(seed, "shape", ())
    if shape:
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given an array of shape "
                        f"{tuple(shape)} != (). Use jax.vmap for batching")
    return random_seed(seed, impl)


def key(seed: Any, *, impl: Any = None, dtype: Any = None) -> PRNGKeyArray:
    """A typed PRNG key (a 0-d key array, dtype key<fry>) from an integer seed."""
    if dtype is not None:
        if impl is not None:
            raise ValueError("Cannot specify both `impl` and `dtype` arguments to jax.random.key")
        impl = dtype
    return _key("key", seed, impl)


def PRNGKey(seed: Any, *, impl: Any = None) -> Any:
    """A legacy raw PRNG key: the uint32[2] key data of `key(seed)`."""
    return return_prng_keys(True, _key("PRNGKey", seed, impl))


# ---------------------------------------------------------------- key operations
def _fold_in(key: PRNGKeyArray, data: Any) -> PRNGKeyArray:
    return PRNGKeyArray(key._impl, key._impl.fold_in(key._base_array, data))


def fold_in(key: Any, data: Any) -> Any:
    """A new key that is a deterministic function of `key` and a 32-bit integer `data`."""
    typed, wrapped = check_prng_key("fold_in", key)
    if getattr(data, "shape", ()):
        raise TypeError("fold_in accepts a scalar, but was given an array of"
                        f"shape {tuple(data.shape)} != (). Use jax.vmap for batching.")
    return return_prng_keys(wrapped, _fold_in(typed, creation.asarray(data, dtype=dtypes.uint32)))


def internal_split(key: PRNGKeyArray, num: int | Sequence[int] = 2) -> PRNGKeyArray:
    """split() for typed keys, used inside the samplers."""
    if key.ndim:
        raise TypeError("split accepts a single key, but was given a key array of shape "
                        f"{key.shape} != (). Use jax.vmap for batching.")
    shape = tuple(num) if isinstance(num, Sequence) else (num,)
    shape = canonicalize_shape(shape)
    return PRNGKeyArray(key._impl, key._impl.split(key._base_array, shape))


def split(key: Any, num: int | tuple[int, ...] = 2) -> Any:
    """`num` new keys (or an array of keys of shape `num`) split off `key`."""
    typed, wrapped = check_prng_key("split", key)
    return return_prng_keys(wrapped, internal_split(typed, num))


def random_bits(key: PRNGKeyArray, bit_width: int, shape: tuple[int, ...]) -> Any:
    return key._impl.random_bits(key._base_array, bit_width, shape)


def bits(key: Any, shape: Sequence[int] = (), dtype: Any = None, *, out_sharding: Any = None) -> Any:
    """Uniform random bits as unsigned integers (uint32 by default, uint64 with x64)."""
    typed, _ = check_prng_key("bits", key)
    if dtype is None:
        dtype = dtypes.uint64 if config.read("jax_enable_x64") else dtypes.uint32
    else:
        dtype = user_dtype(dtype)
    if dtype.kind != "u":
        raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dtype}")
    return random_bits(typed, dtype.itemsize * 8, canonicalize_shape(shape))


def key_impl(keys: Any) -> str | PRNGSpec:
    typed, _ = check_prng_key("key_impl", keys, allow_batched=True)
    impl = typed._impl
    return impl.name if impl.name in prngs else PRNGSpec(impl)


def key_data(keys: Any) -> Any:
    """The uint32 key data underlying a key array (shape `(*keys.shape, 2)`)."""
    typed, _ = check_prng_key("key_data", keys, allow_batched=True)
    return typed._base_array


def wrap_key_data(key_bits_array: Any, *, impl: Any = None, dtype: Any = None) -> PRNGKeyArray:
    """A key array over uint32 key data (the inverse of key_data)."""
    if dtype is not None:
        if impl is not None:
            raise ValueError("Cannot specify both `impl` and `dtype` arguments to jax.random.wrap_key_data")
        impl = dtype
    return wrap(key_bits_array, resolve_prng_impl(impl))


def clone(key: Any) -> Any:
    """Clone a key for reuse: outside key-reuse checking (which jaxweb does not have), the identity."""
    return key
