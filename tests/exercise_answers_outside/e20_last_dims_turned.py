"""Exercise 20, wrong: turns the last rotary_dims numbers instead of the first."""

from __future__ import annotations

import math

DONE = False


def partial_rotary(row: list[float], pos: int, rotary_dims: int) -> list[float]:
    out = list(row)
    d = len(row)
    for i in range(rotary_dims // 2):
        a, b = (2 * i, 2 * i + 1)
        a, b = a + d - rotary_dims, b + d - rotary_dims
        angle = pos * 10000 ** (-2 * i / rotary_dims)
        x, y = row[a], row[b]
        out[a] = x * math.cos(angle) - y * math.sin(angle)
        out[b] = x * math.sin(angle) + y * math.cos(angle)
    return out
