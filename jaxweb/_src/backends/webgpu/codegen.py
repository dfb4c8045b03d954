"""A Kernel -> one WGSL compute shader (`Shader`: its text and how to dispatch it).

Two shapes of program:

- **per element** (elementwise kernels, and reductions over few elements): one
  invocation computes `lanes` consecutive outputs, running its reduction (if any)
  in a loop, and strides over the grid by the number of invocations launched.
  `lanes` is 4 / the smallest output itemsize, so that an invocation owns whole u32
  words of every packed 8/16-bit output (WGSL has no byte stores, and two
  invocations must never write one word). The lanes are unrolled. Small
  elementwise kernels over 4-byte outputs (memory-bound ones) take 4 lanes too, and move whole `vec4`s where they
  can: an input read only at the output's own flat position (a contiguous operand)
  is bound as `array<vec4<u32>>` and read once per invocation, and outputs are
  stored as vec4s when their size is a multiple of 4 (a partial last vec4 would
  need a masked store). Buffers are whole size-class allocations (multiples of 32
  bytes), so the last vec4 of an input never leaves its buffer.
- **per workgroup** (reductions of at least TREE_MIN elements into 32-bit outputs):
  one workgroup per output element; its TREE_WG invocations stride over the
  reduction, then combine their partial results by a tree in workgroup memory,
  and invocation 0 runs the epilogue and stores.

Nodes are emitted once, at the shallowest place where their indices exist: before
the reduction loop (index arithmetic, per-output loads), inside it, or after it
(the epilogue over `acc`). A nested reduction (a short row the scheduler left inline:
`Capabilities.inline_reduce`) is a loop of its own where it is first needed, each
invocation computing it for its outputs (`Emitter.emit`). Grids larger than 65535 workgroups per dimension are
dispatched as 2D grids and linearized in the shader.

A *dynamic* shader (`build(..., dynamic=True)`, for a kernel whose leading extent was
widened to a power of two: compiler/regrid.py) reads its real extent at run time from a
uniform after the storage bindings, `dims` = (invocation words, outputs): one pipeline
then serves every extent up to the widened one, launched per extent by `launch`.

A *sized* shader (`build(..., sized=True)`: software adapters) declares each binding with
the number of elements it reads or writes (from the loads' index bounds) instead of as a
runtime-sized array, whose length SwiftShader recomputes with a vector division at every
access (a quarter of an elementwise kernel's time). `Shader.min_bytes` says what each
bound buffer must hold; the backend runs the unsized shader where one holds less.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from ...compiler import expr as E
from ...compiler.kernel import Kernel, identity
from ...compiler.shapetracker import prod
from ..gpu.emit import Emitter as GPUEmitter
from . import wgsl as W

WG = 256          # invocations per workgroup (lavapipe ran 2x faster than with 64)
TREE_WG = 64      # per-workgroup reductions: fewer barrier levels
WIDE_TREE_WG = 256   # ... on a GPU, for a reduction into at most WIDE_TREE_OUTPUTS outputs (a loss: one
WIDE_TREE_OUTPUTS = 64  # workgroup alone runs it; the H200 took 57 us over 10^4 terms with 64 invocations)
WIDE_TREE_MIN = 32   # ... and from this length when there are at most WIDE_LOOP_OUTPUTS outputs: one
WIDE_LOOP_OUTPUTS = 1 << 16  # invocation per output leaves most of a GPU idle (an MLP's 10-class logits,
                             # 10^4 outputs of 128 terms: 34 us on the H200, latency-bound)
TREE_MIN = 256    # reduction length from which a workgroup reduces one output
MAX_GRID = 65535  # workgroups per dimension (WebGPU's default limit)
BLOCK = 32        # terms per block sum of a long float sum in one invocation
SIZED_MAX_WORDS = 1 << 26  # a sized shader declares no binding past this (256 MB); larger stay runtime-sized
INLINE_REDUCE = 32  # Capabilities.inline_reduce of a GPU: a row of at most this many terms, each value
                    # recomputed at most this often, is reduced inside the kernel reading it (no launch of
                    # its own). Not on software adapters: lavapipe ran a 4096 x 10 softmax in 0.9 ms as 3
                    # kernels, 3.5 ms as 1 (each invocation recomputing its row's max and sum of exp)
QUAD_MAX_NODES = 64  # 4 lanes per invocation only for small (memory-bound) kernels: unrolled 4x,
                     # a random-normal kernel became 270 kB of WGSL that SwiftShader took minutes on


@dataclass(frozen=True)
class Shader:
    code: str
    grid: tuple[int, int, int]   # workgroups to dispatch
    n_out: int
    n_in: int
    out_nbytes: tuple[int, ...] = ()  # bytes each output holds (what a view's copy moves)
    lanes: int = 0          # outputs per invocation; 0: one workgroup per output (tree)
    dynamic: bool = False   # reads its extent from the `dims` uniform (binding n_out + n_in)
    min_bytes: tuple[int, ...] | None = None  # a sized shader: bytes each binding must hold


def launch(shader: Shader, size: int, max_groups: int) -> tuple[tuple[int, int, int], tuple[int, int]]:
    """(grid, dims) running the dynamic `shader` over `size` outputs."""
    if shader.lanes == 0:
        return grid_for(size), (size, size)
    words = -(-size // shader.lanes)
    return grid_for(min(-(-words // WG), max_groups)), (words, size)


def grid_for(groups: int) -> tuple[int, int, int]:
    if groups <= MAX_GRID:
        return (max(groups, 1), 1, 1)
    return (MAX_GRID, -(-groups // MAX_GRID), 1)


def bindings(n_out: int, in_count: int, vec_in: frozenset = frozenset(), vec_out: bool = False,
             counts: tuple | None = None) -> str:
    """Every buffer as `array<u32>`, or `array<vec4<u32>>` (inputs in `vec_in`; outputs if
    `vec_out`); of `counts[b]` elements where that is given (outputs first)."""
    counts = counts or (None,) * (n_out + in_count)

    def ty(v, n):
        return f"array<{'vec4<u32>' if v else 'u32'}{'' if n is None else f', {n}'}>"
    lines = [f"@group(0) @binding({k}) var<storage, read_write> out{k}: {ty(vec_out, counts[k])};"
             for k in range(n_out)]
    lines += [f"@group(0) @binding({n_out + i}) var<storage, read> in{i}: {ty(i in vec_in, counts[n_out + i])};"
              for i in range(in_count)]
    return "\n".join(lines)


def tie(shader: Shader, ties: dict) -> Shader | None:
    """`shader` (an elementwise kernel's: every invocation reads an element before it writes it)
    with input `i` read from output `k`'s binding for each `i: k` of `ties`: the input and the
    output are one buffer (a donated input the output writes over in place, compiler/memory.py),
    which WebGPU lets no dispatch bind both read-only and writable, nor writable twice. The input's
    binding goes and the later ones move down one each. None where an input's array type is not
    its output's (a vec4 input, a scalar output): the caller then reads a copy."""
    n_out, code = shader.n_out, shader.code
    for i, k in sorted(ties.items(), reverse=True):
        decl = re.search(rf"@group\(0\) @binding\({n_out + i}\) var<storage, read> in{i}: (array<[^;]*>);\n", code)
        out = re.search(rf"@binding\({k}\) var<storage, read_write> out{k}: (array<[^;]*>);", code)
        if decl is None or out is None or decl.group(1) != out.group(1):
            return None
        code = code[:decl.start()] + code[decl.end():]
        code = re.sub(rf"\bin{i}\b", f"out{k}", code)
        code = re.sub(r"@binding\((\d+)\)", lambda m: f"@binding({int(m[1]) - (int(m[1]) > n_out + i)})", code)
    return dataclasses.replace(shader, code=code, n_in=shader.n_in - len(ties), min_bytes=None)


def _counts(kernel: Kernel, plan: "Plan", vec_in: frozenset, out_elems: list[int], vec_words: int) -> tuple:
    """Each binding's element count for a sized shader (None: runtime-sized): outputs'
    `out_elems`; a vec4 input `vec_words`; another input one past the largest u32 word its
    loads read (a masked load reads element 0 where masked off), None if unbounded."""
    need: dict[int, int | None] = {}
    for n in plan.pre + plan.loop + plan.post:
        if n.op != "load" or n.arg in vec_in:
            continue
        hi = n.src[0].vmax
        word = None if hi is None else (max(hi, 0) * n.dtype.itemsize) // 4
        if word is None or word >= SIZED_MAX_WORDS or need.get(n.arg, 0) is None:
            need[n.arg] = None  # unbounded (a gather's data-dependent index) or implausibly large
            continue
        need[n.arg] = max(need.get(n.arg, 0), word + 1)
    ins = [vec_words if i in vec_in else need.get(i, 1) for i in range(len(kernel.in_dtypes))]
    return tuple(None if c is None or c >= SIZED_MAX_WORDS else c for c in (*out_elems, *ins))


def epilogue_fn(epi: Kernel | None, first_binding: int) -> str:
    """A GEMM routine's epilogue (`GemmSpec.epilogue`) as WGSL ('' for None): the helpers
    (wgsl.PRELUDE), its inputs bound from `first_binding` on (`in0`, ..: packed u32 arrays,
    as every kernel's), and `fn epi(acc: f32, g0: i32, .., opq: u32) -> f32`, the output at
    (g0, ..) for accumulator `acc`, which the routine calls as it stores C (opq: the runtime
    0, see wgsl.py)."""
    return routine_fns(epi.in_dtypes, first_binding, epi=epi) if epi is not None else ""


def routine_fns(in_dtypes: tuple, first_binding: int, **fns: Kernel | None) -> str:
    """The WGSL a GEMM routine calls for its operands and outputs: the helpers (wgsl.PRELUDE),
    the inputs after its buffer operands, `in_dtypes`, bound from `first_binding` on (`in0`, ..:
    packed u32 arrays, as every kernel's, one numbering for all of `fns`), and per name in `fns`
    (None: left out) `fn name([acc: f32, ]g0: i32, .., opq: u32) -> f32`, that kernel's value at
    (g0, ..) — of accumulator `acc` for `epi`, the epilogue the routine applies as it stores C;
    the others are prologues, an operand computed as the routine loads it (opq: the runtime 0,
    see wgsl.py). '' when `fns` are all None."""
    fns = {name: k for name, k in fns.items() if k is not None}
    if not fns:
        return ""
    for dt in in_dtypes:
        W.check_dtype(dt, f" (routine inputs of '{next(iter(fns.values())).name}')")
    out = [W.PRELUDE] + [f"@group(0) @binding({first_binding + i}) var<storage, read> in{i}: array<u32>;"
                         for i in range(len(in_dtypes))]
    for fname, k in fns.items():
        names = [f"g{i}" for i in range(len(k.shape))]
        env = {**{n: n for n in names}, "acc": "acc"}
        acc = ["acc: f32"] if fname == "epi" else []
        params = ", ".join(acc + [f"{n}: i32" for n in names] + ["opq: u32"])
        for i, ex in enumerate(W.expand([o]) for o in k.outs):  # several outputs: `epi`, `epi1`, ..
            em, lines = Emitter({}, nested=any(n.op == "reduce" for n in E.walk_all(ex))), []
            em.emit(list(E.walk_all(ex)), env, lines, "e")
            out += ([f"fn {fname}{i or ''}({params}) -> f32 {{"]
                    + [f"  let {name} = {text};" for name, text in em.consts.values()]
                    + ["  " + line for line in lines] + [f"  return {em.operand(ex[0], env)};", "}", ""])
    return "\n".join(out)


def epilogue_store(epi: Kernel, value: str, b: str, row: str, col: str, width: int) -> str:
    """The statements storing each output of `epi` of accumulator `value` at (b, row, col) of C
    (the first output; C1, .. the others), rows `width` apart (`M` rows per batch: the shader's
    constant or literal is the caller's)."""
    idx = ", ".join(([f"i32({b})"] if len(epi.shape) == 3 else []) + [f"i32({row})", f"i32({col})"])
    at = f"({b} * {epi.shape[-2]}u + {row}) * {width}u + {col}"
    return " ".join(f"C{i or ''}[{at}] = epi{i or ''}({value}, {idx}, opq);" for i in range(len(epi.outs)))


def _decompose(flat: str, shape: tuple, prefix: str, names: dict) -> list[str]:
    """lets binding index names `prefix0..` of the row-major position `flat` in `shape`."""
    lines, stride = [], 1
    strides = []
    for n in reversed(shape):
        strides.append(stride)
        stride *= n
    for i, (n, s) in enumerate(zip(shape, reversed(strides))):
        v = f"{prefix}{i}"
        q = flat if s == 1 else f"({flat} / {s}i)"
        lines.append(f"let {v}_{names['lane']}: i32 = {q if i == 0 else f'{q} % {n}i'};")
        names[v] = f"{v}_{names['lane']}"
    return lines


def flat_offset(index: E.Expr, shape: tuple) -> int | None:
    """c when `index` is exactly c + the row-major position of (g0, g1, ...) in `shape` (a
    contiguous view's read, shifted by c elements), else None."""
    want, stride = {}, 1
    for k in reversed(range(len(shape))):
        if shape[k] != 1:
            want[f"g{k}"] = stride
        stride *= shape[k]
    got: dict[str, int] = {}
    off = 0
    for t in E._terms(index):
        var, c = E._coeff(t)
        if var is None:
            off += c
        elif var.op == "idx" and var.arg[0] in want:
            got[var.arg[0]] = got.get(var.arg[0], 0) + c
        else:
            return None
    return off if got == want else None


def is_flat(index: E.Expr, shape: tuple) -> bool:
    """True when `index` reads exactly the output's own flat position."""
    return flat_offset(index, shape) == 0


def copy_of(kernel: Kernel) -> int | None:
    """The element offset c when `kernel` only copies in0[c : c + size] (a contiguous slice),
    which a buffer copy does without a shader; else None."""
    if kernel.reduce_op or len(kernel.outs) != 1 or len(kernel.in_dtypes) != 1:
        return None
    out = kernel.outs[0]
    if out.op != "load" or len(out.src) != 1 or out.arg != 0 or out.dtype != kernel.in_dtypes[0] \
            or out.dtype != kernel.out_dtypes[0]:
        return None
    return flat_offset(out.src[0], kernel.shape)


class Emitter(GPUEmitter):
    """Emits let statements for expression nodes into `lines`, naming each node once.
    `vec`: input slots read at the output's flat position by a 4-lane invocation, loaded
    once per invocation: 4-byte ones as a vec4 `q{slot}` (lane `env["lane_no"]`), narrow
    ones as the u32 words `q{slot}_{j}` holding the 4 lanes' values."""

    def __init__(self, consts: dict, vec: frozenset = frozenset(), nested: bool = False):
        super().__init__(W._W, consts, vec)  # consts: shared by the whole function
        self.nested = nested  # the expressions hold nested reductions (`emit`)
        self._free: dict = {}  # id(node) -> its loop indices (with nested reductions)
        self._loops = 0

    def emit(self, nodes, env, lines, tag):
        """The shared emitter's statements, and nested reductions (a softmax's row max inside
        its elementwise kernel: `Capabilities.inline_reduce`): each is a loop of its own,
        emitted where the reduction is first needed; the nodes that depend on its indices are
        emitted in that loop (and skipped where `nodes` lists them outside it)."""
        if not self.nested:
            return super().emit(nodes, env, lines, tag)
        free = E.free_indices(nodes, self._free)
        ready: list = []
        for n in nodes:
            if not free[id(n)] <= env.keys():
                continue  # inside a nested reduction's loop
            if n.op == "reduce" and id(n) not in self.name:
                super().emit(ready, env, lines, tag)
                ready = []
                self._reduce(n, env, lines, tag)
            else:
                ready.append(n)
        super().emit(ready, env, lines, tag)

    def _reduce(self, r: E.Expr, env: dict, lines: list[str], tag: str) -> None:
        """var a = identity; for each index of r's ranges: a = op(a, body)."""
        op, ranges = r.arg
        self._loops += 1
        acc, inner_tag = f"a{self._loops}{tag}", f"{tag}q{self._loops}"
        lines.append(f"var {acc}: {W.ty(r.dtype)} = {self.operand(identity(op, r.dtype), env)};")
        inner_env, heads = dict(env), []
        for name, extent in ranges:
            v = f"{name}_{inner_tag}"
            heads.append(f"for (var {v}: i32 = 0i; {v} < {extent}i; {v} += 1i) {{")
            inner_env[name] = v
        saved = dict(self.name)
        body: list[str] = []
        self.emit(list(E.walk(r.src[0])), inner_env, body, inner_tag)
        combined = E.binary(op, E.acc(r.dtype), r.src[0])
        body.append(f"{acc} = {W.op_text(combined, [acc, self.operand(r.src[0], inner_env)])};")
        self.name = saved  # loop-local names do not leak
        lines += heads + ["  " + s for s in body] + ["}"] * len(heads)
        self.name[id(r)] = acc

    def load(self, n, a, env, lines, tag):
        if n.arg in self.vec and n.dtype.itemsize == 4:
            return W.word_text(f"q{n.arg}[{env['lane_no']}]", n.dtype)
        if n.arg in self.vec:
            per, lane = 4 // n.dtype.itemsize, int(env["lane_no"])
            return W.part_text(f"q{n.arg}_{lane // per}", f"{(lane % per) * 8 * n.dtype.itemsize}u", n.dtype)
        text = W.load_text(f"in{n.arg}", a[0] if len(a) == 1 else f"select(0i, {a[0]}, {a[1]})", n.dtype)
        if len(a) > 1:
            text = f"select({W.const_text(0, n.dtype)}, {text}, {a[1]})"
        return text


class Plan:
    """The kernel's expanded expressions and which nodes go before, in and after the loop;
    `invariant`: those that depend on no index (a scalar's load, optax's b1**count), which
    a per-element kernel computes once per invocation rather than once per element."""

    def __init__(self, kernel: Kernel):
        for dt in (*kernel.in_dtypes, *kernel.out_dtypes):
            W.check_dtype(dt, f" (kernel '{kernel.name}')")
        roots = list(kernel.outs) + ([kernel.body] if kernel.reduce_op else [])
        ex = W.expand(roots)
        self.outs, self.body = ex[:len(kernel.outs)], (ex[-1] if kernel.reduce_op else None)
        free: dict[int, int] = {}  # 0: outer, 1: in the reduction loop, 2: after it
        varies: dict[int, bool] = {}
        self.pre, self.loop, self.post, self.invariant = [], [], [], []
        self.nested = False  # nested reductions (in a stored expression or the body)
        for n in E.walk_all(ex):
            self.nested = self.nested or n.op == "reduce"
            if n.op == "idx":
                lvl = 1 if n.arg[0].startswith("r") else 0
            elif n.op == "acc":
                lvl = 2
            else:
                lvl = max((free[id(s)] for s in n.src), default=0)
            free[id(n)] = lvl
            varies[id(n)] = n.op in ("idx", "acc") or any(varies[id(s)] for s in n.src)
            (self.pre, self.loop, self.post)[lvl].append(n)
            if not varies[id(n)] and n.op != "const":
                self.invariant.append(n)


def build(kernel: Kernel, max_groups: int = 1 << 14, tree_max: int | None = None,
          subgroups: str | None = None, dynamic: bool = False, sized: bool = False, wide: bool = False) -> Shader:
    """`max_groups`: workgroups at most for per-element kernels, whose invocations then
    stride over the outputs (software adapters pay per workgroup: they get few).
    `tree_max`: outputs at most for a per-workgroup (tree) reduction; more outputs reduce
    one per invocation (software adapters: a barrier switches between all of a workgroup's
    SIMD groups, and neighbouring invocations then read neighbouring columns).
    `subgroups`: the adapter has WGSL's subgroup operations, enabled by this directive (Dawn
    wants `enable subgroups;`, wgpu-native's naga nothing): sums reduce with them.
    `dynamic`: the shader runs any leading extent up to the kernel's; `sized`: bindings
    declared with their sizes, where the extent is fixed (see the module doc). `wide`: a GPU's
    (many cores): reductions into few outputs get WIDE_TREE_WG invocations per output, and
    shorter ones (from WIDE_TREE_MIN terms) a workgroup per output where outputs are few."""
    plan = Plan(kernel)
    rsize = prod(kernel.reduce_shape) if kernel.reduce_op else 0
    least = WIDE_TREE_MIN if wide and kernel.size <= WIDE_LOOP_OUTPUTS else TREE_MIN
    tree = (kernel.reduce_op is not None and rsize >= least and all(d.itemsize == 4 for d in kernel.out_dtypes)
            and plan.body.dtype.kind != "b" and (tree_max is None or kernel.size <= tree_max))
    sized = sized and not dynamic
    if not tree:
        return _build_elementwise(kernel, plan, max_groups, dynamic, sized)
    wg = WIDE_TREE_WG if wide and kernel.size <= WIDE_TREE_OUTPUTS else TREE_WG
    return _build_tree(kernel, plan, subgroups if kernel.reduce_op == "add" else None, dynamic, sized, wg)


def _header(kernel: Kernel, vec_in: frozenset = frozenset(), vec_out: bool = False,
            dynamic: bool = False, counts: tuple | None = None) -> list[str]:
    lines = [W.PRELUDE, bindings(len(kernel.outs), len(kernel.in_dtypes), vec_in, vec_out, counts)]
    if dynamic:
        lines.append(f"@group(0) @binding({len(kernel.outs) + len(kernel.in_dtypes)}) "
                     "var<uniform> dims: vec4<u32>;  // (invocation words, outputs) of this launch")
    return lines + [""]


def _vec_inputs(kernel: Kernel, plan: Plan, whole: int) -> frozenset:
    """Input slots read only at the output's flat position, unmasked: of 4-byte dtypes, or
    narrow ones when every invocation's 4 lanes fill whole words (`whole` % 4 == 0)."""
    ok: dict[int, bool] = {}
    for n in plan.pre + plan.loop + plan.post:
        if n.op == "load":
            flat = (len(n.src) == 1 and (n.dtype.itemsize == 4 or whole % 4 == 0)
                    and is_flat(n.src[0], kernel.shape))
            ok[n.arg] = ok.get(n.arg, True) and flat
    return frozenset(i for i, v in ok.items() if v)


def _reduce_loop(kernel: Kernel, plan: Plan, em: Emitter, env: dict, lines: list, tag: str,
                 start: str, step: str) -> None:
    """var acc = identity; for r in [start, R) by step: acc = op(acc, body).

    A long float sum run by one invocation (`step` 1) adds blocks of BLOCK terms into a
    block sum first: its rounding error then grows with BLOCK + R/BLOCK, not with R (the
    reference sums pairwise; a million 0.1s summed in order are 1.0 off)."""
    acc_t = W.ty(plan.body.dtype)
    rsize = prod(kernel.reduce_shape)
    ident = em.operand(identity(kernel.reduce_op, plan.body.dtype), env)
    combined = E.binary(kernel.reduce_op, E.acc(plan.body.dtype), plan.body)
    blocked = step == "1i" and rsize > 2 * BLOCK and kernel.reduce_op == "add" and plan.body.dtype.kind == "f"
    into = f"blk{tag}" if blocked else f"acc{tag}"
    lines.append(f"var acc{tag}: {acc_t} = {ident};")
    if blocked:
        lines += [f"for (var rb{tag}: i32 = 0i; rb{tag} < {rsize}i; rb{tag} += {BLOCK}i) {{",
                  f"var blk{tag}: {acc_t} = {ident};",
                  f"for (var r{tag}: i32 = rb{tag}; r{tag} < min(rb{tag} + {BLOCK}i, {rsize}i); r{tag} += 1i) {{"]
    else:
        lines.append(f"for (var r{tag}: i32 = {start}; r{tag} < {rsize}i; r{tag} += {step}) {{")
    inner: list[str] = []
    env["lane"] = f"{tag}r"
    inner += _decompose(f"r{tag}", kernel.reduce_shape, "r", env)
    saved = dict(em.name)
    em.emit(plan.loop, env, inner, f"{tag}r")
    body_text = em.operand(plan.body, env)
    inner.append(f"{into} = {W.op_text(combined, [into, body_text])};")
    em.name = saved  # loop-local names do not leak
    lines += ["  " + s for s in inner] + ["}"]
    if blocked:
        lines += [f"acc{tag} = {W.op_text(combined, [f'acc{tag}', f'blk{tag}'])};", "}"]
    env["acc"] = f"acc{tag}"


def _finish(kernel: Kernel, em: Emitter, lines: list[str], wg: int, groups: int, body: list[str],
            extra_params: tuple = (), lanes: int = 0, dynamic: bool = False, min_bytes: tuple | None = None
            ) -> Shader:
    consts = ["  let opq: u32 = nwg.z >> 16u;  // 0: at most 65535 workgroups per dimension"]
    consts += [f"  let {name} = {text};" for name, text in em.consts.values()]
    # every binding used, so that the 'auto' layout keeps them all (loads may fold away)
    consts += [f"  _ = &{b};" for b in [f"out{k}" for k in range(len(kernel.outs))]
               + [f"in{i}" for i in range(len(kernel.in_dtypes))]]
    main = [f"@compute @workgroup_size({wg})",
            "fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32,",
            "        @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>"
            + "".join(f",\n        {p}" for p in extra_params) + ") {"]
    code = "\n".join(lines + main + consts + ["  " + s for s in body] + ["}", ""])
    return Shader(code, grid_for(groups), len(kernel.outs), len(kernel.in_dtypes),
                  tuple(kernel.size * d.itemsize for d in kernel.out_dtypes), lanes, dynamic, min_bytes)


def _build_elementwise(kernel: Kernel, plan: Plan, max_groups: int, dynamic: bool = False,
                       sized: bool = False) -> Shader:
    size = kernel.size
    # what every extent of a dynamic shader has in common: its size is a multiple of a row's
    whole = prod(kernel.shape[1:]) if dynamic else size
    quad = (kernel.reduce_op is None and all(d.itemsize == 4 for d in kernel.out_dtypes) and size >= 4
            and len(plan.pre) <= QUAD_MAX_NODES)
    lanes = 4 if quad else 4 // min(d.itemsize for d in kernel.out_dtypes)
    vec_all = _vec_inputs(kernel, plan, whole) if quad else frozenset()
    vec_in = frozenset(i for i in vec_all if kernel.in_dtypes[i].itemsize == 4)  # bound as vec4s
    vec_out = quad and whole % 4 == 0
    words = -(-size // lanes)
    em = Emitter({}, vec_all, plan.nested)
    groups = min(-(-words // WG), max_groups)
    hoisted: list[str] = []  # once per invocation, before its loop over outputs
    em.emit(plan.invariant, {}, hoisted, "h")
    invariant = dict(em.name)
    body = []
    for i in sorted(vec_all):
        n = kernel.in_dtypes[i].itemsize
        body += [f"let q{i} = in{i}[t];"] if n == 4 else [f"let q{i}_{j} = in{i}[t * {n}u + {j}u];" for j in range(n)]
    packed = {k: [f"w{k}_{j}" for j in range(lanes * d.itemsize // 4)]
              for k, d in enumerate(kernel.out_dtypes) if d.itemsize < 4}
    for k, ws in packed.items():
        body += [f"var {w}: u32 = 0u;" for w in ws]
    stored = {k: [] for k in range(len(kernel.outs))}
    for lane in range(lanes):
        env = {"lane": f"l{lane}", "lane_no": f"{lane}"}
        inner: list[str] = [f"let f_l{lane}: i32 = i32(t) * {lanes}i + {lane}i;"]
        inner += _decompose(f"f_l{lane}", kernel.shape or (1,), "g", env)
        em.name = dict(invariant)
        em.emit(plan.pre, env, inner, f"l{lane}")
        if kernel.reduce_op:
            _reduce_loop(kernel, plan, em, env, inner, f"l{lane}", "0i", "1i")
            em.emit(plan.post, env, inner, f"l{lane}p")
        late = []  # this lane's stores, after all its loads: an output may share an input's buffer
        for k, (o, dt) in enumerate(zip(plan.outs, kernel.out_dtypes)):
            bits = W.store_bits(em.operand(o, env), dt)
            if vec_out:
                inner.append(f"s{k}_{lane} = {bits};")
                stored[k].append(f"s{k}_{lane}")
            elif dt.itemsize == 4:
                inner.append(f"let o{k}_l{lane} = {bits};")
                late.append(f"out{k}[u32(f_l{lane})] = o{k}_l{lane};")
            else:
                per = 4 // dt.itemsize
                w = packed[k][lane // per]
                inner.append(f"{w} = {w} | ({bits} << {(lane % per) * 8 * dt.itemsize}u);")
        inner += late
        guard = whole % lanes != 0 and lane > 0
        bound = "i32(dims.y)" if dynamic else f"{size}i"
        body += ([f"if (i32(t) * {lanes}i + {lane}i < {bound}) {{"] + ["  " + s for s in inner] + ["}"]
                 if guard else ["{"] + ["  " + s for s in inner] + ["}"])
    if vec_out:  # the lanes' words, declared before the lanes' blocks, stored as one vec4 each
        body = [f"var {v}: u32;" for vs in stored.values() for v in vs] + body
        body += [f"out{k}[t] = vec4<u32>({', '.join(vs)});" for k, vs in stored.items()]
    for k, ws in packed.items():
        for j, w in enumerate(ws):
            body.append(f"out{k}[t * {len(ws)}u + {j}u] = {w};")
    end, stride = ("dims.x", f"nwg.x * nwg.y * {WG}u") if dynamic else (f"{words}u", f"{groups * WG}u")
    loop = [f"for (var t: u32 = gid.x + gid.y * nwg.x * {WG}u; t < {end}; t += {stride}) {{"]
    counts = None
    if sized:  # outputs: the words the invocations store (vec4s, or whole u32 words)
        out_elems = [words if vec_out else words * lanes * d.itemsize // 4 for d in kernel.out_dtypes]
        counts = _counts(kernel, plan, vec_in, out_elems, words)
    return _finish(kernel, em, _header(kernel, vec_in, vec_out, dynamic, counts), WG, groups,
                   hoisted + loop + ["  " + s for s in body] + ["}"], lanes=lanes, dynamic=dynamic,
                   min_bytes=_min_bytes(kernel, vec_in, vec_out, counts))


def _min_bytes(kernel: Kernel, vec_in: frozenset, vec_out: bool, counts: tuple | None) -> tuple | None:
    """Bytes each binding of a sized shader must hold (0 for a runtime-sized one)."""
    if counts is None:
        return None
    n_out = len(kernel.outs)
    return tuple(0 if c is None else c * (16 if (b < n_out and vec_out) or (b - n_out) in vec_in else 4)
                 for b, c in enumerate(counts))


def _build_tree(kernel: Kernel, plan: Plan, subgroups: str | None = None, dynamic: bool = False,
                sized: bool = False, wg: int = TREE_WG) -> Shader:
    """One workgroup (of `wg` invocations) per output: its invocations reduce strided parts of
    the axis, then combine them by a tree in workgroup memory (log2 wg barriers) — or, for sums
    on an adapter with subgroups, by `subgroupAdd` and one barrier between the subgroups."""
    acc_t = W.ty(plan.body.dtype)
    em = Emitter({}, nested=plan.nested)
    counts = _counts(kernel, plan, frozenset(), [kernel.size] * len(kernel.outs), 0) if sized else None
    lines = _header(kernel, dynamic=dynamic, counts=counts) + [f"var<workgroup> part: array<{acc_t}, {wg}>;", ""]
    if subgroups:
        lines.insert(0, subgroups)
    env = {"lane": "o"}
    body = ["let o: u32 = wid.x + wid.y * nwg.x;", f"if (o >= {'dims.y' if dynamic else f'{kernel.size}u'}) {{ return; }}",
            "let f_o: i32 = i32(o);"]
    body += _decompose("f_o", kernel.shape or (1,), "g", env)
    em.emit(plan.pre, env, body, "o")
    _reduce_loop(kernel, plan, em, env, body, "t", "i32(lid)", f"{wg}i")
    combine = E.binary(kernel.reduce_op, E.acc(plan.body.dtype), plan.body)
    if subgroups is not None:  # subgroup sizes are powers of two (4..128): ceil(wg / size) partials
        body += ["let sg_total = subgroupAdd(acct);",
                 "if (sg_lane == 0u) { part[lid / sg_size] = sg_total; }",
                 "workgroupBarrier();", "if (lid == 0u) {", "  var total = part[0];",
                 f"  for (var i = 1u; i * sg_size < {wg}u; i++) {{",
                 f"    total = {W.op_text(combine, ['total', 'part[i]'])};", "  }"]
    else:
        body.append("part[lid] = acct;")
        step = wg // 2
        while step >= 1:
            body += ["workgroupBarrier();", f"if (lid < {step}u) {{",
                     f"  part[lid] = {W.op_text(combine, ['part[lid]', f'part[lid + {step}u]'])};", "}"]
            step //= 2
        body += ["workgroupBarrier();", "if (lid == 0u) {", "  let total = part[0];"]
    env["acc"] = "total"
    post: list[str] = []
    em.emit(plan.post, env, post, "p")
    for k, (o, dt) in enumerate(zip(plan.outs, kernel.out_dtypes)):
        post.append(f"out{k}[o] = {W.store_bits(em.operand(o, env), dt)};")
    body += ["  " + s for s in post] + ["}"]
    extra = (("@builtin(subgroup_invocation_id) sg_lane: u32", "@builtin(subgroup_size) sg_size: u32")
             if subgroups is not None else ())
    return _finish(kernel, em, lines, wg, kernel.size, body, extra, dynamic=dynamic,
                   min_bytes=_min_bytes(kernel, frozenset(), False, counts))
