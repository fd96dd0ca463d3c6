"""Exercise 06, wrong: subtracts the minimum instead of the maximum."""

from __future__ import annotations

import math

DONE = False


def softmax(scores: list[float]) -> list[float]:
    m = min(scores)
    exps = [math.exp(x - m) for x in scores]
    total = sum(exps)
    return [e / total for e in exps]
