"""Exercise 24, wrong: rounds with int(n + 0.5), so a tie always goes up (257 -> 258 in bfloat16)."""

from __future__ import annotations

import math

DONE = False

BITS = {"float16": (11, -14, 15), "bfloat16": (8, -126, 127)}


def round_to(x: float, dtype: str) -> float:
    p, emin, emax = BITS[dtype]
    if x == 0 or math.isinf(x) or math.isnan(x):
        return x
    e = math.floor(math.log2(abs(x)))
    step = 2.0 ** (max(e, emin) - p + 1)
    n = int(abs(x) / step + 0.5)
    value = n * step
    if value > (2 - 2 ** (1 - p)) * 2.0 ** emax:
        return math.copysign(math.inf, x)
    return math.copysign(value, x)
