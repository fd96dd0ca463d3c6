"""Exercise 02, wrong: treats IDs as 1-based: takes row id - 1."""

from __future__ import annotations

DONE = False


def lookup(table: list[list[float]], ids: list[int]) -> list[list[float]]:
    return [list(table[i - 1]) for i in ids]
