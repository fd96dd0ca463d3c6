"""Exercise 23, wrong: lets windows run one start too far: the last window's targets are one short."""

from __future__ import annotations

DONE = False


def sliding_windows(ids: list[int], max_length: int, stride: int) -> list[list[list[int]]]:
    out = []
    for start in range(0, len(ids) - max_length + 1, stride):
        out.append([ids[start:start + max_length], ids[start + 1:start + max_length + 1]])
    return out
