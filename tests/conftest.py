"""Test configuration: run kernel tests on every available device.

Modules marked `on_every_device` run each test once per platform in
KERNEL_PLATFORMS (the reference `cpu` backend and every code generator available
here), under `jaxweb.default_device(...)`. Their expected values come from numpy
or hand derivation, so each device is checked against the same oracle.
"""
import contextlib
import dataclasses
import os

import pytest

import jaxweb
from jaxweb._src import device as _device


#: pytest-pyodide's tests (tests/pyodide/harness.py runs them with pytest-pyodide's own pytest)
collect_ignore = ["pyodide/plain"]


def _available(platform: str) -> bool:
    try:
        return bool(_device._FACTORIES.get(platform)) and bool(jaxweb.devices(platform))
    except RuntimeError:
        return False


# webgpu on a software adapter (lavapipe) is slow: its kernel tests are tests/test_webgpu.py and
# tests/test_webgpu_programs.py (trimmed sizes); JAXWEB_TEST_WEBGPU=1 runs every marked module on it as well.
KERNEL_PLATFORMS = [p for p in ("cpu", "wasm") if _available(p)]
if os.environ.get("JAXWEB_TEST_WEBGPU") == "1" and _available("webgpu"):
    KERNEL_PLATFORMS.append("webgpu")


# webgl exists only in a page: here it runs in headless Chromium through tests/webgl_bridge.py
# (SwiftShader's WebGL2). A sample of the per-device tests runs on it by default (WEBGL_SAMPLE:
# (module, test function)); JAXWEB_TEST_WEBGL=1 runs every marked module on it (~slow).
WEBGL_ALL = os.environ.get("JAXWEB_TEST_WEBGL") == "1"
WEBGL_SAMPLE = {
    ("test_elementwise.py", "test_unary_special_values"), ("test_elementwise.py", "test_int_division_edge_cases"),
    ("test_elementwise.py", "test_binary_special_values"), ("test_elementwise.py", "test_bit_counts_and_not"),
    ("test_elementwise.py", "test_convert_element_type_saturates"), ("test_reductions.py", "test_argmax_argmin"),
    ("test_reductions.py", "test_long_float_sums_stay_accurate"), ("test_reductions.py", "test_bool_reductions"),
    ("test_structural.py", "test_concatenate"), ("test_structural.py", "test_pad"),
    ("test_views.py", "test_view_values_match_numpy"), ("test_dot_conv.py", "test_matmul"),
    ("test_dot_conv.py", "test_conv_general_dilated"), ("test_indexing.py", "test_at_set_add_duplicates"),
    ("test_indexing.py", "test_getitem_out_of_bounds_clamps"), ("test_nn.py", "test_softmax_log_softmax"),
    ("test_control_flow.py", "test_while_loop_values"), ("test_creation.py", "test_eye_tri"),
    ("test_sorting.py", "test_sort_nan_inf_and_signed_zero"), ("test_dtypes.py", "test_weak_scalars_in_arithmetic"),
}


def _webgl_bridge_unavailable() -> str | None:
    try:
        import webgl_bridge
    except ImportError as e:  # selenium missing
        return str(e)
    return webgl_bridge.unavailable()


def _use_webgl_bridge() -> None:
    """Register the bridge's webgl device (once, when a webgl test first runs)."""
    if _device._FACTORIES.get("webgl", (0, None))[1] is not _bridge_factory:
        _device.register_backend("webgl", _bridge_factory, priority=25, may_be_default=lambda: False)


def _bridge_factory():
    import webgl_bridge
    return webgl_bridge.backend()


def _webgl_wanted(metafunc) -> bool:
    name = os.path.basename(str(metafunc.definition.fspath))
    return WEBGL_ALL or (name, metafunc.definition.originalname) in WEBGL_SAMPLE


def pytest_configure(config):
    config.addinivalue_line("markers", "on_every_device: run the test on every available platform")
    config.addinivalue_line("markers", "needs_64bit: uses 64-bit dtypes, which webgpu lacks")


NO_64BIT = {"float64", "int64", "uint64", "complex128"}


def _needs_64bit(request) -> bool:
    """Marked `needs_64bit`, or parametrized with a `dtype` that WGSL has no type for."""
    params = getattr(getattr(request.node, "callspec", None), "params", {})
    return request.node.get_closest_marker("needs_64bit") is not None or str(params.get("dtype")) in NO_64BIT


def pytest_generate_tests(metafunc):
    if metafunc.definition.get_closest_marker("on_every_device"):
        extra = ["webgl"] if _webgl_wanted(metafunc) and _webgl_bridge_unavailable() is None else []
        metafunc.parametrize("kernel_platform", KERNEL_PLATFORMS + extra, indirect=True)


@pytest.fixture(autouse=True)
def kernel_platform(request):
    """The platform a marked test runs on (None, and no device override, when unmarked; a
    module setting REFERENCE_BY_DEFAULT = True runs its unmarked tests on `cpu`)."""
    platform = getattr(request, "param", None)
    if platform is None:
        if getattr(request.module, "REFERENCE_BY_DEFAULT", False):  # unmarked tests of such a module
            with jaxweb.default_device(jaxweb.devices("cpu")[0]):  # run on the reference backend
                yield None
            return
        yield None
        return
    if platform in ("webgpu", "webgl") and _needs_64bit(request):
        pytest.skip(f"{platform} has no 64-bit dtypes; its TypeError is tested in test_{platform}.py")
    if platform == "webgl":
        _use_webgl_bridge()
    with jaxweb.default_device(jaxweb.devices(platform)[0]):
        yield platform


@contextlib.contextmanager
def hardware_gemm(dev, plan=None, prologue: bool = True):
    """`dev` (webgpu) with a hardware adapter's GEMM: the shared-memory kernels of 128 x 128 tiles,
    the routine applying epilogues (of up to 4 outputs) and (`prologue`) computing operands that are not plain reads
    as it loads its tiles, `plan` its GemmCaps.plan (small tiles and K splits; None: none), run
    on whatever adapter is here. Eager flushes' schedules (cached by graph) and compiled programs
    (cached by what they compute), neither keyed by the capabilities, are dropped on the way in
    and out, so that what runs is scheduled and compiled under these."""
    from jaxweb._src import execution
    from jaxweb._src.backends.webgpu import matmul
    from jaxweb._src.compiler.gemm import GemmCaps
    be = dev.backend
    saved = be.tiling, be.capabilities
    be.tiling = matmul.HARDWARE
    be.capabilities = dataclasses.replace(saved[1], gemm=GemmCaps(
        nr=128, min_dim=16, conv=False, pack_min_bytes=1 << 62, epilogue=True, prologue=prologue, epilogue_outs=4,
        max_buffers=saved[1].max_buffers, plan=plan))
    execution._TEMPLATES.pop(id(dev), None)
    be._programs.clear()
    try:
        yield be
    finally:
        be.tiling, be.capabilities = saved
        execution._TEMPLATES.pop(id(dev), None)
        be._programs.clear()
