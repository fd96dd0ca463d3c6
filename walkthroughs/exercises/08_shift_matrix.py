"""Exercise 08 - the shift matrix M_k (see minipe/positional.py).

Write shift_matrix(k, d_model): M_k with PE(pos + k) = M_k PE(pos) for every pos.

For pair i, w = 1 / 10000**(2i / d_model). The angle-addition formulas put the block

    [[ cos(k w), sin(k w)],
     [-sin(k w), cos(k w)]]

at rows and columns (2i, 2i + 1); every other entry is 0. k may be negative.

    shift_matrix(0, 2) -> [[1.0, 0.0], [0.0, 1.0]]
    shift_matrix(1, 2) -> [[0.54030, 0.84147], [-0.84147, 0.54030]]   (rounded here)

Check it:   python -m minipe exercises check 8
A nudge:    python -m minipe exercises hint 8
"""

from __future__ import annotations

import math

DONE = False  # `check 8` sets this word to True once shift_matrix() is right


def shift_matrix(k: int, d_model: int) -> list[list[float]]:
    raise NotImplementedError("exercise 8: write shift_matrix() here")
