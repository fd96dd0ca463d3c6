"""Exercise 03, wrong: multiplies pos by 10000**(2i/d_model) instead of dividing."""

from __future__ import annotations

import math

DONE = False


def pe_position(pos: int, d_model: int) -> list[float]:
    out = []
    for i in range(d_model // 2):
        angle = pos * 10000 ** (2 * i / d_model)
        out += [math.sin(angle), math.cos(angle)]
    return out
