"""The rest of jax (issue 25, part 3) against JAX 0.10.2's recorded outputs, on every device:
jax.image, the lax helpers and scipy.special functions of tests/jax_rest_cases.py (dtype,
weak type, shape, values and error types), plus the transformations JAX's versions support."""
import json
import os

import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from jax_rest_cases import CASES
from jax_replay import replay

pytestmark = pytest.mark.on_every_device

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "jax_rest_reference.json")) as _f:
    REF = json.load(_f)["cases"]
#: case id -> (rtol, atol): jax.image sums up to ~20 float32 products per pixel (values up to
#: 7) in another order than XLA's dot: a few ulps (1 ulp of 4.0 is 4.8e-7) apart
TOL = {c[0]: (1e-5, 2e-6) for c in CASES if c[0].startswith("image.")} | {
    "image.resize.int32.cubic": (1e-5, 1e-4), "image.resize.uint8.linear": (1e-5, 1e-4)}  # values up to 255


#: case id -> {flat index: why jaxweb differs from JAX there} (scipy's values where JAX's are artifacts)
KNOWN = {
    "sp.expn": {10: "E_2(0) = 1/(n-1) = 1 (scipy); JAX 0.10 returns 1/n"},
    "sp.spence.grad": {2: "d/dx spence = ln x / (1 - x) at 1.5 (JAX's piecewise gives nan)"},
}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_matches_jax(case):
    replay(case, REF[case[0]], TOL, KNOWN)


def test_image_resize_differentiates_and_batches():
    img = jnp.asarray(np.arange(20.0, dtype=np.float32).reshape(4, 5) % 7)
    # d/dimg sum(resize(img) * w) = the transposed weights applied to w: JAX 0.10.2's values
    w = jnp.asarray(np.linspace(-1, 1, 21, dtype=np.float32).reshape(3, 7))
    g = jax.grad(lambda x: (jax.image.resize(x, (3, 7), "linear") * w).sum())(img)
    np.testing.assert_allclose(g, np.asarray(GRAD_LINEAR, np.float32), rtol=1e-5, atol=1e-6)
    batched = jax.vmap(lambda x: jax.image.resize(x, (3, 7), "cubic"))(jnp.stack([img, img * 2]))
    np.testing.assert_allclose(batched[1], 2 * jax.image.resize(img, (3, 7), "cubic"), rtol=1e-5, atol=1e-5)
    jitted = jax.jit(lambda x: jax.image.resize(x, (2, 9), "lanczos3"))(img)
    np.testing.assert_allclose(jitted, jax.image.resize(img, (2, 9), "lanczos3"), rtol=1e-5, atol=1e-5)
    assert jax.image.ResizeMethod.from_string("bicubic") is jax.image.ResizeMethod.CUBIC


GRAD_LINEAR = [[-0.97, -0.7599999, -0.77, -0.5000001, -0.43], [-0.6085714, -0.4185714, -0.33, -0.1214286, 0.0085714],
               [-0.0085715, 0.1214285, 0.3299999, 0.4185714, 0.6085714], [0.4300001, 0.5000001, 0.77, 0.7600002, 0.9700001]]


# ---------------------------------------------------------------- jax.lax: values printed by JAX 0.10.2
def test_shape_helpers():
    from jaxweb import lax
    assert lax.conv_general_permutations(("NHWC", "HWIO", "NHWC")) == ((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    assert lax.conv_general_permutations(("NCHW", "OIHW", "NHWC")) == ((0, 1, 2, 3), (0, 1, 2, 3), (0, 3, 1, 2))
    assert lax.conv_general_shape_tuple((1, 5, 7, 3), (3, 3, 3, 8), (2, 1), "SAME", ("NHWC", "HWIO", "NHWC")) == (1, 3, 7, 8)
    assert lax.conv_general_shape_tuple((2, 3, 9, 7), (8, 3, 3, 2), (2, 3), [(1, 2), (0, 1)],
                                        ("NCHW", "OIHW", "NCHW")) == (2, 8, 5, 3)
    assert lax.conv_shape_tuple((2, 3, 9, 7), (8, 3, 3, 2), (1, 2), "VALID") == (2, 8, 7, 3)
    assert lax.conv_shape_tuple((4, 3, 9, 7), (8, 3, 3, 2), (1, 1), [(0, 0), (1, 1)], batch_group_count=2) == (2, 8, 7, 8)
    dn = ("NHWC", "HWIO", "NHWC")
    assert lax.conv_transpose_shape_tuple((1, 5, 7, 3), (3, 3, 3, 8), (2, 2), "SAME", dn) == (1, 10, 14, 8)
    assert lax.conv_transpose_shape_tuple((1, 5, 7, 3), (3, 4, 3, 8), (2, 3), "VALID", dn) == (1, 11, 22, 8)
    assert lax.conv_transpose_shape_tuple((1, 5, 7, 3), (3, 4, 3, 8), (2, 3), [(1, 0), (2, 2)], dn) == (1, 8, 20, 8)
    assert lax.reduce_window_shape_tuple((9, 7), (3, 2), (2, 1), [(1, 1), (0, 0)]) == (5, 6)
    assert lax.reduce_window_shape_tuple((9, 7), (3, 2), (2, 1), [(1, 1), (0, 0)], (2, 1), (1, 3)) == (9, 4)
    with pytest.raises(TypeError, match="must contain the characters 'N' and 'C' exactly once, got NHW"):
        lax.conv_general_permutations(("NHWC", "HWIO", "NHW"))


def test_enums_and_config_types():
    from jaxweb import lax
    assert [m.name for m in lax.RandomAlgorithm] == ["RNG_DEFAULT", "RNG_THREE_FRY", "RNG_PHILOX"]
    assert lax.RandomAlgorithm.RNG_PHILOX == 2 and str(lax.RandomAlgorithm.RNG_PHILOX) == "RNG_PHILOX"
    assert lax.DotAlgorithmPreset.F32_F32_F32.value == 15 and repr(lax.DotAlgorithmPreset.F32_F32_F32) == \
        "DotAlgorithmPreset.F32_F32_F32"
    assert lax.DotAlgorithm("f32", "f32", "f32").num_primitive_operations == 1
    assert [m.value for m in lax.AccuracyMode] == [1, 2]
    assert lax.Tolerance(atol=1e-3).ulps == 0
    with pytest.raises(ValueError, match="At least one of atol"):
        lax.Tolerance()
    dn = lax.RaggedDotDimensionNumbers([[[1], [1]], [[], []]], [0], [0])
    assert dn.dot_dimension_numbers == (((1,), (1,)), ((), ())) and hash(dn) == hash(
        lax.RaggedDotDimensionNumbers((([1], [1]), ([], [])), (0,), (0,)))
    x = jnp.ones((2, 3))
    np.testing.assert_array_equal(lax.dot(x, x.T, precision=lax.DotAlgorithmPreset.DEFAULT), np.full((2, 2), 3.0))


def test_all_to_all_and_pswapaxes():
    from jaxweb import lax
    x = jnp.arange(18.0).reshape(3, 3, 2)

    def a2a(v, s, c, t=False):
        return jax.vmap(lambda u: lax.all_to_all(u, "i", s, c, tiled=t), axis_name="i")(v)
    assert a2a(x, 0, 1).shape == (3, 2, 3) and a2a(x, 0, 0).shape == (3, 3, 2)
    np.testing.assert_array_equal(a2a(x, 0, 1)[1], [[2, 8, 14], [3, 9, 15]])
    assert a2a(jnp.arange(36.0).reshape(3, 6, 2), 0, 1, True).shape == (3, 2, 6)
    np.testing.assert_array_equal(a2a(jnp.arange(24.0).reshape(2, 3, 4), 1, 0, True),
                                  [[[0, 1], [4, 5], [8, 9], [12, 13], [16, 17], [20, 21]],
                                   [[2, 3], [6, 7], [10, 11], [14, 15], [18, 19], [22, 23]]])
    np.testing.assert_array_equal(jax.vmap(lambda u: lax.pswapaxes(u, "i", 0), axis_name="i")(x)[2],
                                  [[4, 5], [10, 11], [16, 17]])
    g = jax.grad(lambda v: (a2a(v, 0, 1) * jnp.arange(18.0).reshape(3, 2, 3)).sum())(x)
    np.testing.assert_array_equal(g[1], [[1, 4], [7, 10], [13, 16]])


def test_composite_stage_and_dce_sink():
    from jaxweb import lax
    c = lax.composite(lambda x, *, n: jnp.sin(x) * n, name="my.op")
    np.testing.assert_allclose(c(jnp.arange(3.0), n=2), [0.0, 1.6829419, 1.8185948], rtol=1e-6)
    text = str(jax.make_jaxpr(lambda x: c(x, n=2))(1.0))
    assert "composite[" in text and "name=my.op" in text and "sin" in text
    np.testing.assert_allclose(jax.jit(lambda x: c(x, n=3))(jnp.arange(3.0)), 3 * np.sin(np.arange(3.0)), rtol=1e-6)
    with pytest.raises(ValueError, match="JVP rule for composite not implemented"):
        jax.grad(lambda x: c(x, n=2))(1.0)
    with pytest.raises(NotImplementedError, match="Batching rule for 'composite'"):
        jax.vmap(lambda x: c(x, n=3))(jnp.arange(3.0))
    s = lax.stage(3)
    assert isinstance(s, jax.Array) and s.dtype == jnp.int32 and s.aval.weak_type
    assert "stage" not in str(jax.make_jaxpr(lambda x: lax.stage(x) + 1)(1.0))
    assert lax.dce_sink(jnp.ones(2)) is None


def test_ragged_dot_grads():
    from jaxweb import lax
    x = jnp.arange(6.0).reshape(6, 1) * jnp.ones((1, 3))
    g = jax.grad(lambda r: lax.ragged_dot(x, r, jnp.array([2, 1, 3])).sum())(jnp.ones((3, 3, 2)))
    np.testing.assert_array_equal(g, np.array([1.0, 2.0, 12.0])[:, None, None] * np.ones((3, 3, 2)))
    g = jax.grad(lambda v: lax.ragged_dot(v, jnp.arange(18.0).reshape(3, 3, 2), jnp.array([2, 1, 2])).sum())(x)
    np.testing.assert_array_equal(g, [[1, 5, 9], [1, 5, 9], [13, 17, 21], [25, 29, 33], [25, 29, 33], [0, 0, 0]])


# ---------------------------------------------------------------- jax.experimental.ode: JAX 0.10.2's values
def test_odeint_values_grads_and_pytrees():
    from jaxweb.experimental.ode import odeint

    def f(y, t, k):
        return -k * y + jnp.sin(t)
    ts = jnp.linspace(0.0, 3.0, 5)
    want = [[1.0, 2.0], [0.8177387118339539, 1.409293293952942], [1.005942463874817, 1.3558802604675293],
            [1.1330697536468506, 1.3400769233703613], [0.9353645443916321, 1.0578207969665527]]
    np.testing.assert_allclose(odeint(f, jnp.array([1.0, 2.0]), ts, 0.7), want, rtol=3e-6)
    np.testing.assert_allclose(jax.grad(lambda k: odeint(f, jnp.array([1.0, 2.0]), ts, k).sum())(0.7),
                               -9.261507, rtol=3e-6)
    np.testing.assert_allclose(jax.grad(lambda y0: odeint(f, y0, ts, 0.7)[-1, 0])(jnp.array([1.0, 2.0])),
                               [0.12245644, 0.0], rtol=3e-6, atol=1e-7)
    out = odeint(lambda y, t: {"a": -y["a"], "b": y["a"].sum()}, {"a": jnp.ones(2), "b": jnp.zeros(())}, ts)
    np.testing.assert_allclose(out["a"][:, 0], [1.0, 0.4723665714263916, 0.2231302112340927, 0.10539927333593369,
                                                0.049787115305662155], rtol=3e-6)
    np.testing.assert_allclose(out["b"], [0.0, 1.0552668571472168, 1.5537407398223877, 1.7892017364501953,
                                          1.9004242420196533], rtol=3e-6)
    with pytest.raises(TypeError, match="t must be an array of floats"):
        odeint(f, jnp.ones(2), jnp.arange(3), 0.7)


# ---------------------------------------------------------------- jax top level (behaviour printed by JAX 0.10.2)
def test_custom_vmap_and_sequential_vmap():
    from jaxweb.custom_batching import custom_vmap, sequential_vmap
    seen = []

    @custom_vmap
    def f(x, y):
        return x + y

    @f.def_vmap
    def rule(axis_size, in_batched, xs, ys):
        seen.append((axis_size, in_batched))
        return xs * ys, True
    assert float(f(1.0, 2.0)) == 3.0
    np.testing.assert_array_equal(jax.vmap(f)(jnp.ones(3), jnp.arange(3.0)), [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(jax.vmap(f, in_axes=(0, None))(jnp.ones(3), 2.0), [2.0, 2.0, 2.0])
    assert seen == [(3, [True, True]), (3, [True, False])]
    np.testing.assert_array_equal(jax.jit(jax.vmap(f))(jnp.ones(3), jnp.arange(3.0)), [0.0, 1.0, 2.0])
    assert "custom_vmap_call[" in str(jax.make_jaxpr(f)(1.0, 2.0))
    assert float(jax.grad(f)(1.0, 2.0)) == 1.0

    @sequential_vmap
    def g(x):
        assert x.shape == (2,)  # called per batch member
        return x.sum()
    np.testing.assert_array_equal(jax.vmap(g)(jnp.arange(6.0).reshape(3, 2)), [1.0, 5.0, 9.0])


def test_fwd_and_bwd():
    fwd, bwd = jax.fwd_and_bwd(lambda x, y: (x * y).sum(), argnums=(0, 1))
    y, res = fwd(jnp.ones(2), jnp.arange(2.0))
    assert float(y) == 1.0
    gx, gy = bwd(res, 1.0)
    np.testing.assert_array_equal(gx, [0.0, 1.0])
    np.testing.assert_array_equal(gy, [1.0, 1.0])
    fwd, bwd = jax.fwd_and_bwd(lambda x, y: ((x * y).sum(), 5), argnums=0, has_aux=True, jitted=False)
    y, res, aux = fwd(jnp.ones(2), jnp.arange(2.0))
    assert aux == 5
    np.testing.assert_array_equal(bwd(res, 2.0), [0.0, 2.0])


def test_refs_and_ds():
    r = jax.new_ref(jnp.arange(8.0))
    np.testing.assert_array_equal(r[jax.ds(2, 3)], [2.0, 3.0, 4.0])
    assert str(jax.typeof(r)) == "Ref{float32[8]}" and isinstance(jax.typeof(r), jax.ref.AbstractRef)
    jax.ref.set(r, jax.ds(1, 2), jnp.array([10.0, 11.0]))
    np.testing.assert_array_equal(jax.ref.get(r), [0, 10, 11, 3, 4, 5, 6, 7])
    jax.ref.addupdate(r, 0, 5.0)
    assert float(jax.ref.swap(r, 7, -1.0)) == 7.0
    np.testing.assert_array_equal(r[jax.ds(0, 3, 2)], [5.0, 11.0, 4.0])

    def f(i):
        s = jax.new_ref(jnp.zeros(6))
        s[jax.ds(i, 2)] = jnp.ones(2)
        return jax.freeze(s)
    np.testing.assert_array_equal(jax.jit(f)(3), [0, 0, 0, 1, 1, 0])
    assert repr(jax.ds(3)) == "Slice(start=0, size=3, stride=1)" and jax.ds(None) == slice(None)


def test_dlpack_and_flags():
    a = jax.dlpack.from_dlpack(np.arange(6.0).reshape(2, 3))
    assert a.dtype == jnp.float32 and a.shape == (2, 3)  # float64 canonicalized, as JAX without x64
    b = jnp.from_dlpack(np.ones(3, np.int8))
    assert b.dtype == jnp.int8
    assert jax.dlpack.is_supported_dtype(jnp.bfloat16) and jax.dlpack.is_supported_dtype(jnp.bool_)
    with pytest.raises(TypeError, match="must have __dlpack__"):
        jnp.from_dlpack([1, 2])
    for flag, name in [(jax.allow_f16_reductions, "jax_allow_f16_reductions"),
                       (jax.debug_key_reuse, "jax_debug_key_reuse"), (jax.softmax_custom_jvp, "jax_softmax_custom_jvp")]:
        before = jax.config.read(name)
        with flag(not before):
            assert jax.config.read(name) == (not before)
        assert jax.config.read(name) == before


def test_custom_root_and_custom_linear_solve():
    """Values and derivatives printed by JAX 0.10.2 for the same programs."""
    from jaxweb import lax

    def newton(f, x0):
        x = x0
        for _ in range(30):
            x = x - f(x) / jax.grad(f)(x)
        return x

    def sqrt_root(a):
        return lax.custom_root(lambda x: x ** 2 - a, 1.0, newton, lambda g, y: y / g(1.0))
    np.testing.assert_allclose(sqrt_root(2.0), 1.4142135, rtol=1e-6)
    np.testing.assert_allclose(jax.grad(sqrt_root)(2.0), 0.35355338, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.grad(sqrt_root))(3.0), 0.28867513, rtol=1e-6)
    np.testing.assert_allclose(jax.jvp(sqrt_root, (2.0,), (1.0,))[1], 0.35355338, rtol=1e-6)
    a = jnp.array([[4.0, 1.0], [1.0, 3.0]])
    b = jnp.array([1.0, 2.0])

    def ls(s):
        solve = lambda m, v: jnp.linalg.solve(jax.jacfwd(m)(v), v)  # noqa: E731
        return lax.custom_linear_solve(lambda x: (a * s) @ x, b, solve, symmetric=True)
    np.testing.assert_allclose(ls(2.0), [0.04545455, 0.3181818], rtol=1e-6)
    np.testing.assert_allclose(jax.grad(lambda s: ls(s).sum())(2.0), -0.18181819, rtol=1e-6)
    m = jnp.array([[4.0, 2.0], [1.0, 3.0]])

    def ls2(v):
        return lax.custom_linear_solve(lambda x: m @ x, v, lambda f, r: jnp.linalg.solve(m, r),
                                       transpose_solve=lambda f, r: jnp.linalg.solve(m.T, r))
    np.testing.assert_allclose(ls2(b), [-0.1, 0.7], rtol=1e-6)
    np.testing.assert_allclose(jax.grad(lambda v: (ls2(v) * jnp.array([1.0, -2.0])).sum())(b), [0.5, -1.0], rtol=1e-6)
    with pytest.raises(TypeError, match="transpose_solve required"):
        jax.grad(lambda v: lax.custom_linear_solve(lambda x: a @ x, v, lambda f, r: jnp.linalg.solve(a, r)).sum())(b)


def test_frompyfunc_ufunc_methods():
    """jnp.frompyfunc's ufunc: call, reduce, accumulate, outer, at, reduceat (JAX 0.10.2's values)."""
    u = jnp.frompyfunc(lambda x, y: x * y + 1, 2, 1, identity=0)
    x = jnp.arange(6.0).reshape(2, 3)
    assert repr(u) == "<jnp.ufunc '<lambda>'>" and (u.nin, u.nout, u.identity) == (2, 1, 0)
    np.testing.assert_array_equal(u(x, 2.0), [[1, 3, 5], [7, 9, 11]])
    np.testing.assert_array_equal(u.reduce(x, axis=1), [5, 26])
    assert float(u.reduce(x, axis=None)) == 326.0
    np.testing.assert_array_equal(u.reduce(x, axis=0, keepdims=True), [[4, 5, 6]])
    np.testing.assert_array_equal(u.reduce(x, axis=1, initial=2.0), [5, 146])
    np.testing.assert_array_equal(u.reduce(x, axis=1, where=jnp.array([True, False, True]), initial=0.0), [3, 6])
    np.testing.assert_array_equal(u.accumulate(x, axis=1), [[0, 1, 3], [3, 13, 66]])
    np.testing.assert_array_equal(u.outer(jnp.arange(3.0), jnp.arange(2.0)), [[1, 1], [1, 2], [1, 3]])
    np.testing.assert_array_equal(u.at(jnp.zeros(4), jnp.array([1, 1, 3]), jnp.array([2.0, 3.0, 4.0]), inplace=False),
                                  [0, 4, 0, 1])
    np.testing.assert_array_equal(u.reduceat(jnp.arange(8.0), jnp.array([0, 4, 1, 5])), [10, 4, 41, 218])
    sq = jnp.frompyfunc(lambda v: v * v, 1, 1)
    np.testing.assert_array_equal(sq(jnp.arange(3)), [0, 1, 4])
    np.testing.assert_array_equal(sq.at(jnp.arange(4.0), jnp.array([0, 2]), inplace=False), [0, 1, 4, 3])
    with pytest.raises(ValueError, match="zero-size array to reduction operation"):
        jnp.frompyfunc(lambda a, b: a + b, 2, 1).reduce(jnp.zeros((0,)))
    with pytest.raises(NotImplementedError, match="cannot operate inplace"):
        u.at(jnp.zeros(4), 1, 2.0)


def test_setdiff1d_with_size_under_jit():
    """JAX's docstring example (jit with a static size) and its padding (0 by default)."""
    f = jax.jit(jnp.setdiff1d, static_argnames=["size"])
    np.testing.assert_array_equal(f(jnp.array([1, 2, 3, 4]), jnp.array([3, 4, 5, 6]), size=2), [1, 2])
    np.testing.assert_array_equal(jnp.setdiff1d(jnp.array([5, 7, 9, 7]), jnp.array([3, 4, 5, 6]), size=4), [7, 9, 0, 0])
    np.testing.assert_array_equal(f(jnp.array([5, 7, 9, 7]), jnp.array([3]), size=4, fill_value=-1), [5, 7, 9, -1])


def test_trim_zeros_on_every_axis():
    """JAX 0.10's trim_zeros(filt, trim, axis): N-d inputs trimmed along the given (default all) axes."""
    x = jnp.zeros((4, 5)).at[1:3, 1:4].set(1)
    np.testing.assert_array_equal(jnp.trim_zeros(x), np.ones((2, 3)))
    np.testing.assert_array_equal(jnp.trim_zeros(x, trim="f"), [[1, 1, 1, 0], [1, 1, 1, 0], [0, 0, 0, 0]])
    assert jnp.trim_zeros(x, axis=0).shape == (2, 5) and jnp.trim_zeros(x, axis=1).shape == (4, 3)
    assert jnp.trim_zeros(x, trim="b", axis=(0, 1)).shape == (3, 4)
    y = jnp.array([0, 0, 2, 0, 1, 4, 3, 0, 0, 0])
    np.testing.assert_array_equal(jnp.trim_zeros(y, "b"), [0, 0, 2, 0, 1, 4, 3])
    np.testing.assert_array_equal(jnp.trim_zeros(y, "x"), y)
    assert jnp.trim_zeros(jnp.zeros((2, 3))).shape == (0, 0) and jnp.trim_zeros(jnp.ones(())).shape == ()


def test_linear_call():
    """JAX's docstring examples of linear_call (values printed by JAX 0.10.2)."""
    import functools
    from jaxweb.custom_derivatives import linear_call

    def div_add(x, denom):
        return x + linear_call(lambda r, v: v / r, lambda r, ct: ct / r, denom, x)

    def transpose(f, x_example):
        return lambda y: jax.linear_transpose(f, x_example)(y)[0]
    assert float(div_add(9.0, 3.0)) == 12.0
    assert float(transpose(functools.partial(div_add, denom=3.0), 1.0)(18.0)) == 24.0
    np.testing.assert_allclose(jax.grad(lambda x: div_add(x, 4.0))(1.0), 1.25)
    assert float(jax.jit(lambda x: div_add(x, 2.0))(4.0)) == 6.0

    def custom_id(x):
        return linear_call(lambda _, v: v, lambda _, ct: 7.0, (), x)
    assert float(custom_id(1.0)) == 1.0 and float(transpose(custom_id, 1.0)(1.0)) == 7.0
    assert float(jax.grad(custom_id)(1.0)) == 7.0 and float(jax.jvp(custom_id, (1.0,), (2.0,))[1]) == 2.0
    with pytest.raises(NotImplementedError, match="Batching rule for 'linear_call'"):
        jax.vmap(lambda x: div_add(x, 2.0))(jnp.arange(3.0))
