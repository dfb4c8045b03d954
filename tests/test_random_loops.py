"""The loop-based samplers (gamma and everything built on it, poisson, binomial,
multinomial) and gamma's gradient against JAX's recorded outputs, on every device
(comparison rules in random_util.py). Separate from test_random.py because these
exercise lax.while_loop under vmap and cost the most time on the eager path.
"""
from __future__ import annotations

import pytest

from random_util import CASES, LOOP_FNS, check_case

pytestmark = pytest.mark.on_every_device


@pytest.mark.parametrize("name", [c["name"] for c in CASES if c["fn"] in LOOP_FNS])
def test_matches_jax(name):
    check_case(next(c for c in CASES if c["name"] == name))
