"""Exercise 01, wrong: drops unknown tokens instead of giving them the ID of <|unk|>."""

from __future__ import annotations

import re

DONE = False


def encode(text: str, vocabulary: list[str]) -> list[int]:
    tokens = re.findall(r"<\|\w+\|>|\w+|[^\w\s]", text.lower())
    return [vocabulary.index(t) for t in tokens if t in vocabulary]
