"""Exercise 13, wrong: writes the cumsum into the caller's mask."""

from __future__ import annotations

DONE = False


def position_ids(attention_mask: list[list[int]]) -> list[list[int]]:
    for row in attention_mask:
        for t in range(1, len(row)):
            row[t] += row[t - 1]
    return [[c - 1 for c in row] for row in attention_mask]
