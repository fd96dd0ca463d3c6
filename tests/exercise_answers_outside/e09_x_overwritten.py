"""Exercise 09, wrong: overwrites x first, then computes y' from the new x."""

from __future__ import annotations

import math

DONE = False


def turn_pair(x: float, y: float, pos: int, theta: float) -> list[float]:
    a = pos * theta
    x = x * math.cos(a) - y * math.sin(a)
    y = x * math.sin(a) + y * math.cos(a)
    return [x, y]
