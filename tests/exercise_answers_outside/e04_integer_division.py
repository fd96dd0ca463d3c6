"""Exercise 04, wrong: writes 2 * i // d_model (integer division), so every exponent is 0."""

from __future__ import annotations

import math

DONE = False


def pe_table(num_positions: int, d_model: int) -> list[list[float]]:
    table = []
    for pos in range(num_positions):
        row = []
        for i in range(d_model // 2):
            angle = pos / 10000 ** (2 * i // d_model)
            row += [math.sin(angle), math.cos(angle)]
        table.append(row)
    return table
