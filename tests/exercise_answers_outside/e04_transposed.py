"""Exercise 04, wrong: returns the table transposed: one row per column, shape (d_model, num_positions)."""

from __future__ import annotations

import math

DONE = False


def pe_position(pos: int, d_model: int) -> list[float]:
    out = []
    for i in range(d_model // 2):
        angle = pos / 10000 ** (2 * i / d_model)
        out += [math.sin(angle), math.cos(angle)]
    return out


def pe_table(num_positions: int, d_model: int) -> list[list[float]]:
    rows = [pe_position(pos, d_model) for pos in range(num_positions)]
    return [[row[c] for row in rows] for c in range(d_model)]
