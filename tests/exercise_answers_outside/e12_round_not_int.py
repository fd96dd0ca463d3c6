"""Exercise 12, wrong: rounds the log bucket with round() instead of truncating with int()."""

from __future__ import annotations

import math

DONE = False


def t5_bucket(relative_position: int) -> int:
    B, E = 16, 8
    offset = B if relative_position > 0 else 0
    n = abs(relative_position)
    if n < E:
        return offset + n
    return offset + min(E + round(math.log(n / E) / math.log(128 / E) * (B - E)), B - 1)
