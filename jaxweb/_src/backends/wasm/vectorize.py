"""Which loop of a kernel to vectorize, and the vector loops themselves.

Modes (see codegen.Builder): "elementwise" vectorizes the innermost output index;
"inner" vectorizes the innermost reduction index (row reductions: sums, softmax
denominators) with U=4 independent accumulators; "outer" vectorizes the innermost
output index of a reduction, running the reduction loops inside a block of U=4
vectors (16 outputs) - the matmul / column-reduction shape, where the reduced
operand is contiguous along the outputs. When the next output index has >= 4
rows, "outer" also blocks P=4 rows x U=2 vectors (8 accumulators: each reduced
vector loaded once feeds 4 rows) and tiles the columns in panels sized so the
reduced operand's panel stays in L2 (`PANEL_BYTES`). `f32x4.relaxed_madd` fuses
the multiply-add of `sum(a*b)` bodies when the engine validates relaxed SIMD.
Each vector loop is followed by a U=1 vector loop and the scalar remainder.
"""
from __future__ import annotations

from ...compiler import expr as E
from ...compiler.kernel import identity
from .simd import NATIVE, SPLAT, VCOMBINE, WORD, VecEmitter, coef, depends, hreduce, lane_ok, vclass
from .types import vt


def choose_mode(b) -> str | None:
    plan, k = b.plan, b.kernel
    if any(dt.name not in WORD for dt in k.out_dtypes):
        return None
    if not k.reduce_op:
        v = b.idx_nodes.get(f"g{b.G - 1}")
        if plan.gshape[-1] >= 4 and v is not None:
            dep = depends(plan.values, {id(v)})
            if not _nested_in(plan, dep) and all(_worth(val, v, dep) for val in plan.values):
                return "elementwise"
        return None
    acc_dt = plan.acc.dtype
    if acc_dt.name not in WORD or (k.reduce_op, vclass(acc_dt)) not in VCOMBINE:
        return None
    if b.R and plan.rshape[-1] >= 4:
        v = b.idx_nodes.get(f"r{b.R - 1}")
        if v is not None:
            dep = depends([plan.body], {id(v)})
            if _loads_contiguous(plan.body, v, dep) and _worth(plan.body, v, dep) and not _nested_in(plan, dep):
                return "inner"
    v = b.idx_nodes.get(f"g{b.G - 1}")
    if v is not None and plan.gshape[-1] >= 4 and b.R:
        roots = [plan.body] + list(plan.values)
        dep = depends(roots, {id(v)})
        if _loads_contiguous(plan.body, v, dep) and id(plan.body) in dep and not _nested_in(plan, dep):
            return "outer"
    return None


def row_blockable(b) -> bool:
    """Row blocking re-evaluates values depending on the row index at w + rho in scalar
    code inside the vector loop; that code has no nested reductions, so a kernel whose
    nested reduction depends on the row (a row max of a causal mask) is not row-blocked."""
    plan = b.plan
    if not plan.nested:
        return True
    w = b.idx_nodes[f"g{b.G - 2}"]
    return not _nested_in(plan, depends([plan.body, plan.combined] + list(plan.values), {id(w)}))


def _nested_in(plan, dep: set) -> bool:
    """Whether a nested reduction would run inside the vector loop (it has no vector form)."""
    return plan.nested and any(n.op == "reduce" and id(n) in dep for n in plan.order)


def _loads_contiguous(root: E.Expr, v: E.Expr, dep: set) -> bool:
    for n in E.walk(root):
        if n.op == "load" and id(n) in dep:
            if n.dtype.name not in WORD or vt(n.src[0].dtype) != "i32" or coef(n.src[0], v, dep) != 1:
                return False
            if len(n.src) > 1 and id(n.src[1]) in dep:
                return False
    return True


LANEWISE_LIMIT = 24  # v-dependent nodes without 32-bit lanes (f64 math): beyond, stay scalar


def _worth(root: E.Expr, v: E.Expr, dep: set) -> bool:
    """Vectorize only if the top op has a native vector form and not much of the
    work would run lane by lane anyway (f64-computed math functions): there the
    vector loop only quadruples code size and compile time."""
    if id(root) not in dep or not lane_ok(root.dtype):
        return False
    if sum(1 for n in E.walk(root) if id(n) in dep and not lane_ok(n.dtype)) > LANEWISE_LIMIT:
        return False
    if root.op in ("load", "where", "idx"):
        return True
    if root.op in ("cast", "bitcast"):
        return {root.src[0].dtype.name, root.dtype.name} <= set(WORD) | {"bool"}
    cls = vclass(root.src[0].dtype) if root.op in E.COMPARISONS else vclass(root.dtype)
    return (root.op, cls) in NATIVE


def _vector_loop(f, var: int, hi, step: int, body) -> None:
    """while var + step <= hi: body; var += step."""
    f.block()
    f.loop()
    f.get(var).i32(step).emit("i32.add")
    hi()
    f.emit("i32.gt_s").br_if(1)
    body()
    f.get(var).i32(step).emit("i32.add").set(var)
    f.br(0)
    f.end()
    f.end()


def _combine(b, ve: VecEmitter, vacc: int, u: int) -> None:
    f, plan, op = b.f, b.plan, b.kernel.reduce_op
    body, dt = plan.body, plan.acc.dtype
    if (op == "add" and body.op == "mul" and dt.name == "float32" and "relaxed_simd" in b.features
            and id(body) in ve.vdep):
        ve.push(body.src[0], u)
        ve.push(body.src[1], u)
        f.get(vacc).emit("f32x4.relaxed_madd").set(vacc)
        return
    f.get(vacc)
    ve.push(body, u)
    f.emit(VCOMBINE[(op, vclass(dt))]).set(vacc)


def _splat_identity(b, dt) -> int:
    f = b.f
    loc = f.local("v128")
    b.em.push(identity(b.kernel.reduce_op, dt))
    f.emit(SPLAT[vt(dt)]).set(loc)
    return loc


# ---------------------------------------------------------------- "inner"
def vector_r_loops(b, var: int, hi) -> None:
    plan, f = b.plan, b.f
    v = b.idx_nodes[f"r{b.R - 1}"]
    dep = depends([plan.body], {id(v)})
    ve = VecEmitter(b.em, v, dep, dep)
    dt, op = plan.acc.dtype, b.kernel.reduce_op
    for U in (4, 1):
        vaccs = [_splat_identity(b, dt) for _ in range(U)]

        def body(U=U, vaccs=vaccs):
            ve.reset()
            for u in range(U):
                _combine(b, ve, vaccs[u], u)
        _vector_loop(f, var, hi, 4 * U, body)
        for u in range(1, U):
            f.get(vaccs[0]).get(vaccs[u]).emit(VCOMBINE[(op, vclass(dt))]).set(vaccs[0])
        hreduce(f, op, dt, vaccs[0], b.acc_loc)


# ---------------------------------------------------------------- "elementwise" and "outer"
OUTER_U = 4        # vectors per block without row blocking (16 outputs)
ELEMENTWISE_U = 4  # vectors per elementwise step
ROW_BLOCK = (4, 2)  # (rows P, vectors U) per block with row blocking: 8 accumulators


def vector_g_loops(b, var: int, hi) -> None:
    """Vector loops over the innermost output index (before its scalar remainder)."""
    plan, f = b.plan, b.f
    v = b.idx_nodes[f"g{b.G - 1}"]
    if b.mode == "elementwise":
        dep = depends(plan.values, {id(v)})
        ve = VecEmitter(b.em, v, dep, dep)

        def body(U):
            ve.reset()
            for u in range(U):  # independent chains for instruction-level parallelism
                vals = []
                for value in plan.values:  # every value before any store: an output may be an input's memory
                    ve.push(value, u)
                    vals.append(f.local("v128"))
                    f.set(vals[-1])
                for optr, val in zip(b.optrs, vals):
                    f.get(optr).get(val).mem("v128.store", offset=16 * u, align=2)
            for optr in b.optrs:
                f.get(optr).i32(16 * U).emit("i32.add").set(optr)
        b.reset_optr()
        for U in ((ELEMENTWISE_U, 1) if plan.gshape[-1] >= 4 * ELEMENTWISE_U else (1,)):
            _vector_loop(f, var, hi, 4 * U, lambda U=U: body(U))
        return
    ve, dep = _outer_emitter(b, None)
    for U in (OUTER_U, 1):
        _vector_loop(f, var, hi, 4 * U, lambda U=U: _outer_block(b, ve, U, 1, dep))


def _outer_emitter(b, w):
    plan = b.plan
    v = b.idx_nodes[f"g{b.G - 1}"]
    roots = [plan.body, plan.combined] + list(plan.values)
    vidx = depends(roots, {id(v)})
    dep = depends(roots, {id(v), id(plan.acc)})
    # per-row values: anything depending on the row index or on the (per-row) accumulator
    wdep = depends(roots, {id(w), id(plan.acc)}) if w is not None else frozenset()
    return VecEmitter(b.em, v, dep, vidx, acc=plan.acc, w=w, wdep=wdep), dep | set(wdep)


PANEL_BYTES = 1 << 18  # reduced-operand panel kept in L2: K x NB floats


def row_block_loops(b, var_w: int, hi_w) -> None:
    """Blocks of P rows (g_{G-2}) x U vectors of the innermost output index, for the
    "outer" mode: each reduction step loads U vectors once and feeds P*U accumulators.
    Columns are tiled in panels of NB so the reduced operand's panel (K x NB) stays in
    cache while every row block sweeps it. Leftover columns and rows run after."""
    from .codegen import _loop_rest
    f, plan = b.f, b.plan
    P, U = ROW_BLOCK
    w = b.idx_nodes[f"g{b.G - 2}"]
    ve, skip = _outer_emitter(b, w)
    var_v = b.loops[f"g{b.G - 1}"]
    n_last = plan.gshape[-1]
    step = 4 * U
    vec_cols = n_last - n_last % step
    K = 1
    for d in plan.rshape:
        K *= d
    nb = max(step, min(vec_cols, (PANEL_BYTES // (4 * max(K, 1))) // step * step))
    wstart, pv, pend, vrem = (f.local("i32") for _ in range(4))
    f.get(var_w).set(wstart)
    if vec_cols:
        f.i32(0).set(pv)
        f.block().loop()
        f.get(pv).i32(vec_cols).emit("i32.ge_s").br_if(1)
        f.get(pv).i32(nb).emit("i32.add").i32(vec_cols).get(pv).i32(nb).emit("i32.add").i32(vec_cols)
        f.emit("i32.lt_s").emit("select").set(pend)  # min(pv + nb, vec_cols)
        f.get(wstart).set(var_w)

        def panel_rows():
            f.get(pv).set(var_v)
            _vector_loop(f, var_v, lambda: f.get(pend), step, lambda: _outer_block(b, ve, U, P, skip))
        _vector_loop(f, var_w, hi_w, P, panel_rows)
        f.get(pv).i32(nb).emit("i32.add").set(pv).br(0)
        f.end().end()

    def leftover():
        f.i32(vec_cols).set(var_v)
        _vector_loop(f, var_v, lambda: f.i32(n_last), 4, lambda: _outer_block(b, ve, 1, P, skip))
        f.get(var_v).set(vrem)
        f.get(var_w).set(pv)
        for rho in range(P):  # the last few columns, row by row, in scalar code
            f.get(pv).i32(rho).emit("i32.add").set(var_w)
            b.compute_level(b.G - 1)
            f.get(vrem).set(var_v)
            b.reset_optr()
            _loop_rest(f, var_v, lambda: f.i32(n_last), lambda: b.g_body(b.G - 1))
        f.get(pv).set(var_w)
    f.get(wstart).set(var_w)
    _vector_loop(f, var_w, hi_w, P, leftover)


def _outer_block(b, ve: VecEmitter, U: int, P: int, skip: set) -> None:
    from .codegen import _loop_rest
    f, plan = b.f, b.plan
    dt = plan.acc.dtype
    ve.acc_vec = {(u, rho): _splat_identity(b, dt) for rho in range(P) for u in range(U)}
    bases = []
    for k in range(b.n_out):
        bases.append(f.local("i32"))
        b.emit_out_addr(k)
        f.set(bases[-1])

    def r_level(j: int) -> None:
        var = b.loops[f"r{j}"]
        f.i32(0).set(var)
        hi = lambda: f.i32(plan.rshape[j])  # noqa: E731

        def body():
            b.compute_level(b.G + 1 + j, skip=skip)
            if j + 1 < b.R:
                r_level(j + 1)
            else:
                ve.reset()
                for rho in range(P):
                    ve.rho = rho
                    for u in range(U):
                        _combine(b, ve, ve.acc_vec[(u, rho)], u)
                ve.rho = 0
        _loop_rest(f, var, hi, body)
    r_level(0)
    ve.reset()
    for base, value, out_dt in zip(bases, plan.values, b.kernel.out_dtypes):
        row_bytes = plan.gshape[-1] * out_dt.itemsize
        for rho in range(P):
            ve.rho = rho
            for u in range(U):
                f.get(base)
                ve.push(value, u)
                f.mem("v128.store", offset=rho * row_bytes + 16 * u, align=2)
    ve.rho = 0
    ve.reset()
