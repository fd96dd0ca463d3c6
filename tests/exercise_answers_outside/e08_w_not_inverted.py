"""Exercise 08, wrong: uses w = 10000**(2i/d_model) instead of 1 / 10000**(2i/d_model)."""

from __future__ import annotations

import math

DONE = False


def shift_matrix(k: int, d_model: int) -> list[list[float]]:
    m = [[0.0] * d_model for _ in range(d_model)]
    for i in range(d_model // 2):
        w = 10000 ** (2 * i / d_model)
        c, s = math.cos(k * w), math.sin(k * w)
        a, b = 2 * i, 2 * i + 1
        m[a][a], m[a][b], m[b][a], m[b][b] = c, s, -s, c
    return m
