"""Exercise 15, wrong: averages the gradients of a repeated ID instead of summing them."""

from __future__ import annotations

DONE = False


def lookup_backward(ids: list[list[int]], d_X: list[list[float]],
                    vocab_size: int) -> list[list[float]]:
    dE = [[0.0] * len(d_X[0]) for _ in range(vocab_size)]
    counts = [0] * vocab_size
    flat = [i for seq in ids for i in seq]
    for i, row in zip(flat, d_X):
        counts[i] += 1
        for c, g in enumerate(row):
            dE[i][c] += g
    return [[g / counts[i] if counts[i] else g for g in row] for i, row in enumerate(dE)]
