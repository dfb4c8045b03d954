"""Configuration flags, named and set as in JAX (`jaxweb.config.update(name, value)`).

Flags read their initial value from the environment (`JAX_ENABLE_X64=1`,
`JAXWEB_PLATFORMS=wasm` or `JAX_PLATFORMS=cpu`), so scripts written for JAX keep working.
"""
from __future__ import annotations

import contextlib
import os
from typing import Any, Iterator


def _env_bool(*names: str) -> bool:
    for n in names:
        v = os.environ.get(n)
        if v is not None:
            return v.strip().lower() in ("1", "true", "yes", "on")
    return False


_FLAGS: dict[str, Any] = {
    "jax_enable_x64": _env_bool("JAX_ENABLE_X64", "JAXWEB_ENABLE_X64"),
    "jax_platforms": os.environ.get("JAXWEB_PLATFORMS") or os.environ.get("JAX_PLATFORMS") or "",
    "jax_default_device": None,
    "jax_numpy_rank_promotion": "allow",
    "jax_numpy_dtype_promotion": "standard",
    "jax_debug_nans": False,
    "jax_debug_infs": False,
    "jax_disable_jit": False,
    "jax_log_compiles": _env_bool("JAX_LOG_COMPILES"),
    # jaxweb.random (JAX's defaults as of 0.10)
    "jax_default_prng_impl": os.environ.get("JAX_DEFAULT_PRNG_IMPL") or "threefry2x32",
    "jax_threefry_partitionable": not os.environ.get("JAX_THREEFRY_PARTITIONABLE", "1").strip().lower()
    in ("0", "false", "no", "off"),
    "jax_enable_custom_prng": _env_bool("JAX_ENABLE_CUSTOM_PRNG"),
    "jax_legacy_prng_key": os.environ.get("JAX_LEGACY_PRNG_KEY") or "allow",
    "jax_use_high_dynamic_range_gumbel": _env_bool("JAX_USE_HIGH_DYNAMIC_RANGE_GUMBEL"),
    "jax_random_seed_offset": 0,
    # accepted for programs that set them (jaxweb always allows 16-bit reductions, does not
    # track key reuse, and its softmax derivative is the same either way)
    "jax_allow_f16_reductions": True,
    "jax_debug_key_reuse": False,
    "jax_softmax_custom_jvp": False,
}


class Config:
    """The `jaxweb.config` object: `update`, `read` and attribute access like JAX's."""

    def update(self, name: str, value: Any) -> None:
        if name not in _FLAGS:
            raise AttributeError(f"Unrecognized config option: {name}")
        _FLAGS[name] = value
        _TRACE_CONTEXT.clear()
        for hook in _HOOKS.get(name, ()):
            hook(value)

    def read(self, name: str) -> Any:
        return read(name)

    def __getattr__(self, name: str) -> Any:
        if name in _FLAGS:
            return _FLAGS[name]
        raise AttributeError(name)

    @property
    def values(self) -> dict[str, Any]:
        return dict(_FLAGS)


_HOOKS: dict[str, list] = {}


def read(name: str) -> Any:
    return _FLAGS[name]


#: flags whose value changes what tracing a function produces (part of jit's cache key, as JAX's)
TRACE_FLAGS = ("jax_enable_x64", "jax_numpy_dtype_promotion", "jax_numpy_rank_promotion",
               "jax_default_prng_impl", "jax_threefry_partitionable", "jax_enable_custom_prng",
               "jax_legacy_prng_key")


_TRACE_CONTEXT: list = []  # the tuple below, until a flag changes (jit asks on every call)


def trace_context() -> tuple:
    if not _TRACE_CONTEXT:
        _TRACE_CONTEXT.append(tuple(_FLAGS.get(n) for n in TRACE_FLAGS))
    return _TRACE_CONTEXT[0]


def on_update(name: str, hook) -> None:
    _HOOKS.setdefault(name, []).append(hook)


@contextlib.contextmanager
def override(name: str, value: Any) -> Iterator[None]:
    """Temporarily set a flag (e.g. `enable_x64` below)."""
    old = _FLAGS[name]
    config.update(name, value)
    try:
        yield
    finally:
        config.update(name, old)


def enable_x64(new_val: bool = True):
    return override("jax_enable_x64", new_val)


_CHOICES = {"jax_numpy_dtype_promotion": ("standard", "strict"),
            "jax_numpy_rank_promotion": ("allow", "warn", "raise")}


def _choice(name: str, value: str) -> contextlib.AbstractContextManager:
    if value not in _CHOICES[name]:
        raise ValueError(f"new enum value must be in {set(_CHOICES[name])}, got {value!r} of type "
                         f"{type(value)}.")
    return override(name, value)


def numpy_dtype_promotion(value: str) -> contextlib.AbstractContextManager:
    """`jax.numpy_dtype_promotion('standard' | 'strict')`, as a context manager: under
    'strict', implicit promotion only joins a typed dtype with itself or a Python scalar
    of its kind (others raise `jax.dtypes.TypePromotionError`)."""
    return _choice("jax_numpy_dtype_promotion", value)


def numpy_rank_promotion(value: str) -> contextlib.AbstractContextManager:
    """`jax.numpy_rank_promotion('allow' | 'warn' | 'raise')`, as a context manager."""
    return _choice("jax_numpy_rank_promotion", value)


config = Config()


# ---- the PRNG flags as JAX's top-level context managers (jaxweb.random reads them)
def default_prng_impl(value: str) -> contextlib.AbstractContextManager:
    """`jax.default_prng_impl(...)`: the PRNG implementation of new keys ('threefry2x32'
    is jaxweb's one implementation; 'rbg'/'unsafe_rbg' are XLA-only)."""
    if value != "threefry2x32":
        raise NotImplementedError(f"jaxweb: PRNG implementation {value!r} is not supported (only 'threefry2x32')")
    return override("jax_default_prng_impl", value)


def threefry_partitionable(value: bool = True) -> contextlib.AbstractContextManager:
    """`jax.threefry_partitionable(...)`: JAX's partitionable threefry bit layout (default True)."""
    return override("jax_threefry_partitionable", bool(value))


def enable_custom_prng(value: bool = True) -> contextlib.AbstractContextManager:
    """`jax.enable_custom_prng(...)`."""
    return override("jax_enable_custom_prng", bool(value))


def legacy_prng_key(value: str) -> contextlib.AbstractContextManager:
    """`jax.legacy_prng_key('allow' | 'warn' | 'error')`: how raw uint32 keys are treated."""
    if value not in ("allow", "warn", "error"):
        raise ValueError(f"new enum value must be in {{'allow', 'warn', 'error'}}, got {value!r}")
    return override("jax_legacy_prng_key", value)
