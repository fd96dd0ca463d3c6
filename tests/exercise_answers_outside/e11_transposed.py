"""Exercise 11, wrong: builds the transpose: -slope * (j - i) for j >= i, -inf below the diagonal."""

from __future__ import annotations

import math

DONE = False


def alibi(seq_len: int, slope: float) -> list[list[float]]:
    return [[-slope * (j - i) if j >= i else -math.inf for j in range(seq_len)] for i in range(seq_len)]
