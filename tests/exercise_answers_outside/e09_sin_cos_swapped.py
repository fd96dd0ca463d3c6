"""Exercise 09, wrong: swaps sin and cos in both lines."""

from __future__ import annotations

import math

DONE = False


def turn_pair(x: float, y: float, pos: int, theta: float) -> list[float]:
    a = pos * theta
    return [x * math.sin(a) - y * math.cos(a), x * math.cos(a) + y * math.sin(a)]
