"""Exercise 23, wrong: gives the inputs themselves as targets, not shifted by one."""

from __future__ import annotations

DONE = False


def sliding_windows(ids: list[int], max_length: int, stride: int) -> list[list[list[int]]]:
    out = []
    for start in range(0, len(ids) - max_length, stride):
        out.append([ids[start:start + max_length], ids[start:start + max_length]])
    return out
