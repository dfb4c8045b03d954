"""A Kernel -> one GLSL ES 3.00 fragment shader (`Shader`: its text and what it draws).

Buffers are RGBA32UI textures of u32 words, TEX_W texels a row (js_shim/webgl.mjs). One
fragment writes one output texel: 4 words, so `4 * 4 / itemsize` consecutive outputs
(4 float32s, 16 bools), computed in a loop over those lanes (not unrolled: a fragment
shader of a long fused expression stays one copy of it). An input read only at the
output's own flat position (a contiguous float32/int32 operand of a 32-bit output) is
fetched once per fragment as a whole texel. Reductions run in the lane's loop (long float
sums in blocks of BLOCK terms, as on webgpu, so their rounding error grows with
BLOCK + R / BLOCK); long reductions into few outputs are split into two kernels by the
backend first (`split.py`), since one fragment cannot share work with another.

Kernels have one output (the backend declares `multi_output=False`: writing several
textures needs MRT, whose outputs must all be the same size), and nested reductions are
scheduled as kernels of their own (`nested_reduce=False`), as on webgpu.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from ... import dtypes
from ...compiler import expr as E
from ...compiler.kernel import Kernel, identity
from ...compiler.shapetracker import prod
from ..gpu.emit import Emitter as GPUEmitter
from ..webgpu.codegen import Plan, is_flat
from . import glsl as G, hyperbolic

TEX_W = 1024      # texels per texture row (js_shim/webgl.mjs's TEX_W)
TEX_SHIFT = 10
BLOCK = 32        # terms per block sum of a long float sum


@dataclass(frozen=True)
class Shader:
    code: str
    n_in: int
    texels: int          # output texels to draw
    out_nbytes: int      # bytes the output holds


HEADER = """#version 300 es
precision highp float;
precision highp int;
precision highp usampler2D;
uniform uint opq;  // always 0: keeps the compiler from folding or fusing float arithmetic
uniform ivec4 u;
layout(location = 0) out uvec4 o0;
"""

FETCH = f"""uvec4 texel(highp usampler2D s, int t) {{ return texelFetch(s, ivec2(t & {TEX_W - 1}, t >> {TEX_SHIFT}), 0); }}
uint word(highp usampler2D s, int w) {{ return texel(s, w >> 2)[w & 3]; }}
"""


def shader_text(n_in: int, body: list[str], consts: list[str] = ()) -> str:
    """The whole fragment shader: header, samplers t0.., the helpers `body` uses, main."""
    samplers = "".join(f"uniform highp usampler2D t{i};\n" for i in range(n_in))
    main = "\n".join(["void main() {", f"  int tx = int(gl_FragCoord.y) * {TEX_W} + int(gl_FragCoord.x);"]
                     + ["  " + s for s in list(consts) + body] + ["}", ""])
    return HEADER + samplers + FETCH + G.helpers_for(main) + "\n" + main


class Emitter(GPUEmitter):
    """Emits `T v = expr;` per node; inputs are texels of packed words (`word(t{slot}, i)`),
    `vec` slots the texel `q{slot}` at the output's position."""

    def __init__(self, vec: frozenset = frozenset()):
        super().__init__(G._G, vec=vec)  # constants are declared at the top of main

    def load(self, n, a, env, lines, tag):
        if n.arg in self.vec:
            return G.from_bits(f"q{n.arg}[lane]", n.dtype)
        # masked: fetched unconditionally (at 0), then selected: texture fetches inside
        # branches made SwiftShader's shader compiler hang
        text = load_text(n.arg, a[0] if len(a) == 1 else G.sel(a[1], a[0], "0"), n.dtype)
        if len(a) > 1:
            lines.append(f"{G.ty(n.dtype)} m{len(self.name)}{tag} = {text};")
            text = G.sel(a[1], f"m{len(self.name)}{tag}", G.const_text(0, n.dtype))
        return text

    def const_lines(self) -> list[str]:
        return [f"{G.TYPE[k[0]]} {name} = {text};" for k, (name, text) in self.consts.items()]


def load_text(slot: int, index: str, dt) -> str:
    """Element `index` (an int expression) of `dt` from the packed words of input `slot`."""
    size = dt.itemsize
    if size == 4:
        return G.from_bits(f"word(t{slot}, {index})", dt)
    per = 4 // size
    i = f"({index})"
    return G.part_text(f"word(t{slot}, {i} >> {per.bit_length() - 1})", f"uint(({i} & {per - 1}) * {8 * size})", dt)


def decompose(flat: str, shape: tuple, prefix: str, env: dict, tag: str) -> list[str]:
    """int locals `{prefix}{i}{tag}` for the row-major position `flat` in `shape`."""
    lines, strides, stride = [], [], 1
    for n in reversed(shape):
        strides.append(stride)
        stride *= n
    for i, (n, s) in enumerate(zip(shape, reversed(strides))):
        v = f"{prefix}{i}{tag}"
        q = flat if s == 1 else f"({flat} / {s})"
        lines.append(f"int {v} = {q if i == 0 else f'{q} % {n}'};")
        env[f"{prefix}{i}"] = v
    return lines


def _vec_inputs(kernel: Kernel, plan: Plan) -> frozenset:
    """4-byte input slots read only at the output's flat position, unmasked (4-byte outputs)."""
    if kernel.out_dtypes[0].itemsize != 4:
        return frozenset()
    ok: dict[int, bool] = {}
    for n in plan.pre + plan.loop + plan.post:
        if n.op == "load":
            flat = (len(n.src) == 1 and n.dtype.itemsize == 4 and is_flat(n.src[0], kernel.shape)
                    and any(s.op == "idx" for s in E.walk(n.src[0])))  # not hoisted as invariant
            ok[n.arg] = ok.get(n.arg, True) and flat
    return frozenset(i for i, v in ok.items() if v)


def reduce_loop(kernel: Kernel, plan: Plan, em: Emitter, env: dict, lines: list) -> None:
    """acc = identity; for r in [0, R): acc = op(acc, body) — in blocks for long float sums."""
    acc_t = G.ty(plan.body.dtype)
    rsize = prod(kernel.reduce_shape)
    ident = em.operand(identity(kernel.reduce_op, plan.body.dtype), env)
    combined = E.binary(kernel.reduce_op, E.acc(plan.body.dtype), plan.body)
    blocked = rsize > 2 * BLOCK and kernel.reduce_op == "add" and plan.body.dtype.kind == "f"
    into = "blk" if blocked else "acc"
    lines.append(f"{acc_t} acc = {ident};")
    if blocked:
        lines += [f"for (int rb = 0; rb < {rsize}; rb += {BLOCK}) {{", f"  {acc_t} blk = {ident};",
                  f"  for (int r = rb; r < min(rb + {BLOCK}, {rsize}); r++) {{"]
    else:
        lines.append(f"for (int r = 0; r < {rsize}; r++) {{")
    inner = decompose("r", kernel.reduce_shape, "r", env, "_")
    saved = dict(em.name)
    em.emit(plan.loop, env, inner, "r")
    inner.append(f"{into} = {G.op_text(combined, [into, em.operand(plan.body, env)])};")
    em.name = saved  # loop-local names do not leak
    pad = "    " if blocked else "  "
    lines += [pad + s for s in inner] + (["  }", f"  acc = {G.op_text(combined, ['acc', 'blk'])};", "}"]
                                         if blocked else ["}"])
    env["acc"] = "acc"


def _pre_expand(kernel: Kernel) -> Kernel:
    """`kernel` with the hyperbolic functions and cbrt in IR (hyperbolic.py)."""
    roots = list(kernel.outs) + ([kernel.body] if kernel.reduce_op else [])
    ex = hyperbolic.expand(roots)
    if all(a is b for a, b in zip(ex, roots)):
        return kernel
    n = len(kernel.outs)
    return Kernel(kernel.shape, ex[n] if kernel.reduce_op else None, None, kernel.in_dtypes, kernel.reduce_shape,
                  kernel.reduce_op, name=kernel.name, outs=tuple(ex[:n]))


def build(kernel: Kernel) -> Shader:
    """The fragment shader of a one-output kernel."""
    if len(kernel.outs) != 1:
        raise NotImplementedError(f"webgl codegen: kernel '{kernel.name}' writes {len(kernel.outs)} outputs "
                                  "(the device declares multi_output=False)")
    for d in (*kernel.in_dtypes, *kernel.out_dtypes):
        G.check_dtype(d, f" (kernel '{kernel.name}')")
    kernel = _pre_expand(kernel)
    plan = Plan(kernel)  # then the IR expansions WGSL needs, which GLSL needs too (see glsl.py)
    dt = kernel.out_dtypes[0]
    size = kernel.size
    per = 4 // dt.itemsize      # outputs per word
    lanes = 4 * per             # outputs per texel
    texels = -(-size // lanes)
    vec = _vec_inputs(kernel, plan)
    em = Emitter(vec)
    body: list[str] = [f"if (tx >= {texels}) {{ discard; }}"]
    em.emit(plan.invariant, {}, body, "h")
    body += [f"uvec4 q{i} = texel(t{i}, tx);" for i in sorted(vec)]
    body += ["uvec4 res = uvec4(0u);", f"for (int lane = 0; lane < {lanes}; lane++) {{"]
    env: dict = {}
    inner = [f"int f = tx * {lanes} + lane;"]
    if size % lanes:
        inner.append(f"if (f >= {size}) {{ break; }}")
    inner += decompose("f", kernel.shape or (1,), "g", env, "")
    invariant = dict(em.name)
    em.emit(plan.pre, env, inner, "")
    if kernel.reduce_op:
        reduce_loop(kernel, plan, em, env, inner)
        em.emit(plan.post, env, inner, "p")
    bits = G.bits_of(em.operand(plan.outs[0], env), dt)
    if per == 1:
        inner.append(f"res[lane] = {bits};")
    else:
        inner.append(f"res[lane / {per}] |= {bits} << uint((lane % {per}) * {8 * dt.itemsize});")
    em.name = invariant
    body += ["  " + s for s in inner] + ["}", "o0 = res;"]
    return Shader(shader_text(len(kernel.in_dtypes), body, em.const_lines()), len(kernel.in_dtypes), texels,
                  size * dt.itemsize)


class Weights:
    """What one IR node of an op costs in this GLSL, for the scheduler's kernel-size cap
    (`Capabilities.node_weights`): the statements its float32 shader adds over a plain
    negation (helpers included), measured once per op in the process when first asked
    (`_measure` is cached: the GLSL does not depend on the backend instance). The math
    expansions are IR nodes here and dozens of statements there (tanh ~100, lgamma ~330)."""

    def get(self, op: str, default: int = 1) -> int:
        return _measure(op) or default


@cache
def _statements(op: str) -> int:
    """The statements of the float32 shader of `op` on one or two loaded values."""
    f32 = dtypes.float32
    x, y = E.load(0, f32, E.idx("g0", 4)), E.load(1, f32, E.idx("g0", 4))
    value = E.unary(op, x) if op in E.UNARY else E.binary(op, x, y)
    return build(Kernel((4,), value, None, (f32, f32))).code.count(";")


@cache
def _measure(op: str) -> int | None:
    if op not in E.UNARY and op not in E.BINARY:
        return None
    try:
        n = _statements(op)
    except (NotImplementedError, KeyError):  # not a float op: no expansion
        return None
    return max(1, n - _statements("neg" if op in E.UNARY else "sub") + 1)


def copy_shader() -> str:
    """Words [u.x, ..) of t0 into the output's texels [u.y, u.z) (other texels untouched)."""
    body = ["if (tx < u.y || tx >= u.z) { discard; }", "int w = (tx - u.y) * 4 + u.x;",
            "o0 = uvec4(word(t0, w), word(t0, w + 1), word(t0, w + 2), word(t0, w + 3));"]
    return shader_text(1, body)
