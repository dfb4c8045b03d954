"""Test configuration: run kernel tests on every available device.

Modules marked `on_every_device` run each test once per platform in
KERNEL_PLATFORMS (the reference `cpu` backend and every code generator available
here), under `jaxweb.default_device(...)`. Their expected values come from numpy
or hand derivation, so each device is checked against the same oracle.
"""
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


# webgpu on a software adapter (lavapipe) is slow: its kernel tests are tests/test_webgpu.py
# (trimmed sizes); JAXWEB_TEST_WEBGPU=1 runs every marked module on it as well.
KERNEL_PLATFORMS = [p for p in ("cpu", "wasm") if _available(p)]
if os.environ.get("JAXWEB_TEST_WEBGPU") == "1" and _available("webgpu"):
    KERNEL_PLATFORMS.append("webgpu")


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
        metafunc.parametrize("kernel_platform", KERNEL_PLATFORMS, indirect=True)


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
    if platform == "webgpu" and _needs_64bit(request):
        pytest.skip("webgpu has no 64-bit dtypes (WGSL); its TypeError is tested in test_webgpu.py")
    with jaxweb.default_device(jaxweb.devices(platform)[0]):
        yield platform
