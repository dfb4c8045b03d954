"""The algorithms behind `lax.linalg`'s primitives, as compiled loops over whole-matrix kernels.

Each function takes (stacks of) matrices with any leading batch dimensions and is
written with lax operations (the numpy-style helpers of `linalg_helpers`) and `lax.fori_loop`/`lax.scan`; `lax.linalg` lowers a
primitive by tracing its function once per shape and lowering that jaxpr, so the loop
becomes one compiled `scan` call whose body is a few fused kernels over the whole batch
(one batched computation, on every backend, no Python loop per matrix or per column).

Every step touches whole matrices through masks (`rows > j`, ...) and gathers at the
traced loop index, so shapes stay static: a step is O(n²) work, an n-step factorization
O(n³) as the textbook algorithm. The Jacobi methods (eigh, svd) apply one round of n/2
disjoint rotations as gathers of partner rows/columns (O(n²) per round, not a matmul).

"""
from __future__ import annotations

from typing import Any

from .. import core, dtypes
from . import indexing as lax_ix
from . import control_flow as lax_cf
from . import structural as lax_st
from . import elementwise as ew
from . import linalg_helpers as lh


def _shape(x: Any) -> tuple[int, ...]:
    return core.get_aval(x).shape


def _col(x: Any, j: Any) -> Any:
    """x[..., :, j] at a traced j."""
    return lax_ix.dynamic_index_in_dim(x, j, axis=len(_shape(x)) - 1, keepdims=False)


def _row(x: Any, i: Any) -> Any:
    """x[..., i, :] at a traced i."""
    return lax_ix.dynamic_index_in_dim(x, i, axis=len(_shape(x)) - 2, keepdims=False)


def _elem(v: Any, i: Any) -> Any:
    """v[..., i] at a traced i."""
    return lax_ix.dynamic_index_in_dim(v, i, axis=len(_shape(v)) - 1, keepdims=False)


_t, _h, _abs2 = lh.mT, lh.H, lh.abs2


def _real_dtype(x: Any) -> Any:
    return dtypes.real_part_dtype(core.get_aval(x).dtype)


# ---------------------------------------------------------------- Cholesky
#: columns per block of the blocked factorizations: a loop step factors one panel of this
#: many columns (unrolled: a few small kernels per column) and updates the trailing matrix
#: with one GEMM, so a factorization is n / BLOCK loop steps and about n³ GEMM flops
BLOCK = 32


def _pad_identity(a: Any, n_to: int) -> Any:
    """a (..., n, n) as the leading block of blockdiag(a, I) of size n_to: its factors are
    blockdiag(factors of a, I), so padding to a multiple of the block costs no branching."""
    n = _shape(a)[-1]
    if n_to == n:
        return a
    nd = len(_shape(a))
    a = lh.pad_end(a, (n_to - n, n_to - n))
    idx = lh.arange(n_to)
    return lh.where((idx[:, None] == idx[None, :]) & (idx[:, None] >= n), 1.0, a)


def cholesky(a: Any, block: int = BLOCK) -> Any:
    """Lower L with L Lᴴ = a, blocked right-looking: step k factors the k-th panel of
    `block` columns column by column (each column scaled by the square root of its pivot's
    real part, its outer product with its conjugate taken from the panel's later columns),
    then subtracts the panel's below-diagonal part times its conjugate transpose from the
    whole matrix in one GEMM (zero
    outside the trailing block). A non-positive pivot makes a NaN; then the whole lower
    triangle is NaN, as JAX returns it."""
    n = _shape(a)[-1]
    b = min(block, n)
    nb = -(-n // b)
    N = nb * b
    a = _pad_identity(a, N)
    nd = len(_shape(a))
    idx = lh.arange(N)
    jj = lh.arange(b)

    def step(k, a):
        k0 = k * b
        panel = lax_ix.dynamic_slice_in_dim(a, k0, b, axis=nd - 1)  # (..., N, b)
        for j in range(b):
            c = k0 + j
            col = panel[..., :, j]
            ljj = lh.sqrt(lh.real(_elem(col, c)))
            l = lh.where(idx > c, col / ljj[..., None], lh.where(idx == c, ljj[..., None], 0.0))
            lrow = lax_ix.dynamic_slice_in_dim(l, k0, b, axis=nd - 2)  # l at the panel's rows
            panel = lh.where(jj > j, panel - l[..., :, None] * lh.conj(lrow)[..., None, :], panel)
            panel = lh.where(jj == j, l[..., :, None], panel)
        below = lh.where(idx[:, None] >= k0 + b, panel, 0.0)
        a = a - lh.matmul(below, lh.H(below))
        return lax_ix.dynamic_update_slice_in_dim(a, panel, k0, axis=nd - 1)

    out = step(0, a) if nb == 1 else lax_cf.fori_loop(0, nb, step, a)
    low = lh.where(idx[:, None] >= idx[None, :], out, 0.0)[..., :n, :n]
    ok = lh.all(lh.isfinite(lh.diagonal(low)), axis=-1)
    rows, cols = lh.grid(n)
    return lh.where(ok[..., None, None], low, lh.where(rows >= cols, float("nan"), 0.0))


# ---------------------------------------------------------------- triangular solve
def _lower_inverses(d: Any, unit_diagonal: bool) -> Any:
    """Inverses of a stack of small lower-triangular blocks (..., b, b), by forward
    substitution on the identity unrolled over the b rows (each row one small kernel
    for the whole stack; rows not computed yet are zero, so d[i] @ x sums the done ones)."""
    b = _shape(d)[-1]
    idx = lh.arange(b)
    x = lh.zeros_like(d)
    for i in range(b):
        r = (idx == i).astype(core.get_aval(d).dtype) - lh.vecmat(d[..., i, :], x)
        x = lh.where(idx[:, None] == i, (r if unit_diagonal else r / d[..., i, i:i + 1])[..., None, :], x)
    return x


def triangular_solve(a: Any, b: Any, left_side: bool, lower: bool, transpose_a: bool,
                     unit_diagonal: bool, block: int = BLOCK) -> Any:
    """x with op(a) x = b (left) or x op(a) = b, reduced to one blocked forward
    substitution: the right side solves the transposed system, an upper system is a lower
    one read backwards (reversals are free views). The diagonal blocks are inverted all at
    once (one batch), then each loop step solves one block of rows with two GEMMs:
    x_k = D_k⁻¹ (b_k - a[k-th rows] x), the rows of x not solved yet being zero. A zero on
    the diagonal takes (by `cond`) plain substitution instead, whose inf/NaN are LAPACK's."""
    if not left_side:  # x op(a) = b  <=>  op(a)ᵀ xᵀ = bᵀ
        return _t(triangular_solve(a, _t(b), True, lower, not transpose_a, unit_diagonal, block))
    if transpose_a:
        a, lower = _t(a), not lower
    nd = len(_shape(a))
    if not lower:  # J U J is lower for the reversal J
        a = lax_st.rev(a, (nd - 2, nd - 1))
        b = lax_st.rev(b, (nd - 2,))
    if unit_diagonal:
        x = _blocked_lower_solve(a, b, True, block)
    else:  # a zero pivot: substitution, for LAPACK's (and JAX's) exact inf/NaN pattern
        d = lh.diagonal(a)
        x = lax_cf.cond(lh.any(d == 0), _substitute, lambda a, b: _blocked_lower_solve(a, b, False, block), a, b)
    return x if lower else lax_st.rev(x, (nd - 2,))


def _substitute(a: Any, b: Any) -> Any:
    """Forward substitution one row per loop step (rows of x not solved yet are zero)."""
    rows = lh.arange(_shape(a)[-1])[:, None]

    def step(i, x):
        ai = _row(a, i)
        xi = (_row(b, i) - lh.vecmat(ai, x)) / _elem(ai, i)[..., None]
        return lh.where(rows == i, xi[..., None, :], x)

    return lax_cf.fori_loop(0, _shape(a)[-1], step, lh.zeros_like(b))


def _blocked_lower_solve(a: Any, b: Any, unit_diagonal: bool, block: int) -> Any:
    """Forward substitution by blocks of rows, with the diagonal blocks' inverses."""
    nd = len(_shape(a))
    m = _shape(a)[-1]
    bs = min(block, m)
    nb = -(-m // bs)
    N = nb * bs
    a = _pad_identity(a, N)
    b = lh.pad_end(b, (N - m, 0)) if N != m else b
    batch = _shape(a)[:-2]
    blocks = lh.reshape(a, batch + (nb, bs, nb, bs))
    diag = lh.moveaxis(lh.diagonal(blocks, nd - 2, nd), -1, nd - 2)  # (..., nb, bs, bs)
    inv = _lower_inverses(diag, unit_diagonal)
    if nb == 1:
        return lh.matmul(inv[..., 0, :, :], b)[..., :m, :]

    def step(k, x):
        rows = lax_ix.dynamic_slice_in_dim(a, k * bs, bs, axis=nd - 2)  # (..., bs, N)
        rhs = lax_ix.dynamic_slice_in_dim(b, k * bs, bs, axis=nd - 2) - lh.matmul(rows, x)
        xk = lh.matmul(lax_ix.dynamic_index_in_dim(inv, k, axis=nd - 2, keepdims=False), rhs)
        return lax_ix.dynamic_update_slice_in_dim(x, xk, k * bs, axis=nd - 2)

    return lax_cf.fori_loop(0, nb, step, lh.zeros_like(b))[..., :m, :]


# ---------------------------------------------------------------- LU with partial pivoting
def lu(a: Any, block: int = BLOCK) -> tuple[Any, Any, Any]:
    """(lu packed, pivots, permutation) of (..., m, n) a with a[perm] = L U, as LAPACK's
    getrf (a zero pivot column is left as is: U gets a zero diagonal, solves give
    inf/NaN, as JAX's). Square matrices are factored by blocks (`_lu_blocked`), others
    one column per loop step (`_lu_columns`)."""
    m, n = _shape(a)[-2:]
    if m != n or m <= 1:
        return _lu_columns(a)
    return _lu_blocked(a, block)


def _pivot_swap(col: Any, c: Any, idx: Any) -> tuple[Any, Any]:
    """(p, swap): the row of the largest |col[i]|, i >= c, and the index map exchanging
    rows c and p (gathering by it swaps them). A complex entry's size is |re| + |im|, as
    LAPACK's izamax, so the pivots are LAPACK's (and JAX's)."""
    size = lh.abs(lh.real(col)) + lh.abs(lh.imag(col)) if lh.is_complex(col) else lh.abs(col)
    mag = lh.where(idx >= c, size, -1.0)
    p = lh.argmax(mag, axis=-1).astype(dtypes.int32)
    return p, lh.where(idx == c, p[..., None], lh.where(idx == p[..., None], c, idx))


def _rows(x: Any, index: Any) -> Any:
    """x[..., index[i], :] for every i (a row gather by a per-matrix index vector)."""
    return lh.take_along_axis(x, index[..., :, None], axis=-2)


def _lu_columns(a: Any) -> tuple[Any, Any, Any]:
    """Step j swaps the pivot row into row j and eliminates below it (whole matrix)."""
    m, n = _shape(a)[-2:]
    k = min(m, n)
    batch = _shape(a)[:-2]
    im, in_, ik = lh.arange(m), lh.arange(n), lh.arange(k)
    i32 = dtypes.int32

    def step(j, carry):
        a, pivots, perm = carry
        p, swap = _pivot_swap(_col(a, j), j, im)
        a = _rows(a, swap)
        perm = lh.take_along_axis(perm, swap, axis=-1)
        pivots = lh.where(ik == j, p[..., None], pivots)
        col, row = _col(a, j), _row(a, j)
        pivot = _elem(col, j)
        factors = lh.where(im > j, col / lh.where(pivot == 0, 1.0, pivot)[..., None], 0.0)
        a = a - factors[..., :, None] * lh.where(in_ > j, row, 0.0)[..., None, :]
        a = lh.where((im[:, None] > j) & (in_[None, :] == j), factors[..., :, None], a)
        return a, pivots, perm

    init = (a, lh.full(batch + (k,), 0, i32), lh.broadcast_to(im.astype(i32), batch + (m,)))
    return lax_cf.fori_loop(0, k, step, init)


def _lu_blocked(a: Any, block: int) -> tuple[Any, Any, Any]:
    """Right-looking blocked LU of square a: step k factors the k-th panel of `block`
    columns with partial pivoting (an inner loop over its columns; swaps applied to the
    panel only, composed into one row permutation), then permutes the other columns' rows once, solves U12 = L11⁻¹ A12
    (L11's inverse by unrolled substitution) and subtracts L21 U12 in one GEMM."""
    n = _shape(a)[-1]
    b = min(block, n)
    nb = -(-n // b)
    N = nb * b
    a = _pad_identity(a, N)
    nd = len(_shape(a))
    batch = _shape(a)[:-2]
    i32 = dtypes.int32
    idx, jj = lh.arange(N), lh.arange(b)

    def step(k, carry):
        a, pivots, perm = carry
        k0 = k * b
        panel = lax_ix.dynamic_slice_in_dim(a, k0, b, axis=nd - 1)  # (..., N, b)
        def column(j, carry):  # a loop, not unrolled: unrolled, the row swaps would
            panel, bperm, pivots = carry  # compose into chains of gathers in one kernel
            c = k0 + j
            p, swap = _pivot_swap(_col(panel, j), c, idx)
            panel, bperm = _rows(panel, swap), lh.take_along_axis(bperm, swap, axis=-1)
            pivots = lh.where(idx == c, p[..., None], pivots)
            col = _col(panel, j)
            pivot = _elem(col, c)
            factors = lh.where(idx > c, col / lh.where(pivot == 0, 1.0, pivot)[..., None], 0.0)
            row = _row(panel, c)
            panel = panel - factors[..., :, None] * lh.where(jj > j, row, 0.0)[..., None, :]
            panel = lh.where((jj == j) & (idx[:, None] > c), factors[..., :, None], panel)
            return panel, bperm, pivots

        bperm = lh.broadcast_to(idx.astype(i32), batch + (N,))
        panel, bperm, pivots = lax_cf.fori_loop(0, b, column, (panel, bperm, pivots))
        perm = lh.take_along_axis(perm, bperm, axis=-1)
        a = lax_ix.dynamic_update_slice_in_dim(_rows(a, bperm), panel, k0, axis=nd - 1)
        l11 = lax_ix.dynamic_slice_in_dim(lax_ix.dynamic_slice_in_dim(a, k0, b, axis=nd - 2), k0, b, axis=nd - 1)
        strict = lh.where(jj[:, None] > jj[None, :], l11, 0.0)
        block_rows = lax_ix.dynamic_slice_in_dim(a, k0, b, axis=nd - 2)  # (..., b, N)
        right = idx >= k0 + b
        u12 = lh.where(right, lh.matmul(_lower_inverses(strict, True), block_rows), 0.0)
        a = lax_ix.dynamic_update_slice_in_dim(a, lh.where(right, u12, block_rows), k0, axis=nd - 2)
        l21 = lh.where(idx[:, None] >= k0 + b, panel, 0.0)
        return a - lh.matmul(l21, u12), pivots, perm

    init = (a, lh.broadcast_to(idx.astype(i32), batch + (N,)), lh.broadcast_to(idx.astype(i32), batch + (N,)))
    a, pivots, perm = step(0, init) if nb == 1 else lax_cf.fori_loop(0, nb, step, init)
    return a[..., :n, :n], pivots[..., :n], perm[..., :n]


# ---------------------------------------------------------------- Householder QR
def qr(a: Any, full_matrices: bool) -> tuple[Any, Any]:
    """(Q, R) by Householder reflections H = I - τ v vᴴ (LAPACK's geqrf/larfg): Rₖₖ = β
    real, β = -sign(Re x₀)‖x‖, τ = (β - x₀)/β for v scaled to v₀ = 1, and H = I where x is
    already β e₀ with x₀ real; R = Hᴴ R, Q = Q H accumulated into an m x m Q. So R's
    diagonal is real with LAPACK's signs, for real and complex a alike."""
    m, n = _shape(a)[-2:]
    dt = core.get_aval(a).dtype
    idx = lh.arange(m)
    q0 = lh.broadcast_to(lh.eye(m, dt), _shape(a)[:-2] + (m, m))

    def step(k, carry):
        q, r = carry
        x = lh.where(idx >= k, _col(r, k), 0.0)
        x0 = _elem(x, k)
        below = lh.sum(lh.where(idx > k, _abs2(x), 0.0), axis=-1)
        keep = (below == 0) & (lh.imag(x0) == 0)
        norm = lh.sqrt(below + _abs2(x0))
        beta = lh.where(lh.real(x0) >= 0, -norm, norm)
        v = x - lh.where(idx == k, beta[..., None], 0.0)  # v₀ = x₀ - β: no cancellation
        tau = lh.where(keep, 0.0, -1.0 / lh.where(keep, 1.0, beta * lh.conj(x0 - beta)))[..., None, None]
        r = r - lh.conj(tau) * v[..., :, None] * lh.vecmat(lh.conj(v), r)[..., None, :]
        q = q - tau * lh.matvec(q, v)[..., :, None] * lh.conj(v)[..., None, :]
        return q, r

    q, r = lax_cf.fori_loop(0, min(m, n), step, (q0, a))
    r = lh.where(lh.arange(m)[:, None] > lh.arange(n)[None, :], 0.0, r)
    if full_matrices:
        return q, r
    k = min(m, n)
    return q[..., :, :k], r[..., :k, :]


# ---------------------------------------------------------------- Jacobi rounds
def _round_tables(n: int) -> tuple[list, list]:
    """Round-robin pairings of n indices as per-round tables: partner[r][i] (i itself on a
    bye) and role[r][i] (+1 the smaller of its pair, -1 the larger, 0 on a bye)."""
    m = n + (n % 2)
    order = list(range(m))
    partners, roles = [], []
    for _ in range(max(m - 1, 1)):
        partner, role = list(range(n)), [0] * n
        for i in range(m // 2):
            p, q = sorted((order[i], order[m - 1 - i]))
            if q < n:
                partner[p], partner[q], role[p], role[q] = q, p, 1, -1
        partners.append(partner)
        roles.append(role)
        order = [order[0], order[-1]] + order[1:-1]
    return partners, roles


def _angles(app: Any, aqq: Any, apq: Any) -> tuple[Any, Any]:
    """(c, s) of the rotation J (J[p,p] = J[q,q] = c, J[p,q] = s) zeroing apq in Jᵀ A J."""
    zero = apq == 0
    tau = (aqq - app) / lh.where(zero, 1.0, 2.0 * apq)
    t = lh.where(tau >= 0, 1.0, -1.0) / (lh.abs(tau) + lh.sqrt(1.0 + tau * tau))
    t = lh.where(zero, 0.0, t)
    c = 1.0 / lh.sqrt(1.0 + t * t)
    return c, t * c


def _sweeps(dt: Any) -> int:
    return 14 if dt.itemsize == 8 else 9


def _jacobi(x: Any, n: int, pair_terms: Any, rotate: Any) -> Any:
    """Run `_sweeps` sweeps of n - 1 rounds on carry x: each round reads (app, aqq, apq)
    per index from `pair_terms(x, partner)` (apq: the entry at (i, partner(i)) of the
    Hermitian matrix being diagonalized) and applies `rotate(x, partner, c, coef)`, where
    column i becomes c_i x_i + coef_i x_partner(i). A complex apq = |apq| e^{iφ} takes the
    real rotation of |apq| between the phases diag(1, e^{-iφ}) and their inverse, so
    coef carries conj(apq)/|apq| (the row rotation is its conjugate)."""
    partners, roles = _round_tables(n)
    ptab = ew.asarray(partners, dtypes.int32)
    rtab = ew.asarray(roles, _real_dtype(x[0]))
    nr = len(partners)
    cplx = lh.is_complex(x[0])

    def step(i, x):
        r = i % nr
        partner, role = _row(ptab, r), _row(rtab, r)
        app, aqq, apq = pair_terms(x, partner, role)
        apq = lh.where(role != 0, apq, 0.0)
        if not cplx:
            c, s = _angles(app, aqq, apq)
            return rotate(x, partner, c, -role * s)
        mag = lh.abs(apq)
        c, s = _angles(app, aqq, mag)
        phase = lh.where(mag == 0, 1.0, lh.conj(apq) / lh.where(mag == 0, 1.0, mag))
        return rotate(x, partner, c, -role * s * phase)

    return lax_cf.fori_loop(0, _sweeps(core.get_aval(x[0]).dtype) * nr, step, x)


def _ordered(p: Any, q: Any, role: Any) -> tuple[Any, Any]:
    """(value at the pair's smaller index, at its larger) from per-index values p (own)
    and q (partner's)."""
    return lh.where(role >= 0, p, q), lh.where(role >= 0, q, p)


def eigh(a: Any, sort_eigenvalues: bool = True) -> tuple[Any, Any]:
    """(eigenvectors as columns, real eigenvalues) of symmetric (Hermitian) a by cyclic
    two-sided Jacobi."""
    n = _shape(a)[-1]
    dt = core.get_aval(a).dtype
    v0 = lh.broadcast_to(lh.eye(n, dt), _shape(a))

    def terms(x, partner, role):
        a, _ = x
        d = lh.real(lh.diagonal(a))
        app, aqq = _ordered(d, lh.take(d, partner, axis=-1), role)
        apq = lh.sum(lh.where(lh.arange(n)[None, :] == partner[:, None], a, 0.0), axis=-1)
        return app, aqq, apq

    def rotate(x, partner, c, coef):
        a, v = x
        a = c[..., None, :] * a + coef[..., None, :] * lh.take(a, partner, axis=-1)  # A J
        a = c[..., :, None] * a + lh.conj(coef)[..., :, None] * lh.take(a, partner, axis=-2)  # Jᴴ A J
        a = (a + _h(a)) * 0.5  # exact symmetry against rounding
        v = c[..., None, :] * v + coef[..., None, :] * lh.take(v, partner, axis=-1)
        return a, v

    a, v = _jacobi((a, v0), n, terms, rotate)
    w = lh.real(lh.diagonal(a))
    if sort_eigenvalues:
        order = lh.argsort(w, axis=-1)
        w = lh.take_along_axis(w, order, axis=-1)
        v = lh.take_along_axis(v, lh.broadcast_to(order[..., None, :], _shape(v)), axis=-1)
    return v, w


def _svd_tall(a: Any) -> tuple[Any, Any, Any]:
    """One-sided Jacobi on the columns of tall a (m >= n): (G = U diag(s), s descending, V)."""
    m, n = _shape(a)[-2:]
    dt = core.get_aval(a).dtype
    v0 = lh.broadcast_to(lh.eye(n, dt), _shape(a)[:-2] + (n, n))

    def terms(x, partner, role):
        g, _ = x
        gq = lh.take(g, partner, axis=-1)
        norms = lh.sum(_abs2(g), axis=-2)
        app, aqq = _ordered(norms, lh.take(norms, partner, axis=-1), role)
        return app, aqq, lh.sum(lh.conj(g) * gq, axis=-2)  # (Gᴴ G)[i, partner(i)]

    def rotate(x, partner, c, coef):
        g, v = x
        g = c[..., None, :] * g + coef[..., None, :] * lh.take(g, partner, axis=-1)
        v = c[..., None, :] * v + coef[..., None, :] * lh.take(v, partner, axis=-1)
        return g, v

    g, v = _jacobi((a, v0), n, terms, rotate)
    s = lh.sqrt(lh.sum(_abs2(g), axis=-2))
    order = lh.argsort(-s, axis=-1)
    s = lh.take_along_axis(s, order, axis=-1)
    g = lh.take_along_axis(g, lh.broadcast_to(order[..., None, :], _shape(g)), axis=-1)
    v = lh.take_along_axis(v, lh.broadcast_to(order[..., None, :], _shape(v)), axis=-1)
    return g, s, v


def _orthonormal_u(g: Any, s: Any, full: bool) -> Any:
    """U from the rotated columns g = U diag(s): normalized, then completed (and made
    orthonormal where s is 0) by a QR whose signs follow the columns (R's diagonal is
    real)."""
    m, k = _shape(g)[-2:]
    eps = float(dtypes.finfo(core.get_aval(g).dtype).eps)
    tiny = s <= s[..., :1] * eps * max(m, k)
    u = lh.where(tiny[..., None, :], 0.0, g / lh.where(tiny, 1.0, s)[..., None, :])
    q, r = qr(u, True)
    signs = lh.where(lh.real(lh.diagonal(r)) < 0, -1.0, 1.0)
    pad = lh.full(_shape(signs)[:-1] + (m - k,), 1, core.get_aval(signs).dtype)
    q = q * lh.concatenate([signs, pad], axis=-1)[..., None, :]
    return q if full else q[..., :, :k]


def svd(a: Any, full_matrices: bool, compute_uv: bool) -> Any:
    """(U, s, Vh) (or s) with s real and descending; a wide matrix is done as its
    conjugate transpose."""
    m, n = _shape(a)[-2:]
    wide = m < n
    g, s, v = _svd_tall(_h(a) if wide else a)
    if not compute_uv:
        return [s]
    u = _orthonormal_u(g, s, full_matrices)
    return [v, s, _h(u)] if wide else [u, s, _h(v)]  # wide: a = (U S Vᴴ)ᴴ = V S Uᴴ


# ---------------------------------------------------------------- general eigenproblem
def _at(x: Any, i: Any, j: Any) -> Any:
    """x[..., i, j] at per-matrix traced indices i, j (shape (...,))."""
    idx = lh.arange(_shape(x)[-1])
    hit = (idx == i[..., None])[..., :, None] & (idx == j[..., None])[..., None, :]
    return lh.sum(lh.where(hit, x, 0.0), axis=(-2, -1))


def schur(a: Any) -> tuple[Any, Any]:
    """(T, Z), a = Z T Zᴴ with T upper triangular (the complex Schur form), by the QR
    algorithm with Wilkinson shifts on the whole matrix: each step is a similarity by the
    Q of (A₁₁ - μ I) ⊕ I for the active leading block A₁₁ (its Q is Q₁ ⊕ I, see `qr`), and
    the block shrinks when its last row (left of the diagonal) is negligible; an
    exceptional shift every 11th step breaks cycles (permutation matrices). At most 30 n
    steps, as LAPACK's lahqr; every matrix of a batch steps until all have converged."""
    n = _shape(a)[-1]
    batch = _shape(a)[:-2]
    real = _real_dtype(a)
    dt = dtypes.dtype("complex128" if real.itemsize == 8 else "complex64")
    a = a.astype(dt)
    idx = lh.arange(n)
    eye = lh.eye(n, dt)
    eps = float(dtypes.finfo(real).eps)
    anorm = lh.sqrt(lh.sum(_abs2(a), axis=(-2, -1)))
    i32 = dtypes.int32

    def cond(carry):
        it, _, _, m = carry
        return (it < 30 * n) & lh.any(m > 1)

    def body(carry):
        it, a, z, m = carry
        i1, i0 = lh.maximum(m - 1, 0), lh.maximum(m - 2, 0)
        p, q, r, s = _at(a, i0, i0), _at(a, i0, i1), _at(a, i1, i0), _at(a, i1, i1)
        disc = lh.sqrt((p - s) * (p - s) * 0.25 + q * r)
        half = (p + s) * 0.5
        mu1, mu2 = half + disc, half - disc
        d1, d2 = lh.abs(mu1 - s), lh.abs(mu2 - s)
        # a tie (a 2x2 block with equal diagonal, a conjugate pair) deflates the lexicographically
        # smaller one to the bottom: LAPACK's order (dlanv2: the larger real part, or +imag, first)
        smaller = (lh.real(mu1) < lh.real(mu2)) | ((lh.real(mu1) == lh.real(mu2)) & (lh.imag(mu1) < lh.imag(mu2)))
        mu = lh.where((d1 < d2) | ((d1 == d2) & smaller), mu1, mu2)
        off = lh.sqrt(lh.sum(lh.where(idx < i1[..., None], _abs2(_row_at(a, i1)), 0.0), axis=-1))
        mu = lh.where(it % 11 == 10, s + 0.75 * off, mu)  # exceptional shift
        act = (idx < m[..., None])[..., :, None] & (idx < m[..., None])[..., None, :]
        qm, _ = qr(lh.where(act, a - mu[..., None, None] * eye, eye), True)
        a = lh.matmul(_h(qm), lh.matmul(a, qm))
        z = lh.matmul(z, qm)
        last = _row_at(a, i1)
        off = lh.sqrt(lh.sum(lh.where(idx < i1[..., None], _abs2(last), 0.0), axis=-1))
        ref = lh.abs(p) + lh.abs(s)
        done = (m > 1) & (off <= eps * lh.where(ref == 0, anorm, ref))
        below = (idx == i1[..., None])[..., :, None] & (idx < i1[..., None])[..., None, :]
        a = lh.where(done[..., None, None] & below, 0.0, a)
        return it + 1, a, z, lh.where(done, m - 1, m)

    init = (ew.asarray(0, i32), a, lh.broadcast_to(eye, _shape(a)), lh.full(batch, n, i32))
    _, t, z, _ = lax_cf.while_loop(cond, body, init)
    return lh.where(idx[:, None] > idx[None, :], 0.0, t), z


def _row_at(x: Any, i: Any) -> Any:
    """x[..., i, :] at per-matrix traced rows i (shape (...,))."""
    hit = lh.arange(_shape(x)[-2]) == i[..., None]
    return lh.sum(lh.where(hit[..., :, None], x, 0.0), axis=-2)


def _unit_columns(v: Any) -> Any:
    """Columns scaled to norm 1 with their largest-modulus entry real and positive (LAPACK's
    geev normalization)."""
    v = v / lh.sqrt(lh.sum(_abs2(v), axis=-2, keepdims=True))
    big = lh.argmax(_abs2(v), axis=-2)
    top = lh.take_along_axis(v, big[..., None, :], axis=-2)
    return v * (lh.conj(top) / lh.abs(top))


def eig(a: Any, left: bool, right: bool, inv: Any) -> list:
    """[w] + [vl] + [vr]: eigenvalues (T's diagonal, in the Schur form's order) and unit
    left/right eigenvectors. T's eigenvectors come by back substitution, all at once one row
    per loop step (a near-zero divisor t_ii - t_kk is raised to eps |t_kk|, as LAPACK's
    trevc); vr = Z Y; the left ones are the rows of vr⁻¹ (`inv`: lax.linalg's, by its LU primitives)."""
    t, z = schur(a)
    n = _shape(a)[-1]
    w = lh.diagonal(t)
    if not (left or right):
        return [w]
    idx = lh.arange(n)
    eps = float(dtypes.finfo(_real_dtype(t)).eps)
    tiny = float(dtypes.finfo(_real_dtype(t)).tiny)
    smin = lh.maximum(eps * lh.abs(w), tiny)

    def step(j, y):
        i = n - 1 - j
        s = lh.vecmat(_row(t, i), y)
        den = _elem(w, i)[..., None] - w
        den = lh.where(lh.abs(den) < smin, smin.astype(core.get_aval(t).dtype), den)
        return lh.where((idx[:, None] == i) & (idx[None, :] > i), (-s / den)[..., None, :], y)

    y = lax_cf.fori_loop(0, n, step, lh.broadcast_to(lh.eye(n, core.get_aval(t).dtype), _shape(t)))
    vr = _unit_columns(lh.matmul(z, y))
    out = [w]
    if left:
        out.append(_unit_columns(_h(inv(vr))))
    if right:
        out.append(vr)
    return out


# ---------------------------------------------------------------- tridiagonal solve
def tridiagonal_solve(dl: Any, d: Any, du: Any, b: Any) -> Any:
    """x with A x = b for the tridiagonal A (sub-diagonal dl, diagonal d, super-diagonal
    du, each (..., m); b (..., m, k)) by the Thomas algorithm: a forward scan of the
    eliminated coefficients, a reverse scan of the back substitution, no pivoting (as
    JAX's gtsv-free path); a zero pivot gives inf/NaN."""
    mv = lambda v: lh.moveaxis(v, -1, 0)  # noqa: E731  (m, ...)
    dl_, d_, du_ = mv(dl), mv(d), mv(du)
    b_ = lh.moveaxis(b, -2, 0)  # (m, ..., k)

    def forward(carry, xs):
        c_prev, y_prev = carry
        l, dd, u, bb = xs
        denom = dd - l * c_prev
        c = u / denom
        y = (bb - l[..., None] * y_prev) / denom[..., None]
        return (c, y), (c, y)

    init = (lh.zeros_like(d_[0]), lh.zeros_like(b_[0]))
    _, (cs, ys) = lax_cf.scan(forward, init, (dl_, d_, du_, b_))

    def backward(x_next, xs):
        c, y = xs
        x = y - c[..., None] * x_next
        return x, x

    _, xs = lax_cf.scan(backward, lh.zeros_like(b_[0]), (cs, ys), reverse=True)
    return lh.moveaxis(xs, 0, -2)
