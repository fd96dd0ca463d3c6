"""Exercise 23, wrong: reads stride as the overlap (Hugging Face's meaning): steps by max_length - stride."""

from __future__ import annotations

DONE = False


def sliding_windows(ids: list[int], max_length: int, stride: int) -> list[list[list[int]]]:
    out = []
    for start in range(0, len(ids) - max_length, max_length - stride):
        out.append([ids[start:start + max_length], ids[start + 1:start + max_length + 1]])
    return out
