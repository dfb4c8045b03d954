"""Imports point down the floors (tests/floors.py), at module level, inside functions and in
`importlib.import_module("jaxweb...")` strings; import cycles stay inside one package.

Parsed with `ast` (tests/import_graph.py), so an import inside a function counts as much as one
at the top: import-linter's layers contract would not see the importlib strings.
"""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import eager_path  # noqa: E402
import import_graph as g  # noqa: E402
from floors import FLOORS, floor_of  # noqa: E402

#: Arrows that still point up, each a move issue 24 has not made yet: none are left. The set
#: only shrinks: a new upward import fails the test, and so does an entry that no longer exists.
KNOWN_UPWARD: set[tuple[str, str]] = set()

#: Where `importlib.import_module("jaxweb...")` may appear: package faces that load public
#: modules lazily, and backend registration.
IMPORTLIB_ALLOWED = {"jaxweb", "jaxweb.numpy"}
#: importlib calls still to go, shrinking only: none are left.
KNOWN_IMPORTLIB: set[str] = set()

#: Most function-local project imports there may be (each one downward or sideways, deferring a load).
MAX_LOCAL_IMPORTS = 60

MODS = g.parse()
EDGES = g.edges(MODS)


def _pair(e):
    return (e.src.removeprefix("jaxweb._src."), e.dst.removeprefix("jaxweb._src."))


def test_every_module_is_on_a_floor():
    for name in MODS:
        floor_of(name)  # KeyError names the module


def test_imports_point_down():
    up = {_pair(e): e for e in g.upward(EDGES)}
    new = {p: e for p, e in up.items() if p not in KNOWN_UPWARD}
    assert not new, "imports that point up a floor:\n" + "\n".join(
        f"  {e.src} ({FLOORS[floor_of(e.src)][0]}) -> {e.dst} ({FLOORS[floor_of(e.dst)][0]}), "
        f"{e.kind} import at line {e.line}" for e in new.values())
    gone = KNOWN_UPWARD - set(up)
    assert not gone, f"these arrows no longer point up: drop them from KNOWN_UPWARD: {sorted(gone)}"


def _package(name: str) -> tuple[str, int]:
    """What a cycle may stay inside: one floor's own package (`jaxweb._src.lax`, or the
    modules of that floor directly under `jaxweb._src`, like array and host_arrays)."""
    parts = name.split(".")
    if parts[:2] == ["jaxweb", "_src"] and (len(parts) > 3 or len(parts) == 3 and MODS[name].is_package):
        return ".".join(parts[:3]), floor_of(name)
    return (".".join(parts[:-1]) if len(parts) > 1 else name), floor_of(name)


def test_cycles_stay_inside_one_package():
    known = {(e.src, e.dst) for e in g.upward(EDGES) if _pair(e) in KNOWN_UPWARD}
    es = [e for e in EDGES if (e.src, e.dst) not in known]
    for comp in g.sccs(MODS, es):
        if len(comp) < 2:
            break
        pkgs = {_package(m) for m in comp}
        assert len(pkgs) == 1, f"an import cycle of {len(comp)} modules across {sorted(pkgs)}"


def test_importlib_only_in_package_faces():
    calls = [e for e in EDGES if e.kind == "importlib" and e.src not in IMPORTLIB_ALLOWED | KNOWN_IMPORTLIB]
    gone = KNOWN_IMPORTLIB - {e.src for e in EDGES if e.kind == "importlib"}
    assert not gone, f"no importlib calls left in {sorted(gone)}: drop them from KNOWN_IMPORTLIB"
    assert not calls, "importlib.import_module('jaxweb...') outside the package faces:\n" + "\n".join(
        f"  {e.src} line {e.line}: {e.dst}" for e in calls)


@pytest.mark.parametrize("expr", ["scalar", "asarray", "device_put"])
def test_the_eager_path_never_climbs(expr):
    """From an eager jnp.add to the backend's submit, no call goes up into a module the caller
    imports (up-calls through rule tables and callbacks are how lower floors reach higher ones)."""
    r = eager_path.trace(None, expr)
    assert r["reached_submit"]
    assert not r["climbs"], r["climbs"]


def test_few_function_local_imports():
    local = g.local_statements(EDGES)
    assert len(local) <= MAX_LOCAL_IMPORTS, f"{len(local)} function-local project imports"
