#!/usr/bin/env python3
"""Record the MiniLM reference values the tests check without torch (run natively, once):

    pip install torch==2.13.0 sentence-transformers tokenizers   # CPU build
    python scripts/record_minilm_reference.py [--model-dir DIR]

writes into tests/data/minilm/:
  - tokenizer_cases.json.gz: a few thousand varied strings (accents, CJK, emoji, control and
    zero-width characters, long words, special tokens written in the text, empty) with the ids
    Hugging Face's `tokenizers` gives them (the package's tokenizer.json, truncation at 256 as
    sentence-transformers uses it, no padding); checked against sentence-transformers' own
    tokenizer on every string first;
  - corpus_embeddings.npy: sentence-transformers' float32 embeddings of demos/embed/corpus.txt
    (torch on the CPU, the package's model folder).
The model folder defaults to the vendored copy (`assets.ensure_minilm()`, what serve.py serves).
"""
from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "minilm"
CORPUS = ROOT / "demos" / "embed" / "corpus.txt"
MAX_LENGTH = 256

#: Pieces the generated strings are made of: each pool shows the tokenizer one kind of input.
POOLS = {
    "ascii": ["hello", "World", "THE", "quick", "brown", "fox's", "don't", "e-mail", "U.S.A.", "3.14159",
              "1,000,000", "x86_64", "C++", "#hashtag", "@user", "https://example.com/a?b=c&d=e",
              "snake_case_name", "CamelCaseWord", "re-evaluate", "(parenthesis)", "[bracket]", "{brace}",
              "a|b", "~tilde", "back`tick", "$100", "50%", "<tag>", "a=b+c", "^caret", "...", "!!!", "?!"],
    "accents": ["café", "naïve", "résumé", "Ångström", "façade", "jalapeño", "Zürich", "São Paulo", "crème brûlée",
                "Dvořák", "Łódź", "ŞİŞLİ", "Straße", "Øresund", "Ærø", "œuvre", "ÉCOLE", "coöperate", "piñata"],
    "greek": ["ΣΟΦΟΣ", "Σίσυφος", "ὀδυσσεύς", "λόγος", "ΑΘΗΝΑ", "ς", "Σ"],
    "cyrillic": ["Москва", "привет", "ЁЛКА", "Україна", "Ђурђевдан"],
    "semitic": ["שָׁלוֹם", "مرحبا", "السَّلَامُ", "עברית"],
    "indic": ["नमस्ते", "हिन्दी", "தமிழ்", "বাংলা", "ภาษาไทย"],
    "cjk": ["中文", "日本語", "漢字テスト", "北京大学", "𠀀𠀁", "한국어", "ひらがな", "カタカナ", "龍", "你好，世界。",
            "東京都", "﨑", "丽", "𪚥"],
    "emoji": ["😀", "👍🏽", "👨‍👩‍👧", "🇫🇷", "❤️", "🤖", "🥰", "☕", "✨", "🏳️‍🌈", "1️⃣", "🐍"],
    "symbols": ["€", "£", "¥", "©", "®", "™", "°C", "±", "∑", "√2", "≤", "∞", "→", "♥", "§", "¶", "½", "²", "Ⅻ",
                "ﬁ", "ＡＢＣ", "１２３", "‰", "′", "µ", "Å", "K"],
    "punctuation": ["«quote»", "“smart”", "‘single’", "—", "–", "…", "¡Hola!", "¿qué?", "、", "。", "・", "‹›",
                    "†", "※", "〈〉", "«", "‐", "⁂"],
    "controls": ["\x00", "\x07", "\x1b", "\x7f", "\x85", "\x0b", "\x0c", "\u200b", "\u200c", "\u200d", "\ufeff",
                 "\u00ad", "\u2066", "\ufffd", "\ue000", "\u0378", "\x1f", "\u0301", "\u0308", "\ufe0f"],
    "spaces": [" ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u2003", "\u3000", "\u2028", "\u202f", "\u1680"],
    "special": ["[MASK]", "[CLS]", "[SEP]", "[PAD]", "[UNK]", "[mask]", "[MASK", "MASK]", "[[MASK]]"],
}
WEIGHTS = {"ascii": 10, "accents": 4, "greek": 1, "cyrillic": 1, "semitic": 1, "indic": 1, "cjk": 3,
           "emoji": 3, "symbols": 2, "punctuation": 2, "controls": 2, "spaces": 2, "special": 1}
SEPARATORS = [" "] * 12 + ["", "\t", "\n", "  ", "\u00a0", "\u3000"]
EDGE_CASES = ["", " ", "\t\n", "\x00", "\u200b", ".", "a", "A", "[CLS]", "[MASK][MASK]", "a" * 99, "a" * 100,
              "a" * 101, "b" * 250, "supercalifragilisticexpialidocious" * 3, "x" + "é" * 99, "ⅻ" * 10,
              "İstanbul", "ıi", "ǅ", "ﬃ", "ΣΣ ΣΑΣ", "Ǆemal", "i̇", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "🙂" * 5, "٣٤٥", "㈱", "Ⓐ"]


def tokenizer_cases(corpus: list[str], n: int = 3000, seed: int = 26) -> list[str]:
    """The strings the tokenizer is checked on: the corpus, edge cases, long texts (past the
    256-id truncation) and `n` random mixtures of the pools (seeded: the same every run)."""
    rng = random.Random(seed)
    names = list(POOLS)
    weights = [WEIGHTS[k] for k in names]
    out = list(corpus) + EDGE_CASES
    for i in range(40):  # long texts: whole paragraphs of the corpus
        out.append(" ".join(rng.sample(corpus, 10 + i)))
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 14)):
            piece = rng.choice(POOLS[rng.choices(names, weights)[0]])
            if rng.random() < 0.15:
                piece = piece.upper() if rng.random() < 0.5 else piece.title()
            parts.append(piece)
            parts.append(rng.choice(SEPARATORS))
        out.append("".join(parts[:-1]))
    return out


def model_dir_default() -> Path:
    sys.path.insert(0, str(ROOT))
    import assets  # noqa: PLC0415
    return assets.ensure_minilm()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model-dir", type=Path, default=None)
    args = ap.parse_args()
    import numpy as np  # noqa: PLC0415
    from sentence_transformers import SentenceTransformer  # noqa: PLC0415
    from tokenizers import Tokenizer  # noqa: PLC0415

    model_dir = args.model_dir or model_dir_default()
    corpus = CORPUS.read_text(encoding="utf-8").splitlines()
    texts = tokenizer_cases(corpus)
    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(MAX_LENGTH)
    ids = [e.ids for e in tok.encode_batch(texts)]
    st = SentenceTransformer(str(model_dir), device="cpu")
    assert st.max_seq_length == MAX_LENGTH, st.max_seq_length
    st_ids = st.tokenize(texts)["input_ids"].tolist()
    for text, a, b in zip(texts, ids, st_ids):  # sentence-transformers pads: compare the unpadded part
        assert b[:len(a)] == a and not any(b[len(a):]), (text, a, b)
    OUT.mkdir(parents=True, exist_ok=True)
    with gzip.open(OUT / "tokenizer_cases.json.gz", "wt", encoding="utf-8", compresslevel=9) as f:
        json.dump([[t, i] for t, i in zip(texts, ids)], f, ensure_ascii=False, separators=(",", ":"))
    emb = st.encode(corpus, batch_size=32, convert_to_numpy=True).astype(np.float32)
    np.save(OUT / "corpus_embeddings.npy", emb)
    print(f"{len(texts)} tokenizer cases ({sum(map(len, ids))} ids), {emb.shape} embeddings -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
