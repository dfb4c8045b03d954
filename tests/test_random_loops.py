"""The loop-based samplers (gamma and everything built on it, poisson, binomial,
multinomial) and gamma's gradient against JAX's recorded outputs (rules in
random_util.py). Not on every device: their rejection loops run hundreds of ops per
iteration, one kernel each on the eager path, so one device (the default) is
checked here; they are built from the same primitives as the samplers that
test_random.py checks everywhere.
"""
from __future__ import annotations

import pytest

from random_util import CASES, LOOP_FNS, check_case


@pytest.mark.parametrize("name", [c["name"] for c in CASES if c["fn"] in LOOP_FNS])
def test_matches_jax(name):
    check_case(next(c for c in CASES if c["name"] == name))
