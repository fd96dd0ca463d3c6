"""Exercise 03, wrong: uses the column index j as 2i, so the cosine column gets its own (wrong) angle."""

from __future__ import annotations

import math

DONE = False


def pe_position(pos: int, d_model: int) -> list[float]:
    out = []
    for j in range(d_model):
        angle = pos / 10000 ** (j / d_model)
        out.append(math.sin(angle) if j % 2 == 0 else math.cos(angle))
    return out
