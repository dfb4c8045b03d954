"""Control flow: If, Loop and Scan. A condition or trip count known at trace time runs
its subgraph directly (unrolled); a traced condition becomes `lax.cond` / `lax.while_loop`."""
from __future__ import annotations

import jaxweb.lax as lax
import jaxweb.numpy as jnp
from jaxweb._src import core, dtypes

from .registry import op, unsupported
from .tensors import HostTensor
from .util import arr

MAX_UNROLL = 10_000


def _concrete_bool(x):
    """A condition's Python value, or None while it is traced."""
    if isinstance(x, HostTensor):
        return bool(x.values[0])
    if isinstance(x, core.Tracer):
        return None
    return bool(arr(x).reshape(-1)[0])


@op("If", scope=True)
def _if(node, scope, cond):
    c = _concrete_bool(cond)
    then_g, else_g = node.attr("then_branch"), node.attr("else_branch")
    if c is not None:
        return tuple(scope.run(then_g if c else else_g, []))
    return tuple(lax.cond(arr(cond).reshape(()),
                          lambda: [arr(v) for v in scope.run(then_g, [])],
                          lambda: [arr(v) for v in scope.run(else_g, [])]))


def _stack(items, axis=0):
    return jnp.stack([arr(v) for v in items], axis=axis)


@op("Loop", scope=True)
def _loop(node, scope, trip=None, cond=None, *state):
    body = node.attr("body")
    n_state = len(state)
    limit = None if trip is None else _static_int(node, trip)
    go = True if cond is None else _concrete_bool(cond)
    if go is None or (limit is not None and limit > MAX_UNROLL):
        return _while_loop(node, scope, body, limit, cond, state)
    i, scans = 0, None
    state = list(state)
    while go and (limit is None or i < limit):
        outs = scope.run(body, [HostTensor.of([i], dtypes.int64, ()), HostTensor.of([True], dtypes.bool_, ())] + state)
        c, state, extra = outs[0], list(outs[1:1 + n_state]), outs[1 + n_state:]
        scans = [[] for _ in extra] if scans is None else scans
        for acc, v in zip(scans, extra):
            acc.append(v)
        go = _concrete_bool(c)
        if go is None:
            raise unsupported(node, "a loop condition that becomes traced inside the loop")
        i += 1
        if limit is None and i > MAX_UNROLL:
            raise unsupported(node, f"more than {MAX_UNROLL} iterations without a trip count")
    if scans is None:
        scans = [[] for _ in range(len(body.outputs) - 1 - n_state)]
    return tuple(state) + tuple(_stack(s) if s else jnp.zeros((0,), jnp.float32) for s in scans)


def _static_int(node, x):
    if isinstance(x, HostTensor):
        return int(x.values[0])
    if isinstance(x, core.Tracer):
        raise unsupported(node, "a traced trip count")
    return int(arr(x).reshape(-1)[0])


def _while_loop(node, scope, body, limit, cond, state):
    if len(body.outputs) - 1 != len(state):
        raise unsupported(node, "scan outputs of a loop whose condition is traced")

    def cond_fn(carry):
        i, c, _ = carry
        ok = c if limit is None else jnp.logical_and(c, i < limit)
        return ok

    def body_fn(carry):
        i, c, st = carry
        outs = scope.run(body, [i.astype(jnp.int32), c] + list(st))
        return i + 1, arr(outs[0]).reshape(()).astype(bool), [arr(v) for v in outs[1:]]

    c0 = jnp.asarray(True) if cond is None else arr(cond).reshape(()).astype(bool)
    _, _, final = lax.while_loop(cond_fn, body_fn, (jnp.asarray(0, jnp.int32), c0, [arr(s) for s in state]))
    return tuple(final)


@op("Scan", since=9, scope=True)
def _scan(node, scope, *inputs):
    body = node.attr("body")
    n_scan = node.attr("num_scan_inputs")
    n_state = len(inputs) - n_scan
    state, xs = list(inputs[:n_state]), [arr(x) for x in inputs[n_state:]]
    in_axes = node.attr("scan_input_axes") or [0] * n_scan
    in_dirs = node.attr("scan_input_directions") or [0] * n_scan
    xs = [jnp.moveaxis(x, a % x.ndim, 0) for x, a in zip(xs, in_axes)]
    xs = [jnp.flip(x, 0) if d else x for x, d in zip(xs, in_dirs)]
    steps = xs[0].shape[0]
    scans = None
    for t in range(steps):
        outs = scope.run(body, state + [x[t] for x in xs])
        state, extra = list(outs[:n_state]), outs[n_state:]
        scans = [[] for _ in extra] if scans is None else scans
        for acc, v in zip(scans, extra):
            acc.append(v)
    n_out = len(body.outputs) - n_state
    out_axes = node.attr("scan_output_axes") or [0] * n_out
    out_dirs = node.attr("scan_output_directions") or [0] * n_out
    results = []
    for acc, a, d in zip(scans or [[] for _ in range(n_out)], out_axes, out_dirs):
        y = _stack(acc[::-1] if d else acc)
        results.append(jnp.moveaxis(y, 0, a % y.ndim))
    return tuple(state) + tuple(results)
