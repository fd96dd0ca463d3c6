"""Exercise 10, wrong: uses theta_i = 10000**(-i / d), without the 2."""

from __future__ import annotations

import math

DONE = False


def rotate_row(row: list[float], pos: int, layout: str) -> list[float]:
    d = len(row)
    out = list(row)
    for i in range(d // 2):
        a, b = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + d // 2)
        angle = pos * 10000 ** (-i / d)
        x, y = row[a], row[b]
        out[a] = x * math.cos(angle) - y * math.sin(angle)
        out[b] = x * math.sin(angle) + y * math.cos(angle)
    return out
