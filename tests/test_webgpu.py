"""The webgpu device (wgpu-py; Mesa lavapipe on CPU machines) against the reference backend:
elementwise operations, dtypes and reductions.

Every case runs the same function on `cpu` (the numpy oracle) and on `webgpu` and
compares values and dtypes (tests/webgpu_check.py); sizes are small because lavapipe is
slow, but each code path is covered: packed 8/16-bit dtypes, wrap-around, NaN/Inf, views,
empty arrays, per-element and workgroup-tree reductions. GEMMs, jitted programs and the
device's own behaviour (pool, errors, loss) are in tests/test_webgpu_programs.py.
"""
import numpy as np
import pytest

import jaxweb
import jaxweb.numpy as jnp

from webgpu_check import GPU, check, on, own_rng  # noqa: F401 (own_rng: an autouse fixture)

rng = np.random.default_rng(0)  # the module's constants below; each test gets its own (own_rng)


SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.5, 1e-30, 1e30, np.inf, -np.inf, np.nan], np.float32)
X = np.concatenate([SPECIAL, rng.standard_normal(20).astype(np.float32) * 3])
TRIG = np.concatenate([X[np.abs(X) < 1e4], [100.0, -1000.5, 3000.25, 1.5707964, 3.1415927, 6433.7, -8.8e6, 1.6e7],
                       np.arange(1, 40, dtype=np.float32) * np.float32(212345.7)]).astype(np.float32)
POS = np.concatenate([np.abs(X), [1e-38, 3e38]]).astype(np.float32)


@pytest.mark.parametrize("name", ["negative", "abs", "sign", "floor", "ceil", "round", "rint", "isfinite",
                                  "isnan", "square", "reciprocal"])
def test_exact_unary(name):
    check(getattr(jnp, name), X)


@pytest.mark.parametrize("name,x", [("exp", X), ("expm1", X), ("tanh", X), ("log", POS), ("sqrt", POS),
                                    ("log1p", POS), ("sin", TRIG), ("cos", TRIG), ("tan", TRIG), ("arctan", X),
                                    ("sinh", X[X == X][:-2]), ("cbrt", X), ("exp2", X),
                                    ("log1p", np.concatenate([X[X > -1], [-0.999, 1e-5, -4.5e-5]])),
                                    ("scipy.special.erf", X), ("scipy.special.erfc", X)])
def test_transcendental(name, x):
    fn = jnp if "." not in name else jaxweb.scipy.special
    fn = getattr(fn, name.rsplit(".", 1)[-1])
    # fast32 expansions (erf too) and math32's (erfc, log1p) are within 3 ulp; WGSL builtins get a few more
    tight = ("exp", "expm1", "tanh", "log", "log1p", "scipy.special.erf", "scipy.special.erfc")
    check(fn, x, rtol=1e-6 if name in tight else 2e-5, atol=1e-30 if name in tight else 1e-6)


def test_trig_to_the_largest_float32():
    """Cody-Waite below 2**14, Payne-Hanek above (sin(1e30) was -inf, sin(1.7e10) -1.9e18,
    and a 4th part of pi/2 with 11 bits cost 22 ulp at 253): sin and cos within 2.5 ulp of
    float64 libm (tan 4) at every exponent, both signs, and at the float32s nearest a
    multiple of pi/2 (results down to ~1e-8, where the reduction needs all its bits)."""
    hard = [3.1415927, 26.703535, 64.40264, 252.89821, 1011.5928, 2238.3845, 8953.538, 35814.152, 210065.73,
            5.419351e+06, 2.7096755e+06, 1.6646993e+33, 4.386558e+33, 8.773116e+33, 2.7376507e+34,
            6.246897e+34, 7.812328e+35, 1.2614588e+38]  # continued fractions of pi/2 2**-e
    x = np.concatenate([np.logspace(0, 38.5, 600), np.float32(2.0 ** 14) * np.arange(1, 9), hard,
                        [1.7e10, 1.4e14, 1e20, 1e30, 3e38, np.finfo(np.float32).max]]).astype(np.float32)
    x = np.concatenate([x, -x, np.nextafter(x[-len(hard) - 6:], np.float32(0))])
    for name in ("sin", "cos", "tan"):
        got = on(GPU, getattr(jnp, name), x).astype(np.float64)
        want = getattr(np, name)(x.astype(np.float64))
        ulp = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
        err = np.abs(got - want) / ulp
        i = np.argmax(err)
        assert err[i] <= (4.0 if name == "tan" else 2.5), (name, err[i], x[i], got[i], want[i])


@pytest.mark.parametrize("name,tol", [("erf_inv", 4e-7), ("lgamma", 3e-6), ("digamma", 2e-6)])
def test_special_functions_in_float32(name, tol):
    """XLA's float32 algorithms (Giles' erf_inv, Lanczos lgamma/digamma): errors against
    float64 scipy as small as JAX's own (lgamma's worst, 1.71e-6 at 2.93, is JAX's too),
    in units of the larger term where reflection is used; JAX's values at poles and infinities."""
    import scipy.special as ss
    ref = {"erf_inv": ss.erfinv, "lgamma": ss.gammaln, "digamma": ss.digamma}[name]
    if name == "erf_inv":
        x = np.concatenate([np.linspace(-1, 1, 2001), 1 - np.logspace(-7, -1, 50), -np.logspace(-30, 0, 40)])
        special = {1.0: np.inf, -1.0: -np.inf, 2.0: np.nan, -0.0: -0.0, np.nan: np.nan}
    else:
        x = np.concatenate([np.logspace(-30, 30, 200), np.linspace(0.01, 12, 500), np.linspace(-40, 0, 801) + 0.013])
        special = ({0.0: np.inf, -1.0: np.inf, -2.0: np.inf, np.inf: np.inf, -np.inf: np.inf, np.nan: np.nan}
                   if name == "lgamma" else
                   {0.0: np.nan, -1.0: np.nan, -2.0: np.nan, np.inf: np.inf, -np.inf: np.nan, np.nan: np.nan,
                    1e-30: -1e30, -1e30: np.nan})
    x = x.astype(np.float32)
    got = on(GPU, getattr(jaxweb.lax, name), x)
    want = ref(x.astype(np.float64))
    scale = np.maximum(1.0, np.abs(want))
    if name != "erf_inv":
        low = x < 0.5
        scale = np.where(low, np.maximum(scale, np.abs(ref(1 - x.astype(np.float64)))), scale)
        if name == "digamma":
            scale = np.where(low, np.maximum(scale, np.abs(np.pi / np.tan(np.pi * (x - np.round(x))))), scale)
    err = np.abs(got.astype(np.float64) - want) / scale
    assert got.dtype == np.float32 and np.nanmax(err) <= tol, (np.nanmax(err), x[np.nanargmax(err)])
    xs = np.array(list(special), np.float32)
    sgot = on(GPU, getattr(jaxweb.lax, name), xs)
    np.testing.assert_array_equal(sgot, np.array(list(special.values()), np.float32))
    if name == "erf_inv":
        assert np.signbit(sgot[3])  # erf_inv(-0) = -0


def test_logistic_and_nn():
    check(lambda x: (jaxweb.nn.sigmoid(x), jaxweb.nn.relu(x), jaxweb.nn.gelu(x)), X[X == X],
          rtol=3e-6, atol=1e-6)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "maximum", "minimum", "remainder",
                                  "arctan2", "power"])
def test_float_binary(name):
    a, b = np.meshgrid(SPECIAL, SPECIAL)
    if name == "remainder":
        a, b = rng.standard_normal(50).astype(np.float32) * 10, rng.standard_normal(50).astype(np.float32) + 3
    tol = {"arctan2": 1e-5, "power": 2e-5, "remainder": 1e-5}.get(name, 0.0)
    check(getattr(jnp, name), a, b, rtol=tol, atol=1e-30 if tol else 0.0)


@pytest.mark.parametrize("dtype", ["int32", "uint32", "int8", "uint8", "int16", "uint16"])
def test_integer_wraparound(dtype):
    info = np.iinfo(dtype)
    a = np.array([info.min, info.max, 0, 1, -1 if info.min else 2, 7, 100 % (info.max + 1), info.max // 3],
                 dtype)
    b = np.array([1, 1, 0, 3, 2, 0, 5, info.max], dtype)
    check(lambda x, y: (x + y, x - y, x * y, x // y, x % y, -x, x & y, x | y, x ^ y, ~x,
                        jnp.maximum(x, y), x < y, x == y), a, b)
    s = np.array([0, 1, 3, 7, 8, 15, 31, 2], dtype)
    check(lambda x, y: (jnp.left_shift(x, y), jnp.right_shift(x, y), jaxweb.lax.shift_right_logical(x, y),
                        jaxweb.lax.population_count(x), jaxweb.lax.clz(x)), a, s)


def test_casts():
    x = np.array([1.7, -1.7, 1e10, -1e10, np.nan, np.inf, 300.5, -0.0], np.float32)
    check(lambda v: (v.astype(jnp.int32), v.astype(jnp.uint8), v.astype(jnp.int8), v.astype(jnp.uint32),
                     v.astype(jnp.bool_), v.astype(jnp.float16), v.astype(jnp.bfloat16)), x)
    i = np.array([-1, 0, 1, 255, 256, -129, 2**31 - 1, -2**31], np.int32)
    check(lambda v: (v.astype(jnp.float32), v.astype(jnp.uint8), v.astype(jnp.int16), v.astype(jnp.bool_),
                     jaxweb.lax.bitcast_convert_type(v, jnp.float32)), i)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "bool"])
def test_narrow_dtypes(dtype):
    a = (rng.standard_normal(37) * 4).astype(np.float32)
    b = (rng.standard_normal(37) * 4).astype(np.float32)
    check(lambda x, y: (x.astype(dtype) * y.astype(dtype) + x.astype(dtype), x.astype(dtype) > y.astype(dtype),
                        jnp.where(x > 0, x.astype(dtype), y.astype(dtype))), a, b)


def test_views_and_broadcasts():
    a = rng.standard_normal((5, 7, 3)).astype(np.float32)
    check(lambda x: (x.T + 1, x[::2, 1:6:2, ::-1] * 2, jnp.pad(x, ((1, 0), (0, 2), (1, 1))), x.reshape(7, 15),
                     jnp.broadcast_to(x[:, :1, :], (5, 4, 3)), jnp.concatenate([x, x[:, :2]], axis=1),
                     x + x[0], jnp.flip(x, 1)[..., 0]), a)
    check(lambda x: x[:, None, :] - x[None, :, :], a[:, 0, :])


@pytest.mark.parametrize("n", [4, 7, 8, 1027])
def test_vec4_elementwise(n):
    """Elementwise kernels move vec4s: contiguous inputs and sizes that are multiples of 4
    (tails of 1-3 elements stored one by one), beside broadcast, strided and packed operands."""
    before = set(GPU.backend._programs)
    a = rng.standard_normal(n).astype(np.float32)
    b = (rng.standard_normal(n) * 100).astype(np.int32)
    check(lambda x, y: (x * 2 + 1, x + y, y * 3, (x > 0).astype(jnp.uint8), x[::-1] - x), a, b)
    m = rng.standard_normal((n, 3)).astype(np.float32)
    check(lambda x, y: (x * y[:, None], x.T[1] + y, jnp.where(x > 0, x, 0.0) + x[0]), m, a)
    shaders = [p.shader.code for k, p in GPU.backend._programs.items() if k not in before]
    assert any("in0: array<vec4<u32>" in c for c in shaders)
    assert (n % 4 == 0) == any("out0: array<vec4<u32>" in c for c in shaders)


def test_sized_bindings_and_their_unsized_twin():
    """Software adapters declare each binding with the elements its loads can read (no
    per-access arrayLength); where the index bound over-estimates (a masked read past the
    end: padding) and a bound buffer is smaller, the runtime-sized twin runs instead."""
    be = GPU.backend
    assert be.software
    x = rng.standard_normal(64).astype(np.float32)
    before = set(be._programs)
    check(lambda v: (v * 2 + 1, jnp.pad(v, (3, 61)) * 2), x)  # 128 outputs: a static (not widened) kernel
    made = [p for k, p in be._programs.items() if k not in before and hasattr(p, "shader")]
    assert made and all("array<u32, " in p.shader.code or "array<vec4<u32>, " in p.shader.code for p in made)
    assert any(p.unsized is not None and "array<u32>" in p.unsized.shader.code for p in made)


def test_is_flat_reads_only_the_output_position():
    from jaxweb._src.backends.webgpu.codegen import is_flat
    from jaxweb._src.compiler import expr as E
    g0, g1 = E.idx("g0", 5), E.idx("g1", 7)
    assert is_flat(E.const(0, g0.dtype) + g0 * 7 + g1, (5, 7))
    assert is_flat(g1, (1, 7)) and not is_flat(g1, (5, 7))
    assert not is_flat(g0 * 7 + g1 + 1, (5, 7)) and not is_flat(g1 * 5 + g0, (5, 7))


@pytest.mark.parametrize("shape,axis", [((300, 700), 0), ((700, 300), 1)])
def test_reductions_into_many_outputs(shape, axis):
    """More outputs than a software adapter's tree limit: one output per invocation, looping."""
    a = rng.standard_normal(shape).astype(np.float32)
    check(lambda x: (x.sum(axis), x.max(axis) * 2, jnp.argmin(x, axis)), a, rtol=2e-6, atol=1e-4)


def test_long_sums_in_one_invocation_add_blocks():
    """Reductions into many outputs loop in one invocation; long float sums add block sums
    (a running sum of a million 0.1s is 1.0 off; the reference sums pairwise)."""
    with jaxweb.default_device(GPU):
        assert abs(float(jnp.sum(jnp.full((10 ** 6,), 0.1))) - 1e5) < 0.1
        np.testing.assert_allclose(np.asarray(jnp.full((3000, 600), 0.1).sum(0)), 300.0, rtol=1e-6)


def test_contiguous_slices_are_buffer_copies():
    """A batch sliced from a dataset at a new offset each step is a buffer copy, not a new
    shader per offset (the MNIST page compiled two pipelines per training step); odd byte
    offsets (uint8 at 1) and aliasing fall back to the shader, values equal either way."""
    data = rng.integers(0, 255, (64, 12)).astype(np.uint8)
    f = rng.standard_normal((64, 12)).astype(np.float32)
    with jaxweb.default_device(GPU):
        d, g = jnp.asarray(data), jnp.asarray(f)
        step = jaxweb.jit(lambda x, y: (x.astype(jnp.float32) * y).sum())
        np.asarray(step(d[0:8], g[0:8]))
        before = GPU.backend.stats["pipelines"]
        for lo in (8, 16, 40):
            np.testing.assert_allclose(float(step(d[lo:lo + 8], g[lo:lo + 8])),
                                       (data[lo:lo + 8].astype(np.float32) * f[lo:lo + 8]).sum(), rtol=1e-5)
        assert GPU.backend.stats["pipelines"] == before
        np.testing.assert_array_equal(np.asarray(d.reshape(-1)[5:41]), data.reshape(-1)[5:41])
        np.testing.assert_array_equal(np.asarray(g[3:7][1:]), f[4:7])


def test_empty_arrays():
    e = np.zeros((0, 4), np.float32)
    check(lambda x: (x + 1, x.sum(axis=0), x.max(axis=1), x.T @ x, jnp.concatenate([x, x])), e)


def test_one_pipeline_serves_the_extents_up_to_a_power_of_two():
    """A kernel met again at another leading extent runs on its widened kernel's dynamic
    pipeline (the real extent in a uniform): a slicing loop compiles pipelines per power of
    two, not per extent, with the right values at every extent (elementwise, packed 8-bit
    outputs with a tail, vec4 stores, per-invocation and tree reductions)."""
    x = rng.standard_normal((300, 3)).astype(np.float32)
    y = rng.standard_normal((40, 300)).astype(np.float32)

    def f(a, b, n):
        return (a[:n] * 2 + 1, (a[:n] * 10 % 7).astype(jnp.uint8), a[:n, :2].sum(axis=1),
                b[:n] * 3, b[:n].sum(axis=1), jnp.max(b[:n], axis=1))
    be = GPU.backend
    for first, second, third in ((9, 13, 11), (33, 40, 61), (257, 300, 290)):
        check(lambda a, b: f(a, b, first), x, y, rtol=1e-6, atol=1e-5)    # static kernels
        check(lambda a, b: f(a, b, second), x, y, rtol=1e-6, atol=1e-5)   # the widened ones
        made = be.stats["pipelines"]
        check(lambda a, b: f(a, b, third), x, y, rtol=1e-6, atol=1e-5)
        assert be.stats["pipelines"] == made, (first, second, third)  # the same widened pipelines


@pytest.mark.parametrize("shape,axis", [((37,), None), ((6, 9), 1), ((6, 9), 0), ((3000,), None),
                                        ((4, 700), 1), ((2, 3, 5), (0, 2))])
def test_reductions(shape, axis):
    a = rng.standard_normal(shape).astype(np.float32)
    check(lambda x: (x.sum(axis), x.max(axis), x.min(axis), jnp.mean(x, axis), (x > 0).any(axis),
                     (x > -3).all(axis)), a, rtol=2e-6, atol=1e-5)
    check(lambda x: ((x * 10).astype(jnp.int32).sum(axis), (x * 3).astype(jnp.int8).max(axis)), a)
    check(lambda x: (jnp.argmax(x, axis=-1), jnp.prod(x[..., :8] * 0.5 + 1, axis=-1)), a, rtol=2e-6)


def test_int32_bitwise_reductions_eagerly():
    """32 bit-plane reductions, their shift counts lifted into a parameter block: more buffers
    than a kernel binds, which the scheduler must cut counting the block (it raised 'cannot
    build kernel' on lavapipe's 32 bindings)."""
    x = rng.integers(-2 ** 31, 2 ** 31 - 1, (3, 5)).astype(np.int32)
    with jaxweb.default_device(GPU):
        for name, ufunc in (("reduce_and", np.bitwise_and), ("reduce_or", np.bitwise_or),
                            ("reduce_xor", np.bitwise_xor)):
            np.testing.assert_array_equal(np.asarray(getattr(jaxweb.lax, name)(x, (1,))), ufunc.reduce(x, axis=1))


def test_wide_trees_of_hardware_adapters():
    """On a GPU a reduction into few outputs gets 256 invocations per output (codegen's wide
    trees: a loss reduced by one workgroup of 64 took 57 us on the H200), and short ones into
    up to 2^16 outputs a workgroup each; forced here: sums (by subgroups where the adapter has
    them), max, argmin, integer sums, a log-softmax loss, a product with 10 columns."""
    be = GPU.backend
    saved = be.wide_trees
    be.wide_trees = True
    before = set(be._programs)
    try:
        a = rng.standard_normal((5, 3001)).astype(np.float32)
        check(lambda x: (x.sum(), x.max(1), jnp.argmin(x, 1), (x * 10).astype(jnp.int32).sum(1),
                         jnp.mean(jaxweb.nn.log_softmax(x, axis=1)[:, :7] * 3)), a, rtol=2e-5, atol=1e-4)
        b = rng.standard_normal((301, 41)).astype(np.float32)  # short reductions into few outputs: trees too
        check(lambda x: (x.sum(1), x.min(1), x @ x[:10].T, jnp.argmax(x, 1)), b, rtol=2e-5, atol=1e-4)
        codes = [p.shader.code for k, p in be._programs.items() if k not in before and hasattr(p, "shader")]
        assert any(", 256>;" in c and "var<workgroup> part" in c for c in codes)
    finally:
        be.wide_trees = saved


def test_reduction_nan_inf():
    a = np.array([[1.0, np.nan, 3.0], [np.inf, -np.inf, 0.0], [np.inf, 1.0, 2.0]], np.float32)
    check(lambda x: (x.sum(1), x.max(1), x.min(0), jnp.nanmax(x, 1)), a)


def test_softmax_and_layernorm():
    a = rng.standard_normal((5, 300)).astype(np.float32)
    check(lambda x: (jaxweb.nn.softmax(x, axis=-1), jaxweb.nn.standardize(x, axis=-1)), a, rtol=2e-5, atol=1e-6)


def test_complex64_as_float_pairs():
    """The compiler turns complex arrays into float32 pairs before kernels: webgpu runs them."""
    z = (rng.standard_normal(9) + 1j * rng.standard_normal(9)).astype(np.complex64)
    check(lambda a: (a * a + 1j, jnp.exp(a), jnp.abs(a), jnp.sort(a)), z, rtol=1e-5, atol=1e-6)
    check(lambda a: a.reshape(3, 3) @ a.reshape(3, 3).T.conj(), z, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype,named", [("float64", "float64"), ("int64", "int64"), ("uint64", "uint64"),
                                         ("complex128", "float64")])
def test_64bit_dtypes_raise_naming_wasm(dtype, named):
    """WGSL has no 64-bit types: putting such an array on the device raises at once, naming
    the dtype (complex128's parts) and the device that has it; complex64 runs as f32 pairs."""
    x = np.arange(3).astype(dtype)
    with jaxweb.enable_x64(), pytest.raises(TypeError, match=f"webgpu device has no {named}.*wasm"):
        jaxweb.device_put(x, GPU)
    np.testing.assert_allclose(on(GPU, lambda v: v * 1j + 1, x.real.astype(np.float32)), x.real * 1j + 1)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "bool", "uint16", "int16", "float16"])
@pytest.mark.parametrize("n", [28, 27])
def test_narrow_inputs_read_a_word_per_invocation(dtype, n):
    """A narrow input read at the output's own position (uint8 images cast to float32) is
    loaded a u32 word at a time by each 4-lane invocation, each lane taking its byte or half
    (signs extended); where the lanes do not fill whole words, each lane reads its own."""
    x = rng.integers(-300, 300, (41, n)).astype(dtype)
    before = set(GPU.backend._programs)
    check(lambda v: (v.astype(jnp.float32) / 255 + 1,), x)
    codes = [p.shader.code for k, p in GPU.backend._programs.items() if k not in before and hasattr(p, "shader")]
    size = x.dtype.itemsize
    word_reads = any(f"let q0_{size - 1} = in0[t * {size}u + {size - 1}u];" in c for c in codes)
    assert codes and word_reads == (x.size % 4 == 0), codes


def test_index_free_values_are_computed_once_per_invocation():
    """optax's bias correction b1**count (a scalar, a pow per element before) is computed
    before an invocation's loop over its outputs, with the same values."""
    x = rng.standard_normal((64, 33)).astype(np.float32)
    count = np.array(7, np.int32)
    before = set(GPU.backend._programs)
    check(lambda v, c: v / (1 - 0.9 ** c.astype(jnp.float32)) + v[3, 5], x, count, rtol=2e-6, atol=2e-6)
    codes = [p.shader.code for k, p in GPU.backend._programs.items() if k not in before and hasattr(p, "shader")]
    main = [c[c.index("fn main"):] for c in codes if "pow_(" in c[c.index("fn main"):]]
    assert main and all(m.index("pow_(") < m.index("for (var t") for m in main), main
    assert all(m.count("pow_(") == 1 for m in main)
