"""Exercise 05, wrong: adds table row 0 to every token, whatever its position."""

from __future__ import annotations

DONE = False


def add_positions(tokens: list[list[list[float]]],
                  table: list[list[float]]) -> list[list[list[float]]]:
    return [[[x + table[0][c] for c, x in enumerate(token)] for token in seq]
            for seq in tokens]
