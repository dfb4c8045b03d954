"""The reference backend (`cpu`): interprets kernel IR with numpy. The oracle.

Each kernel is evaluated over its flattened index space in chunks: output
positions along axis 0 and (if it reduces) reduction positions along axis 1, so
memory stays bounded whatever the kernel's size; a nested `reduce` expression is
evaluated over one more trailing axis and reduced along it. It favours
obviously-right numpy calls over speed. bfloat16 values are held as float32 arrays rounded to
bfloat16 after every op (numpy has no bfloat16) and stored as their 16-bit
patterns. Available wherever numpy imports.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..compiler import expr as E
from ..compiler.kernel import Kernel
from ..compiler.shapetracker import prod
from .base import Backend
from . import reference_ops as ops

CHUNK = 1 << 21  # elements evaluated at once


def np_dtype(dt: dtypes.DType) -> Any:
    """Storage dtype in numpy (bfloat16 is stored as its bits)."""
    return np.dtype("uint16") if dt is dtypes.bfloat16 else np.dtype(dt.name)


class ReferenceBackend(Backend):
    platform = "cpu"

    def alloc(self, nbytes: int) -> np.ndarray:
        return np.zeros(max(nbytes, 1), dtype=np.uint8)

    def free(self, handle: Any) -> None:
        pass  # numpy memory goes with the last reference

    def write(self, handle: np.ndarray, data) -> None:
        src = np.frombuffer(data, dtype=np.uint8)
        handle[: src.size] = src

    def read(self, handle: np.ndarray, nbytes: int) -> memoryview:
        return memoryview(handle[:nbytes].tobytes())

    def copy(self, dst: np.ndarray, src: np.ndarray, nbytes: int) -> None:
        dst[:nbytes] = src[:nbytes]

    def offset(self, handle: np.ndarray, nbytes: int) -> np.ndarray:
        return handle[nbytes:] if nbytes < handle.size else np.zeros(1, np.uint8)

    def compile(self, kernel: Kernel) -> Kernel:
        return kernel  # interpreted

    def execute(self, kernel: Kernel, outs: list, inputs: list) -> None:
        n = kernel.size
        if n == 0:
            return
        ins = [_typed(buf, dt) for buf, dt in zip(inputs, kernel.in_dtypes)]
        dsts = [out[: n * dt.itemsize].view(np_dtype(dt)) for out, dt in zip(outs, kernel.out_dtypes)]
        rsize = prod(kernel.reduce_shape) if kernel.reduce_op else 1
        step = max(1, CHUNK // max(rsize * _nested_extent(kernel), 1))
        with np.errstate(all="ignore"):
            for s in range(0, n, step):
                e = min(n, s + step)
                for dst, val, dt in zip(dsts, self._chunk(kernel, ins, s, e, rsize), kernel.out_dtypes):
                    val = np.asarray(val)
                    val = val.reshape(-1) if val.ndim == 2 else val
                    dst[s:e] = ops.to_storage(np.broadcast_to(val, (e - s,)), dt)

    def _chunk(self, k: Kernel, ins: list, s: int, e: int, rsize: int) -> list:
        flat = np.arange(s, e, dtype=np.int64)
        env = _index_env(k.shape, flat, "g", (slice(None), None) if k.reduce_op else (slice(None),))
        if not k.reduce_op:
            ev = _Eval(env, ins)
            return [ev.run(o) for o in k.outs]
        acc = None
        rstep = max(1, CHUNK // max(e - s, 1))
        for rs in range(0, rsize, rstep):  # reduce in slabs if the reduction is huge
            rflat = np.arange(rs, min(rsize, rs + rstep), dtype=np.int64)
            renv = dict(env)
            renv.update(_index_env(k.reduce_shape, rflat, "r", (None, slice(None))))
            body = np.broadcast_to(_Eval(renv, ins).run(k.body), (e - s, rflat.size))
            part = ops.reduce(k.reduce_op, body, k.body.dtype)
            acc = part if acc is None else ops.combine(k.reduce_op, acc, part, k.body.dtype)
        env["acc"] = acc
        ev = _Eval(env, ins)
        return [ev.run(o) for o in k.outs]


def _typed(buf: np.ndarray, dt: dtypes.DType) -> np.ndarray:
    arr = buf[: (buf.size // max(dt.itemsize, 1)) * dt.itemsize].view(np_dtype(dt))
    return ops.from_storage(arr, dt)


def _nested_extent(k: Kernel) -> int:
    """The most elements one output position's nested reductions hold at once."""
    extent: dict[int, int] = {}
    roots = list(k.outs) + ([k.body] if k.reduce_op else [])
    for e in E.walk_all(roots):
        inner = max((extent[id(s)] for s in e.src), default=1)
        if e.op == "reduce":
            inner *= prod(n for _, n in e.arg[1])
        extent[id(e)] = inner
    return max(extent[id(r)] for r in roots)


def _index_env(shape, flat: np.ndarray, prefix: str, where: tuple) -> dict:
    env, rest = {}, flat
    for i in reversed(range(len(shape))):
        n = shape[i]
        env[f"{prefix}{i}"] = (rest % n)[where] if n > 1 else np.zeros(1, np.int64)[where]
        rest = rest // max(n, 1)
    return env


class _Eval:
    """Evaluate one expression DAG over numpy arrays, memoized by node."""

    def __init__(self, env: dict, ins: list):
        self.env, self.ins = env, ins

    def run(self, root: E.Expr) -> np.ndarray:
        memo: dict[int, Any] = {}
        stack = [(root, False)]
        while stack:  # post-order; a reduction's body is evaluated in its own environment
            n, done = stack.pop()
            if id(n) in memo:
                continue
            if n.op == "reduce":
                memo[id(n)] = self.reduce(n)
            elif done:
                memo[id(n)] = self.node(n, [memo[id(s)] for s in n.src])
            else:
                stack.append((n, True))
                stack.extend((s, False) for s in n.src if id(s) not in memo)
        return memo[id(root)]

    def reduce(self, n: E.Expr) -> np.ndarray:
        """A nested reduction: its body over one more trailing axis, reduced along it."""
        op, ranges = n.arg
        env = {k: np.asarray(v)[..., None] for k, v in self.env.items()}
        rank = max((a.ndim for a in env.values()), default=1)
        total = prod(extent for _, extent in ranges)
        flat = np.arange(total, dtype=np.int64)
        for name, extent in reversed(ranges):
            env[name] = (flat % extent).reshape((1,) * (rank - 1) + (total,))
            flat = flat // max(extent, 1)
        body = np.asarray(_Eval(env, self.ins).run(n.src[0]))
        full = np.broadcast_shapes(body.shape, *[a.shape for a in env.values()])
        body = np.broadcast_to(body, full)
        red = ops.reduce(op, body.reshape(-1, full[-1]), n.dtype)
        return red.reshape(full[:-1])

    def node(self, n: E.Expr, xs: list) -> Any:
        op = n.op
        if op == "const":
            return ops.scalar(n.arg, n.dtype)
        if op == "idx":
            return self.env[n.arg[0]]
        if op == "acc":
            return self.env["acc"]
        if op == "load":
            return self.load(n, xs)
        if op == "cast":
            return ops.cast(xs[0], n.src[0].dtype, n.dtype)
        if op == "bitcast":
            return ops.bitcast(xs[0], n.src[0].dtype, n.dtype)
        if op == "where":
            return np.where(xs[0], xs[1], xs[2])
        if op in E.UNARY:
            return ops.unary(op, xs[0], n.src[0].dtype)
        return ops.binary(op, xs[0], xs[1], n.src[0].dtype)

    def load(self, n: E.Expr, xs: list) -> np.ndarray:
        buf = self.ins[n.arg]
        index = np.asarray(xs[0], dtype=np.int64)
        if buf.size == 0:
            return np.zeros(index.shape, dtype=buf.dtype)
        valid = xs[1] if len(xs) > 1 else None
        if valid is None:
            assert index.min() >= 0 and index.max() < buf.size, "kernel read out of bounds"
            return buf[index]
        bad = np.asarray(valid) & ((index < 0) | (index >= buf.size))
        assert not bad.any(), "kernel read out of bounds"
        vals = buf[np.clip(index, 0, buf.size - 1)]
        return np.where(valid, vals, np.zeros((), dtype=buf.dtype))

