"""Host callbacks: `jax.debug.callback`/`jax.debug.print` and `jax.pure_callback`.

Two primitives carry a Python function as a parameter:

- `debug_callback` (no outputs, effectful): params `callback` (a flat function of the
  array arguments), `effect` ('debug' or 'ordered_debug'), `partitioned`.
- `pure_callback` (outputs given by `result_avals`): params `callback` (flat arrays in,
  flat results out), `result_avals` (tuple of ShapedArray), `sharding`, `vmap_method`.

Their eager implementation calls the function on concrete Arrays (so a callback may use
jnp, or numpy where it is loaded); compiled (under jit, in loops) each is a host step of
the schedule (`kernel.Call` "host"): its operands' bytes come back as Arrays, the eager
implementation runs, its results go to new buffers. A debug callback is a step although
no output reads it (`lowering.record_effect`).
`debug_callback` is kept by dead-code elimination (`core.effectful_primitives`); JVP
calls it on primals only, vmap calls it once per batch element, as JAX does.
`pure_callback` is not differentiable (JAX's errors) and batches by `vmap_method`.
"""
from __future__ import annotations

import functools
import string
import sys
from typing import Any, Callable, Sequence

from . import core, dtypes
from .array import Array
from .compiler import graph
from .compiler.kernel import Call
from .device import Buffer, device_of_backend
from .interpreters import rules as R
from .lowering import lowering_rules, record_effect
from .tree_util import tree_flatten, tree_leaves, tree_map, tree_unflatten
from .host_arrays import from_host
from .lax.structural import full
from .lax.elementwise import asarray
from .lax.structural import broadcast, concatenate, expand_dims, index_in_dim
from .interpreters.batching import bdim_at_front

debug_callback_p = core.Primitive("debug_callback")
debug_callback_p.multiple_results = True
pure_callback_p = core.Primitive("pure_callback")
pure_callback_p.multiple_results = True
core.effectful_primitives.add(debug_callback_p)

VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                "legacy_vectorized", None)


def _concrete(args: Sequence[Any]) -> list:
    """Arguments as Arrays (Python scalars that reached the impl become 0-d Arrays)."""
    return [a if hasattr(a, "aval") else from_host(a) for a in args]


# ---------------------------------------------------------------- debug_callback
@core.def_abstract_eval(debug_callback_p)
def _debug_abstract(*avals, callback, effect, partitioned):
    return []


def _debug_impl(*args, callback, effect, partitioned):
    callback(*_concrete(args))
    return []


def _debug_jvp(primals, tangents, **params):
    return debug_callback_p.bind(*primals, **params), []


def _debug_transpose(cts, *args, **params):
    return [None] * len(args)


def _debug_batch(args, dims, **params):
    """One call per batch element (an unmapped argument is passed whole to each)."""
    size = next(core.get_aval(a).shape[d] for a, d in zip(args, dims) if d is not None)
    for i in range(size):
        debug_callback_p.bind(*[a if d is None else index_in_dim(a, i, d, keepdims=False)
                                for a, d in zip(args, dims)], **params)
    return [], []


core.impl_rules[debug_callback_p] = _debug_impl
R.primitive_jvps[debug_callback_p] = _debug_jvp
R.primitive_transposes[debug_callback_p] = _debug_transpose
R.primitive_batchers[debug_callback_p] = _debug_batch


def _split_callback_args(args: tuple, kwargs: dict) -> tuple[Any, list, dict]:
    """Flatten (args, kwargs); leaves that are arrays or numbers are dynamic (traced),
    everything else (strings, functions, ...) is passed through unchanged."""
    flat, tree = tree_flatten((args, kwargs))
    static, dyn = {}, []
    for i, a in enumerate(flat):
        if core.valid_jaxtype(a):
            dyn.append(a)
        else:
            static[i] = a
    return tree, dyn, static


def _merge_callback_args(tree: Any, dyn: Sequence[Any], static: dict) -> tuple[tuple, dict]:
    it = iter(dyn)
    flat = [static[i] if i in static else next(it) for i in range(len(static) + len(dyn))]
    return tree_unflatten(tree, flat)


def debug_callback(callback: Callable[..., Any] | None = None, *args: Any, ordered: bool = False,
                   partitioned: bool = False, **kwargs: Any) -> Any:
    """`jax.debug.callback`: call `callback(*args, **kwargs)` with concrete values, also
    from inside jit, vmap (once per element) and grad (on primal values). Also the
    two-call form `jax.debug.callback(ordered=True)(callback, *args)`."""
    def call(cb: Callable[..., Any], *c_args: Any, **c_kwargs: Any) -> None:
        if not callable(cb):
            raise TypeError("first argument to jax.debug.callback must be callable, but got an "
                            f"object of type {type(cb)}")
        tree, dyn, static = _split_callback_args(c_args, c_kwargs)

        def flat_callback(*dyn_flat: Any) -> None:
            a, kw = _merge_callback_args(tree, dyn_flat, static)
            cb(*a, **kw)
        functools.update_wrapper(flat_callback, cb, assigned=("__name__", "__qualname__"), updated=())
        debug_callback_p.bind(*dyn, callback=flat_callback,
                              effect="ordered_debug" if ordered else "debug", partitioned=partitioned)

    if callback is not None:
        call(callback, *args, **kwargs)
        return None
    if args or kwargs:
        raise TypeError("debug_callback received unexpected arguments in the two-call form: "
                        f"args={args} kwargs={kwargs}")
    return call


class _FormatChecker(string.Formatter):
    """Checks a jax.debug.print format against its arguments without formatting values."""

    def format_field(self, value: Any, format_spec: str) -> str:
        return ""

    def check_unused_args(self, used_args: Any, args: Sequence[Any], kwargs: dict) -> None:
        unused = [a for i, a in enumerate(args) if i not in used_args]
        unused_kw = [k for k in kwargs if k not in used_args]
        if unused:
            raise ValueError(f"Unused positional arguments to `jax.debug.print`: {unused}")
        if unused_kw:
            raise ValueError(f"Unused keyword arguments to `jax.debug.print`: {unused_kw}. You may "
                             "be passing an f-string (i.e, `f\"{x}\"`) into `jax.debug.print` and "
                             "instead should pass in a regular string.")


def debug_print(fmt: str | None = None, *args: Any, ordered: bool = False, partitioned: bool = False,
                skip_format_check: bool = False, _use_logging: bool = False, **kwargs: Any) -> Any:
    """`jax.debug.print`: `print(fmt.format(*args, **kwargs))` with the runtime values,
    also inside jit/vmap/grad. A format without placeholders prints its arguments after
    it, separated by spaces. Also the two-call form `jax.debug.print(ordered=True)(fmt, x)`."""
    def call(f: str, *c_args: Any, **c_kwargs: Any) -> None:
        if not skip_format_check:
            _FormatChecker().format(f, *c_args, **c_kwargs)
        has_placeholders = bool(f) and next(iter(string.Formatter().parse(f)))[1] is not None

        def show(*a: Any, **kw: Any) -> None:
            msg = f.format(*a, **kw) if has_placeholders else " ".join((f, *(str(v) for v in a)))
            if _use_logging:
                import logging
                logging.getLogger("jaxweb").info(msg)
            else:
                sys.stdout.write(msg + "\n")
        show.__name__ = show.__qualname__ = "debug_log" if _use_logging else "debug_print"
        debug_callback(show, *c_args, ordered=ordered, partitioned=partitioned, **c_kwargs)

    if fmt is not None:
        call(fmt, *args, **kwargs)
        return None
    if args or kwargs:
        raise TypeError("debug_print received unexpected arguments in the two-call form: "
                        f"args={args} kwargs={kwargs}")
    return call


def debug_log(fmt: str | None = None, *args: Any, **kwargs: Any) -> Any:
    """`jax.debug.log`: like `jax.debug.print`, to the `logging` module at INFO level."""
    return debug_print(fmt, *args, _use_logging=True, **kwargs)


def debug_breakpoint(*, backend: str | None = None, filter_frames: bool = True,
                     num_frames: int | None = None, ordered: bool = False, token: Any = None,
                     **kwargs: Any) -> Any:
    """`jax.debug.breakpoint`: enter Python's debugger (pdb) when the program reaches this
    point (the runtime values of `kwargs` are in the local `values`); under jit it runs as a
    host callback."""
    def enter(**values: Any) -> None:
        import pdb
        pdb.Pdb().set_trace()  # `values` (a local here) holds the runtime values of kwargs

    debug_callback(enter, ordered=ordered, **kwargs)
    return token


# ---------------------------------------------------------------- pure_callback
@core.def_abstract_eval(pure_callback_p)
def _pure_abstract(*avals, callback, result_avals, sharding, vmap_method):
    return list(result_avals)


def _pure_impl(*args, callback, result_avals, sharding, vmap_method):
    outs = callback(*_concrete(args))
    if len(outs) != len(result_avals):
        raise RuntimeError(f"pure_callback: the callback returned {len(outs)} arrays, but "
                           f"result_shape_dtypes describes {len(result_avals)}")
    results = []
    for o, a in zip(outs, result_avals):
        r = asarray(o, a.dtype)
        if r.shape != a.shape:
            raise RuntimeError(f"pure_callback: the callback returned an array of shape {r.shape}, "
                               f"but result_shape_dtypes expects {a.shape}")
        results.append(r)
    return results


def _pure_jvp(*args, **kwargs):
    raise ValueError("Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use "
                     "callbacks while taking gradients.")


def _pure_transpose(*args, **kwargs):
    raise ValueError("Pure callbacks do not support transpose. Please use `jax.custom_vjp` to use "
                     "callbacks while taking gradients.")


def _pure_batch(args, dims, *, callback, result_avals, sharding, vmap_method):
    size = next(core.get_aval(a).shape[d] for a, d in zip(args, dims) if d is not None)
    batched_avals = tuple(a.update(shape=(size, *a.shape)) for a in result_avals)
    params = dict(callback=callback, sharding=sharding, vmap_method=vmap_method)
    if vmap_method == "legacy_vectorized":
        front = [a if d is None else bdim_at_front(a, d, size) for a, d in zip(args, dims)]
        outs = pure_callback_p.bind(*front, result_avals=batched_avals, **params)
    elif vmap_method in ("expand_dims", "broadcast_all"):
        n = size if vmap_method == "broadcast_all" else 1
        front = [broadcast(a, (n,)) if d is None else bdim_at_front(a, d, size)
                 for a, d in zip(args, dims)]
        outs = pure_callback_p.bind(*front, result_avals=batched_avals, **params)
    elif vmap_method in ("sequential", "sequential_unrolled"):
        per = [pure_callback_p.bind(*[a if d is None else index_in_dim(a, i, d, keepdims=False)
                                      for a, d in zip(args, dims)], result_avals=result_avals, **params)
               for i in range(size)]
        outs = [concatenate([expand_dims(x, (0,)) for x in xs], 0) if size else full(a.shape, 0, a.dtype)
                for xs, a in zip(zip(*per) if per else [[]] * len(result_avals), batched_avals)]
    else:
        raise NotImplementedError(
            "vmap is only supported for the pure_callback primitive when vmap_method is one of "
            "'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
            f"'legacy_vectorized'. Got vmap_method={vmap_method!r}.")
    return list(outs), [0] * len(outs)


core.impl_rules[pure_callback_p] = _pure_impl


# ---------------------------------------------------------------- compiled: host steps
def _host_step(prim: core.Primitive, nodes: Sequence[Any], params: dict, out_avals: Sequence[Any]) -> Call:
    in_avals = [core.ShapedArray(n.shape, n.dtype) for n in nodes]
    impl = core.impl_rules[prim]

    def run(backend: Any, datas: list[bytes]) -> list[bytes]:
        device = device_of_backend(backend)
        args = []
        for aval, data in zip(in_avals, datas):
            buf = Buffer(device, aval.size, aval.dtype)
            if data:
                buf.write(data)
            args.append(Array.from_buffer(aval, buf))
        return [bytes(r._host_bytes()) for r in impl(*args, **params)]
    params_out = {"run": run, "in_nbytes": [a.size * a.dtype.itemsize for a in in_avals],
                  "out_nbytes": [a.size * a.dtype.itemsize for a in out_avals]}
    return Call("host", [], params_out, getattr(params.get("callback"), "__name__", prim.name))


def _lower_debug(*nodes, **params):
    call = _host_step(debug_callback_p, nodes, params, [])
    graph.call(call, nodes, [])
    record_effect(call.node)
    return []


def _lower_pure(*nodes, result_avals, **params):
    call = _host_step(pure_callback_p, nodes, dict(params, result_avals=result_avals), result_avals)
    return graph.call(call, nodes, [(a.shape, a.dtype) for a in result_avals])


lowering_rules[debug_callback_p] = _lower_debug
lowering_rules[pure_callback_p] = _lower_pure
R.primitive_jvps[pure_callback_p] = _pure_jvp
R.primitive_transposes[pure_callback_p] = _pure_transpose
R.primitive_batchers[pure_callback_p] = _pure_batch


def _result_aval(x: Any) -> core.ShapedArray:
    if not (hasattr(x, "shape") and hasattr(x, "dtype")):
        raise ValueError("result_shape_dtypes must be a pytree of objects with shape and dtype "
                         f"attributes (jax.ShapeDtypeStruct); got {x!r}")
    dt = dtypes.dtype(x.dtype)
    if dt in (dtypes.float64, dtypes.int64, dtypes.uint64, dtypes.complex128) and \
            dtypes.canonicalize_dtype(dt) is not dt:
        raise ValueError("result_shape_dtypes cannot specify 64-bit types when `jax_enable_x64` "
                         "is disabled")
    return core.ShapedArray(tuple(x.shape), dt)


def pure_callback(callback: Callable[..., Any], result_shape_dtypes: Any, *args: Any,
                  sharding: Any = None, vmap_method: str | None = None, **kwargs: Any) -> Any:
    """`jax.pure_callback`: call a (pure) Python function on concrete arrays from traced
    code; `result_shape_dtypes` (a pytree of ShapeDtypeStructs) declares its results."""
    if vmap_method not in VMAP_METHODS:
        raise ValueError(f"vmap_method must be on of the allowed methods {list(VMAP_METHODS)}, "
                         f"but got: {vmap_method}")
    flat_args, in_tree = tree_flatten((args, kwargs))
    avals = tree_map(_result_aval, result_shape_dtypes)
    flat_avals, out_tree = tree_flatten(avals, is_leaf=lambda v: isinstance(v, core.ShapedArray))

    def flat_callback(*flat: Any) -> list:
        a, kw = tree_unflatten(in_tree, list(flat))
        return tree_leaves(callback(*a, **kw))
    functools.update_wrapper(flat_callback, callback, assigned=("__name__", "__qualname__"), updated=())
    outs = pure_callback_p.bind(*flat_args, callback=flat_callback, result_avals=tuple(flat_avals),
                                sharding=sharding, vmap_method=vmap_method)
    return tree_unflatten(out_tree, outs)
