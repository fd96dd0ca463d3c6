"""Exercise 01, wrong: cuts the text with str.split(), so punctuation stays glued to words."""

from __future__ import annotations

DONE = False


def encode(text: str, vocabulary: list[str]) -> list[int]:
    unk = vocabulary.index("<|unk|>")
    return [vocabulary.index(t) if t in vocabulary else unk for t in text.lower().split()]
