"""Exercise 11 - ALiBi's bias (see minipe/relative.py).

Write alibi(seq_len, slope): ALiBi's bias for one causal head, shape (seq_len, seq_len),

    bias(i, j) = -slope * (i - j)    for j <= i   (a penalty growing with the distance)
    bias(i, j) = -inf                for j > i    (the causal mask)

It is added to score(i, j) before the softmax.

    alibi(3, 0.5) -> [[0.0, -inf, -inf], [-0.5, 0.0, -inf], [-1.0, -0.5, 0.0]]

Check it:   python -m minipe exercises check 11
A nudge:    python -m minipe exercises hint 11
"""

from __future__ import annotations

import math

DONE = False  # `check 11` sets this word to True once alibi() is right


def alibi(seq_len: int, slope: float) -> list[list[float]]:
    raise NotImplementedError("exercise 11: write alibi() here")
