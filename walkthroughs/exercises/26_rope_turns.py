"""Exercise 26 - RoPE's cos and sin in low precision, fixed (see minipe/low_precision.py).

Write rope_turns(pos, d, dtype): the cos a and sin a that turn the d/2 pairs of a
bfloat16 or float16 model at position pos, computed the way production code does
after the bug reports (lesson 26): every step in float32, only the table in dtype.

    theta_i = 10000**(-2i / d),  stored in float32    (inv_freq, a float32 tensor)
    a_i     = pos * theta_i,     stored in float32    (the angle)
    cos a_i and sin a_i,         stored in dtype      (what turns q and k)

"Stored in f" is round_to(value, f): minipe's (imported below), or yours of exercise
24 once it knows float32 (p = 24, emin = -126, emax = 127). Return [cosines, sines],
d/2 numbers each.

    rope_turns(1, 4, "bfloat16") -> [[0.5390625, 1.0], [0.83984375, 0.010009765625]]
    rope_turns(4095, 4, "bfloat16")
        -> [[-0.06591796875, -0.9921875], [-0.99609375, -0.10888671875]]

Stored in bfloat16, theta_i is off by up to 2**-8 of itself, so the angle at position
4095 is off by up to 16 radians; an angle stored there is a multiple of 16 radians.

Check it:   python -m minipe exercises check 26
A nudge:    python -m minipe exercises hint 26
"""

from __future__ import annotations

import math

from minipe import round_to

DONE = False  # `check 26` sets this word to True once rope_turns() is right


def rope_turns(pos: int, d: int, dtype: str) -> list[list[float]]:
    raise NotImplementedError("exercise 26: write rope_turns() here")
