"""Exercise 13, wrong: subtracts the row's whole padding count from t: right only for left-padded rows."""

from __future__ import annotations

DONE = False


def position_ids(attention_mask: list[list[int]]) -> list[list[int]]:
    return [[t - (len(row) - sum(row)) for t in range(len(row))] for row in attention_mask]
