"""jaxweb.random against JAX's own outputs, recorded once (tests/data/random_reference.json,
written by tests/data/make_random_reference.py with JAX 0.10; JAX is not needed here),
on every device: keys, split/fold_in trees, bits and the samplers without loops
(the loop-based ones are in test_random_loops.py). Comparison rules: random_util.py.
"""
from __future__ import annotations

import pytest

import jaxweb
from random_util import CASES, ERRORS, LOOP_FNS, REF, check_case, flags, run

pytestmark = pytest.mark.on_every_device


@pytest.mark.parametrize("name", [c["name"] for c in CASES if c["fn"] not in LOOP_FNS])
def test_matches_jax(name):
    check_case(next(c for c in CASES if c["name"] == name))


def _normalize(msg: str) -> str:
    """JAX's messages without the parts that name live objects (reprs, registries)."""
    for cut in (" for impl=", "; got JitTracer", "Did you mean"):
        msg = msg.split(cut)[0]
    return msg


@pytest.mark.parametrize("name", [c["name"] for c in ERRORS])
def test_errors_match_jax(name):
    c = next(c for c in ERRORS if c["name"] == name)
    want = REF["errors"][name]
    with flags(c), pytest.raises(Exception) as info:
        run(c, jaxweb)
    assert type(info.value).__name__ == want["type"], (info.value, want)
    assert _normalize(str(info.value)).startswith(_normalize(want["message"])), (str(info.value), want["message"])
