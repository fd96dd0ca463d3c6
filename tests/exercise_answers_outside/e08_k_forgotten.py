"""Exercise 08, wrong: uses the angle w instead of k * w."""

from __future__ import annotations

import math

DONE = False


def shift_matrix(k: int, d_model: int) -> list[list[float]]:
    m = [[0.0] * d_model for _ in range(d_model)]
    for i in range(d_model // 2):
        w = 1 / 10000 ** (2 * i / d_model)
        c, s = math.cos(w), math.sin(w)
        m[2 * i][2 * i], m[2 * i][2 * i + 1] = c, s
        m[2 * i + 1][2 * i], m[2 * i + 1][2 * i + 1] = -s, c
    return m
