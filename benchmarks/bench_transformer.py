"""A transformer block's forward (batch 8, 128 tokens, width 384, 6 heads, MLP 4x, pre-LayerNorm)
in ms per jitted call under three schedules (`MODES`), interleaved over rounds in one process
(best round kept), each after a warm call: "before" (attention's batched products and a product
whose factor has reductions of its own as generic reductions: `compiler.gemm.BATCHED` off),
"gemm" (on the GEMM routines) and "gemm+exp" (also the softmax's exp computed once:
`Capabilities.share_transcendentals`, whatever the backend's default).

  python benchmarks/bench_transformer.py [wasm|webgpu|cpu] [--quick] [--rounds=N]    natively
  node js_shim/node_run.mjs --pyodide DIR --wheel FILE benchmarks/bench_transformer.py wasm
                                                                         in Pyodide (a wasm device there)

Prints per mode: ms/call (synced: each call's value waited for; and the process's CPU time per
call, steadier on a shared machine where the wasm device runs in-process), the launches of one
call (GEMM routines and generic kernels), each kernel's time and, last, the ratios.
"""
from __future__ import annotations

import dataclasses
import sys
import time

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb._src.compiler import gemm
from jaxweb._src.compiler.kernel import Routine
from kernel_trace import kernel_events  # beside this file

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


#: (attention's batched products on the GEMM routines: compiler.gemm.BATCHED, a softmax's exp
#: computed once: Capabilities.share_transcendentals) of each mode compared
MODES = {"before": (False, False), "gemm": (True, False), "gemm+exp": (True, True)}


def jitted_modes(dev, p, x, heads: int) -> dict:
    """{mode: the block jitted, traced and compiled (its first call) under that mode}; prints the
    launches of its second call."""
    backend = dev.backend
    caps, fns, prev = backend.capabilities, {}, gemm.BATCHED
    for mode, (batched, share) in MODES.items():
        gemm.BATCHED = batched
        if hasattr(caps, "share_transcendentals"):  # (an older jaxweb runs every mode as it is)
            backend.capabilities = dataclasses.replace(caps, share_transcendentals=share)
        try:
            f = fns[mode] = jax.jit(lambda p, x: block(p, x, heads))
            jax.block_until_ready(f(p, x))  # traced and compiled (and lazy inputs made)
            ls = launches_of(dev, lambda: f(p, x))  # what a call runs
        finally:
            gemm.BATCHED = prev
            backend.capabilities = caps
        print(f"  {mode}: {len(ls)} launches, {sum(isinstance(k, Routine) for k in ls)} GEMM routines: "
              f"{' '.join(k.name for k in ls)}", flush=True)
    ref = fns["before"](p, x)
    for mode in MODES:
        err = float(jnp.abs(fns[mode](p, x) - ref).max() / jnp.abs(ref).max())
        print(f"  max |{mode} - before| / max |before| = {err:.2e}")
    return fns


def main() -> None:
    dev = jax.devices(ARGS[0])[0] if ARGS else jax.devices()[0]
    b, t, d, heads = (2, 32, 96, 3) if QUICK else (8, 128, 384, 6)
    calls = 2 if QUICK else 5
    name = f"transformer block fwd b{b} t{t} d{d} h{heads} {dev.platform}"
    print(f"{name} ({dev.device_kind}); the backend shares transcendentals: "
          f"{getattr(dev.backend.capabilities, 'share_transcendentals', None)}")
    best, best_cpu = {}, {}
    with jax.default_device(dev):
        p = block_init(jax.random.key(5), d, 4 * d)
        x = jax.random.normal(jax.random.key(6), (b, t, d))
        fns = jitted_modes(dev, p, x, heads)
        for r in range(ROUNDS):
            for mode in (list(MODES) if r % 2 == 0 else list(MODES)[::-1]):  # alternate who goes first
                f = fns[mode]
                jax.block_until_ready(f(p, x))
                t0, c0 = time.perf_counter(), time.process_time()
                for _ in range(calls):
                    jax.block_until_ready(f(p, x))
                ms = (time.perf_counter() - t0) / calls * 1e3
                cpu = (time.process_time() - c0) / calls * 1e3
                best[mode] = min(best.get(mode, ms), ms)
                best_cpu[mode] = min(best_cpu.get(mode, cpu), cpu)
                print(f"  round {r}: {mode:9s} {ms:8.2f} ms/call, CPU {cpu:8.2f} ms/call", flush=True)
        for mode in MODES:
            ks = kernel_events(lambda: fns[mode](p, x))
            print(f"  kernels of one call, {mode} (us, profiled one by one):")
            for kname, us in ks:
                print(f"    {kname[-58:]:58s} {us:9.1f}")
            print(f"    {'sum':58s} {sum(u for _, u in ks):9.1f}")
    for label, got in (("ms/call", best), ("process CPU ms/call", best_cpu)) if best else ():
        ratios = {"gemm/before": ("gemm", "before"), "gemm+exp/gemm": ("gemm+exp", "gemm"),
                  "gemm+exp/before": ("gemm+exp", "before")}
        print(f"{name} {label}: " + ", ".join(f"{m} {got[m]:.2f}" for m in MODES) + "; "
              + ", ".join(f"{r} {got[a] / got[b]:.2f}x" for r, (a, b) in ratios.items()))


if __name__ == "__main__":
    main()
