"""Exercise 10, wrong: turns the caller's row in place and returns it."""

from __future__ import annotations

import math

DONE = False


def rotate_row(row: list[float], pos: int, layout: str) -> list[float]:
    d = len(row)
    for i in range(d // 2):
        a, b = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + d // 2)
        angle = pos * 10000 ** (-2 * i / d)
        x, y = row[a], row[b]
        row[a] = x * math.cos(angle) - y * math.sin(angle)
        row[b] = x * math.sin(angle) + y * math.cos(angle)
    return row
