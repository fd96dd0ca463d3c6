"""Exercise 11, wrong: puts 0.0 instead of -inf at the later keys."""

from __future__ import annotations

import math

DONE = False


def alibi(seq_len: int, slope: float) -> list[list[float]]:
    return [[-slope * (i - j) if j <= i else 0.0 for j in range(seq_len)] for i in range(seq_len)]
