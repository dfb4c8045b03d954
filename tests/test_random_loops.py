"""The loop-based samplers (gamma and everything built on it, poisson, binomial,
multinomial) and gamma's gradient against JAX's recorded outputs (comparison rules in
random_util.py), on the reference `cpu` device.

Not on every device: their rejection loops compile a few thousand one-off Wasm
kernels for these cases (the Wasm runtime keeps every module it loads, and a store
holds at most 10000), while everything they are built from is checked on every device
by test_random.py, and gamma and poisson are also checked on every device (and in
Pyodide) by test_random_portable.py.
"""
from __future__ import annotations

import pytest

import jaxweb
from random_util import CASES, LOOP_FNS, check_case


@pytest.fixture(autouse=True)
def _on_cpu():
    with jaxweb.default_device(jaxweb.devices("cpu")[0]):
        yield


@pytest.mark.parametrize("name", [c["name"] for c in CASES if c["fn"] in LOOP_FNS])
def test_matches_jax(name):
    check_case(next(c for c in CASES if c["name"] == name))
