"""Exercise 09, wrong: turns the wrong way: x cos a + y sin a, -x sin a + y cos a."""

from __future__ import annotations

import math

DONE = False


def turn_pair(x: float, y: float, pos: int, theta: float) -> list[float]:
    a = pos * theta
    return [x * math.cos(a) + y * math.sin(a), -x * math.sin(a) + y * math.cos(a)]
