"""Exercise 06, wrong: subtracts the max in the numerator only, not in the sum below."""

from __future__ import annotations

import math

DONE = False


def softmax(scores: list[float]) -> list[float]:
    m = max(scores)
    total = sum(math.exp(x) for x in scores)
    return [math.exp(x - m) / total for x in scores]
