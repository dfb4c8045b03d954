"""jaxweb.onnx on the GPU host: the ResNet-18 export (batch 8, 224x224) and MiniLM (32 x 128
tokens), jitted on the webgpu device, images/s and sentences/s (warm, result waited each call;
three rounds of ten calls, each round after a GPU warm-up: the median of their medians). MiniLM
runs twice, its attention's batched products as generic reductions and on the GEMM routine
(compiler.gemm.BATCHED off / on), the two interleaved in each round.

    bash scripts/run_on_gpu.sh benchmarks/bench_onnx_gpu.py [--small]   # Pyodide + Node + Dawn
    python benchmarks/bench_onnx_gpu.py --small                         # CPython, wgpu-py

The models are benchmarks/data/onnx/*.skeleton.onnx (scripts/export_onnx_models.py --full
writes them): the real graphs with their large weights left out, so the GPU machine needs no
100 MB of carried files; this script writes deterministic stand-in weights (timing does not
depend on their values) into the external-data file they name. --small: batch 1 at 64x64
and 2 x 16 tokens (a quick check on a CPU machine, e.g. Node + Dawn on SwiftShader).
The ceiling the issue names, torch on CUDA, needs a CUDA torch carried to that machine (it has
none and cannot install one); the equivalent figure is recorded beside this one by hand.
"""
import math
import os
import struct
import sys
import time

import jaxweb
import jaxweb.numpy as jnp
import jaxweb.onnx
from jaxweb._src.compiler import gemm

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "onnx")
SMALL = "--small" in sys.argv


def _weights(path: str) -> str:
    """Write the external-data file the skeleton names (deterministic float32s); its folder."""
    from jaxweb._src.onnx.model import _read  # noqa: PLC0415
    from jaxweb._src.onnx.protobuf import decode  # noqa: PLC0415
    from jaxweb._src.onnx.schema import MODEL  # noqa: PLC0415
    proto = decode(_read(path)[0], MODEL)
    total, location = 0, None
    for t in proto["graph"]["initializer"]:
        info = {e["key"]: e["value"] for e in t["external_data"]}
        if info:
            location = info["location"]
            total = max(total, int(info["offset"]) + int(info["length"]))
    out = os.path.join("/tmp", "jaxweb-onnx-weights")
    os.makedirs(out, exist_ok=True)
    target = os.path.join(out, location)
    if not os.path.exists(target) or os.path.getsize(target) != total:
        chunk = struct.pack("<4096f", *(0.02 * math.sin(i * 0.37) for i in range(4096)))
        with open(target, "wb") as f:
            for _ in range(total // len(chunk)):
                f.write(chunk)
            f.write(chunk[: total % len(chunk)])
    return out


def bench(name: str, feeds: dict, per_call: int, unit: str, dev, modes: tuple = (None,)) -> None:
    """`name` jitted on `dev`, once per mode of compiler.gemm.BATCHED (None: as the environment
    says; False / True: attention's batched products as generic reductions / on the GEMM
    routine), the modes' calls interleaved in each round (a clock swing hits them alike)."""
    path = os.path.join(HERE, f"{name}.skeleton.onnx")
    with jaxweb.default_device(dev):
        model = jaxweb.onnx.load(path, base_dir=_weights(path))
        fns, first, outs, rounds = {}, {}, {}, {m: [] for m in modes}
        prev = gemm.BATCHED
        for mode in modes:  # each traced and compiled under its mode
            gemm.BATCHED = mode
            try:
                fns[mode] = jaxweb.jit(lambda p, a: model.apply(p, **a))
                t = time.perf_counter()
                out = outs[mode] = fns[mode](model.params, feeds)
                out.block_until_ready()
                first[mode] = time.perf_counter() - t
            finally:
                gemm.BATCHED = prev
        warm = getattr(dev.backend, "warm_up", None)
        for r in range(1 if SMALL else 3):  # a GPU warm-up before each round: this host's clocks swing
            if warm is not None:
                warm()
            for mode in (modes if r % 2 == 0 else modes[::-1]):
                times = []
                for _ in range(3 if SMALL else 10):
                    t = time.perf_counter()
                    fns[mode](model.params, feeds).block_until_ready()
                    times.append(time.perf_counter() - t)
                rounds[mode].append(sorted(times)[len(times) // 2])
        best = {}
        for mode in modes:
            best[mode] = sorted(rounds[mode])[len(rounds[mode]) // 2]
            spread = " / ".join(f"{x * 1e3:.2f}" for x in rounds[mode])
            label = name if mode is None else f"{name} batched {'on' if mode else 'off'}"
            print(f"{label:10s} {dev.platform:7s} first call {first[mode]:7.2f} s, median {best[mode] * 1e3:9.2f} ms, "
                  f"{per_call / best[mode]:10.1f} {unit}/s  (rounds' medians {spread} ms; "
                  f"finite: {bool(jnp.all(jnp.isfinite(outs[mode])))})", flush=True)
        if False in best and True in best:
            print(f"{name} batched on / off: {best[True] / best[False]:.3f} x", flush=True)


def main() -> None:
    dev = jaxweb.devices("webgpu")[0] if "--wasm" not in sys.argv else jaxweb.devices("wasm")[0]
    b, side = (1, 64) if SMALL else (8, 224)
    n, tokens = (2, 16) if SMALL else (32, 128)
    with jaxweb.default_device(dev):
        images = jnp.sin(jnp.arange(b * 3 * side * side, dtype=jnp.float32) * 0.7311).reshape(b, 3, side, side)
        ids = (1000 + (jnp.arange(n * tokens) * 7919) % 29000).reshape(n, tokens).astype(jnp.int32)
        mask = jnp.ones((n, tokens), jnp.int32)
    print(f"jaxweb.onnx on {dev}: resnet18 batch {b} at {side}x{side}, minilm {n} x {tokens} tokens")
    bench("resnet18", {"images": images}, b, "images", dev)
    bench("minilm", {"input_ids": ids, "attention_mask": mask}, n, "sentences", dev, (False, True))
    print("torch on CUDA (the issue's ceiling): not run — the GPU host has no CUDA build of torch and cannot "
          "install one; no ceiling figure from this script")


if __name__ == "__main__":
    main()
