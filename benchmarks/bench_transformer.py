"""A transformer block's forward (batch 8, 128 tokens, width 384, 6 heads, MLP 4x, pre-LayerNorm)
in ms per jitted call, with attention's batched products on the GEMM routines and without
(`compiler.gemm.BATCHED`: off, they are generic reductions, as before issue 22's last clause),
the two interleaved over rounds in one process (best round kept), each after a warm call.

  python benchmarks/bench_transformer.py [wasm|webgpu|cpu] [--quick] [--rounds=N]    natively
  node js_shim/node_run.mjs --pyodide DIR --wheel FILE benchmarks/bench_transformer.py wasm
                                                                         in Pyodide (a wasm device there)

Prints per mode: ms/call (synced: each call's value waited for; and the process's CPU time per
call, steadier on a shared machine where the wasm device runs in-process), the launches of one
call (GEMM routines and generic kernels), each kernel's time and, last, the ratios on/off.
"""
from __future__ import annotations

import glob
import gzip
import json
import sys
import tempfile
import time

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb._src.compiler import gemm
from jaxweb._src.compiler.kernel import Routine

QUICK = "--quick" in sys.argv
ROUNDS = int(next((a.split("=")[1] for a in sys.argv if a.startswith("--rounds=")), 1 if QUICK else 3))
ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]


def block_init(key, d: int, f: int):
    ks = jax.random.split(key, 4)
    s = 1 / d ** 0.5
    return {"qkv": jax.random.normal(ks[0], (d, 3 * d)) * s, "o": jax.random.normal(ks[1], (d, d)) * s,
            "up": jax.random.normal(ks[2], (d, f)) * s, "down": jax.random.normal(ks[3], (f, d)) / f ** 0.5,
            "b_up": jnp.zeros(f), "ln1": jnp.ones(d), "ln2": jnp.ones(d)}


def layer_norm(x, g):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) * jax.lax.rsqrt(v + 1e-5) * g


def block(p, x, heads: int):
    """bench_gpu_speed.py's block: attention heads cut from one projection by reshape and transpose."""
    b, t, d = x.shape
    h = layer_norm(x, p["ln1"])
    q, k, v = jnp.split(h @ p["qkv"], 3, axis=-1)
    q, k, v = (z.reshape(b, t, heads, d // heads).transpose(0, 2, 1, 3) for z in (q, k, v))
    a = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / (d // heads) ** 0.5, axis=-1) @ v
    x = x + a.transpose(0, 2, 1, 3).reshape(b, t, d) @ p["o"]
    h = layer_norm(x, p["ln2"])
    return x + jax.nn.gelu(h @ p["up"] + p["b_up"]) @ p["down"]


def launches_of(dev, fn) -> list:
    backend, seen = dev.backend, []
    orig = backend.submit

    def submit(prepared, *a, **k):
        seen.extend(prepared.schedule.launches)
        return orig(prepared, *a, **k)
    backend.submit = submit
    try:
        jax.block_until_ready(fn())
    finally:
        del backend.submit
    return seen


def kernel_us(fn) -> list:
    """[(kernel, us)] of one call of `fn` under jaxweb.profiler (wasm: each kernel's wall-clock;
    webgpu: GPU timestamps where the adapter has them)."""
    folder = tempfile.mkdtemp()
    with jax.profiler.trace(folder):
        jax.block_until_ready(fn())
    path, = glob.glob(f"{folder}/plugins/profile/*/*.trace.json.gz")
    events = json.load(gzip.open(path, "rt"))["traceEvents"]
    return [(e["name"], e["dur"]) for e in events if e.get("cat") == "kernel"]


def main() -> None:
    dev = jax.devices(ARGS[0])[0] if ARGS else jax.devices()[0]
    b, t, d, heads = (2, 32, 96, 3) if QUICK else (8, 128, 384, 6)
    calls, rounds = (2 if QUICK else 5), ROUNDS
    print(f"transformer block fwd b{b} t{t} d{d} h{heads} on {dev.platform} ({dev.device_kind})")
    with jax.default_device(dev):
        p = block_init(jax.random.key(5), d, 4 * d)
        x = jax.random.normal(jax.random.key(6), (b, t, d))
        fns, best, best_cpu = {}, {}, {}
        for on in (False, True):  # each jitted function is traced and compiled under its mode
            gemm.BATCHED = on
            f = jax.jit(lambda p, x: block(p, x, heads))
            fns[on] = f
            ls = launches_of(dev, lambda: f(p, x))
            names = [k.name for k in ls]
            print(f"  batched products {'on ' if on else 'off'}: {len(ls)} launches, "
                  f"{sum(isinstance(k, Routine) for k in ls)} GEMM routines: {' '.join(names)}")
        gemm.BATCHED = True
        ref = fns[False](p, x)
        err = float(jnp.abs(fns[True](p, x) - ref).max() / jnp.abs(ref).max())
        print(f"  max |on - off| / max |off| = {err:.2e}")
        for r in range(rounds):
            for on in ((False, True) if r % 2 == 0 else (True, False)):  # alternate who goes first
                f = fns[on]
                jax.block_until_ready(f(p, x))
                t0, c0 = time.perf_counter(), time.process_time()
                for _ in range(calls):
                    jax.block_until_ready(f(p, x))
                ms = (time.perf_counter() - t0) / calls * 1e3
                cpu = (time.process_time() - c0) / calls * 1e3
                best[on] = min(best.get(on, ms), ms)
                best_cpu[on] = min(best_cpu.get(on, cpu), cpu)
                print(f"  round {r}: batched {'on ' if on else 'off'} {ms:8.2f} ms/call, CPU {cpu:8.2f} ms/call")
        for on in (False, True):
            ks = kernel_us(lambda: fns[on](p, x))
            print(f"  kernels of one call, batched {'on' if on else 'off'} (us, profiled one by one):")
            for name, us in ks:
                print(f"    {name[-58:]:58s} {us:9.1f}")
            print(f"    {'sum':58s} {sum(u for _, u in ks):9.1f}")
    name = f"transformer block fwd b{b} t{t} d{d} h{heads} {dev.platform}"
    print(f"{name}: batched products off {best[False]:.2f} ms/call, on {best[True]:.2f} ms/call, "
          f"on/off {best[True] / best[False]:.2f}x")
    print(f"{name}: process CPU time, batched products off {best_cpu[False]:.2f} ms/call, on {best_cpu[True]:.2f} "
          f"ms/call, on/off {best_cpu[True] / best_cpu[False]:.2f}x")


if __name__ == "__main__":
    main()
