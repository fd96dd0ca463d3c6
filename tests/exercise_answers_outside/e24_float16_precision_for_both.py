"""Exercise 24, wrong: takes float16's 11 significant bits and range for bfloat16 too (a table misread)."""

from __future__ import annotations

import math

DONE = False


def round_to(x: float, dtype: str) -> float:
    p, emin, emax = 11, -14, 15  # half precision
    if x == 0 or math.isinf(x) or math.isnan(x):
        return x
    e = math.frexp(abs(x))[1] - 1
    step = 2.0 ** (max(e, emin) - p + 1)
    rounded = round(abs(x) / step) * step
    if rounded > (2 - 2 ** (1 - p)) * 2.0 ** emax:
        rounded = math.inf
    return math.copysign(rounded, x)
