"""The Python half of jaxweb's page worker (`js_shim/worker.mjs` imports it as `_jaxweb_worker`).

A page sends cells of Python; this module runs them the way IPython does and
answers with plain JSON, so the JavaScript side never walks Python objects:

- a namespace that lives across cells, with `jax`, `jnp`, `display` and `plot` in it;
- the last expression of a cell echoed with `repr` (`Array([0, 2, 4], dtype=int32)`);
- top-level `await`, and the cell run under the device the page selected;
- tracebacks trimmed to the user's cells: the message first, then only the frames
  of cell code, with the count of frames inside jaxweb / Pyodide that were folded away.

It is plain CPython-compatible Python (tests/test_pages_runtime.py runs it natively); the
only host hook is `emit(kind, json_text)`, a callable the worker installs to stream
rich output (`display`, `plot`) to the page while the cell still runs.
"""
from __future__ import annotations

import ast
import contextlib
import inspect
import json
import linecache
import math
import sys
import time
import traceback
import types
from typing import Any, Callable

#: How rich output leaves the worker; the worker replaces it with a postMessage.
emit: Callable[[str, str], None] = lambda kind, payload: None  # noqa: E731

CELL_PREFIX = "<cell "
#: Largest image `display` sends (pixels); larger arrays are shown as text.
MAX_IMAGE_PIXELS = 512 * 512
#: Points per plotted series; longer series are subsampled evenly.
MAX_PLOT_POINTS = 5000


def device_names() -> list[str]:
    """Platforms that start here, in jaxweb's default-preference order (webgpu, wasm, cpu)."""
    from jaxweb._src import device  # noqa: PLC0415  (imported when the page asks, not at load)
    return device.backends()


def default_device_name() -> str:
    from jaxweb._src import device  # noqa: PLC0415
    return device.default_backend()


# ---------------------------------------------------------------- rich output
def _to_list(x: Any) -> Any:
    tolist = getattr(x, "tolist", None)
    return tolist() if tolist is not None else x


def _flatten(rows: Any) -> list[float]:
    out: list[float] = []
    for r in rows:
        if isinstance(r, (list, tuple)):
            out.extend(_flatten(r))
        else:
            out.append(float(r))
    return out


def display(obj: Any, title: str = "") -> None:
    """Show `obj` below the cell: a 2-D array (or H×W×3/4) as an image, anything else as repr.

    Images are scaled from their min..max to 0..255 (as matplotlib's imshow does by
    default) and sent as gray or RGB(A) bytes in JSON: small, and nothing to decode.
    """
    shape = tuple(getattr(obj, "shape", ()))
    image = len(shape) == 2 or (len(shape) == 3 and shape[2] in (3, 4))
    if image and 0 < shape[0] * shape[1] <= MAX_IMAGE_PIXELS:
        flat = _flatten(_to_list(obj))
        lo, hi = min(flat), max(flat)
        scale = 255.0 / (hi - lo) if hi > lo else 0.0
        data = [int((v - lo) * scale + 0.5) for v in flat]
        channels = 1 if len(shape) == 2 else shape[2]
        emit("image", json.dumps({"height": shape[0], "width": shape[1], "channels": channels,
                                  "data": data, "title": title}))
        return
    emit("text", json.dumps({"text": repr(obj), "title": title}))


def plot(*ys: Any, x: Any = None, title: str = "", labels: list[str] | None = None) -> None:
    """A line plot of one or more series (arrays or lists) against `x` (default 0, 1, 2, ...)."""
    series = [_flatten(_to_list(y)) if not isinstance(y, (int, float)) else [float(y)] for y in ys]
    if not series:
        raise TypeError("plot() needs at least one series")
    n = max(len(s) for s in series)
    xs = _flatten(_to_list(x)) if x is not None else [float(i) for i in range(n)]
    step = max(1, n // MAX_PLOT_POINTS)
    emit("plot", json.dumps({
        "x": xs[::step], "series": [s[::step] for s in series], "title": title,
        "labels": labels or [f"y{i}" if len(series) > 1 else "y" for i in range(len(series))]}))


# ---------------------------------------------------------------- pages' own modules
async def fetch_bytes(url: str) -> bytes:
    """The bytes at `url` (relative to the page), through the browser's fetch."""
    from pyodide.http import pyfetch  # noqa: PLC0415  (Pyodide only)
    resp = await pyfetch(url)
    if not resp.ok:
        raise OSError(f"cannot fetch {url}: HTTP {resp.status}")
    return await resp.bytes()


async def import_url(url: str, name: str) -> types.ModuleType:
    """Import the Python file at `url` as module `name` (a page's helper code, e.g. the
    MNIST trainer), replacing an earlier import of it, so that edits show on reload."""
    source = (await fetch_bytes(url)).decode("utf-8")
    module = types.ModuleType(name)
    module.__file__ = url
    sys.modules[name] = module
    exec(compile(source, url, "exec"), module.__dict__)  # noqa: S102  (the page's own code)
    return module


# ---------------------------------------------------------------- errors
def _is_user_frame(frame: traceback.FrameSummary) -> bool:
    return frame.filename.startswith(CELL_PREFIX)


def format_error(exc: BaseException) -> dict:
    """The page's view of an exception: message first, the user's frames, a fold count.

    `full` keeps the complete traceback for a "show all frames" toggle. A SyntaxError
    has no frames of interest: its line and caret are what the user needs.
    """
    full = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    name = type(exc).__name__
    message = str(exc)
    if isinstance(exc, SyntaxError):
        text = (exc.text or "").rstrip("\n")
        caret = " " * max(0, (exc.offset or 1) - 1) + "^"
        where = f"{exc.filename}, line {exc.lineno}" if exc.lineno else ""
        return {"type": name, "message": exc.msg or message, "frames": [], "hidden": 0,
                "text": f"{name}: {exc.msg}\n  {where}\n    {text}\n    {caret}", "full": full}
    frames = traceback.extract_tb(exc.__traceback__)
    user = [f for f in frames if _is_user_frame(f)]
    # the outer frames are this module's own (run_cell): not the user's, not "internal" either
    hidden = sum(1 for f in frames if not _is_user_frame(f) and f.filename != __file__)
    lines = [f"{name}: {message}" if message else name]
    for f in user:
        cell = f.filename[len(CELL_PREFIX):-1]
        where = f"  cell [{cell}], line {f.lineno}" + (f", in {f.name}" if f.name != "<module>" else "")
        lines.append(where)
        if f.line:
            lines.append(f"    {f.line.strip()}")
    if hidden:
        lines.append(f"  ({hidden} frame{'s' if hidden != 1 else ''} inside jaxweb/Python hidden)")
    return {"type": name, "message": message,
            "frames": [{"cell": f.filename, "line": f.lineno, "code": f.line} for f in user],
            "hidden": hidden, "text": "\n".join(lines), "full": full}


# ---------------------------------------------------------------- cells
class Session:
    """One namespace across cells (a REPL's state); `await run_cell(...)` per cell."""

    def __init__(self) -> None:
        self.count = 0
        self.ns: dict[str, Any] = {"__name__": "__main__", "__builtins__": __builtins__,
                                   "display": display, "plot": plot}
        self._prelude_done = False

    def _prelude(self) -> None:
        """`jax` and `jnp` ready in the namespace, as the page's examples assume."""
        if not self._prelude_done:
            exec("import jaxweb as jax\nimport jaxweb.numpy as jnp\n", self.ns)
            self._prelude_done = True

    def _compile(self, source: str, filename: str) -> tuple[Any, Any]:
        """(body code, last-expression code or None), both allowing top-level await."""
        flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
        tree = ast.parse(source, filename, "exec")
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        body = compile(tree, filename, "exec", flags=flags, dont_inherit=True)
        expr = compile(last, filename, "eval", flags=flags, dont_inherit=True) if last else None
        return body, expr

    async def _eval(self, code: Any) -> Any:
        value = eval(code, self.ns)  # noqa: S307  (running the user's cell is the point)
        if code.co_flags & inspect.CO_COROUTINE:
            value = await value
        return value

    def set_vars(self, payload: str) -> None:
        """Bind names in the namespace from a JSON object (a page passing data to its code:
        no quoting of values into source text)."""
        self.ns.update(json.loads(payload))

    async def run_cell(self, source: str, device: str | None = None, want_json: bool = False,
                       cell: int | None = None) -> str:
        """Run one cell; a JSON object: ok, repr (or null), json (want_json), device, ms, error.

        `cell` is the page's number for it (tracebacks then name the cell the page shows,
        also after a restarted worker began counting anew); by default the next number.
        """
        self.count = cell if cell is not None else self.count + 1
        filename = f"{CELL_PREFIX}{self.count}>"
        # linecache gives tracebacks the cell's source lines, as IPython does
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        t0 = time.perf_counter()
        out: dict[str, Any] = {"ok": True, "cell": self.count, "repr": None, "device": device}
        try:
            self._prelude()
            import jaxweb  # noqa: PLC0415
            ctx = jaxweb.default_device(jaxweb.devices(device)[0]) if device else contextlib.nullcontext()
            out["device"] = device or default_device_name()
            body, expr = self._compile(source, filename)
            with ctx:
                await self._eval(body)
                value = await self._eval(expr) if expr is not None else None
                if value is not None:
                    self.ns["_"] = value
                    out["repr"] = repr(value)  # reading an Array back waits for its device here
                    if want_json:
                        out["json"] = _jsonable(value)
        except BaseException as e:  # noqa: BLE001  (KeyboardInterrupt from Stop included)
            out["ok"] = False
            out["error"] = format_error(e)
        out["ms"] = (time.perf_counter() - t0) * 1e3
        return json.dumps(out)


def _jsonable(value: Any) -> Any:
    """`value` with arrays turned into lists, so the page gets it as JSON."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, float):
        return value if math.isfinite(value) else None  # JSON has no NaN/inf
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    if hasattr(value, "tolist"):
        return _jsonable(value.tolist())
    return repr(value)

