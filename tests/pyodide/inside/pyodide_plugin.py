"""pytest plugin loaded inside Pyodide by the harness (`-p pyodide_plugin`).

Not a conftest.py on purpose: CPython's own test run must never pick it up.
It keeps the tests marked `pyodide` (and the harness's own check_*.py),
runs `async def` tests through JSPI, and writes results.json for the host.
"""
from __future__ import annotations

import inspect
import json

import pytest

_results: list[dict] = []


def pytest_configure(config):
    config.addinivalue_line("markers", "pyodide: also runs inside Pyodide (no numpy there)")


def pytest_collection_modifyitems(config, items):
    keep, drop = [], []
    for item in items:
        name = item.path.name
        ok = name.startswith("check_") or item.get_closest_marker("pyodide")
        (keep if ok else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
    items[:] = keep


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """Run coroutine tests to completion with run_sync (we are under runPythonAsync)."""
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    from pyodide.ffi import run_sync
    names = pyfuncitem._fixtureinfo.argnames
    run_sync(pyfuncitem.obj(**{n: pyfuncitem.funcargs[n] for n in names}))
    return True


def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        _results.append({"nodeid": report.nodeid, "when": report.when, "outcome": report.outcome,
                         "seconds": round(report.duration, 4),
                         "longrepr": str(report.longrepr)[-4000:] if report.failed else ""})


def pytest_sessionfinish(session, exitstatus):
    with open("results.json", "w") as f:
        json.dump({"tests": _results}, f)
