"""Exercise 09, wrong: turns by theta alone, forgetting to multiply by pos."""

from __future__ import annotations

import math

DONE = False


def turn_pair(x: float, y: float, pos: int, theta: float) -> list[float]:
    return [x * math.cos(theta) - y * math.sin(theta), x * math.sin(theta) + y * math.cos(theta)]
