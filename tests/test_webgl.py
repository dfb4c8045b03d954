"""The webgl device on SwiftShader's WebGL2 (headless Chromium, `--use-angle=swiftshader`),
driven through tests/webgl_bridge.py, against the reference backend and float64 numpy.

The device's own contracts: the dtype error, GLSL errors carrying the source, context loss,
the split reductions, the GEMM routine, unaligned views and writes, and the ulp bound of
every transcendental (ULP below: measured on SwiftShader, listed in the README's device
notes). The per-device kernel modules run on webgl too (conftest.py: a sample by default,
all with JAXWEB_TEST_WEBGL=1); tests/pyodide/inside/check_webgl.py runs it inside Pyodide.
"""
import numpy as np
import pytest

import jaxweb
import jaxweb.numpy as jnp
from jaxweb import lax

import conftest
import webgl_bridge

pytestmark = pytest.mark.skipif(webgl_bridge.unavailable() is not None,
                                reason=f"no headless Chromium: {webgl_bridge.unavailable()}")


@pytest.fixture(scope="module")
def gl():
    conftest._use_webgl_bridge()
    return jaxweb.devices("webgl")[0]


def on(dev, fn, *args):
    with jaxweb.default_device(dev):
        return np.asarray(fn(*[jnp.asarray(a) for a in args]))


def ref(fn, *args):
    return on(jaxweb.devices("cpu")[0], fn, *args)


def test_device_is_software_and_never_default(gl):
    assert gl.platform == "webgl" and gl.backend.software
    assert "webgl" in gl.device_kind and "SwiftShader" in gl.device_kind
    caps = gl.backend.capabilities
    assert not caps.multi_output and not caps.nested_reduce and caps.gemm is not None
    assert jaxweb.default_backend() != "webgl"
    from jaxweb._src.backends import _webgl_may_be_hardware
    assert _webgl_may_be_hardware() is False  # CPython: a page's probe decides


def test_long_fused_kernels_are_split_under_the_size_cap(gl):
    """webgl caps a kernel at MAX_KERNEL_NODES GLSL statements (SwiftShader's JIT time grows
    faster than linearly): a fused chain of 24 tanh (~100 statements each) runs as several
    kernels within the cap, with the reference backend's values."""
    from jaxweb._src.backends.webgl.backend import MAX_KERNEL_NODES
    from jaxweb._src.compiler.kernel_size import kernel_nodes
    caps = gl.backend.capabilities
    assert caps.max_kernel_nodes == MAX_KERNEL_NODES and caps.node_weights.get("tanh") > 50

    def f(x):
        y = x
        for i in range(24):
            y = jnp.tanh(y * 1.5 + 0.25 * i) - y * 0.5
        return y
    x = np.linspace(-2, 2, 1000).astype(np.float32)
    with jaxweb.default_device(gl):
        ks = jaxweb.jit(f).lower(x).compile()._exe.schedule.kernels
    assert len(ks) > 1 and all(kernel_nodes(k, caps.node_weights) <= MAX_KERNEL_NODES for k in ks)
    np.testing.assert_allclose(on(gl, jaxweb.jit(f), x), ref(jaxweb.jit(f), x), rtol=1e-5, atol=1e-5)


def test_selects_and_nan_tests_make_no_branches(gl):
    """ANGLE turns `?:` over expressions and `&&`/`||` whose right side calls a function into
    if/else, and SwiftShader's JIT stalled for minutes on kernels of many (an associative
    scan of maximum; random.split's threefry with runtime shift amounts): the GLSL selects
    with pick() and tests NaNs without short-circuit operators."""
    from jaxweb._src.backends.webgl import codegen
    from jaxweb._src.compiler import expr as E
    from jaxweb._src.compiler.kernel import Kernel
    from jaxweb._src import dtypes
    f32, u32 = dtypes.float32, dtypes.uint32
    g = E.idx("g0", 4)
    x, s = E.load(0, f32, g), E.load(1, u32, g)
    value = E.where(E.binary("lt", x, E.binary("max", x, x * 2.0)), x, E.cast(E.binary("shl", s, s), f32))
    code = codegen.build(Kernel((4,), value, None, (f32, u32))).code
    main = code[code.index("void main()"):]
    assert "?" not in main and "&&" not in main and "||" not in main, main
    x = np.sin(np.arange(1, 9)).astype(np.float32)
    x[5] = np.nan
    with jaxweb.default_device(gl):  # 8 elements: a chain of NaN-maxes in one kernel (it hung)
        got = np.asarray(lax.associative_scan(jnp.maximum, jnp.asarray(x)))
    np.testing.assert_array_equal(got, np.maximum.accumulate(x))


def test_64bit_dtypes_raise_pointing_at_wasm(gl):
    with jaxweb.enable_x64(True), jaxweb.default_device(gl):
        with pytest.raises(TypeError, match="webgl device has no float64.*wasm"):
            np.asarray(jnp.ones(3, jnp.float64) * 2)


def test_glsl_errors_carry_the_source(gl):
    from jaxweb._src.backends.webgl.runtime import GLSLError
    with pytest.raises(GLSLError, match="generated GLSL") as info:
        gl.backend.rt.program("#version 300 es\nvoid main() { nonsense; }", 0)
    assert "nonsense" in str(info.value)


def test_device_put_across_devices(gl):
    x = np.arange(37, dtype=np.float32)
    a = jaxweb.device_put(x, gl)
    assert a.devices() == {gl} if hasattr(a, "devices") else True
    b = jaxweb.device_put(a * 2, jaxweb.devices("cpu")[0])
    np.testing.assert_array_equal(np.asarray(b), x * 2)
    c = jaxweb.device_put(b, gl)
    np.testing.assert_array_equal(np.asarray(c + 1), x * 2 + 1)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "float16", "bfloat16", "bool", "uint32"])
def test_narrow_dtypes_packed(gl, dtype):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(103) * 50).astype(np.float32)
    f = lambda a: lax.convert_element_type(a * 3 - 7, jnp.dtype(dtype))  # noqa: E731
    np.testing.assert_array_equal(on(gl, f, x), ref(f, x))


def test_unaligned_views_and_writes(gl):
    x = np.arange(1000, dtype=np.float32)
    with jaxweb.default_device(gl):
        a = jnp.asarray(x)
        np.testing.assert_array_equal(np.asarray(a[3:517]), x[3:517])
        b = a.at[5:9].set(-1.0)
        np.testing.assert_array_equal(np.asarray(b[:12]), np.r_[x[:5], [-1] * 4, x[9:12]])
        c = jnp.asarray(np.arange(7, dtype=np.int8))
        np.testing.assert_array_equal(np.asarray(c[1:] + 1), np.arange(1, 7) + 1)
        ys = jaxweb.lax.scan(lambda carry, row: (carry + row, carry), jnp.zeros(3), a[:30].reshape(10, 3))[1]
        np.testing.assert_array_equal(np.asarray(ys), np.cumsum(np.r_[[0, 0, 0], x[:27]].reshape(10, 3), 0))


def test_long_reductions_run_in_two_passes(gl):
    from jaxweb._src.backends.webgl.backend import Passes
    x = np.random.default_rng(1).standard_normal(300_000).astype(np.float32)
    with jaxweb.default_device(gl):
        a = jnp.asarray(x)
        got = [np.asarray(v) for v in (jnp.sum(a), jnp.max(a), jnp.sum(a.reshape(3, -1), axis=1))]
    np.testing.assert_allclose(got[0], x.astype(np.float64).sum(), rtol=1e-5, atol=1e-3)
    assert got[1] == x.max()
    np.testing.assert_allclose(got[2], x.reshape(3, -1)[:, :100000].astype(np.float64).sum(1), rtol=1e-5,
                               atol=1e-3)
    assert any(isinstance(p, Passes) for p in gl.backend._programs.values())


@pytest.mark.parametrize("shape", [((64, 48), (48, 80)), ((3, 33, 17), (3, 17, 21)), ((100, 70), (70, 50))])
def test_gemm_routine(gl, shape):
    rng = np.random.default_rng(2)
    a, b = (rng.standard_normal(s).astype(np.float32) for s in shape)
    f = jaxweb.jit(lambda a, b: jnp.maximum(a @ b + 1.0, 0.0))
    got = on(gl, f, a, b)
    np.testing.assert_allclose(got, np.maximum(np.matmul(a.astype(np.float64), b) + 1, 0), rtol=2e-5, atol=2e-5)
    assert any(k.startswith("gemm_f32") for k in gl.backend._programs)


def test_context_loss_is_a_python_exception(gl):
    from jaxweb._src.backends.webgpu.runtime import DeviceLostError
    with jaxweb.default_device(gl):
        a = jnp.arange(10.0) + 1
        a.block_until_ready()
        assert gl.backend.rt.lose_context()
        with pytest.raises(DeviceLostError, match="WebGL context was lost"):
            np.asarray(a * 2)
        # the device made a new context: later work runs
        np.testing.assert_array_equal(np.asarray(jnp.arange(4.0) * 2), [0, 2, 4, 6])
    assert gl.backend.stats["devices_lost"] >= 1


# ulp bounds measured on SwiftShader (float64 numpy as truth): see the README's device table.
ULP = {"exp": 3, "expm1": 3, "log": 3, "log1p": 3, "tanh": 3, "sin": 3, "cos": 3, "tan": 4.5, "arcsin": 3,
       "arccos": 3, "arctan": 3, "sinh": 4, "cosh": 4, "arcsinh": 4, "arccosh": 4, "arctanh": 4,
       "exp2": 3, "sqrt": 1, "cbrt": 3, "erf": 3, "erfc": 7, "logistic": 3}
DOMAIN = {"log": (1e-30, 1e30), "log1p": (-0.99, 1e30), "arcsin": (-1, 1), "arccos": (-1, 1),
          "arccosh": (1, 1e10), "arctanh": (-0.999, 0.999), "sqrt": (0, 1e30), "sinh": (-80, 80),
          "cosh": (-80, 80), "exp": (-80, 80), "expm1": (-80, 80), "exp2": (-120, 120), "sin": (-1e5, 1e5),
          "cos": (-1e5, 1e5), "tan": (-1e5, 1e5)}


def _samples(name):
    lo, hi = DOMAIN.get(name, (-50, 50))
    rng = np.random.default_rng(3)
    if lo > 0:
        x = np.exp(rng.uniform(np.log(max(lo, 1e-30)), np.log(hi), 4000))
    else:
        m = max(abs(lo), abs(hi))
        x = np.sign(rng.standard_normal(4000)) * np.exp(rng.uniform(np.log(1e-6), np.log(m), 4000))
        x = np.clip(x, lo, hi)
    return x.astype(np.float32)


@pytest.mark.parametrize("name", sorted(ULP))
def test_ulp_bounds(gl, name):
    import scipy.special as ss
    fn = {"erf": jaxweb.scipy.special.erf, "erfc": jaxweb.scipy.special.erfc,
          "logistic": jaxweb.nn.sigmoid}.get(name) or getattr(jnp, name)
    truth = {"erf": ss.erf, "erfc": ss.erfc, "logistic": ss.expit}.get(name) or getattr(np, name)
    x = _samples(name)
    got = on(gl, fn, x).astype(np.float64)
    want = truth(x.astype(np.float64))
    ok = np.isfinite(want) & (np.abs(want) < 3e38) & (np.abs(want) > 1e-37)
    ulp = np.spacing(np.abs(want[ok]).astype(np.float32)).astype(np.float64)
    err = np.abs(got[ok] - want[ok]) / ulp
    i = int(np.argmax(err))
    assert err[i] <= ULP[name], (name, float(err[i]), float(x[ok][i]))
