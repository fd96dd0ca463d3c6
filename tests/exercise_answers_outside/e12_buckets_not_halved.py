"""Exercise 12, wrong: forgets to halve num_buckets for the two directions: B = 32, E = 16."""

from __future__ import annotations

import math

DONE = False


def t5_bucket(relative_position: int) -> int:
    B, E = 32, 16
    offset = 16 if relative_position > 0 else 0
    n = abs(relative_position)
    if n < E:
        return offset + n
    return offset + min(E + int(math.log(n / E) / math.log(128 / E) * (B - E)), B - 1)
