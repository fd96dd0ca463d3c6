"""Exercise 04 - the sinusoidal table (see minipe/positional.py).

Write pe_table(num_positions, d_model): the whole sinusoidal table, shape
(num_positions, d_model), chapter 3's sinusoidal_encoding.

    row pos = PE(pos) for pos = 0, 1, ..., num_positions - 1     (positions from 0)
    PE(pos, 2i) = sin(pos / 10000**(2i / d_model)),  PE(pos, 2i + 1) = cos(the same)

    pe_table(2, 4) -> [[0.0, 1.0, 0.0, 1.0],
                       [0.84147, 0.54030, 0.0099998, 0.99995]]   (rounded here)

Your pe_position of exercise 3 may be copied in and called.

Check it:   python -m minipe exercises check 4
A nudge:    python -m minipe exercises hint 4
"""

from __future__ import annotations

import math

DONE = False  # `check 4` sets this word to True once pe_table() is right


def pe_table(num_positions: int, d_model: int) -> list[list[float]]:
    raise NotImplementedError("exercise 4: write pe_table() here")
