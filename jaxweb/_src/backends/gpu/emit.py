"""Kernel IR expression nodes -> shader statements, one local per node: the part of code
generation the webgpu and webgl devices share (their codegen.py subclass `Emitter` with how
an input is loaded: storage buffers in WGSL, texture fetches in GLSL)."""
from __future__ import annotations

from ...compiler import expr as E
from .ops import Dialect


class Emitter:
    """Emits a statement per expression node into `lines`, naming each node once (`v{i}{tag}`).
    Constants become locals `k{i}` shared by the whole function (`consts`: value key -> (name,
    text)); `vec`: the input slots a multi-lane invocation reads once at its output's position."""

    def __init__(self, lang: Dialect, consts: dict | None = None, vec: frozenset = frozenset()):
        self.lang = lang
        self.consts = {} if consts is None else consts
        self.vec = vec
        self.name: dict[int, str] = {}

    def operand(self, n: E.Expr, env: dict) -> str:
        if n.op == "const":
            key = (n.dtype.name, E._hashable(n.arg))
            if key not in self.consts:
                self.consts[key] = (f"k{len(self.consts)}", self.lang.const_text(n.arg, n.dtype, opaque=True))
            return self.consts[key][0]
        if n.op == "idx":
            return env[n.arg[0]]
        if n.op == "acc":
            return env["acc"]
        return self.name[id(n)]

    def load(self, n: E.Expr, a: list[str], env: dict, lines: list[str], tag: str) -> str:
        """The expression of load node `n` (operands `a`: the index, and a mask if masked)."""
        raise NotImplementedError

    def emit(self, nodes: list[E.Expr], env: dict, lines: list[str], tag: str) -> None:
        for n in nodes:
            if n.op in ("const", "idx", "acc") or id(n) in self.name:
                continue
            if n.op == "reduce":
                raise NotImplementedError(f"{self.lang.device} codegen: nested reductions are scheduled as kernels")
            a = [self.operand(s, env) for s in n.src]
            text = self.load(n, a, env, lines, tag) if n.op == "load" else self.lang.op_text(n, a)
            v = f"v{len(self.name)}{tag}"
            lines.append(self.lang.declare(v, self.lang.ty(n.dtype), text))
            self.name[id(n)] = v
