"""Exercise 09 - turning one RoPE pair (see minipe/rotary.py).

Write turn_pair(x, y, pos, theta): RoPE's turn of one pair (x, y) at position pos,

    a  = pos * theta
    x' = x cos a - y sin a
    y' = x sin a + y cos a

and return [x', y']. The length of (x, y) stays; only its direction carries pos.

    turn_pair(1.0, 0.0, 1, 1.0) -> [0.54030, 0.84147]   (cos 1, sin 1; rounded here)
    turn_pair(3.0, 4.0, 0, 0.5) -> [3.0, 4.0]           (position 0 turns by nothing)

Check it:   python -m minipe exercises check 9
A nudge:    python -m minipe exercises hint 9
"""

from __future__ import annotations

import math

DONE = False  # `check 9` sets this word to True once turn_pair() is right


def turn_pair(x: float, y: float, pos: int, theta: float) -> list[float]:
    raise NotImplementedError("exercise 9: write turn_pair() here")
