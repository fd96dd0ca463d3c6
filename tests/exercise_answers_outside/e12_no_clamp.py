"""Exercise 12, wrong: forgets the min(..., B - 1) clamp, so far offsets run past bucket 15/31."""

from __future__ import annotations

import math

DONE = False


def t5_bucket(relative_position: int) -> int:
    B, E = 16, 8
    offset = B if relative_position > 0 else 0
    n = abs(relative_position)
    if n < E:
        return offset + n
    return offset + E + int(math.log(n / E) / math.log(128 / E) * (B - E))
