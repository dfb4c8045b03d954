"""jaxweb.random against JAX's own outputs, recorded once (tests/data/random_reference.json,
written by tests/data/make_random_reference.py with JAX 0.10; JAX is not needed here):
keys, split/fold_in trees, bits and the samplers without loops (the loop-based ones
are in test_random_loops.py), with the comparison rules of random_util.py.

Every case runs on the reference `cpu` device; EVERY_DEVICE, one case per code path,
also on every device (why not all: see random_util.EVERY_DEVICE).
"""
from __future__ import annotations

import pytest

import jaxweb
from random_util import CASES, ERRORS, EVERY_DEVICE, LOOP_FNS, REF, check_case, flags, run

NAMES = [c["name"] for c in CASES if c["fn"] not in LOOP_FNS]
assert EVERY_DEVICE <= set(NAMES), EVERY_DEVICE - set(NAMES)


def _case(name: str) -> dict:
    return next(c for c in CASES if c["name"] == name)


@pytest.mark.parametrize("name", NAMES)
def test_matches_jax(name):
    with jaxweb.default_device(jaxweb.devices("cpu")[0]):
        check_case(_case(name))


@pytest.mark.on_every_device
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.needs_64bit) if _case(n)["x64"] else n
                                  for n in sorted(EVERY_DEVICE)])
def test_matches_jax_on_every_device(name):
    check_case(_case(name))


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
