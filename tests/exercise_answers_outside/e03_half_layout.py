"""Exercise 03, wrong: writes all the sines first, then all the cosines (sin | cos), not interleaved."""

from __future__ import annotations

import math

DONE = False


def pe_position(pos: int, d_model: int) -> list[float]:
    angles = [pos / 10000 ** (2 * i / d_model) for i in range(d_model // 2)]
    return [math.sin(a) for a in angles] + [math.cos(a) for a in angles]
