"""Exercise 16, wrong: returns seq rows, not context_length: the unused rows are missing."""

from __future__ import annotations

DONE = False


def broadcast_backward(d_X: list[list[list[float]]], context_length: int) -> list[list[float]]:
    seq_len, d = len(d_X[0]), len(d_X[0][0])
    return [[sum(seq[t][c] for seq in d_X) for c in range(d)] for t in range(seq_len)]
