"""Exercise 06, wrong: writes the weights into the caller's list of scores."""

from __future__ import annotations

import math

DONE = False


def softmax(scores: list[float]) -> list[float]:
    m = max(scores)
    for j, x in enumerate(scores):
        scores[j] = math.exp(x - m)
    total = sum(scores)
    for j in range(len(scores)):
        scores[j] /= total
    return scores
