"""What the webgpu device tests share (tests/test_webgpu.py, tests/test_webgpu_programs.py): the
device, `check` (the same function on `cpu`, the numpy oracle, and on `webgpu`: values and
dtypes compared) and each test's own random data.

Importing this skips the importing test module where there is no webgpu device (no wgpu-py or
no adapter): the skip raised here is a module-level one.
"""
import zlib

import numpy as np
import pytest

import jaxweb
import jaxweb.numpy as jnp

try:
    GPU = jaxweb.devices("webgpu")[0]
except RuntimeError as e:  # no wgpu-py or no adapter here
    pytest.skip(f"no webgpu device: {e}", allow_module_level=True)
CPU = jaxweb.devices("cpu")[0]


@pytest.fixture(autouse=True)
def own_rng(request):
    """The test module's `rng`, seeded from the test's name: each test draws the same data however
    tests are selected or spread over workers. (One generator for the whole module gave a test
    the draws that whichever tests ran before it in its process left: under `pytest -n 2 --dist
    load` a GEMM test then got inputs its tolerance did not hold for.)"""
    request.module.rng = np.random.default_rng(zlib.crc32(request.node.originalname.encode()))


def on(device, fn, *args):
    with jaxweb.default_device(device):
        out = fn(*[jnp.asarray(a) for a in args])
        return jaxweb.tree_util.tree_map(np.asarray, out)


def check(fn, *args, rtol=0.0, atol=0.0):
    ref, got = on(CPU, fn, *args), on(GPU, fn, *args)
    for r, g in zip(jaxweb.tree_util.tree_leaves(ref), jaxweb.tree_util.tree_leaves(got)):
        assert g.dtype == r.dtype and g.shape == r.shape, (g.dtype, r.dtype, g.shape, r.shape)
        if r.dtype.kind == "c":
            np.testing.assert_allclose(g, r, rtol=rtol, atol=atol)
        elif r.dtype.kind == "f" or r.dtype.name == "bfloat16":
            np.testing.assert_allclose(g.astype(np.float64), r.astype(np.float64), rtol=rtol, atol=atol)
        else:
            np.testing.assert_array_equal(g, r)
