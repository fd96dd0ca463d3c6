"""Exercise 06 - the stable softmax (see minipe/attention.py).

Write softmax(scores): weights that sum to 1, and that do not overflow at large scores.

    softmax(x)_j = exp(x_j - m) / sum_k exp(x_k - m),   m = max(x)

Subtracting m changes nothing (exp(-m) cancels above and below the line) but
keeps every exp(...) <= 1: math.exp(1000.0) raises OverflowError.

    softmax([0.0, math.log(3.0)]) -> [0.25, 0.75]
    softmax([1000.0, 1000.0])     -> [0.5, 0.5]

Check it:   python -m minipe exercises check 6
A nudge:    python -m minipe exercises hint 6
"""

from __future__ import annotations

import math

DONE = False  # `check 6` sets this word to True once softmax() is right


def softmax(scores: list[float]) -> list[float]:
    raise NotImplementedError("exercise 6: write softmax() here")
