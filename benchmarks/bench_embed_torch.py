#!/usr/bin/env python3
"""The ceiling for benchmarks/bench_embed_gpu.py: the same MiniLM forward (BERT, mean pooling,
L2 normalization) in torch on CUDA, fp32 with TF32 off, on the same batch of token ids.

    python benchmarks/bench_embed_torch.py [batch tokens]     (default 256 128; needs torch)

Natively, where torch is (with CUDA: the GPU; else the CPU, to check the script). The weights are
the package's (assets.ensure_minilm()) when there, else random ones of the same shapes (the
speed is the same). Prints ms per call queued (CALLS calls, one synchronize) and with the
(batch, 384) result copied to the host each call, sentences/s and GFLOP/s, like the jaxweb script.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "demos" / "embed"))
sys.path.insert(0, str(ROOT))
CALLS = 10


def main() -> int:
    import torch  # noqa: PLC0415
    from transformers import BertConfig, BertModel  # noqa: PLC0415

    import minilm  # noqa: PLC0415
    args = [int(a) for a in sys.argv[1:3]]
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    batch, tokens = args if len(args) == 2 else ((256, 128) if dev == "cuda" else (4, 16))
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    try:
        import assets  # noqa: PLC0415
        bert, which = BertModel.from_pretrained(str(assets.ensure_minilm()), add_pooling_layer=False,
                                                attn_implementation="eager"), "the package's"
    except Exception:  # noqa: BLE001  (no package here: same shapes, random weights)
        cfg = BertConfig(hidden_size=384, intermediate_size=1536, num_hidden_layers=6, num_attention_heads=12)
        bert, which = BertModel(cfg, add_pooling_layer=False), "random"
    bert = bert.to(dev).eval()
    ids = ((torch.arange(batch * tokens, device=dev).reshape(batch, tokens) * 7919) % 29000 + 1000)
    mask = torch.ones_like(ids)

    def embed():
        h = bert(input_ids=ids, attention_mask=mask).last_hidden_state
        m = mask.unsqueeze(-1).to(h.dtype)
        return torch.nn.functional.normalize((h * m).sum(1) / m.sum(1).clamp(min=1e-9), dim=1)

    sync = torch.cuda.synchronize if dev == "cuda" else (lambda: None)
    with torch.no_grad():
        embed().cpu()
        t = time.perf_counter()
        for _ in range(CALLS):
            out = embed()
        sync()
        queued = (time.perf_counter() - t) / CALLS
        t = time.perf_counter()
        for _ in range(CALLS):
            embed().cpu()
        readback = (time.perf_counter() - t) / CALLS
    flops = minilm.model_flops(batch, tokens)
    name = torch.cuda.get_device_name() if dev == "cuda" else "CPU"
    print(f"torch {torch.__version__} on {name} ({which} weights), fp32, TF32 off, batch {batch} x {tokens}, "
          f"{flops / 1e9:.1f} GFLOP per call; {out.shape[0]} embeddings")
    print(f"{'mode':10s} {'ms/call':>9s} {'sentences/s':>12s} {'GFLOP/s':>9s}")
    for mode, s in (("queued", queued), ("readback", readback)):
        print(f"{mode:10s} {s * 1e3:9.2f} {batch / s:12.1f} {flops / s / 1e9:9.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
