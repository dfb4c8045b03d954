"""Semantic search for the /embed/ page, run in the page's Python worker (and in CPython by the
tests): MiniLM (minilm.py) embeds a corpus once per device and weight dtype, then each query,
and answers with the nearest sentences by cosine similarity.

The checkpoint's tensors are read once; switching the device or the weights' dtype moves them
(`jax.device_put`) and embeds the corpus again there.
"""
from __future__ import annotations

import time
from typing import Any, Callable

import jaxweb as jax
import jaxweb.io
import minilm


class Search:
    """The corpus, its embeddings on the current device, and queries against them."""

    def __init__(self, read: Callable[[str], bytes], flat: dict[str, Any], corpus: list[str]):
        self.read, self.flat = read, flat
        self.corpus = [s for s in corpus if s.strip()]
        self.model: minilm.MiniLM | None = None
        self.embeddings = None
        self.setting: tuple[str, str] | None = None

    def use(self, device: str, dtype: str = "float32") -> dict:
        """Put the model on `device` with `dtype` weights and embed the corpus there; timings."""
        target = jax.devices(device)[0]
        t0 = time.perf_counter()
        flat = jax.device_put(self.flat, target)
        self.model = minilm.from_files(self.read, flat, dtype)
        t1 = time.perf_counter()
        with jax.default_device(target):
            self.embeddings = self.model.encode(self.corpus).block_until_ready()
        t2 = time.perf_counter()
        self.setting = (device, dtype)
        return {"device": device, "dtype": dtype, "sentences": len(self.corpus),
                "prepare_s": t1 - t0, "embed_s": t2 - t1, "sentences_per_s": len(self.corpus) / (t2 - t1)}

    def query(self, text: str, k: int = 8) -> dict:
        """The `k` corpus sentences nearest to `text`: [[index, sentence, score], ...] and the
        milliseconds the query took (tokenize, embed, score, read back)."""
        if self.model is None:
            raise RuntimeError("Search.use(device) first")
        t0 = time.perf_counter()
        tokens = len(self.model.tokenize(text))
        with jax.default_device(jax.devices(self.setting[0])[0]):
            q = self.model.encode([text])
            scores = (self.embeddings @ q[0]).tolist()
        best = sorted(range(len(scores)), key=lambda i: -scores[i])[:k]
        return {"results": [[i, self.corpus[i], scores[i]] for i in best], "tokens": tokens,
                "ms": (time.perf_counter() - t0) * 1e3}


async def load_page(base_url: str, corpus_url: str, emit: Callable[[str, Any], None]) -> Search:
    """The page's Search: the model folder's small files and its weights (cached in OPFS, with
    byte progress through `emit("download", {...})`) and the corpus, from the page's server."""
    import _jaxweb_worker  # noqa: PLC0415  (the page worker's runtime)
    base = base_url.rstrip("/") + "/"
    small = {name: await _jaxweb_worker.fetch_bytes(base + name) for name in minilm.FILES}
    corpus = (await _jaxweb_worker.fetch_bytes(corpus_url)).decode("utf-8").splitlines()
    t0 = time.perf_counter()
    state = {"last": 0.0}

    def progress(done: int, total: int | None) -> None:
        now = time.perf_counter()
        if now - state["last"] > 0.1 or done == total:  # a few updates a second, and the last
            state["last"] = now
            emit("download", {"done": done, "total": total, "s": now - t0})

    flat = await jaxweb.io.fetch_weights(base + "model.safetensors", progress)
    return Search(small.__getitem__, flat, corpus)
