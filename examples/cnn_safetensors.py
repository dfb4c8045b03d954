"""A small CNN trained with optax's adamw and a warmup-cosine schedule, saved as
safetensors and reloaded — jaxweb's model convention in one file:

- parameters are a pytree (nested dicts of arrays, string keys: they become the tensor
  names `conv1.w`, `dense.b`, ... in the file);
- `init(...) -> params` and `apply(params, x) -> logits` are pure functions;
- training is `jax.value_and_grad` + an optax optimizer under `jax.jit`.

    python examples/cnn_safetensors.py            # CPython; the same code runs in a page

The task is synthetic (no downloads): 8x8 images with a horizontal bar (class 0) or a
vertical bar (class 1), plus fixed noise.
"""
from __future__ import annotations

import math
import os
import tempfile

import jaxweb as jax
import jaxweb.io as jio
import jaxweb.numpy as jnp
import jaxweb.optax as optax
import jaxweb.safetensors as safetensors
from jaxweb import lax


def dataset(n: int, size: int = 8) -> tuple:
    """`n` images (NHWC, one channel) and their labels, deterministic."""
    images, labels = [], []
    for i in range(n):
        label, pos = i % 2, (3 * i // 2) % size
        img = [[0.6 * math.sin(1.7 * (r * size + c) + 0.9 * i) for c in range(size)] for r in range(size)]
        for k in range(size):
            r, c = (pos, k) if label == 0 else (k, pos)
            img[r][c] += 1.0
        images.append([[[v] for v in row] for row in img])
        labels.append(label)
    return jnp.asarray(images), jnp.asarray(labels, jnp.int32)


def _weights(shape: tuple, seed: float) -> jax.Array:
    """A deterministic stand-in for random init: scaled sin of arange (fan-in scaling)."""
    fan_in = math.prod(shape[:-1])
    n = math.prod(shape)
    return jnp.sin(jnp.arange(n, dtype=jnp.float32) * seed + 0.5).reshape(shape) * math.sqrt(2.0 / fan_in)


def init(channels: tuple[int, int] = (4, 8), classes: int = 2) -> dict:
    c1, c2 = channels
    return {"conv1": {"w": _weights((3, 3, 1, c1), 1.3), "b": jnp.zeros(c1)},
            "conv2": {"w": _weights((3, 3, c1, c2), 2.9), "b": jnp.zeros(c2)},
            "dense": {"w": _weights((c2, classes), 0.7), "b": jnp.zeros(classes)}}


def _conv(x: jax.Array, p: dict, stride: int) -> jax.Array:
    y = lax.conv_general_dilated(x, p["w"], (stride, stride), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return jnp.maximum(y + p["b"], 0.0)


def apply(params: dict, images: jax.Array) -> jax.Array:
    """Logits for a batch of NHWC images."""
    x = _conv(images, params["conv1"], 1)
    x = _conv(x, params["conv2"], 2)
    x = jnp.mean(x, axis=(1, 2))
    return x @ params["dense"]["w"] + params["dense"]["b"]


def loss_fn(params: dict, images: jax.Array, labels: jax.Array) -> jax.Array:
    return jnp.mean(optax.softmax_cross_entropy_with_integer_labels(apply(params, images), labels))


def train(steps: int = 60, n: int = 32, channels: tuple[int, int] = (4, 8), peak_lr: float = 0.02,
          log=print) -> tuple[dict, list]:
    images, labels = dataset(n)
    params = init(channels)
    schedule = optax.warmup_cosine_decay_schedule(0.0, peak_lr, warmup_steps=max(1, steps // 10),
                                                  decay_steps=steps, end_value=peak_lr / 4)
    opt = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(schedule, weight_decay=1e-4))
    state = opt.init(params)

    @jax.jit
    def step(params, state, images, labels):
        loss, grads = jax.value_and_grad(loss_fn)(params, images, labels)
        updates, state = opt.update(grads, state, params)
        return optax.apply_updates(params, updates), state, loss

    losses = []
    for i in range(steps):
        params, state, loss = step(params, state, images, labels)
        losses.append(float(loss))
        if log and (i % max(1, steps // 5) == 0 or i == steps - 1):
            log(f"step {i:3d}  loss {losses[-1]:.4f}  lr {float(schedule(i)):.4f}")
    return params, losses


def accuracy(params: dict, images: jax.Array, labels: jax.Array) -> float:
    return float(jnp.mean(jnp.argmax(apply(params, images), axis=-1) == labels))


def main(steps: int = 60, n: int = 32, channels: tuple[int, int] = (4, 8), peak_lr: float = 0.02,
         folder: str | None = None, log=print) -> dict:
    params, losses = train(steps, n, channels, peak_lr, log)
    images, labels = dataset(n)
    folder = folder or tempfile.mkdtemp()
    path = os.path.join(folder, "cnn.safetensors")
    jio.save(path, params)  # one safetensors file, tensors named conv1.w, conv1.b, ...
    names = sorted(safetensors.load_file(path))  # any safetensors reader sees plain tensors
    restored = jio.load(path, like=init(channels))  # checked against the model's structure
    same = bool(jnp.all(apply(restored, images) == apply(params, images)))
    result = {"first_loss": losses[0], "last_loss": losses[-1], "accuracy": accuracy(restored, images, labels),
              "tensor_names": names, "reloaded_predictions_identical": same, "path": path}
    if log:
        log(f"accuracy {result['accuracy']:.2f}; saved {len(names)} tensors to {path}; reload identical: {same}")
    return result


if __name__ == "__main__":
    main()
