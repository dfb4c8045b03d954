"""examples/cnn_safetensors.py in a reduced size: the CNN trains (adamw + warmup-cosine),
its safetensors file holds the dotted parameter names, and the reloaded model predicts
exactly what the trained one does."""
import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "cnn_safetensors", Path(__file__).resolve().parents[1] / "examples" / "cnn_safetensors.py")
example = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(example)


def test_cnn_trains_saves_and_reloads(tmp_path):
    r = example.main(steps=25, n=8, channels=(2, 4), peak_lr=0.1, folder=str(tmp_path), log=None)
    assert r["last_loss"] < 0.5 * r["first_loss"], r
    assert r["accuracy"] == 1.0
    assert r["tensor_names"] == ["conv1.b", "conv1.w", "conv2.b", "conv2.w", "dense.b", "dense.w"]
    assert r["reloaded_predictions_identical"] is True
    assert Path(r["path"]).stat().st_size > 100


def test_model_convention_is_plain_pytrees():
    params = example.init((2, 4))
    images, labels = example.dataset(4)
    assert example.apply(params, images).shape == (4, 2)
    assert {k: sorted(v) for k, v in params.items()} == {"conv1": ["b", "w"], "conv2": ["b", "w"],
                                                         "dense": ["b", "w"]}
    assert labels.tolist() == [0, 1, 0, 1]
