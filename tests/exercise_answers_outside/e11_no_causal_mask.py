"""Exercise 11, wrong: forgets the causal mask: -slope * |i - j| everywhere."""

from __future__ import annotations

import math

DONE = False


def alibi(seq_len: int, slope: float) -> list[list[float]]:
    return [[-slope * abs(i - j) for j in range(seq_len)] for i in range(seq_len)]
