"""Exercise 13, wrong: uses the index t, ignoring the padding."""

from __future__ import annotations

DONE = False


def position_ids(attention_mask: list[list[int]]) -> list[list[int]]:
    return [list(range(len(row))) for row in attention_mask]
