"""Exercise 03 - PE(pos) for d_model = 6 (see minipe/positional.py).

Write pe_position(pos, d_model): the sinusoidal encoding of one position (the 2017 paper),

    PE(pos, 2i)     = sin(pos / 10000**(2i / d_model))
    PE(pos, 2i + 1) = cos(pos / 10000**(2i / d_model))

for the pairs i = 0 .. d_model/2 - 1: columns interleaved sin, cos, sin, cos, and
both columns of pair i use the one angle. d_model is even; the first case is 6.

    pe_position(0, 6) -> [0.0, 1.0, 0.0, 1.0, 0.0, 1.0]
    pe_position(1, 4) -> [0.84147, 0.54030, 0.0099998, 0.99995]   (rounded here)

Check it:   python -m minipe exercises check 3
A nudge:    python -m minipe exercises hint 3
"""

from __future__ import annotations

import math

DONE = False  # `check 3` sets this word to True once pe_position() is right


def pe_position(pos: int, d_model: int) -> list[float]:
    raise NotImplementedError("exercise 3: write pe_position() here")
