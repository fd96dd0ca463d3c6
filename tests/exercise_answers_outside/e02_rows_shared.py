"""Exercise 02, wrong: returns the table's own rows (no copy), so changing the answer changes the table."""

from __future__ import annotations

DONE = False


def lookup(table: list[list[float]], ids: list[int]) -> list[list[float]]:
    return [table[i] for i in ids]
