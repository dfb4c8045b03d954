"""Matrix multiplies on a backend's GEMM routine: recognizing them and staging operands.

A fused kernel `C[b, i, j] = epilogue(sum_k A(b, i, k) * B(b, k, j), ...)` (float32
accumulation, one reduction index) runs as up to four launches when the backend
declares a GEMM routine (`Capabilities.gemm`):

1. stage A: when A is not a plain strided read (a fused producer, a constant, a
   gather), an ordinary kernel computes it into a contiguous (B, M, K) buffer;
2. pack B: an ordinary kernel copies B (any expression) into strips of `nr` columns,
   each K x nr contiguous, zero past N (`pack_kernel`) — unless B is small, read in
   place, and N a multiple of `nr`;
   where the backend says so (`GemmCaps.prologue`), the routine instead computes such an
   operand as it loads its tiles (`GemmSpec.a_expr` / `b_expr`) when it is elementwise and
   short (`prologue`: relu(h + b), a mask, a transposed weight): a launch and a round trip
   through memory fewer for each (what an MLP step's host time pays per launch, issue 22);
3. the routine: the backend's tiled compute program (`Routine("gemm_f32", spec)`),
   C computed `N8 = ceil(N / nr) * nr` wide;
4. epilogue: when the kernel has one (bias, activation, a cast), or C was computed
   wider than N, an ordinary kernel reads C as the accumulator and writes the output —
   or, where the backend says so (`GemmCaps.epilogue`) and the outputs are float32 arrays (no
   more than `GemmCaps.epilogue_outs`), the routine applies it as it stores (`GemmSpec.epilogue`).

A backend may shape each product for its device (`GemmCaps.plan`): the strip width `nr`
(which picks its tile) and a split of K. A product whose C has too few tiles to fill a GPU
(an MLP's weight gradients: 256 x 128 outputs summed over a batch of 1000) is then run as
`splits` products over consecutive K ranges of `kc`, each writing its partial C, and the
epilogue kernel becomes a reduction over the splits (`_epilogue_kernel`). The summation
order changes there: each split adds its K range in order, then the partials are added
in split order (not one running sum over K).

So `relu(x @ W + b)` is one fused kernel of the schedule, and `ones((n, n)) @ x` gets
the fast routine too (its constant operand is staged). Only the routine is backend
code; everything here is IR. Kernels that do not have this shape stay as they are.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence

from .. import dtypes
from . import expr as E
from . import gemm_index as GI
from .kernel import Kernel, Routine, gidx, ridx

F32 = dtypes.float32
#: products of several batch dims, of dims the factors read as g // c and g % c (attention's
#: heads), or whose factor has reductions of its own (a layer norm's statistics, staged with it),
#: on the routine; False keeps them generic reductions as before (benchmarks compare); None: as
#: the environment says (JAXWEB_GEMM_BATCHED=0: off; like JAXWEB_GEMM_PLAN, it reaches Pyodide)
BATCHED: bool | None = None


def batched() -> bool:
    """Whether the rules BATCHED names apply now."""
    return BATCHED if BATCHED is not None else os.environ.get("JAXWEB_GEMM_BATCHED", "1") != "0"


@dataclass(frozen=True)
class GemmCaps:
    """A backend's GEMM routine: strip width, the smallest dims worth it — or, for a thin
    product (a dim under `min_dim` but none under `thin_dim`), the multiply-adds that pay
    for its staging kernels —, the size of B below which an unpacked B is read in place,
    and whether it has the conv routine."""

    nr: int = 8
    min_dim: int = 16
    thin_dim: int = 16
    thin_work: int = 0
    pack_min_bytes: int = 1 << 20
    conv: bool = False  # a direct (implicit-GEMM) stride-1 conv routine too: conv.py
    epilogue: bool = False  # the routine applies a float32 epilogue itself (GemmSpec.epilogue)
    epilogue_outs: int = 1  # ... of up to this many outputs (an Adam step fused after a weight gradient: 3)
    #: the routine computes an operand that is not a plain read (a fused producer: relu(h + b),
    #: a transposed or strided weight) as it loads its tiles (GemmSpec.a_expr / b_expr), where
    #: the expression is elementwise and small (`prologue`), instead of a stage or pack kernel
    prologue: bool = False
    max_buffers: int | None = None  # buffers a routine may bind (C, A, B and the epilogue's inputs)
    #: (the product as it would run: a GemmSpec with strip width `nr`, no split; the passes its
    #: routine needs after it unsplit: 0 where it writes the outputs itself, else 1 — so a split's
    #: partial-sums pass is a launch more only where this is 0) -> (nr, splits): the strip width
    #: and the number of K splits the backend wants for it (it may time the candidates on its
    #: device), or None: `nr` and no split for every product
    plan: Callable[["GemmSpec", int], tuple[int, int]] | None = None
    #: a split product's partial sums added by the kernels reading its output, instead of by a
    #: pass of their own, where that re-reads at most this many more bytes (`fold.py`; 0: never)
    fold_bytes: int = 0


@dataclass(frozen=True)
class GemmSpec:
    """C[b, i, j] = sum_k A[a_off + b a_sb + i a_si + k a_sk] * B'(b, k, j), C rows N8 apart.

    B' is the packed strips (`packed`) or B itself at b_off + b b_sb + k b_sk + j. With `bi` > 1
    the batch index is a pair (b // bi, b % bi) — attention's (batch, head), whose strides in a
    (b, t, 3 h d) projection do not flatten to one — and `b a_sb` reads (b // bi) a_sbo +
    (b % bi) a_sb (B in place likewise; a staged A and a packed B are contiguous over b)."""

    M: int
    N: int
    K: int
    a_off: int
    a_si: int
    a_sk: int
    b_off: int = 0
    b_sk: int = 0
    B: int = 1
    a_sb: int = 0
    b_sb: int = 0
    packed: bool = True
    nr: int = 8
    #: the matmul kernel's own output, computed by the routine as it stores C (then N wide,
    #: not N8): a Kernel over (B?, M, N) of the accumulator E.acc and loads of the routine's
    #: inputs after A and B (slots 0..), or None (C is stored as accumulated)
    epilogue: Any = None
    #: K cut into `splits` ranges of `kc` (the last one shorter): the routine writes C as
    #: (splits, B, M, N8) partial sums, the split a multiple of B in the batch index
    splits: int = 1
    kc: int = 0
    bi: int = 1
    a_sbo: int = 0
    b_sbo: int = 0
    #: A (B) computed as the routine loads its tiles: a Kernel over (B?, M, K) ((B?, K, N)) of
    #: loads of the routine's inputs after its buffer operands (slots 0..: the same numbering as
    #: the epilogue's, which follows them), or None: A (B) is a buffer read at the strides above
    a_expr: Any = None
    b_expr: Any = None

    @property
    def extra_dtypes(self) -> tuple:
        """The dtypes of the routine's inputs after A and B (those bound): each of a_expr,
        b_expr and epilogue reads a prefix of them (each built after the one before it)."""
        return max((k.in_dtypes for k in (self.a_expr, self.b_expr, self.epilogue) if k is not None),
                   key=len, default=())

    @property
    def a_span(self) -> int:
        """Elements from A's start to one past the last one the routine reads."""
        return self.a_off + self._last_batch(self.a_sb, self.a_sbo) + (self.M - 1) * self.a_si + (
            self.K - 1) * self.a_sk + 1

    @property
    def b_span(self) -> int:
        """Elements of B the routine reads (its packed strips, or B in place from its start)."""
        if self.packed:
            return self.B * self.K * self.N8
        return self.b_off + self._last_batch(self.b_sb, self.b_sbo) + (self.K - 1) * self.b_sk + self.N8

    def _last_batch(self, sb: int, sbo: int) -> int:
        """The offset of the last batch's operand, at batch strides `sb` (inner) and `sbo` (outer)."""
        return (self.B // self.bi - 1) * sbo + (self.bi - 1) * sb if self.bi > 1 else (self.B - 1) * sb

    @property
    def N8(self) -> int:
        return -(-self.N // self.nr) * self.nr

    @property
    def flops(self) -> int:
        return 2 * self.B * self.M * self.N * self.K


class Temp:
    """A schedule-internal buffer (staged operands, a wide C)."""

    __slots__ = ("size", "dtype")

    def __init__(self, size: int, dtype: Any):
        self.size, self.dtype = size, dtype

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize


def affine(e: E.Expr) -> dict | None:
    """{index name: coefficient, "": constant} if e is affine in the loop indices."""
    if e.op == "idx":
        return {e.arg[0]: 1}
    if e.op == "const":
        return {"": int(e.arg)} if isinstance(e.arg, int) and not isinstance(e.arg, bool) else None
    if e.op in ("add", "sub"):
        a, b = affine(e.src[0]), affine(e.src[1])
        if a is None or b is None:
            return None
        out = dict(a)
        for k, v in b.items():
            out[k] = out.get(k, 0) + (v if e.op == "add" else -v)
        return out
    if e.op == "mul":
        x, y = e.src
        if y.op == "const":
            x, y = y, x
        if x.op != "const":
            return None
        c, rest = affine(x), affine(y)
        if c is None or rest is None:
            return None
        return {k: v * c[""] for k, v in rest.items()}
    return None


def _names(e: E.Expr) -> set[str]:
    return {n.arg[0] for n in E.walk(e) if n.op == "idx"}


def _plain_load(e: E.Expr, allowed: set[str]) -> dict | None:
    """The affine index of `e` if it is one unmasked load indexed only by `allowed`."""
    if e.op != "load" or len(e.src) != 1 or e.dtype is not F32:
        return None
    c = affine(e.src[0])
    return c if c is not None and not set(c) - allowed - {""} else None


@dataclass
class _Match:
    spec: GemmSpec
    a: E.Expr          # the A factor, over the product's dims (gemm_index.Space) and r0
    b: E.Expr          # the B factor, likewise
    a_inplace: bool
    space: GI.Space
    groups: GI.Groups


def match(kernel: Kernel, caps: GemmCaps) -> _Match | None:
    """The GEMM description of `kernel`, or None."""
    if (kernel.reduce_op != "add" or len(kernel.shape) < 2 or len(kernel.reduce_shape) != 1
            or kernel.body.dtype is not F32 or kernel.body.op != "mul"):
        return None
    if any(e.op == "reduce" for e in E.walk_all(kernel.outs + (() if batched() else (kernel.body,)))):
        return None  # (a factor's own reductions — a layer norm's statistics — are staged with it)
    sp = GI.space(kernel)
    if sp.body.op != "mul" or not batched() and (
            len(kernel.shape) > 3 or len(sp.order) > sum(n > 1 for n in kernel.shape)):
        return None
    found = [(a, b, gr) for a, b in (sp.body.src, sp.body.src[::-1])
             if (gr := GI.groups(sp, _names(a) - {"r0"}, _names(b) - {"r0"})) is not None]
    if not found:
        return None
    a, b, gr = next((f for f in found if f[2].direct), found[0])  # C as the output's layout if it can be
    nb, M, N = (GI.size(d, sp.ext) for d in (gr.batch, gr.rows, gr.cols))
    K = kernel.reduce_shape[0]
    if min(M, N, K) < caps.min_dim and (min(M, N, K) < caps.thin_dim or nb * M * N * K < caps.thin_work):
        return None
    dims = set(sp.order) | {"r0"}
    ca, cb = _plain_load(a, dims), _plain_load(b, dims)
    views = [(_a_view(ca, gr, sp.ext, cut), _b_view(cb, gr, sp.ext, cut), cut) for cut in range(len(gr.batch) or 1)]
    av, bv, cut = max(views, key=lambda v: (v[0] is not None, v[1] is not None, -v[2]))  # in place, then fewer levels
    bi = GI.size(gr.batch[cut:], sp.ext) if cut else 1
    spec = _layout(nb, M, N, K, caps.nr, 1, av, bv, caps, bi)
    if caps.plan is not None:  # the backend shapes it for its device, seeing its real layout
        after = 0 if _stored(kernel, gr, caps, spec) else 1
        spec = _layout(nb, M, N, K, *caps.plan(spec, after), av, bv, caps, bi)
    return _Match(spec, a, b, av is not None, sp, gr)


def _batch_strides(c: dict, batch: list, ext: dict, cut: int) -> tuple | None:
    """(inner, outer) batch strides of the affine index `c` with the batch dims flattened in
    two at `cut` (0: in one; outer 0), or None where they do not flatten so."""
    if not cut:
        sb = GI.collapse(c, batch, ext)
        return None if sb is None else (sb, 0)
    sb, sbo = GI.collapse(c, batch[cut:], ext), GI.collapse(c, batch[:cut], ext)
    return None if sb is None or sbo is None or min(sb, sbo) < 0 else (sb, sbo)


def _a_view(c: dict | None, gr: GI.Groups, ext: dict, cut: int) -> tuple | None:
    """(a_off, a_si, a_sk, a_sb, a_sbo) of A read in place at the affine index `c`, or None
    where its rows or batch dims do not flatten (`_batch_strides`), or a stride is not positive."""
    if c is None:
        return None
    si, sb = GI.collapse(c, gr.rows, ext), _batch_strides(c, gr.batch, ext, cut)
    if si is None or sb is None or si <= 0 or c.get("r0", 0) <= 0 or min(c.get("", 0), sb[0]) < 0:
        return None
    return (c.get("", 0), si, c["r0"]) + sb


def _b_view(c: dict | None, gr: GI.Groups, ext: dict, cut: int) -> tuple | None:
    """(b_off, b_sk, b_sb, b_sbo) of B read in place (columns one apart), or None."""
    if c is None or GI.collapse(c, gr.cols, ext) != 1:
        return None
    sb = _batch_strides(c, gr.batch, ext, cut)
    if sb is None or c.get("r0", 0) <= 0 or min(c.get("", 0), sb[0]) < 0:
        return None
    return (c.get("", 0), c["r0"]) + sb


def _layout(nb: int, M: int, N: int, K: int, nr: int, splits: int, av: tuple | None, bv: tuple | None,
            caps: GemmCaps, bi: int = 1) -> GemmSpec:
    """The spec of a product with strip width `nr` and K in about `splits` ranges: A read in
    place at `av` (`_a_view`; None: staged contiguous), B in place at `bv` where it is small,
    a plain strided read and N a multiple of `nr` (else packed); batches in pairs (b // bi,
    b % bi) where bi > 1."""
    spec = dict(M=M, N=N, K=K, B=nb, nr=nr, bi=bi, **split_k(K, splits))
    if av is not None:
        a_off, a_si, a_sk, a_sb, a_sbo = av
        spec.update(a_off=a_off, a_si=a_si, a_sk=a_sk, a_sb=a_sb if nb > 1 else 0, a_sbo=a_sbo)
    else:
        spec.update(a_off=0, a_si=K, a_sk=1, a_sb=M * K, a_sbo=bi * M * K if bi > 1 else 0)
    if bv is not None and K * N * 4 < caps.pack_min_bytes and N % nr == 0:
        spec.update(packed=False, b_off=bv[0], b_sk=bv[1], b_sb=bv[2] if nb > 1 else 0, b_sbo=bv[3])
    elif bi > 1:  # packed strips (K, N8 of them per batch), contiguous over b
        per_batch = K * -(-N // nr) * nr
        spec.update(b_sbo=bi * per_batch, b_sb=per_batch)
    return GemmSpec(**spec)


SPLIT_ALIGN = 32  # a K range's length is a multiple of this (a tile's depth divides it)


def split_k(K: int, splits: int, align: int = SPLIT_ALIGN) -> dict:
    """GemmSpec's `splits` and `kc` for about `splits` ranges of K, each a multiple of `align`
    long (a tile's depth divides it, so no tile straddles two ranges). `kc` is `split_kc` of
    the count it makes, so that a routine knowing only the count (its grid) finds the same ranges."""
    if splits <= 1:
        return {}
    n = -(-K // split_kc(K, splits, align))  # the ranges of ceil(K / splits), rounded up
    return dict(splits=n, kc=split_kc(K, n, align)) if n > 1 else {}


def split_kc(K: int, n: int, align: int = SPLIT_ALIGN) -> int:
    """The length of each of `n` K ranges: ceil(K / n) rounded up to `align`. It makes exactly n
    ranges whenever some multiple of `align` does (those of split_k): it is the shortest such length."""
    return -(-(-(-K // n)) // align) * align


def remap_loads(e: E.Expr, slots: dict[int, int], subst: dict[int, E.Expr] | None = None) -> E.Expr:
    """`e` with load slots renumbered per `slots` and nodes replaced per `subst` (by id)."""
    memo: dict[int, E.Expr] = {}
    subst = subst or {}
    for n in E.walk(e):
        if id(n) in subst:
            memo[id(n)] = subst[id(n)]
        elif not n.src:
            memo[id(n)] = n
        else:
            srcs = tuple(memo[id(s)] for s in n.src)
            if n.op == "load":
                memo[id(n)] = E.load(slots[n.arg], n.dtype, srcs[0], srcs[1] if len(srcs) > 1 else None)
            else:
                memo[id(n)] = E.rebuild(n, srcs)
    return memo[id(e)]


def _sub_kernel(shape: tuple, expr: E.Expr, rename: dict[str, E.Expr], ins: Sequence[Any],
                extra: Sequence[Any] = (), name: str = "kernel") -> tuple[Kernel, list]:
    """A kernel over `shape` computing `expr` with its indices renamed (`rename`: old index
    name -> new expression) reading only the inputs it uses (after `extra`, slots 0..)."""
    used = sorted({n.arg for n in E.walk(expr) if n.op == "load"})
    slots = {s: len(extra) + i for i, s in enumerate(used)}
    subst = {id(n): rename[n.arg[0]] for n in E.walk(expr) if n.op == "idx" and n.arg[0] in rename}
    body = remap_loads(expr, slots, subst)
    inputs = list(extra) + [ins[s] for s in used]
    in_dtypes = tuple(v.dtype for v in inputs)
    return Kernel(shape, body, None, in_dtypes, name=name), inputs


def expand(kernel: Kernel, ins: Sequence[Any], outs: Sequence[Any], caps: GemmCaps) -> list | None:
    """The launches running `kernel` (inputs `ins`, outputs `outs`: schedule values) on the
    GEMM routine, as (program, outs, ins) triples, or None if it is not a GEMM."""
    m = match(kernel, caps)
    if m is None:
        return None
    spec, sp, gr = m.spec, m.space, m.groups
    launches = []
    nb = spec.B
    lead = (nb,) if nb > 1 else ()
    stage_a = None
    if not m.a_inplace:
        g = gidx(lead + (spec.M, spec.K))
        rename = {**GI.unflatten(g[0], gr.batch, sp.ext), **GI.unflatten(g[-2], gr.rows, sp.ext), "r0": g[-1]}
        stage_a = _sub_kernel(lead + (spec.M, spec.K), m.a, rename, ins, name=f"{kernel.name}_stage_a")
    # the operands the routine computes as it loads them (GemmCaps.prologue), their inputs bound
    # after A and B in one numbering with the epilogue's; staged or packed where they do not fit
    extras: list = []
    if caps.prologue and stage_a is not None and prologue(stage_a[0]):
        spec, extras = replace(spec, a_expr=stage_a[0]), stage_a[1]
    if caps.prologue and spec.packed:
        k, k_ins = _b_prologue(spec, m, ins, extras, kernel.name)
        if prologue(k):
            spec, extras = replace(spec, b_expr=k, packed=False), k_ins
    bound = (spec.a_expr is None) + (spec.b_expr is None)
    if caps.max_buffers is not None and 1 + bound + len(extras) > caps.max_buffers:
        spec, extras = replace(spec, a_expr=None, b_expr=None, packed=m.spec.packed), []
    if spec.a_expr is not None:
        a_val = None
    elif m.a_inplace:
        a_val = ins[m.a.arg]
    else:
        a_val = Temp(stage_a[0].size, F32)
        launches.append((stage_a[0], [a_val], stage_a[1]))
    if spec.b_expr is not None:
        b_val = None
    elif spec.packed:
        k, k_ins = pack_kernel(spec, m.b, (gr.batch, gr.cols, sp.ext), ins, kernel.name)
        b_val = Temp(k.size, F32)
        launches.append((k, [b_val], k_ins))
    else:
        b_val = ins[m.b.arg]
    operands = [v for v in (a_val, b_val) if v is not None]
    stored = _stored(kernel, gr, caps, spec) if spec.splits == 1 else None
    direct, fuse = stored == "direct", stored == "fuse"
    epi, epi_ins = _epilogue_kernel(kernel, ins, out_space=(lead + (spec.M, spec.N), m), extra=extras) \
        if fuse else (None, extras)
    n = len(kernel.outs)
    if epi is not None and (caps.max_buffers is None or n + len(operands) + len(epi_ins) <= caps.max_buffers):
        spec = replace(spec, epilogue=epi)
        launches.append((Routine("gemm_f32", spec, tuple(v.dtype for v in operands + epi_ins), (F32,) * n,
                                 nb * spec.M * spec.N, f"{kernel.name}_gemm"), list(outs), operands + epi_ins))
        return launches
    c_val = outs[0] if direct else Temp(spec.splits * nb * spec.M * spec.N8, F32)
    launches.append((Routine("gemm_f32", spec, tuple(v.dtype for v in operands + extras), (F32,),
                             nb * spec.M * spec.N, f"{kernel.name}_gemm"), [c_val], operands + extras))
    if not direct:  # C (B, M, N8) read back at the output's position (its dims of the kernel's g's)
        flat = [GI.flatten(d, sp.ext, sp.virt) for d in (gr.batch, gr.rows, gr.cols)]
        index = (flat[0] * spec.M + flat[1]) * spec.N8 + flat[2]
        if spec.splits > 1:  # partial C's (splits, B, M, N8): the epilogue adds them up first
            index = ridx((spec.splits,))[0] * (nb * spec.M * spec.N8) + index
        launches.append(epilogue(kernel, c_val, index, ins, outs, spec.splits))
    return launches


def _stored(kernel: Kernel, gr: GI.Groups, caps: GemmCaps, spec: GemmSpec) -> str | None:
    """How the routine, K not split, leaves `kernel`'s outputs: "direct" (C is the one output,
    laid out as it), "fuse" (the routine applies the outputs' expressions as it stores C), or
    None (an epilogue kernel reads C back after it)."""
    if not gr.direct:
        return None
    if len(kernel.outs) == 1 and kernel.outs[0] is E.acc(F32) and spec.N8 == spec.N:
        return "direct"
    if caps.epilogue and len(kernel.outs) <= caps.epilogue_outs and all(d is F32 for d in kernel.out_dtypes):
        return "fuse"
    return None


#: the most expression nodes (loads included) an operand the routine computes as it loads may
#: have: each element is computed once per tile of the other operand's dim (a few times), so a
#: cheap producer (a bias and activation, a mask) costs less than a kernel writing it out and
#: the routine reading it back, while a long one (a layer norm's, with its reductions) is staged
PROLOGUE_NODES = 40


def prologue(k: Kernel) -> bool:
    """Whether the routine may compute operand kernel `k` as it loads its tiles: elementwise
    (no reduction inside), at most PROLOGUE_NODES nodes, a float32 value."""
    nodes = list(E.walk(k.body))
    return len(nodes) <= PROLOGUE_NODES and k.body.dtype is F32 and not any(n.op == "reduce" for n in nodes)


def _b_prologue(spec: GemmSpec, m: _Match, ins: Sequence[Any], extra: list, name: str) -> tuple[Kernel, list]:
    """B as a kernel over (B?, K, N) reading its inputs after `extra` (the A prologue's)."""
    sp, gr = m.space, m.groups
    shape = ((spec.B,) if spec.B > 1 else ()) + (spec.K, spec.N)
    g = gidx(shape)
    rename = {"r0": g[-2], **GI.unflatten(g[-1], gr.cols, sp.ext), **GI.unflatten(g[0], gr.batch, sp.ext)}
    return _sub_kernel(shape, m.b, rename, ins, extra, name=f"{name}_b")


def contiguous_dim(k: Kernel) -> int:
    """Which of an operand kernel's last two dims its first load reads one element apart (-1 or
    -2; -1 where neither): the order a routine loading its tiles should walk them in."""
    for n in E.walk(k.body):
        if n.op == "load":
            c = affine(n.src[0]) or {}
            return -2 if c.get(f"g{len(k.shape) - 2}") == 1 and c.get(f"g{len(k.shape) - 1}") != 1 else -1
    return -1


def _epilogue_kernel(kernel: Kernel, ins: Sequence[Any], c_val: Any = None,
                     index: E.Expr | None = None, splits: int = 1,
                     out_space: tuple | None = None, extra: Sequence[Any] = ()) -> tuple[Kernel, list]:
    """`kernel`'s outputs as a kernel of the inputs they read (renumbered from 0, after `extra`:
    the routine's prologues' inputs) and of the accumulator — for a routine that applies them
    as it stores, over its (B?, M, N) with the kernel's indices renamed into it (`out_space`:
    that shape and the `_Match`) —, or, given C (`c_val`), of C first, read at `index` for the
    accumulator — or, over `splits` partial C's, the sum of C at `index` over the reduction
    index r0: (that kernel, its inputs)."""
    used = sorted({n.arg for o in kernel.outs for n in E.walk(o) if n.op == "load"})
    first = list(extra) if c_val is None else [c_val]
    slots = {s: len(first) + i for i, s in enumerate(used)}
    split = splits > 1
    subst = {} if c_val is None or split else {id(E.acc(F32)): E.load(0, F32, index)}
    shape = kernel.shape
    if out_space is not None:
        shape, m = out_space
        g, sp, gr = gidx(shape), m.space, m.groups
        at = {**GI.unflatten(g[0], gr.batch, sp.ext), **GI.unflatten(g[-2], gr.rows, sp.ext),
              **GI.unflatten(g[-1], gr.cols, sp.ext)}
        subst.update({id(n): GI.rename(sp.orig[n.arg[0]], at) for n in E.walk_all(kernel.outs)
                      if n.op == "idx" and n.arg[0] in sp.orig})
    stored = tuple(remap_loads(o, slots, subst) for o in kernel.outs)
    k_ins = first + [ins[s] for s in used]
    reduce = dict(body=E.load(0, F32, index), reduce_shape=(splits,), reduce_op="add") if split else dict(body=None)
    return Kernel(shape, out_dtype=None, in_dtypes=tuple(v.dtype for v in k_ins),
                  name=f"{kernel.name}_{'split_sum' if split else 'epilogue'}", outs=stored, **reduce), k_ins


def epilogue(kernel: Kernel, c_val: Any, index: E.Expr, ins: Sequence[Any], outs: Sequence[Any],
             splits: int = 1) -> tuple:
    """The launch computing `kernel`'s outputs from its accumulator, read from C at `index`
    (summed over `splits` partial C's, the reduction index r0 in `index`)."""
    k, k_ins = _epilogue_kernel(kernel, ins, c_val, index, splits)
    return k, list(outs), k_ins


def pack_kernel(spec: GemmSpec, b: E.Expr, names: tuple, ins: Sequence[Any], name: str) -> tuple[Kernel, list]:
    """B'[(b,) strip, k, l] = B(b, k, nr strip + l): strips of nr columns, zero past N
    (`names`: B's batch dims, its column dims and their extents, gemm_index)."""
    nr = spec.nr
    shape = ((spec.B,) if spec.B > 1 else ()) + (spec.N8 // nr, spec.K, nr)
    g = gidx(shape)
    strip, k, lane = g[-3:]
    j = strip * nr + lane
    batch, cols, ext = names
    i32 = j.dtype
    jc = j if spec.N8 == spec.N else E.binary("min", j, E.const(spec.N - 1, i32))
    rename = {"r0": k, **GI.unflatten(jc, cols, ext), **GI.unflatten(g[0], batch, ext)}
    kern, k_ins = _sub_kernel(shape, b, rename, ins, name=f"{name}_pack_b")
    if spec.N8 != spec.N:  # the index clamped too, so that no lane reads past B
        body = E.where(E.binary("lt", j, E.const(spec.N, i32)), kern.body, E.const(0.0, F32))
        kern = Kernel(shape, body, None, kern.in_dtypes, name=kern.name)
    return kern, k_ins
