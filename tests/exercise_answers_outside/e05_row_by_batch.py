"""Exercise 05, wrong: adds table row b (the sequence's index) instead of row t (the token's position)."""

from __future__ import annotations

DONE = False


def add_positions(tokens: list[list[list[float]]],
                  table: list[list[float]]) -> list[list[list[float]]]:
    return [[[x + table[b][c] for c, x in enumerate(token)] for token in seq]
            for b, seq in enumerate(tokens)]
