"""jaxweb.profiler: a trace of what ran where, written as a Chrome trace (Perfetto / chrome://tracing).

JAX's profiler records host activity and each device's kernels into TensorBoard's
log directory. jaxweb keeps that interface (`start_trace(log_dir)`, `stop_trace()`,
`trace`, `TraceAnnotation`, `StepTraceAnnotation`, `annotate_function`) and writes
the trace as the JSON that both chrome://tracing and ui.perfetto.dev read, gzipped at
`<log_dir>/plugins/profile/<run>/<host>.trace.json.gz` (TensorBoard's trace file), and
`perfetto_trace.json.gz` beside it when asked.

What is recorded, on one timeline in microseconds since `start_trace`:

- host events: annotations, jitted calls, eager flushes and compilations (pid 1);
- per device (one pid each): its kernels. How long a kernel took depends on what
  the device can say: wasm and cpu run kernels synchronously, so their wall-clock is
  the kernel's time (Pyodide's batched launches are run one by one while tracing);
  webgpu kernels carry GPU timestamps when the adapter has `timestamp-query`
  (placed on the host timeline at the submit that ran them), and otherwise one
  wall-clock event per submit, which waits for the GPU before it ends.

Tracing changes what it measures a little (per-kernel timing gives up the batching
and overlap an untraced run gets); the cost when no trace runs is one global read
per schedule.

This module sits below the backends (they call `active()` and `Session.kernel`), so
it imports nothing of theirs.
"""
from __future__ import annotations

import contextlib
import functools
import os
import time
from typing import Any, Callable, Iterator

_session: "Session | None" = None

HOST_PID = 1


def active() -> "Session | None":
    """The running trace, or None: what backends check before timing anything."""
    return _session


class ProfileOptions:
    """Accepted for JAX compatibility; jaxweb's tracer has no levels to choose."""

    def __init__(self) -> None:
        self.host_tracer_level = 2
        self.device_tracer_level = 1
        self.python_tracer_level = 0
        self.enable_hlo_proto = False
        self.start_timestamp_ns = 0
        self.duration_ms = 0
        self.repository_path = ""
        self.raise_error_on_start_failure = False


class Session:
    """The events of one trace, in Chrome trace event format (complete "X" events)."""

    def __init__(self, log_dir: str, perfetto: bool, link: bool = False):
        self.log_dir, self.perfetto, self.link = log_dir, perfetto, link
        self.t0 = time.perf_counter()
        self.events: list[dict] = []
        self._pids: dict[str, int] = {"host": HOST_PID}
        self._tids: dict[tuple[int, str], int] = {}
        self._meta(HOST_PID, None, "host (Python)")

    def now(self) -> float:
        """Microseconds since the trace started."""
        return (time.perf_counter() - self.t0) * 1e6

    def _meta(self, pid: int, tid: int | None, name: str) -> None:
        ev = {"ph": "M", "pid": pid, "name": "process_name" if tid is None else "thread_name",
              "args": {"name": name}}
        if tid is not None:
            ev["tid"] = tid
        self.events.append(ev)

    def track(self, process: str, thread: str) -> tuple[int, int]:
        """(pid, tid) of a named timeline row, created on first use."""
        pid = self._pids.get(process)
        if pid is None:
            pid = self._pids[process] = len(self._pids) + 1
            self._meta(pid, None, process)
        tid = self._tids.get((pid, thread))
        if tid is None:
            tid = self._tids[(pid, thread)] = len(self._tids) + 1
            self._meta(pid, tid, thread)
        return pid, tid

    def event(self, name: str, ts: float, dur: float, pid: int = HOST_PID, tid: int = 0,
              cat: str = "host", args: dict | None = None) -> None:
        ev = {"ph": "X", "name": name, "cat": cat, "ts": round(ts, 3), "dur": round(max(dur, 0.0), 3),
              "pid": pid, "tid": tid}
        if args:
            ev["args"] = args
        self.events.append(ev)

    def kernel(self, device: str, name: str, ts: float, dur: float, track: str = "kernels",
               args: dict | None = None) -> None:
        """A device event: `device` names the process row (e.g. 'webgpu:0 (NVIDIA)')."""
        pid, tid = self.track(device, track)
        self.event(name, ts, dur, pid, tid, cat="kernel" if track == "kernels" else track, args=args)

    def trace_json(self) -> dict:
        return {"displayTimeUnit": "ms", "traceEvents": self.events,
                "metadata": {"producer": "jaxweb.profiler"}}

    def write(self) -> str:
        """Write the trace files; returns the run's folder."""
        import gzip, json, socket  # noqa: E401, PLC0415  (only a finished trace needs them: `import jaxweb` stays lean)
        run = time.strftime("%Y_%m_%d_%H_%M_%S", time.localtime())
        folder = os.path.join(self.log_dir, "plugins", "profile", run)
        os.makedirs(folder, exist_ok=True)
        host = socket.gethostname() or "localhost"
        data = self.trace_json()
        with gzip.open(os.path.join(folder, f"{host}.trace.json.gz"), "wt", encoding="utf-8") as f:
            json.dump(data, f)
        if self.perfetto:  # Perfetto rejects the metadata field, as JAX notes
            data = {k: v for k, v in data.items() if k != "metadata"}
            with gzip.open(os.path.join(folder, "perfetto_trace.json.gz"), "wt", encoding="utf-8") as f:
                json.dump(data, f)
        return folder


def start_trace(log_dir: "os.PathLike | str", create_perfetto_link: bool = False,
                create_perfetto_trace: bool = False, profiler_options: ProfileOptions | None = None) -> None:
    """Start a trace of host and device activity, saved to `log_dir` by `stop_trace`.

    Only one trace may run at a time: a second `start_trace` raises RuntimeError.
    `create_perfetto_trace` also writes `perfetto_trace.json.gz` (for ui.perfetto.dev).
    `create_perfetto_link` implies it; jaxweb prints the file's path instead of
    serving it (a page cannot open a local port)."""
    global _session
    if _session is not None:
        raise RuntimeError("Profile has already been started. Only one profile may be run at a time.")
    _session = Session(os.fspath(log_dir), create_perfetto_trace or create_perfetto_link, create_perfetto_link)


def stop_trace() -> None:
    """Stop the running trace and write it. RuntimeError if none was started."""
    global _session
    s = _session
    if s is None:
        raise RuntimeError("No profile started")
    _session = None
    folder = s.write()
    if s.link:
        print(f"Perfetto trace written to {os.path.join(folder, 'perfetto_trace.json.gz')}: "
              "open https://ui.perfetto.dev and load it")


@contextlib.contextmanager
def trace(log_dir: "os.PathLike | str", create_perfetto_link: bool = False,
          create_perfetto_trace: bool = False, profiler_options: ProfileOptions | None = None) -> Iterator[None]:
    """`with jaxweb.profiler.trace(log_dir):` — start_trace on entry, stop_trace on exit."""
    start_trace(log_dir, create_perfetto_link, create_perfetto_trace, profiler_options)
    try:
        yield
    finally:
        stop_trace()


class TraceAnnotation:
    """A named host event spanning the `with` block (keyword arguments become its args)."""

    def __init__(self, name: str, **kwargs: Any):
        self.name, self.kwargs = name, kwargs
        self._start: float | None = None

    def __enter__(self) -> "TraceAnnotation":
        s = _session
        self._start = s.now() if s is not None else None
        return self

    def __exit__(self, *exc: Any) -> None:
        s = _session
        if s is not None and self._start is not None:
            s.event(self.name, self._start, s.now() - self._start, cat="annotation",
                    args={k: str(v) for k, v in self.kwargs.items()} or None)


class StepTraceAnnotation(TraceAnnotation):
    """A training step's annotation: named '<name> <step_num>' when `step_num` is given."""

    def __init__(self, name: str, **kwargs: Any):
        step = kwargs.get("step_num")
        super().__init__(name if step is None else f"{name} {step}", **kwargs)


def annotate_function(func: Callable, name: str | None = None, **decorator_kwargs: Any) -> Callable:
    """Decorator: each call of `func` is a TraceAnnotation named after it."""
    label = name or getattr(func, "__qualname__", None) or func.__name__

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with TraceAnnotation(label, **decorator_kwargs):
            return func(*args, **kwargs)
    return wrapper


class _Span:
    """An internal host event (a jitted call, an eager flush) of the running trace."""

    __slots__ = ("name", "args", "_s", "_t")

    def __init__(self, s: Session, name: str, args: dict | None):
        self.name, self.args, self._s = name, args, s

    def __enter__(self) -> None:
        self._t = self._s.now()

    def __exit__(self, *exc: Any) -> None:
        s = self._s
        if _session is s:
            s.event(self.name, self._t, s.now() - self._t, cat="jaxweb", args=self.args)


_NO_SPAN = contextlib.nullcontext()


def host_span(name: str, args: dict | None = None) -> Any:
    """`with host_span(name):` records a host event while a trace runs; otherwise a shared
    no-op context (this sits on the jitted call's path: nothing is allocated there)."""
    s = _session
    return _NO_SPAN if s is None else _Span(s, name, args)
