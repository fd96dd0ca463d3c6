"""Exercise 05, wrong: adds into the caller's tokens in place and returns them."""

from __future__ import annotations

DONE = False


def add_positions(tokens: list[list[list[float]]],
                  table: list[list[float]]) -> list[list[list[float]]]:
    for seq in tokens:
        for t, token in enumerate(seq):
            for c in range(len(token)):
                token[c] += table[t][c]
    return tokens
