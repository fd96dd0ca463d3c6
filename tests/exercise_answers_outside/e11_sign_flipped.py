"""Exercise 11, wrong: adds +slope * (i - j): a bonus growing with the distance."""

from __future__ import annotations

import math

DONE = False


def alibi(seq_len: int, slope: float) -> list[list[float]]:
    return [[slope * (i - j) if j <= i else -math.inf for j in range(seq_len)] for i in range(seq_len)]
