"""jaxweb.profiler: JAX's trace API, writing Chrome-trace JSON with each device's kernels."""
import glob
import gzip
import json
import os

import pytest

import jaxweb
import jaxweb.numpy as jnp
from jaxweb import profiler

pytestmark = pytest.mark.on_every_device


def _events(log_dir, name="*.trace.json.gz"):
    files = glob.glob(os.path.join(log_dir, "plugins", "profile", "*", name))
    assert len(files) == 1, files
    with gzip.open(files[0], "rt") as f:
        return json.load(f)


def _complete(data):
    return [e for e in data["traceEvents"] if e["ph"] == "X"]


def test_trace_records_kernels_calls_and_annotations(tmp_path):
    f = jaxweb.jit(lambda a: jnp.tanh(a @ a).sum())
    x = jnp.ones((64, 64))
    f(x).block_until_ready()  # compiled before the trace
    with profiler.trace(tmp_path):
        with profiler.StepTraceAnnotation("train", step_num=3):
            got = float(f(x))
            (x * 2 + 1).block_until_ready()
    assert got == pytest.approx(64 * 64 * float(jnp.tanh(64.0)))
    data = _events(tmp_path)
    assert data["metadata"]["producer"] == "jaxweb.profiler"
    events = _complete(data)
    names = {e["name"] for e in events}
    assert {"train 3", "jit <lambda>", "eager flush"} <= names
    step = next(e for e in events if e["name"] == "train 3")
    assert step["args"] == {"step_num": "3"}
    processes = {e["pid"]: e["args"]["name"] for e in data["traceEvents"]
                 if e["ph"] == "M" and e["name"] == "process_name"}
    device, = x.devices()
    row = device.backend.trace_row()
    kernels = [e for e in events if processes[e["pid"]] == row and e["cat"] == "kernel"]
    assert kernels, events
    assert any("mul" in e["name"] for e in kernels)  # the eager x * 2 + 1
    assert any("dot_general" in e["name"] for e in kernels)
    for e in events:  # on one timeline: inside the step annotation, durations measured
        assert e["dur"] >= 0
        assert step["ts"] <= e["ts"] <= step["ts"] + step["dur"] + 1.0, e
    if device.platform == "webgpu":
        submits = [e for e in events if e["cat"] == "submits"]
        assert submits and all("kernels" in e["args"] for e in submits)
        if device.backend.rt.can_time:
            assert all(e["args"]["timer"] == "gpu timestamps" for e in kernels)
    else:  # kernels run synchronously: they lie inside the jitted call that ran them
        call = next(e for e in events if e["name"] == "jit <lambda>")
        inside = [e for e in kernels if call["ts"] <= e["ts"] <= call["ts"] + call["dur"]]
        assert any("dot_general" in e["name"] for e in inside)


def test_transfers_are_recorded_with_their_bandwidth(tmp_path):
    x = jnp.arange(1000.0) + 1  # computed before the trace
    x.block_until_ready()
    with profiler.trace(tmp_path):
        host = jaxweb.device_get(x)
        jnp.asarray(list(range(10))).block_until_ready()
    assert float(host[999]) == 1000.0
    events = _complete(_events(tmp_path))
    reads = [e for e in events if e["name"] == "device to host (4000 bytes)"]
    assert reads and reads[0]["cat"] == "transfers" and reads[0]["args"]["GB/s"] >= 0
    assert any(e["name"].startswith("host to device") for e in events)


def test_perfetto_trace_has_no_metadata(tmp_path, capsys):
    profiler.start_trace(str(tmp_path), create_perfetto_link=True)
    jnp.sin(jnp.arange(8.0)).block_until_ready()
    profiler.stop_trace()
    assert "perfetto_trace.json.gz" in capsys.readouterr().out
    data = _events(tmp_path, "perfetto_trace.json.gz")
    assert "metadata" not in data
    assert any("sin" in e["name"] for e in _complete(data))


def test_one_trace_at_a_time(tmp_path):
    with pytest.raises(RuntimeError, match="^No profile started$"):
        profiler.stop_trace()
    profiler.start_trace(tmp_path)
    try:
        with pytest.raises(RuntimeError, match="Profile has already been started. Only one profile may be run"):
            profiler.start_trace(tmp_path)
    finally:
        profiler.stop_trace()
    with pytest.raises(RuntimeError, match="No profile started"):
        profiler.stop_trace()
    assert profiler.trace is not None and profiler.ProfileOptions().host_tracer_level == 2


def test_annotations_outside_a_trace_do_nothing_and_keep_the_function(tmp_path):
    @profiler.annotate_function
    def double(v):
        """Doubles."""
        return v * 2

    with profiler.TraceAnnotation("idle", note=1):
        assert float(double(jnp.float32(2.0))) == 4.0
    assert double.__name__ == "double" and double.__doc__ == "Doubles."
    with profiler.trace(tmp_path):
        double(jnp.float32(1.0)).block_until_ready()
    assert any(e["name"] == "test_annotations_outside_a_trace_do_nothing_and_keep_the_function.<locals>.double"
               and e["cat"] == "annotation" for e in _complete(_events(tmp_path)))


def test_webgpu_without_timestamps_times_each_submit(tmp_path, monkeypatch, kernel_platform):
    if kernel_platform != "wasm":
        pytest.skip("one run is enough: it uses the webgpu device by name")
    try:
        gpu = jaxweb.devices("webgpu")[0]
    except RuntimeError:
        pytest.skip("no webgpu device here")
    monkeypatch.setattr(type(gpu.backend.rt), "can_time", property(lambda self: False))
    with jaxweb.default_device(gpu), profiler.trace(tmp_path):
        (jnp.arange(64.0) * 3).block_until_ready()
    events = _complete(_events(tmp_path))
    submits = [e for e in events if e["cat"] == "submits"]
    assert len(submits) == 1 and "mul" in submits[0]["args"]["kernels"] and submits[0]["dur"] > 0
    assert not [e for e in events if e["cat"] == "kernel"]  # no per-kernel times without timestamps
