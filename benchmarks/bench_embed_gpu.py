"""MiniLM (demos/embed/minilm.py) on jaxweb's webgpu device on a real GPU: Python in Pyodide under
Node 24, Dawn's WebGPU.

    bash scripts/run_on_gpu.sh benchmarks/bench_embed_gpu.py [batch tokens] [--synthetic]   (default 256 128)

(On a CPU machine the same command runs on SwiftShader with a tiny batch: slow, but checks the
path.) Runs inside Pyodide, so no numpy. The weights are the package's when its model folder is
here (.cache/minilm-0.1.0) and --synthetic is not given; otherwise (the GPU machine: 91 MB do not
fit the carry) synthetic weights of the same names and shapes, seeded — the same arithmetic, so the same
speed. Figures: sentences/s of the jitted embedding of a batch×tokens batch of token ids on the
device, "queued" (CALLS calls, one wait: what the GPU sustains) and "readback" (the (batch, 384)
result read back after every call), the model's GFLOP/s (dense layers and attention), and that as
a fraction of cuBLAS SGEMM's 51,000 GFLOP/s on the H200 (DEVICE.md: the fp32 ceiling; torch on
CUDA itself is not on that machine: benchmarks/bench_embed_torch.py runs it where it is).
--profile: one more call under jaxweb.profiler, then the kernels that took the most GPU time
(timestamps where the adapter has them), to say where the time goes. Prints a table last.
"""
import math
import os
import sys
import time

import jaxweb
import jaxweb.numpy as jnp
from jaxweb._src import profiler

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "demos", "embed"))
import minilm  # noqa: E402

CALLS = 10
CUBLAS_SGEMM_GFLOPS = 51_000.0  # DEVICE.md, the H200, n = 4096, TF32 off
gpu = jaxweb.devices("webgpu")[0]
be = gpu.backend
info = be.rt.info
args = [int(a) for a in sys.argv[1:] if a.isdigit()]
BATCH, TOKENS = args if len(args) == 2 else ((4, 16) if be.software else (256, 128))
CONFIG = {"hidden_size": 384, "intermediate_size": 1536, "num_hidden_layers": 6, "num_attention_heads": 12,
          "layer_norm_eps": 1e-12, "vocab_size": 30522, "max_position_embeddings": 512, "type_vocab_size": 2}


def checkpoint_shapes(cfg):
    """The checkpoint's tensor names and shapes (BertModel without the pooler)."""
    d, f = cfg["hidden_size"], cfg["intermediate_size"]
    shapes = {"embeddings.word_embeddings.weight": (cfg["vocab_size"], d),
              "embeddings.position_embeddings.weight": (cfg["max_position_embeddings"], d),
              "embeddings.token_type_embeddings.weight": (cfg["type_vocab_size"], d),
              "embeddings.LayerNorm.weight": (d,), "embeddings.LayerNorm.bias": (d,)}
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        for name in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"):
            shapes[p + name + ".weight"], shapes[p + name + ".bias"] = (d, d), (d,)
        shapes[p + "intermediate.dense.weight"], shapes[p + "intermediate.dense.bias"] = (f, d), (f,)
        shapes[p + "output.dense.weight"], shapes[p + "output.dense.bias"] = (d, f), (d,)
        for ln in ("attention.output.LayerNorm", "output.LayerNorm"):
            shapes[p + ln + ".weight"], shapes[p + ln + ".bias"] = (d,), (d,)
    return shapes


def synthetic_model():
    """A MiniLM of the real shapes with seeded weights (scaled like a trained BERT's)."""
    flat = {}
    for k, (name, shape) in enumerate(sorted(checkpoint_shapes(CONFIG).items())):
        n = math.prod(shape)
        if name.endswith("LayerNorm.weight"):
            flat[name] = jnp.ones(shape, jnp.float32)
        else:
            x = jnp.sin(jnp.arange(n, dtype=jnp.float32) * (0.37 + 0.01 * k)).reshape(shape)
            flat[name] = x * (0.05 if len(shape) == 2 else 0.01)
    tok = minilm.WordPiece({"[PAD]": 0, "[UNK]": 100, "[CLS]": 101, "[SEP]": 102})
    return minilm.MiniLM(minilm.prepare(flat), CONFIG, tok)


def model():
    folder = os.path.join(HERE, "..", ".cache", "minilm-0.1.0")
    if "--synthetic" not in sys.argv and os.path.exists(os.path.join(folder, "model.safetensors")):
        return minilm.load(folder), "the package's"
    return synthetic_model(), "synthetic (seeded, same shapes)"


with jaxweb.default_device(gpu):
    print(f"adapter: {info['vendor']} {info['architecture']} {info['description']} software={info['software']}; "
          f"GEMM tiling {be.tiling}")
    m, which = model()
    i = jnp.arange(BATCH * TOKENS, dtype=jnp.int32).reshape(BATCH, TOKENS)
    ids = ((i * 7919) % 29000 + 1000).block_until_ready()
    mask = jnp.ones((BATCH, TOKENS), bool)
    t = time.perf_counter()
    out = m._embed(m.params, ids, mask)
    norms = jnp.linalg.norm(out, axis=-1).tolist()
    first_s = time.perf_counter() - t
    assert all(abs(v - 1) < 1e-3 for v in norms), norms[:4]
    m._embed(m.params, ids, mask).block_until_ready()
    t = time.perf_counter()
    for _ in range(CALLS):
        out = m._embed(m.params, ids, mask)
    out.block_until_ready()
    queued = (time.perf_counter() - t) / CALLS
    t = time.perf_counter()
    reps = max(2, CALLS // 3)
    for _ in range(reps):
        m._embed(m.params, ids, mask).tolist()
    readback = (time.perf_counter() - t) / reps
    flops = minilm.model_flops(BATCH, TOKENS)
    if "--profile" in sys.argv:
        profiler.start_trace("/tmp/jaxweb-embed-trace")
        t_traced = time.perf_counter()
        m._embed(m.params, ids, mask).block_until_ready()
        t_traced = time.perf_counter() - t_traced
        every = profiler.active().events
        events = [e for e in every if e.get("cat") == "kernel"]
        profiler.stop_trace()
        spans = {}
        for e in every:
            if e.get("cat") != "kernel" and e.get("ph") == "X":
                n, total = spans.get((e["cat"], e["name"][:60]), (0, 0.0))
                spans[(e["cat"], e["name"][:60])] = (n + 1, total + e["dur"])
        print(f"\n--- host and submit spans of the traced call ({t_traced * 1e3:.1f} ms wall):")
        for (cat, name), (n, t) in sorted(spans.items(), key=lambda kv: -kv[1][1])[:12]:
            print(f"{t / 1e3:8.2f} ms x{n:<4d} {cat:10s} {name}")
        by_name = {}
        for e in events:
            n, total = by_name.get(e["name"], (0, 0.0))
            by_name[e["name"]] = (n + 1, total + e["dur"])
        total = sum(t for _, t in by_name.values()) or 1.0
        print(f"\n--- kernels by GPU time, one call: {len(events)} kernels, {total / 1e3:.2f} ms in all")
        for name, (n, t) in sorted(by_name.items(), key=lambda kv: -kv[1][1])[:20]:
            print(f"{t / 1e3:8.2f} ms {t / total:6.1%} x{n:<3d} {name[:150]}")

print(f"\n=== MiniLM (all-MiniLM-L6-v2 shapes; {which} weights) on webgpu, batch {BATCH} x {TOKENS} tokens, "
      f"fp32, {flops / 1e9:.1f} GFLOP per call; first call (compiles) {first_s:.2f} s")
print(f"{'mode':10s} {'ms/call':>9s} {'sentences/s':>12s} {'GFLOP/s':>9s} {'of cuBLAS SGEMM':>16s}")
for name, s in (("queued", queued), ("readback", readback)):
    print(f"{name:10s} {s * 1e3:9.2f} {BATCH / s:12.1f} {flops / s / 1e9:9.0f} "
          f"{flops / s / 1e9 / CUBLAS_SGEMM_GFLOPS:15.1%}")
