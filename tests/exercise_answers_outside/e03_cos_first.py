"""Exercise 03, wrong: puts the cosine in the even column and the sine in the odd one."""

from __future__ import annotations

import math

DONE = False


def pe_position(pos: int, d_model: int) -> list[float]:
    out = []
    for i in range(d_model // 2):
        angle = pos / 10000 ** (2 * i / d_model)
        out += [math.cos(angle), math.sin(angle)]
    return out
