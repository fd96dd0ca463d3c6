"""Exercise 21 - ALiBi's slope for every head (see minipe/relative.py).

Write alibi_slopes(num_heads): one slope m per head, by the rule of Press et al. (2022).

For a power of two n, a geometric sequence from 2**(-8/n) down to 2**-8:

    m_h = 2**(-8 (h + 1) / n)                 h = 0 .. n - 1

For other n: the slopes of the power of two just below n, then every other slope of
twice that power (the 1st, 3rd, 5th, ...), until there are n:

    alibi_slopes(8) -> [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625]
    alibi_slopes(6) -> [0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125]

Check it:   python -m minipe exercises check 21
A nudge:    python -m minipe exercises hint 21
"""

from __future__ import annotations

DONE = False  # `check 21` sets this word to True once alibi_slopes() is right


def alibi_slopes(num_heads: int) -> list[float]:
    raise NotImplementedError("exercise 21: write alibi_slopes() here")
