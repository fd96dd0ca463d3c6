"""Exercise 06, wrong: does not subtract the max, so exp overflows at large scores."""

from __future__ import annotations

import math

DONE = False


def softmax(scores: list[float]) -> list[float]:
    exps = [math.exp(x) for x in scores]
    total = sum(exps)
    return [e / total for e in exps]
