"""Exercise 10 - a whole row, in both layouts (see minipe/rotary.py).

Write rotate_row(row, pos, layout): RoPE on a whole query or key row of d numbers.

    theta_i = 10000**(-2i / d)               for the pairs i = 0 .. d/2 - 1
    pair i  = (2i, 2i + 1)                   layout "interleaved" (RoFormer, Meta's Llama)
            = (i, i + d/2)                   layout "half" (GPT-NeoX, Hugging Face)
    each pair (first, second) turns by a = pos * theta_i, as in exercise 9

    rotate_row([1.0, 2.0, 3.0, 4.0], 2, "interleaved") -> [-2.2347, 0.0770, 2.9194, 4.0592]
    rotate_row([1.0, 2.0, 3.0, 4.0], 2, "half")        -> [-3.1440, 1.9196, -0.3391, 4.0392]
    (rounded here)

Check it:   python -m minipe exercises check 10
A nudge:    python -m minipe exercises hint 10
"""

from __future__ import annotations

import math

DONE = False  # `check 10` sets this word to True once rotate_row() is right


def rotate_row(row: list[float], pos: int, layout: str) -> list[float]:
    raise NotImplementedError("exercise 10: write rotate_row() here")
