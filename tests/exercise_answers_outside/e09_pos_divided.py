"""Exercise 09, wrong: takes the angle pos / theta (as in the sinusoidal formula) instead of pos * theta."""

from __future__ import annotations

import math

DONE = False


def turn_pair(x: float, y: float, pos: int, theta: float) -> list[float]:
    a = pos / theta
    return [x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)]
