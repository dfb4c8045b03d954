"""The kernels one call ran, read from jaxweb.profiler's trace: a helper the benchmarks beside it
import (bench_gpu_speed, bench_webgpu_gemm_sweep, bench_webgpu_gpu, bench_transformer), natively
and in Pyodide (node_run.mjs puts a script's folder on sys.path). Not a benchmark itself.

A kernel event's duration is the GPU's timestamps where the webgpu adapter has them (else the
wall-clock of its submit), and each kernel's wall-clock on wasm.
"""
import glob
import gzip
import json
import tempfile

import jaxweb


def kernel_events(fn) -> list[tuple[str, float]]:
    """[(kernel name, us)] of the kernel events of one `fn()` (waited for) under the profiler,
    in the order they ran."""
    with tempfile.TemporaryDirectory() as folder:
        with jaxweb.profiler.trace(folder):
            jaxweb.block_until_ready(fn())
        path, = glob.glob(f"{folder}/plugins/profile/*/*.trace.json.gz")
        with gzip.open(path, "rt") as f:
            events = json.load(f)["traceEvents"]
    return [(e["name"], e["dur"]) for e in events if e.get("cat") == "kernel"]


if __name__ == "__main__":  # scripts/run_on_gpu.sh runs every benchmarks/*.py
    print("kernel_trace.py: a helper of the benchmarks beside it (no figures)")
