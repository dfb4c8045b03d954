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
    return out


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
