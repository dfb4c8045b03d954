"""jaxweb's JS shim where no loader registered it: read from the wheel, evaluated, registered.

Installed into any Pyodide (`micropip.install`, PyScript's `packages`, JupyterLite,
`pyodide.loadPackage`), jaxweb finds no `_jaxweb_shim` module on first use. The wheel
carries the shim's ES modules (`js_shim/*.mjs` in git, package data `jaxweb.js_shim` in
the wheel); `register` evaluates them and registers the same `_jaxweb_shim` the loader
(`js_shim/jaxweb.mjs`) makes, with the host's facts from the same `host.mjs` `setup`.

Why function bodies, not `import()` of Blob or data: URLs: an import is a promise, and
Python can wait for one only through JSPI (code entered by `runPythonAsync`); a function
body evaluates synchronously, so the wasm device works under plain `runPython` and in
engines without JSPI too. The shim's modules keep to what `module_function` turns into
a function body: `export` before a top-level declaration, no static imports, and
`import.meta.url` (here a stand-in URL; wasm.mjs's worker gets a Blob or data: URL).

Nothing here runs at `import jaxweb` (a memory snapshot taken after the import must hold
no JS object); `host.shim()` calls `register` the first time a device needs the shim.
"""
from __future__ import annotations

import pkgutil
import re
from typing import Any, Callable

#: The package whose data files are the shim's modules (setup.py maps it onto js_shim/).
SHIM_PACKAGE = "jaxweb.js_shim"
#: The wasm thread pool's worker module, started from a Blob (browser) or data: (Node) URL.
WORKER = "wasm_worker"

_EXPORTED = re.compile(r"^export\s+((?:async\s+)?function\*?|const|let|class)\s+([A-Za-z_$][\w$]*)", re.M)
_UNSUPPORTED = re.compile(r"^(?:import\s+[\w{*'\"]|export\s+(?:default|\{|\*))", re.M)


class ShimSourceError(ValueError):
    """A shim module uses ES module syntax that `module_function` cannot turn into a function."""


def source(name: str) -> str:
    """The text of `js_shim/<name>.mjs` as the installed package carries it."""
    data = pkgutil.get_data(SHIM_PACKAGE, f"{name}.mjs")
    if data is None:
        raise FileNotFoundError(f"{SHIM_PACKAGE} has no {name}.mjs")
    return data.decode("utf-8")


def module_function(text: str, name: str) -> str:
    """A JS function expression `(url) => exports` equivalent to ES module `text`:
    `export` dropped before each top-level declaration, whose names the function returns;
    `import.meta.url` becomes its argument."""
    bad = _UNSUPPORTED.search(text)
    if bad:
        raise ShimSourceError(f"js_shim/{name}.mjs: {bad.group(0)!r} at line "
                              f"{text.count(chr(10), 0, bad.start()) + 1} (only `export` before declarations)")
    names = [m.group(2) for m in _EXPORTED.finditer(text)]
    body = _EXPORTED.sub(r"\1 \2", text).replace("import.meta.url", "__jaxweb_module_url")
    return (f'(function (__jaxweb_module_url) {{\n"use strict";\n{body}\n'
            f'return {{ {", ".join(names)} }};\n}})')


def _evaluate(name: str) -> Any:
    from pyodide.code import run_js  # noqa: PLC0415  (only exists in Pyodide)
    return run_js(module_function(source(name), name))(f"file:///jaxweb/js_shim/{name}.mjs")


def _worker_url() -> Any:
    """wasm_worker.mjs as a URL a Worker can start: a Blob URL in a page, a data: URL in Node."""
    from pyodide.code import run_js  # noqa: PLC0415
    make = run_js("""(text) => typeof process !== 'undefined' && process.versions?.node && typeof window === 'undefined'
      ? new URL('data:text/javascript,' + encodeURIComponent(text))
      : URL.createObjectURL(new Blob([text], { type: 'text/javascript' }))""")
    return make(source(WORKER))


def register(wait: Callable[[Any], Any] | None) -> Any:
    """Evaluate the shim's modules and register them as `_jaxweb_shim`; returns it.

    With `wait` (JSPI is usable now) the host is set up as the loader does it: every
    platform probed, the wasm worker pool started. Without, nothing is awaited: the
    platforms stay unprobed (`host.platform_available` probes one later, if it can wait)
    and wasm kernels run on one thread.
    """
    import js  # noqa: PLC0415
    from pyodide.ffi import register_js_module, to_js  # noqa: PLC0415
    hostjs = _evaluate("host")
    mods = js.Object.new()
    for name in hostjs.SHIM_MODULES:
        setattr(mods, name, _evaluate(name))
    if wait is not None:
        options = to_js({"workerURL": _worker_url()}, dict_converter=js.Object.fromEntries)
        facts = wait(hostjs.setup(mods, options))
    else:
        facts = hostjs.setupSync()
    mods.host = facts
    mods.hostjs = hostjs
    register_js_module("_jaxweb_shim", mods)
    import _jaxweb_shim  # noqa: PLC0415  (just registered)
    return _jaxweb_shim
