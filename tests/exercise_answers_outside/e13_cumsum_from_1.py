"""Exercise 13, wrong: forgets the - 1: positions count from 1."""

from __future__ import annotations

DONE = False


def position_ids(attention_mask: list[list[int]]) -> list[list[int]]:
    out = []
    for row in attention_mask:
        total, ids = 0, []
        for m in row:
            total += m
            ids.append(total)
        out.append(ids)
    return out
