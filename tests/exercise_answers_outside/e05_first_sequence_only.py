"""Exercise 05, wrong: adds the table to the first sequence only, the others pass unchanged."""

from __future__ import annotations

DONE = False


def add_positions(tokens: list[list[list[float]]],
                  table: list[list[float]]) -> list[list[list[float]]]:
    out = [[list(token) for token in seq] for seq in tokens]
    for t, token in enumerate(out[0]):
        for c in range(len(token)):
            token[c] += table[t][c]
    return out
