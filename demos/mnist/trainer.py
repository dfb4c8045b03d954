"""MNIST training for the /mnist/ page, run in the page's Python worker.

The page owns the loop: it calls `Trainer.train(n)` for short chunks (a few
hundred milliseconds each) so that the worker goes back to its event loop between
them, where Pause, a drawn digit's `predict` or a Reset can get in. The model is
the page's editable code: a module source defining `init(key)` and `apply(params, x)`.

Data stays uint8 on the device (47 MB for the training set, not 188 MB as float32);
the jitted step converts its batch. The step takes the whole shuffled epoch and the batch's
index (a traced scalar) and slices its batch itself, and writes its loss into a small history
array it hands back: every argument is then an array held whole in its own buffer, so each
step replays the previous one's recorded commands (webgpu replay.py) — eager slices passed in
would be views, which a jitted call copies first and never replays (the step took 6-8 ms on
the H200 at batch 128, issue 22) — and a chunk of any length reads its losses with one readback
of a fixed-shape array (stacking them compiled a kernel per chunk length, which the page varies).
The parameters and the optimizer state are donated (donate_argnums=(0, 1)): the new ones are
written into the old ones' memory, so a step holds one copy of them (with Adam, three times the
parameters' size), not two. A donated step still replays: each output takes its own donated
input's buffer, the same buffers every call (tests/test_webgpu_replay.py, and the trainer's
tests/test_pages_runtime.py). Runs in CPython too (tests/test_pages_runtime.py).
"""
from __future__ import annotations

import array
import random
import time

import jaxweb as jax
import jaxweb.numpy as jnp
import jaxweb.optax as optax

IDX_MAGIC = {2049: 1, 2051: 3}  # labels (1-D), images (3-D)
HISTORY = 256  # losses the step writes before the host reads them back (a chunk reads them once)
OPTIMIZERS = {"adam": optax.adam, "sgd": lambda lr: optax.sgd(lr, momentum=0.9), "adamw": optax.adamw}


def parse_idx(data: bytes) -> tuple[tuple[int, ...], memoryview]:
    """(shape, uint8 payload) of an IDX file (MNIST's format: big-endian header)."""
    magic = int.from_bytes(data[0:4], "big")
    if magic not in IDX_MAGIC:
        raise ValueError(f"not an MNIST IDX file (magic {magic:#x})")
    ndim = IDX_MAGIC[magic]
    shape = tuple(int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim))
    return shape, memoryview(data)[4 + 4 * ndim:]


def to_device(data: bytes) -> jax.Array:
    """An IDX file as a uint8 array, images flattened to (n, 784).

    `jnp.frombuffer` puts the bytes on the device in one write (47 MB for the images).
    """
    shape, payload = parse_idx(data)
    flat = (shape[0], shape[1] * shape[2]) if len(shape) == 3 else shape
    return jnp.frombuffer(payload, dtype=jnp.uint8).reshape(flat)


async def fetch_mnist(base: str = "/data/mnist/") -> dict[str, bytes]:
    """The four MNIST files' bytes (53 MB), fetched once per worker."""
    import _jaxweb_worker  # noqa: PLC0415  (the page worker's runtime)
    names = {"train_x": "train-images-idx3-ubyte", "train_y": "train-labels-idx1-ubyte",
             "test_x": "t10k-images-idx3-ubyte", "test_y": "t10k-labels-idx1-ubyte"}
    return {k: await _jaxweb_worker.fetch_bytes(base + v) for k, v in names.items()}


def load_model(source: str) -> dict:
    """Run the page's model code; its `init` and `apply` (a clear error if one is missing)."""
    ns: dict = {"__name__": "mnist_model"}
    exec(compile(source, "<model>", "exec"), ns)  # noqa: S102  (the user's own model code)
    missing = [f for f in ("init", "apply") if not callable(ns.get(f))]
    if missing:
        raise NameError(f"the model code must define {' and '.join(missing)}(...)")
    return ns


class Trainer:
    """One training run: data on the device, parameters, optimizer state, the jitted step."""

    def __init__(self, data: dict[str, bytes], model_source: str, batch: int = 128, lr: float = 1e-3,
                 optimizer: str = "adam", seed: int = 0, eval_batch: int = 2000):
        if optimizer not in OPTIMIZERS:
            raise ValueError(f"optimizer must be one of {sorted(OPTIMIZERS)}, got {optimizer!r}")
        self.model = load_model(model_source)
        self.train_x, self.train_y = to_device(data["train_x"]), to_device(data["train_y"])
        self.test_x, self.test_y = to_device(data["test_x"]), to_device(data["test_y"])
        self.n_train, self.batch, self.eval_batch = self.train_x.shape[0], batch, eval_batch
        self.steps_per_epoch = self.n_train // batch
        self.rng = random.Random(seed)
        self.params = self.model["init"](jax.random.key(seed))
        self.opt = OPTIMIZERS[optimizer](lr)
        self.opt_state = self.opt.init(self.params)
        self.step_count, self.epoch, self.train_s = 0, 0, 0.0
        self._step = jax.jit(self._train_step, donate_argnums=(0, 1))  # why: the module docstring
        self._history = jnp.zeros(HISTORY, dtype=jnp.float32)
        self._logits = jax.jit(self._predict_logits)
        self._shuffle()

    # -- jitted pieces
    def _loss(self, params, x, y):
        logp = jax.nn.log_softmax(self.model["apply"](params, x))
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None].astype(jnp.int32), axis=1))

    def _train_step(self, params, opt_state, history, epoch_x, epoch_y, i, slot):
        """One step on batch `i` of the epoch; its loss lands in history[slot]."""
        lo = i * self.batch
        xb = jax.lax.dynamic_slice(epoch_x, (lo, 0), (self.batch, epoch_x.shape[1]))
        yb = jax.lax.dynamic_slice(epoch_y, (lo,), (self.batch,))
        loss, grads = jax.value_and_grad(self._loss)(params, xb.astype(jnp.float32) / 255.0, yb)
        updates, opt_state = self.opt.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, history.at[slot].set(loss)

    def _predict_logits(self, params, xb):
        return self.model["apply"](params, xb.astype(jnp.float32) / 255.0)

    # -- the page's calls
    def _shuffle(self) -> None:
        """A new order of the training set for the next epoch (one gather on the device).

        The order is drawn on the host with Python's `random` (seeded): a 60k-element
        `jax.random.permutation` on the wasm device takes minutes today.
        """
        order = list(range(self.n_train))
        self.rng.shuffle(order)
        perm = jnp.frombuffer(array.array("i", order).tobytes(), dtype=jnp.int32)
        self.epoch_x, self.epoch_y = self.train_x[perm], self.train_y[perm]

    def train(self, steps: int) -> dict:
        """`steps` training steps; the losses (read back once), ms/step and where we are."""
        values: list[float] = []
        t0 = time.perf_counter()
        for k in range(steps):
            if k and k % HISTORY == 0:  # the history is full: read it before it is written over
                values += self._history.tolist()
            i = self.step_count % self.steps_per_epoch
            self.params, self.opt_state, self._history = self._step(
                self.params, self.opt_state, self._history, self.epoch_x, self.epoch_y, i, k % HISTORY)
            self.step_count += 1
            if self.step_count % self.steps_per_epoch == 0:
                self.epoch += 1
                self._shuffle()
        if steps:
            values += self._history.tolist()[:(steps - 1) % HISTORY + 1]
        dt = time.perf_counter() - t0
        self.train_s += dt
        return {"losses": values, "step": self.step_count, "epoch": self.epoch,
                "epoch_progress": (self.step_count % self.steps_per_epoch) / self.steps_per_epoch,
                "ms_per_step": dt * 1e3 / max(1, steps), "samples_per_s": steps * self.batch / max(dt, 1e-9),
                "train_s": self.train_s}

    def evaluate(self) -> float:
        """Accuracy on the 10k test images."""
        correct = 0
        n = self.test_x.shape[0]
        for lo in range(0, n, self.eval_batch):
            logits = self._logits(self.params, self.test_x[lo:lo + self.eval_batch])
            hits = jnp.argmax(logits, axis=1) == self.test_y[lo:lo + self.eval_batch].astype(jnp.int32)
            correct += int(jnp.sum(hits.astype(jnp.int32)))
        return correct / n

    def predict(self, pixels: list[float]) -> list[float]:
        """Class probabilities of one 28x28 image given as 784 values in 0..1 (a drawn digit)."""
        x = jnp.asarray(pixels, dtype=jnp.float32).reshape(1, 784)
        return jax.nn.softmax(self.model["apply"](self.params, x), axis=-1)[0].tolist()
