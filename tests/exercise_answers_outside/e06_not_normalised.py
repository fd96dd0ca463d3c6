"""Exercise 06, wrong: forgets to divide by the sum: returns exp(x - m)."""

from __future__ import annotations

import math

DONE = False


def softmax(scores: list[float]) -> list[float]:
    m = max(scores)
    return [math.exp(x - m) for x in scores]
