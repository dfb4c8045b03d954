# Python side of the MiniLM benchmark page (embed.mjs loads it into Pyodide, with
# demos/embed/{wordpiece,minilm}.py and the model folder under /tmp). Each case returns
# per-run seconds as a user sees them: the jitted embedding of token ids already on the
# device, read back as a Python list (`tolist()`), after warm-up calls that compiled it.
# onnxruntime-web gets the very same ids (`ids_bytes`, int64) on the same page.
import struct

import jaxweb as jax
import jaxweb.numpy as jnp
import minilm

from page_timing import timed

MODEL_DIR = "/tmp/minilm"
_models = {}
_state = {}


def setup(device, dtype="float32"):
    """The model on `device` (loaded once per device and dtype)."""
    key = (device, dtype)
    if key not in _models:
        with jax.default_device(jax.devices(device)[0]):
            _models[key] = minilm.load(MODEL_DIR, dtype)
    return _models[key]


def token_rows(batch, tokens):
    """`batch` rows of exactly `tokens` real ids ([CLS] text [SEP], no padding): the corpus's
    sentences run together, each row starting at a different sentence."""
    tok = next(iter(_models.values())).tokenizer
    corpus = [s for s in open("/tmp/corpus.txt", encoding="utf-8").read().splitlines() if s]
    rows = []
    for r in range(batch):
        ids, i = [], r * 7
        while len(ids) < tokens - 2:
            ids += tok.tokens(corpus[i % len(corpus)])
            i += 1
        rows.append([tok.cls_id] + ids[:tokens - 2] + [tok.sep_id])
    return rows


def ids_bytes(batch, tokens):
    """The rows as little-endian int64 bytes (onnxruntime-web's input_ids)."""
    rows = token_rows(batch, tokens)
    return struct.pack(f"<{batch * tokens}q", *[i for r in rows for i in r])


def _inputs(device, batch, tokens):
    key = ("ids", device, batch, tokens)
    if key not in _state:
        with jax.default_device(jax.devices(device)[0]):
            ids = jnp.asarray(token_rows(batch, tokens), jnp.int32)
            _state[key] = (ids, jnp.ones((batch, tokens), bool))
    return _state[key]


def run(device, batch, tokens, dtype="float32"):
    """One embedding of the batch, read back: a list of `batch` lists of 384 floats."""
    model = setup(device, dtype)
    ids, mask = _inputs(device, batch, tokens)
    with jax.default_device(jax.devices(device)[0]):
        return model._embed(model.params, ids, mask).tolist()


def out_bytes(device, batch, tokens, dtype="float32"):
    """`run`'s output as float32 bytes (compared with onnxruntime-web's on the page)."""
    flat = [v for row in run(device, batch, tokens, dtype) for v in row]
    return struct.pack(f"<{len(flat)}f", *flat)


def bench(device, batch, tokens, reps, dtype="float32"):
    return timed(lambda: run(device, batch, tokens, dtype), reps, warm=1)


def query_latency(device, text, reps):
    """A user's whole query: tokenize, embed (a batch of one), read back."""
    model = setup(device)
    with jax.default_device(jax.devices(device)[0]):
        return timed(lambda: model.encode([text]).tolist(), reps, warm=1)
