"""jaxweb's webgpu device on a real GPU: Python in Pyodide under Node 24, Dawn's WebGPU.

    bash scripts/run_on_gpu.sh benchmarks/bench_webgpu_gpu.py [n ...]

(On a CPU machine the same command runs on SwiftShader: slow, but checks the path.)
Runs inside Pyodide, so no numpy: inputs are made on the device, results checked
against values known in closed form. Figures:
- fp32 matmul, jitted: "queued" (CALLS calls, then one wait: what the GPU sustains)
  and "readback" (the whole result read back after every call);
- a 3x3 conv2d (NCHW, SAME), jitted, queued;
- row sums (a workgroup reduction per row; subgroups where the adapter has them);
- a bandwidth-bound elementwise kernel (x * 2 + 1 over 2**26 floats: 512 MB moved), and
  its kernel alone from jaxweb.profiler's GPU timestamps;
- the readback rate of a 64 MB buffer.
Prints a table last (only the end of the output comes back from the device machine).
"""
import sys
import time

import jaxweb
import jaxweb.numpy as jnp
from kernel_trace import kernel_events  # beside this file

CALLS = 10
gpu = jaxweb.devices("webgpu")[0]
be = gpu.backend
info = be.rt.info
print(f"adapter: {info['vendor']} {info['architecture']} {info['description']} software={info['software']}; "
      f"features {info['features']}; GEMM tiling {be.tiling} (tuner: {be.tuned})")
sizes = [int(a) for a in sys.argv[1:]] or ([1024, 2048, 4096, 8192] if not be.software else [256, 512])
rows = []
mm = jaxweb.jit(lambda a, b: a @ b)


def queued(f, *args):
    """Seconds per call of CALLS calls in a row and one wait (what the GPU sustains)."""
    f(*args).block_until_ready()
    t = time.perf_counter()
    for _ in range(CALLS):
        out = f(*args)
    out.block_until_ready()
    return (time.perf_counter() - t) / CALLS


with jaxweb.default_device(gpu):
    for n in sizes:
        i = jnp.arange(n, dtype=jnp.float32)
        a = ((i[:, None] + i[None, :]) % 7 - 3).block_until_ready()   # small integers: exact sums
        b = ((i[:, None] * 3 + i[None, :]) % 5 - 2).block_until_ready()
        c = mm(a, b)
        row0 = c[0, :4].tolist()
        want = [sum(((k % 7) - 3) * (((k * 3 + j) % 5) - 2) for k in range(n)) for j in range(4)]
        assert row0 == want, (n, row0, want)
        per_call = queued(mm, a, b)
        t = time.perf_counter()
        reps = max(2, CALLS // 3)
        for _ in range(reps):
            data = mm(a, b).contiguous_buffer().read()
        readback = (time.perf_counter() - t) / reps
        assert len(data) == 4 * n * n
        rows.append((f"matmul n={n} queued", 2 * n ** 3 / per_call / 1e9, "GFLOP/s"))
        rows.append((f"matmul n={n} + full readback", 2 * n ** 3 / readback / 1e9, "GFLOP/s"))
        print(rows[-2], rows[-1], flush=True)
        del a, b, c, data
    # conv2d, NCHW 3x3 SAME: ones in, so every interior output is Cin * 9
    nb, cin, hw, cout = (32, 64, 56, 128) if not be.software else (2, 8, 16, 16)
    xc = jnp.ones((nb, cin, hw, hw), jnp.float32).block_until_ready()
    wc = jnp.ones((cout, cin, 3, 3), jnp.float32).block_until_ready()
    conv = jaxweb.jit(lambda p, q: jaxweb.lax.conv_general_dilated(p, q, (1, 1), "SAME"))
    out = conv(xc, wc)
    assert out[0, 0, 5, 5].tolist() == cin * 9.0 and out[0, 0, 0, 0].tolist() == cin * 4.0
    dt = queued(conv, xc, wc)
    rows.append((f"conv2d {nb}x{cin}x{hw}x{hw} * {cout}x{cin}x3x3, queued", 2 * nb * hw * hw * cout * cin * 9 / dt / 1e9,
                 "GFLOP/s"))
    del xc, wc, out
    m = 1 << 26 if not be.software else 1 << 22
    x = jnp.arange(m, dtype=jnp.float32).block_until_ready()
    ew = jaxweb.jit(lambda v: v * 2.0 + 1.0)
    dt = queued(ew, x)
    assert ew(x)[5].tolist() == 11.0
    rows.append((f"x*2+1, {m} f32 (read+write)", 8 * m / dt / 1e9, "GB/s"))
    kern = [us for _, us in kernel_events(lambda: ew(x))]  # the kernel's own GPU time (timestamp-query)
    if kern:
        rows.append((f"x*2+1 kernel alone ({len(kern)} kernels)", 8 * m / (sum(kern) * 1e-6) / 1e9, "GB/s"))
    red = jaxweb.jit(lambda v: v.reshape(-1, 4096).sum(axis=1))  # 2^14 rows of 4096: one workgroup each
    dt = queued(red, x)
    assert red(x)[0].tolist() == 4095 * 4096 / 2
    rows.append((f"row sums of {m} f32 (4096 per row)", 4 * m / dt / 1e9, "GB/s"))
    k = min(16 << 20, m)
    z = (jnp.arange(k, dtype=jnp.float32) + 1).block_until_ready()
    t = time.perf_counter()
    z.contiguous_buffer().read()
    rows.append((f"readback {4 * k >> 20} MB", 4 * k / (time.perf_counter() - t) / 1e9, "GB/s"))
print(f"stats: {be.stats}")
print(f"{'case':36s} {'figure':>10s}  unit")
for name, v, unit in rows:
    print(f"{name:36s} {v:10.1f}  {unit}")
