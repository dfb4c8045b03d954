"""BERT's uncased WordPiece tokenizer in pure Python (Pyodide has no `tokenizers`).

    tok = WordPiece.from_files(tokenizer_json=bytes_or_None, vocab_txt=bytes_or_None)
    tok.encode("Hello, world!")            # [101, 7592, 1010, 2088, 999, 102]
    tok.batch("a b".split(), max_length=256) -> (ids rows, attention-mask rows), padded with [PAD]

It gives the ids Hugging Face's `tokenizers` gives for the same `tokenizer.json` (BertNormalizer,
BertPreTokenizer, WordPiece, the [CLS] A [SEP] template), checked on a few thousand strings in
tests/test_embed_tokenizer.py. Steps, as `tokenizers` does them:

1. special tokens written literally in the text ("[MASK]") are taken out first, unnormalized;
2. normalization: drop NUL, U+FFFD and control characters (general category C* other than
   unassigned, but tab/newline/return count as whitespace), map whitespace to a space, put spaces
   around CJK ideographs, strip accents (NFD, drop non-spacing marks), lower-case char by char
   (no final-sigma rule);
3. split on whitespace, then isolate each punctuation character (ASCII punctuation or a P* category);
4. greedy longest-match-first WordPiece with `##` continuations; a word longer than 100 characters
   or with a piece not in the vocabulary becomes [UNK];
5. [CLS] ... [SEP], truncated to `max_length` ids (256, the model's max_seq_length).
"""
from __future__ import annotations

import json
import re
import unicodedata

#: Rust's `char::is_whitespace` (the Unicode White_Space property).
WHITESPACE = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000"
                       + "".join(chr(c) for c in range(0x2000, 0x200B)))
#: `tokenizers` counts these as whitespace although they are control characters.
_CONTROL_AS_SPACE = frozenset("\t\n\r")
#: General categories BERT's clean-up drops (`is_other` without unassigned code points).
_DROPPED_CATEGORIES = frozenset(("Cc", "Cf", "Co", "Cs"))
#: The CJK ideograph blocks that get spaces around each character.
CJK_RANGES = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
              (0x2B740, 0x2B81F), (0x2B920, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))
ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def _is_cjk(cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in CJK_RANGES)


def _clean_char(c: str) -> str:
    """What BERT's clean-up makes of one character: '' (dropped), ' ' or itself."""
    if c in _CONTROL_AS_SPACE:
        return " "
    if c == "\x00" or c == "\ufffd" or unicodedata.category(c) in _DROPPED_CATEGORIES:
        return ""
    if c in WHITESPACE:
        return " "
    if _is_cjk(ord(c)):
        return f" {c} "
    return c


def normalize(text: str, lowercase: bool = True, strip_accents: bool | None = None) -> str:
    """BertNormalizer: clean-up, CJK spacing, accent stripping, lower-casing (in that order)."""
    text = "".join(_clean_char(c) for c in text) if not text.isascii() else _clean_ascii(text)
    if strip_accents if strip_accents is not None else lowercase:
        if not text.isascii():
            text = "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")
    if lowercase:
        text = text.lower() if text.isascii() else "".join(c.lower() for c in text)  # no final sigma
    return text


_ASCII_CLEAN = {**{i: None for i in (*range(32), 127)}, **{ord(c): " " for c in _CONTROL_AS_SPACE}}


def _clean_ascii(text: str) -> str:
    """The clean-up's fast path for ASCII text (control characters dropped, tab/newline/CR -> space)."""
    return text.translate(_ASCII_CLEAN)


def _is_punctuation(c: str) -> bool:
    return c in ASCII_PUNCTUATION or (not c.isascii() and unicodedata.category(c).startswith("P"))


def pre_tokenize(text: str) -> list[str]:
    """BertPreTokenizer: split on whitespace, then isolate every punctuation character."""
    words: list[str] = []
    for chunk in "".join(" " if c in WHITESPACE else c for c in text).split(" "):
        start = 0
        for i, c in enumerate(chunk):
            if _is_punctuation(c):
                if i > start:
                    words.append(chunk[start:i])
                words.append(c)
                start = i + 1
        if start < len(chunk):
            words.append(chunk[start:])
    return words


class WordPiece:
    """A BERT WordPiece tokenizer from a vocabulary (token -> id) and tokenizer.json's settings."""

    def __init__(self, vocab: dict[str, int], *, unk_token: str = "[UNK]", prefix: str = "##",
                 max_input_chars_per_word: int = 100, lowercase: bool = True,
                 strip_accents: bool | None = None, special_tokens: tuple[str, ...] = SPECIAL_TOKENS):
        self.vocab = vocab
        self.unk_id = vocab[unk_token]
        self.prefix, self.max_chars = prefix, max_input_chars_per_word
        self.lowercase, self.strip_accents = lowercase, strip_accents
        self.cls_id, self.sep_id, self.pad_id = vocab["[CLS]"], vocab["[SEP]"], vocab["[PAD]"]
        specials = sorted((t for t in special_tokens if t in vocab), key=len, reverse=True)
        self._special = re.compile("|".join(re.escape(t) for t in specials)) if specials else None
        self._pieces: dict[str, tuple[int, ...]] = {}  # word -> ids, memoized (corpora repeat words)

    @classmethod
    def from_files(cls, tokenizer_json: bytes | str | None = None, vocab_txt: bytes | str | None = None) -> "WordPiece":
        """From tokenizer.json's text (its vocabulary and settings) or, without it, vocab.txt
        (one token per line, the line number is the id) with BERT-uncased defaults."""
        if tokenizer_json is not None:
            spec = json.loads(tokenizer_json)
            model, norm = spec["model"], spec.get("normalizer") or {}
            if model.get("type") != "WordPiece":
                raise ValueError(f"tokenizer.json holds a {model.get('type')} model, not WordPiece")
            specials = tuple(t["content"] for t in spec.get("added_tokens", []) if t.get("special"))
            return cls(dict(model["vocab"]), unk_token=model.get("unk_token", "[UNK]"),
                       prefix=model.get("continuing_subword_prefix", "##"),
                       max_input_chars_per_word=model.get("max_input_chars_per_word", 100),
                       lowercase=norm.get("lowercase", True), strip_accents=norm.get("strip_accents"),
                       special_tokens=specials or SPECIAL_TOKENS)
        if vocab_txt is None:
            raise ValueError("WordPiece.from_files needs tokenizer.json or vocab.txt")
        text = vocab_txt.decode("utf-8") if isinstance(vocab_txt, bytes) else vocab_txt
        return cls({tok: i for i, tok in enumerate(text.split("\n")) if tok})

    def word_ids(self, word: str) -> tuple[int, ...]:
        """Greedy longest-match-first WordPiece of one pre-tokenized word ([UNK] alone when a
        part matches nothing or the word is too long)."""
        hit = self._pieces.get(word)
        if hit is not None:
            return hit
        ids: list[int] = []
        start = 0 if len(word) <= self.max_chars else len(word)
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else self.prefix + word[start:end]
                if piece in self.vocab:
                    break
                end -= 1
            if end == start:
                ids = []
                break
            ids.append(self.vocab[piece])
            start = end
        self._pieces[word] = result = tuple(ids) if ids else (self.unk_id,)
        return result

    def tokens(self, text: str) -> list[int]:
        """The ids of `text` without [CLS]/[SEP] or truncation."""
        ids: list[int] = []
        pieces = [(text, None)] if self._special is None else self._split_special(text)
        for chunk, special_id in pieces:
            if special_id is not None:
                ids.append(special_id)
                continue
            for word in pre_tokenize(normalize(chunk, self.lowercase, self.strip_accents)):
                ids.extend(self.word_ids(word))
        return ids

    def _split_special(self, text: str) -> list[tuple[str, int | None]]:
        """`text` cut around special tokens written in it (matched before normalization)."""
        out, pos = [], 0
        for m in self._special.finditer(text):
            if m.start() > pos:
                out.append((text[pos:m.start()], None))
            out.append(("", self.vocab[m.group()]))
            pos = m.end()
        if pos < len(text) or not out:
            out.append((text[pos:], None))
        return out

    def encode(self, text: str, max_length: int = 256) -> list[int]:
        """[CLS] ids [SEP], at most `max_length` ids (the text's end is cut)."""
        if max_length < 2:
            raise ValueError(f"max_length must leave room for [CLS] and [SEP], got {max_length}")
        return [self.cls_id, *self.tokens(text)[:max_length - 2], self.sep_id]

    def batch(self, texts: list[str], max_length: int = 256, pad_to: int | None = None
              ) -> tuple[list[list[int]], list[list[int]]]:
        """(ids, attention mask) rows for `texts`, padded with [PAD] to `pad_to` (default: the
        longest row)."""
        rows = [self.encode(t, max_length) for t in texts]
        width = pad_to if pad_to is not None else max((len(r) for r in rows), default=0)
        ids = [r + [self.pad_id] * (width - len(r)) for r in rows]
        mask = [[1] * len(r) + [0] * (width - len(r)) for r in rows]
        return ids, mask
