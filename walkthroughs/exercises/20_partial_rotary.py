"""Exercise 20 - partial rotary: turning part of a head (see minipe/training/heads.py).

Write partial_rotary(row, pos, rotary_dims): RoPE on the first rotary_dims numbers of a
row only (GPT-NeoX's partial rotary), the rest left as they are.

    theta_i = 10000**(-2i / rotary_dims)      i = 0 .. rotary_dims/2 - 1: of the turned width
    pair i  = (2i, 2i + 1)                    interleaved, turned by pos * theta_i (exercise 9)
    row[rotary_dims:]                         as it is

    partial_rotary([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 3, 4)
        -> [-1.2722, -1.8389, 2.8787, 4.0882, 5.0, 6.0]    (rounded here)

Check it:   python -m minipe exercises check 20
A nudge:    python -m minipe exercises hint 20
"""

from __future__ import annotations

import math

DONE = False  # `check 20` sets this word to True once partial_rotary() is right


def partial_rotary(row: list[float], pos: int, rotary_dims: int) -> list[float]:
    raise NotImplementedError("exercise 20: write partial_rotary() here")
