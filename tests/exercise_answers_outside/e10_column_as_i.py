"""Exercise 10, wrong: plugs the column index 2i in for i: theta = 10000**(-2 * (2i) / d)."""

from __future__ import annotations

import math

DONE = False


def rotate_row(row: list[float], pos: int, layout: str) -> list[float]:
    d = len(row)
    out = list(row)
    for i in range(d // 2):
        a, b = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + d // 2)
        angle = pos * 10000 ** (-2 * a / d)
        x, y = row[a], row[b]
        out[a] = x * math.cos(angle) - y * math.sin(angle)
        out[b] = x * math.sin(angle) + y * math.cos(angle)
    return out
