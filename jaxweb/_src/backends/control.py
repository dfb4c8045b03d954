"""Running control-flow steps (`kernel.Call`) with any backend's primitives.

Each sub-program was scheduled with every output in a fresh buffer, so ownership is
simple: what a sub-program returns belongs to the loop until it is replaced (then
freed) or returned. The executor reads predicates and indices back (`read`), slices
a scan's stacked inputs in place (`offset`: a view of a buffer from a byte offset)
and copies each iteration's stacked outputs into place (`copy`). Argument lists per
sub-program, in the order its `Input` placeholders are numbered:

- cond: operands (index, *ops); branch k runs on ops.
- while: operands (*cond_consts, *body_consts, *init); the predicate program runs on
  cond_consts + carry and returns one bool scalar (a batched predicate is reduced with
  `any` when the program is built); the body on cond_consts + body_consts + carry (it
  reads the cond_consts only to select per element under a batched predicate).
- scan: operands (*consts, *init, *xs); the body runs on consts + carry + x slices and
  returns carry + y slices; ys are stacked along a new leading axis.
- host: a Python callback (`params["run"]`: the operands' bytes in, the results' bytes out).
"""
from __future__ import annotations

import struct
from typing import Any, Callable

from ..compiler.graph import Input
from ..compiler.kernel import Schedule


class PreparedCall:
    __slots__ = ("call", "programs")

    def __init__(self, call: Any, programs: list):
        self.call, self.programs = call, programs


def run_call(backend: Any, pc: PreparedCall, ins: list, alloc: Callable, free: Callable) -> list:
    """The output handles of control-flow step `pc` on operand handles `ins`."""
    return _RUNNERS[pc.call.kind](backend, pc, ins, alloc, free)


def _run(backend: Any, prepared: Any, args: list, alloc: Callable, free: Callable) -> list:
    """Run one sub-program; its outputs (fresh buffers, distinct from its arguments)."""
    s: Schedule = prepared.schedule
    got = backend.submit(prepared, [_bound(s, args, i) for i in range(len(s.inputs))], alloc, free)
    outs, seen = [], set()
    for spec in s.outputs:
        h = got[spec.buf]
        if id(h) in seen or spec.buf < len(s.inputs):  # the same buffer twice: give it a copy
            n = spec.buf_size * spec.dtype.itemsize
            c = alloc(n, f"{spec.dtype.name}{list(spec.shape)} (copy)")
            backend.copy(c, h, n)
            h = c
        seen.add(id(h))
        outs.append(h)
    return outs


def _bound(s: Schedule, args: list, i: int) -> Any:
    arg = s.inputs[i].arg
    return args[arg.index] if isinstance(arg, Input) else arg.handle


def _scalar(backend: Any, h: Any, dtype: Any) -> Any:
    data = bytes(backend.read(h, dtype.itemsize))
    if dtype.kind == "b":
        return data[0] != 0
    fmt = {1: "b", 2: "h", 4: "i", 8: "q"}[dtype.itemsize]
    return struct.unpack("<" + (fmt if dtype.kind == "i" else fmt.upper()), data)[0]


def _own(backend: Any, handles: list, owned: list[bool], sizes: list[int], alloc: Callable) -> list:
    """Handles the caller may keep: copies of those still owned by someone else."""
    out = []
    for h, mine, n in zip(handles, owned, sizes):
        if not mine:
            c = alloc(n, "loop carry (copy)")
            backend.copy(c, h, n)
            h = c
        out.append(h)
    return out


def _cond(backend, pc, ins, alloc, free) -> list:
    index, *ops = ins
    i = _scalar(backend, index, pc.call.params["index_dtype"])
    i = min(max(int(i), 0), len(pc.programs) - 1)
    return _run(backend, pc.programs[i], ops, alloc, free)


def _while(backend, pc, ins, alloc, free) -> list:
    p = pc.call.params
    nc, nb = p["cond_nconsts"], p["body_nconsts"]
    cconsts, bconsts, carry = ins[:nc], ins[nc:nc + nb], list(ins[nc + nb:])
    owned = [False] * len(carry)
    cond, body = pc.programs
    while True:
        (pred,) = _run(backend, cond, cconsts + carry, alloc, free)
        go = _scalar(backend, pred, p["pred_dtype"])
        free(pred, p["pred_dtype"].itemsize)
        if not go:
            break
        new = _run(backend, body, cconsts + bconsts + carry, alloc, free)
        for h, mine, n in zip(carry, owned, p["carry_nbytes"]):
            if mine:
                free(h, n)
        carry, owned = new, [True] * len(new)
    return _own(backend, carry, owned, p["carry_nbytes"], alloc)


def _scan(backend, pc, ins, alloc, free) -> list:
    p = pc.call.params
    nc, nk, length = p["num_consts"], p["num_carry"], p["length"]
    consts, carry, xs = ins[:nc], list(ins[nc:nc + nk]), ins[nc + nk:]
    owned = [False] * nk
    ys = [alloc(length * n, "scan output") for n in p["y_nbytes"]]
    (body,) = pc.programs
    try:
        for t in range(length):
            i = length - 1 - t if p["reverse"] else t
            x_t = [backend.offset(x, i * n) for x, n in zip(xs, p["x_nbytes"])]
            out = _run(backend, body, consts + carry + x_t, alloc, free)
            for h, mine, n in zip(carry, owned, p["carry_nbytes"]):
                if mine:
                    free(h, n)
            carry, owned = out[:nk], [True] * nk
            for y, h, n in zip(ys, out[nk:], p["y_nbytes"]):
                backend.copy(backend.offset(y, i * n), h, n)
                free(h, n)
    except BaseException:
        for y, n in zip(ys, p["y_nbytes"]):
            free(y, length * n)
        raise
    return _own(backend, carry, owned, p["carry_nbytes"], alloc) + ys


def _host(backend, pc, ins, alloc, free) -> list:
    p = pc.call.params
    datas = [bytes(backend.read(h, n)) for h, n in zip(ins, p["in_nbytes"])]
    outs = []
    for data, n in zip(p["run"](backend, datas), p["out_nbytes"]):
        h = alloc(n, "callback result")
        if n:
            backend.write(h, data)
        outs.append(h)
    return outs


_RUNNERS = {"cond": _cond, "while": _while, "scan": _scan, "host": _host}
