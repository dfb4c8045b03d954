"""The rest of JAX's top-level API that a single-process, single-device program meets:
`typeof`, `device_get`, process/host queries, cache clearing, the debugging and guard
context managers (`debug_nans`, `transfer_guard`, ... accepted, most with nothing to
guard here), `custom_gradient`, `make_array_from_callback`, `fwd_and_bwd`; the mutable
array refs (`new_ref`, `Ref`, `freeze`, `ds`) live in refs.py.
"""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator, Sequence

from . import config as _config, core, dtypes, executable, pjit
from .api import jit, vjp
from .jitted import clear_jit_caches
from .lax import linalg as lax_linalg
from .tree_util import tree_map, Partial, tree_flatten, tree_unflatten
from .device import Device, local_devices, default_backend, devices
from .dispatch import device_put as put_one
from .array import Array
from .api_util import OutStore, flatten_fun_nokwargs
from .version import __version__
from .lax.elementwise import asarray
from .custom_derivatives import custom_vjp
from .jaxpr import eval_jaxpr, trace_to_closed_jaxpr
from .refs import AbstractRef, Ref, ds, empty_ref, free_ref, freeze, new_ref

__all__ = ["device_put", "typeof", "device_get", "local_device_count", "process_count", "process_index",
           "process_indices", "host_count", "host_id", "host_ids", "clear_caches",
           "effects_barrier", "copy_to_host_async", "live_arrays", "default_matmul_precision",
           "debug_nans", "debug_infs", "check_tracer_leaks", "checking_leaks", "log_compiles",
           "explain_cache_misses", "enable_checks", "transfer_guard", "transfer_guard_host_to_device",
           "transfer_guard_device_to_host", "transfer_guard_device_to_device", "no_tracing",
           "no_execution", "make_array_from_callback", "custom_gradient", "print_environment_info",
           "Ref", "new_ref", "empty_ref", "freeze", "free_ref", "float0", "AbstractRef", "ds", "fwd_and_bwd",
           "allow_f16_reductions", "debug_key_reuse", "softmax_custom_jvp"]

float0 = dtypes.float0


def device_put(x: Any, device: Any = None, *, src: Any = None, donate: Any = False,
               may_alias: Any = None) -> Any:
    """`jax.device_put`: the pytree x with every leaf an Array on `device` (a Device, a
    platform name such as 'wasm', or None for the default device)."""
    if device is not None and hasattr(device, "device_set") and hasattr(device, "is_fully_replicated"):
        device = sorted(device.device_set, key=lambda d: d.id)[0]  # a jax.sharding.Sharding: its (one) device
    if device is not None and not isinstance(device, (Device, str)):
        raise ValueError("`jax.device_put` only accepts `None`, `jax.sharding.Sharding`, `jax.Device`, "
                         "`Format`, `jax.memory.Space` or a pytree of these values. Received invalid "
                         f"value: {device}")
    return tree_map(lambda leaf: put_one(leaf, device), x)


def typeof(x: Any) -> Any:
    """`jax.typeof`: the abstract value (shape, dtype, weak type) of x, traced or not
    (an `AbstractRef` of the value's type for a `Ref`)."""
    return AbstractRef(core.get_aval(x._value)) if isinstance(x, Ref) else core.get_aval(x)


def device_get(x: Any) -> Any:
    """`jax.device_get`: a pytree with each Array replaced by a host value — a numpy array
    where numpy is importable (as JAX gives), else nested Python lists/scalars."""
    try:
        import numpy as np
    except ImportError:  # Pyodide without numpy
        np = None

    def get(leaf: Any) -> Any:
        if isinstance(leaf, core.Tracer):
            raise core.ConcretizationTypeError(core.concretization_message(leaf, "jax.device_get"))
        if isinstance(leaf, Array):
            return np.asarray(leaf) if np is not None else leaf.tolist()
        return leaf
    return tree_map(get, x)


def local_device_count(backend: str | None = None) -> int:
    """`jax.local_device_count`: devices of the default (or given) platform."""
    return len(local_devices(backend=backend)) if backend else len(local_devices())


def process_count(backend: str | None = None) -> int:
    """`jax.process_count`: always 1 (one page or one Python process)."""
    return 1


def process_index(backend: str | None = None) -> int:
    """`jax.process_index`: always 0."""
    return 0


def process_indices() -> list[int]:
    """`jax.process_indices`: [0]."""
    return [0]


host_count, host_id = process_count, process_index


def host_ids(backend: str | None = None) -> list[int]:
    return [0]


def clear_caches() -> None:
    """`jax.clear_caches`: drop traced jaxprs and compiled programs held by caches (every jitted
    function's traces, the programs, the per-jaxpr JVP/batched jaxprs, linalg's algorithms)."""
    clear_jit_caches()
    executable.clear_cache()
    pjit.clear_caches()
    lax_linalg.clear_cache()


def effects_barrier() -> None:
    """`jax.effects_barrier`: callbacks run synchronously here, so there is nothing to wait for."""


def copy_to_host_async(x: Any) -> Any:
    """`jax.copy_to_host_async`: start reading arrays back (a no-op; reads are on demand)."""
    return x


def live_arrays(platform: str | None = None) -> list:
    """`jax.live_arrays`: not tracked by jaxweb (an Array frees with its last reference)."""
    return []


@contextlib.contextmanager
def _accepted(*_: Any, **__: Any) -> Iterator[None]:
    yield


def default_matmul_precision(precision: Any) -> contextlib.AbstractContextManager:
    """`jax.default_matmul_precision`: accepted (jaxweb computes matmuls in full precision)."""
    return _accepted()


def debug_nans(value: bool = True) -> contextlib.AbstractContextManager:
    """`jax.debug_nans` as a context manager (sets `jax_debug_nans`)."""
    return _config.override("jax_debug_nans", bool(value))


def debug_infs(value: bool = True) -> contextlib.AbstractContextManager:
    """`jax.debug_infs` as a context manager (sets `jax_debug_infs`)."""
    return _config.override("jax_debug_infs", bool(value))


def allow_f16_reductions(value: bool = True) -> contextlib.AbstractContextManager:
    """`jax.allow_f16_reductions`: accepted (jaxweb reduces float16/bfloat16 in float32 and
    does not raise when the flag is False)."""
    return _config.override("jax_allow_f16_reductions", bool(value))


def debug_key_reuse(value: bool = True) -> contextlib.AbstractContextManager:
    """`jax.debug_key_reuse`: accepted (jaxweb does not track PRNG key reuse)."""
    return _config.override("jax_debug_key_reuse", bool(value))


def softmax_custom_jvp(value: bool = True) -> contextlib.AbstractContextManager:
    """`jax.softmax_custom_jvp`: accepted (jax.nn.softmax's derivative is the same either way)."""
    return _config.override("jax_softmax_custom_jvp", bool(value))


def fwd_and_bwd(fun: Callable, argnums: int | Sequence[int], has_aux: bool = False,
                jitted: bool = True) -> tuple[Callable, Callable]:
    """`jax.fwd_and_bwd`: `fwd(*args)` gives `(fun(*args), residuals)` (plus `aux` with
    has_aux) and `bwd(residuals, ct)` the cotangents of the `argnums` arguments, so a
    training loop can jit each once (residuals are the pytree `jax.vjp` returns)."""
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)

    def fwd(*args: Any) -> tuple:
        def of_diff(*diff: Any) -> Any:
            full = list(args)
            for i, v in zip(nums, diff):
                full[i] = v
            return fun(*full)
        out = vjp(of_diff, *[args[i] for i in nums], has_aux=has_aux)
        return (out[0], out[1], out[2]) if has_aux else (out[0], out[1])

    def bwd(residuals: Any, ct: Any) -> Any:
        cts = residuals(ct)
        return cts[0] if isinstance(argnums, int) else cts

    return (jit(fwd), jit(bwd)) if jitted else (fwd, bwd)


check_tracer_leaks = checking_leaks = log_compiles = explain_cache_misses = enable_checks = _accepted
transfer_guard = transfer_guard_host_to_device = transfer_guard_device_to_host = _accepted
transfer_guard_device_to_device = no_tracing = no_execution = _accepted


def make_array_from_callback(shape: Sequence[int], sharding: Any, data_callback: Callable,
                             dtype: Any = None) -> Any:
    """`jax.make_array_from_callback` on one device: `data_callback` receives the index of
    the whole array (a tuple of full slices) and returns its data."""
    index = tuple(slice(None) for _ in shape)
    out = asarray(data_callback(index), dtype)
    if tuple(out.shape) != tuple(shape):
        raise ValueError(f"make_array_from_callback: data_callback returned shape {tuple(out.shape)}, "
                         f"expected {tuple(shape)}")
    return out


def custom_gradient(fun: Callable) -> Callable:
    """`jax.custom_gradient`: `fun(*args)` returns `(value, vjp)` with `vjp(ct)` giving one
    cotangent per argument; the result differentiates with that vjp. As in JAX, the vjp
    is traced to a jaxpr in the forward pass, so the values it closes over become
    residuals (pytree leaves) rather than escaped tracers."""
    import functools

    @custom_vjp
    def wrapped(*args: Any) -> Any:
        return fun(*args)[0]

    def run_rule(jaxpr: Any, ct_tree: Any, in_store: Any, consts: list, ct: Any) -> tuple:
        flat, tree = tree_flatten((ct,))
        if tree != ct_tree:
            raise TypeError(f"custom_gradient: cotangent structure {tree} != output structure {ct_tree}")
        out = tree_unflatten(in_store.tree, eval_jaxpr(jaxpr, consts, *flat))
        return out if isinstance(out, tuple) else (out,)

    def fwd(*args: Any) -> tuple:
        value, rule = fun(*args)
        flat, out_tree = tree_flatten((value,))
        store = OutStore()
        closed = trace_to_closed_jaxpr(flatten_fun_nokwargs(rule, out_tree, store),
                                       [core.get_aval(v).strip_weak_type() for v in flat])
        return value, Partial(functools.partial(run_rule, closed.jaxpr, out_tree, store), list(closed.consts))

    def bwd(res: Any, ct: Any) -> tuple:
        return res(ct)

    wrapped.defvjp(fwd, bwd)
    return functools.wraps(fun)(lambda *args: wrapped(*args))


def print_environment_info(return_string: bool = False) -> str | None:
    """`jax.print_environment_info`: versions and devices."""
    import platform
    import sys
    text = (f"jaxweb:    {__version__}\npython:    {sys.version}\n"
            f"platform:  {platform.platform()}\nbackend:   {default_backend()}\n"
            f"devices:   {devices()}\n")
    if return_string:
        return text
    print(text)
    return None
