"""Benchmarks for the wasm backend in CPython (wasmtime): throughput of typical
kernels vs numpy and vs the reference backend, and compile time (Python codegen +
engine compile) per kernel. Prints figures; not a timed test.

    python benchmarks/bench_wasm.py [--quick] [--threads N]

Each kernel runs on a single-threaded runtime and, when N > 1 (default: up to 4
cores), on an N-thread runtime too (rows split over threads sharing one memory).
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from jaxweb._src import dtypes
from jaxweb._src.compiler import expr as E
from jaxweb._src.compiler.kernel import Kernel, gidx, ridx
from jaxweb._src.backends.reference import ReferenceBackend
from jaxweb._src.backends.wasm import codegen
from jaxweb._src.backends.wasm.backend import WasmBackend
from jaxweb._src.backends.wasm.runtime_wasmtime import WasmtimeRuntime, default_threads

F32 = dtypes.float32


def best(fn, reps=5):
    fn()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return min(ts)


def upload(be, arrays):
    hs = []
    for a in arrays:
        h = be.alloc(a.nbytes)
        be.write(h, a.tobytes())
        hs.append(h)
    return hs


BACKENDS: dict = {}


def case(name, kernel, arrays, np_fn, flops, ref_ok=True):
    for threads, wb in BACKENDS.items():
        ins = upload(wb, arrays)
        out = wb.alloc(kernel.size * kernel.out_dtype.itemsize)
        t0 = time.perf_counter()
        wb.program(kernel)
        t_compile = time.perf_counter() - t0
        prog = wb.program(kernel)
        t_wasm = best(lambda: wb.execute(prog, out, ins))
        if threads == 1:
            t_np = best(lambda: np_fn(*arrays))
            line = (f"{name:28s} 1 thread  {t_wasm * 1e3:8.3f} ms {flops / t_wasm / 1e9:6.2f} GFLOP/s  "
                    f"numpy {t_np * 1e3:8.3f} ms (wasm/numpy {t_np / t_wasm:5.2f}x)  "
                    f"compile {t_compile * 1e3:5.1f} ms (codegen {prog.codegen_s * 1e3:.1f} + engine "
                    f"{prog.compile_s * 1e3:.1f}, {prog.nbytes_code} B, simd: {prog.mode})")
            if ref_ok:
                rb = ReferenceBackend()
                rins = upload(rb, arrays)
                rout = rb.alloc(kernel.size * kernel.out_dtype.itemsize)
                t_ref = best(lambda: rb.run(kernel, rout, rins), reps=2)
                line += f"  vs reference {t_ref / t_wasm:6.1f}x"
        else:
            line = f"{name:28s} {threads} threads {t_wasm * 1e3:8.3f} ms {flops / t_wasm / 1e9:6.2f} GFLOP/s"
        print(line, flush=True)
        for h in ins + [out]:
            wb.free(h)


def main(quick=False, threads=None):
    threads = default_threads() if threads is None else threads
    BACKENDS[1] = WasmBackend(WasmtimeRuntime(threads=1))
    if threads > 1:
        BACKENDS[threads] = WasmBackend(WasmtimeRuntime(threads=threads))
    print(f"wasmtime, features {sorted(BACKENDS[1].features)}, threads 1 and {threads}")
    rng = np.random.default_rng(0)
    n = 1 << (18 if quick else 20)
    g = gidx((n,))
    a, b, c = (rng.standard_normal(n).astype(np.float32) for _ in range(3))
    la, lb, lc = (E.load(i, F32, g[0]) for i in range(3))
    case(f"fma a*b+c n={n}", Kernel((n,), la * lb + lc, F32, (F32,) * 3), [a, b, c],
         lambda x, y, z: x * y + z, 2 * n)
    case(f"exp n={n}", Kernel((n,), E.unary("exp", la), F32, (F32,)), [a], np.exp, n)
    case(f"tanh n={n}", Kernel((n,), E.unary("tanh", la), F32, (F32,)), [a], np.tanh, n)
    r = ridx((n,))
    case(f"sum n={n}", Kernel((), E.load(0, F32, r[0]), F32, (F32,), (n,), "add"), [a], np.sum, n)
    rows = 1024
    cols = n // rows
    g2, r2 = gidx((rows,)), ridx((cols,))
    case(f"row max {rows}x{cols}", Kernel((rows,), E.load(0, F32, g2[0] * cols + r2[0]), F32, (F32,), (cols,), "max"),
         [a], lambda x: x.reshape(rows, cols).max(1), n)
    gt = gidx((rows, cols))
    case(f"transpose {cols}x{rows}", Kernel((rows, cols), E.load(0, F32, gt[1] * rows + gt[0]), F32, (F32,)),
         [a], lambda x: np.ascontiguousarray(x.reshape(cols, rows).T), n)
    for m in ((128, 256) if quick else (128, 256, 512, 1024)):
        A = rng.standard_normal((m, m)).astype(np.float32)
        B = rng.standard_normal((m, m)).astype(np.float32)
        gm, rk = gidx((m, m)), ridx((m,))
        body = E.load(0, F32, gm[0] * m + rk[0]) * E.load(1, F32, rk[0] * m + gm[1])
        k = Kernel((m, m), body, F32, (F32, F32), (m,), "add")
        case(f"matmul {m}", k, [A, B], lambda x, y: x @ y, 2 * m ** 3, ref_ok=m <= 128)
    # compile time of a big fused kernel (erf + lgamma + softplus)
    wb = BACKENDS[1]
    t = time.perf_counter()
    big = E.unary("erf", la) + E.unary("lgamma", lb) + E.unary("log1p", E.unary("exp", lc))
    wasm = codegen.build(Kernel((n,), big, F32, (F32,) * 3), wb.features)
    t1 = time.perf_counter()
    wb.rt.load(wasm)
    t2 = time.perf_counter()
    print(f"compile erf+lgamma+softplus: codegen {(t1 - t) * 1e3:.1f} ms, engine {(t2 - t1) * 1e3:.1f} ms, {len(wasm)} B")
    st = wb.stats
    print(f"all kernels above: {st['kernels']} compiled, codegen {st['codegen_s'] * 1e3:.0f} ms, "
          f"engine {st['compile_s'] * 1e3:.0f} ms in total")


if __name__ == "__main__":
    args = sys.argv[1:]
    nthreads = int(args[args.index("--threads") + 1]) if "--threads" in args else None
    main(quick="--quick" in args, threads=nthreads)
