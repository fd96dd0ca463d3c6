"""Exercise 02, wrong: takes row t (the token's position) instead of row ids[t]."""

from __future__ import annotations

DONE = False


def lookup(table: list[list[float]], ids: list[int]) -> list[list[float]]:
    return [list(table[t]) for t in range(len(ids))]
