"""`jax.profiler`: traces of host and device activity, viewed in Perfetto or chrome://tracing.

    with jaxweb.profiler.trace("/tmp/trace", create_perfetto_trace=True):
        step(params, batch).block_until_ready()

writes `/tmp/trace/plugins/profile/<run>/perfetto_trace.json.gz` (and TensorBoard's
`<host>.trace.json.gz`): each kernel on its device's row (GPU timestamps on webgpu
where the adapter has `timestamp-query`), jitted calls, eager flushes, compilations
and your `TraceAnnotation`s on the host's. In a page the files are in Pyodide's file
system; read them back with `open(...)` to download or display them.
"""
from jaxweb._src.profiler import (
    ProfileOptions,
    StepTraceAnnotation,
    TraceAnnotation,
    annotate_function,
    start_trace,
    stop_trace,
    trace,
)

__all__ = ["ProfileOptions", "StepTraceAnnotation", "TraceAnnotation", "annotate_function",
           "start_trace", "stop_trace", "trace"]
