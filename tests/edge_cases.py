"""Cases of the edge-semantics differential fuzzer (tests/test_edge_semantics.py), shared with its
recorder (tests/data/record_jax_edge.py, run in a real JAX install).

Each case is a jnp expression over operands `a`, `b` (and `c`) whose values come from per-dtype
pools of edge values (signed zeros, infinities, NaN, the extremes, values whose square or
product overflows float16/bfloat16, halfway points of their rounding) crossed with each other,
so a binary op sees every pair. The random programs (`random_programs`) chain 2-4 ops over
mixed dtypes with broadcasting, eager and jitted, as the issue's fuzzer did. Only numpy and the
standard library are used here: the recorder runs it beside JAX, the test beside jaxweb.

Values: float32 subnormals are left out of the pools, and a float32 result that is subnormal on
one side and a zero of the same sign on the other counts as equal: XLA's CPU backend flushes
float32 subnormals to zero (FTZ/DAZ), which is a property of that machine, not JAX's semantics.
"""
import random

import numpy as np

FLOATS = ("float32", "float16", "bfloat16")
INTS = ("int8", "uint8", "int16", "int32", "uint32")

_BITS = {"float32": (np.float32, np.uint32), "float16": (np.float16, np.uint16)}


def round_bf16(x) -> np.ndarray:
    """float32 values rounded to bfloat16 (nearest, ties to even), held in float32."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    nan = np.isnan(np.asarray(x, np.float32))
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    out = u.astype(np.uint32).view(np.float32)
    return np.where(nan, np.float32(np.nan), out)


def to_dtype_f32(x, dtype: str) -> np.ndarray:
    """x rounded to the float dtype and held in float32 (the value an operand really has)."""
    x = np.asarray(x, np.float32)
    if dtype == "float16":
        with np.errstate(over="ignore"):
            return x.astype(np.float16).astype(np.float32)
    if dtype == "bfloat16":
        return round_bf16(x)
    return x


def _float_pool(dtype: str) -> list[float]:
    big = {"float32": 3.4028235e38, "float16": 65504.0, "bfloat16": 3.3895314e38}[dtype]
    tiny = {"float32": 1.1754944e-38, "float16": 6.1035156e-05, "bfloat16": 1.1754944e-38}[dtype]
    near = {"float32": 1.9e19, "float16": 300.0, "bfloat16": 1.9e19}[dtype]  # near**2 overflows
    half = {"float32": 1.0000001, "float16": 1.0009766, "bfloat16": 1.0078125}[dtype]  # 1 + ulp
    vals = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 0.5, -2.5, 3.0, -7.25, 1e-3, 100.0,
            big, -big, tiny, near, -near, half, 2.0 ** 11 + 1, np.pi]
    return [float(v) for v in to_dtype_f32(vals, dtype)]


def _int_pool(dtype: str) -> list[int]:
    info = np.iinfo(dtype)
    vals = [0, 1, -1, 2, -2, 3, 7, -7, 100, -100, info.max, info.min, info.max - 1, info.min + 1, 31, 33]
    return sorted({int(v) for v in vals if info.min <= v <= info.max}, key=vals.index)


def pool(dtype: str) -> list:
    if dtype == "bool":
        return [False, True]
    return _float_pool(dtype) if dtype in FLOATS else _int_pool(dtype)


def random_values(dtype: str, n: int, seed: int, kind: str = "rand") -> list:
    """n random values of a dtype: floats spread over many binades and both signs ('rand'),
    over four binades ('narrow': sums and products that neither overflow nor underflow), or
    signed zeros ('zeros')."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return [bool(v) for v in rng.integers(0, 2, n)]
    if dtype in FLOATS and kind == "zeros":
        return [float(v) for v in rng.choice([0.0, -0.0], n)]
    if dtype in FLOATS:
        lim = (0.5 if dtype == "float16" else 2.0) if kind == "narrow" else (4.0 if dtype == "float16" else 12.0)
        v = rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(-lim, lim, n)
        return [float(x) for x in to_dtype_f32(v, dtype)]
    info = np.iinfo(dtype)
    return [int(x) for x in rng.integers(max(info.min, -1000), min(info.max, 1000) + 1, n)]


def operands(spec: list, seed: int) -> list:
    """The operand value lists of a case: `spec` is a list of (dtype, kind) with kind 'pool'
    (pool values crossed with the other pool operands) or a kind of `random_values`."""
    pools = [(i, pool(dt)) for i, (dt, kind) in enumerate(spec) if kind == "pool"]
    n = 1
    for _, p in pools:
        n *= len(p)
    out = []
    reps = n
    for i, (dt, kind) in enumerate(spec):
        if kind == "pool":
            p = dict(pools)[i]
            reps //= len(p)
            out.append([v for v in p for _ in range(reps)] * (n // (len(p) * reps)))
        else:
            out.append(random_values(dt, n if pools else 49, seed + i, kind))
    return out


UNARY_FLOAT_EXACT = ["negative", "abs", "sign", "floor", "ceil", "trunc", "rint", "round", "sqrt",
                     "square", "reciprocal", "signbit", "isnan", "isinf", "isfinite", "positive", "fabs"]
UNARY_FLOAT_MATH = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan",
                    "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
                    "cbrt", "deg2rad", "rad2deg", "sinc"]
BINARY_FLOAT_EXACT = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "fmod",
                      "maximum", "minimum", "fmax", "fmin", "copysign", "nextafter", "equal", "less",
                      "greater_equal", "not_equal"]
BINARY_FLOAT_MATH = ["power", "arctan2", "hypot", "logaddexp", "logaddexp2"]
UNARY_INT = ["negative", "abs", "sign", "square", "invert", "reciprocal"]
BINARY_INT = ["add", "subtract", "multiply", "floor_divide", "remainder", "fmod", "divide", "maximum",
              "minimum", "bitwise_and", "bitwise_xor", "left_shift", "right_shift", "power", "less"]
#: transcendental functions: finite results within `ULPS` units in the last place of JAX's, or
#: of the true value (numpy's float64, rounded): XLA's own are off by more at places (exp2 of
#: bfloat16 goes through a bfloat16 multiply by ln 2), and jaxweb need not copy an inaccuracy.
MATH = set(UNARY_FLOAT_MATH) | set(BINARY_FLOAT_MATH)
ULPS = {"float32": 4, "float16": 1, "bfloat16": 1}
#: accumulations, whose rounding depends on an order that JAX leaves open, and chained programs
#: (XLA's sinh is 12 float32 ulps off at 36): within `ACC_ULPS` of the larger of the result and
#: the largest operand (a sum that cancels keeps the rounding errors of its big terms)
ACCUMULATING = {"sum", "prod", "mean", "var", "logsumexp", "cumsum", "cumprod", "nansum", "chain"}
ACC_ULPS = {"float32": 32, "float16": 4, "bfloat16": 4}
REDUCTIONS = ["sum", "prod", "max", "min", "argmax", "argmin", "nanmax", "nanmin", "nansum", "mean",
              "cumsum", "cummax", "cumprod", "var", "logsumexp", "any", "all", "count_nonzero"]


def cases() -> list[dict]:
    """Every case: {'id', 'expr', 'spec': [(dtype, kind)], 'jit': bool, 'seed'}."""
    out = []

    def add(cid, expr, spec, jit=False):
        out.append({"id": cid, "expr": expr, "spec": [list(s) for s in spec], "jit": jit, "seed": len(out)})

    for dt in FLOATS:
        for op in UNARY_FLOAT_EXACT + UNARY_FLOAT_MATH:
            add(f"{op}.{dt}", f"jnp.{op}(a)", [(dt, "pool")])
            add(f"{op}.{dt}.rand", f"jnp.{op}(a)", [(dt, "rand")])
        for op in BINARY_FLOAT_EXACT + BINARY_FLOAT_MATH:
            add(f"{op}.{dt}", f"jnp.{op}(a, b)", [(dt, "pool"), (dt, "pool")])
        for to in FLOATS + INTS + ("bool",):
            if to != dt:
                add(f"astype.{dt}.{to}", f"a.astype(jnp.{to})", [(dt, "pool")])
                add(f"astype.{dt}.{to}.rand", f"a.astype(jnp.{to})", [(dt, "rand")])
        for op in REDUCTIONS:
            expr = "jax.nn.logsumexp(a.reshape(-1, 7), axis=1)" if op == "logsumexp" else \
                f"jnp.{op}(a.reshape(-1, 7), axis=1)"
            add(f"{op}.{dt}", expr, [(dt, "narrow")])
            add(f"{op}.{dt}.pool", expr, [(dt, "pool")])
            if op in ("max", "min", "sum", "cummax", "argmax", "argmin"):
                add(f"{op}.{dt}.zeros", expr, [(dt, "zeros")])
        add(f"where.{dt}", "jnp.where(a > 0, a, b)", [(dt, "pool"), (dt, "pool")])
        add(f"clip.{dt}", "jnp.clip(a, -b, b)", [(dt, "pool"), (dt, "pool")])
        add(f"sort.{dt}", "jnp.sort(a)", [(dt, "pool")])
        add(f"argsort.{dt}", "jnp.argsort(a, stable=True)", [(dt, "pool")])
        add(f"chain.sq_div.{dt}", "(a * a) / a", [(dt, "pool")], jit=True)
        add(f"chain.sq_div.{dt}.eager", "(a * a) / a", [(dt, "pool")])
        add(f"chain.sinh_mul.{dt}", "jnp.sinh(a * b)", [(dt, "pool"), (dt, "rand")], jit=True)
        add(f"chain.div_log1p.{dt}", "jnp.log1p(a / b) * b", [(dt, "rand"), (dt, "rand")], jit=True)
        add(f"chain.sum_sq.{dt}", "jnp.sum(a * a + a)", [(dt, "rand")], jit=True)
    for dt in INTS:
        for op in UNARY_INT:
            if op == "reciprocal":
                continue
            add(f"{op}.{dt}", f"jnp.{op}(a)", [(dt, "pool")])
        for op in BINARY_INT:
            add(f"{op}.{dt}", f"jnp.{op}(a, b)", [(dt, "pool"), (dt, "pool")])
        for to in FLOATS + ("int32", "uint8", "int8"):
            if to != dt:
                add(f"astype.{dt}.{to}", f"a.astype(jnp.{to})", [(dt, "pool")])
        add(f"cumsum.{dt}", "jnp.cumsum(a)", [(dt, "pool")])
        add(f"sum.{dt}", "jnp.sum(a)", [(dt, "pool")])
        add(f"mean.{dt}", "jnp.mean(a)", [(dt, "rand")])
    for x, y in (("float16", "bfloat16"), ("float16", "float32"), ("bfloat16", "float32"),
                 ("int8", "float16"), ("uint8", "bfloat16"), ("int32", "float16"), ("bool", "float16")):
        for op in ("add", "multiply", "divide", "maximum", "arctan2"):
            add(f"{op}.{x}.{y}", f"jnp.{op}(a, b)", [(x, "pool"), (y, "pool")])
    # array API functions whose edge semantics the standard and JAX fix (NaNs distinct in unique_*,
    # descending sorts, cumulative_* with include_initial, norms of infinities, clip with NaN bounds)
    for cid, expr, spec in (
            ("api.sort_desc", "jnp.sort(a, descending=True)", [("float32", "pool")]),
            ("api.sort_desc.zeros", "jnp.sort(a, descending=True)", [("float32", "zeros")]),
            ("api.argsort_desc", "jnp.argsort(a, descending=True)", [("float32", "pool")]),
            ("api.argsort_desc.zeros", "jnp.argsort(a, descending=True)", [("float32", "zeros")]),
            ("api.unique_values", "jnp.unique_values(a)", [("float32", "pool")]),
            ("api.unique_counts", "jnp.unique_counts(a)", [("float32", "pool")]),
            ("api.unique_inverse", "jnp.unique_inverse(a)", [("float32", "pool")]),
            ("api.unique_all", "jnp.unique_all(a)", [("float32", "pool")]),
            ("api.cumulative_sum", "jnp.cumulative_sum(a.reshape(3, 7), axis=1, include_initial=True)",
             [("float32", "pool")]),
            ("api.cumulative_prod", "jnp.cumulative_prod(a, include_initial=True)", [("int8", "pool")]),
            ("api.vector_norm_inf", "jnp.linalg.vector_norm(a.reshape(3, 7), ord=jnp.inf, axis=1)",
             [("float32", "pool")]),
            ("api.vector_norm_0", "jnp.linalg.vector_norm(a.reshape(3, 7), ord=0, axis=1)", [("float32", "pool")]),
            ("api.vector_norm_2", "jnp.linalg.vector_norm(a.reshape(3, 7), axis=1)", [("float32", "narrow")]),
            ("api.clip_nan", "jnp.clip(a, b, 10.0)", [("float32", "pool"), ("float32", "pool")]),
            ("api.searchsorted", "jnp.searchsorted(jnp.sort(a), a)", [("float32", "pool")]),
            ("api.count_nonzero", "jnp.count_nonzero(a.reshape(3, 7), axis=1)", [("float32", "pool")]),
            ("api.isin", "jnp.isin(a, b)", [("float32", "pool"), ("float32", "pool")]),
            ("api.vecdot", "jnp.vecdot(a.reshape(3, 7), a.reshape(3, 7))", [("float32", "narrow")]),
            ("api.signbit", "jnp.signbit(a)", [("bfloat16", "pool")]),
            ("api.diff", "jnp.diff(a, prepend=a[:1])", [("float32", "pool")]),
    ):
        add(cid, expr, spec)
    # the five findings, as programs
    add("found.fmod_int_zero", "jnp.fmod(a, b)", [("int32", "pool"), ("int32", "pool")], jit=True)
    add("found.atan2_signed_zero", "jnp.arctan2(jnp.copysign(jnp.floor_divide(a, b), a), b)",
        [("float32", "pool"), ("float32", "pool")], jit=True)
    add("found.max_nan", "jnp.maximum(jnp.remainder(a, b), jnp.nextafter(a, b))",
        [("float32", "pool"), ("float32", "pool")], jit=True)
    add("found.sinh_bf16", "jnp.sinh(a * b)", [("bfloat16", "pool"), ("bfloat16", "pool")], jit=True)
    add("found.div_log1p_mix", "jnp.log1p(a / b)", [("float16", "pool"), ("bfloat16", "pool")], jit=True)
    out.extend(random_programs(160, seed=25))
    for name, expr in API_PROBES:  # operands from PROBE_PRELUDE; `a` is unused
        add(f"probe.{name}", expr, [("float32", "pool")])
    return out


#: the fixed operands of the `probe.*` cases (run into their namespace, beside jnp and jax)
PROBE_PRELUDE = "x = jnp.arange(6.0).reshape(2, 3)\nc = jnp.array([1 + 2j, 3 - 1j], jnp.complex64)"
#: array API calls on fixed operands, whose
#: results, dtypes and error types JAX fixes: FFT norm/n/axes, vecdot, unstack, meshgrid, repeat,
#: tensordot, mean/std, astype, broadcasting, linspace, *_like, linalg edge cases and the like
API_PROBES = [
    ('fft.norm_fwd', "jnp.fft.fft(jnp.arange(4.0), norm='forward')"),
    ('fft.norm_ortho_n', "jnp.fft.rfft(jnp.arange(5.0), n=8, norm='ortho')"),
    ('fft.irfftn_axes', 'jnp.fft.irfftn(jnp.ones((4, 3), jnp.complex64), s=(4, 4), axes=(0, 1))'),
    ('fft.fftn_axes_none', 'jnp.fft.fftn(jnp.ones((2, 3)))'),
    ('fft.hfft', 'jnp.fft.hfft(c, n=3)'),
    ('fft.ihfft', 'jnp.fft.ihfft(jnp.arange(4.0))'),
    ('fft.fftfreq_dtype', 'jnp.fft.fftfreq(5, d=0.5, dtype=jnp.float32)'),
    ('fft.fftshift_axes', 'jnp.fft.fftshift(x, axes=1)'),
    ('vecdot', 'jnp.vecdot(c, c)'),
    ('linalg.vecdot', 'jnp.linalg.vecdot(x, x, axis=0)'),
    ('unstack', 'jnp.unstack(x, axis=1)'),
    ('meshgrid', "jnp.meshgrid(jnp.arange(2), jnp.arange(3.0), indexing='ij')"),
    ('meshgrid0', 'jnp.meshgrid()'),
    ('repeat_arr', 'jnp.repeat(x, jnp.array([1, 2]), axis=0)'),
    ('repeat_none', 'jnp.repeat(x, 2)'),
    ('tensordot', 'jnp.tensordot(x, x, axes=([0], [0]))'),
    ('tensordot0', 'jnp.tensordot(x, x, axes=0)'),
    ('mean_empty', 'jnp.mean(jnp.zeros((0,)))'),
    ('mean_int', 'jnp.mean(jnp.arange(4))'),
    ('std_corr', 'jnp.std(x, correction=1.5, axis=1, keepdims=True)'),
    ('var_axes', 'jnp.var(x, axis=(0, 1), correction=0)'),
    ('astype_dev', 'jnp.astype(x, jnp.float32, device=None)'),
    ('astype_c2f', 'jnp.astype(c, jnp.float32)'),
    ('broadcast_arrays', 'jnp.broadcast_arrays(jnp.ones((2, 1)), jnp.ones(3))'),
    ('broadcast_to_err', 'jnp.broadcast_to(jnp.ones(3), (2,))'),
    ('linspace_ep', 'jnp.linspace(0, 1, 5, endpoint=False)'),
    ('linspace_int', 'jnp.linspace(0, 10, 4, dtype=jnp.int32)'),
    ('linspace_c', 'jnp.linspace(0, 1 + 1j, 3)'),
    ('linspace_1', 'jnp.linspace(2.0, 3.0, 1)'),
    ('linspace_0', 'jnp.linspace(2.0, 3.0, 0)'),
    ('zeros_like_dt', 'jnp.zeros_like(x, dtype=jnp.int8)'),
    ('full_like_bool', 'jnp.full_like(x, True)'),
    ('full_like_c', 'jnp.full_like(jnp.ones(2, jnp.int32), 2.5)'),
    ('ones_like_dev', 'jnp.ones_like(x, device=None)'),
    ('cholesky_upper', 'jnp.linalg.cholesky(jnp.array([[4.0, 2.0], [2.0, 3.0]]), upper=True)'),
    ('cholesky_nonpd', 'jnp.linalg.cholesky(jnp.array([[1.0, 2.0], [2.0, 1.0]]))'),
    ('inv_sing', 'jnp.linalg.inv(jnp.array([[1.0, 2.0], [2.0, 4.0]]))'),
    ('pinv_rtol', 'jnp.linalg.pinv(x, rtol=0.1)'),
    ('pinv_batch', 'jnp.linalg.pinv(jnp.ones((2, 2, 3)))'),
    ('solve_vec', 'jnp.linalg.solve(jnp.eye(3), jnp.arange(3.0))'),
    ('solve_batch', 'jnp.linalg.solve(jnp.stack([jnp.eye(2)] * 3), jnp.ones((3, 2)))'),
    ('solve_bcast', 'jnp.linalg.solve(jnp.eye(2)[None], jnp.ones((4, 2, 1)))'),
    ('matrix_norm', "jnp.linalg.matrix_norm(x, ord='nuc', keepdims=True)"),
    ('vector_norm', 'jnp.linalg.vector_norm(x, axis=(0, 1), ord=jnp.inf)'),
    ('vector_norm0', 'jnp.linalg.vector_norm(x, ord=0)'),
    ('svdvals', 'jnp.linalg.svdvals(x)'),
    ('qr_complete', "jnp.linalg.qr(x, mode='complete')"),
    ('trace_dt', 'jnp.linalg.trace(jnp.ones((2, 2), jnp.int8))'),
    ('diagonal_off', 'jnp.linalg.diagonal(x, offset=1)'),
    ('cross', 'jnp.linalg.cross(jnp.ones((2, 3)), jnp.arange(3.0))'),
    ('cumulative_sum', 'jnp.cumulative_sum(x, axis=1, include_initial=True)'),
    ('cumulative_prod', 'jnp.cumulative_prod(jnp.arange(1, 4), include_initial=True)'),
    ('cumsum_u8', 'jnp.cumulative_sum(jnp.ones(3, jnp.uint8))'),
    ('sum_u8', 'jnp.sum(jnp.ones(3, jnp.uint8))'),
    ('prod_i8', 'jnp.prod(jnp.ones(3, jnp.int8))'),
    ('sum_f16', 'jnp.sum(jnp.ones(3, jnp.float16))'),
    ('searchsorted', "jnp.searchsorted(jnp.arange(5.0), jnp.array([1.5, 3.0]), side='right')"),
    ('take_along', 'jnp.take_along_axis(x, jnp.array([[0], [2]]), axis=1)'),
    ('take_ax', 'jnp.take(x, jnp.array([1]), axis=1)'),
    ('count_nonzero', 'jnp.count_nonzero(x, axis=(0, 1), keepdims=True)'),
    ('diff_prepend', 'jnp.diff(jnp.arange(4.0), prepend=jnp.array([9.0]))'),
    ('isin', 'jnp.isin(jnp.arange(4), jnp.array([1, 3]), invert=True)'),
    ('nextafter', 'jnp.nextafter(jnp.float32(1), jnp.float32(2))'),
    ('unique_all', 'jnp.unique_all(jnp.array([3, 1, 3, 2]))'),
    ('unique_counts', 'jnp.unique_counts(jnp.array([3, 1, 3, 2]))'),
    ('unique_inverse', 'jnp.unique_inverse(jnp.array([[3, 1], [3, 2]]))'),
    ('unique_values', 'jnp.unique_values(jnp.array([3.0, jnp.nan, 1.0, jnp.nan]))'),
    ('argsort_desc', 'jnp.argsort(jnp.array([1, 3, 3, 2]), descending=True, stable=True)'),
    ('sort_desc', 'jnp.sort(jnp.array([1.0, jnp.nan, 3.0, -0.0, 0.0]), descending=True)'),
    ('clip_none', 'jnp.clip(x, max=2)'),
    ('clip_int_float', 'jnp.clip(jnp.arange(4), 0.5, 2.5)'),
    ('where_scalar', 'jnp.where(x > 2, x, 0)'),
    ('max_empty_err', 'jnp.max(jnp.zeros(0))'),
    ('expand_dims_err', 'jnp.expand_dims(x, 5)'),
    ('squeeze_err', 'jnp.squeeze(x, axis=0)'),
    ('roll_tuple', 'jnp.roll(x, (1, 1), axis=(0, 1))'),
    ('tile', 'jnp.tile(jnp.arange(2), (2, 2))'),
    ('concat_none', 'jnp.concat([x, x], axis=None)'),
    ('reshape_copy', 'jnp.reshape(x, (3, 2), copy=True)'),
    ('asarray_copy', 'jnp.asarray(x, copy=True)'),
    ('arange_dt', 'jnp.arange(0, 5, 2, dtype=jnp.float32)'),
    ('arange_neg', 'jnp.arange(5, 0, -1.5)'),
    ('eye_k', 'jnp.eye(3, 4, k=-1, dtype=jnp.int8)'),
    ('full_i', 'jnp.full((2,), 3)'),
    ('full_b', 'jnp.full((2,), False)'),
    ('matmul_vec', 'jnp.matmul(jnp.arange(3.0), jnp.ones((3, 2)))'),
    ('pow_int_neg', 'jnp.arange(3) ** -1'),
    ('floordiv_py', '7 // jnp.array([2, -2, 0])'),
    ('rmod', '5.5 % jnp.array([2.0, -2.0])'),
    ('lshift_big', 'jnp.array([1], jnp.int8) << jnp.array([9], jnp.int8)'),
    ('rshift_neg', 'jnp.array([-8], jnp.int32) >> jnp.array([40], jnp.int32)'),
    ('invert_bool', '~jnp.array([True, False])'),
    ('neg_uint', '-jnp.array([1], jnp.uint8)'),
    ('abs_intmin', 'abs(jnp.array([-128], jnp.int8))'),
    ('matmul_int', 'jnp.array([[1, 2]], jnp.int8) @ jnp.array([[100], [100]], jnp.int8)'),
    ('sign_c', 'jnp.sign(jnp.array([3+4j, 0j]))'),
    ('round_c', 'jnp.round(jnp.array([1.5+2.5j]))'),
    ('hypot_inf', 'jnp.hypot(jnp.array([jnp.inf, jnp.nan]), jnp.array([jnp.nan, jnp.inf]))'),
    ('logaddexp_inf', 'jnp.logaddexp(jnp.array([jnp.inf, -jnp.inf]), jnp.array([jnp.inf, -jnp.inf]))'),
    ('copysign_nan', 'jnp.copysign(jnp.array([1.0, jnp.nan]), jnp.array([-0.0, -1.0]))'),
    ('signbit', 'jnp.signbit(jnp.array([-0.0, jnp.nan, -jnp.nan]))'),
    ('real_int', 'jnp.real(jnp.arange(2))'),
    ('conj_f', 'jnp.conj(jnp.arange(2.0))'),
    ('trunc_int', 'jnp.trunc(jnp.arange(2))'),
    ('ceil_int', 'jnp.ceil(jnp.arange(2))'),
    ('square_bool', 'jnp.square(jnp.array([True]))'),
    ('reciprocal_int', 'jnp.reciprocal(jnp.array([2]))'),
]


_CHAIN_UNARY = ["jnp.exp", "jnp.log1p", "jnp.sinh", "jnp.tanh", "jnp.sqrt", "jnp.abs", "jnp.floor",
                "jnp.negative", "jnp.square", "jnp.sign", "jnp.cos", "jnp.reciprocal"]
_CHAIN_BINARY = ["jnp.add", "jnp.subtract", "jnp.multiply", "jnp.divide", "jnp.maximum", "jnp.minimum",
                 "jnp.floor_divide", "jnp.remainder", "jnp.copysign", "jnp.arctan2", "jnp.fmod",
                 "jnp.nextafter", "jnp.power"]
_CHAIN_REDUCE = ["jnp.sum({}, axis=0)", "jnp.max({}, axis=-1, keepdims=True)", "jnp.cumsum({}, axis=0)",
                 "jnp.where({} > 0, {}, 0)"]
_DTYPES = ("float32", "float32", "float16", "bfloat16", "int8", "uint8", "int32", "bool")


def random_programs(n: int, seed: int) -> list[dict]:
    """n random jnp programs: 2-4 ops chained over operands of mixed dtypes and broadcast shapes
    (a: (3, 8), b: (8,), c: (3, 1)), half of them jitted."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        dts = [rng.choice(_DTYPES) for _ in range(3)]
        if not any(d in FLOATS for d in dts):
            dts[0] = rng.choice(FLOATS)
        terms = ["a", "b", "c"]
        expr = rng.choice(terms)
        for _ in range(rng.randint(2, 4)):
            r = rng.random()
            if r < 0.3:
                expr = f"{rng.choice(_CHAIN_UNARY)}({expr})"
            elif r < 0.9:
                other = rng.choice(terms)
                args = (expr, other) if rng.random() < 0.5 else (other, expr)
                expr = f"{rng.choice(_CHAIN_BINARY)}({args[0]}, {args[1]})"
            else:
                expr = rng.choice(_CHAIN_REDUCE).format(expr, expr)
        kinds = [rng.choice(("pool", "rand", "rand")) for _ in range(3)]
        out.append({"id": f"prog.{i}", "expr": expr, "spec": [[d, k] for d, k in zip(dts, kinds)],
                    "jit": i % 2 == 1, "seed": 10_000 + i, "shapes": [[3, 8], [8], [3, 1]]})
    return out


def namespace(case: dict, jnp, jax) -> dict:
    """The globals a case's expression is evaluated in (jnp, jax; a probe's fixed operands)."""
    ns = {"jnp": jnp, "jax": jax}
    if case["id"].startswith("probe."):
        exec(PROBE_PRELUDE, ns)
    return ns


def hosts(case: dict) -> list[tuple[np.ndarray, str]]:
    """The operands of a case as (numpy array, dtype name): the array has the dtype itself, or
    float32 holding bfloat16 values (numpy has no bfloat16); the framework converts it exactly."""
    spec = case["spec"]
    vals = operands([tuple(s) for s in spec], case["seed"])
    shapes = case.get("shapes")
    out = []
    for i, ((dt, _), v) in enumerate(zip(spec, vals)):
        if shapes:
            size = int(np.prod(shapes[i]))
            v = (v * (size // len(v) + 1))[:size]
        host = np.asarray(v, np.float32 if dt == "bfloat16" else dt)
        out.append((host.reshape(shapes[i]) if shapes else host, dt))
    return out
