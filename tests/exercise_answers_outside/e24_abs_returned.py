"""Exercise 24, wrong: works on abs(x) and returns it, so a negative number comes back positive."""

from __future__ import annotations

import math

DONE = False


def round_to(x: float, dtype: str) -> float:
    p, emin, emax = {"float16": (11, -14, 15), "bfloat16": (8, -126, 127)}[dtype]
    if x == 0 or math.isinf(x) or math.isnan(x):
        return x
    x = abs(x)
    e = math.frexp(x)[1] - 1
    step = 2.0 ** (max(e, emin) - p + 1)
    x = round(x / step) * step
    return math.inf if x > (2 - 2 ** (1 - p)) * 2.0 ** emax else x
