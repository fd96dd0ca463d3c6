"""Exercise 01, wrong: gives unknown tokens the last index of the vocabulary, not the index of <|unk|>."""

from __future__ import annotations

import re

DONE = False


def encode(text: str, vocabulary: list[str]) -> list[int]:
    tokens = re.findall(r"<\|\w+\|>|\w+|[^\w\s]", text.lower())
    ids = {token: i for i, token in enumerate(vocabulary)}
    return [ids.get(t, len(vocabulary) - 1) for t in tokens]
