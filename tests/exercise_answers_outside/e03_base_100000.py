"""Exercise 03, wrong: uses base 100000 instead of 10000."""

from __future__ import annotations

import math

DONE = False


def pe_position(pos: int, d_model: int) -> list[float]:
    out = []
    for i in range(d_model // 2):
        angle = pos / 100000 ** (2 * i / d_model)
        out += [math.sin(angle), math.cos(angle)]
    return out
